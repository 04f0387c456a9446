//! The PTX gate: kernels through the whole user path, `spmd-compile` and
//! then ptxas, with zero failures allowed. Every failure is listed with the
//! command that reproduces it.
//!
//! - random divergent kernels of the oracle's corpus (classes reducible,
//!   irreducible, multi_exit_switch and uniform) in both MLIR front doors
//!   (`gpu.func`, and `llvm.func` as the LLVM IR import leaves CUDA), through
//!   both routes (`--via llc` and `--via isa`) for sm_70 and sm_90;
//! - the hand-written kernels of `mlir-tests/nvvm/Inputs`, likewise;
//! - CUDA: the corpus of `tests/cuda-corpus` (kernels in the styles of
//!   Rodinia, PolyBench/GPU and the CUDA samples, against NVIDIA's headers
//!   and libdevice) and `examples/cuda`, for sm_70 and sm_90.
//!
//! - AMDGPU: the random kernels in both front doors (the `gpu.func` form and
//!   the `llvm.func amdgpu_kernel` form as the LLVM IR import leaves HIP's
//!   output) through `--target amdgcn` to a code object for gfx90a (wave64)
//!   and gfx1100 (wave32), `SPMD_AMDGPU_GATE_SEEDS` (default 75) per class,
//!   with lane branches (the default) for even seeds and without for odd,
//!   and each `--shared-work` policy in turn.
//!
//! Sizes: `SPMD_PTX_GATE_SEEDS` kernels per class and front door (default
//! 40), from `SPMD_PTX_GATE_FIRST` (default 0); `SPMD_PTX_GATE_JOBS`
//! parallel compilations (default: the CPUs). `scripts/ptx-gate.sh` runs
//! this test with bigger numbers.

mod common;

use common::{assemble, driver, first_lines, has_cuda, parallel, ptxas, root};
use spmd_oracle::{KernelShape, RandomKernel};
use std::path::{Path, PathBuf};

const ARCHS: [&str; 2] = ["sm_70", "sm_90"];

/// A shape class of the random corpus: blocks to shape.
type ShapeOf = fn(usize) -> KernelShape;

/// One input of the gate: MLIR text (fed on stdin) or a file.
struct Case {
    /// How to get the input again, for the failure message.
    name: String,
    text: Option<String>,
    file: Option<PathBuf>,
    vias: &'static [&'static str],
}

/// Compiles `case` for every route and target and assembles the PTX.
fn check(case: &Case, ptxas: &Path, scratch: &Path) -> Result<(), String> {
    for via in case.vias {
        for arch in ARCHS {
            let mut arguments = vec!["--via", via, "--mcpu", arch];
            let file = case.file.as_ref().map(|f| f.display().to_string());
            arguments.push(file.as_deref().unwrap_or("-"));
            let output = driver(&arguments, case.text.as_deref());
            let repro = format!("{}: spmd-compile {}", case.name, arguments.join(" "));
            if !output.status.success() {
                return Err(format!("FAIL {repro}: {}", first_lines(&output.stderr)));
            }
            assemble(ptxas, &output.stdout, arch, scratch)
                .map_err(|error| format!("FAIL ptxas -arch={arch} after {repro}: {error}"))?;
        }
    }
    Ok(())
}

