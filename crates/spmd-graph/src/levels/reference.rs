//! Reference twins: the two constructions [`super::LevelOrder`] replaced,
//! kept verbatim in substance (the uniformity analysis' `ForestOrder` and
//! the structurizer planner's layout builder, generic over their keys), so
//! the tests can show the shared construction emits exactly their orders.

use super::Step;
use crate::{BlockId, CycleForest, CycleId, Graph, OptionCycleId, Traversal};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The uniformity analysis' order: Kahn's algorithm with a FIFO queue per
/// level, levels stacked, every reachable block.
pub(super) fn fifo_order<G: Graph + ?Sized>(
    g: &G,
    dfs: &Traversal,
    forest: &CycleForest,
) -> Vec<Step> {
    let n = g.num_blocks();
    let items = n + forest.num_cycles();
    let mut edges = Vec::new();
    for &u in dfs.preorder() {
        for &v in g.successors(u) {
            if is_back_edge(forest, u, v) {
                continue;
            }
            let item = |x: BlockId, other: BlockId| {
                forest
                    .innermost_cycle(x)
                    .and_then(|c| forest.outermost_without(c, other))
                    .map_or(x.as_u32(), |c| (n + c.index()) as u32)
            };
            edges.push((item(u, v), item(v, u)));
        }
    }
    let (start, adj, mut in_degree) = adjacency(items, &edges);
    let mut steps = Vec::new();
    if dfs.num_reachable() == 0 {
        return steps;
    }
    let mut root = forest.innermost_cycle(dfs.root());
    while let Some(p) = root.and_then(|c| forest.parent(c)) {
        root = Some(p);
    }
    let root = root.map_or(dfs.root().as_u32(), |c| (n + c.index()) as u32);
    let mut frames: Vec<(OptionCycleId, VecDeque<u32>)> =
        vec![(OptionCycleId::NONE, VecDeque::from([root]))];
    while let Some((level, queue)) = frames.last_mut() {
        let level = *level;
        let Some(item) = queue.pop_front() else {
            frames.pop();
            if let Some(c) = level.get() {
                steps.push(Step::Exit(c));
                let q = &mut frames.last_mut().expect("enclosing level").1;
                release(&start, &adj, &mut in_degree, n + c.index(), q);
            }
            continue;
        };
        if (item as usize) < n {
            steps.push(Step::Block(BlockId::new(item as usize)));
            release(&start, &adj, &mut in_degree, item as usize, queue);
        } else {
            let c = CycleId::new(item as usize - n);
            steps.push(Step::Enter(c));
            let h = forest.header(c).as_u32();
            frames.push((OptionCycleId::some(c), VecDeque::from([h])));
        }
    }
    steps
}

fn release(start: &[u32], adj: &[u32], in_degree: &mut [u32], item: usize, q: &mut VecDeque<u32>) {
    for &to in &adj[start[item] as usize..start[item + 1] as usize] {
        in_degree[to as usize] -= 1;
        if in_degree[to as usize] == 0 {
            q.push_back(to);
        }
    }
}

fn is_back_edge(forest: &CycleForest, u: BlockId, v: BlockId) -> bool {
    forest
        .innermost_cycle(v)
        .is_some_and(|c| forest.header(c) == v && forest.contains(c, u))
}

