//===- listing1.mlir - Listing 1 of the reconvergence paper as spmd wave-level IR --------===//
//
// The reconvergence paper ("Reconverging CFGs") lowers the reconverging CFG of its
// Figure 1a to pseudo GCN assembly with explicit exec-mask manipulation
// (Listing 1). The CFG, as the listing's branches give it, has the edges
//
//   A -> B, A -> D   (divergent: some threads go on to B, the others to D)
//   B -> C, B -> D   (divergent: some threads go on to C, the others to D)
//   C -> D
//
// Every divergent branch has D, its post-dominator, as one successor
// (Definition 1), so the lowering only needs one re-join mask `m`: threads
// that leave for D are removed from exec and remembered in m; D adds m back.
//
// The listing, reconstructed from the seed (the comments are the seed's):
//
//   A:  // code for A
//       v_cmp_???    s[0:1], ...       // initialize re-join mask in m
//       s_andn2_b64  exec, exec, s[0:1] // subtract re-join mask stored in s[0:1]
//       s_cbranch_execz D
//   B:  // code for B
//       v_cmp_???    vcc, ...          // condition for jumping to D
//       s_or_b64     s[0:1], s[0:1], vcc // accumulate re-join mask in m
//       s_andn2_b64  exec, exec, vcc   // subtract re-join mask from execution mask
//       s_cbranch_execz D
//   C:  // code for C
//   D:  s_or_b64     exec, exec, s[0:1] // add previously subtracted re-join masks
//       // code for D
//
// Below, the same program as wave-level IR. Control flow between the blocks
// is uniform (spmd.exec.br_zero tests the whole wave); per-thread values
// (i1 conditions, i32 data) live in lanes, as in GCN's VGPRs; the masks
// (SGPR pairs s[0:1], vcc, exec) are !spmd.mask values. The re-join mask m
// is passed to D as a block argument. The "code for X" parts store a marker
// per lane so that each block has an observable effect.
//
// Try: spmd-opt examples/listing1.mlir
//
//===----------------------------------------------------------------------===//

func.func @listing1(%out: memref<?xi32>, %lane: index, %x: i32 {spmd.divergent},
                    %limit_a: i32 {spmd.uniform}, %limit_b: i32 {spmd.uniform}) {
  // A:
  //   // code for A
  %code_a = arith.constant 1 : i32
  memref.store %code_a, %out[%lane] : memref<?xi32>
  // The per-lane condition of the edge A -> D.
  %a_to_d = arith.cmpi sge, %x, %limit_a : i32
  //   v_cmp_??? s[0:1], ...             // initialize re-join mask in m
  // The re-join mask starts empty; the lanes that leave A for D (a compare
  // under exec: inactive lanes give 0) are its first members.
  %m_init = spmd.mask.empty : !spmd.mask
  %s01_a = spmd.ballot %a_to_d : !spmd.mask
  %m_a = spmd.mask.or %m_init, %s01_a : !spmd.mask
  //   s_andn2_b64 exec, exec, s[0:1]     // subtract re-join mask stored in s[0:1]
  %exec_a = spmd.exec.read : !spmd.mask
  %exec_ab = spmd.mask.andn %exec_a, %m_a : !spmd.mask
  spmd.exec.write %exec_ab : !spmd.mask
  //   s_cbranch_execz D
  // No lane wants B: skip B and C altogether.
  spmd.exec.br_zero ^d(%m_a : !spmd.mask), ^b

^b:
  // B:
  //   // code for B
  %code_b = arith.constant 2 : i32
  memref.store %code_b, %out[%lane] : memref<?xi32>
  %b_to_d = arith.cmpi sge, %x, %limit_b : i32
  //   v_cmp_??? vcc, ...                // condition for jumping to D
  %vcc = spmd.ballot %b_to_d : !spmd.mask
  //   s_or_b64 s[0:1], s[0:1], vcc      // accumulate re-join mask in m
  %m_b = spmd.mask.or %m_a, %vcc : !spmd.mask
  //   s_andn2_b64 exec, exec, vcc       // subtract re-join mask from execution mask
  %exec_b = spmd.exec.read : !spmd.mask
  %exec_bc = spmd.mask.andn %exec_b, %vcc : !spmd.mask
  spmd.exec.write %exec_bc : !spmd.mask
  //   s_cbranch_execz D
  spmd.exec.br_zero ^d(%m_b : !spmd.mask), ^c

^c:
  // C:
  //   // code for C
  %code_c = arith.constant 3 : i32
  memref.store %code_c, %out[%lane] : memref<?xi32>
  // Falls through to D with the re-join mask accumulated in B.
  cf.br ^d(%m_b : !spmd.mask)

^d(%m: !spmd.mask):
  // D:
  //   s_or_b64 exec, exec, s[0:1]       // add previously subtracted re-join masks
  %exec_d = spmd.exec.read : !spmd.mask
  %exec_all = spmd.mask.or %exec_d, %m : !spmd.mask
  spmd.exec.write %exec_all : !spmd.mask
  //   // code for D
  // Every lane that entered A is active again.
  %code_d = arith.constant 4 : i32
  memref.store %code_d, %out[%lane] : memref<?xi32>
  return
}
