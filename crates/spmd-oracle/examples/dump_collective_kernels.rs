//! Writes corpus kernels of the random generators to a folder, for a run on
//! a real GPU:
//!
//! ```text
//! cargo run --example dump_collective_kernels -- DIR [COUNT] [FIRST_SEED] [--ordinary]
//! scripts/dev/gpu-cases.py OUT --random DIR
//! ```
//!
//! By default the kernels are those of the NVVM differential with warp
//! collectives (`spmd_oracle::RandomCollectiveKernel`,
//! `CollectiveShape::of_corpus_seed`); with `--ordinary`, those of the NVVM
//! differential without collectives (`spmd_oracle::RandomKernel`, every
//! shape class of `KernelShape::classes`, possibly irreducible). For each,
//! `DIR/<name>.mlir` is the LLVM-dialect rendering (an
//! `llvm.func ptx_kernelcc @kernel(%out, %n, %ret)` as clang's CUDA output
//! imports) and `DIR/<name>.json` says how many `%out` elements each thread
//! writes and which `%n` to launch with.

use spmd_oracle::{CollectiveShape, KernelShape, RandomCollectiveKernel, RandomKernel};
use std::path::{Path, PathBuf};

fn main() {
    let ordinary = std::env::args().any(|arg| arg == "--ordinary");
    let mut args = std::env::args().skip(1).filter(|arg| arg != "--ordinary");
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: dump_collective_kernels DIR [COUNT] [FIRST_SEED] [--ordinary]");
        std::process::exit(2);
    };
    let count: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let first: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut written = 0;
    for seed in first..first + count {
        let kernels = if ordinary {
            ordinary_kernels(seed)
        } else {
            let kernel =
                RandomCollectiveKernel::build(seed, &CollectiveShape::of_corpus_seed(seed));
            vec![(format!("k{seed}"), kernel.llvm_text, kernel.slots)]
        };
        for (name, text, slots) in kernels {
            if let Err(error) = write(&dir, &name, &text, slots) {
                eprintln!("dump_collective_kernels: {}: {error}", dir.display());
                std::process::exit(1);
            }
            written += 1;
        }
    }
    eprintln!("{written} kernels in {}", dir.display());
}

/// The kernels of corpus seed `seed` of the NVVM differential without
/// collectives (tests/integration/nvvm_exec.rs), one per shape class.
fn ordinary_kernels(seed: u64) -> Vec<(String, String, u32)> {
    KernelShape::classes(3 + (seed as usize * 7) % 24)
        .into_iter()
        .map(|(class, shape)| {
            let kernel = RandomKernel::build(seed * 37 + 11, &shape);
            (format!("{class}{seed}"), kernel.llvm_text, kernel.slots)
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str, slots: u32) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(format!("{name}.mlir")), text)?;
    let meta = format!("{{\"out_len\": {slots}, \"n\": [0, 7, 50]}}\n");
    std::fs::write(dir.join(format!("{name}.json")), meta)
}
