//! Random LLVM IR kernels on the amdgcn triple with nests of irreducible
//! cycles, for the gates of `irreducible_gate.rs`. Deterministic: a seed
//! gives one function.
//!
//! ```text
//! define amdgpu_kernel void @f<seed>(i32 %a, i32 %b, ptr addrspace(1) %out) {
//! bb0: %tid = call i32 @llvm.amdgcn.workitem.id.x()    ; the divergence source
//!      br label %<top region>
//! ```
//!
//! The control flow is a random region ([`Generator::region`]), built from
//! single blocks, sequences, if-else diamonds, reducible loops and
//! irreducible cycles:
//!
//! * an **irreducible cycle** is a ring of 2..=4 nodes (each a region, so
//!   cycles nest in cycles), entered at 2 or 3 of them from a dispatch
//!   (a chain of conditional branches, or a switch), with chords (a
//!   conditional branch of a node to another node than the next: threads
//!   split inside the cycle to two different blocks of it) and exits;
//! * a **reducible loop** has a preheader, a body region (cycles nest in
//!   loops) and a latch;
//! * every branch is divergent (on the thread id), uniform (on `%a`) or
//!   data-dependent (on any value in scope: a phi, a value from the cycle);
//! * loops and cycles may get extra exits (breaks from anywhere in the
//!   body), and some never exit (infinite loops; a function may have no
//!   return block at all).
//!
//! Values: every block with several predecessors may have phis, every
//! block computes a few `i32` values from uniform arguments (`add i32 %b,
//! 1`), the thread id, phis and the values of dominating blocks (which uses
//! in-cycle values after the cycle), sometimes through the always-uniform
//! `llvm.amdgcn.readfirstlane`, and may store one to `%out`. The operands
//! respect dominance (computed here), so the function verifies.

use std::fmt::Write;

/// SplitMix64: small, deterministic.
pub struct Rng(u64);

