//! Strongly connected components (iterative Tarjan), optionally restricted
//! to a subset of blocks.
//!
//! Post-dominance uses this to find the *terminal* components of the
//! blocks that cannot reach an exit (see `post_dominators`). Components
//! are numbered in the order Tarjan's algorithm completes them, which is a
//! reverse topological order of the condensation: every edge between two
//! different components goes from a higher number to a lower one.

use super::graph::{BlockId, Graph};

crate::define_id! {
    /// A strongly connected component found by [`SccFinder`], numbered in
    /// completion order (a reverse topological order of the condensation).
    pub struct SccId;
    /// An optional [`SccId`] (none: a block excluded by the mask).
    pub struct OptionSccId;
}

crate::define_id! {
    /// Tarjan's discovery number of a block (its position in the order the
    /// search opened blocks).
    struct TarjanIndex;
    /// An optional [`TarjanIndex`] (none: not opened yet).
    struct OptionTarjanIndex;
}

/// Reusable SCC decomposition of a graph or of an induced subgraph.
#[derive(Clone, Debug, Default)]
pub struct SccFinder {
    comp: Vec<OptionSccId>,
    /// Per block: discovery number, none until opened.
    index: Vec<OptionTarjanIndex>,
    /// Per block: lowest discovery number reachable through the DFS
    /// subtree and one edge to a block still on the stack (meaningful once
    /// opened).
    low: Vec<TarjanIndex>,
    on_stack: Vec<bool>,
    stack: Vec<u32>,
    frames: Vec<(u32, u32)>,
    num_comps: u32,
    counter: u32,
}

impl SccFinder {
    /// An empty decomposition.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decomposes all blocks of `g` (reachable from the entry or not).
    pub fn compute<G: Graph + ?Sized>(&mut self, g: &G) {
        self.compute_impl(g, None);
    }

    /// Decomposes the subgraph induced by the blocks `b` with
    /// `include[b.index()]`; other blocks get no component and edges to
    /// them are ignored. Panics if `include.len() != g.num_blocks()`.
    pub fn compute_masked<G: Graph + ?Sized>(&mut self, g: &G, include: &[bool]) {
        assert_eq!(include.len(), g.num_blocks());
        self.compute_impl(g, Some(include));
    }

    fn compute_impl<G: Graph + ?Sized>(&mut self, g: &G, include: Option<&[bool]>) {
        let n = g.num_blocks();
        self.comp.clear();
        self.comp.resize(n, OptionSccId::NONE);
        self.index.clear();
        self.index.resize(n, OptionTarjanIndex::NONE);
        self.low.clear();
        self.low.resize(n, TarjanIndex(0));
        self.on_stack.clear();
        self.on_stack.resize(n, false);
        self.num_comps = 0;
        self.counter = 0;
        let included = |i: usize| include.is_none_or(|m| m[i]);
        for start in 0..n {
            if included(start) && self.index[start].is_none() {
                self.search(g, start as u32, &included);
            }
        }
    }

    /// One Tarjan search from `start` with an explicit frame stack.
    fn search<G: Graph + ?Sized>(&mut self, g: &G, start: u32, included: &impl Fn(usize) -> bool) {
        self.open(start);
        while let Some(top) = self.frames.last_mut() {
            let (v, slot) = *top;
            match g.successors(BlockId::new(v as usize)).get(slot as usize) {
                Some(&w) => {
                    top.1 += 1;
                    let w = w.as_u32();
                    if !included(w as usize) {
                        continue;
                    }
                    match self.index[w as usize].get() {
                        None => self.open(w),
                        Some(iw) if self.on_stack[w as usize] => {
                            self.low[v as usize] = self.low[v as usize].min(iw);
                        }
                        Some(_) => {}
                    }
                }
                None => self.close(v),
            }
        }
    }

    fn open(&mut self, v: u32) {
        let i = TarjanIndex(self.counter);
        self.index[v as usize] = OptionTarjanIndex::some(i);
        self.low[v as usize] = i;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack[v as usize] = true;
        self.frames.push((v, 0));
    }

    fn close(&mut self, v: u32) {
        self.frames.pop();
        let lv = self.low[v as usize];
        if let Some(&(p, _)) = self.frames.last() {
            self.low[p as usize] = self.low[p as usize].min(lv);
        }
        if OptionTarjanIndex::some(lv) != self.index[v as usize] {
            return;
        }
        while let Some(w) = self.stack.pop() {
            self.on_stack[w as usize] = false;
            self.comp[w as usize] = OptionSccId::some(SccId(self.num_comps));
            if w == v {
                break;
            }
        }
        self.num_comps += 1;
    }

    /// Number of components found.
    pub fn num_components(&self) -> usize {
        self.num_comps as usize
    }

    /// Component of `b`; `None` if `b` was excluded by the mask.
    pub fn component(&self, b: BlockId) -> Option<SccId> {
        self.comp[b.index()].get()
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::CfgGraph;
    use super::*;

    fn b(i: usize) -> BlockId {
        BlockId::new(i)
    }

    #[test]
    fn components_in_reverse_topological_order() {
        // 0 -> 1 <-> 2 -> 3 -> 3, 4 isolated
        let g = CfgGraph::from_edges(5, b(0), &[(0, 1), (1, 2), (2, 1), (2, 3), (3, 3)]);
        let mut s = SccFinder::new();
        s.compute(&g);
        assert_eq!(s.num_components(), 4);
        let c = |i| s.component(b(i)).unwrap();
        assert_eq!(c(1), c(2));
        assert!(c(3) < c(1) && c(1) < c(0));
        s.compute_masked(&g, &[false, true, false, true, false]);
        assert_eq!(s.num_components(), 2);
        assert_eq!(s.component(b(2)), None);
        assert_ne!(s.component(b(1)), s.component(b(3)));
    }
}
