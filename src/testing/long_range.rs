//! A CFG family with *long-range* edges (issue #18): a single function of
//! `N` blocks in a line, where every branch jumps far ahead, so the regions
//! between a divergent branch and its post-dominator are long.
//!
//! ```text
//! func.func @big(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}) {
//!   %zero = arith.constant 0 : i32         (+ the step constants, the bound)
//!   cf.br ^bb0(%zero : i32)
//! ^bbI(%aI: i32):                          the accumulator
//!   %xI = arith.addi %aI, %cS : i32        S in 1..=4: the accumulator grows
//!   %kI = arith.constant K : i32
//!   %dI = arith.cmpi slt, %t|%n, %kI : i32 (divergent | uniform)
//!   cf.cond_br %dI, ^bbA(%xI : i32), ^bbB(%xI : i32)       forward
//! | %gI = arith.cmpi slt, %xI, %bound : i32                 with a back edge:
//!   %cI = arith.andi %gI, %dI : i1
//!   cf.cond_br %cI, ^bbBACK(%xI : i32), ^bbA(%xI : i32)
//! | return                                                  a few blocks
//! ```
//!
//! * both forward targets are drawn from the next `reach` blocks
//!   (default `N / 50`, at least 2), except that a block no earlier block
//!   jumps to gets a jump from the block before it (about one block in
//!   eight), so every block is reachable; the last block returns;
//! * `divergent_per_mille` of the conditions test the thread id `%t`, the
//!   others the uniform `%n`;
//! * `back_edge_per_mille` of the blocks replace one forward target by a
//!   back edge to one of the `reach` blocks before them (irreducible cycles
//!   when the target does not dominate the source). The back edge is taken
//!   only while the accumulator is below `%bound`; as every block adds at
//!   least 1 to it, every thread returns;
//! * `return_per_mille` of the blocks return.
//!
//! [`Signature::Kernel`] prints the same body as the
//! `spmd_oracle::RandomKernel` signature
//! (`@kernel(%out: memref<?xi32>, %n: i32, %tid: i32 {spmd.divergent}) -> i32`,
//! returning the accumulator), so the executor and JIT differentials can run it
//! (`spmd_oracle::long_range_kernel`).

use crate::analysis::cfg::{random::SplitMix64, BlockId, CfgGraph};
use std::fmt::Write;

/// Parameters of the long-range family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongRangeShape {
    /// Blocks (at least 2).
    pub blocks: usize,
    /// How far edges reach; 0 means `blocks / 50` (at least 2).
    pub reach: usize,
    /// Conditions on the thread id, per mille.
    pub divergent_per_mille: u64,
    /// Blocks with a back edge, per mille.
    pub back_edge_per_mille: u64,
    /// Blocks that return (besides the last), per mille.
    pub return_per_mille: u64,
}

impl LongRangeShape {
    /// The shape of issue #18: reach `N/50`, 70% divergent, 10% back edges,
    /// 0.5% returns.
    pub fn new(blocks: usize) -> Self {
        Self {
            blocks,
            reach: 0,
            divergent_per_mille: 700,
            back_edge_per_mille: 100,
            return_per_mille: 5,
        }
    }

    /// The reach actually used.
    pub fn effective_reach(&self) -> usize {
        if self.reach == 0 {
            (self.blocks / 50).max(2)
        } else {
            self.reach
        }
    }
}

/// Which signature the function gets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Signature {
    /// `func.func @big(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform})`, returning
    /// nothing: the form of [`super::mlir_cfg`] (and its LLVM IR form).
    Bench,
    /// The executor's random-kernel signature, returning the accumulator.
    Kernel,
}

