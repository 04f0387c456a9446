//! Snapshot of an MLIR region as an IR-independent [`CfgGraph`].
//!
//! ```text
//!   MLIR region (blocks, terminators)  --snapshot-->  CfgGraph (CSR arrays)
//!   ^bb0 -> cf.cond_br ^bb1, ^bb2                     0: [1, 2]
//!   ^bb1 -> cf.br ^bb2                                1: [2]
//!   ^bb2 -> return                                    2: []
//! ```
//!
//! Block `i` of the region (in region order, which is also how MLIR's
//! printer numbers `^bbN`) becomes [`BlockId`] `i`; the region's first block
//! is the entry. Successor slots follow the terminator's successor order, so
//! `cf.cond_br %c, ^a, ^a` gives two edges and a `cf.switch` one edge per
//! case. Any terminator's successors count: `cf`, `llvm` and `spmd`
//! branches implement `BranchOpInterface`, and the snapshot does not need
//! the interface to read edges. Blocks whose terminator has no successors
//! (`return`, `llvm.unreachable`, ...) are exits.
//!
//! Regions nested inside operations of the region are separate CFGs and
//! are not part of the snapshot.
//!
//! Lifecycle (as for the analyses): [`RegionGraph::snapshot`] once, then
//! [`RegionGraph::recompute`] after each edit, reusing every buffer.
//! Reading is one C++ call (`spmdRegionCfgRead`, whose arrays are released
//! after each read) that walks the blocks once
//! and resolves successors to indices on its side: on large regions the
//! walk is bound by memory latency, and one pass instead of a C API call
//! per block and successor made snapshots about 4x faster.

use crate::analysis::cfg::{BlockId, CfgBuilder, CfgGraph};
use crate::ir::key::BlockKey;
use crate::support::FastMap;
use melior::ir::{
    block::BlockLike, operation::OperationLike, BlockRef, Location, RegionLike, RegionRef,
};

/// Why a region cannot be snapshotted.
#[derive(Debug, Clone)]
pub enum RegionGraphError<'c> {
    /// The region has no blocks.
    EmptyRegion,
    /// Block `block` is empty (it has no terminator).
    MissingTerminator {
        /// Position of the block in its region.
        block: usize,
        /// Location of the block's last operation (or of the region's owner).
        location: Location<'c>,
    },
}

impl std::error::Error for RegionGraphError<'_> {}

impl std::fmt::Display for RegionGraphError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::EmptyRegion => write!(f, "the region has no blocks"),
            Self::MissingTerminator { block, .. } => {
                write!(f, "block ^bb{block} does not end with a terminator")
            }
        }
    }
}

/// An MLIR region's CFG, with the mapping between blocks and [`BlockId`]s.
pub struct RegionGraph<'c, 'a> {
    blocks: Vec<BlockRef<'c, 'a>>,
    /// The last operation of each block when the snapshot was taken.
    terminators: Vec<melior::ir::OperationRef<'c, 'a>>,
    /// Block -> id.
    ids: FastMap<BlockKey, BlockId>,
    builder: CfgBuilder,
}

