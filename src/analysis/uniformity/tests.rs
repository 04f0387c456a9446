//! Hand-written programs for every rule and edge case, then property tests
//! on thousands of random programs: a brute-force oracle on acyclic
//! graphs, and monotonicity / data-dependence / join / temporal /
//! renumbering invariants on arbitrary graphs.

// Oracles index several per-block arrays with one loop index.
#![allow(clippy::needless_range_loop)]

use super::bench::{random_program, RandomProgramParams};
use super::*;
use crate::analysis::cfg::random::{realistic_cfg, SplitMix64};
use crate::analysis::cfg::{BlockId, CfgAnalysis, CfgGraph, CycleId, Graph};
use std::collections::BTreeSet;

// ---------------------------------------------------------------------------
// A tiny DSL: blocks are numbered, block 0 is the entry.

struct Fun {
    b: ProgramBuilder,
    succs: Vec<Vec<u32>>,
}

struct Res {
    g: CfgGraph,
    cfg: CfgAnalysis,
    p: Program,
    u: UniformityInfo,
}

fn bb(i: usize) -> BlockId {
    BlockId::new(i)
}

impl Fun {
    fn new(n: usize) -> Self {
        let mut b = ProgramBuilder::new();
        b.begin(n);
        Fun {
            b,
            succs: vec![Vec::new(); n],
        }
    }
    fn arg(&mut self, blk: usize) -> ValueId {
        self.b.add_argument(bb(blk), ArgumentKind::Uniform)
    }
    fn darg(&mut self, blk: usize) -> ValueId {
        self.b.add_argument(bb(blk), ArgumentKind::Divergent)
    }
    fn op(&mut self, blk: usize, kind: OpKind, operands: &[ValueId]) -> ValueId {
        let op = self.b.add_op(bb(blk), kind, operands, 1);
        self.b.op_results(op)[0]
    }
    fn tid(&mut self, blk: usize) -> ValueId {
        self.op(blk, OpKind::Source, &[])
    }
    fn konst(&mut self, blk: usize, key: u64) -> ValueId {
        self.op(blk, OpKind::Constant(key), &[])
    }
    fn pure(&mut self, blk: usize, operands: &[ValueId]) -> ValueId {
        self.op(blk, OpKind::Pure, operands)
    }
    fn term(
        &mut self,
        blk: usize,
        cond: Option<ValueId>,
        mark: Option<BranchMark>,
        targets: &[(usize, &[ValueId])],
    ) {
        self.succs[blk] = targets.iter().map(|t| t.0 as u32).collect();
        let fwd: Vec<&[ValueId]> = targets.iter().map(|t| t.1).collect();
        self.b.set_terminator(bb(blk), cond, mark, &fwd);
    }
    fn br(&mut self, blk: usize, to: usize, args: &[ValueId]) {
        self.term(blk, None, None, &[(to, args)]);
    }
    fn cond_br(&mut self, blk: usize, c: ValueId, t: (usize, &[ValueId]), f: (usize, &[ValueId])) {
        self.term(blk, Some(c), None, &[t, f]);
    }
    fn ret(&mut self, blk: usize) {
        self.term(blk, None, None, &[]);
    }
    fn run(mut self) -> Res {
        let edges: Vec<(u32, u32)> = self
            .succs
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.iter().map(move |&t| (i as u32, t)))
            .collect();
        let g = CfgGraph::from_edges(self.succs.len(), bb(0), &edges);
        let cfg = CfgAnalysis::build(&g);
        let p = self.b.finish().clone();
        p.validate(&g, Some(&cfg)).expect("valid test program");
        let mut u = UniformityInfo::new();
        u.compute(&p, &g, &cfg);
        Res { g, cfg, p, u }
    }
}

impl Res {
    fn div(&self, v: ValueId) -> bool {
        self.u.is_divergent(v)
    }
    /// Runs the program thread by thread ([`check_by_execution`]): what
    /// the analysis calls uniform agrees across threads at equal instances.
    fn check_executions(&self) {
        let compared = check_by_execution(&self.g, &self.cfg, &self.p, &self.u, 16, 200);
        assert!(compared > 0, "nothing compared");
    }
    fn joins(&self, b: usize) -> Vec<usize> {
        let mut j: Vec<usize> = self
            .u
            .join_blocks(bb(b))
            .iter()
            .map(|b| b.index())
            .collect();
        j.sort();
        j
    }
    fn reason(&self, b: usize) -> BranchReason {
        self.u.branch_reason(bb(b))
    }
    fn cycle(&self, header: usize) -> CycleId {
        let c = self
            .cfg
            .cycles()
            .innermost_cycle(bb(header))
            .expect("in a cycle");
        assert_eq!(self.cfg.cycles().header(c), bb(header));
        c
    }
}

// ---------------------------------------------------------------------------
// Hand-written programs.

#[test]
fn if_on_thread_id() {
    let mut f = Fun::new(4);
    let u = f.arg(0);
    let t = f.tid(0);
    let c = f.pure(0, &[t]);
    let a0 = f.pure(0, &[u]);
    f.cond_br(0, c, (1, &[]), (2, &[]));
    let a = f.pure(1, &[u]);
    f.br(1, 3, &[a]);
    f.br(2, 3, &[u]);
    let x = f.arg(3);
    let y = f.pure(3, &[x]);
    let z = f.pure(3, &[u]);
    f.ret(3);
    let r = f.run();
    for v in [t, c, x, y] {
        assert!(
            r.div(v),
            "{v} should be divergent\n{}",
            r.u.dump(&r.p, &r.cfg)
        );
    }
    for v in [u, a0, a, z] {
        assert!(r.u.is_uniform(v), "{v} should be uniform");
    }
    assert_eq!(r.reason(0), BranchReason::Condition);
    assert!(r.u.is_divergent_branch(bb(0)));
    assert_eq!(r.reason(1), BranchReason::NotABranch);
    assert_eq!(r.reason(3), BranchReason::NotABranch);
    assert_eq!(r.joins(0), vec![3]);
    assert_eq!(r.u.divergent_values().collect::<Vec<_>>(), vec![t, c, x, y]);
    assert_eq!(r.u.num_divergent_values(), 4);
    assert_eq!(r.u.divergent_branches().collect::<Vec<_>>(), vec![bb(0)]);
}

#[test]
fn uniform_loop_inside_divergent_if() {
    let mut f = Fun::new(7);
    let n = f.arg(0);
    let t = f.tid(0);
    let c = f.pure(0, &[t]);
    let zero = f.konst(0, 0);
    let one = f.konst(0, 1);
    f.cond_br(0, c, (1, &[]), (5, &[]));
    f.br(1, 2, &[zero]);
    let i = f.arg(2);
    let i1 = f.pure(2, &[i, one]);
    let lc = f.pure(2, &[i1, n]);
    f.cond_br(2, lc, (3, &[]), (4, &[]));
    f.br(3, 2, &[i1]);
    f.br(4, 6, &[i1]);
    f.br(5, 6, &[zero]);
    let res = f.arg(6);
    f.ret(6);
    let r = f.run();
    assert_eq!(r.reason(2), BranchReason::Uniform);
    for v in [i, i1, lc] {
        assert!(r.u.is_uniform(v), "{v}\n{}", r.u.dump(&r.p, &r.cfg));
    }
    assert!(r.div(res));
    assert_eq!(r.joins(0), vec![6]);
    assert!(!r.u.has_temporal_divergence(r.cycle(2)));
    assert!(!r.u.is_divergent_use(&r.p, &r.cfg, i1, bb(4)));
}

