//! Compressed sparse rows: a list of lists stored in two flat vectors.
//!
//! Every adjacency structure of the analysis core (successors, predecessors,
//! dominator-tree children, per-cycle entry/latch/exit lists) is a [`Csr`]:
//! row `r` is `items[offsets[r]..offsets[r + 1]]`. Rebuilding a `Csr` reuses
//! both vectors, so repeated analysis runs do not reallocate once the buffers
//! have grown to the size of the largest graph seen.

/// A list of rows of `T`, stored as `offsets` (one more than the number of
/// rows) plus one flat `items` vector.
#[derive(Clone, Debug)]
pub(super) struct Csr<T> {
    offsets: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Csr<T> {
    fn default() -> Self {
        Csr {
            offsets: Vec::new(),
            items: Vec::new(),
        }
    }
}

impl<T: Copy> Csr<T> {
    /// Removes all rows, keeping the allocated capacity.
    pub(super) fn clear(&mut self) {
        self.offsets.clear();
        self.items.clear();
    }

    /// Number of rows.
    pub(super) fn num_rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Total number of items over all rows.
    pub(super) fn num_items(&self) -> usize {
        self.items.len()
    }

    /// The items of row `r`. Panics if `r` is not a row.
    pub(super) fn row(&self, r: usize) -> &[T] {
        let start = self.offsets[r] as usize;
        let end = self.offsets[r + 1] as usize;
        &self.items[start..end]
    }

    /// The items of rows `first..end` as one slice (rows are contiguous).
    pub(super) fn span(&self, first: usize, end: usize) -> &[T] {
        let start = self.offsets[first] as usize;
        let stop = self.offsets[end] as usize;
        &self.items[start..stop]
    }

    /// Starts an incremental build: clears, then rows are appended with
    /// [`Csr::push`] / [`Csr::extend`] and closed with [`Csr::end_row`].
    pub(super) fn start(&mut self) {
        self.clear();
        self.offsets.push(0);
    }

    /// Appends one item to the row under construction.
    pub(super) fn push(&mut self, item: T) {
        self.items.push(item);
    }

    /// Appends several items to the row under construction.
    pub(super) fn extend(&mut self, items: &[T]) {
        self.items.extend_from_slice(items);
    }

    /// Closes the row under construction.
    pub(super) fn end_row(&mut self) {
        assert!(self.items.len() < u32::MAX as usize, "Csr: too many items");
        self.offsets.push(self.items.len() as u32);
    }

    /// Rebuilds as `num_rows` rows by a stable counting sort of `src`:
    /// element `e` goes to row `key(e)` with value `value(e)`, and elements
    /// of one row keep their order in `src`. Panics if a key is out of range.
    pub(super) fn rebuild_by<E>(
        &mut self,
        num_rows: usize,
        src: &[E],
        key: impl Fn(&E) -> usize,
        value: impl Fn(&E) -> T,
    ) {
        assert!(src.len() < u32::MAX as usize, "Csr: too many items");
        self.offsets.clear();
        self.offsets.resize(num_rows + 1, 0);
        // Count, then inclusive prefix sums: offsets[r] = end of row r.
        for e in src {
            self.offsets[key(e)] += 1;
        }
        let mut running = 0u32;
        for slot in &mut self.offsets[..num_rows] {
            running += *slot;
            *slot = running;
        }
        self.offsets[num_rows] = running;
        self.items.clear();
        let Some(first) = src.first() else { return };
        self.items.resize(src.len(), value(first));
        // Fill backwards, decrementing ends: offsets[r] ends as start of r.
        for e in src.iter().rev() {
            let r = key(e);
            self.offsets[r] -= 1;
            self.items[self.offsets[r] as usize] = value(e);
        }
    }

    /// Rebuilds as `num_rows` rows from the `(row, item)` pairs that
    /// `generate` emits, keeping their order within each row, without
    /// holding the pairs anywhere else: `generate` runs twice (to count,
    /// then to fill) and must emit the same pairs both times. For sources
    /// much larger than the graph (an edge per cycle it leaves) where
    /// [`Csr::rebuild_by`]'s input vector would double the peak memory.
    pub(super) fn rebuild_generated(
        &mut self,
        num_rows: usize,
        generate: impl Fn(&mut dyn FnMut(usize, T)),
    ) {
        self.offsets.clear();
        self.offsets.resize(num_rows + 1, 0);
        let mut total = 0usize;
        let mut first: Option<T> = None;
        generate(&mut |r, item| {
            self.offsets[r + 1] += 1;
            total += 1;
            first.get_or_insert(item);
        });
        assert!(total < u32::MAX as usize, "Csr: too many items");
        for r in 0..num_rows {
            self.offsets[r + 1] += self.offsets[r];
        }
        self.items.clear();
        let Some(first) = first else { return };
        self.items.resize(total, first);
        // `next[r]`: where row r's next item goes; starts at its offset.
        let mut next: Vec<u32> = self.offsets[..num_rows].to_vec();
        generate(&mut |r, item| {
            self.items[next[r] as usize] = item;
            next[r] += 1;
        });
        debug_assert!((0..num_rows).all(|r| next[r] == self.offsets[r + 1]));
    }
}

#[cfg(test)]
mod tests {
    use super::Csr;

    #[test]
    fn generated_rows_equal_the_counting_sort() {
        let pairs = [(2usize, 'a'), (0, 'b'), (2, 'c'), (3, 'd'), (0, 'e')];
        let mut sorted = Csr::default();
        sorted.rebuild_by(5, &pairs, |p| p.0, |p| p.1);
        let mut generated = Csr::default();
        generated.rebuild_generated(5, |emit| {
            for &(r, item) in &pairs {
                emit(r, item);
            }
        });
        for r in 0..5 {
            assert_eq!(sorted.row(r), generated.row(r), "row {r}");
        }
        generated.rebuild_generated(3, |_| {});
        assert_eq!(generated.num_rows(), 3);
        assert_eq!(generated.num_items(), 0);
    }

    #[test]
    fn counting_sort_is_stable_and_keeps_empty_rows() {
        let mut csr = Csr::default();
        let src = [(2usize, 'a'), (0, 'b'), (2, 'c'), (2, 'd'), (0, 'e')];
        csr.rebuild_by(4, &src, |e| e.0, |e| e.1);
        assert_eq!(csr.num_rows(), 4);
        assert_eq!(csr.row(0), &['b', 'e']);
        assert_eq!(csr.row(1), &[] as &[char]);
        assert_eq!(csr.row(2), &['a', 'c', 'd']);
        assert_eq!(csr.row(3), &[] as &[char]);
        assert_eq!(csr.num_items(), 5);
    }

    #[test]
    fn incremental_build_and_reuse() {
        let mut csr = Csr::default();
        csr.start();
        csr.push(1u32);
        csr.extend(&[2, 3]);
        csr.end_row();
        csr.end_row();
        assert_eq!(csr.row(0), &[1, 2, 3]);
        assert!(csr.row(1).is_empty());
        csr.rebuild_by(2, &[] as &[(usize, u32)], |e| e.0, |e| e.1);
        assert_eq!(csr.num_rows(), 2);
        assert_eq!(csr.num_items(), 0);
    }
}