/// CSR adjacency by source (pairs in the given order) and in-degrees.
fn adjacency(items: usize, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; items + 1];
    let mut indeg = vec![0u32; items];
    for &(a, b) in pairs {
        start[a as usize + 1] += 1;
        indeg[b as usize] += 1;
    }
    for i in 0..items {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut adj = vec![0u32; pairs.len()];
    for &(a, b) in pairs {
        adj[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    }
    (start, adj, indeg)
}

/// The innermost cycle containing both blocks (`None`: top level), by a
/// walk up the parents.
pub(super) fn common_level(forest: &CycleForest, a: BlockId, b: BlockId) -> Option<CycleId> {
    let cb = forest.innermost_cycle(b)?;
    let mut c = forest.innermost_cycle(a);
    while let Some(x) = c {
        if forest.contains_cycle(x, cb) {
            return Some(x);
        }
        c = forest.parent(x);
    }
    None
}

/// The member of `level` holding `b`, by a walk up the parents.
pub(super) fn member_of(forest: &CycleForest, n: usize, b: BlockId, level: Option<CycleId>) -> u32 {
    let mut c = forest.innermost_cycle(b);
    if c == level {
        return b.as_u32();
    }
    while let Some(x) = c {
        let parent = forest.parent(x);
        if parent == level {
            return (n + x.index()) as u32;
        }
        c = parent;
    }
    unreachable!("block {b} is not inside the level");
}

/// The planner's member pair of "`u` before `v`".
pub(super) fn member_pair(
    forest: &CycleForest,
    n: usize,
    u: BlockId,
    v: BlockId,
) -> Option<(u32, u32)> {
    let level = common_level(forest, u, v);
    if level.is_some_and(|l| forest.header(l) == v) {
        return None;
    }
    let mu = member_of(forest, n, u, level);
    let mv = member_of(forest, n, v, level);
    (mu != mv).then_some((mu, mv))
}

/// A level's free or blocked list: a min-heap by `(key, member)`, or a
/// stack (`lifo`).
enum List<K> {
    Heap(BinaryHeap<Reverse<(K, u32)>>),
    Stack(Vec<u32>),
}

impl<K: Ord + Copy> List<K> {
    fn new(lifo: bool) -> Self {
        if lifo {
            List::Stack(Vec::new())
        } else {
            List::Heap(BinaryHeap::new())
        }
    }

    fn push(&mut self, key: K, m: u32) {
        match self {
            List::Heap(h) => h.push(Reverse((key, m))),
            List::Stack(s) => s.push(m),
        }
    }

    fn pop(&mut self) -> Option<u32> {
        match self {
            List::Heap(h) => h.pop().map(|Reverse((_, m))| m),
            List::Stack(s) => s.pop(),
        }
    }
}

/// The planner's member pair through the forest's jump pointers (its
/// shipped version; [`member_pair`] is the definition).
fn member_pair_jumps(forest: &CycleForest, n: usize, u: BlockId, v: BlockId) -> Option<(u32, u32)> {
    let member_of = |b: BlockId, level: Option<CycleId>| {
        let c = forest.innermost_cycle(b);
        if c == level {
            return b.as_u32();
        }
        let inner = c.expect("a block outside every cycle is a member of the top level");
        let level_depth = level.map_or(0, |l| forest.depth(l));
        let child = forest
            .outermost_ancestor_where(inner, |d| forest.depth(d) > level_depth)
            .expect("the block is inside the level");
        (n + child.index()) as u32
    };
    let level = (|| {
        let cb = forest.innermost_cycle(v)?;
        let ca = forest.innermost_cycle(u)?;
        match forest.outermost_ancestor_where(ca, |d| !forest.contains_cycle(d, cb)) {
            None => Some(ca),
            Some(outermost_without) => forest.parent(outermost_without),
        }
    })();
    if level.is_some_and(|l| forest.header(l) == v) {
        return None;
    }
    let mu = member_of(u, level);
    let mv = member_of(v, level);
    (mu != mv).then_some((mu, mv))
}

const WAITING: u8 = 0;
const READY_BLOCKED: u8 = 1;
const READY_FREE: u8 = 2;
const PLACED: u8 = 3;

/// The planner's layout builder: per-member keys (`Df`/`Bf`/`Rpot`: a
/// min-heap; `lifo`: `Dfpd`'s stack), soft pairs, blocks with `in_r`.
/// Emits `Enter` where it pushed a frame (the old layout had no such
/// position; the tests compare with it anyway).
pub(super) struct Planner<'a, K> {
    n: usize,
    forest: &'a CycleForest,
    lifo: bool,
    key: Vec<K>,
    hard_start: Vec<u32>,
    hard_adj: Vec<u32>,
    indeg: Vec<u32>,
    soft_start: Vec<u32>,
    soft_adj: Vec<u32>,
    soft_indeg: Vec<u32>,
    member_state: Vec<u8>,
    frames: Vec<(OptionCycleId, [List<K>; 2])>,
    steps: Vec<Step>,
}