fn run_gate(cases: &[Case], what: &str) {
    let Some(ptxas) = ptxas() else { return };
    // One directory per gate: the tests of this file run in parallel.
    let label: String = what
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let scratch =
        std::env::temp_dir().join(format!("spmd-ptx-gate-{}-{label}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let failures = parallel(cases, |index, case| {
        check(case, &ptxas, &scratch.join(format!("{index}.ptx")))
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let compiles: usize = cases.iter().map(|case| case.vias.len() * ARCHS.len()).sum();
    eprintln!(
        "ptx gate: {what}: {} cases, {compiles} compilations, {} failed",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} {what} failed:\n{}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn seeds(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The random corpus: (class, seed, kernel) for the PTX gate's seeds.
fn random_kernels() -> Vec<(&'static str, u64, RandomKernel)> {
    random_kernels_of(seeds("SPMD_PTX_GATE_SEEDS", 40))
}

/// The first `count` seeds of each shape class, from
/// `SPMD_PTX_GATE_FIRST` on.
fn random_kernels_of(count: u64) -> Vec<(&'static str, u64, RandomKernel)> {
    let first = seeds("SPMD_PTX_GATE_FIRST", 0);
    let classes: [(&str, ShapeOf); 4] = [
        ("reducible", KernelShape::reducible),
        ("irreducible", KernelShape::irreducible),
        ("multi_exit_switch", KernelShape::multi_exit_switch),
        ("uniform", KernelShape::uniform),
    ];
    let mut kernels = Vec::new();
    for (class, shape_of) in classes {
        for seed in first..first + count {
            // The corpus's derivation (crates/spmd-oracle/examples/dump_kernel.rs).
            let kernel = RandomKernel::build(seed * 13 + 5, &shape_of(3 + seed as usize % 25));
            kernels.push((class, seed, kernel));
        }
    }
    kernels
}

#[test]
fn random_kernels_in_both_front_doors_reach_ptx_that_ptxas_accepts() {
    let mut cases = Vec::new();
    for (class, seed, kernel) in random_kernels() {
        for (form, text) in [("gpu", kernel.gpu_text), ("llvm", kernel.llvm_text)] {
            cases.push(Case {
                name: format!("cargo run --example dump_kernel -- {class} {seed} --{form} |"),
                text: Some(text),
                file: None,
                vias: &["llc", "isa"],
            });
        }
    }
    run_gate(&cases, "random kernels");
}

/// An ELF object's first bytes.
const ELF_MAGIC: &[u8] = b"\x7fELF";

#[test]
fn random_kernels_in_both_front_doors_reach_amdgpu_code_objects() {
    // The AMDGPU route is cheap: more kernels than the PTX gate
    // (`SPMD_AMDGPU_GATE_SEEDS` per shape class, default 75).
    let kernels = random_kernels_of(seeds("SPMD_AMDGPU_GATE_SEEDS", 75));
    let failures = parallel(&kernels, |_, (class, seed, kernel)| {
        let forms = [
            ("gpu", &kernel.gpu_text),
            ("amdgpu", &kernel.amdgpu_llvm_text),
        ];
        for ((form, text), chip) in forms
            .into_iter()
            .flat_map(|form| ["gfx90a", "gfx1100"].map(|chip| (form, chip)))
        {
            // Even seeds keep lane branches (the default), odd ones make
            // every divergent branch exec-mask code. Shared work takes
            // turns: chosen per kernel (auto, the default), always under
            // lane branches, always reconverged.
            let lanes = if seed % 2 == 0 { "true" } else { "false" };
            let shared_work = ["auto", "lanes", "reconverge"][(*seed / 2 % 3) as usize];
            let arguments = [
                "--target",
                "amdgcn",
                "--mcpu",
                chip,
                "--lane-branches",
                lanes,
                "--shared-work",
                shared_work,
                "--emit",
                "obj",
                "-",
            ];
            let output = driver(&arguments, Some(text));
            let repro = format!(
                "cargo run --example dump_kernel -- {class} {seed} --{form} | spmd-compile {}",
                arguments.join(" ")
            );
            if !output.status.success() {
                return Err(format!("FAIL {repro}: {}", first_lines(&output.stderr)));
            }
            if !output.stdout.starts_with(ELF_MAGIC) {
                return Err(format!("FAIL {repro}: not an ELF object"));
            }
        }
        Ok(())
    });
    eprintln!(
        "amdgpu gate: {} random kernels in both front doors (gpu.func, llvm.func \
         amdgpu_kernel), gfx90a and gfx1100 objects, {} failed",
        kernels.len(),
        failures.len()
    );
    let shown: Vec<String> = failures.iter().take(20).cloned().collect();
    assert!(failures.is_empty(), "{}", shown.join("\n"));
}

/// The files of `directory` whose name ends with `extension`, sorted.
fn files(directory: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(directory)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", directory.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.to_string_lossy().ends_with(extension))
        .collect();
    files.sort();
    files
}

fn file_cases(paths: Vec<PathBuf>, vias: &'static [&'static str]) -> Vec<Case> {
    paths
        .into_iter()
        .map(|path| Case {
            name: path.display().to_string(),
            text: None,
            file: Some(path),
            vias,
        })
        .collect()
}

#[test]
fn hand_written_kernels_reach_ptx_that_ptxas_accepts() {
    let cases = file_cases(
        files(&root().join("mlir-tests/nvvm/Inputs"), ".mlir"),
        &["llc", "isa"],
    );
    assert!(cases.len() >= 8, "mlir-tests/nvvm/Inputs lost its kernels");
    run_gate(&cases, "kernels of mlir-tests/nvvm/Inputs");
}

/// CUDA files that CUDA 12 itself no longer compiles: texture references.
fn is_texture_reference_file(path: &Path) -> bool {
    path.to_string_lossy().ends_with("-texref.cu")
}

#[test]
fn cuda_corpus_and_examples_reach_ptx_that_ptxas_accepts() {
    if !has_cuda() {
        return;
    }
    let corpus: Vec<PathBuf> = files(&root().join("tests/cuda-corpus"), ".cu")
        .into_iter()
        .filter(|path| !is_texture_reference_file(path))
        .collect();
    assert!(corpus.len() >= 30, "tests/cuda-corpus lost its kernels");
    let mut paths = corpus;
    paths.extend(files(&root().join("examples/cuda"), ".cu"));
    run_gate(&file_cases(paths, &["llc"]), "CUDA files");
}

/// Texture references (`texture<float, 1, ...>`) were removed in CUDA 12:
/// clang stops on them, and the driver says so as a clang failure.
#[test]
fn texture_references_stop_in_clang_with_its_message() {
    if !has_cuda() {
        return;
    }
    let texref = files(&root().join("tests/cuda-corpus"), ".cu")
        .into_iter()
        .filter(|path| is_texture_reference_file(path))
        .collect::<Vec<_>>();
    assert!(
        !texref.is_empty(),
        "tests/cuda-corpus has no texture-reference file"
    );
    for path in texref {
        let output = driver(&[path.to_str().expect("UTF-8 path")], None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}: {stderr}",
            path.display()
        );
        assert!(
            stderr.contains("error:") && stderr.contains(": clang failed"),
            "{}: {stderr}",
            path.display()
        );
    }
}
