//! Random gates on nests of irreducible cycles entered divergently
//! ([`crate::irreducible_gen`]): generated LLVM IR functions `@f<seed>` for
//! seeds `0..N`, [`BATCH`] functions to a module, so that `opt` and
//! `mlir-translate` run once per batch, not once per function.
//!
//! * [`random_irreducible_uniformity_is_sound_against_llvm`] checks spmd's
//!   uniformity analysis against LLVM's `print<uniformity>`, phi by phi,
//!   value by value and branch by branch ([`crate::llvm_uniformity_diff`]).
//!   Any unsound item (spmd uniform, LLVM divergent) fails; imprecise items
//!   (spmd divergent, LLVM uniform) are counted and printed, never failed
//!   on.
//! * [`random_irreducible_cfgs_structurize_and_reconverge`] runs every
//!   function, imported, through `spmd-structurize{irreducible=fix}` and
//!   through `spmd-reconverge` (the pass manager's verifier off, the MLIR
//!   verifier on the output after). An internal error (a panic is reported
//!   as one), any other error except the [`DOCUMENTED_REFUSALS`] (counted),
//!   or an output that does not verify fails.
//! * [`reduced_irreducible_cfgs_structurize_and_reconverge`]: the same on
//!   the minimal reproducers of what the gate found ([`REDUCED`]).
//!
//! CI size (the defaults, [`UNIFORMITY_FUNCTIONS`] and
//! [`STRUCTURIZE_FUNCTIONS`]; seconds in a debug build):
//!
//! ```text
//! cargo test --test integration irreducible_gate -- --nocapture
//! ```
//!
//! Benchmark size: the environment variables set the number of functions,
//!
//! ```text
//! SPMD_UNIFORMITY_GATE_FUNCTIONS=5000 SPMD_STRUCTURIZE_GATE_FUNCTIONS=2000 \
//!   cargo test --test integration irreducible_gate -- --nocapture
//! ```
//!
//! A failure names the function (`@f<seed>`) and prints the LLVM IR of the
//! smallest one; [`dump_irreducible_function`] prints any seed's.

use crate::{
    common::{context, parse},
    irreducible_gen::{random_function, random_module, HEADER},
    llvm_uniformity_diff::{compare_module, import_llvm, Item, Tally},
};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, RegionLike},
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context,
};
use std::{cell::RefCell, collections::BTreeMap, rc::Rc, time::Instant};

/// Functions per module (one `opt` and one `mlir-translate` run).
const BATCH: u64 = 80;

/// Functions of the uniformity gate unless
/// `SPMD_UNIFORMITY_GATE_FUNCTIONS` says otherwise.
const UNIFORMITY_FUNCTIONS: u64 = 400;

/// Functions of the structurize gate unless
/// `SPMD_STRUCTURIZE_GATE_FUNCTIONS` says otherwise.
const STRUCTURIZE_FUNCTIONS: u64 = 300;

/// The pipelines of the structurize gate.
const PIPELINES: &[&str] = &[
    "builtin.module(spmd-structurize{irreducible=fix})",
    "builtin.module(spmd-reconverge)",
];

/// Documented refusals, by a piece of their message: counted, not failed.
/// Any other error fails the structurize gate.
const DOCUMENTED_REFUSALS: &[&str] = &[
    // spmd-reconverge (docs: a divergent branch needs a point where its
    // threads rejoin, and a function that never returns may have none).
    "so its threads have no point to rejoin at",
];

