// Round-trip of every spmd operation, both spmd types and the uniformity
// attribute, in the custom and in the generic form.
//
// RUN: spmd-opt %s -split-input-file | spmd-opt -split-input-file | FileCheck %s
// RUN: spmd-opt %s -split-input-file --mlir-print-op-generic | spmd-opt -split-input-file | FileCheck %s
// RUN: spmd-opt %s -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: spmd-opt %s -split-input-file --verify-roundtrip -o /dev/null

//===----------------------------------------------------------------------===//
// Types and the attribute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @types
// CHECK-SAME: (%{{.*}}: !spmd.token, %{{.*}}: !spmd.mask) -> (!spmd.mask, !spmd.token)
// GENERIC: function_type = (!spmd.token, !spmd.mask) -> (!spmd.mask, !spmd.token), sym_name = "types"
func.func @types(%tok: !spmd.token, %mask: !spmd.mask) -> (!spmd.mask, !spmd.token) {
  // CHECK: return %{{.*}}, %{{.*}} : !spmd.mask, !spmd.token
  return %mask, %tok : !spmd.mask, !spmd.token
}

// -----

// The attribute stands on its own too, e.g. in a dictionary under a name
// the dialect does not own.
// CHECK-LABEL: func.func @attribute_values
// CHECK-SAME: attributes {a = #uniform, b = #divergent}
func.func @attribute_values() attributes {
    a = #spmd.uniformity<uniform>, b = #spmd.uniformity<divergent>} {
  return
}

//===----------------------------------------------------------------------===//
// Convergence control
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @convergence_entry_and_anchor
func.func @convergence_entry_and_anchor() -> (!spmd.token, !spmd.token) {
  // CHECK: %[[ENTRY:.*]] = spmd.convergence.entry : !spmd.token
  // GENERIC: "spmd.convergence.entry"() : () -> !spmd.token
  %entry = spmd.convergence.entry : !spmd.token
  // CHECK-NEXT: %[[ANCHOR:.*]] = spmd.convergence.anchor : !spmd.token
  // GENERIC-NEXT: "spmd.convergence.anchor"() : () -> !spmd.token
  %anchor = spmd.convergence.anchor : !spmd.token
  // CHECK-NEXT: return %[[ENTRY]], %[[ANCHOR]]
  return %entry, %anchor : !spmd.token, !spmd.token
}

// -----

// A token per iteration in the header of a natural loop.
// CHECK-LABEL: func.func @convergence_loop
// CHECK-SAME: (%[[N:.*]]: i32)
func.func @convergence_loop(%n: i32) {
  // CHECK: %[[ENTRY:.*]] = spmd.convergence.entry : !spmd.token
  %entry = spmd.convergence.entry : !spmd.token
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  // CHECK: cf.br ^[[HEADER:bb[0-9]+]](%{{.*}} : i32)
  cf.br ^header(%zero : i32)
// CHECK: ^[[HEADER]](%[[I:.*]]: i32):
^header(%i: i32):
  // CHECK-NEXT: %[[ITER:.*]] = spmd.convergence.loop %[[ENTRY]] : !spmd.token
  // GENERIC: "spmd.convergence.loop"(%{{.*}}) : (!spmd.token) -> !spmd.token
  %iter = spmd.convergence.loop %entry : !spmd.token
  %next = arith.addi %i, %one : i32
  %again = arith.cmpi slt, %next, %n : i32
  // CHECK: cf.cond_br %{{.*}}, ^[[HEADER]](%{{.*}} : i32), ^[[EXIT:bb[0-9]+]]
  cf.cond_br %again, ^header(%next : i32), ^exit
// CHECK: ^[[EXIT]]:
^exit:
  return
}

// -----

