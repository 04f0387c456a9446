//! The CI smoke run of the fuzz targets on stable: each target on
//! pseudo-random byte strings from a fixed-seed generator, so every run
//! sees the same inputs.
//!
//! * `SPMD_FUZZ_SMOKE=<n>`: inputs for `graph_core` (default
//!   [`DEFAULT_INPUTS`]); the two MLIR targets get `n / 2` each (at least
//!   one).
//! * `SPMD_FUZZ_SEED=<s>`: another fixed seed (default 0) for other inputs.
//! * `SPMD_FUZZ_TRACE=1`: print every input (hex) before it runs.
//! * `SPMD_FUZZ_REPLAY=<target>:<hex>`: run one input, e.g. the one a
//!   failing smoke run or a `cargo fuzz` artifact (`xxd -p`) names.
//!
//! A failing input is printed as hex before the panic propagates.

use spmd::testing::seed_count as env_number;
use spmd_fuzz::{graph_core, reconverge_definition1, textual_front_door, SNIPPETS};
use spmd_graph::random::SplitMix64;

/// `graph_core` inputs when `SPMD_FUZZ_SMOKE` is not set (about 10 s of
/// the three targets together in a debug build on two cores).
const DEFAULT_INPUTS: usize = 1000;

/// A byte string of 0 to `max_len` bytes from `rng`.
fn bytes(rng: &mut SplitMix64, max_len: usize) -> Vec<u8> {
    let len = (rng.next_u64() % (max_len as u64 + 1)) as usize;
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

fn hex(data: &[u8]) -> String {
    data.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `target` on `count` inputs of up to `max_len` bytes from `seed`
/// (offset by `SPMD_FUZZ_SEED`).
fn smoke(name: &str, seed: u64, count: usize, max_len: usize, target: fn(&[u8])) {
    let trace = std::env::var_os("SPMD_FUZZ_TRACE").is_some();
    let seed = seed.wrapping_add(env_number("SPMD_FUZZ_SEED", 0u64).wrapping_mul(1_000_003));
    let mut rng = SplitMix64::new(seed);
    for index in 0..count {
        let data = bytes(&mut rng, max_len);
        if trace {
            eprintln!("{name} input {index}: {}", hex(&data));
        }
        if let Err(panic) = std::panic::catch_unwind(|| target(&data)) {
            eprintln!(
                "{name}: input {index} failed; replay it with\n  SPMD_FUZZ_REPLAY={name}:{} cargo test -p spmd-fuzz --test smoke replay",
                hex(&data)
            );
            std::panic::resume_unwind(panic);
        }
    }
}

fn mlir_inputs() -> usize {
    (env_number("SPMD_FUZZ_SMOKE", DEFAULT_INPUTS) / 2).max(1)
}

#[test]
fn graph_core_smoke() {
    let count = env_number("SPMD_FUZZ_SMOKE", DEFAULT_INPUTS);
    smoke("graph_core", 1, count, 512, graph_core);
}

#[test]
fn reconverge_definition1_smoke() {
    smoke(
        "reconverge_definition1",
        2,
        mlir_inputs(),
        256,
        reconverge_definition1,
    );
}

#[test]
fn textual_front_door_smoke() {
    smoke(
        "textual_front_door",
        3,
        mlir_inputs(),
        64,
        textual_front_door,
    );
}

/// The empty input and short ones are fine for every target.
#[test]
fn trivial_inputs() {
    for data in [&[][..], &[0], &[255; 7], &[1, 2, 3, 4, 5, 6, 7, 8, 9]] {
        graph_core(data);
        reconverge_definition1(data);
        textual_front_door(data);
    }
}

/// Every snippet parses and verifies, so the mutations start from valid
/// programs.
#[test]
fn snippets_parse() {
    let context = spmd::context_with_all_dialects();
    for snippet in SNIPPETS {
        let module = melior::ir::Module::parse(&context, snippet);
        assert!(module.is_some(), "does not parse:\n{snippet}");
    }
}

/// `SPMD_FUZZ_REPLAY=<target>:<hex>` runs that one input; nothing without it.
#[test]
fn replay() {
    let Ok(spec) = std::env::var("SPMD_FUZZ_REPLAY") else {
        return;
    };
    let (name, digits) = spec
        .split_once(':')
        .expect("SPMD_FUZZ_REPLAY=<target>:<hex>");
    let data: Vec<u8> = (0..digits.len() / 2)
        .map(|i| u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).expect("hex digits"))
        .collect();
    let target: fn(&[u8]) = match name {
        "graph_core" => graph_core,
        "reconverge_definition1" => reconverge_definition1,
        "textual_front_door" => textual_front_door,
        _ => panic!("unknown target {name}"),
    };
    target(&data);
}
