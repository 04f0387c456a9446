//! What the driver's tests share: running `spmd-compile` and ptxas.

#![allow(dead_code)]

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

/// The driver under test.
pub const DRIVER: &str = env!("CARGO_BIN_EXE_spmd-compile");

/// The source tree's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the driver with `arguments`, feeding `stdin` when given.
pub fn driver(arguments: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(DRIVER)
        .args(arguments)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run spmd-compile");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("piped stdin");
        let text = text.to_string();
        let writer = std::thread::spawn(move || pipe.write_all(text.as_bytes()));
        let output = child.wait_with_output().expect("wait for spmd-compile");
        let _ = writer.join();
        return output;
    }
    child.wait_with_output().expect("wait for spmd-compile")
}

/// ptxas as `scripts/find-ptxas.sh` finds it; `None` (with a note) when
/// this machine has none.
pub fn ptxas() -> Option<PathBuf> {
    let output = Command::new(root().join("scripts/find-ptxas.sh"))
        .output()
        .ok()?;
    if !output.status.success() {
        eprintln!("no ptxas: {}", String::from_utf8_lossy(&output.stderr));
        return None;
    }
    Some(PathBuf::from(
        String::from_utf8_lossy(&output.stdout).trim(),
    ))
}

/// Whether clang-22 and the CUDA root are there (the CUDA front door).
pub fn has_cuda() -> bool {
    let clang = std::env::var_os("CLANG")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin/clang"));
    let cuda = Command::new(root().join("scripts/find-cuda.sh")).output();
    let ok = clang.exists() && cuda.map(|o| o.status.success()).unwrap_or(false);
    if !ok {
        eprintln!("no clang-22 or no CUDA root (scripts/setup.sh): CUDA cases skipped");
    }
    ok
}

/// Assembles `ptx` for `arch` with ptxas; `Err` has ptxas's first lines.
pub fn assemble(ptxas: &Path, ptx: &[u8], arch: &str, scratch: &Path) -> Result<(), String> {
    std::fs::write(scratch, ptx).map_err(|e| format!("cannot write {}: {e}", scratch.display()))?;
    let output = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(scratch)
        .args(["-o", "/dev/null"])
        .output()
        .map_err(|e| format!("cannot run ptxas: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(first_lines(&output.stderr))
    }
}

/// The first three lines of a tool's messages.
pub fn first_lines(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .take(3)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Runs `check` on every item with as many threads as there are CPUs;
/// the failures, in item order.
pub fn parallel<T: Sync>(
    items: &[T],
    check: impl Fn(usize, &T) -> Result<(), String> + Sync,
) -> Vec<String> {
    let jobs = std::env::var("SPMD_PTX_GATE_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(index) else { break };
                if let Err(failure) = check(index, item) {
                    failures.lock().unwrap().push((index, failure));
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    failures.into_iter().map(|(_, failure)| failure).collect()
}
