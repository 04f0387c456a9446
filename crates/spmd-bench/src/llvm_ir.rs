//! The LLVM IR form of a [`random_function`](spmd::testing::mlir_cfg::random_function),
//! so that LLVM's `structurizecfg` can run on exactly the CFG the spmd passes
//! see, and block / branch counts of LLVM IR text.
//!
//! The lowering uses the LLVM 22 tools (`mlir-opt --convert-to-llvm`, then
//! `mlir-translate --mlir-to-llvmir`) on the
//! [`thread_id_form`](spmd::testing::mlir_cfg::thread_id_form) of the function: the
//! divergent value is a call of `llvm.amdgcn.workitem.id.x` and the function
//! becomes an `amdgpu_kernel`, so its argument `%n` is uniform. Both facts
//! matter only to a divergence-aware run (`opt -mtriple=amdgcn-amd-amdhsa` with
//! `structurizecfg<skip-uniform-regions>`); plain `opt` without a GPU target
//! has no divergence information and `structurizecfg` structurizes every
//! branch.

use std::{
    io::Write,
    path::PathBuf,
    process::{Command, Stdio},
};

/// What AMDGPU runs before and as its structurizer: the function's exits
/// are unified, switches become branch trees, irreducible cycles get a
/// dispatch block, loop exits are unified, then `structurizecfg` inserts
/// its Flow blocks. Every branch counts as divergent here, so every return
/// is merged into one (`mergereturn`, what AMDGPU's
/// `amdgpu-unify-divergent-exit-nodes` does when every exit is divergent).
/// Without it `structurizecfg` leaves a function with several returns
/// unstructured at its top level (it works on single-exit regions): at
/// 1k blocks of the long-range family that left 5 returns and added 468
/// blocks, where the structured output adds 1363.
pub const STRUCTURIZECFG_PIPELINE: &str =
    "mergereturn,lower-switch,fix-irreducible,unify-loop-exits,structurizecfg";

/// AMDGPU's own sequence with `structurizecfg<skip-uniform-regions>`: the
/// divergently reached exits unified (`amdgpu-unify-divergent-exit-nodes`),
/// uniform regions kept. Needs `-mtriple=`[`AMDGPU_TRIPLE`], so that the
/// uniformity analysis sees divergence.
pub const STRUCTURIZECFG_SKIP_UNIFORM_PIPELINE: &str = "amdgpu-unify-divergent-exit-nodes,\
     lower-switch,fix-irreducible,unify-loop-exits,structurizecfg<skip-uniform-regions>";

/// A target triple with branch divergence (and the workitem intrinsics).
pub const AMDGPU_TRIPLE: &str = "amdgcn-amd-amdhsa";

/// The directory of the LLVM 22 tools: `$LLVM_BIN`, or `/usr/lib/llvm-22/bin`.
pub fn llvm_bin() -> PathBuf {
    std::env::var_os("LLVM_BIN")
        .map_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin"), PathBuf::from)
}

/// The LLVM IR of `mlir_text`, a function printed by
/// [`random_function`](spmd::testing::mlir_cfg::random_function); `Err` names the
/// step that failed.
pub fn llvm_ir_form(mlir_text: &str) -> Result<String, String> {
    let input =
        spmd::testing::mlir_cfg::thread_id_form(mlir_text).ok_or("not a random_function text")?;
    let bin = llvm_bin();
    let llvm_dialect = run(
        &bin.join("mlir-opt"),
        &["--convert-to-llvm", "--reconcile-unrealized-casts"],
        &input,
    )?;
    let ll = run(
        &bin.join("mlir-translate"),
        &["--mlir-to-llvmir"],
        &llvm_dialect,
    )?;
    let kernel = ll.replacen("define void @big(", "define amdgpu_kernel void @big(", 1);
    if kernel == ll {
        return Err("mlir-translate output has no `define void @big(`".into());
    }
    Ok(kernel)
}

/// Basic blocks in LLVM IR text with one function: its (unlabelled) entry
/// block plus one per label line.
pub fn count_blocks(ll: &str) -> usize {
    1 + labels(ll).count()
}

/// Blocks `structurizecfg` inserted: labels named `Flow`, `Flow1`, ...
pub fn count_flow_blocks(ll: &str) -> usize {
    labels(ll)
        .filter(|label| {
            label
                .strip_prefix("Flow")
                .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()))
        })
        .count()
}

/// Terminators with two or more successors (`br i1`, `switch`).
pub fn count_branches(ll: &str) -> usize {
    ll.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("br i1 ") || l.starts_with("switch "))
        .count()
}

/// Block labels (`name:` at column 0, without the colon).
fn labels(ll: &str) -> impl Iterator<Item = &str> {
    ll.lines()
        .filter(|l| !l.starts_with([' ', ';', '!']))
        .filter_map(|l| l.split_whitespace().next()?.strip_suffix(':'))
}

/// Stdout of `tool args` fed `stdin` (written from a thread, so large
/// inputs and outputs cannot deadlock on the pipes).
fn run(tool: &std::path::Path, args: &[&str], stdin: &str) -> Result<String, String> {
    let name = tool.display();
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{name}: {e}"))?;
    let mut pipe = child.stdin.take().expect("piped stdin");
    let output = std::thread::scope(|scope| {
        scope.spawn(move || pipe.write_all(stdin.as_bytes()));
        child.wait_with_output()
    })
    .map_err(|e| format!("{name}: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "{name} failed: {}",
            stderr.lines().next().unwrap_or_default()
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("{name}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_labels_flow_blocks_and_branches() {
        let ll = "define amdgpu_kernel void @big(i32 %0) {\n  br label %3\n\n3:                 ; preds = %1\n  br i1 %c, label %Flow, label %Flow12\n\nFlow:\n  switch i32 %0, label %3 [\n    i32 0, label %3\n  ]\n\nFlow12:\n  ret void\n}\n\nFlowery:\n";
        assert_eq!(count_blocks(ll), 5);
        assert_eq!(count_flow_blocks(ll), 2);
        assert_eq!(count_branches(ll), 2);
    }
}
