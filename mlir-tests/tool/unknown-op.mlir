// An operation of an unknown dialect is rejected with a located diagnostic
// (spmd-opt, like mlir-opt, does not allow unregistered dialects by
// default), in the custom and in the generic form.
//
// RUN: not spmd-opt %s --split-input-file 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s 2>&1 | FileCheck %s --check-prefix=FIRST \
// RUN:   --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
//
// With --allow-unregistered-dialect the generic form is accepted (the custom
// form still is not: nothing knows how to parse it).
// RUN: not spmd-opt %s --split-input-file --allow-unregistered-dialect 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=ALLOWED

// FIRST: unknown-op.mlir:[[@LINE+5]]:{{[0-9]+}}: error: Dialect `foo' not found for custom op 'foo.bar'
// FIRST-NOT: error:

func.func @custom_form() {
  // CHECK: unknown-op.mlir:[[@LINE+1]]:3: error: Dialect `foo' not found for custom op 'foo.bar'
  foo.bar
  return
}

// -----

func.func @generic_form() {
  // ALLOWED-LABEL: func.func @generic_form
  // ALLOWED-NEXT: "foo.bar"() : () -> ()
  // CHECK: unknown-op.mlir:[[@LINE+1]]:{{[0-9]+}}: error: operation being parsed with an unregistered dialect
  "foo.bar"() : () -> ()
  return
}