fn count(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn batches(total: u64) -> impl Iterator<Item = std::ops::Range<u64>> {
    (0..total)
        .step_by(BATCH as usize)
        .map(move |start| start..(start + BATCH).min(total))
}

/// The seed of function `@f<seed>`.
fn seed_of(function: &str) -> u64 {
    function
        .trim_start_matches('f')
        .parse()
        .expect("a generated function")
}

/// The LLVM IR of `@f<seed>` alone, as a module.
fn reproducer(seed: u64) -> String {
    format!("{HEADER}{}", random_function(seed, &format!("f{seed}")).0)
}

#[test]
fn random_irreducible_uniformity_is_sound_against_llvm() {
    let total = count("SPMD_UNIFORMITY_GATE_FUNCTIONS", UNIFORMITY_FUNCTIONS);
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut hanging = 0;
    for seeds in batches(total) {
        hanging += seeds
            .clone()
            .filter(|&seed| !random_function(seed, "f").1)
            .count();
        let module = random_module(seeds.clone());
        compare_module(
            &format!("seeds {}..{}", seeds.start, seeds.end),
            &module,
            &mut tally,
            &|_| true,
        );
    }
    let imprecise: Vec<&Item> = tally.imprecise().collect();
    let unsound: Vec<&Item> = tally.unsound().collect();
    eprintln!(
        "irreducible uniformity gate: {} functions ({hanging} without a return block, {} with a cycle LLVM assumes divergent) in {:.1?}",
        tally.functions,
        tally.assumed_divergent,
        started.elapsed()
    );
    eprint!("{}", tally.summary("irreducible uniformity gate"));
    eprintln!(
        "irreducible uniformity gate: {} unsound, {} imprecise in all",
        unsound.len(),
        imprecise.len()
    );
    if !imprecise.is_empty() {
        let listed: Vec<String> = imprecise.iter().take(8).map(|i| i.to_string()).collect();
        eprintln!("imprecise, the first: {}", listed.join("; "));
    }
    assert_eq!(tally.functions as u64, total, "a function went missing");
    if !unsound.is_empty() {
        let mut functions = BTreeMap::<&str, usize>::new();
        for item in &unsound {
            *functions.entry(item.function.as_str()).or_default() += 1;
        }
        let listed: Vec<String> = unsound.iter().take(40).map(|i| i.to_string()).collect();
        let smallest = functions
            .keys()
            .map(|f| reproducer(seed_of(f)))
            .min_by_key(String::len)
            .unwrap_or_default();
        panic!(
            "{} unsound items in {} functions; the first:\n{}\nthe smallest such function:\n{smallest}",
            unsound.len(),
            functions.len(),
            listed.join("\n")
        );
    }
    assert!(
        tally.assumed_divergent * 4 >= tally.functions,
        "the generator should enter cycles divergently more often"
    );
}

/// Runs `pipeline` on `module`: the diagnostics on failure.
fn try_pipeline(context: &Context, module: &mut Module, pipeline: &str) -> Result<(), Vec<String>> {
    spmd::register_all_passes();
    let messages = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = messages.clone();
    let handler = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(d.to_string());
        true
    });
    let manager = PassManager::new(context);
    // The gate verifies the output itself, to tell a pass's error from an
    // invalid output.
    manager.enable_verifier(false);
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline).expect("valid pipeline");
    let result = manager.run(module);
    context.detach_diagnostic_handler(handler);
    let messages = messages.borrow().clone();
    result.map_err(|_| messages)
}

/// How a failure of the verifier on a pass's output starts.
const UNVERIFIED: &str = "the output does not verify";

/// Runs the MLIR verifier on `module`: its diagnostics on failure.
fn verify(context: &Context, module: &Module) -> Result<(), Vec<String>> {
    let messages = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = messages.clone();
    let handler = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(d.to_string());
        true
    });
    let valid = module.as_operation().verify();
    context.detach_diagnostic_handler(handler);
    let messages = messages.borrow().clone();
    if valid {
        Ok(())
    } else {
        Err(messages)
    }
}

/// The text of every defined `llvm.func` of an imported module, by name.
fn functions_of(imported: &Module) -> Vec<(String, String)> {
    let body = imported.body();
    let mut functions = Vec::new();
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let is_function = op.name().as_string_ref().as_str() == Ok("llvm.func");
        let defined = op
            .region(0)
            .is_ok_and(|region| region.first_block().is_some());
        if is_function && defined {
            let name = op
                .attribute("sym_name")
                .expect("a named function")
                .to_string();
            functions.push((name.trim_matches('"').to_string(), op.to_string()));
        }
    }
    functions
}