// The loop token of an inner cycle takes the token of the outer iteration.
// CHECK-LABEL: func.func @convergence_nested_loops
func.func @convergence_nested_loops(%c: i1, %d: i1) {
  // CHECK: %[[ANCHOR:.*]] = spmd.convergence.anchor : !spmd.token
  %anchor = spmd.convergence.anchor : !spmd.token
  cf.br ^outer
^outer:
  // CHECK: %[[OUTER:.*]] = spmd.convergence.loop %[[ANCHOR]] : !spmd.token
  %outer = spmd.convergence.loop %anchor : !spmd.token
  cf.br ^inner
^inner:
  // CHECK: %[[INNER:.*]] = spmd.convergence.loop %[[OUTER]] : !spmd.token
  %inner = spmd.convergence.loop %outer : !spmd.token
  cf.cond_br %c, ^inner, ^latch
^latch:
  cf.cond_br %d, ^outer, ^exit
^exit:
  return
}

//===----------------------------------------------------------------------===//
// Reconvergence markers
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @reconvergence_markers
func.func @reconvergence_markers(%c: i1, %d: i1) {
  // CHECK: spmd.reconvergence.head 0{{$}}
  // CHECK-NEXT: cf.cond_br
  // GENERIC: "spmd.reconvergence.head"() <{id = 0 : i64}> : () -> ()
  spmd.reconvergence.head 0
  cf.cond_br %c, ^then, ^join
^then:
  // A second, nested region with a large id.
  // CHECK: spmd.reconvergence.head 9223372036854775807
  spmd.reconvergence.head 9223372036854775807
  cf.cond_br %d, ^inner, ^inner_join
^inner:
  cf.br ^inner_join
^inner_join:
  // CHECK: spmd.reconvergence.tail 9223372036854775807
  spmd.reconvergence.tail 9223372036854775807
  cf.br ^join
^join:
  // CHECK: ^{{.*}}:
  // CHECK-NEXT: spmd.reconvergence.tail 0{{$}}
  // GENERIC: "spmd.reconvergence.tail"() <{id = 0 : i64}> : () -> ()
  spmd.reconvergence.tail 0
  return
}

// -----

// Markers carry extra attributes in their attribute dictionary.
// CHECK-LABEL: func.func @reconvergence_marker_attrs
func.func @reconvergence_marker_attrs(%c: i1) {
  // CHECK: spmd.reconvergence.head 7 {note = "if"}
  spmd.reconvergence.head 7 {note = "if"}
  cf.cond_br %c, ^then, ^join
^then:
  cf.br ^join
^join:
  // CHECK: spmd.reconvergence.tail 7 {note = "endif"}
  spmd.reconvergence.tail 7 {note = "endif"}
  return
}

//===----------------------------------------------------------------------===//
// Flow blocks
//===----------------------------------------------------------------------===//

// -----

// Without `loop`, with operands on both, one or no successor.
// CHECK-LABEL: func.func @flow_br
// CHECK-SAME: (%[[P:.*]]: i1, %[[V:.*]]: i32, %[[F:.*]]: f32)
func.func @flow_br(%p: i1, %v: i32, %f: f32) {
  // CHECK: spmd.flow_br %[[P]], ^[[A:bb[0-9]+]], ^[[B:bb[0-9]+]]{{$}}
  // GENERIC: "spmd.flow_br"(%{{.*}})[^{{.*}}, ^{{.*}}] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  spmd.flow_br %p, ^a, ^b
// CHECK: ^[[A]]:
^a:
  // CHECK-NEXT: spmd.flow_br %[[P]], ^[[C:bb[0-9]+]](%[[V]] : i32), ^[[B]]{{$}}
  // GENERIC: "spmd.flow_br"(%{{.*}}, %{{.*}})[^{{.*}}, ^{{.*}}] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
  spmd.flow_br %p, ^c(%v : i32), ^b
// CHECK: ^[[B]]:
^b:
  // CHECK-NEXT: spmd.flow_br %[[P]], ^[[E:bb[0-9]+]], ^[[C]](%[[V]] : i32){{$}}
  // GENERIC: "spmd.flow_br"(%{{.*}}, %{{.*}})[^{{.*}}, ^{{.*}}] <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (i1, i32) -> ()
  spmd.flow_br %p, ^e, ^c(%v : i32)
// CHECK: ^[[C]](%{{.*}}: i32):
^c(%x: i32):
  // CHECK-NEXT: spmd.flow_br %[[P]], ^[[D:bb[0-9]+]](%[[V]], %[[F]] : i32, f32), ^[[E2:bb[0-9]+]](%[[P]] : i1){{$}}
  // GENERIC: "spmd.flow_br"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})[^{{.*}}, ^{{.*}}] <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (i1, i32, f32, i1) -> ()
  spmd.flow_br %p, ^d(%v, %f : i32, f32), ^e2(%p : i1)
// CHECK: ^[[D]](%{{.*}}: i32, %{{.*}}: f32):
^d(%y: i32, %z: f32):
  return
// CHECK: ^[[E]]:
^e:
  return
// CHECK: ^[[E2]](%{{.*}}: i1):
^e2(%q: i1):
  return
}

