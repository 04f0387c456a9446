//! The options shared by the uniformity passes.

use super::PassOptions;
use crate::{
    analysis::{region_uniformity::UniformityOptions, uniformity::ArgumentKind},
    diagnostics,
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Reads `default-arguments=uniform|divergent`, emitting a diagnostic on
/// `root` for any other value.
pub fn parse(root: OperationRef<'_, '_>, options: &PassOptions) -> Result<UniformityOptions, ()> {
    let default_arguments = match options.get_or("default-arguments", "uniform") {
        "uniform" => ArgumentKind::Uniform,
        "divergent" => ArgumentKind::Divergent,
        other => {
            diagnostics::emit_error(
                root.location(),
                &format!("invalid value '{other}' for option 'default-arguments': expected 'uniform' or 'divergent'"),
            );
            return Err(());
        }
    };
    Ok(UniformityOptions { default_arguments, complete_joins: false })
}