#[test]
fn loop_with_divergent_exit_is_temporally_divergent() {
    let mut f = Fun::new(6);
    let t = f.tid(0);
    let zero = f.konst(0, 0);
    let one = f.konst(0, 1);
    let u = f.arg(0);
    f.br(0, 1, &[zero]);
    let i = f.arg(1);
    let n = f.pure(1, &[i, one]);
    let d = f.pure(1, &[n, t]);
    let inside_const = f.konst(1, 9);
    f.cond_br(1, d, (2, &[]), (3, &[n, u, inside_const]));
    f.br(2, 1, &[n]);
    let r_n = f.arg(3);
    let r_u = f.arg(3);
    let r_k = f.arg(3);
    let s = f.pure(3, &[n]);
    let k = f.pure(3, &[one]);
    f.cond_br(3, n, (4, &[]), (5, &[]));
    f.ret(4);
    f.ret(5);
    let r = f.run();
    let dump = r.u.dump(&r.p, &r.cfg);
    // Inside the loop every iteration is uniform.
    assert!(r.u.is_uniform(i) && r.u.is_uniform(n), "{dump}");
    assert!(r.div(d));
    assert_eq!(r.reason(1), BranchReason::Condition);
    let c = r.cycle(1);
    assert!(r.u.has_temporal_divergence(c));
    // Used after the loop: divergent.
    assert!(r.div(s) && r.div(r_n), "{dump}");
    assert!(r.u.is_divergent_use(&r.p, &r.cfg, n, bb(3)));
    assert!(!r.u.is_divergent_use(&r.p, &r.cfg, n, bb(2)));
    assert_eq!(r.reason(3), BranchReason::TemporalCondition);
    // Values that are the same in every iteration stay uniform.
    assert!(
        r.u.is_uniform(k) && r.u.is_uniform(r_u) && r.u.is_uniform(r_k),
        "{dump}"
    );
    assert!(!r.u.is_divergent_use(&r.p, &r.cfg, inside_const, bb(3)));
    assert_eq!(r.joins(1), vec![3]);
}

#[test]
fn uniform_branch_nested_in_divergent_region_keeps_its_join_uniform() {
    let mut f = Fun::new(7);
    let t = f.tid(0);
    let c = f.pure(0, &[t]);
    let u = f.arg(0);
    let k1 = f.konst(0, 1);
    let k2 = f.konst(0, 2);
    f.cond_br(0, c, (1, &[]), (5, &[]));
    f.cond_br(1, u, (2, &[]), (3, &[]));
    f.br(2, 4, &[k1]);
    f.br(3, 4, &[k2]);
    let m = f.arg(4);
    f.br(4, 6, &[m]);
    f.br(5, 6, &[k1]);
    let x = f.arg(6);
    f.ret(6);
    let r = f.run();
    assert!(r.u.is_uniform(m), "{}", r.u.dump(&r.p, &r.cfg));
    assert!(r.div(x));
    assert_eq!(r.reason(1), BranchReason::Uniform);
    assert_eq!(r.joins(0), vec![6]);
    assert!(r.joins(1).is_empty());
}

#[test]
fn switch_on_lane_id() {
    for divergent in [true, false] {
        let mut f = Fun::new(5);
        let sel = if divergent { f.tid(0) } else { f.arg(0) };
        let k1 = f.konst(0, 1);
        let k2 = f.konst(0, 2);
        f.term(
            0,
            Some(sel),
            None,
            &[(1, &[]), (2, &[]), (3, &[]), (1, &[])],
        );
        f.br(1, 4, &[k1]);
        f.br(2, 4, &[k2]);
        f.br(3, 4, &[k1]);
        let x = f.arg(4);
        f.ret(4);
        let r = f.run();
        assert_eq!(r.div(x), divergent);
        if divergent {
            assert_eq!(r.reason(0), BranchReason::Condition);
            // The duplicate slot makes block 1 a join too.
            assert_eq!(r.joins(0), vec![1, 4]);
        } else {
            assert_eq!(r.reason(0), BranchReason::Uniform);
            assert!(r.joins(0).is_empty());
        }
    }
}

#[test]
fn irreducible_cycle_entered_divergently_is_conservative() {
    for divergent in [true, false] {
        let mut f = Fun::new(5);
        let u = f.arg(0);
        let sel = if divergent { f.tid(0) } else { f.arg(0) };
        let k = f.konst(0, 0);
        f.cond_br(0, sel, (1, &[k]), (2, &[k]));
        let a = f.arg(1);
        let a1 = f.pure(1, &[a]);
        // Computed in the cycle from uniform operands only: threads that
        // entered at different blocks run the cycle out of phase, so it is
        // divergent all the same (as LLVM's "assumed divergent" cycles).
        let from_uniform = f.pure(1, &[u]);
        let always_uniform = f.op(1, OpKind::Uniform, &[a]);
        let constant = f.konst(2, 9);
        f.cond_br(1, u, (2, &[a1]), (3, &[]));
        let b = f.arg(2);
        let in_second_entry = f.pure(2, &[u]);
        f.br(2, 1, &[b]);
        f.br(3, 4, &[a1]);
        let after = f.arg(4);
        let outside = f.pure(4, &[u]);
        f.ret(4);
        let r = f.run();
        r.check_executions();
        let c = r.cfg.cycles().innermost_cycle(bb(1)).unwrap();
        assert!(!r.cfg.cycles().is_reducible(c));
        let dump = r.u.dump(&r.p, &r.cfg);
        assert_eq!(r.u.has_irreducible_divergence(c), divergent, "{dump}");
        assert_eq!(r.u.has_temporal_divergence(c), divergent);
        for v in [a, b, a1, after, from_uniform, in_second_entry] {
            assert_eq!(r.div(v), divergent, "{v}: {dump}");
        }
        // Constants and always-uniform ops stay uniform, and so does what
        // lies outside the cycle and uses nothing from it.
        for v in [always_uniform, constant, outside] {
            assert!(!r.div(v), "{v}: {dump}");
        }
        // The branch inside keeps the condition rule.
        assert_eq!(r.reason(1), BranchReason::Uniform);
    }
}

#[test]
fn irreducible_cycle_with_divergent_branch_inside() {
    let mut f = Fun::new(4);
    let u = f.arg(0);
    let k = f.konst(0, 0);
    f.cond_br(0, u, (1, &[k]), (2, &[k]));
    let a = f.arg(1);
    let t = f.tid(1);
    let w = f.pure(1, &[u]);
    f.cond_br(1, t, (2, &[a]), (3, &[]));
    let b = f.arg(2);
    f.br(2, 1, &[b]);
    f.ret(3);
    let r = f.run();
    r.check_executions();
    let c = r.cfg.cycles().innermost_cycle(bb(1)).unwrap();
    // Only one successor of the divergent branch stays in the cycle: the
    // threads left in it took the same edge, so its arguments keep the
    // normal rules (uniform here, as LLVM says); the cycle is temporally
    // divergent.
    assert!(!r.u.has_irreducible_divergence(c));
    assert!(r.u.has_temporal_divergence(c));
    assert!(!r.div(a) && !r.div(b) && !r.div(w));
    assert_eq!(r.reason(0), BranchReason::Uniform);
}

#[test]
fn irreducible_cycle_split_inside_is_conservative() {
    // 0 -> {1, 2} uniformly; 1 -> {2, 3} divergently with 3 -> 2 and
    // 2 -> {1, 4}: both successors of the divergent branch lie in the
    // cycle {1, 2, 3}, so threads run it out of phase.
    let mut f = Fun::new(5);
    let u = f.arg(0);
    let k = f.konst(0, 0);
    f.cond_br(0, u, (1, &[k]), (2, &[k]));
    let a = f.arg(1);
    let t = f.tid(1);
    f.cond_br(1, t, (2, &[a]), (3, &[]));
    let b = f.arg(2);
    let v2 = f.pure(2, &[u]);
    f.cond_br(2, u, (1, &[b]), (4, &[]));
    let v3 = f.pure(3, &[u]);
    f.br(3, 2, &[k]);
    f.ret(4);
    let r = f.run();
    r.check_executions();
    let c = r.cfg.cycles().innermost_cycle(bb(1)).unwrap();
    assert!(r.u.has_irreducible_divergence(c));
    assert!(r.div(a) && r.div(b) && r.div(v2) && r.div(v3));
    // The branch on a uniform condition defined outside keeps its rule.
    assert_eq!(r.reason(2), BranchReason::Uniform);
}

