// Every diagnostic of the spmd verifiers (SpmdOps.cpp, SpmdDialect.cpp) and
// the ODS constraints of the operations, types and attribute.
//
// RUN: spmd-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// spmd.convergence.entry
//===----------------------------------------------------------------------===//

func.func @entry_outside_entry_block() {
  cf.br ^next
^next:
  // expected-error @+1 {{'spmd.convergence.entry' op must be in the entry block of its region}}
  %tok = spmd.convergence.entry : !spmd.token
  return
}

// -----

func.func @entry_twice() {
  // expected-error @+1 {{'spmd.convergence.entry' op may appear at most once per region, found 2}}
  %a = spmd.convergence.entry : !spmd.token
  %b = spmd.convergence.entry : !spmd.token
  return
}

// -----

func.func @entry_wrong_result_type() {
  // expected-error @+1 {{'spmd.convergence.entry' op result #0 must be convergence token, but got '!spmd.mask'}}
  %tok = "spmd.convergence.entry"() : () -> !spmd.mask
  return
}

// -----

func.func @entry_takes_no_operand(%t: !spmd.token) {
  // expected-error @+1 {{'spmd.convergence.entry' op requires zero operands}}
  %tok = "spmd.convergence.entry"(%t) : (!spmd.token) -> !spmd.token
  return
}

//===----------------------------------------------------------------------===//
// spmd.convergence.anchor
//===----------------------------------------------------------------------===//

// -----

func.func @anchor_wrong_result_type() {
  // expected-error @+1 {{'spmd.convergence.anchor' op result #0 must be convergence token, but got 'i1'}}
  %tok = "spmd.convergence.anchor"() : () -> i1
  return
}

// -----

func.func @anchor_custom_wrong_type() {
  // expected-error @+1 {{invalid kind of type specified: expected spmd.token, but found '!spmd.mask'}}
  %tok = spmd.convergence.anchor : !spmd.mask
  return
}

//===----------------------------------------------------------------------===//
// spmd.convergence.loop
//===----------------------------------------------------------------------===//

// -----

func.func @loop_in_entry_block() {
  %entry = spmd.convergence.entry : !spmd.token
  // expected-error @+1 {{'spmd.convergence.loop' op must be in a cycle header, not in the entry block}}
  %iter = spmd.convergence.loop %entry : !spmd.token
  return
}

// -----

func.func @loop_not_on_a_cycle(%c: i1) {
  %entry = spmd.convergence.entry : !spmd.token
  cf.cond_br %c, ^a, ^b
^a:
  // expected-error @+1 {{'spmd.convergence.loop' op must be in a cycle header, but its block is not on any cycle}}
  %iter = spmd.convergence.loop %entry : !spmd.token
  cf.br ^b
^b:
  return
}

// -----

// A block that only reaches a cycle it does not belong to is not on a cycle.
func.func @loop_before_a_cycle(%c: i1) {
  %entry = spmd.convergence.entry : !spmd.token
  cf.br ^pre
^pre:
  // expected-error @+1 {{'spmd.convergence.loop' op must be in a cycle header, but its block is not on any cycle}}
  %iter = spmd.convergence.loop %entry : !spmd.token
  cf.br ^header
^header:
  cf.cond_br %c, ^header, ^exit
^exit:
  return
}

// -----

// ^inner is only entered from ^outer, on the same cycle: ^outer heads it.
// (Merging the blocks, as branch folding and canonicalization do, would put
// two tokens in one header.)
func.func @loop_in_a_block_entered_from_one_block(%d: i1) {
  %anchor = spmd.convergence.anchor : !spmd.token
  cf.br ^outer
^outer:
  %o = spmd.convergence.loop %anchor : !spmd.token
  cf.br ^inner
^inner:
  // expected-error @+1 {{'spmd.convergence.loop' op must be in a cycle header, but every edge into its block comes from one block of the same cycle}}
  %i = spmd.convergence.loop %o : !spmd.token
  cf.cond_br %d, ^outer, ^exit
^exit:
  return
}

// -----

func.func @loop_twice_in_header(%c: i1) {
  %entry = spmd.convergence.entry : !spmd.token
  cf.br ^header
^header:
  %first = spmd.convergence.loop %entry : !spmd.token
  // expected-error @+1 {{'spmd.convergence.loop' op a cycle header holds at most one spmd.convergence.loop}}
  %second = spmd.convergence.loop %first : !spmd.token
  cf.cond_br %c, ^header, ^exit
^exit:
  return
}

