// Unknown passes and unknown or ill-typed pass options are rejected with a
// non-zero exit code, for upstream and for spmd passes alike.
//
// RUN: not spmd-opt %s --canonicalize=bogus=1 -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UPSTREAM \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{bogus=1}))' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --spmd-view-cfg=nope=1 -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPMD \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --pass-pipeline='builtin.module(spmd-print-cfg-analysis{nope=1})' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPMD \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --canonicalize=max-iterations=abc -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADVALUE \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --no-such-pass -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPASS \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --pass-pipeline='builtin.module(no-such-pass)' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPIPELINEPASS \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not spmd-opt %s --pass-pipeline='builtin.module(func.func(canonicalize)' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNBALANCED \
// RUN:       --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// UPSTREAM: error: <Pass-Options-Parser>: no such option bogus
// PIPELINE: error: <Pass-Options-Parser>: no such option bogus
// PIPELINE: failed to add `canonicalize` with options `bogus=1`
// SPMD: error: <Pass-Options-Parser>: no such option nope
// BADVALUE: for the --max-iterations option: 'abc' value invalid
// NOPASS: Unknown command line argument '--no-such-pass'
// NOPIPELINEPASS: error: {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
// UNBALANCED: error: {{.*}}unbalanced parentheses

func.func @valid_input(%c: i1) -> !spmd.mask {
  %b = spmd.ballot %c : !spmd.mask
  return %b : !spmd.mask
}