#[test]
fn constants_and_identical_values_at_joins() {
    let mut f = Fun::new(4);
    let t = f.tid(0);
    let c = f.pure(0, &[t]);
    let a = f.arg(0);
    let v = f.pure(0, &[a]);
    let w = f.pure(0, &[t]);
    f.cond_br(0, c, (1, &[]), (2, &[]));
    let k5 = f.konst(1, 5);
    let k6 = f.konst(1, 6);
    f.br(1, 3, &[k5, k5, v, w, k6]);
    let k5b = f.konst(2, 5);
    let k7 = f.konst(2, 7);
    f.br(2, 3, &[k5b, k7, v, w, v]);
    let same_const = f.arg(3);
    let diff_const = f.arg(3);
    let same_value = f.arg(3);
    let same_divergent = f.arg(3);
    let const_vs_value = f.arg(3);
    f.ret(3);
    let r = f.run();
    assert!(r.u.is_uniform(same_const));
    assert!(r.div(diff_const));
    assert!(r.u.is_uniform(same_value));
    assert!(r.div(same_divergent));
    assert!(r.div(const_vs_value));
}

#[test]
fn marks_win_both_ways() {
    for (mark, divergent_cond) in [(BranchMark::Uniform, true), (BranchMark::Divergent, false)] {
        let mut f = Fun::new(4);
        let cond = if divergent_cond { f.tid(0) } else { f.arg(0) };
        let k1 = f.konst(0, 1);
        let k2 = f.konst(0, 2);
        f.term(0, Some(cond), Some(mark), &[(1, &[]), (2, &[])]);
        f.br(1, 3, &[k1]);
        f.br(2, 3, &[k2]);
        let x = f.arg(3);
        f.ret(3);
        let r = f.run();
        assert_eq!(r.div(cond), divergent_cond);
        match mark {
            BranchMark::Uniform => {
                assert_eq!(r.reason(0), BranchReason::MarkedUniform);
                assert!(r.u.is_uniform(x));
                assert!(r.joins(0).is_empty());
            }
            BranchMark::Divergent => {
                assert_eq!(r.reason(0), BranchReason::MarkedDivergent);
                assert!(r.div(x));
                assert_eq!(r.joins(0), vec![3]);
            }
        }
    }
}

#[test]
fn duplicate_successor_with_different_values() {
    // cond_br %c, ^1(%x), ^1(%y)
    for (divergent, same) in [(true, false), (false, false), (true, true)] {
        let mut f = Fun::new(2);
        let c = if divergent { f.tid(0) } else { f.arg(0) };
        let x = f.konst(0, 1);
        let y = if same { x } else { f.konst(0, 2) };
        f.cond_br(0, c, (1, &[x]), (1, &[y]));
        let a = f.arg(1);
        f.ret(1);
        let r = f.run();
        assert_eq!(
            r.div(a),
            divergent && !same,
            "divergent={divergent} same={same}"
        );
        if divergent {
            assert_eq!(r.joins(0), vec![1]);
        }
    }
}

#[test]
fn branch_without_condition_is_divergent() {
    let mut f = Fun::new(4);
    let k1 = f.konst(0, 1);
    let k2 = f.konst(0, 2);
    f.term(0, None, None, &[(1, &[]), (2, &[])]);
    f.br(1, 3, &[k1]);
    f.br(2, 3, &[k2]);
    let x = f.arg(3);
    f.ret(3);
    let r = f.run();
    assert_eq!(r.reason(0), BranchReason::NoCondition);
    assert!(r.div(x));
}

#[test]
fn unreachable_blocks_are_uniform() {
    let mut f = Fun::new(6);
    let u = f.arg(0);
    let k1 = f.konst(0, 1);
    f.cond_br(0, u, (1, &[]), (2, &[]));
    f.br(1, 3, &[k1]);
    f.br(2, 3, &[k1]);
    let x = f.arg(3);
    f.ret(3);
    // Block 4 is unreachable; it forwards a thread id into block 3.
    let dead_arg = f.darg(4);
    let t = f.tid(4);
    let c = f.pure(4, &[t, dead_arg]);
    f.cond_br(4, c, (3, &[t]), (5, &[]));
    f.ret(5);
    let r = f.run();
    assert!(r.u.is_uniform(x));
    for v in [dead_arg, t, c] {
        assert!(r.u.is_uniform(v));
    }
    assert_eq!(r.reason(4), BranchReason::Unreachable);
    assert_eq!(r.reason(5), BranchReason::Unreachable);
    assert_eq!(r.u.num_divergent_values(), 0);
}

#[test]
fn infinite_loops() {
    let mut f = Fun::new(4);
    let t = f.tid(0);
    let c = f.pure(0, &[t]);
    let k0 = f.konst(0, 0);
    let k1 = f.konst(0, 1);
    let k2 = f.konst(0, 2);
    f.cond_br(0, c, (1, &[k0]), (3, &[]));
    let i = f.arg(1);
    let d = f.pure(1, &[i, t]);
    f.cond_br(1, d, (2, &[k1]), (2, &[k2]));
    let j = f.arg(2);
    f.br(2, 1, &[j]);
    f.ret(3);
    let r = f.run();
    assert_eq!(r.cfg.post_dominators().ipdom(bb(0)), None);
    assert!(r.joins(0).is_empty(), "sides never meet");
    assert_eq!(r.joins(1), vec![2]);
    assert!(r.div(j) && r.div(i));
    // A cycle without exits has no divergent exit.
    assert!(!r.u.has_temporal_divergence(r.cycle(1)));
}

#[test]
fn continue_that_skips_the_post_dominator() {
    // H/A = 1: cond_br %d, P = 2, L = 3(k0)
    // P = 2: cond_br %e, L = 3(k1), X = 4      L = 3: br H
    let mut f = Fun::new(5);
    let t = f.tid(0);
    let u = f.arg(0);
    let k0 = f.konst(0, 0);
    let k1 = f.konst(0, 1);
    f.br(0, 1, &[k0]);
    let i = f.arg(1);
    let i2 = f.pure(1, &[i, k1]);
    let d = f.pure(1, &[i2, t]);
    f.cond_br(1, d, (2, &[]), (3, &[k0]));
    let e = f.pure(2, &[i2, u]);
    f.cond_br(2, e, (3, &[k1]), (4, &[]));
    let y = f.arg(3);
    f.br(3, 1, &[i2]);
    let s = f.pure(4, &[i2]);
    f.ret(4);
    let r = f.run();
    assert_eq!(r.cfg.post_dominators().ipdom(bb(1)), Some(bb(2)));
    let dump = r.u.dump(&r.p, &r.cfg);
    // L = 3 is a join (1 -> 3 vs 1 -> 2 -> 3), reached from ipdom(1) = 2;
    // threads going round leave through X = 4 later than the others.
    assert!(r.div(y), "{dump}");
    assert!(r.u.has_temporal_divergence(r.cycle(1)), "{dump}");
    assert!(r.div(s), "{dump}");
    assert!(
        r.u.is_uniform(i) && r.u.is_uniform(i2) && r.u.is_uniform(e),
        "{dump}"
    );
    assert_eq!(r.reason(2), BranchReason::Uniform);
    assert_eq!(r.joins(1), vec![3, 4]);
}