// -----

// A loop Flow block: true leaves the loop, false takes the back edge.
// CHECK-LABEL: func.func @flow_br_loop
// CHECK-SAME: (%[[BRK:.*]]: i1, %[[V:.*]]: i32)
func.func @flow_br_loop(%brk: i1, %v: i32) {
  cf.br ^header(%v : i32)
// CHECK: ^[[HEADER:bb[0-9]+]](%[[I:.*]]: i32):
^header(%i: i32):
  cf.br ^latch_flow
// CHECK: ^[[LATCH:bb[0-9]+]]:
^latch_flow:
  // CHECK-NEXT: spmd.flow_br loop %[[BRK]], ^[[EXIT:bb[0-9]+]](%[[I]] : i32), ^[[HEADER]](%[[I]] : i32){{$}}
  // GENERIC: "spmd.flow_br"(%{{.*}}, %{{.*}}, %{{.*}})[^{{.*}}, ^{{.*}}] <{loop, operandSegmentSizes = array<i32: 1, 1, 1>}> : (i1, i32, i32) -> ()
  spmd.flow_br loop %brk, ^exit(%i : i32), ^header(%i : i32)
// CHECK: ^[[EXIT]](%{{.*}}: i32):
^exit(%r: i32):
  return
}

// -----

// A loop Flow block that is its own back edge, without operands.
// CHECK-LABEL: func.func @flow_br_loop_self
func.func @flow_br_loop_self(%brk: i1) {
  cf.br ^spin
// CHECK: ^[[SPIN:bb[0-9]+]]:
^spin:
  // CHECK-NEXT: spmd.flow_br loop %{{.*}}, ^[[EXIT:bb[0-9]+]], ^[[SPIN]]{{$}}
  spmd.flow_br loop %brk, ^exit, ^spin
^exit:
  return
}

// -----

// A Flow block whose predicate is a block argument, as the structurizer
// builds them.
// CHECK-LABEL: func.func @flow_br_block_arg_predicate
func.func @flow_br_block_arg_predicate(%c: i1) {
  %true = arith.constant true
  %false = arith.constant false
  cf.cond_br %c, ^then, ^flow(%false : i1)
^then:
  cf.br ^flow(%true : i1)
// CHECK: ^[[FLOW:bb[0-9]+]](%[[PRED:.*]]: i1):
^flow(%pred: i1):
  // CHECK-NEXT: spmd.flow_br %[[PRED]], ^{{.*}}, ^{{.*}}
  spmd.flow_br %pred, ^else, ^join
^else:
  cf.br ^join
^join:
  return
}

