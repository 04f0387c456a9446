//! The option values of one pass run, typed.
//!
//! Options have one source, `SpmdPasses.td`. MLIR generates `Option<...>`
//! members from it for the C++ pass shell, with the ODS defaults, and
//! parses what a pipeline sets into them (rejecting a malformed `bool` or
//! `unsigned` itself, with its own diagnostic). The shell reads the members
//! and hands their typed values to the runner ([`OptionValue`]); no option
//! text is lexed and no default is restated on the Rust side. The runner
//! checks what the shell hands over against the ODS table generated at
//! build time ([`crate::ir::ods`]): every declared option, in declaration
//! order, with its declared kind. A mismatch is an internal error.
//!
//! Pass shells read values by key ([`PassOptions::flag`], ...); the
//! `read` functions validate the values MLIR cannot (the enum-like string
//! options such as `ordering`) and emit the located "invalid value"
//! diagnostics. The `Default` impls of the transform options read the same
//! ODS defaults as typed constants ([`crate::ir::ods`]'s per-pass modules).

use crate::ir::ods::{self, OptionKind};
pub(crate) use crate::ir::pass_runner::OptionValue;

/// The option values of one pass invocation, by key, in declaration order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct PassOptions {
    values: Vec<(String, OptionValue)>,
}

impl PassOptions {
    /// The values the shell of pass `pass` handed over. Panics (an internal
    /// error, reported as a diagnostic by the runner) unless they are
    /// exactly the options `SpmdPasses.td` declares for `pass`, in order,
    /// each with its declared kind.
    pub(crate) fn from_shell(pass: &str, values: Vec<(String, OptionValue)>) -> Self {
        let declared = ods::pass(pass).map_or(&[][..], |pass| pass.options);
        let matches = declared.len() == values.len()
            && declared
                .iter()
                .zip(&values)
                .all(|(option, (key, value))| option.key == key && option.kind == kind_of(value));
        assert!(
            matches,
            "the options the shell of '{pass}' hands over ({:?}) are not the ones SpmdPasses.td declares ({:?})",
            values.iter().map(|(key, _)| key.as_str()).collect::<Vec<_>>(),
            declared.iter().map(|option| option.key).collect::<Vec<_>>()
        );
        Self { values }
    }

    /// The value of `key`. Panics (an internal error) if the pass has no
    /// such option.
    pub(crate) fn get(&self, key: &str) -> &OptionValue {
        self.values
            .iter()
            .find(|(known, _)| known == key)
            .map(|(_, value)| value)
            .unwrap_or_else(|| panic!("the pass has no option '{key}'"))
    }

    /// Every option with its value, in declaration order (the unit test of
    /// the shells' defaults reads them).
    #[cfg(test)]
    pub(crate) fn values(&self) -> impl Iterator<Item = (&str, &OptionValue)> + '_ {
        self.values.iter().map(|(key, value)| (key.as_str(), value))
    }

    /// The `bool` option `key`.
    pub fn flag(&self, key: &str) -> bool {
        match self.get(key) {
            OptionValue::Flag(value) => *value,
            other => panic!("option '{key}' is not a bool: {other:?}"),
        }
    }

    /// The `unsigned` option `key`.
    pub fn unsigned(&self, key: &str) -> u32 {
        match self.get(key) {
            OptionValue::Unsigned(value) => *value,
            other => panic!("option '{key}' is not unsigned: {other:?}"),
        }
    }

    /// The `std::string` option `key`.
    pub fn text(&self, key: &str) -> &str {
        match self.get(key) {
            OptionValue::Text(value) => value,
            other => panic!("option '{key}' is not a string: {other:?}"),
        }
    }

    /// The list option `key`.
    pub fn list(&self, key: &str) -> &[String] {
        match self.get(key) {
            OptionValue::TextList(values) => values,
            other => panic!("option '{key}' is not a list: {other:?}"),
        }
    }
}

fn kind_of(value: &OptionValue) -> OptionKind {
    match value {
        OptionValue::Flag(_) => OptionKind::Flag,
        OptionValue::Unsigned(_) => OptionKind::Unsigned,
        OptionValue::Text(_) => OptionKind::Text,
        OptionValue::TextList(_) => OptionKind::TextList,
    }
}

/// Validating readers of the string options whose values MLIR does not
/// check: each emits "invalid value ... for option ..." on `root` and
/// returns `Err(())` for a value it cannot read.
pub(crate) mod read {
    use super::PassOptions;
    use crate::{ir::diagnostics, transforms::flow::plan::Ordering};
    use melior::ir::{operation::OperationLike, OperationRef};

    fn invalid(root: OperationRef<'_, '_>, key: &str, value: &str, expected: &str) {
        diagnostics::emit_error(
            root.location(),
            &format!("invalid value '{value}' for option '{key}': expected {expected}"),
        );
    }

    /// The string option `key`, one of the names `parse` accepts;
    /// `expected` lists them for the error.
    pub(crate) fn choice<T>(
        root: OperationRef<'_, '_>,
        options: &PassOptions,
        key: &str,
        parse: impl Fn(&str) -> Option<T>,
        expected: &str,
    ) -> Result<T, ()> {
        let text = options.text(key);
        parse(text).ok_or_else(|| invalid(root, key, text, expected))
    }

    /// The block ordering of the reconvergence sweep.
    pub(crate) fn ordering(
        root: OperationRef<'_, '_>,
        options: &PassOptions,
    ) -> Result<Ordering, ()> {
        choice(
            root,
            options,
            "ordering",
            Ordering::parse,
            "'df', 'dfpd', 'bf' or 'rpot'",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{OptionValue, PassOptions};

    fn text(value: &str) -> OptionValue {
        OptionValue::Text(value.to_string())
    }

    #[test]
    fn reads_the_values_the_shell_hands_over() {
        let options = PassOptions::from_shell(
            "spmd-verify-structured",
            vec![
                ("default-arguments".into(), text("uniform")),
                (
                    "divergent-ops".into(),
                    OptionValue::TextList(vec!["acme.lane".into()]),
                ),
                ("uniform-ops".into(), OptionValue::TextList(vec![])),
                ("use-uniformity".into(), OptionValue::Flag(true)),
            ],
        );
        assert_eq!(options.text("default-arguments"), "uniform");
        assert_eq!(options.list("divergent-ops"), ["acme.lane".to_string()]);
        assert!(options.flag("use-uniformity"));
        assert_eq!(
            PassOptions::from_shell("spmd-lower-to-cf", vec![]),
            PassOptions::default()
        );
    }

    #[test]
    #[should_panic(expected = "not the ones SpmdPasses.td declares")]
    fn options_the_td_does_not_declare_are_an_internal_error() {
        PassOptions::from_shell("spmd-lower-to-nvvm", vec![("wave-size".into(), text("32"))]);
    }
}