#[test]
fn nested_loops_flag_only_the_inner_one() {
    let mut f = Fun::new(5);
    let t = f.tid(0);
    let k0 = f.konst(0, 0);
    let k1 = f.konst(0, 1);
    let n = f.arg(0);
    f.br(0, 1, &[k0]);
    let o = f.arg(1);
    f.br(1, 2, &[k0]);
    let i = f.arg(2);
    let i2 = f.pure(2, &[i, k1]);
    let d = f.pure(2, &[i2, t]);
    f.cond_br(2, d, (2, &[i2]), (3, &[]));
    let x = f.pure(3, &[i2]);
    let o2 = f.pure(3, &[o, k1]);
    let oc = f.pure(3, &[o2, n]);
    f.cond_br(3, oc, (1, &[o2]), (4, &[o2]));
    let res = f.arg(4);
    f.ret(4);
    let r = f.run();
    let dump = r.u.dump(&r.p, &r.cfg);
    assert!(r.u.has_temporal_divergence(r.cycle(2)), "{dump}");
    assert!(!r.u.has_temporal_divergence(r.cycle(1)), "{dump}");
    assert!(r.div(x));
    assert!(
        r.u.is_uniform(o) && r.u.is_uniform(o2) && r.u.is_uniform(oc) && r.u.is_uniform(res),
        "{dump}"
    );
    assert_eq!(r.reason(3), BranchReason::Uniform);
}

#[test]
fn missing_forwarded_operands_are_divergent() {
    let mut f = Fun::new(2);
    let k = f.konst(0, 0);
    f.br(0, 1, &[k]);
    let a = f.arg(1);
    let b = f.arg(1);
    f.ret(1);
    let r = f.run();
    assert!(r.u.is_uniform(a));
    assert!(r.div(b));
}

#[test]
fn entry_block_in_a_loop() {
    // The entry as a join: the caller is an extra incoming edge.
    let mut f = Fun::new(4);
    let a = f.arg(0);
    let t = f.tid(0);
    let k = f.konst(0, 1);
    f.cond_br(0, t, (1, &[]), (2, &[]));
    f.br(1, 0, &[k]);
    let c = f.pure(2, &[a]);
    f.cond_br(2, c, (0, &[k]), (3, &[]));
    f.ret(3);
    let r = f.run();
    assert!(r.div(a), "{}", r.u.dump(&r.p, &r.cfg));
    // A self-loop on the entry with the argument forwarded to itself.
    let mut f = Fun::new(2);
    let a = f.arg(0);
    let t = f.tid(0);
    f.cond_br(0, t, (0, &[a]), (1, &[]));
    let s = f.pure(1, &[a]);
    f.ret(1);
    let r = f.run();
    assert!(r.u.is_uniform(a));
    assert!(r.u.has_temporal_divergence(r.cycle(0)));
    assert!(r.div(s));
}

