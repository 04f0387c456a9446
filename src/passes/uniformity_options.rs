//! The options shared by the uniformity passes.

use super::PassOptions;
use crate::{
    analysis::{
        divergence_sources::ExtraSources, region_uniformity::UniformityOptions,
        uniformity::ArgumentKind,
    },
    ir::diagnostics,
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Reads `default-arguments=divergent|uniform` (emitting a diagnostic on
/// `root` for any other value) and the `divergent-ops` / `uniform-ops`
/// name lists.
pub(super) fn parse(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
) -> Result<UniformityOptions, ()> {
    let default_arguments = match options.get_or("default-arguments", "divergent") {
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
    let list = |key: &str| -> Vec<String> {
        options
            .get_or(key, "")
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(String::from)
            .collect()
    };
    let extra_sources = ExtraSources {
        divergent: list("divergent-ops"),
        uniform: list("uniform-ops"),
    };
    Ok(UniformityOptions {
        default_arguments,
        extra_sources,
        complete_joins: false,
    })
}
