//! The options shared by the uniformity passes.

use super::{options::read, PassOptions};
use crate::analysis::{
    divergence_sources::ExtraSources,
    region_uniformity::{argument_kind_of_option, UniformityOptions},
};
use melior::ir::OperationRef;

/// Reads `default-arguments=divergent|uniform` (emitting a diagnostic on
/// `root` for any other value) and the `divergent-ops` / `uniform-ops`
/// name lists.
pub(crate) fn parse(
    root: OperationRef<'_, '_>,
    options: &PassOptions,
) -> Result<UniformityOptions, ()> {
    let default_arguments = read::choice(
        root,
        options,
        "default-arguments",
        argument_kind_of_option,
        "'uniform' or 'divergent'",
    )?;
    let list = |key: &str| -> Vec<String> {
        options
            .list(key)
            .iter()
            .map(|name| name.trim())
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
