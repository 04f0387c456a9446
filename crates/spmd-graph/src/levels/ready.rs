//! The two [`ReadyPolicy`]s of [`super::LevelOrder::place`].

use super::ReadyPolicy;
use crate::csr::Csr;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Kahn's FIFO queue per level: items are placed in the order in which
/// their last condensed predecessor was placed, so a block follows its
/// last predecessor closely unless many items became ready in between
/// (the uniformity analysis' propagation order). Reusable.
#[derive(Clone, Debug, Default)]
pub struct FifoReady {
    /// One queue per open level.
    queues: Vec<VecDeque<u32>>,
}

impl FifoReady {
    /// An empty policy.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ReadyPolicy for FifoReady {
    fn open_level(&mut self, depth: usize) {
        if self.queues.len() <= depth {
            self.queues.resize_with(depth + 1, VecDeque::new);
        }
        self.queues[depth].clear();
    }

    fn push_ready(&mut self, depth: usize, items: &[u32]) {
        self.queues[depth].extend(items.iter().copied());
    }

    fn pop(&mut self, depth: usize) -> Option<u32> {
        self.queues[depth].pop_front()
    }
}

/// How [`PriorityReady`] breaks ties among the free ready items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiebreak {
    /// The smallest `(key, item)` first.
    SmallestKey,
    /// A depth-first topological sort: the most recently readied item
    /// first, and among the items readied together the first edge first.
    DepthFirst,
}

/// A ready list with an order on the items and *soft* predecessors: an
/// item that is ready but still waits for a soft predecessor ("should come
/// after") is postponed while a free item is ready; the soft constraint is
/// given up when only postponed items are left. Among free items (and then
/// among postponed ones) the [`Tiebreak`] decides.
#[derive(Clone, Debug)]
pub struct PriorityReady<K> {
    tiebreak: Tiebreak,
    keys: Vec<K>,
    /// Soft successors per item.
    soft: Csr<u32>,
    /// Per item: soft predecessors not placed yet.
    soft_in_degree: Vec<u32>,
    state: Vec<State>,
    /// One pair of lists per open level.
    levels: Vec<Lists<K>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Waiting,
    ReadyPostponed,
    ReadyFree,
    Placed,
}

impl<K: Ord + Copy> PriorityReady<K> {
    /// A policy over items `0..keys.len()` with tie-break keys `keys` and
    /// soft constraints `soft` (pairs of items of one level, "first before
    /// second", e.g. from [`super::condensed_pair`]).
    pub fn new(tiebreak: Tiebreak, keys: Vec<K>, soft: &[(u32, u32)]) -> Self {
        let items = keys.len();
        let mut soft_csr = Csr::default();
        soft_csr.rebuild_by(items, soft, |e| e.0 as usize, |e| e.1);
        let mut soft_in_degree = vec![0; items];
        for &(_, to) in soft {
            soft_in_degree[to as usize] += 1;
        }
        PriorityReady {
            tiebreak,
            keys,
            soft: soft_csr,
            soft_in_degree,
            state: vec![State::Waiting; items],
            levels: Vec::new(),
        }
    }

    fn lists(&mut self, depth: usize) -> &mut Lists<K> {
        &mut self.levels[depth]
    }
}

impl<K: Ord + Copy> ReadyPolicy for PriorityReady<K> {
    fn open_level(&mut self, depth: usize) {
        let lifo = self.tiebreak == Tiebreak::DepthFirst;
        if self.levels.len() <= depth {
            self.levels.resize_with(depth + 1, || Lists::new(lifo));
        }
        self.levels[depth].clear();
    }

    fn push_ready(&mut self, depth: usize, items: &[u32]) {
        // Depth-first: the first edge's item must pop first from a stack.
        let reversed = self.tiebreak == Tiebreak::DepthFirst;
        for k in 0..items.len() {
            let m = items[if reversed { items.len() - 1 - k } else { k }];
            let postponed = self.soft_in_degree[m as usize] > 0;
            self.state[m as usize] = if postponed {
                State::ReadyPostponed
            } else {
                State::ReadyFree
            };
            let key = self.keys[m as usize];
            self.lists(depth).push(postponed, key, m);
        }
    }

    fn pop(&mut self, depth: usize) -> Option<u32> {
        // A postponed item freed later is in both lists: skip the copy
        // that comes second.
        loop {
            let m = self.levels[depth].pop()?;
            if self.state[m as usize] != State::Placed {
                self.state[m as usize] = State::Placed;
                return Some(m);
            }
        }
    }

    fn placed(&mut self, depth: usize, item: u32) {
        self.state[item as usize] = State::Placed;
        for k in 0..self.soft.row(item as usize).len() {
            let t = self.soft.row(item as usize)[k] as usize;
            self.soft_in_degree[t] -= 1;
            if self.soft_in_degree[t] == 0 && self.state[t] == State::ReadyPostponed {
                self.state[t] = State::ReadyFree;
                let key = self.keys[t];
                self.lists(depth).push(false, key, t as u32);
            }
        }
    }
}

/// The free and the postponed items of one level.
#[derive(Clone, Debug)]
struct Lists<K> {
    free: List<K>,
    postponed: List<K>,
}

impl<K: Ord + Copy> Lists<K> {
    fn new(lifo: bool) -> Self {
        Lists {
            free: List::new(lifo),
            postponed: List::new(lifo),
        }
    }

    fn clear(&mut self) {
        self.free.clear();
        self.postponed.clear();
    }

    fn push(&mut self, postponed: bool, key: K, m: u32) {
        if postponed {
            self.postponed.push(key, m)
        } else {
            self.free.push(key, m)
        }
    }

    /// A free item if any, else a postponed one. May return stale copies.
    fn pop(&mut self) -> Option<u32> {
        self.free.pop().or_else(|| self.postponed.pop())
    }
}

/// Min-heap by `(key, item)`, or a stack.
#[derive(Clone, Debug)]
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

    fn clear(&mut self) {
        match self {
            List::Heap(h) => h.clear(),
            List::Stack(s) => s.clear(),
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