impl Rng {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5EED_1EE7_C0DE_CAFE)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound > 0`).
    pub fn below(&mut self, bound: usize) -> usize {
        ((self.next_u64() as u128 * bound as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: usize) -> bool {
        self.below(1000) < per_mille
    }

    fn pick<'s, T>(&mut self, items: &'s [T]) -> &'s T {
        &items[self.below(items.len())]
    }
}

/// How a conditional branch decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cond {
    /// On the thread id: divergent.
    Divergent,
    /// On the kernel argument `%a`: uniform.
    Uniform,
    /// On a random value in scope: whatever the analysis says.
    Data,
}

#[derive(Clone, Debug)]
enum Term {
    /// Not decided yet (a region's open exit).
    Open,
    Br(usize),
    CondBr(Cond, usize, usize),
    /// default, cases (all distinct).
    Switch(Cond, usize, Vec<usize>),
    Ret,
}

impl Term {
    fn successors(&self) -> Vec<usize> {
        match self {
            Term::Open | Term::Ret => Vec::new(),
            Term::Br(target) => vec![*target],
            Term::CondBr(_, a, b) => vec![*a, *b],
            Term::Switch(_, default, cases) => std::iter::once(*default)
                .chain(cases.iter().copied())
                .collect(),
        }
    }
}

/// A region under construction: its entry block and the block whose
/// terminator the caller sets (none: the region never exits).
#[derive(Clone, Copy)]
struct Region {
    entry: usize,
    exit: Option<usize>,
}

/// A cycle (loop or irreducible) that may get extra exits: its body blocks
/// and its exit block.
struct CycleInfo {
    body: std::ops::Range<usize>,
    exit: usize,
}

/// The shape parameters of one function.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Blocks above which regions stop growing (a soft limit).
    pub max_blocks: usize,
    /// Cycles nest at most this deep.
    pub max_cycle_depth: usize,
}

impl Shape {
    /// A random shape: regions stop growing past 6..=40 blocks; cycles nest
    /// 1..=3 deep (more through the loops the cycle nodes hold).
    pub fn random(rng: &mut Rng) -> Self {
        Shape {
            max_blocks: rng.range(6, 40),
            max_cycle_depth: rng.range(1, 3),
        }
    }
}

struct Generator {
    rng: Rng,
    shape: Shape,
    terms: Vec<Term>,
    cycles: Vec<CycleInfo>,
}

impl Generator {
    fn new_block(&mut self) -> usize {
        self.terms.push(Term::Open);
        self.terms.len() - 1
    }

    fn link(&mut self, from: usize, to: usize) {
        debug_assert!(matches!(self.terms[from], Term::Open));
        self.terms[from] = Term::Br(to);
    }

    fn cond(&mut self) -> Cond {
        match self.rng.below(10) {
            0..=3 => Cond::Divergent,
            4..=7 => Cond::Uniform,
            _ => Cond::Data,
        }
    }

    fn full(&self) -> bool {
        self.terms.len() >= self.shape.max_blocks
    }

    /// A random region at cycle depth `depth`; `may_hang`: it may never
    /// exit.
    fn region(&mut self, depth: usize, may_hang: bool) -> Region {
        if self.full() {
            let block = self.new_block();
            return Region {
                entry: block,
                exit: Some(block),
            };
        }
        let cycles_allowed = depth < self.shape.max_cycle_depth;
        let roll = self.rng.below(100);
        match roll {
            0..=14 => {
                let block = self.new_block();
                Region {
                    entry: block,
                    exit: Some(block),
                }
            }
            15..=29 => {
                let first = self.region(depth, false);
                let second = self.region(depth, may_hang);
                self.link(first.exit.expect("must exit"), second.entry);
                Region {
                    entry: first.entry,
                    exit: second.exit,
                }
            }
            30..=44 => self.diamond(depth, may_hang),
            45..=64 if cycles_allowed => self.reducible_loop(depth, may_hang),
            _ if cycles_allowed => self.irreducible(depth, may_hang),
            _ => self.diamond(depth, may_hang),
        }
    }

    fn diamond(&mut self, depth: usize, may_hang: bool) -> Region {
        let head = self.new_block();
        let then = self.region(depth, may_hang);
        let other = if self.rng.chance(300) {
            None
        } else {
            Some(self.region(depth, may_hang))
        };
        let exits: Vec<usize> = std::iter::once(then.exit)
            .chain(other.map(|o| o.exit))
            .flatten()
            .collect();
        let join = if exits.is_empty() && other.is_some() {
            None
        } else {
            Some(self.new_block())
        };
        let cond = self.cond();
        let else_target = match other {
            Some(other) => other.entry,
            None => join.expect("an if without else joins"),
        };
        self.terms[head] = Term::CondBr(cond, then.entry, else_target);
        for exit in exits {
            self.link(exit, join.expect("exits need a join"));
        }
        Region {
            entry: head,
            exit: join,
        }
    }

    fn reducible_loop(&mut self, depth: usize, may_hang: bool) -> Region {
        let preheader = self.new_block();
        let first = self.terms.len();
        let body = self.region(depth + 1, false);
        let latch = self.new_block();
        self.link(body.exit.expect("a loop body exits"), latch);
        self.link(preheader, body.entry);
        if may_hang && self.rng.chance(150) {
            self.terms[latch] = Term::Br(body.entry);
            return Region {
                entry: preheader,
                exit: None,
            };
        }
        let exit = self.new_block();
        let cond = self.cond();
        self.terms[latch] = if self.rng.chance(500) {
            Term::CondBr(cond, body.entry, exit)
        } else {
            Term::CondBr(cond, exit, body.entry)
        };
        self.cycles.push(CycleInfo {
            body: first..exit,
            exit,
        });
        Region {
            entry: preheader,
            exit: Some(exit),
        }
    }

    fn irreducible(&mut self, depth: usize, may_hang: bool) -> Region {
        let dispatch = self.new_block();
        let entries = self.rng.range(2, 3);
        let switch = entries == 3 && self.rng.chance(400);
        // The second link of a dispatch chain, outside the cycle.
        let chain = (entries == 3 && !switch).then(|| self.new_block());
        let first = self.terms.len();
        let size = self.rng.range(entries, 4);
        let nodes: Vec<Region> = (0..size).map(|_| self.region(depth + 1, false)).collect();
        let hang = may_hang && self.rng.chance(150);
        let exit = (!hang).then(|| self.new_block());
        // Ring, chords, exits.
        let mut exits = 0;
        for i in 0..size {
            let from = nodes[i].exit.expect("a cycle node exits");
            let next = nodes[(i + 1) % size].entry;
            let cond = self.cond();
            let roll = self.rng.below(100);
            self.terms[from] = if let Some(exit) = exit.filter(|_| roll < 30) {
                exits += 1;
                Term::CondBr(cond, next, exit)
            } else if roll < 60 {
                let other = nodes[self.rng.below(size)].entry;
                if other == next {
                    Term::Br(next)
                } else {
                    Term::CondBr(cond, next, other)
                }
            } else {
                Term::Br(next)
            };
        }
        if let Some(exit) = exit {
            if exits == 0 {
                let i = self.rng.below(size);
                let from = nodes[i].exit.unwrap();
                let next = nodes[(i + 1) % size].entry;
                let cond = self.cond();
                self.terms[from] = Term::CondBr(cond, exit, next);
            }
        }
        // Entries: distinct nodes, dispatched to from outside.
        let mut order: Vec<usize> = (0..size).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, self.rng.below(i + 1));
        }
        let targets: Vec<usize> = order[..entries].iter().map(|&i| nodes[i].entry).collect();
        let cond = self.cond();
        if switch {
            self.terms[dispatch] = Term::Switch(cond, targets[0], targets[1..].to_vec());
        } else if let Some(chain) = chain {
            self.terms[dispatch] = Term::CondBr(cond, targets[0], chain);
            let cond = self.cond();
            self.terms[chain] = Term::CondBr(cond, targets[1], targets[2]);
        } else {
            self.terms[dispatch] = Term::CondBr(cond, targets[0], targets[1]);
        }
        if let Some(exit) = exit {
            self.cycles.push(CycleInfo {
                body: first..exit,
                exit,
            });
        }
        Region {
            entry: dispatch,
            exit,
        }
    }

    /// Extra exits: some unconditional jumps in a cycle's body become
    /// conditional branches that also leave to the cycle's exit.
    fn add_breaks(&mut self) {
        for index in 0..self.cycles.len() {
            let (body, exit) = (self.cycles[index].body.clone(), self.cycles[index].exit);
            for block in body {
                if let Term::Br(target) = self.terms[block] {
                    if target != exit && self.rng.chance(120) {
                        let cond = self.cond();
                        self.terms[block] = Term::CondBr(cond, target, exit);
                    }
                }
            }
        }
    }
}

/// Immediate dominators (Cooper, Harvey, Kennedy) of a graph whose blocks
/// are all reachable from block 0.
fn immediate_dominators(successors: &[Vec<usize>], predecessors: &[Vec<usize>]) -> Vec<usize> {
    let n = successors.len();
    // Reverse postorder.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(&mut (block, ref mut next)) = stack.last_mut() {
        if let Some(&successor) = successors[block].get(*next) {
            *next += 1;
            if !seen[successor] {
                seen[successor] = true;
                stack.push((successor, 0));
            }
        } else {
            order.push(block);
            stack.pop();
        }
    }
    assert!(
        seen.iter().all(|&s| s),
        "generator bug: an unreachable block"
    );
    order.reverse();
    let mut position = vec![0; n];
    for (i, &block) in order.iter().enumerate() {
        position[block] = i;
    }
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &block in &order[1..] {
            let mut new = usize::MAX;
            for &p in &predecessors[block] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while position[x] > position[y] {
                            x = idom[x];
                        }
                        while position[y] > position[x] {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            if idom[block] != new {
                idom[block] = new;
                changed = true;
            }
        }
    }
    idom
}

/// The `define` text of random function `@{name}` for `seed`, and whether
/// it has a return block.
pub fn random_function(seed: u64, name: &str) -> (String, bool) {
    let mut rng = Rng::new(seed);
    let shape = Shape::random(&mut rng);
    random_function_with(rng, shape, name)
}

fn random_function_with(rng: Rng, shape: Shape, name: &str) -> (String, bool) {
    let mut generator = Generator {
        rng,
        shape,
        terms: Vec::new(),
        cycles: Vec::new(),
    };
    let entry = generator.new_block();
    let top = generator.region(0, true);
    generator.link(entry, top.entry);
    let returns = top.exit.is_some();
    if let Some(exit) = top.exit {
        let ret = generator.new_block();
        generator.link(exit, ret);
        generator.terms[ret] = Term::Ret;
    }
    generator.add_breaks();
    let Generator { mut rng, terms, .. } = generator;
    assert!(
        terms.iter().all(|t| !matches!(t, Term::Open)),
        "generator bug: an open block"
    );
    let n = terms.len();
    let successors: Vec<Vec<usize>> = terms.iter().map(Term::successors).collect();
    let mut predecessors = vec![Vec::new(); n];
    for (block, succ) in successors.iter().enumerate() {
        for &s in succ {
            assert!(
                !predecessors[s].contains(&block),
                "generator bug: a duplicate edge"
            );
            predecessors[s].push(block);
        }
    }
    let idom = immediate_dominators(&successors, &predecessors);
    // Strict dominators, innermost first.
    let dominators = |block: usize| {
        let mut chain = Vec::new();
        let mut b = block;
        while b != 0 {
            b = idom[b];
            chain.push(b);
        }
        chain
    };

    // Phase 1: the names each block defines, phis first.
    let mut names = Names(0);
    let mut phis: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut values: Vec<Vec<String>> = vec![Vec::new(); n];
    for block in 1..n {
        let count = match predecessors[block].len() {
            0 => 0,
            1 => usize::from(rng.chance(100)),
            _ => *rng.pick(&[0, 1, 1, 2, 2]),
        };
        phis[block] = (0..count).map(|_| names.fresh("p")).collect();
    }
    for (block, defs) in values.iter_mut().enumerate() {
        let count = if block == 0 {
            rng.range(0, 2)
        } else {
            rng.range(0, 3)
        };
        *defs = (0..count).map(|_| names.fresh("v")).collect();
    }
    // In scope at the end of each block: the values of its dominators and
    // its own, the innermost last.
    let scope_at_end = |block: usize| -> Vec<&str> {
        let mut chain = dominators(block);
        chain.reverse();
        chain.push(block);
        chain
            .into_iter()
            .flat_map(|b| phis[b].iter().chain(&values[b]).map(String::as_str))
            .collect()
    };

    // Phase 2: the text.
    let mut text =
        format!("define amdgpu_kernel void @{name}(i32 %a, i32 %b, ptr addrspace(1) %out) {{\n");
    for block in 0..n {
        let _ = writeln!(text, "bb{block}:");
        let mut scope: Vec<&str> = if block == 0 {
            text.push_str("  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n");
            Vec::new()
        } else {
            scope_at_end(idom[block])
        };
        for phi in &phis[block] {
            let incoming: Vec<String> = predecessors[block]
                .iter()
                .map(|&p| format!("[ {}, %bb{p} ]", operand(&mut rng, &scope_at_end(p))))
                .collect();
            let _ = writeln!(text, "  {phi} = phi i32 {}", incoming.join(", "));
        }
        scope.extend(phis[block].iter().map(String::as_str));
        for value in &values[block] {
            let line = match rng.below(20) {
                // Uniform arithmetic: divergent only as a value of a cycle
                // LLVM assumes divergent.
                0..=5 => format!("add i32 %b, {}", rng.range(1, 9)),
                6 => format!(
                    "call i32 @llvm.amdgcn.readfirstlane.i32(i32 {})",
                    operand(&mut rng, &scope)
                ),
                _ => {
                    let op = *rng.pick(&["add", "sub", "mul", "xor", "and", "or"]);
                    let x = operand(&mut rng, &scope);
                    let y = operand(&mut rng, &scope);
                    format!("{op} i32 {x}, {y}")
                }
            };
            let _ = writeln!(text, "  {value} = {line}");
            scope.push(value);
        }
        if rng.chance(250) {
            let value = operand(&mut rng, &scope);
            if rng.chance(500) {
                let slot = names.fresh("g");
                let index = operand(&mut rng, &scope);
                let _ = writeln!(
                    text,
                    "  {slot} = getelementptr i32, ptr addrspace(1) %out, i32 {index}"
                );
                let _ = writeln!(text, "  store i32 {value}, ptr addrspace(1) {slot}");
            } else {
                let _ = writeln!(text, "  store i32 {value}, ptr addrspace(1) %out");
            }
        }
        match &terms[block] {
            Term::Open => unreachable!(),
            Term::Ret => text.push_str("  ret void\n"),
            Term::Br(target) => {
                let _ = writeln!(text, "  br label %bb{target}");
            }
            Term::CondBr(cond, x, y) => {
                let source = condition_source(&mut rng, &mut names, &mut text, *cond, &scope);
                let c = names.fresh("c");
                let predicate = *rng.pick(&["ult", "slt", "eq", "ne", "sgt"]);
                let bound = rng.range(0, 12);
                let _ = writeln!(text, "  {c} = icmp {predicate} i32 {source}, {bound}");
                let _ = writeln!(text, "  br i1 {c}, label %bb{x}, label %bb{y}");
            }
            Term::Switch(cond, default, cases) => {
                let source = condition_source(&mut rng, &mut names, &mut text, *cond, &scope);
                let c = names.fresh("c");
                let _ = writeln!(text, "  {c} = urem i32 {source}, {}", cases.len() + 1);
                let _ = writeln!(text, "  switch i32 {c}, label %bb{default} [");
                for (i, case) in cases.iter().enumerate() {
                    let _ = writeln!(text, "    i32 {i}, label %bb{case}");
                }
                text.push_str("  ]\n");
            }
        }
    }
    text.push_str("}\n");
    (text, returns)
}

/// Fresh value names, unique in a function.
struct Names(usize);

impl Names {
    fn fresh(&mut self, prefix: &str) -> String {
        self.0 += 1;
        format!("%{prefix}{}", self.0)
    }
}

/// The `i32` a branch of kind `cond` decides on; emits what it needs.
fn condition_source(
    rng: &mut Rng,
    names: &mut Names,
    text: &mut String,
    cond: Cond,
    scope: &[&str],
) -> String {
    match cond {
        Cond::Divergent if rng.chance(600) => "%tid".to_string(),
        Cond::Divergent => {
            let mixed = names.fresh("t");
            let other = operand(rng, scope);
            let _ = writeln!(text, "  {mixed} = xor i32 %tid, {other}");
            mixed
        }
        Cond::Uniform if rng.chance(600) => "%a".to_string(),
        Cond::Uniform => {
            let mixed = names.fresh("u");
            let _ = writeln!(text, "  {mixed} = add i32 %a, %b");
            mixed
        }
        Cond::Data => operand(rng, scope),
    }
}

/// A random `i32` operand where `scope` is in scope (innermost last): a
/// constant, a kernel argument, the thread id or a value in scope (more
/// often one defined close by).
fn operand(rng: &mut Rng, scope: &[&str]) -> String {
    match rng.below(20) {
        0..=2 => rng.range(0, 16).to_string(),
        3 => "%a".to_string(),
        4 => "%b".to_string(),
        5 => "%tid".to_string(),
        _ if scope.is_empty() => "%b".to_string(),
        6..=12 => {
            let near = scope.len().min(4);
            scope[scope.len() - 1 - rng.below(near)].to_string()
        }
        _ => rng.pick(scope).to_string(),
    }
}

/// The module header the functions need.
pub const HEADER: &str = "target triple = \"amdgcn-amd-amdhsa\"\n\n\
declare i32 @llvm.amdgcn.workitem.id.x()\n\
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n\n";

/// A module of the random functions `@f<seed>` for `seeds`.
pub fn random_module(seeds: impl IntoIterator<Item = u64>) -> String {
    let mut text = HEADER.to_string();
    for seed in seeds {
        text.push_str(&random_function(seed, &format!("f{seed}")).0);
        text.push('\n');
    }
    text
}
