//! Small shared utilities.

// `define_id!` (dense `u32` index newtypes) lives in the CFG core crate,
// whose ids it makes; spmd's own ids use the same macro.
pub(crate) use spmd_graph::define_id;

use std::{
    collections::{HashMap, HashSet},
    hash::{BuildHasherDefault, Hasher},
};

/// A fast, non-cryptographic hasher for keys that are integers or pointers
/// (block and value addresses, dense ids). The transforms hash millions of
/// such keys on 100k-block functions, where the standard SipHash shows up
/// in profiles; hash flooding is not a concern for compiler-internal maps.
///
/// Each word is folded in by xor, a multiplication by the 64-bit golden
/// ratio constant (odd, so a bijection) and a rotation that moves the
/// well-mixed high bits down to where `HashMap` takes its bucket index.
#[derive(Clone, Copy, Default)]
pub(crate) struct WordHasher(u64);

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(GOLDEN).rotate_left(26);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`WordHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;
/// A `HashSet` with [`WordHasher`].
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<WordHasher>>;

/// Phase timing for profiling the transforms: with the environment
/// variable `SPMD_PHASE_TIMES` set, [`PhaseTimer::lap`] prints the time
/// since the previous lap to stderr; otherwise it does nothing.
pub(crate) struct PhaseTimer {
    what: &'static str,
    last: Option<std::time::Instant>,
}

impl PhaseTimer {
    /// Starts timing the phases of `what`.
    pub(crate) fn new(what: &'static str) -> Self {
        let enabled = std::env::var_os("SPMD_PHASE_TIMES").is_some();
        Self {
            what,
            last: enabled.then(std::time::Instant::now),
        }
    }

    /// Reports the phase that just ended.
    pub(crate) fn lap(&mut self, phase: &str) {
        if let Some(last) = self.last {
            let now = std::time::Instant::now();
            eprintln!(
                "[{}] {phase}: {:.1} ms{}",
                self.what,
                (now - last).as_secs_f64() * 1e3,
                resident_memory().unwrap_or_default()
            );
            self.last = Some(now);
        }
    }
}

/// `", rss N MB (peak M MB)"` from `/proc/self/status` (Linux), for the
/// phase report: memory goals are measured on peak resident size, and
/// this shows which phase raises it.
fn resident_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    };
    let (now, peak) = (field("VmRSS:")?, field("VmHWM:")?);
    Some(format!(", rss {} MB (peak {} MB)", now / 1024, peak / 1024))
}

/// Graphs with fewer blocks than this run their background work inline:
/// starting a thread costs tens of microseconds, more than the work saves
/// on small functions, and a module may hold thousands of them.
pub(crate) const BACKGROUND_MIN_BLOCKS: usize = 4096;

/// A computation on plain (IR-independent) data that runs on another
/// thread while the caller goes on, typically editing the IR; see
/// [`in_background`].
pub(crate) enum Background<T> {
    /// Running on another thread.
    Thread(std::thread::JoinHandle<T>),
    /// Already done, inline (small graphs).
    Done(T),
}

/// Starts `work` on another thread if the graph it is about has at least
/// [`BACKGROUND_MIN_BLOCKS`] blocks, else runs it now. MLIR handles stay
/// on the caller's thread: `work` may only own plain data, such as a
/// cloned `CfgGraph`.
pub(crate) fn in_background<T: Send + 'static>(
    num_blocks: usize,
    work: impl FnOnce() -> T + Send + 'static,
) -> Background<T> {
    if num_blocks >= BACKGROUND_MIN_BLOCKS {
        Background::Thread(std::thread::spawn(work))
    } else {
        Background::Done(work())
    }
}

impl<T> Background<T> {
    /// Waits for the result; a panic of the work is resumed here.
    pub(crate) fn join(self) -> T {
        match self {
            Self::Thread(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Self::Done(value) => value,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn background_work_runs_on_a_thread_only_for_large_graphs() {
        let small = super::in_background(10, || 6 * 7);
        assert!(matches!(small, super::Background::Done(42)));
        let large =
            super::in_background(super::BACKGROUND_MIN_BLOCKS, || std::thread::current().id());
        assert!(matches!(large, super::Background::Thread(_)));
        assert_ne!(large.join(), std::thread::current().id());
    }

    use super::*;

    #[test]
    fn pointer_like_keys_spread_over_buckets() {
        // Addresses 64 bytes apart must not collide in the low bits.
        let mut low = FastSet::default();
        for i in 0..4096u64 {
            let mut h = WordHasher::default();
            h.write_u64(0x7f00_0000_0000 + i * 64);
            low.insert(h.finish() & 0xfff);
        }
        assert!(
            low.len() > 2500,
            "only {} distinct low-12-bit hashes",
            low.len()
        );
    }

    #[test]
    fn maps_work() {
        let mut m: FastMap<usize, u32> = FastMap::default();
        for i in 0..1000 {
            m.insert(i * 8, i as u32);
        }
        assert_eq!(m.get(&(999 * 8)), Some(&999));
        assert_eq!(m.len(), 1000);
    }
}