impl<'a, K: Ord + Copy> Planner<'a, K> {
    /// The whole old `build_layout`, with the keys given.
    pub(super) fn layout<G: Graph + ?Sized>(
        g: &G,
        in_r: &[bool],
        dfs: &Traversal,
        forest: &'a CycleForest,
        lifo: bool,
        key: Vec<K>,
        soft: &[(BlockId, BlockId)],
    ) -> Vec<Step> {
        let n = g.num_blocks();
        let members = n + forest.num_cycles();
        let mut hard = Vec::new();
        for &u in dfs.preorder() {
            if !in_r[u.index()] {
                continue;
            }
            for &v in g.successors(u) {
                if in_r[v.index()] {
                    hard.extend(member_pair_jumps(forest, n, u, v));
                }
            }
        }
        let soft_pairs: Vec<(u32, u32)> = soft
            .iter()
            .filter(|(x, y)| in_r[x.index()] && in_r[y.index()] && x != y)
            .filter_map(|&(x, y)| member_pair_jumps(forest, n, x, y))
            .collect();
        let (hard_start, hard_adj, indeg) = adjacency(members, &hard);
        let (soft_start, soft_adj, soft_indeg) = adjacency(members, &soft_pairs);
        let mut p = Planner {
            n,
            forest,
            lifo,
            key,
            hard_start,
            hard_adj,
            indeg,
            soft_start,
            soft_adj,
            soft_indeg,
            member_state: vec![WAITING; members],
            frames: Vec::new(),
            steps: Vec::new(),
        };
        let entry = g.entry();
        if in_r[entry.index()] {
            p.run(super::top_item(forest, n, entry));
        }
        p.steps
    }

    fn run(&mut self, entry_member: u32) {
        self.open(OptionCycleId::NONE);
        self.make_ready(entry_member);
        while !self.frames.is_empty() {
            match self.pop() {
                Some(mm) if self.member_state[mm as usize] == PLACED => {}
                Some(mm) if (mm as usize) < self.n => {
                    self.member_state[mm as usize] = PLACED;
                    self.steps.push(Step::Block(BlockId::new(mm as usize)));
                    self.release(mm);
                }
                Some(mm) => {
                    self.member_state[mm as usize] = PLACED;
                    let c = CycleId::new(mm as usize - self.n);
                    self.steps.push(Step::Enter(c));
                    self.open(OptionCycleId::some(c));
                    let h = self.forest.header(c);
                    self.member_state[h.index()] = PLACED;
                    self.steps.push(Step::Block(h));
                    self.release(h.as_u32());
                }
                None => {
                    let (cycle, _) = self.frames.pop().expect("frame");
                    if let Some(c) = cycle.get() {
                        self.steps.push(Step::Exit(c));
                        self.release((self.n + c.index()) as u32);
                    }
                }
            }
        }
    }

    fn open(&mut self, cycle: OptionCycleId) {
        let lists = [List::new(self.lifo), List::new(self.lifo)];
        self.frames.push((cycle, lists));
    }

    /// The free list first, then the blocked one. May return stale
    /// duplicates.
    fn pop(&mut self) -> Option<u32> {
        let lists = &mut self.frames.last_mut().expect("frame").1;
        lists[0].pop().or_else(|| lists[1].pop())
    }

    fn push(&mut self, blocked: bool, m: u32) {
        let key = self.key[m as usize];
        let lists = &mut self.frames.last_mut().expect("frame").1;
        lists[usize::from(blocked)].push(key, m);
    }

    fn make_ready(&mut self, mm: u32) {
        let blocked = self.soft_indeg[mm as usize] > 0;
        self.member_state[mm as usize] = if blocked { READY_BLOCKED } else { READY_FREE };
        self.push(blocked, mm);
    }

    fn release(&mut self, mm: u32) {
        let m = mm as usize;
        for k in self.soft_start[m] as usize..self.soft_start[m + 1] as usize {
            let t = self.soft_adj[k] as usize;
            self.soft_indeg[t] -= 1;
            if self.soft_indeg[t] == 0 && self.member_state[t] == READY_BLOCKED {
                self.member_state[t] = READY_FREE;
                self.push(false, t as u32);
            }
        }
        let mut scratch = Vec::new();
        for k in self.hard_start[m] as usize..self.hard_start[m + 1] as usize {
            let t = self.hard_adj[k];
            self.indeg[t as usize] -= 1;
            if self.indeg[t as usize] == 0 {
                scratch.push(t);
            }
        }
        if self.lifo {
            scratch.reverse();
        }
        for t in scratch {
            self.make_ready(t);
        }
    }
}