// -----

func.func @loop_parent_not_a_token(%m: !spmd.mask, %c: i1) {
  cf.br ^header
^header:
  // expected-error @+1 {{'spmd.convergence.loop' op operand #0 must be convergence token, but got '!spmd.mask'}}
  %iter = "spmd.convergence.loop"(%m) : (!spmd.mask) -> !spmd.token
  cf.cond_br %c, ^header, ^exit
^exit:
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @loop_parent_custom_form_mask(%m: !spmd.mask, %c: i1) {
  cf.br ^header
^header:
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: '!spmd.token' vs '!spmd.mask'}}
  %iter = spmd.convergence.loop %m : !spmd.token
  cf.cond_br %c, ^header, ^exit
^exit:
  return
}

// -----

func.func @loop_result_not_a_token(%t: !spmd.token, %c: i1) {
  cf.br ^header
^header:
  // expected-error @+1 {{'spmd.convergence.loop' op result #0 must be convergence token, but got '!spmd.mask'}}
  %iter = "spmd.convergence.loop"(%t) : (!spmd.token) -> !spmd.mask
  cf.cond_br %c, ^header, ^exit
^exit:
  return
}

// -----

func.func @loop_missing_parent(%c: i1) {
  cf.br ^header
^header:
  // expected-error @+1 {{'spmd.convergence.loop' op requires a single operand}}
  %iter = "spmd.convergence.loop"() : () -> !spmd.token
  cf.cond_br %c, ^header, ^exit
^exit:
  return
}

//===----------------------------------------------------------------------===//
// spmd.flow_br
//===----------------------------------------------------------------------===//

// -----

func.func @flow_loop_false_is_not_a_back_edge(%brk: i1) {
  cf.br ^latch
^latch:
  // expected-error @+1 {{'spmd.flow_br' op is a loop Flow block, so its false successor must be the back edge (true = leave the loop, false = continue), but ^false cannot reach this block}}
  spmd.flow_br loop %brk, ^latch, ^exit
^exit:
  return
}

// -----

