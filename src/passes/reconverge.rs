//! `--spmd-reconverge`: see [`crate::transforms::reconverge`].

use super::{for_each_region, uniformity_options, PassOptions, RegionFailure, Report, Scope};
use crate::{
    diagnostics,
    transforms::reconverge::{plan::Ordering, reconverge_function, ReconvergeOptions},
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Runs the pass on `root`.
pub fn run(root: OperationRef<'_, '_>, options: &PassOptions, _: &mut Report) -> Result<(), ()> {
    let uniformity = uniformity_options::parse(root, options)?;
    let ordering_text = options.get_or("ordering", "dfpd");
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
    let options = ReconvergeOptions { ordering, uniformity, selector_chain_length };
    let context_ref = root.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context_ref.to_ref() };
    for_each_region(root, Scope::FunctionBodies, |function| {
        reconverge_function(context, function.owner, function.region, &options).map(|_| ()).map_err(|error| {
            RegionFailure {
                location: error.location(function.owner.location()),
                message: format!("cannot reconverge {}: {error}", function.label),
            }
        })
    })
}
