//! Writes corpus kernels of the random generator with warp collectives
//! (`spmd_oracle::RandomCollectiveKernel`, the NVVM differential's corpus)
//! to a folder, for a run on a real GPU:
//!
//! ```text
//! cargo run --example dump_collective_kernels -- DIR [COUNT] [FIRST_SEED]
//! scripts/dev/gpu-cases.py OUT --random DIR
//! ```
//!
//! For each seed, `DIR/k<seed>.mlir` is the LLVM-dialect rendering (an
//! `llvm.func ptx_kernelcc @kernel(%out, %n, %ret)` as clang's CUDA output
//! imports) and `DIR/k<seed>.json` says how many `%out` elements each
//! thread writes and which `%n` to launch with.

use spmd_oracle::{CollectiveShape, RandomCollectiveKernel};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: dump_collective_kernels DIR [COUNT] [FIRST_SEED]");
        std::process::exit(2);
    };
    let count: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let first: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    if let Err(error) = std::fs::create_dir_all(&dir) {
        eprintln!("dump_collective_kernels: {}: {error}", dir.display());
        std::process::exit(1);
    }
    for seed in first..first + count {
        let kernel = RandomCollectiveKernel::build(seed, &CollectiveShape::of_corpus_seed(seed));
        let meta = format!("{{\"out_len\": {}, \"n\": [0, 7, 50]}}\n", kernel.slots);
        let written = std::fs::write(dir.join(format!("k{seed}.mlir")), &kernel.llvm_text)
            .and_then(|()| std::fs::write(dir.join(format!("k{seed}.json")), meta));
        if let Err(error) = written {
            eprintln!("dump_collective_kernels: {}: {error}", dir.display());
            std::process::exit(1);
        }
    }
    eprintln!("{count} kernels in {}", dir.display());
}
