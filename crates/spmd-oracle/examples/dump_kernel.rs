//! Prints a random kernel of the test corpus as MLIR text (for debugging a
//! failing seed): `cargo run --example dump_kernel -- <class> <seed>`,
//! where class is reducible, irreducible, multi_exit_switch or uniform and
//! the seed is the corpus seed number printed by the failing test. With
//! `--gpu` anywhere among the arguments it prints the `gpu.func` rendering,
//! with `--llvm` the LLVM-dialect one (`llvm.func ptx_kernelcc`, as
//! `mlir-translate --import-llvm` gives clang's CUDA output), with
//! `--amdgpu` the AMDGPU LLVM-dialect one (`llvm.func amdgpu_kernelcc`, as
//! the import gives HIP's output).

use spmd_oracle::{KernelShape, RandomKernel};

const FLAGS: [&str; 3] = ["--gpu", "--llvm", "--amdgpu"];

fn main() {
    let gpu = std::env::args().any(|arg| arg == "--gpu");
    let llvm = std::env::args().any(|arg| arg == "--llvm");
    let amdgpu = std::env::args().any(|arg| arg == "--amdgpu");
    let mut args = std::env::args()
        .skip(1)
        .filter(|arg| !FLAGS.contains(&arg.as_str()));
    let class = args.next().unwrap_or_else(|| "reducible".into());
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let shape_of = match class.as_str() {
        "irreducible" => KernelShape::irreducible,
        "multi_exit_switch" => KernelShape::multi_exit_switch,
        "uniform" => KernelShape::uniform,
        _ => KernelShape::reducible,
    };
    // Same derivation as tests/integration/reconverge.rs, or with a third
    // argument `structurize`, as tests/integration/structurize.rs.
    let kernel = if args.next().as_deref() == Some("structurize") {
        RandomKernel::build(seed * 17 + 3, &shape_of(3 + seed as usize % 25))
    } else {
        RandomKernel::build(seed * 13 + 5, &shape_of(3 + seed as usize % 25))
    };
    let text = if amdgpu {
        &kernel.amdgpu_llvm_text
    } else if llvm {
        &kernel.llvm_text
    } else if gpu {
        &kernel.gpu_text
    } else {
        &kernel.text
    };
    println!("{text}");
}
