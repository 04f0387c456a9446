// RUN: spmd-opt %s -split-input-file --spmd-structurize=irreducible=fix | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-structurize=irreducible=fix | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize="irreducible=fix ordering=dfpd" | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize="irreducible=fix ordering=bf" | spmd-opt -split-input-file --spmd-verify-structured -o /dev/null
// RUN: spmd-opt %s -split-input-file --spmd-structurize=irreducible=fix > %t.once
// RUN: spmd-opt %t.once -split-input-file --spmd-structurize=irreducible=fix > %t.twice
// RUN: diff %t.once %t.twice
// Without irreducible=fix the cycle is rejected as irreducible (not with an
// internal error):
// RUN: not spmd-opt %s -split-input-file --spmd-structurize -o /dev/null 2>&1 | FileCheck %s --check-prefix=REJECT --implicit-check-not="internal error"
// REJECT: error: cannot structurize @matcher: UnsupportedIrreducibleCFG: irreducible control flow is not supported; run --spmd-fix-irreducible first or use irreducible=fix (cycle entered at
// REJECT: error: cannot structurize @matcher_llvm: UnsupportedIrreducibleCFG: irreducible control flow is not supported

// A backtracking matcher that never returns (issue #30): ^retry either
// backtracks at once or tries ^body; ^body scans forward in one of two
// inner loops, both of which give up into ^backtrack; ^backtrack either
// unwinds in a third inner loop and tries ^body again, or retries. ^body
// and ^backtrack are both entered from ^retry, so the cycle through them
// is irreducible. After the dispatch hub, the loops get never-taken exits
// to a created return block.
// CHECK-LABEL: func.func @matcher
// CHECK:       cf.cond_br %true{{(_[0-9]+)?}}, ^{{bb[0-9]+}}({{.*}}), ^[[RET:bb[0-9]+]]{{$}}
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  spmd.reconvergence.tail
// CHECK-NEXT:  return{{$}}
// CHECK-NEXT:  }
// CHECK-NOT:   return
func.func @matcher(%text: memref<16xi32>, %out: memref<64xi32>, %want: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %tid = gpu.thread_id x
  %lane = arith.remui %tid, %c16 : index
  cf.br ^retry(%lane : index)
^retry(%pos: index):
  %third = arith.remui %pos, %c3 : index
  %skip = arith.cmpi eq, %third, %c0 : index
  cf.cond_br %skip, ^backtrack(%pos : index), ^body(%pos : index)
^body(%at: index):
  %slot = arith.remui %at, %c16 : index
  %ch = memref.load %text[%slot] : memref<16xi32>
  %hit = arith.cmpi eq, %ch, %want : i32
  cf.cond_br %hit, ^scan_same(%at : index), ^scan_other(%at : index)
^scan_same(%a: index):
  %a1 = arith.addi %a, %c1 : index
  %sa = arith.remui %a1, %c16 : index
  %cha = memref.load %text[%sa] : memref<16xi32>
  %same = arith.cmpi eq, %cha, %want : i32
  cf.cond_br %same, ^scan_same(%a1 : index), ^backtrack(%a1 : index)
^scan_other(%b: index):
  %b1 = arith.addi %b, %c1 : index
  %m = arith.remui %b1, %c4 : index
  %aligned = arith.cmpi eq, %m, %c0 : index
  cf.cond_br %aligned, ^backtrack(%b1 : index), ^scan_other(%b1 : index)
^backtrack(%bt: index):
  %v = arith.index_cast %bt : index to i32
  memref.store %v, %out[%tid] : memref<64xi32>
  %bs = arith.remui %bt, %c16 : index
  %deep = arith.cmpi ugt, %bs, %lane : index
  %next = arith.addi %bt, %c1 : index
  cf.cond_br %deep, ^unwind(%bt : index), ^retry(%next : index)
^unwind(%u: index):
  %u1 = arith.subi %u, %c1 : index
  %us = arith.remui %u1, %c16 : index
  %back = arith.cmpi ule, %us, %lane : index
  cf.cond_br %back, ^body(%u1 : index), ^unwind(%u1 : index)
}

// -----

// The same shape in the LLVM dialect, with an unreachable `llvm.return`
// that is erased first (as after importing LLVM IR), and a loop-carried
// counter in every loop.
// CHECK-LABEL: llvm.func @matcher_llvm
// CHECK:       cf.cond_br %true{{(_[0-9]+)?}}, ^{{bb[0-9]+}}({{.*}}), ^[[RET:bb[0-9]+]]{{$}}
// CHECK:       ^[[RET]]:
// CHECK-NEXT:  spmd.reconvergence.tail
// CHECK-NEXT:  llvm.return{{$}}
// CHECK-NEXT:  }
// CHECK-NOT:   llvm.return
llvm.func @matcher_llvm(%first: i1, %n: i32) {
  %one = llvm.mlir.constant(1 : i32) : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  llvm.br ^retry(%n : i32)
^retry(%r: i32):
  llvm.cond_br %first, ^backtrack(%r : i32), ^body(%r : i32)
^body(%x: i32):
  %hit = llvm.icmp "ult" %x, %tid : i32
  llvm.cond_br %hit, ^loop_a(%x : i32), ^loop_b(%x : i32)
^loop_a(%a: i32):
  %a1 = llvm.add %a, %one : i32
  %stay_a = llvm.icmp "slt" %a1, %tid : i32
  llvm.cond_br %stay_a, ^loop_a(%a1 : i32), ^backtrack(%a1 : i32)
^loop_b(%b: i32):
  %b1 = llvm.sub %b, %one : i32
  %stay_b = llvm.icmp "sgt" %b1, %n : i32
  llvm.cond_br %stay_b, ^loop_b(%b1 : i32), ^backtrack(%b1 : i32)
^backtrack(%t: i32):
  %deep = llvm.icmp "sgt" %t, %tid : i32
  llvm.cond_br %deep, ^loop_c(%t : i32), ^retry(%t : i32)
^loop_c(%c: i32):
  %c1 = llvm.sub %c, %one : i32
  %stay_c = llvm.icmp "sgt" %c1, %tid : i32
  llvm.cond_br %stay_c, ^loop_c(%c1 : i32), ^body(%c1 : i32)
^unused:
  llvm.return
}
