//! The arbitrary CFG every target starts from: a bounded edge list.

use arbitrary::{Arbitrary, Result, Unstructured};
use spmd_graph::{BlockId, CfgGraph};

/// Most blocks of a [`graph_core`](crate::graph_core) graph.
pub const MAX_GRAPH_BLOCKS: usize = 64;

/// Most blocks of a [`reconverge_definition1`](crate::reconverge_definition1)
/// function (the transforms run in milliseconds at this size).
pub const MAX_MLIR_BLOCKS: usize = 12;

/// A CFG with blocks `0..n`, entry 0, and zero to three successor slots
/// per block (duplicates and self loops allowed, any block may be a
/// target, so unreachable blocks, infinite loops and irreducible cycles
/// all occur).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuzzCfg {
    /// Successor slots per block, in terminator order.
    pub successors: Vec<Vec<u32>>,
}

impl FuzzCfg {
    /// Reads a CFG of 1 to `max_blocks` blocks from `u`. When the bytes run
    /// out, the remaining blocks become exits.
    pub fn arbitrary_bounded(u: &mut Unstructured<'_>, max_blocks: usize) -> Result<Self> {
        let n = u.int_in_range(1..=max_blocks.max(1))?;
        let mut successors = Vec::with_capacity(n);
        for _ in 0..n {
            // Weighted like code: mostly one or two successors.
            let slots = match u.int_in_range(0u8..=15)? {
                0..=2 => 0,
                3..=8 => 1,
                9..=14 => 2,
                _ => 3,
            };
            let mut targets = Vec::with_capacity(slots);
            for _ in 0..slots {
                targets.push(u.int_in_range(0..=(n - 1) as u32)?);
            }
            successors.push(targets);
        }
        Ok(Self { successors })
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.successors.len()
    }

    /// The edges as `(from, to)` pairs, grouped by source in slot order.
    pub fn edges(&self) -> Vec<(u32, u32)> {
        self.successors
            .iter()
            .enumerate()
            .flat_map(|(u, s)| s.iter().map(move |&v| (u as u32, v)))
            .collect()
    }

    /// The graph, entry 0.
    pub fn graph(&self) -> CfgGraph {
        CfgGraph::from_edges(self.num_blocks(), BlockId::new(0), &self.edges())
    }
}

impl<'a> Arbitrary<'a> for FuzzCfg {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Self::arbitrary_bounded(u, MAX_GRAPH_BLOCKS)
    }
}
