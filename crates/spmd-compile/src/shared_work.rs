//! `--shared-work auto` (amdgcn): per function, whether a divergent branch
//! whose two sides share work before they meet is better reconverged by
//! spmd (a Flow block runs the shared work once for both sides) or left a
//! per-lane branch for the AMDGPU backend, whose StructurizeCFG runs it
//! once as well (`spmd.lane_shared_work`).
//!
//! Neither is smaller everywhere. spmd's Flow blocks keep the backend from
//! building long chains of path predicates where many branches lead to a
//! few joins (multi-exit switches: up to 5x fewer instructions), but where
//! the backend would structurize the region anyway they come on top of its
//! own Flow blocks (up to 1.25x more). The structure of the code decides,
//! not a count of blocks that could be read off the CFG beforehand (the
//! backend's predicates and register moves are what differ), so the driver
//! measures: it compiles a copy of the module each way to AMDGPU assembly,
//! counts each function's instructions, and marks the functions that came
//! out smaller as lane branches. The final compile then runs once more.
//! Ties keep spmd's reconvergence. Where the wave-level code comes out the
//! same both ways (most kernels: no branch whose sides share work outside
//! the regions that need converged lanes), the backend is not run for the
//! trials.

use crate::{mlir::BackendOutput, mlir::Session, options::Options, Failure};
use melior::ir::Module;
use std::collections::{HashMap, HashSet};

/// Marks the functions of `module` whose code is smaller with
/// `spmd.lane_shared_work`, measured on two trial compiles. When the
/// wave-level code is the same both ways (no branch where the choice
/// matters), no trial reaches the backend and nothing is marked.
pub(crate) fn choose(
    session: &Session,
    module: &mut Module,
    options: &Options,
) -> Result<(), Failure> {
    // Warnings of the stages so far, before the trials' own are dropped.
    crate::print_warnings(session);
    let mut reconverged = wave_level_copy(session, module, options, false)?;
    let mut lanes = wave_level_copy(session, module, options, true)?;
    if same_code(session, &reconverged, &lanes)? {
        session.take_diagnostics();
        return Ok(());
    }
    let reconverged = instruction_counts(&assembly(session, &mut reconverged, options)?);
    let lanes = instruction_counts(&assembly(session, &mut lanes, options)?);
    let smaller: HashSet<&str> = lanes
        .iter()
        .filter(|(name, count)| reconverged.get(*name).is_some_and(|r| *count < r))
        .map(|(name, _)| name.as_str())
        .collect();
    session.mark_lane_shared_work(module, &|name| smaller.contains(name));
    Ok(())
}

const STAGE: &str = "the trial compile of --shared-work auto";

/// A copy of `module` after the wave-level passes, with every function
/// marked first when `lanes`.
fn wave_level_copy<'s>(
    session: &'s Session,
    module: &Module,
    options: &Options,
    lanes: bool,
) -> Result<Module<'s>, Failure> {
    let mut copy = session
        .copy_module(module)
        .map_err(|()| Failure::from_session(STAGE, session))?;
    if lanes {
        session.mark_lane_shared_work(&mut copy, &|_| true);
    }
    crate::run_wave_passes(session, &mut copy, options)?;
    Ok(copy)
}

/// True if the two wave-level copies are the same code once the marks are
/// set aside.
fn same_code(session: &Session, reconverged: &Module, lanes: &Module) -> Result<bool, Failure> {
    let mut unmarked = session
        .copy_module(lanes)
        .map_err(|()| Failure::from_session(STAGE, session))?;
    session.unmark_lane_shared_work(&mut unmarked);
    Ok(reconverged.as_operation().to_string() == unmarked.as_operation().to_string())
}

/// The AMDGPU assembly of the wave-level `module` (lowered in place). The
/// trial's warnings are dropped: the final compile gives them again.
fn assembly(session: &Session, module: &mut Module, options: &Options) -> Result<String, Failure> {
    crate::run_lowering(session, module, options)?;
    session.keep_uniform_regions();
    let device = session
        .device_module(module)
        .map_err(|()| Failure::from_session(STAGE, session))?;
    let assembly = session
        .backend(
            &device,
            options.target.triple(),
            &options.mcpu,
            &options.features(0),
            "",
            BackendOutput::Assembly,
        )
        .map_err(|()| Failure::from_session(STAGE, session))?;
    session.take_diagnostics();
    Ok(String::from_utf8_lossy(&assembly).into_owned())
}

/// Instructions per function of AMDGPU assembly: the lines of a mnemonic
/// (`s_`, `v_` and the memory instructions) from a function's `; -- Begin
/// function NAME` to the next one or the module's metadata.
pub(crate) fn instruction_counts(assembly: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    let mut current: Option<String> = None;
    for line in assembly.lines() {
        if let Some((_, name)) = line.split_once("; -- Begin function ") {
            let name = name.trim().to_string();
            counts.entry(name.clone()).or_insert(0);
            current = Some(name);
        } else if line.starts_with("\t.amdgpu_metadata") {
            current = None;
        } else if let Some(name) = &current {
            if is_instruction(line) {
                *counts.get_mut(name).expect("entered at its Begin line") += 1;
            }
        }
    }
    counts
}

/// True for an indented line that starts with an instruction mnemonic.
fn is_instruction(line: &str) -> bool {
    const PREFIXES: [&str; 7] = ["s_", "v_", "global_", "flat_", "buffer_", "ds_", "scratch_"];
    let indented = line.starts_with(|c: char| c.is_ascii_whitespace());
    let word = line.trim_start();
    indented
        && PREFIXES.iter().any(|prefix| {
            word.strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphanumeric()))
        })
}

#[cfg(test)]
mod tests {
    use super::instruction_counts;

    #[test]
    fn counts_instructions_per_function() {
        let assembly = "\t.text\n\
            \t.globl\tk ; -- Begin function k\n\
            k:\n\
            \ts_load_dword s0, s[4:5], 0x0\n\
            \tv_mov_b32 v0, 0 ; comment\n\
            .LBB0_1:\n\
            \ts_endpgm\n\
            \t.section\t.rodata\n\
            \t.amdhsa_kernel k\n\
            \t.amdhsa_next_free_vgpr 1\n\
            \t.text\n\
            \t.p2align\t2 ; -- Begin function f\n\
            f:\n\
            \tglobal_store_dword v[0:1], v2, off\n\
            \ts_setpc_b64 s[30:31]\n\
            \t.amdgpu_metadata\n\
            \ts_not_an_instruction\n";
        let counts = instruction_counts(assembly);
        assert_eq!(counts["k"], 3);
        assert_eq!(counts["f"], 2);
        assert_eq!(counts.len(), 2);
    }
}
