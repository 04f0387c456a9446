//! Path-compressed links up the cycle forest that skip cycles a rule is
//! done with.
//!
//! Several rules of the analysis walk the cycles around a block, innermost
//! first, looking for the next cycle they still have work in: the next
//! cycle not yet flagged temporally divergent, the next irreducible cycle
//! not yet flagged, the next cycle whose temporal rule is not yet moot.
//! On long-range CFGs the forest nests thousands of cycles deep, so a plain
//! walk per query is quadratic. Each rule's *done* predicate is monotone
//! (a cycle never stops being done), so the walk can remember what it
//! skipped: every done cycle it passed links to the answer (or to "none
//! above"), like a union-find with path compression. Later queries from
//! any of those cycles jump straight there.
//!
//! ```text
//!   c4 (open)          find(c1) passes c1, c2, c3 (done) and answers c4;
//!   └ c3 (done)        afterwards c1, c2, c3 link to c4. When c4 is done
//!     └ c2 (done)      too, the next query follows c1 -> c4 -> parent(c4)
//!       └ c1 (done)    and compresses again.
//! ```
//!
//! Edge cases: a query from `None` (a block in no cycle) answers `None`; a
//! link is only followed from a cycle that is done, so a stale link can
//! never skip an open cycle (everything between a done cycle and its link
//! target was done when the link was made, and stays done).

use crate::analysis::cfg::{CycleForest, CycleId, OptionCycleId};

/// Links for one monotone *done* predicate (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct SkipLinks {
    /// Per done cycle: the first cycle around it that was open when last
    /// asked, `NONE` if unknown or if `to_root` says there is none.
    link: Vec<OptionCycleId>,
    /// Per done cycle: no cycle around it was open when last asked.
    to_root: Vec<bool>,
    path: Vec<CycleId>,
}

impl SkipLinks {
    /// Forgets every link, for a forest of `num_cycles` cycles.
    pub(super) fn reset(&mut self, num_cycles: usize) {
        self.link.clear();
        self.link.resize(num_cycles, OptionCycleId::NONE);
        self.to_root.clear();
        self.to_root.resize(num_cycles, false);
        self.path.clear();
    }

    /// The innermost cycle around-or-equal `c` that is not `done`, or
    /// `None`. `done` must be monotone over the life of these links.
    pub(super) fn first_open(
        &mut self,
        forest: &CycleForest,
        c: Option<CycleId>,
        done: impl Fn(CycleId) -> bool,
    ) -> Option<CycleId> {
        let mut at = c?;
        self.path.clear();
        let found = loop {
            if !done(at) {
                break Some(at);
            }
            self.path.push(at);
            if self.to_root[at.index()] {
                break None;
            }
            match self.link[at.index()].get().or_else(|| forest.parent(at)) {
                Some(up) => at = up,
                None => break None,
            }
        };
        for &d in &self.path {
            self.link[d.index()] = found.into();
            self.to_root[d.index()] = found.is_none();
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::{BlockId, CfgAnalysis, CfgGraph};

    /// Nested loops: header `h` of depth `h + 1`, all latched from the
    /// innermost body `k`.
    fn nest(k: u32) -> CfgAnalysis {
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for h in 0..k {
            edges.push((h, h + 1));
            edges.push((k, h));
        }
        edges.push((0, k + 1));
        let g = CfgGraph::from_edges(k as usize + 2, BlockId::new(0), &edges);
        CfgAnalysis::build(&g)
    }

    #[test]
    fn first_open_matches_a_walk_as_cycles_get_done() {
        let a = nest(40);
        let f = a.cycles();
        let mut links = SkipLinks::default();
        links.reset(f.num_cycles());
        let mut done = vec![false; f.num_cycles()];
        let order = [5usize, 6, 7, 39, 0, 20, 21, 22, 38, 37, 1, 2, 3, 4];
        for (step, &d) in order.iter().enumerate() {
            done[d] = true;
            for c in f.cycles() {
                let mut walk = Some(c);
                while let Some(x) = walk {
                    if !done[x.index()] {
                        break;
                    }
                    walk = f.parent(x);
                }
                let got = links.first_open(f, Some(c), |x| done[x.index()]);
                assert_eq!(got, walk, "step {step}, from {c:?}");
            }
        }
        assert_eq!(links.first_open(f, None, |_| false), None);
    }
}