// Swapped successors: the exit is on the false side and the header on the
// true side; the header reaches the latch, but the exit does not.
func.func @flow_loop_swapped(%brk: i1) {
  cf.br ^header
^header:
  cf.br ^latch
^latch:
  // expected-error @+1 {{but ^false cannot reach this block}}
  "spmd.flow_br"(%brk)[^header, ^exit] <{loop, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^exit:
  return
}

// -----

func.func @flow_predicate_not_i1_generic(%p: i32) {
  // expected-error @+1 {{'spmd.flow_br' op operand #0 must be 1-bit signless integer, but got 'i32'}}
  "spmd.flow_br"(%p)[^a, ^a] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^a:
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @flow_predicate_not_i1(%p: i32) {
  // expected-error @+1 {{use of value '%p' expects different type than prior uses: 'i1' vs 'i32'}}
  spmd.flow_br %p, ^a, ^a
^a:
  return
}

// -----

func.func @flow_predicate_vector_i1(%p: vector<4xi1>) {
  // expected-error @+1 {{'spmd.flow_br' op operand #0 must be 1-bit signless integer, but got 'vector<4xi1>'}}
  "spmd.flow_br"(%p)[^a, ^a] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (vector<4xi1>) -> ()
^a:
  return
}

// -----

func.func @flow_too_few_successor_operands(%p: i1, %v: i32) {
  // expected-error @+1 {{branch has 0 operands for successor #0, but target block has 1}}
  spmd.flow_br %p, ^a, ^b(%v : i32)
^a(%x: i32):
  return
^b(%y: i32):
  return
}

// -----

func.func @flow_successor_operand_type_mismatch(%p: i1, %v: i32) {
  // expected-error @+1 {{type mismatch for bb argument #0 of successor #1}}
  spmd.flow_br %p, ^a, ^b(%v : i32)
^a:
  return
^b(%y: f32):
  return
}

// -----

func.func @flow_not_a_terminator(%p: i1) {
  // expected-error @+1 {{operation with block successors must terminate its parent block}}
  spmd.flow_br %p, ^a, ^a
  return
^a:
  return
}

// -----

func.func @flow_one_successor(%p: i1) {
  // expected-error @+1 {{'spmd.flow_br' op requires 2 successors but found 1}}
  "spmd.flow_br"(%p)[^a] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^a:
  return
}

// -----

func.func @flow_custom_form_missing_false_dest(%p: i1) {
  // expected-error @+1 {{expected ','}}
  spmd.flow_br %p, ^a
^a:
  return
}

//===----------------------------------------------------------------------===//
// spmd.reconvergence.head / spmd.reconvergence.tail
//===----------------------------------------------------------------------===//

// -----

func.func @head_block_ends_in_unconditional_branch() {
  // expected-error @+1 {{'spmd.reconvergence.head' op must be in a block that ends with a branch with at least two successors}}
  spmd.reconvergence.head 0
  cf.br ^next
^next:
  return
}

// -----

func.func @head_block_ends_in_return() {
  // expected-error @+1 {{'spmd.reconvergence.head' op must be in a block that ends with a branch with at least two successors}}
  spmd.reconvergence.head 0
  return
}

// -----

func.func @head_negative_id(%c: i1) {
  // expected-error @+1 {{'spmd.reconvergence.head' op attribute 'id' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  spmd.reconvergence.head -1
  cf.cond_br %c, ^a, ^a
^a:
  return
}

// -----

func.func @head_id_not_i64(%c: i1) {
  // expected-error @+1 {{'spmd.reconvergence.head' op attribute 'id' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  "spmd.reconvergence.head"() <{id = 0 : i32}> : () -> ()
  cf.cond_br %c, ^a, ^a
^a:
  return
}

// -----

func.func @head_missing_id(%c: i1) {
  // expected-error @+1 {{'spmd.reconvergence.head' op requires attribute 'id'}}
  "spmd.reconvergence.head"() : () -> ()
  cf.cond_br %c, ^a, ^a
^a:
  return
}

// -----

func.func @head_custom_form_missing_id(%c: i1) {
  // expected-error @+1 {{expected attribute value}}
  spmd.reconvergence.head
  cf.cond_br %c, ^a, ^a
^a:
  return
}

// -----

func.func @tail_not_first_in_block(%c: i1) {
  spmd.reconvergence.head 0
  cf.cond_br %c, ^then, ^join
^then:
  cf.br ^join
^join:
  %x = arith.constant 0 : i32
  // expected-error @+1 {{'spmd.reconvergence.tail' op must start its block: only other reconvergence tails and convergence tokens may precede it}}
  spmd.reconvergence.tail 0
  return
}

// -----

func.func @tail_negative_id() {
  // expected-error @+1 {{'spmd.reconvergence.tail' op attribute 'id' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  "spmd.reconvergence.tail"() <{id = -7 : i64}> : () -> ()
  return
}

//===----------------------------------------------------------------------===//
// Exec-mask operations
//===----------------------------------------------------------------------===//

// -----

// expected-note @+1 {{prior use here}}
func.func @ballot_of_i32(%v: i32) {
  // expected-error @+1 {{use of value '%v' expects different type than prior uses: 'i1' vs 'i32'}}
  %m = spmd.ballot %v : !spmd.mask
  return
}

// -----

func.func @ballot_of_i32_generic(%v: i32) {
  // expected-error @+1 {{'spmd.ballot' op operand #0 must be 1-bit signless integer, but got 'i32'}}
  %m = "spmd.ballot"(%v) : (i32) -> !spmd.mask
  return
}

// -----

func.func @ballot_result_not_a_mask(%c: i1) {
  // expected-error @+1 {{'spmd.ballot' op result #0 must be wave-level lane mask, but got 'i64'}}
  %m = "spmd.ballot"(%c) : (i1) -> i64
  return
}

// -----

func.func @ballot_custom_result_type(%c: i1) {
  // expected-error @+1 {{invalid kind of type specified: expected spmd.mask, but found 'i32'}}
  %m = spmd.ballot %c : i32
  return
}

// -----

func.func @mask_and_of_integers(%a: i32) {
  // expected-error @+1 {{'spmd.mask.and' op operand #0 must be wave-level lane mask, but got 'i32'}}
  %m = "spmd.mask.and"(%a, %a) : (i32, i32) -> i32
  return
}

// -----

func.func @mask_or_with_a_token(%m: !spmd.mask, %t: !spmd.token) {
  // expected-error @+1 {{'spmd.mask.or' op operand #1 must be wave-level lane mask, but got '!spmd.token'}}
  %r = "spmd.mask.or"(%m, %t) : (!spmd.mask, !spmd.token) -> !spmd.mask
  return
}

// -----

func.func @mask_andn_result_not_a_mask(%m: !spmd.mask) {
  // expected-error @+1 {{'spmd.mask.andn' op result #0 must be wave-level lane mask, but got 'i64'}}
  %r = "spmd.mask.andn"(%m, %m) : (!spmd.mask, !spmd.mask) -> i64
  return
}

// -----

func.func @mask_andn_custom_token_type(%m: !spmd.mask) {
  // expected-error @+1 {{invalid kind of type specified: expected spmd.mask, but found '!spmd.token'}}
  %r = spmd.mask.andn %m, %m : !spmd.token
  return
}

// -----

func.func @mask_empty_is_a_mask() {
  // expected-error @+1 {{'spmd.mask.empty' op result #0 must be wave-level lane mask, but got '!spmd.token'}}
  %r = "spmd.mask.empty"() : () -> !spmd.token
  return
}

// -----

func.func @exec_read_is_a_mask() {
  // expected-error @+1 {{'spmd.exec.read' op result #0 must be wave-level lane mask, but got 'i64'}}
  %r = "spmd.exec.read"() : () -> i64
  return
}

// -----

func.func @exec_write_of_a_token(%t: !spmd.token) {
  // expected-error @+1 {{invalid kind of type specified: expected spmd.mask, but found '!spmd.token'}}
  spmd.exec.write %t : !spmd.token
  return
}

// -----

func.func @exec_write_of_i64_generic(%v: i64) {
  // expected-error @+1 {{'spmd.exec.write' op operand #0 must be wave-level lane mask, but got 'i64'}}
  "spmd.exec.write"(%v) : (i64) -> ()
  return
}

// -----

func.func @exec_br_zero_operand_count(%v: i32) {
  // expected-error @+1 {{branch has 1 operands for successor #1, but target block has 0}}
  spmd.exec.br_zero ^a, ^b(%v : i32)
^a:
  return
^b:
  return
}

// -----

func.func @exec_br_zero_one_successor() {
  // expected-error @+1 {{'spmd.exec.br_zero' op requires 2 successors but found 1}}
  "spmd.exec.br_zero"()[^a] <{operandSegmentSizes = array<i32: 0, 0>}> : () -> ()
^a:
  return
}

// -----

func.func @exec_br_zero_not_a_terminator() {
  // expected-error @+1 {{operation with block successors must terminate its parent block}}
  spmd.exec.br_zero ^a, ^a
  return
^a:
  return
}

//===----------------------------------------------------------------------===//
// Types and the attribute
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{unknown  type `lanes` in dialect `spmd`}}
func.func @unknown_type(%x: !spmd.lanes) {
  return
}

// -----

// expected-error @+1 {{unknown  type `uniformity` in dialect `spmd`}}
func.func @attribute_used_as_type(%x: !spmd.uniformity) {
  return
}

// -----

// expected-error @+2 {{expected ::mlir::spmd::Uniformity to be one of: uniform, divergent}}
// expected-error @+1 {{failed to parse Spmd_UniformityAttr parameter 'value' which is to be a `::mlir::spmd::Uniformity`}}
func.func @bad_uniformity_value() attributes {u = #spmd.uniformity<maybe>} {
  return
}

// -----

// expected-error @+1 {{unknown attribute `uniform` in dialect `spmd`}}
func.func @unknown_attribute() attributes {u = #spmd.uniform} {
  return
}

//===----------------------------------------------------------------------===//
// Discardable attributes on operations (SpmdDialect.cpp)
//===----------------------------------------------------------------------===//

// -----

func.func @uniformity_not_the_enum(%c: i1) {
  // The attribute name may be printed quoted.
  // expected-error-re @+1 {{'cf.cond_br' op '{{"?}}spmd.uniformity{{"?}}' must be a #spmd.uniformity attribute}}
  cf.cond_br %c, ^a, ^a {spmd.uniformity = 1 : i32}
^a:
  return
}

// -----

func.func @uniformity_as_unit(%c: i1) {
  // expected-error-re @+1 {{'cf.cond_br' op '{{"?}}spmd.uniformity{{"?}}' must be a #spmd.uniformity attribute}}
  cf.cond_br %c, ^a, ^a {spmd.uniformity}
^a:
  return
}

// -----

func.func @uniformity_on_unconditional_branch() {
  // expected-error-re @+1 {{'cf.br' op '{{"?}}spmd.uniformity{{"?}}' marks a branch with at least two successors, but this operation has 1}}
  cf.br ^a {spmd.uniformity = #spmd.uniformity<uniform>}
^a:
  return
}

// -----

func.func @uniformity_on_return() {
  // expected-error-re @+1 {{'func.return' op '{{"?}}spmd.uniformity{{"?}}' marks a branch with at least two successors, but this operation has 0}}
  return {spmd.uniformity = #spmd.uniformity<divergent>}
}

// -----

// expected-error-re @+1 {{'func.func' op '{{"?}}spmd.uniformity{{"?}}' marks a branch with at least two successors, but this operation has 0}}
func.func @uniformity_on_function() attributes {spmd.uniformity = #spmd.uniformity<uniform>} {
  return
}

// -----

func.func @uniform_not_unit() -> i32 {
  // expected-error @+1 {{'func.call' op 'spmd.uniform' must be a unit attribute}}
  %r = func.call @uniform_not_unit() {spmd.uniform = true} : () -> i32
  return %r : i32
}

// -----

func.func @uniform_on_a_non_call(%c: i1) {
  // expected-error @+1 {{'cf.cond_br' op 'spmd.uniform' marks the results of an operation; mark branches with 'spmd.uniformity' instead}}
  cf.cond_br %c, ^a, ^a {spmd.uniform}
^a:
  return
}

// -----

func.func @uniform_without_results(%m: memref<4xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{'memref.store' op 'spmd.uniform' marks the results of an operation, but this operation has none}}
  memref.store %v, %m[%i] {spmd.uniform} : memref<4xi32>
  return
}

// -----

func.func private @callee() -> i32

func.func @contradicting_marks() -> i32 {
  // expected-error @+1 {{'func.call' op 'spmd.uniform' and 'spmd.divergent' contradict each other}}
  %r = func.call @callee() {spmd.divergent, spmd.uniform} : () -> i32
  return %r : i32
}

// -----

func.func @unknown_operation_attribute() {
  // expected-error @+1 {{'func.return' op unknown spmd attribute 'spmd.reconverges'}}
  return {spmd.reconverges}
}

// -----

func.func @lane_shared_work_off_a_function() {
  // expected-error @+1 {{'func.return' op 'spmd.lane_shared_work' must be a unit attribute on a function}}
  return {spmd.lane_shared_work}
}

// -----

// expected-error @+1 {{'func.func' op 'spmd.lane_shared_work' must be a unit attribute on a function}}
func.func @lane_shared_work_with_a_value() attributes {spmd.lane_shared_work = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'builtin.module' op 'spmd.divergent' marks the results of an operation, but this operation has none}}
module attributes {spmd.divergent} {
}

//===----------------------------------------------------------------------===//
// Function argument attributes (SpmdDialect.cpp)
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op unknown spmd argument attribute 'spmd.uniformity' on argument #1}}
func.func @unknown_argument_attribute(%a: i32, %b: i1 {spmd.uniformity = #spmd.uniformity<uniform>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'spmd.divergent' on argument #0 must be a unit attribute}}
func.func @divergent_not_unit(%a: i32 {spmd.divergent = 1 : i32}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'spmd.uniform' on argument #2 must be a unit attribute}}
func.func @uniform_not_unit_on_argument(%a: i32, %b: i32, %c: i32 {spmd.uniform = "yes"}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 cannot be both 'spmd.divergent' and 'spmd.uniform'}}
func.func @divergent_and_uniform(%a: i32 {spmd.divergent, spmd.uniform}) {
  return
}

// -----

// The same on a gpu.func and on an llvm.func.
gpu.module @kernels {
  // expected-error @+1 {{'gpu.func' op argument #1 cannot be both 'spmd.divergent' and 'spmd.uniform'}}
  gpu.func @kernel(%a: index, %b: index {spmd.uniform, spmd.divergent}) kernel {
    gpu.return
  }
}

// -----

// expected-error @+1 {{'llvm.func' op unknown spmd argument attribute 'spmd.lane' on argument #0}}
llvm.func @llvm_unknown_argument_attribute(%a: i32 {spmd.lane}) {
  llvm.return
}

// -----

//===----------------------------------------------------------------------===//
// Added with the verifier fixes: nested-region entry, token order, result
// attributes and contradictory marks on declarations.
//===----------------------------------------------------------------------===//

func.func @entry_in_nested_region(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{'spmd.convergence.entry' op must be in the body of a function (an operation implementing FunctionOpInterface), not in a nested region of 'scf.if'}}
    %tok = spmd.convergence.entry : !spmd.token
  }
  return
}

// -----

func.func @loop_after_anchor(%c: i1) {
  %e = spmd.convergence.entry : !spmd.token
  cf.br ^header
^header:
  %a = spmd.convergence.anchor : !spmd.token
  // expected-error @+1 {{'spmd.convergence.loop' op must be the first convergence token producer of its block, but follows 'spmd.convergence.anchor'}}
  %l = spmd.convergence.loop %e : !spmd.token
  cf.cond_br %c, ^header, ^exit
^exit:
  return
}

// -----

// expected-error @+1 {{'func.func' op spmd attribute 'spmd.divergent' is not allowed on result #0; spmd marks apply to arguments, branches and calls}}
func.func private @result_mark() -> (i32 {spmd.divergent})

// -----

// expected-error @+1 {{'func.func' op argument #0 cannot be both 'spmd.divergent' and 'spmd.uniform'}}
func.func private @declaration_with_both_marks(i32 {spmd.divergent, spmd.uniform})

// -----

//===----------------------------------------------------------------------===//
// spmd.mask.select
//===----------------------------------------------------------------------===//

func.func @mask_select_of_masks(%m: !spmd.mask, %a: !spmd.mask) -> !spmd.mask {
  // expected-error @+1 {{'spmd.mask.select' op selects per-lane values; got '!spmd.mask' (combine masks with spmd.mask.and/andn/or)}}
  %r = spmd.mask.select %m, %a, %a : !spmd.mask
  return %r : !spmd.mask
}

// -----

func.func @mask_select_mixed_types(%m: !spmd.mask, %a: i32, %b: i64) -> i32 {
  // expected-error @+1 {{'spmd.mask.select' op failed to verify that all of {trueValue, falseValue, result} have same type}}
  %r = "spmd.mask.select"(%m, %a, %b) : (!spmd.mask, i32, i64) -> i32
  return %r : i32
}

// -----

func.func @park_on_wrong_op(%m: !spmd.mask) -> !spmd.mask {
  // expected-error @+1 {{'spmd.mask.and' op 'spmd.park' must be a non-negative integer on an spmd.exec.write}}
  %r = spmd.mask.and %m, %m {spmd.park = 0 : i64} : !spmd.mask
  return %r : !spmd.mask
}

// -----

func.func @exec_full_on_wrong_op(%m: !spmd.mask) -> !spmd.mask {
  // expected-error @+1 {{'spmd.mask.and' op 'spmd.exec_full' must be a unit attribute on an spmd.exec.write}}
  %r = spmd.mask.and %m, %m {spmd.exec_full} : !spmd.mask
  return %r : !spmd.mask
}

// -----

func.func @exec_full_with_a_value(%m: !spmd.mask) {
  // expected-error @+1 {{'spmd.exec.write' op 'spmd.exec_full' must be a unit attribute on an spmd.exec.write}}
  spmd.exec.write %m {spmd.exec_full = 1 : i64} : !spmd.mask
  return
}

// -----

// The markers' hand-written parser (SpmdOps.cpp) rejects an id that is not
// an integer literal.
func.func @head_id_not_an_integer(%c: i1) {
  // expected-error @+1 {{custom op 'spmd.reconvergence.head' invalid kind of attribute specified}}
  spmd.reconvergence.head "x"
  cf.cond_br %c, ^a, ^a
^a:
  return
}

// -----

func.func @tail_without_id() {
  // expected-error @+1 {{expected attribute value}}
  spmd.reconvergence.tail
  return
}

// -----

//===----------------------------------------------------------------------===//
// spmd.mask.to_bits / spmd.mask.from_bits
//===----------------------------------------------------------------------===//

func.func @carrier_narrower_than_the_wave() attributes {spmd.wave_size = 32 : i64} {
  %m = spmd.mask.empty : !spmd.mask
  // expected-error @+1 {{'spmd.mask.to_bits' op carries a lane mask in 'i16', narrower than the function's wave of 32 lanes}}
  %b = spmd.mask.to_bits %m : i16
  return
}

// -----

func.func @carrier_wider_than_any_wave(%b: i128) {
  // expected-error @+1 {{'spmd.mask.from_bits' op carries a lane mask in 'i128', wider than the widest wave (64 lanes)}}
  %m = spmd.mask.from_bits %b : i128
  return
}