#[test]
fn uniform_ops_stop_divergence() {
    let mut f = Fun::new(1);
    let t = f.tid(0);
    let ballot = f.op(0, OpKind::Uniform, &[t]);
    let x = f.pure(0, &[ballot]);
    let y = f.pure(0, &[x, t]);
    f.ret(0);
    let r = f.run();
    assert!(r.u.is_uniform(ballot) && r.u.is_uniform(x));
    assert!(r.div(y));
    match r.p.value_def(ballot) {
        ValueDef::Result { op, index } => {
            assert_eq!(index, 0);
            assert_eq!(r.p.op_kind(op), OpKind::Uniform);
            assert_eq!(r.p.op_operands(op), &[t]);
            assert_eq!(r.p.uses(t).len(), 2);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn recompute_and_clear_reuse_the_object() {
    let mut f = Fun::new(4);
    let t = f.tid(0);
    f.cond_br(0, t, (1, &[]), (2, &[]));
    let k1 = f.konst(1, 1);
    f.br(1, 3, &[k1]);
    let k2 = f.konst(2, 2);
    f.br(2, 3, &[k2]);
    let x = f.arg(3);
    f.ret(3);
    let big = f.run();
    let mut f = Fun::new(1);
    let a = f.arg(0);
    f.ret(0);
    let small = f.run();
    let mut u = UniformityInfo::new();
    u.compute(&big.p, &big.g, &big.cfg);
    assert!(u.is_divergent(x));
    u.compute(&small.p, &small.g, &small.cfg);
    assert!(u.is_uniform(a));
    assert_eq!(u.num_divergent_values(), 0);
    assert!(u.join_blocks(bb(0)).is_empty());
    u.compute(&big.p, &big.g, &big.cfg);
    assert_eq!(
        u.divergent_values().collect::<Vec<_>>(),
        big.u.divergent_values().collect::<Vec<_>>()
    );
    assert_eq!(u.stats(), big.u.stats());
    u.clear();
    assert_eq!(u.num_divergent_values(), 0);
    // The builder is reusable too.
    let mut b = ProgramBuilder::new();
    b.begin(2);
    b.add_argument(bb(1), ArgumentKind::Uniform);
    b.set_terminator(bb(0), None, None, &[]);
    assert_eq!(b.finish().num_values(), 1);
    b.clear();
    assert_eq!(b.finish().num_blocks(), 0);
}

#[test]
#[should_panic(expected = "does not match the graph")]
fn slot_count_mismatch_panics() {
    let mut f = Fun::new(3);
    f.term(0, None, None, &[(1, &[]), (2, &[])]);
    f.ret(1);
    f.ret(2);
    let r = f.run();
    // Rebuild the program with a single slot on block 0.
    let mut b = ProgramBuilder::new();
    b.begin(3);
    b.set_terminator(bb(0), None, None, &[&[]]);
    let p = b.finish();
    UniformityInfo::new().compute(p, &r.g, &r.cfg);
}

// ---------------------------------------------------------------------------
// Random programs.

/// A small random graph: mostly forward edges, some backward (cycles,
/// irreducible ones included), duplicates, exits, unreachable blocks.
fn small_graph(rng: &mut SplitMix64, acyclic: bool) -> CfgGraph {
    let n = if acyclic {
        rng.range(3, 10)
    } else {
        rng.range(2, 14)
    };
    let mut edges = Vec::new();
    for i in 0..n - 1 {
        let deg = match rng.below(100) {
            0..=7 => 0,
            8..=44 => 1,
            45..=89 => 2,
            _ => rng.range(3, 4),
        };
        for _ in 0..deg {
            let to = if !acyclic && rng.chance(200) {
                rng.range(0, n - 1)
            } else {
                rng.range(i + 1, n - 1)
            };
            edges.push((i as u32, to as u32));
        }
    }
    CfgGraph::from_edges(n, bb(0), &edges)
}

fn params(rng: &mut SplitMix64) -> RandomProgramParams {
    RandomProgramParams {
        ops_per_block: (1, 4),
        args_pm: 600,
        source_pm: rng.below(120),
        uniform_pm: 80,
        constant_pm: 250,
        divergent_arg_pm: rng.below(60),
        mark_pm: rng.below(150),
        no_condition_pm: rng.below(60),
        missing_forward_pm: rng.below(40),
        local_pm: 500,
        force_divergent_arg: None,
    }
}

fn analyze(g: &CfgGraph, p: &Program) -> (CfgAnalysis, UniformityInfo) {
    let cfg = CfgAnalysis::build(g);
    let mut u = UniformityInfo::new();
    u.compute(p, g, &cfg);
    (cfg, u)
}

/// Key of a forwarded value for the "identical incoming values" rule.
fn same_key(p: &Program, v: ValueId) -> (u8, u64, u32) {
    match p.constant_key(v) {
        Some((k, i)) => (1, k, i),
        None => (0, v.index() as u64, 0),
    }
}

/// Arguments of `j` whose incoming values (over reachable edges) are not
/// all identical.
fn differing_args(p: &Program, g: &CfgGraph, cfg: &CfgAnalysis, j: BlockId) -> Vec<ValueId> {
    let args = p.block_arguments(j);
    (0..args.len())
        .filter(|&k| {
            if j == g.entry() {
                return true;
            }
            let mut keys = BTreeSet::new();
            for &pred in g.predecessors(j) {
                if !cfg.traversal().is_reachable(pred) {
                    continue;
                }
                for (slot, &s) in g.successors(pred).iter().enumerate() {
                    if s == j {
                        match p.forwarded(pred, slot).get(k) {
                            Some(&v) => keys.insert(same_key(p, v)),
                            None => keys.insert((2, 0, 0)),
                        };
                    }
                }
            }
            keys.len() > 1
        })
        .map(|k| args[k])
        .collect()
}

/// Invariants (b) data dependence, (c) joins, and temporal uses.
fn check_invariants(g: &CfgGraph, p: &Program, cfg: &CfgAnalysis, u: &UniformityInfo) {
    let reach = |b: BlockId| cfg.traversal().is_reachable(b);
    // (b) Everything reachable from a source through Pure ops and edges.
    let mut dep = vec![false; p.num_values()];
    let mut work = Vec::new();
    for i in 0..p.num_values() {
        let v = ValueId::new(i);
        let source = match p.value_def(v) {
            ValueDef::Argument { kind, .. } => kind == ArgumentKind::Divergent,
            ValueDef::Result { op, .. } => p.op_kind(op) == OpKind::Source,
        };
        if source && reach(p.value_block(v)) {
            dep[i] = true;
            work.push(v);
        }
    }
    while let Some(v) = work.pop() {
        for &use_ in p.uses(v) {
            let targets: Vec<ValueId> = match use_ {
                Use::Operand { op, .. }
                    if p.op_kind(op) == OpKind::Pure && reach(p.op_block(op)) =>
                {
                    p.op_results(op).to_vec()
                }
                Use::Forwarded { block, slot, index } if reach(block) => {
                    vec![p.block_arguments(g.successors(block)[slot as usize])[index as usize]]
                }
                _ => vec![],
            };
            for t in targets {
                if !dep[t.index()] {
                    dep[t.index()] = true;
                    work.push(t);
                }
            }
        }
    }
    for i in 0..p.num_values() {
        assert!(
            !dep[i] || u.is_divergent(ValueId::new(i)),
            "%{i} depends on a source but is uniform"
        );
    }
    for i in 0..g.num_blocks() {
        let b = bb(i);
        if !reach(b) {
            assert_eq!(u.branch_reason(b), BranchReason::Unreachable);
            for &a in p.block_arguments(b) {
                assert!(u.is_uniform(a));
            }
            continue;
        }
        // Branch rule.
        let slots = g.successors(b).len();
        let expected_divergent = slots >= 2
            && match p.mark(b) {
                Some(BranchMark::Uniform) => false,
                Some(BranchMark::Divergent) => true,
                None => p
                    .condition(b)
                    .is_none_or(|c| u.is_divergent_use(p, cfg, c, b)),
            };
        assert_eq!(
            u.is_divergent_branch(b),
            expected_divergent,
            "{b}: {:?}",
            u.branch_reason(b)
        );
        // (c) Joins of divergent branches.
        if u.is_divergent_branch(b) {
            for &j in u.join_blocks(b) {
                for a in differing_args(p, g, cfg, j) {
                    assert!(u.is_divergent(a), "{a} of join {j} of {b}");
                }
            }
        } else {
            assert!(u.join_blocks(b).is_empty());
        }
    }
    // Temporal: a Pure op outside a flagged cycle using a value from it.
    for i in 0..p.num_ops() {
        let op = OpId::new(i);
        if p.op_kind(op) != OpKind::Pure || !reach(p.op_block(op)) {
            continue;
        }
        if p.op_operands(op)
            .iter()
            .any(|&v| u.is_divergent_use(p, cfg, v, p.op_block(op)))
        {
            for &r in p.op_results(op) {
                assert!(u.is_divergent(r), "{r}: temporal use not propagated");
            }
        }
    }
}

fn permuted(rng: &mut SplitMix64, g: &CfgGraph) -> (CfgGraph, Vec<u32>) {
    let n = g.num_blocks();
    let mut perm: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        perm.swap(i, j);
    }
    let edges: Vec<(u32, u32)> = g
        .edges()
        .map(|(a, b)| (perm[a.index()], perm[b.index()]))
        .collect();
    (
        CfgGraph::from_edges(n, BlockId::new(perm[g.entry().index()] as usize), &edges),
        perm,
    )
}

fn cycle_headers(
    cfg: &CfgAnalysis,
    u: &UniformityInfo,
    map: &dyn Fn(BlockId) -> BlockId,
) -> BTreeSet<(BlockId, bool, bool)> {
    cfg.cycles()
        .cycles()
        .map(|c| {
            (
                map(cfg.cycles().header(c)),
                u.has_temporal_divergence(c),
                u.has_irreducible_divergence(c),
            )
        })
        .collect()
}

fn random_case(rng: &mut SplitMix64, i: usize) -> CfgGraph {
    if i % 10 == 9 {
        let n = rng.range(20, 120);
        realistic_cfg(rng, n)
    } else {
        small_graph(rng, false)
    }
}

#[test]
fn random_programs_satisfy_invariants_and_ignore_block_numbering() {
    let mut rng = SplitMix64::new(0x5EED_0001);
    let mut builder = ProgramBuilder::new();
    let mut totals = UniformityStats::default();
    for i in 0..2000 {
        let g = random_case(&mut rng, i);
        let cfg = CfgAnalysis::build(&g);
        let prm = params(&mut rng);
        let seed = rng.next_u64();
        random_program(
            &mut SplitMix64::new(seed),
            &g,
            &cfg,
            &prm,
            None,
            &mut builder,
        );
        let p = builder.program().clone();
        let (cfg, u) = analyze(&g, &p);
        check_invariants(&g, &p, &cfg, &u);
        let s = u.stats();
        totals.divergent_branches += s.divergent_branches;
        totals.joins += s.joins;
        totals.temporal_cycles += s.temporal_cycles;
        totals.irreducible_cycles += s.irreducible_cycles;
        // (d) Renumber the blocks: same calls, same value ids.
        let (g2, perm) = permuted(&mut rng, &g);
        let cfg2 = CfgAnalysis::build(&g2);
        random_program(
            &mut SplitMix64::new(seed),
            &g,
            &cfg,
            &prm,
            Some(&perm),
            &mut builder,
        );
        let p2 = builder.program();
        let mut u2 = UniformityInfo::new();
        u2.compute(p2, &g2, &cfg2);
        let map = |b: BlockId| BlockId::new(perm[b.index()] as usize);
        for v in 0..p.num_values() {
            let v = ValueId::new(v);
            assert_eq!(
                u.is_divergent(v),
                u2.is_divergent(v),
                "case {i}: {v} depends on numbering"
            );
        }
        for b in 0..g.num_blocks() {
            let b = bb(b);
            assert_eq!(
                u.branch_reason(b),
                u2.branch_reason(map(b)),
                "case {i}: {b}"
            );
            let j1: BTreeSet<BlockId> = u.join_blocks(b).iter().map(|&j| map(j)).collect();
            let j2: BTreeSet<BlockId> = u2.join_blocks(map(b)).iter().copied().collect();
            assert_eq!(j1, j2, "case {i}: joins of {b}");
        }
        assert_eq!(
            cycle_headers(&cfg, &u, &map),
            cycle_headers(&cfg2, &u2, &|b| b),
            "case {i}: cycles"
        );
    }
    // The random programs exercise every rule.
    assert!(
        totals.divergent_branches > 1000 && totals.joins > 1000,
        "{totals:?}"
    );
    assert!(
        totals.temporal_cycles > 100 && totals.irreducible_cycles > 20,
        "{totals:?}"
    );
}

#[test]
fn one_more_divergent_argument_is_monotone() {
    let mut rng = SplitMix64::new(0x5EED_0002);
    let mut builder = ProgramBuilder::new();
    let mut grew = 0;
    for i in 0..2000 {
        let g = random_case(&mut rng, i);
        let cfg = CfgAnalysis::build(&g);
        let mut prm = params(&mut rng);
        let seed = rng.next_u64();
        random_program(
            &mut SplitMix64::new(seed),
            &g,
            &cfg,
            &prm,
            None,
            &mut builder,
        );
        let p = builder.program().clone();
        let num_args = (0..p.num_values())
            .filter(|&v| matches!(p.value_def(ValueId::new(v)), ValueDef::Argument { .. }))
            .count();
        let (_, u) = analyze(&g, &p);
        prm.force_divergent_arg = Some(rng.below(num_args as u64) as usize);
        random_program(
            &mut SplitMix64::new(seed),
            &g,
            &cfg,
            &prm,
            None,
            &mut builder,
        );
        let p2 = builder.program();
        let mut u2 = UniformityInfo::new();
        u2.compute(p2, &g, &cfg);
        for v in 0..p.num_values() {
            let v = ValueId::new(v);
            assert!(
                !u.is_divergent(v) || u2.is_divergent(v),
                "case {i}: {v} became uniform"
            );
        }
        for b in 0..g.num_blocks() {
            let b = bb(b);
            assert!(
                !u.is_divergent_branch(b) || u2.is_divergent_branch(b),
                "case {i}: {b} became uniform"
            );
        }
        for c in cfg.cycles().cycles() {
            assert!(!u.has_temporal_divergence(c) || u2.has_temporal_divergence(c));
        }
        grew += (u2.num_divergent_values() > u.num_divergent_values()) as usize;
    }
    assert!(
        grew > 300,
        "the extra divergent argument rarely mattered: {grew}"
    );
}

// ---------------------------------------------------------------------------
// Brute force on acyclic graphs.

/// Joins of a branch at `b` by definition: blocks reachable from two
/// different successor slots along paths that share only the join.
fn brute_force_joins(g: &CfgGraph, b: BlockId) -> BTreeSet<BlockId> {
    // All paths from each successor, as (end, block set).
    let mut per_slot: Vec<Vec<(usize, u32)>> = Vec::new();
    for &s in g.successors(b) {
        let mut paths = Vec::new();
        let mut stack = vec![(s.index(), 1u32 << s.index())];
        while let Some((x, mask)) = stack.pop() {
            paths.push((x, mask));
            for &y in g.successors(bb(x)) {
                stack.push((y.index(), mask | 1 << y.index()));
            }
        }
        per_slot.push(paths);
    }
    let mut joins = BTreeSet::new();
    for i in 0..per_slot.len() {
        for j in i + 1..per_slot.len() {
            for &(e1, m1) in &per_slot[i] {
                for &(e2, m2) in &per_slot[j] {
                    if e1 == e2 && m1 & m2 == 1 << e1 {
                        joins.insert(bb(e1));
                    }
                }
            }
        }
    }
    joins
}

/// The whole analysis restated for acyclic graphs with brute-force joins.
fn reference_acyclic(g: &CfgGraph, p: &Program, cfg: &CfgAnalysis) -> Vec<bool> {
    let reach = |b: BlockId| cfg.traversal().is_reachable(b);
    let mut div = vec![false; p.num_values()];
    let set = |div: &mut Vec<bool>, v: ValueId| {
        let changed = !div[v.index()] && reach(p.value_block(v));
        div[v.index()] |= changed;
        changed
    };
    loop {
        let mut changed = false;
        for i in 0..p.num_values() {
            let v = ValueId::new(i);
            let source = match p.value_def(v) {
                ValueDef::Argument { kind, .. } => kind == ArgumentKind::Divergent,
                ValueDef::Result { op, .. } => match p.op_kind(op) {
                    OpKind::Source => true,
                    OpKind::Pure => p.op_operands(op).iter().any(|o| div[o.index()]),
                    _ => false,
                },
            };
            if source {
                changed |= set(&mut div, v);
            }
        }
        for i in 0..g.num_blocks() {
            let b = bb(i);
            if !reach(b) {
                continue;
            }
            for (slot, &s) in g.successors(b).iter().enumerate() {
                let fwd = p.forwarded(b, slot);
                for (k, &a) in p.block_arguments(s).iter().enumerate() {
                    if fwd.get(k).is_none_or(|v| div[v.index()]) {
                        changed |= set(&mut div, a);
                    }
                }
            }
            let divergent = g.successors(b).len() >= 2
                && match p.mark(b) {
                    Some(BranchMark::Uniform) => false,
                    Some(BranchMark::Divergent) => true,
                    None => p.condition(b).is_none_or(|c| div[c.index()]),
                };
            if divergent {
                for j in brute_force_joins(g, b) {
                    for a in differing_args(p, g, cfg, j) {
                        changed |= set(&mut div, a);
                    }
                }
            }
        }
        if !changed {
            return div;
        }
    }
}

#[test]
fn acyclic_joins_match_brute_force() {
    let mut rng = SplitMix64::new(0x5EED_0003);
    let mut builder = ProgramBuilder::new();
    let mut checked = 0;
    for _ in 0..5000 {
        let g = small_graph(&mut rng, true);
        let cfg = CfgAnalysis::build(&g);
        let prm = RandomProgramParams {
            ops_per_block: (2, 5),
            source_pm: 400,
            constant_pm: 100,
            divergent_arg_pm: 200,
            no_condition_pm: 400,
            mark_pm: 50,
            local_pm: 800,
            ..params(&mut rng)
        };
        random_program(&mut rng, &g, &cfg, &prm, None, &mut builder);
        let p = builder.program();
        let mut u = UniformityInfo::new();
        u.compute(p, &g, &cfg);
        for b in 0..g.num_blocks() {
            let b = bb(b);
            if u.is_divergent_branch(b) {
                let mine: BTreeSet<BlockId> = u.join_blocks(b).iter().copied().collect();
                assert_eq!(
                    mine,
                    brute_force_joins(&g, b),
                    "joins of {b} in {:?}",
                    g.edges().collect::<Vec<_>>()
                );
                checked += 1;
            }
        }
        let reference = reference_acyclic(&g, p, &cfg);
        for v in 0..p.num_values() {
            assert_eq!(
                u.is_divergent(ValueId::new(v)),
                reference[v],
                "%{v}\n{}",
                u.dump(p, &cfg)
            );
        }
    }
    assert!(checked > 4000, "{checked}");
}

/// Joins by definition on the cycle-collapsed graph `G_B` of
/// [`super::sync`], built explicitly: cycles not containing `b` are single
/// nodes (their header), headers of cycles containing `b` are sinks
/// (node `n + cycle`) that lead to the cycle's exits.
fn brute_force_joins_collapsed(g: &CfgGraph, cfg: &CfgAnalysis, b: BlockId) -> BTreeSet<BlockId> {
    let f = cfg.cycles();
    let n = g.num_blocks();
    let node = |x: BlockId| -> usize {
        let mut outermost = None;
        let mut c = f.innermost_cycle(x);
        while let Some(cc) = c {
            if f.contains(cc, b) {
                if outermost.is_none() && f.header(cc) == x {
                    return n + cc.index();
                }
                break;
            }
            outermost = Some(cc);
            c = f.parent(cc);
        }
        outermost.map_or(x.index(), |d| f.header(d).index())
    };
    let succs = |v: usize| -> Vec<usize> {
        let targets: Vec<BlockId> = if v >= n {
            f.exit_blocks(CycleId::new(v - n)).to_vec()
        } else {
            let x = bb(v);
            match f.innermost_cycle(x) {
                Some(c) if !f.contains(c, b) => {
                    let mut d = c;
                    while let Some(p) = f.parent(d) {
                        if f.contains(p, b) {
                            break;
                        }
                        d = p;
                    }
                    f.exit_blocks(d).to_vec()
                }
                _ => g.successors(x).to_vec(),
            }
        };
        targets.into_iter().map(node).collect()
    };
    let mut per_slot: Vec<Vec<(usize, u64)>> = Vec::new();
    for &s in g.successors(b) {
        let s = node(s);
        let mut paths = Vec::new();
        let mut stack = vec![(s, 1u64 << s)];
        while let Some((x, mask)) = stack.pop() {
            paths.push((x, mask));
            for y in succs(x) {
                assert!(mask & 1 << y == 0, "G_B has a cycle");
                stack.push((y, mask | 1 << y));
            }
        }
        per_slot.push(paths);
    }
    let mut joins = BTreeSet::new();
    for i in 0..per_slot.len() {
        for j in i + 1..per_slot.len() {
            for &(e1, m1) in &per_slot[i] {
                for &(e2, m2) in &per_slot[j] {
                    if e1 == e2 && m1 & m2 == 1 << e1 {
                        joins.insert(if e1 >= n {
                            f.header(CycleId::new(e1 - n))
                        } else {
                            bb(e1)
                        });
                    }
                }
            }
        }
    }
    joins
}

#[test]
fn cyclic_joins_match_the_collapsed_graph_definition() {
    let mut rng = SplitMix64::new(0x5EED_0004);
    let mut builder = ProgramBuilder::new();
    let mut checked = 0;
    let mut cyclic = 0;
    for _ in 0..3000 {
        let g = small_graph(&mut rng, false);
        let cfg = CfgAnalysis::build(&g);
        if g.num_blocks() + cfg.cycles().num_cycles() > 60 {
            continue;
        }
        let prm = RandomProgramParams {
            no_condition_pm: 1000,
            ..params(&mut rng)
        };
        random_program(&mut rng, &g, &cfg, &prm, None, &mut builder);
        let p = builder.program();
        let mut u = UniformityInfo::new();
        u.compute(p, &g, &cfg);
        for b in 0..g.num_blocks() {
            let b = bb(b);
            if u.is_divergent_branch(b) {
                let mine: BTreeSet<BlockId> = u.join_blocks(b).iter().copied().collect();
                let expected = brute_force_joins_collapsed(&g, &cfg, b);
                assert_eq!(
                    mine,
                    expected,
                    "joins of {b} in {:?}",
                    g.edges().collect::<Vec<_>>()
                );
                checked += 1;
                cyclic += cfg.cycles().innermost_cycle(b).is_some() as usize;
            }
        }
    }
    assert!(checked > 5000 && cyclic > 1000, "{checked} {cyclic}");
}

// ---------------------------------------------------------------------------
// Execution oracle: run threads independently and compare them at equal
// dynamic instances.
//
// The dynamic instance of a block execution is the block plus the
// iteration counter of every cycle containing it (outermost first); a
// counter restarts when the thread enters the cycle from outside and
// increments when it takes an edge to the header from inside. (Between
// two header visits a block runs at most once, so this names executions
// uniquely.) Everything the analysis calls uniform must be equal across
// the threads executing the same instance: values at their definition,
// operands at their use (`is_divergent_use`), the slot taken by uniform
// branches. Sources and unknown values are thread-specific hashes;
// `Uniform` ops and uniformly marked branches depend only on the instance
// (the promise the analysis trusts).

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn mix_all(items: &[u64]) -> u64 {
    items.iter().fold(0x1234_5678, |h, &x| mix(h ^ x))
}

/// Runs `threads` threads for at most `steps` blocks each; panics on the
/// first instance where a value called uniform differs. Returns how many
/// instance comparisons were made.
fn check_by_execution(
    g: &CfgGraph,
    cfg: &CfgAnalysis,
    p: &Program,
    u: &UniformityInfo,
    threads: u64,
    steps: usize,
) -> usize {
    use std::collections::HashMap;
    let f = cfg.cycles();
    let mut seen: HashMap<(BlockId, Vec<u32>), (u64, Vec<u64>)> = HashMap::new();
    let mut compared = 0;
    for t in 0..threads {
        let mut val: Vec<Option<u64>> = vec![None; p.num_values()];
        let mut counter = vec![0u32; f.num_cycles()];
        let mut block = g.entry();
        let mut prev: Option<BlockId> = None;
        for &a in p.block_arguments(block) {
            val[a.index()] = Some(match p.value_def(a) {
                ValueDef::Argument {
                    kind: ArgumentKind::Divergent,
                    ..
                } => mix_all(&[1, t, a.index() as u64]),
                _ => mix_all(&[2, a.index() as u64]),
            });
        }
        for step in 0..steps {
            // Instance key.
            let mut chain = Vec::new();
            let mut c = f.innermost_cycle(block);
            while let Some(cc) = c {
                chain.push(cc);
                c = f.parent(cc);
            }
            chain.reverse();
            for &cc in &chain {
                match prev {
                    Some(q) if f.contains(cc, q) => {
                        if f.header(cc) == block {
                            counter[cc.index()] += 1;
                        }
                    }
                    _ => counter[cc.index()] = 0,
                }
            }
            let key: Vec<u32> = chain.iter().map(|c| counter[c.index()]).collect();
            let instance = mix_all(
                &key.iter()
                    .map(|&k| k as u64)
                    .chain([block.index() as u64])
                    .collect::<Vec<_>>(),
            );
            let get = |val: &Vec<Option<u64>>, v: ValueId| {
                val[v.index()].unwrap_or_else(|| panic!("{v} undefined at {block}"))
            };
            let mut obs = Vec::new();
            for &a in p.block_arguments(block) {
                if u.is_uniform(a) {
                    obs.push(get(&val, a));
                }
            }
            for &op in p.block_ops(block) {
                let operands: Vec<u64> = p.op_operands(op).iter().map(|&v| get(&val, v)).collect();
                for (k, &v) in p.op_operands(op).iter().enumerate() {
                    if !u.is_divergent_use(p, cfg, v, block) {
                        obs.push(operands[k]);
                    }
                }
                for (i, &r) in p.op_results(op).iter().enumerate() {
                    let i = i as u64;
                    let x = match p.op_kind(op) {
                        OpKind::Source => mix_all(&[3, t, op.index() as u64, i, step as u64]),
                        OpKind::Pure => {
                            mix_all(&[[4, op.index() as u64, i].as_slice(), &operands].concat())
                        }
                        OpKind::Uniform => mix_all(&[5, op.index() as u64, i, instance]),
                        OpKind::Constant(k) => mix_all(&[6, k, i]),
                    };
                    val[r.index()] = Some(x);
                    if u.is_uniform(r) {
                        obs.push(x);
                    }
                }
            }
            let succs = g.successors(block);
            let cond = p.condition(block).map(|c| get(&val, c));
            if let (Some(c), Some(x)) = (p.condition(block), cond) {
                if !u.is_divergent_use(p, cfg, c, block) {
                    obs.push(x);
                }
            }
            let slot = if succs.len() < 2 {
                0
            } else {
                let per_thread = mix_all(&[7, t, block.index() as u64, step as u64]);
                let h = match (p.mark(block), cond) {
                    (Some(BranchMark::Uniform), _) => mix_all(&[8, instance]),
                    (_, Some(x)) => x,
                    (_, None) => per_thread,
                } as usize;
                h % succs.len()
            };
            if !u.is_divergent_branch(block) {
                obs.push(slot as u64);
            }
            match seen.get(&(block, key.clone())) {
                Some((first, expected)) => {
                    compared += 1;
                    assert_eq!(
                        &obs, expected,
                        "threads {first} and {t} differ at {block} instance {key:?}\n{}\nedges {:?}",
                        u.dump(p, cfg),
                        g.edges().collect::<Vec<_>>()
                    );
                }
                None => {
                    seen.insert((block, key), (t, obs));
                }
            }
            let Some(&next) = succs.get(slot) else { break };
            let fwd = p.forwarded(block, slot);
            let bound: Vec<u64> = (0..p.block_arguments(next).len())
                .map(|k| match fwd.get(k) {
                    Some(&v) => get(&val, v),
                    None => mix_all(&[9, t, next.index() as u64, k as u64, step as u64]),
                })
                .collect();
            for (k, &a) in p.block_arguments(next).iter().enumerate() {
                val[a.index()] = Some(bound[k]);
            }
            prev = Some(block);
            block = next;
        }
    }
    compared
}

#[test]
fn execution_agrees_with_uniformity() {
    let mut rng = SplitMix64::new(0x5EED_0005);
    let mut builder = ProgramBuilder::new();
    let mut compared = 0;
    for i in 0..2000 {
        let g = random_case(&mut rng, i);
        let cfg = CfgAnalysis::build(&g);
        let prm = RandomProgramParams {
            source_pm: rng.below(60),
            ..params(&mut rng)
        };
        random_program(&mut rng, &g, &cfg, &prm, None, &mut builder);
        let p = builder.program();
        let mut u = UniformityInfo::new();
        u.compute(p, &g, &cfg);
        compared += check_by_execution(&g, &cfg, p, &u, 8, 150);
    }
    assert!(compared > 20_000, "{compared}");
}

#[test]
fn benchmark_runs_small() {
    let report = bench::run_benchmark(20_000);
    assert!(report.contains("uniformity"), "{report}");
}

// ---------------------------------------------------------------------------
// The twin: useful-joins mode (saturation stops) against complete joins.

/// Compares the saturating analysis with the reference on `g`: same
/// values, branch reasons and divergent uses; each join list a
/// subsequence of the complete one; a cycle flag the reference sets and
/// the fast mode does not only where the rule was moot. Returns the
/// propagation work of both.
fn compare_twins(g: &CfgGraph, p: &Program) -> (u64, u64) {
    let cfg = CfgAnalysis::build(g);
    let mut reference = UniformityInfo::new();
    reference.compute(p, g, &cfg);
    let mut fast = UniformityInfo::new();
    fast.set_complete_joins(false);
    fast.compute(p, g, &cfg);
    let values = |u: &UniformityInfo| u.divergent_values().collect::<Vec<_>>();
    if fast.stats().irreducible_values_assumed > 0 {
        // The fast mode assumed an irreducible cycle entered divergently
        // (see "Saturation"): never less divergent than the reference.
        let fast_values: BTreeSet<_> = values(&fast).into_iter().collect();
        for v in values(&reference) {
            assert!(
                fast_values.contains(&v),
                "{v} divergent only in the reference"
            );
        }
        for b in 0..g.num_blocks() {
            let b = bb(b);
            assert!(
                !reference.branch_reason(b).is_divergent() || fast.branch_reason(b).is_divergent(),
                "branch {b} divergent only in the reference"
            );
        }
        return (
            fast.stats().propagation_work,
            reference.stats().propagation_work,
        );
    }
    assert_eq!(values(&fast), values(&reference), "divergent values");
    for b in 0..g.num_blocks() {
        let b = bb(b);
        assert_eq!(
            fast.branch_reason(b),
            reference.branch_reason(b),
            "reason of {b}"
        );
        let (f, r) = (fast.join_blocks(b), reference.join_blocks(b));
        let mut rest = r.iter();
        assert!(
            f.iter().all(|j| rest.any(|k| k == j)),
            "joins of {b}: {f:?} not a subsequence of {r:?}"
        );
    }
    let forest = cfg.cycles();
    for c in forest.cycles() {
        let (ft, rt) = (
            fast.has_temporal_divergence(c),
            reference.has_temporal_divergence(c),
        );
        assert!(!ft || rt, "temporal {c:?} only in the fast mode");
        let escaping_divergent = || {
            forest.blocks(c).iter().all(|&blk| {
                let values = p.block_arguments(blk).iter().copied().chain(
                    p.block_ops(blk)
                        .iter()
                        .filter(|&&op| !matches!(p.op_kind(op), OpKind::Constant(_)))
                        .flat_map(|&op| p.op_results(op).iter().copied()),
                );
                values.into_iter().collect::<Vec<_>>().into_iter().all(|v| {
                    fast.is_divergent(v)
                        || !p.uses(v).iter().any(|u| match *u {
                            Use::Operand { op, .. } => !forest.contains(c, p.op_block(op)),
                            Use::Condition { block } => !forest.contains(c, block),
                            Use::Forwarded { block, slot, .. } => {
                                cfg.traversal().is_reachable(block)
                                    && (!forest.contains(c, block)
                                        || !forest.contains(c, g.successors(block)[slot as usize]))
                            }
                        })
                })
            })
        };
        if rt && !ft {
            assert!(escaping_divergent(), "temporal {c:?} missing but not moot");
        }
        let (fi, ri) = (
            fast.has_irreducible_divergence(c),
            reference.has_irreducible_divergence(c),
        );
        assert!(!fi || ri, "irreducible {c:?} only in the fast mode");
        if ri && !fi {
            let all_tainted = forest.blocks(c).iter().all(|&blk| {
                let results = p
                    .block_ops(blk)
                    .iter()
                    .filter(|&&op| matches!(p.op_kind(op), OpKind::Pure | OpKind::Source))
                    .flat_map(|&op| p.op_results(op));
                p.block_arguments(blk)
                    .iter()
                    .chain(results)
                    .all(|&v| fast.is_divergent(v))
            });
            assert!(
                all_tainted && (ft || escaping_divergent()),
                "irreducible {c:?} missing but not moot"
            );
        }
    }
    // Every actual use (a moot cycle may stay unflagged in the fast mode:
    // hypothetical uses outside it are not answered alike).
    for v in 0..p.num_values() {
        let v = ValueId::new(v);
        for u in p.uses(v) {
            let users = match *u {
                Use::Operand { op, .. } => vec![p.op_block(op)],
                Use::Condition { block } => vec![block],
                Use::Forwarded { block, slot, .. } => {
                    if !cfg.traversal().is_reachable(block) {
                        continue;
                    }
                    vec![block, g.successors(block)[slot as usize]]
                }
            };
            for b in users {
                if cfg.traversal().is_reachable(b) {
                    assert_eq!(
                        fast.is_divergent_use(p, &cfg, v, b),
                        reference.is_divergent_use(p, &cfg, v, b),
                        "use of {v} in {b}"
                    );
                }
            }
        }
    }
    (
        fast.stats().propagation_work,
        reference.stats().propagation_work,
    )
}

#[test]
fn saturating_joins_agree_with_complete_joins_on_random_programs() {
    let mut rng = SplitMix64::new(0x5EED_0018);
    let mut builder = ProgramBuilder::new();
    for i in 0..3000 {
        let g = random_case(&mut rng, i);
        let cfg = CfgAnalysis::build(&g);
        let prm = params(&mut rng);
        random_program(&mut rng, &g, &cfg, &prm, None, &mut builder);
        compare_twins(&g, builder.program());
    }
}

#[test]
fn saturating_joins_agree_with_complete_joins_on_long_range_cfgs() {
    use crate::testing::long_range::{long_range_function, LongRangeShape, Signature};
    let mut rng = SplitMix64::new(0x5EED_0019);
    let mut builder = ProgramBuilder::new();
    let (mut fast_work, mut reference_work) = (0, 0);
    for seed in 0..400u64 {
        let blocks = 2 + rng.below(300) as usize;
        let shape = LongRangeShape {
            blocks,
            reach: if seed % 3 == 0 {
                0
            } else {
                2 + rng.below(40) as usize
            },
            divergent_per_mille: [700, 300, 950, 0][seed as usize % 4],
            back_edge_per_mille: [100, 300, 0][seed as usize % 3],
            return_per_mille: 5,
        };
        let (_, g) = long_range_function(seed, &shape, Signature::Bench);
        let cfg = CfgAnalysis::build(&g);
        let prm = RandomProgramParams {
            args_pm: 1000,
            ..params(&mut rng)
        };
        random_program(&mut rng, &g, &cfg, &prm, None, &mut builder);
        let (f, r) = compare_twins(&g, builder.program());
        fast_work += f;
        reference_work += r;
    }
    assert!(
        fast_work < reference_work,
        "saturation saved nothing: {fast_work} vs {reference_work}"
    );
}