/// The MLIR text of a long-range function and its graph (block `i` is
/// `^bbI`; the unlabelled entry block is not part of the graph).
pub fn long_range_function(
    seed: u64,
    shape: &LongRangeShape,
    signature: Signature,
) -> (String, CfgGraph) {
    let mut rng = SplitMix64::new(seed);
    let n = shape.blocks.max(2);
    let reach = shape.effective_reach().max(1);
    let bound = 4 * reach + 16;
    let (header, tid, ret) = match signature {
        Signature::Bench => ("func.func @big(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}) {\n", "%t", None),
        Signature::Kernel => (
            "func.func @kernel(%out: memref<?xi32> {spmd.uniform}, %n: i32 {spmd.uniform}, %tid: i32 {spmd.divergent}) -> i32 {\n",
            "%tid",
            Some(()),
        ),
    };
    let mut text = String::with_capacity(n * 200);
    text.push_str(header);
    text.push_str("  %zero = arith.constant 0 : i32\n");
    for s in 1..=4 {
        let _ = writeln!(text, "  %c{s} = arith.constant {s} : i32");
    }
    let _ = writeln!(text, "  %bound = arith.constant {bound} : i32");
    text.push_str("  cf.br ^bb0(%zero : i32)\n");
    let mut edges = Vec::with_capacity(2 * n);
    // Forward predecessors seen so far: a block none of the `reach` blocks
    // before it jumps to gets a jump from the block just before it, so that
    // every block is reachable.
    let mut has_pred = vec![false; n + 1];
    has_pred[0] = true;
    for i in 0..n {
        let _ = writeln!(text, "^bb{i}(%a{i}: i32):");
        let _ = writeln!(
            text,
            "  %x{i} = arith.addi %a{i}, %c{} : i32",
            1 + rng.below(4)
        );
        let last = i + 1 == n;
        if last || (i > 0 && has_pred[i + 1] && rng.chance(shape.return_per_mille)) {
            match ret {
                None => text.push_str("  return\n"),
                Some(()) => {
                    let _ = writeln!(text, "  return %x{i} : i32");
                }
            }
            continue;
        }
        let source = if rng.chance(shape.divergent_per_mille) {
            tid
        } else {
            "%n"
        };
        let _ = writeln!(text, "  %k{i} = arith.constant {} : i32", rng.below(40));
        let _ = writeln!(text, "  %d{i} = arith.cmpi slt, {source}, %k{i} : i32");
        let ahead = reach.min(n - 1 - i);
        let mut forward = || i + 1 + rng.below(ahead as u64) as usize;
        let a = forward();
        let b = forward();
        let a = if has_pred[i + 1] { a } else { i + 1 };
        has_pred[a] = true;
        let back = if i > 0 && rng.chance(shape.back_edge_per_mille) {
            Some(i - 1 - rng.below(reach.min(i) as u64) as usize)
        } else {
            None
        };
        let (first, second) = match back {
            Some(back) => {
                let _ = writeln!(text, "  %g{i} = arith.cmpi slt, %x{i}, %bound : i32");
                let _ = writeln!(text, "  %e{i} = arith.andi %g{i}, %d{i} : i1");
                let _ = writeln!(
                    text,
                    "  cf.cond_br %e{i}, ^bb{back}(%x{i} : i32), ^bb{a}(%x{i} : i32)"
                );
                (back, a)
            }
            None => {
                has_pred[b] = true;
                let _ = writeln!(
                    text,
                    "  cf.cond_br %d{i}, ^bb{a}(%x{i} : i32), ^bb{b}(%x{i} : i32)"
                );
                (a, b)
            }
        };
        edges.push((i as u32, first as u32));
        edges.push((i as u32, second as u32));
    }
    text.push_str("}\n");
    (text, CfgGraph::from_edges(n, BlockId::new(0), &edges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::Graph;

    #[test]
    fn shape_has_long_forward_edges_back_edges_and_returns() {
        let shape = LongRangeShape::new(5000);
        let (text, graph) = long_range_function(1, &shape, Signature::Bench);
        assert_eq!(graph.num_blocks(), 5000);
        assert!(text
            .starts_with("func.func @big(%t: i32 {spmd.divergent}, %n: i32 {spmd.uniform}) {\n"));
        let branches = text.matches("cf.cond_br").count();
        let divergent = text.matches("slt, %t,").count();
        let back = text.matches("%bound : i32\n").count() - 1;
        let returns = text.matches("  return").count();
        assert!(
            (3200..3800).contains(&divergent),
            "{divergent} of {branches}"
        );
        assert!((400..600).contains(&back), "{back}");
        assert!((2..100).contains(&returns), "{returns}");
        let mut far = 0;
        for b in 0..graph.num_blocks() {
            for &s in graph.successors(BlockId::new(b)) {
                assert!(s.index().abs_diff(b) <= 100);
                far += (s.index().abs_diff(b) > 20) as usize;
            }
        }
        assert!(far > graph.num_edges() / 2);
        let (kernel, _) = long_range_function(1, &shape, Signature::Kernel);
        assert!(kernel.contains("%tid: i32 {spmd.divergent}) -> i32"));
        assert!(kernel.contains("return %x4999 : i32"));
    }
}
