//! `--spmd-structurize`: see [`crate::transforms::structurize`].

use super::{for_each_region, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::{
    diagnostics,
    transforms::{
        reconverge::plan::Ordering,
        structurize::{structurize_function, IrreduciblePolicy, StructurizeOptions},
    },
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Reads a `bool` option (MLIR prints them as `true`/`false`; `1`/`0` are
/// accepted too).
pub(crate) fn bool_option(root: OperationRef<'_, '_>, options: &PassOptions, key: &str, default: bool) -> Result<bool, ()> {
    match options.get(key) {
        None => Ok(default),
        Some("true" | "1") => Ok(true),
        Some("false" | "0") => Ok(false),
        Some(other) => {
            diagnostics::emit_error(root.location(), &format!("invalid value '{other}' for option '{key}': expected 'true' or 'false'"));
            Err(())
        }
    }
}

/// Parses the pass options.
fn parse_options(root: OperationRef<'_, '_>, options: &PassOptions) -> Result<StructurizeOptions, ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let irreducible_text = options.get_or("irreducible", "reject");
    let Some(irreducible) = IrreduciblePolicy::parse(irreducible_text) else {
        diagnostics::emit_error(
            root.location(),
            &format!("invalid value '{irreducible_text}' for option 'irreducible': expected 'reject' or 'fix'"),
        );
        return Err(());
    };
    let ordering_text = options.get_or("ordering", "rpot");
    let Some(ordering) = Ordering::parse(ordering_text) else {
        diagnostics::emit_error(
            root.location(),
            &format!("invalid value '{ordering_text}' for option 'ordering': expected 'df', 'dfpd', 'bf' or 'rpot'"),
        );
        return Err(());
    };
    let selector_text = options.get_or("selector-chain-length", "4");
    let Ok(selector_chain_length) = selector_text.parse::<usize>() else {
        diagnostics::emit_error(
            root.location(),
            &format!("invalid value '{selector_text}' for option 'selector-chain-length': expected a non-negative integer"),
        );
        return Err(());
    };
    Ok(StructurizeOptions {
        selector_chain_length,
        skip_uniform_regions: bool_option(root, options, "skip-uniform-regions", false)?,
        relaxed_uniform_regions: bool_option(root, options, "relaxed-uniform-regions", true)?,
        irreducible,
        ordering,
        uniformity,
    })
}

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, _: &mut Report) -> Result<(), ()> {
    let options = parse_options(root, options)?;
    let context_ref = root.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context_ref.to_ref() };
    for_each_region(root, Scope::FunctionBodies, |function| {
        structurize_function(context, function.owner, function.region, &options).map(|_| ()).map_err(|error| {
            RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot structurize {}: {error}", function.label),
            }
        })
    })
}