//===----------------------------------------------------------------------===//
// Wave-level exec-mask operations
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @mask_ops
// CHECK-SAME: (%[[C:.*]]: i1)
func.func @mask_ops(%c: i1) -> !spmd.mask {
  // CHECK: %[[EXEC:.*]] = spmd.exec.read : !spmd.mask
  // GENERIC: "spmd.exec.read"() : () -> !spmd.mask
  %exec = spmd.exec.read : !spmd.mask
  // CHECK-NEXT: %[[TAKEN:.*]] = spmd.ballot %[[C]] : !spmd.mask
  // GENERIC-NEXT: "spmd.ballot"(%{{.*}}) : (i1) -> !spmd.mask
  %taken = spmd.ballot %c : !spmd.mask
  // CHECK-NEXT: %[[NONE:.*]] = spmd.mask.empty : !spmd.mask
  // GENERIC-NEXT: "spmd.mask.empty"() : () -> !spmd.mask
  %none = spmd.mask.empty : !spmd.mask
  // CHECK-NEXT: %[[BOTH:.*]] = spmd.mask.and %[[EXEC]], %[[TAKEN]] : !spmd.mask
  // GENERIC-NEXT: "spmd.mask.and"(%{{.*}}, %{{.*}}) : (!spmd.mask, !spmd.mask) -> !spmd.mask
  %both = spmd.mask.and %exec, %taken : !spmd.mask
  // CHECK-NEXT: %[[REST:.*]] = spmd.mask.andn %[[EXEC]], %[[TAKEN]] : !spmd.mask
  // GENERIC-NEXT: "spmd.mask.andn"(%{{.*}}, %{{.*}}) : (!spmd.mask, !spmd.mask) -> !spmd.mask
  %rest = spmd.mask.andn %exec, %taken : !spmd.mask
  // CHECK-NEXT: %[[ANY:.*]] = spmd.mask.or %[[NONE]], %[[BOTH]] : !spmd.mask
  // GENERIC-NEXT: "spmd.mask.or"(%{{.*}}, %{{.*}}) : (!spmd.mask, !spmd.mask) -> !spmd.mask
  %any = spmd.mask.or %none, %both : !spmd.mask
  // CHECK-NEXT: spmd.exec.write %[[REST]] : !spmd.mask
  // GENERIC-NEXT: "spmd.exec.write"(%{{.*}}) : (!spmd.mask) -> ()
  spmd.exec.write %rest : !spmd.mask
  // CHECK-NEXT: return %[[ANY]] : !spmd.mask
  return %any : !spmd.mask
}

// -----

// spmd.exec.br_zero with and without successor operands.
// CHECK-LABEL: func.func @exec_br_zero
// CHECK-SAME: (%[[M:.*]]: !spmd.mask, %[[V:.*]]: i32)
func.func @exec_br_zero(%m: !spmd.mask, %v: i32) {
  // CHECK: spmd.exec.write %[[M]] : !spmd.mask
  spmd.exec.write %m : !spmd.mask
  // CHECK-NEXT: spmd.exec.br_zero ^[[SKIP:bb[0-9]+]], ^[[WORK:bb[0-9]+]]{{$}}
  // GENERIC: "spmd.exec.br_zero"()[^{{.*}}, ^{{.*}}] <{operandSegmentSizes = array<i32: 0, 0>}> : () -> ()
  spmd.exec.br_zero ^skip, ^work
// CHECK: ^[[WORK]]:
^work:
  // CHECK-NEXT: spmd.exec.br_zero ^[[JOIN:bb[0-9]+]](%[[V]], %[[M]] : i32, !spmd.mask), ^[[MORE:bb[0-9]+]](%[[V]] : i32){{$}}
  // GENERIC: "spmd.exec.br_zero"(%{{.*}}, %{{.*}}, %{{.*}})[^{{.*}}, ^{{.*}}] <{operandSegmentSizes = array<i32: 2, 1>}> : (i32, !spmd.mask, i32) -> ()
  spmd.exec.br_zero ^join(%v, %m : i32, !spmd.mask), ^more(%v : i32)
// CHECK: ^[[MORE]](%{{.*}}: i32):
^more(%w: i32):
  // CHECK-NEXT: spmd.exec.br_zero ^[[SKIP]], ^[[JOIN]](%{{.*}}, %[[M]] : i32, !spmd.mask){{$}}
  spmd.exec.br_zero ^skip, ^join(%w, %m : i32, !spmd.mask)
// CHECK: ^[[SKIP]]:
^skip:
  return
// CHECK: ^[[JOIN]](%{{.*}}: i32, %{{.*}}: !spmd.mask):
^join(%r: i32, %jm: !spmd.mask):
  return
}

