//! Test and benchmark support, not a stable API: compiled only with the
//! `testing` feature (and in the library's own unit tests). Random function
//! texts and the seed-count
//! helper of the property tests. The random CFGs themselves are
//! [`crate::graph::random`], and [`uniformity_bench`] times the uniformity
//! analysis on random programs; the kernels of the differential tests and
//! the executor that runs them are in the `spmd-oracle` crate.
//!
//! Besides the generators it re-exports, in [`ir`] and [`checks`], the
//! library internals the workspace's oracle, property tests, fuzz targets
//! and benchmarks read: IR accessors and the checkers of the transforms'
//! contracts. They are test and benchmark support, not a stable API: their
//! signatures follow the library's needs.

pub mod long_range;
pub mod mlir_cfg;

/// The IR accessors the reference executor (`spmd-oracle`) and the tests
/// share with the passes, so that both read the IR the same way.
pub mod ir {
    pub use crate::ir::collectives::{members_of_name, Lowering, Members};
    pub use crate::ir::edit::blocks;
    // The feature only: the library's own unit tests (cfg(test)) do not
    // compile these readers.
    #[cfg(feature = "testing")]
    pub use crate::ir::facts::{
        dense_elements_shape, element_at, llvm_array, llvm_pointer_space, llvm_struct_body,
        module_context, properties_text,
    };
    pub use crate::ir::key::{AttributeKey, BlockKey, OperationKey, TypeKey, ValueKey};
    pub use crate::ir::query::{is_function_like, successor_operand_range};
    pub use crate::transforms::prepare::{is_function_exit, op_name};
}

/// The checkers and counters the property tests, fuzz targets and quality
/// drivers apply to the transforms' output.
pub mod checks {
    pub use crate::analysis::reconverging::check_with_exits as check_reconverging_with_exits;
    pub use crate::analysis::structured::{
        check_structured, FlowShape, StructuredInput, StructuredViolation,
    };
    pub use crate::passes::verify_structured::first_marker_error;
    pub use crate::transforms::branch_fold::count as count_blocks_and_operations;
    #[cfg(feature = "testing")]
    pub use crate::transforms::branch_fold::property_violations as branch_fold_violations;
    pub use crate::transforms::structurize::flow_shapes;
}

/// The benchmark of the IR-independent uniformity analysis on random
/// programs (`spmd-bench`'s `uniformity_bench`).
pub mod uniformity_bench {
    pub use crate::analysis::uniformity::bench::run_benchmark;
}

/// Seeds a property test runs: the value of the environment variable `var`
/// (e.g. `SPMD_JIT_SEEDS=500`) when it parses as a number, else `default`.
pub fn seed_count<T: std::str::FromStr>(var: &str, default: T) -> T {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
