//! Embedding spmd in a Rust compiler: parse a kernel, run spmd passes from a
//! textual pipeline, print the result. README's "Embedding from Rust" shows
//! this file verbatim (a lit test keeps the two equal); CI builds and runs it.
//!
//! cargo run --example embed

use melior::{ir::Module, pass::PassManager, utility::parse_pass_pipeline};

// Threads with tid < 16 leave early: the branch on %low is divergent and
// its two sides never meet again, so spmd-reconverge adds a Flow block.
const KERNEL: &str = r#"
func.func @kernel(%tid: i32 {spmd.divergent}, %out: memref<?xi32>) {
  %c16 = arith.constant 16 : i32
  %i = arith.index_cast %tid : i32 to index
  %low = arith.cmpi ult, %tid, %c16 : i32
  cf.cond_br %low, ^early, ^rest
^early:
  memref.store %tid, %out[%i] : memref<?xi32>
  return
^rest:
  memref.store %c16, %out[%i] : memref<?xi32>
  return
}
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Every upstream dialect plus the spmd dialect, loaded.
    let context = spmd::context_with_all_dialects();
    // The spmd-* passes become known to textual pipelines.
    spmd::register_all_passes();

    let mut module = Module::parse(&context, KERNEL).ok_or("the kernel does not parse")?;
    let pass_manager = PassManager::new(&context);
    parse_pass_pipeline(
        pass_manager.as_operation_pass_manager(),
        "builtin.module(spmd-reconverge)",
    )?;
    pass_manager.run(&mut module)?;

    println!("{}", module.as_operation());
    Ok(())
}
