//! The HIP gate: the kernels of `tests/hip-corpus` (the CUDA corpus's
//! Rodinia, PolyBench/GPU and CUDA-samples-style kernels ported to HIP)
//! through spmd's AMDGPU route and LLVM's own, to code objects.
//!
//! Every `.hip` file is compiled for gfx90a (wave64) and gfx1100 (wave32)
//! by clang-22 to LLVM IR, as HIP device code against
//! `tests/hip-corpus/hip_shim.h` instead of ROCm's headers, at -O2; the IR
//! then goes through
//!
//! - spmd: `spmd-compile --target amdgcn --mcpu CHIP -x llvm - --emit obj`;
//! - the reference: the same with `--reference` (LLVM's backend on the
//!   imported IR, no spmd pass).
//!
//! Both must give an ELF object. The reference must succeed everywhere
//! (else the corpus or the shim is broken). spmd must succeed everywhere
//! except on exactly the (file, chip) pairs of [`KNOWN_SPMD_FAILURES`]:
//! a new failure is a regression, and a known failure that now compiles
//! is a fix to record there (and in `tests/hip-corpus/README.md`).
//!
//! Skipped, with a message, without clang-22 (`$CLANG`, else
//! `/usr/lib/llvm-22/bin/clang`).

mod common;

use common::{driver, first_lines, parallel, root};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

const CHIPS: [&str; 2] = ["gfx90a", "gfx1100"];

/// (file, chip) pairs where spmd's route fails and the reference does
/// not: spmd bugs, listed in `tests/hip-corpus/README.md`. None today.
const KNOWN_SPMD_FAILURES: &[(&str, &str)] = &[];

/// An ELF object's first bytes.
const ELF_MAGIC: &[u8] = b"\x7fELF";

/// LLVM 22's tools: `$NAME` (e.g. `$CLANG`), else `/usr/lib/llvm-22/bin`.
fn llvm_tool(variable: &str, name: &str) -> PathBuf {
    std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new("/usr/lib/llvm-22/bin").join(name))
}

/// The clang command of `tests/hip-corpus/README.md` for `file` and `chip`.
fn clang_arguments(file: &Path, chip: &str) -> Vec<String> {
    let shim = root().join("tests/hip-corpus/hip_shim.h");
    let mut arguments: Vec<String> = [
        "-x",
        "hip",
        &format!("--offload-arch={chip}"),
        "--cuda-device-only",
        "-nogpulib",
        "-nogpuinc",
        "-include",
        &shim.display().to_string(),
        "-O2",
        "-S",
        "-emit-llvm",
        "-o",
        "-",
    ]
    .map(String::from)
    .to_vec();
    arguments.push(file.display().to_string());
    arguments
}

/// The file's LLVM IR for `chip`, from clang.
fn hip_to_llvm_ir(clang: &Path, file: &Path, chip: &str) -> Result<String, String> {
    let output = Command::new(clang)
        .args(clang_arguments(file, chip))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", clang.display()))?;
    if !output.status.success() {
        return Err(first_lines(&output.stderr));
    }
    String::from_utf8(output.stdout).map_err(|_| "clang's LLVM IR is not UTF-8".into())
}

/// `Ok` when a compilation gave an ELF object, else its first error lines.
fn object(output: std::process::Output) -> Result<(), String> {
    if !output.status.success() {
        return Err(first_lines(&output.stderr));
    }
    if !output.stdout.starts_with(ELF_MAGIC) {
        return Err("not an ELF object".into());
    }
    Ok(())
}

/// `spmd-compile` on LLVM IR (fed on stdin) to an object for `chip`.
fn spmd_compile(llvm_ir: &str, chip: &str, reference: bool) -> std::process::Output {
    let mut arguments = vec!["--target", "amdgcn", "--mcpu", chip, "-x", "llvm", "-"];
    arguments.extend(["--emit", "obj"]);
    if reference {
        arguments.insert(0, "--reference");
    }
    driver(&arguments, Some(llvm_ir))
}

/// How to reproduce spmd's compilation of `file` for `chip`.
fn repro(file: &Path, chip: &str) -> String {
    let clang = clang_arguments(file, chip).join(" ");
    format!("clang-22 {clang} | spmd-compile --target amdgcn --mcpu {chip} -x llvm - --emit obj")
}

#[test]
fn hip_corpus_reaches_amdgpu_code_objects_on_both_routes() {
    let clang = llvm_tool("CLANG", "clang");
    if !clang.exists() {
        eprintln!("no clang-22 ({}): the HIP gate is skipped", clang.display());
        return;
    }
    let directory = root().join("tests/hip-corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("tests/hip-corpus")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "hip"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "tests/hip-corpus lost its kernels");
    let cases: Vec<(PathBuf, &str)> = files
        .iter()
        .flat_map(|file| CHIPS.map(|chip| (file.clone(), chip)))
        .collect();
    let spmd_failures = Mutex::new(Vec::new());
    let broken = parallel(&cases, |_, (file, chip)| {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let llvm_ir = hip_to_llvm_ir(&clang, file, chip)
            .map_err(|error| format!("FAIL clang on {name} for {chip}: {error}"))?;
        object(spmd_compile(&llvm_ir, chip, true))
            .map_err(|error| format!("FAIL the reference route on {name} for {chip}: {error}"))?;
        if let Err(error) = object(spmd_compile(&llvm_ir, chip, false)) {
            let failure = (
                name,
                chip.to_string(),
                format!("{}: {error}", repro(file, chip)),
            );
            spmd_failures.lock().unwrap().push(failure);
        }
        Ok(())
    });
    let mut spmd_failures = spmd_failures.into_inner().unwrap();
    spmd_failures.sort();
    eprintln!(
        "hip gate: {} files, {} compilations per route, {} spmd failures ({} known)",
        files.len(),
        cases.len(),
        spmd_failures.len(),
        KNOWN_SPMD_FAILURES.len()
    );
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    let is_known = |name: &str, chip: &str| KNOWN_SPMD_FAILURES.contains(&(name, chip));
    let new: Vec<&str> = spmd_failures
        .iter()
        .filter(|(name, chip, _)| !is_known(name, chip))
        .map(|(_, _, message)| message.as_str())
        .collect();
    let fixed: Vec<String> = KNOWN_SPMD_FAILURES
        .iter()
        .filter(|(name, chip)| !spmd_failures.iter().any(|(n, c, _)| n == name && c == chip))
        .map(|(name, chip)| format!("{name} for {chip}"))
        .collect();
    assert!(
        new.is_empty(),
        "spmd-compile fails where the reference succeeds:\n{}",
        new.join("\n")
    );
    assert!(
        fixed.is_empty(),
        "known spmd failures that now compile (remove them from KNOWN_SPMD_FAILURES and \
         tests/hip-corpus/README.md): {}",
        fixed.join(", ")
    );
}