/// A failed pipeline run: (function, pipeline, what went wrong).
type Failure = (String, &'static str, String);

/// Runs every pipeline of [`PIPELINES`] on `function` (the text of one
/// `llvm.func`), each on a fresh module, and records what fails.
fn check_function(context: &Context, name: &str, function: &str, failures: &mut Vec<Failure>) {
    for &pipeline in PIPELINES {
        let mut module = parse(context, &format!("module {{\n{function}\n}}\n"));
        let failure = match try_pipeline(context, &mut module, pipeline) {
            Err(messages) => messages.join("\n"),
            Ok(()) => match verify(context, &module) {
                Err(messages) => format!("{UNVERIFIED}: {}", messages.join("\n")),
                Ok(()) => continue,
            },
        };
        failures.push((name.to_string(), pipeline, failure));
    }
}

/// Minimal reproducers of what the structurize gate found (LLVM IR, one
/// function each; reduced with llvm-reduce, then rewritten by hand), kept
/// as a regression test. All three: one path returns, the other never does;
/// a value defined on the returning path (%v) no longer dominates its use
/// after the pass.
const REDUCED: &[&str] = &[
    // spmd-structurize (from @f243): the infinite loop is uniform and
    // reducible, a self-loop.
    r#"
define amdgpu_kernel void @returns_or_spins_uniformly(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %u = icmp sgt i32 %a, 0
  br i1 %u, label %spin, label %done
spin:
  br label %spin
done:
  %v = add i32 %b, 1
  br label %ret
ret:
  store i32 %v, ptr addrspace(1) %out
  ret void
}
"#,
    // spmd-structurize and spmd-reconverge (from @f1631): a divergent
    // branch in the infinite loop.
    r#"
define amdgpu_kernel void @returns_or_loops_divergently(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %u = icmp sgt i32 %a, 0
  br i1 %u, label %done, label %loop
done:
  %v = add i32 %b, 1
  br label %ret
loop:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = icmp sgt i32 %tid, 0
  br i1 %d, label %left, label %right
left:
  br label %latch
right:
  br label %latch
latch:
  br label %loop
ret:
  store i32 %v, ptr addrspace(1) %out
  ret void
}
"#,
    // spmd-structurize and spmd-reconverge (from @f123): the infinite loop
    // is an irreducible cycle entered divergently at two blocks.
    r#"
define amdgpu_kernel void @returns_or_spins_irreducibly(i32 %a, i32 %b, ptr addrspace(1) %out) {
entry:
  %u = icmp sgt i32 %a, 0
  br i1 %u, label %done, label %spin
done:
  %v = add i32 %b, 1
  br label %ret
spin:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = icmp sgt i32 %tid, 0
  br i1 %d, label %y, label %x
x1:
  br label %x
x2:
  br label %x
x:
  br label %y
y:
  %e = icmp eq i32 %b, 0
  br i1 %e, label %x1, label %x2
ret:
  store i32 %v, ptr addrspace(1) %out
  ret void
}
"#,
];

#[test]
fn reduced_irreducible_cfgs_structurize_and_reconverge() {
    let context = context();
    let module = format!("{HEADER}{}", REDUCED.join("\n"));
    let imported = parse(&context, &import_llvm(&module));
    let mut failures = Vec::new();
    let functions = functions_of(&imported);
    assert_eq!(functions.len(), REDUCED.len());
    for (name, function) in &functions {
        check_function(&context, name, function, &mut failures);
    }
    let listed: Vec<String> = failures
        .iter()
        .map(|(f, p, m)| format!("@{f} {p}: {m}"))
        .collect();
    assert!(failures.is_empty(), "{}", listed.join("\n"));
}

#[test]
fn random_irreducible_cfgs_structurize_and_reconverge() {
    let total = count("SPMD_STRUCTURIZE_GATE_FUNCTIONS", STRUCTURIZE_FUNCTIONS);
    let started = Instant::now();
    let context = context();
    let mut hanging = 0;
    let mut failures: Vec<Failure> = Vec::new();
    for seeds in batches(total) {
        let imported_text = import_llvm(&random_module(seeds.clone()));
        let imported = parse(&context, &imported_text);
        let functions = functions_of(&imported);
        assert_eq!(functions.len() as u64, seeds.end - seeds.start);
        for (name, function) in functions {
            if !random_function(seed_of(&name), "f").1 {
                hanging += 1;
            }
            check_function(&context, &name, &function, &mut failures);
        }
    }
    let runs = total as usize * PIPELINES.len();
    let mut refused = BTreeMap::<&str, usize>::new();
    failures.retain(|(_, _, message)| {
        let refusal = DOCUMENTED_REFUSALS
            .iter()
            .find(|r| message.contains(*r) && !message.contains("internal error"));
        if let Some(refusal) = refusal {
            *refused.entry(refusal).or_default() += 1;
        }
        refusal.is_none()
    });
    let internal = failures
        .iter()
        .filter(|(_, _, m)| m.contains("internal error"))
        .count();
    let nothing_to_do = failures
        .iter()
        .filter(|(_, _, m)| m.contains("the planner found nothing to do"))
        .count();
    let unverified = failures
        .iter()
        .filter(|(_, _, m)| m.starts_with(UNVERIFIED))
        .count();
    eprintln!(
        "irreducible structurize gate: {total} functions ({hanging} without a return block), {runs} pipeline runs in {:.1?}: {} failed ({internal} internal errors, {nothing_to_do} of them 'the planner found nothing to do'; {unverified} outputs that do not verify; {} other errors); documented refusals: {refused:?}",
        started.elapsed(),
        failures.len(),
        failures.len() - internal - unverified,
    );
    if let Some((name, _, _)) = failures.first() {
        let listed: Vec<String> = failures
            .iter()
            .take(20)
            .map(|(f, p, m)| {
                let returns = random_function(seed_of(f), "f").1;
                let note = if returns { "" } else { " (no return block)" };
                format!("@{f}{note} {p}: {m}")
            })
            .collect();
        let smallest = failures
            .iter()
            .map(|(f, _, _)| reproducer(seed_of(f)))
            .min_by_key(String::len)
            .unwrap_or_else(|| reproducer(seed_of(name)));
        panic!(
            "{} failed pipeline runs; the first:\n{}\nthe smallest failing function:\n{smallest}",
            failures.len(),
            listed.join("\n")
        );
    }
}

/// Prints the LLVM IR module of `@f<seed>` for `SPMD_IRREDUCIBLE_SEED=<seed>`,
/// or of the functions of seeds `a..b` for `SPMD_IRREDUCIBLE_SEED=a..b`:
///
/// ```text
/// SPMD_IRREDUCIBLE_SEED=74 cargo test --test integration dump_irreducible_function -- --ignored --nocapture
/// ```
#[test]
#[ignore = "a tool: prints generated functions"]
fn dump_irreducible_function() {
    let seeds = std::env::var("SPMD_IRREDUCIBLE_SEED").unwrap_or_else(|_| "0".into());
    let text = match seeds.split_once("..") {
        Some((a, b)) => random_module(a.parse().expect("a seed")..b.parse().expect("a seed")),
        None => reproducer(seeds.parse().expect("a seed")),
    };
    println!("{text}");
}