impl<'c, 'a> RegionGraph<'c, 'a> {
    /// Snapshots `region`.
    pub fn snapshot(region: RegionRef<'c, 'a>) -> Result<Self, RegionGraphError<'c>> {
        let mut graph = Self {
            blocks: Vec::new(),
            terminators: Vec::new(),
            ids: FastMap::default(),
            builder: CfgBuilder::new(),
        };
        graph.recompute(region)?;
        Ok(graph)
    }

    /// The graph of a region whose blocks (in region order), terminators and
    /// successors (`edges`, each block's in slot order) the caller knows
    /// exactly, e.g. because it just made them; the result is what
    /// [`RegionGraph::snapshot`] would read, without reading the region.
    pub(crate) fn from_parts(
        blocks: Vec<BlockRef<'c, 'a>>,
        terminators: Vec<melior::ir::OperationRef<'c, 'a>>,
        edges: &[(BlockId, BlockId)],
    ) -> Self {
        assert_eq!(blocks.len(), terminators.len(), "one terminator per block");
        let ids = blocks
            .iter()
            .enumerate()
            .map(|(index, block)| (BlockKey::of(block), BlockId::new(index)))
            .collect();
        let mut builder = CfgBuilder::new();
        builder.set_num_blocks(blocks.len());
        for &(from, to) in edges {
            builder.add_edge(from, to);
        }
        builder.finish();
        Self {
            blocks,
            terminators,
            ids,
            builder,
        }
    }

    /// True if `self` and `other` have the same blocks, terminators and
    /// edges (a debugging aid for [`RegionGraph::from_parts`]).
    pub(crate) fn same_as(&self, other: &Self) -> bool {
        use crate::analysis::cfg::Graph;
        self.blocks == other.blocks
            && self.terminators == other.terminators
            && (0..self.num_blocks()).all(|b| {
                self.graph().successors(BlockId::new(b))
                    == other.graph().successors(BlockId::new(b))
            })
    }

    /// Re-reads `region` after edits, reusing the buffers.
    pub fn recompute(&mut self, region: RegionRef<'c, 'a>) -> Result<(), RegionGraphError<'c>> {
        self.blocks.clear();
        self.terminators.clear();
        self.ids.clear();
        self.builder.clear();
        let raw = RawCfg::read(region);
        let (raw_blocks, raw_last, successor_counts, targets) = raw.slices();
        if raw_blocks.is_empty() {
            return Err(RegionGraphError::EmptyRegion);
        }
        // SAFETY: the handles were just read from the live region.
        self.blocks.extend(
            raw_blocks
                .iter()
                .map(|&raw| unsafe { BlockRef::from_raw(raw) }),
        );
        self.ids.reserve(self.blocks.len());
        self.ids.extend(
            raw_blocks
                .iter()
                .enumerate()
                .map(|(index, &raw)| (BlockKey::from_raw(raw), BlockId::new(index))),
        );
        if let Some(index) = raw_last.iter().position(|op| op.ptr.is_null()) {
            let block = self.blocks[index];
            let location = region_owner_location(&block).expect("a block in a region has an owner");
            return Err(RegionGraphError::MissingTerminator {
                block: index,
                location,
            });
        }
        // SAFETY: non-null handles of the blocks' live last operations.
        self.terminators.extend(
            raw_last
                .iter()
                .map(|&raw| unsafe { melior::ir::OperationRef::from_raw(raw) }),
        );
        self.builder.set_num_blocks(self.blocks.len());
        let mut next = 0;
        for (index, &count) in successor_counts.iter().enumerate() {
            for &target in &targets[next..next + count as usize] {
                let target = usize::try_from(target)
                    .expect("successors of a verified region are in the region");
                self.builder
                    .add_edge(BlockId::new(index), BlockId::new(target));
            }
            next += count as usize;
        }
        self.builder.finish();
        Ok(())
    }

    /// The IR-independent graph.
    pub fn graph(&self) -> &CfgGraph {
        self.builder.graph()
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The MLIR block behind `id`.
    pub fn block(&self, id: BlockId) -> BlockRef<'c, 'a> {
        self.blocks[id.index()]
    }

    /// The id of `block`, or `None` if it is not in the snapshotted region.
    pub fn id(&self, block: BlockRef<'_, '_>) -> Option<BlockId> {
        self.ids.get(&BlockKey::of(&block)).copied()
    }

    /// The printer's name of block `id`: `^bbN`.
    pub fn name(&self, id: BlockId) -> String {
        format!("^bb{}", id.index())
    }

    /// The last operation of block `id`: its terminator (possibly an
    /// unregistered operation).
    pub fn terminator(&self, id: BlockId) -> melior::ir::OperationRef<'c, 'a> {
        last_operation(self.block(id)).expect("snapshotted blocks are not empty")
    }

    /// The terminator of block `id` as the snapshot saw it, without touching
    /// the block: only for callers that have not replaced any terminator
    /// since the snapshot (editing operands, successors or attributes in
    /// place is fine).
    pub(crate) fn snapshot_terminator(&self, id: BlockId) -> melior::ir::OperationRef<'c, 'a> {
        self.terminators[id.index()]
    }

    /// The location of block `id`'s terminator (the natural place for a
    /// diagnostic about the block's control flow).
    pub fn terminator_location(&self, id: BlockId) -> Location<'c> {
        self.terminator(id).location()
    }
}

fn region_owner_location<'c>(block: &BlockRef<'c, '_>) -> Option<Location<'c>> {
    block.parent_operation().map(|op| op.location())
}

/// The last operation of `block` (constant time). Unlike `BlockLike::terminator`, this
/// also returns operations not known to be terminators (unregistered ones),
/// whose successors still are CFG edges.
pub(crate) fn last_operation<'c, 'a>(
    block: BlockRef<'c, 'a>,
) -> Option<melior::ir::OperationRef<'c, 'a>> {
    // SAFETY: `block` is live; the C API returns null for an empty block.
    unsafe {
        melior::ir::OperationRef::from_option_raw(crate::ir::ffi::spmdBlockGetLastOperation(
            block.to_raw(),
        ))
    }
}

/// A region's CFG as the C++ reader returns it (see `spmdRegionCfgRead`).
struct RawCfg(crate::ir::ffi::SpmdRegionCfg);

impl RawCfg {
    fn read(region: RegionRef<'_, '_>) -> Self {
        // SAFETY: a live region; the result owns its arrays until dropped.
        Self(unsafe { crate::ir::ffi::spmdRegionCfgRead(region.to_raw()) })
    }

    fn slices(
        &self,
    ) -> (
        &[mlir_sys::MlirBlock],
        &[mlir_sys::MlirOperation],
        &[i32],
        &[i32],
    ) {
        let (blocks, edges) = (self.0.num_blocks as usize, self.0.num_edges as usize);
        // SAFETY: the reader's arrays hold `num_blocks` / `num_edges` entries,
        // alive until `self` is dropped.
        unsafe {
            (
                raw_slice(self.0.blocks, blocks),
                raw_slice(self.0.last_ops, blocks),
                raw_slice(self.0.num_successors, blocks),
                raw_slice(self.0.targets, edges),
            )
        }
    }
}

impl Drop for RawCfg {
    fn drop(&mut self) {
        // SAFETY: read by spmdRegionCfgRead and released once.
        unsafe { crate::ir::ffi::spmdRegionCfgDestroy(self.0) }
    }
}

/// `len` entries at `data` (`data` may be null when `len` is 0).
///
/// # Safety
/// Unless `len` is 0, `data` must point to `len` initialised values that
/// stay valid and unchanged for `'s`.
unsafe fn raw_slice<'s, T>(data: *const T, len: usize) -> &'s [T] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees `len` live entries at `data`.
        unsafe { std::slice::from_raw_parts(data, len) }
    }
}
