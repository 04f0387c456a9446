//! Seeded pseudo-random numbers and random CFG generators, shared by the
//! benchmark and the property tests (std-only, deterministic).

use super::graph::{BlockId, CfgGraph};

/// The SplitMix64 generator: tiny, fast, and good enough for test inputs.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound`. Panics if `bound == 0`.
    pub fn below(&mut self, bound: u64) -> u64 {
        assert!(bound > 0);
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo + 1) as u64) as usize
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
}

/// A planned loop of [`realistic_cfg`]: blocks `header..=end`.
#[derive(Clone, Copy, Debug)]
struct LoopPlan {
    header: usize,
    end: usize,
    parent: OptionLoopPlanId,
    infinite: bool,
}

crate::define_id! {
    /// Index of a [`LoopPlan`] in the generator's plan (parents first).
    struct LoopPlanId;
    /// An optional [`LoopPlanId`] (outside every loop, no parent loop).
    struct OptionLoopPlanId;
}

/// A random CFG shaped like compiled code, blocks in layout order:
/// properly nested loops (latch at the bottom, `continue` and `break`
/// edges), if/else skips, early returns (`if (c) return;`), occasional
/// switches (average out-degree about 1.6), about 2% of loops without any
/// exit (infinite, each guarded by a branch that skips it), and a few
/// unstructured forward `goto`s that can make cycles irreducible or leave
/// code unreachable. Deterministic for a given generator state.
pub fn realistic_cfg(rng: &mut SplitMix64, n: usize) -> CfgGraph {
    assert!(n >= 2);
    let mut gen = Generator::new(rng, n);
    for i in 0..n - 1 {
        gen.emit_block(rng, i);
    }
    CfgGraph::from_edges(n, BlockId::new(0), &gen.edges)
}

/// State of [`realistic_cfg`]: the loop plan and the edges emitted so far.
struct Generator {
    n: usize,
    loops: Vec<LoopPlan>,
    innermost: Vec<OptionLoopPlanId>,
    latch_of: Vec<OptionLoopPlanId>,
    is_return: Vec<bool>,
    edges: Vec<(u32, u32)>,
}

impl Generator {
    fn new(rng: &mut SplitMix64, n: usize) -> Self {
        let (loops, innermost) = plan_loops(rng, n);
        let mut latch_of = vec![OptionLoopPlanId::NONE; n];
        for (id, l) in loops.iter().enumerate() {
            latch_of[l.end] = OptionLoopPlanId::some(LoopPlanId::new(id));
        }
        let edges = Vec::with_capacity(n * 8 / 5);
        Generator {
            n,
            loops,
            innermost,
            latch_of,
            is_return: vec![false; n],
            edges,
        }
    }

    fn edge(&mut self, from: usize, to: usize) {
        self.edges.push((from as u32, to as u32));
    }

    /// Emits the terminator edges of block `i` (`i < n - 1`).
    fn emit_block(&mut self, rng: &mut SplitMix64, i: usize) {
        if self.is_return[i] {
            return;
        }
        if let Some(latch_of) = self.latch_of[i].get() {
            let l = self.loops[latch_of.index()];
            self.edge(i, l.header);
            if !l.infinite {
                self.edge(i, i + 1);
            }
        } else {
            self.emit_body_block(rng, i);
        }
        self.guard_infinite_loop(i);
    }

    /// If an infinite loop starts at `i + 1`, let `i` also branch past it.
    fn guard_infinite_loop(&mut self, i: usize) {
        let Some(next) = self.innermost[i + 1].get() else {
            return;
        };
        let next = self.loops[next.index()];
        if next.header != i + 1 || !next.infinite {
            return;
        }
        let after = (next.end + 1).min(self.n - 1);
        let t = self.legal_forward_target(i, after);
        self.edge(i, t);
    }

    fn emit_body_block(&mut self, rng: &mut SplitMix64, i: usize) {
        let inner = self.innermost[i];
        match rng.below(1000) {
            0..=39 if self.can_return_next(i) => {
                // `if (c) return;` — block i+1 returns, i+2 continues.
                self.is_return[i + 1] = true;
                self.edge(i, i + 1);
                self.edge(i, i + 2);
            }
            0..=399 => self.edge(i, i + 1),
            400..=409 => {
                self.edge(i, i + 1);
                if let Some(inner) = inner.get() {
                    self.edge(i, self.loops[inner.index()].header); // `continue`
                }
            }
            410..=989 => {
                let t = self.random_forward(rng, i, 24);
                self.edge(i, i + 1);
                self.edge(i, t);
            }
            990..=997 => {
                self.edge(i, i + 1);
                for _ in 0..rng.range(2, 4) {
                    let t = self.random_forward(rng, i, 40);
                    self.edge(i, t);
                }
            }
            _ => {
                // Unstructured goto: may jump into the middle of a loop.
                self.edge(i, i + 1);
                self.edge(i, (i + rng.range(2, 60)).min(self.n - 1));
            }
        }
    }

