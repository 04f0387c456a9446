//! The CUDA front end: clang-22 as a subprocess, device side only, against
//! NVIDIA's CUDA headers and libdevice (a CUDA root, see [`cuda_root`]).

use crate::options::Options;
use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

/// The CUDA root: `--cuda-path`, else `$SPMD_CUDA_PATH`, else the
/// `.venv/cuda` that `scripts/setup.sh` lays out (next to the binary's
/// `target/` directory, or in this source tree). `Err` says what is missing.
pub fn cuda_root(options: &Options) -> Result<PathBuf, String> {
    let usable =
        |root: &Path| root.join("include/cuda_runtime.h").is_file() && libdevice_in(root).is_file();
    let explicit = options
        .cuda_path
        .clone()
        .or_else(|| std::env::var_os("SPMD_CUDA_PATH").map(PathBuf::from));
    if let Some(root) = explicit {
        return if usable(&root) {
            Ok(root)
        } else {
            Err(format!(
                "'{}' is no CUDA root: it needs include/cuda_runtime.h and \
                 nvvm/libdevice/libdevice.10.bc",
                root.display()
            ))
        };
    }
    let beside_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join(".venv/cuda")));
    let in_source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/cuda");
    beside_binary
        .into_iter()
        .chain([in_source])
        .find(|root| usable(root))
        .ok_or_else(|| {
            "no CUDA headers and libdevice: run scripts/setup.sh, or give --cuda-path \
             (or $SPMD_CUDA_PATH)"
                .to_string()
        })
}

/// libdevice inside a CUDA root.
pub fn libdevice_in(root: &Path) -> PathBuf {
    root.join("nvvm/libdevice/libdevice.10.bc")
}

/// What clang should produce.
pub enum ClangOutput {
    /// LLVM IR text (`-S -emit-llvm`).
    LlvmIr,
    /// PTX (`-S`), clang's own route.
    Ptx,
}

/// Runs clang on the CUDA file `input` (stdin's `source` when `None`) for
/// PTX ISA `ptx`; its stdout, or `Err` with clang's own messages.
pub fn compile(
    options: &Options,
    cuda_root: &Path,
    input: Option<&Path>,
    source: &[u8],
    ptx: u32,
    output: ClangOutput,
) -> Result<Vec<u8>, String> {
    let clang = options
        .clang
        .clone()
        .or_else(|| std::env::var_os("CLANG").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin/clang"));
    let mut command = Command::new(&clang);
    command
        .args([
            "-x",
            "cuda",
            "--cuda-device-only",
            "-Wno-unknown-cuda-version",
        ])
        .arg(format!("--cuda-path={}", cuda_root.display()))
        .arg(format!("--cuda-gpu-arch={}", options.mcpu))
        .arg(format!("--cuda-feature=+ptx{ptx}"))
        .arg(format!("-O{}", options.opt_level))
        .args(&options.clang_args)
        .arg("-S");
    if let ClangOutput::LlvmIr = output {
        command.arg("-emit-llvm");
    }
    match input {
        Some(path) => command.arg(path),
        None => command.arg("-"),
    };
    command
        .args(["-o", "-"])
        .stdin(if input.is_some() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|error| {
        format!(
            "cannot run clang at '{}': {error} (scripts/setup.sh installs clang-22; \
             or give --clang or $CLANG)",
            clang.display()
        )
    })?;
    let writer = child.stdin.take().map(|mut stdin| {
        let source = source.to_vec();
        std::thread::spawn(move || stdin.write_all(&source))
    });
    let result = child
        .wait_with_output()
        .map_err(|error| format!("clang: {error}"))?;
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let messages = String::from_utf8_lossy(&result.stderr);
    if !result.status.success() {
        return Err(messages.trim_end().to_string());
    }
    if !messages.trim().is_empty() {
        eprint!("{messages}");
    }
    Ok(result.stdout)
}