//===----------------------------------------------------------------------===//
// The spmd.uniformity mark on branches
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @uniformity_cf_cond_br
func.func @uniformity_cf_cond_br(%c: i1, %d: i1) {
  // CHECK: cf.cond_br %{{.*}}, ^{{.*}}, ^{{.*}} {spmd.uniformity = #divergent}
  // GENERIC: "cf.cond_br"(%{{.*}})[^{{.*}}, ^{{.*}}] <{operandSegmentSizes = array<i32: 1, 0, 0>}> {spmd.uniformity = #divergent} : (i1) -> ()
  cf.cond_br %c, ^a, ^b {spmd.uniformity = #spmd.uniformity<divergent>}
^a:
  // CHECK: cf.cond_br %{{.*}}, ^{{.*}}, ^{{.*}} {spmd.uniformity = #uniform}
  cf.cond_br %d, ^b, ^c {spmd.uniformity = #spmd.uniformity<uniform>}
^b:
  cf.br ^c
^c:
  return
}

// -----

// CHECK-LABEL: func.func @uniformity_cf_switch
func.func @uniformity_cf_switch(%sel: i32) {
  // CHECK: cf.switch %{{.*}} : i32, [
  // CHECK-NEXT: default: ^{{.*}},
  // CHECK-NEXT: 0: ^{{.*}},
  // CHECK-NEXT: 1: ^{{.*}}
  // CHECK-NEXT: ] {spmd.uniformity = #uniform}
  // GENERIC: "cf.switch"(%{{.*}})[{{.*}}] <{{.*}}> {spmd.uniformity = #uniform} : (i32) -> ()
  cf.switch %sel : i32, [
    default: ^d,
    0: ^zero,
    1: ^one
  ] {spmd.uniformity = #spmd.uniformity<uniform>}
^d:
  return
^zero:
  return
^one:
  return
}

// -----

// CHECK-LABEL: llvm.func @uniformity_llvm_cond_br
llvm.func @uniformity_llvm_cond_br(%c: i1) {
  // CHECK: llvm.cond_br %{{.*}}, ^{{.*}}, ^{{.*}} {spmd.uniformity = #divergent}
  llvm.cond_br %c, ^a, ^b {spmd.uniformity = #spmd.uniformity<divergent>}
^a:
  llvm.return
^b:
  llvm.return
}

// -----

// Flow branches and exec-mask branches carry the mark like any branch.
// CHECK-LABEL: func.func @uniformity_spmd_branches
func.func @uniformity_spmd_branches(%p: i1) {
  // CHECK: spmd.flow_br %{{.*}}, ^{{.*}}, ^{{.*}} {spmd.uniformity = #uniform}
  spmd.flow_br %p, ^a, ^b {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  // CHECK: spmd.flow_br %{{.*}}, ^{{.*}}(%{{.*}} : i1), ^{{.*}} {spmd.uniformity = #divergent}
  // GENERIC: "spmd.flow_br"(%{{.*}}, %{{.*}})[^{{.*}}, ^{{.*}}] <{operandSegmentSizes = array<i32: 1, 1, 0>}> {spmd.uniformity = #divergent} : (i1, i1) -> ()
  spmd.flow_br %p, ^c(%p : i1), ^b {spmd.uniformity = #spmd.uniformity<divergent>}
^b:
  // CHECK: spmd.exec.br_zero ^{{.*}}, ^{{.*}} {spmd.uniformity = #uniform}
  spmd.exec.br_zero ^c(%p : i1), ^d {spmd.uniformity = #spmd.uniformity<uniform>}
^c(%x: i1):
  return
^d:
  return
}

//===----------------------------------------------------------------------===//
// spmd.divergent / spmd.uniform on arguments and calls
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @argument_marks
// CHECK-SAME: (%{{.*}}: i32 {spmd.divergent}, %{{.*}}: i32 {spmd.uniform}, %{{.*}}: i32)
// GENERIC: arg_attrs = [{spmd.divergent}, {spmd.uniform}, {}]
func.func @argument_marks(%tid: i32 {spmd.divergent}, %n: i32 {spmd.uniform}, %plain: i32) {
  return
}

// -----

// On declarations, on llvm.func, on gpu.func, together with other attributes.
// CHECK-LABEL: func.func private @argument_marks_decl
// CHECK-SAME: (i32 {spmd.uniform}, f32 {spmd.divergent})
func.func private @argument_marks_decl(i32 {spmd.uniform}, f32 {spmd.divergent})

// CHECK-LABEL: llvm.func @argument_marks_llvm
// CHECK-SAME: (%{{.*}}: !llvm.ptr {llvm.noalias, spmd.uniform}, %{{.*}}: i32 {spmd.divergent})
llvm.func @argument_marks_llvm(%p: !llvm.ptr {llvm.noalias, spmd.uniform}, %i: i32 {spmd.divergent}) {
  llvm.return
}

// CHECK-LABEL: gpu.module @argument_marks_gpu
gpu.module @argument_marks_gpu {
  // CHECK: gpu.func @kernel(%{{.*}}: memref<?xf32> {spmd.uniform}, %{{.*}}: index {spmd.divergent}) kernel
  gpu.func @kernel(%buf: memref<?xf32> {spmd.uniform}, %i: index {spmd.divergent}) kernel {
    gpu.return
  }
}

// -----

// CHECK-LABEL: func.func @uniform_calls
func.func private @lane_count() -> i32
llvm.func @llvm_lane_count() -> i32
func.func @uniform_calls() -> i32 {
  // CHECK: %[[A:.*]] = call @lane_count() {spmd.uniform} : () -> i32
  // GENERIC: "func.call"() <{callee = @lane_count}> {spmd.uniform} : () -> i32
  %a = func.call @lane_count() {spmd.uniform} : () -> i32
  // CHECK-NEXT: %[[B:.*]] = llvm.call @llvm_lane_count() {spmd.uniform} : () -> i32
  %b = llvm.call @llvm_lane_count() {spmd.uniform} : () -> i32
  %s = arith.addi %a, %b : i32
  return %s : i32
}

// -----

// spmd.mask.select merges per-lane values by a lane mask.
// CHECK-LABEL: func.func @mask_select
// CHECK-SAME: (%[[M:.*]]: !spmd.mask, %[[A:.*]]: i32, %[[B:.*]]: i32, %[[P:.*]]: i1)
func.func @mask_select(%m: !spmd.mask, %a: i32, %b: i32, %p: i1) -> (i32, i1) {
  // CHECK: %{{.*}} = spmd.mask.select %[[M]], %[[A]], %[[B]] : i32
  // GENERIC: "spmd.mask.select"(%{{.*}}, %{{.*}}, %{{.*}}) : (!spmd.mask, i32, i32) -> i32
  %r = spmd.mask.select %m, %a, %b : i32
  // CHECK-NEXT: %{{.*}} = spmd.mask.select %[[M]], %[[P]], %[[P]] : i1
  %q = spmd.mask.select %m, %p, %p : i1
  return %r, %q : i32, i1
}