    /// True if block `i + 1` can be an early return: `i + 1` and `i + 2`
    /// are plain blocks of `i`'s loop (no header, latch or infinite loop).
    fn can_return_next(&self, i: usize) -> bool {
        let inner = self.innermost[i];
        i + 2 < self.n
            && self.innermost[i + 1] == inner
            && self.innermost[i + 2] == inner
            && self.latch_of[i + 1].is_none()
            && inner.get().is_none_or(|l| !self.loops[l.index()].infinite)
    }

    fn random_forward(&self, rng: &mut SplitMix64, i: usize, max_jump: usize) -> usize {
        let t = (i + 1 + rng.range(1, max_jump)).min(self.n - 1);
        self.legal_forward_target(i, t)
    }

    /// Moves a forward target `t` of block `i` so it does not enter a loop
    /// in the middle: if loops containing `t` do not contain `i`, jump to
    /// the header of the outermost such loop instead — or, if that loop is
    /// infinite, past its end (so code after it stays reachable). Targets
    /// from inside an infinite loop stay inside it.
    fn legal_forward_target(&self, i: usize, t: usize) -> usize {
        let mut t = self.clamp_to_infinite_loops(i, t);
        loop {
            let Some(foreign) = self.outermost_foreign_loop(i, t) else {
                return t;
            };
            let plan = self.loops[foreign.index()];
            if !plan.infinite {
                return plan.header;
            }
            t = (plan.end + 1).min(self.n - 1);
        }
    }

    fn clamp_to_infinite_loops(&self, i: usize, mut t: usize) -> usize {
        let mut l = self.innermost[i].get();
        while let Some(id) = l {
            let plan = self.loops[id.index()];
            if plan.infinite {
                t = t.min(plan.end);
            }
            l = plan.parent.get();
        }
        t
    }

    /// The outermost loop containing `t` but not `i`, if any.
    fn outermost_foreign_loop(&self, i: usize, t: usize) -> Option<LoopPlanId> {
        let mut outermost = None;
        let mut l = self.innermost[t].get();
        while let Some(id) = l {
            let plan = self.loops[id.index()];
            if !(plan.header <= i && i <= plan.end) {
                outermost = Some(id);
            }
            l = plan.parent.get();
        }
        outermost
    }
}

/// Plans properly nested loops over the layout; returns them and each
/// block's innermost loop (none outside loops). A child loop starts after
/// its parent's header and ends before its parent's latch.
fn plan_loops(rng: &mut SplitMix64, n: usize) -> (Vec<LoopPlan>, Vec<OptionLoopPlanId>) {
    let mut loops: Vec<LoopPlan> = Vec::new();
    let mut innermost = vec![OptionLoopPlanId::NONE; n];
    let mut open: Vec<LoopPlanId> = Vec::new();
    for (i, slot) in innermost.iter_mut().enumerate() {
        while open.last().is_some_and(|&l| loops[l.index()].end < i) {
            open.pop();
        }
        let limit = open.last().map_or(n - 2, |&l| loops[l.index()].end - 1);
        if open.len() < 8 && i + 2 <= limit && rng.chance(25) {
            let len = 2 + (rng.below(64) * rng.below(64) / 16) as usize;
            loops.push(LoopPlan {
                header: i,
                end: (i + len).min(limit),
                parent: open.last().copied().into(),
                infinite: rng.chance(20),
            });
            open.push(LoopPlanId::new(loops.len() - 1));
        }
        *slot = open.last().copied().into();
    }
    (loops, innermost)
}

#[cfg(test)]
mod tests {
    use super::super::graph::Graph;
    use super::*;

    #[test]
    fn deterministic_and_realistic_degree() {
        let g1 = realistic_cfg(&mut SplitMix64::new(7), 20_000);
        let g2 = realistic_cfg(&mut SplitMix64::new(7), 20_000);
        assert_eq!(
            g1.edges().collect::<Vec<_>>(),
            g2.edges().collect::<Vec<_>>()
        );
        let degree = g1.num_edges() as f64 / g1.num_blocks() as f64;
        assert!((1.4..1.8).contains(&degree), "average out-degree {degree}");
    }

    #[test]
    fn range_and_chance_bounds() {
        let mut r = SplitMix64::new(1);
        for _ in 0..1000 {
            let x = r.range(3, 5);
            assert!((3..=5).contains(&x));
        }
        assert!(!r.chance(0));
        assert!(r.chance(1000));
    }
}
