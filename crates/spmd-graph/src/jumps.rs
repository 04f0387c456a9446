//! Skew-binary jump pointers (Myers, "An applicative random-access stack",
//! 1983) for ancestor searches in deep trees: the dominator tree and the
//! cycle nesting forest.
//!
//! Every node keeps one pointer to an ancestor besides its parent. A child
//! of `p` jumps over both of `p`'s next two jumps when they span equal
//! depths, else to `p` itself, so jumps span 1, 3, 7, 15, ... levels and any
//! ancestor is reached in O(log depth) steps. The pointers are built in one
//! pass from the root down (a parent before its children), and cost one
//! id per node.
//!
//! The search [`outermost_ancestor_where`] answers "the last ancestor on
//! the chain up from `x` for which a monotone predicate still holds": with
//! "does not dominate `b`" it finds the child of the nearest common
//! dominator on `x`'s side; with "does not contain block `b`" the outermost
//! cycle an edge to `b` leaves. Long-range CFGs nest thousands of levels
//! deep, where a walk up the parents per query is quadratic in total.

/// The jump pointer of a new child of `parent`, given how to read the
/// pointers and depths of the nodes above it.
pub(crate) fn jump_for_child_of<T: Copy>(
    parent: T,
    jump: impl Fn(T) -> Option<T>,
    depth: impl Fn(T) -> u32,
) -> T {
    let Some(j) = jump(parent) else {
        return parent;
    };
    let Some(jj) = jump(j) else {
        return parent;
    };
    if depth(parent) - depth(j) == depth(j) - depth(jj) {
        jj
    } else {
        parent
    }
}

/// The outermost node on the chain from `x` up through its ancestors for
/// which `holds` is true, given that `holds` is true for `x` and its
/// ancestors up to some point and false above it; `None` if `holds(x)` is
/// false. O(log depth) calls of `holds`.
pub(crate) fn outermost_ancestor_where<T: Copy + PartialEq>(
    x: T,
    parent: impl Fn(T) -> Option<T>,
    jump: impl Fn(T) -> Option<T>,
    mut holds: impl FnMut(T) -> bool,
) -> Option<T> {
    if !holds(x) {
        return None;
    }
    let mut at = x;
    while let Some(up) = parent(at) {
        match jump(at) {
            Some(far) if far != up && holds(far) => at = far,
            _ if holds(up) => at = up,
            _ => break,
        }
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a chain 0 <- 1 <- ... <- n-1 (parent of i is i-1), every search
    /// finds the node a walk up the parents finds, in O(log depth) calls.
    #[test]
    fn searches_match_the_parent_walk_in_logarithmic_calls() {
        let n = 5000usize;
        let mut jump: Vec<Option<usize>> = vec![None; n];
        for i in 1..n {
            jump[i] = Some(jump_for_child_of(i - 1, |x| jump[x], |x| x as u32));
        }
        let parent = |x: usize| x.checked_sub(1);
        for x in (0..n).step_by(37) {
            for limit in (0..=x).step_by(13) {
                // Holds from x down to `limit` (depth = index here).
                let mut calls = 0;
                let found = outermost_ancestor_where(
                    x,
                    parent,
                    |y| jump[y],
                    |y| {
                        calls += 1;
                        y >= limit
                    },
                );
                assert_eq!(found, Some(limit), "from {x} to {limit}");
                assert!(calls <= 4 * 13 + 4, "{calls} calls from {x} to {limit}");
            }
            assert_eq!(
                outermost_ancestor_where(x, parent, |y| jump[y], |_| false),
                None
            );
        }
    }
}
