//! Parsing of the textual option list MLIR hands to a pass shell.
//!
//! MLIR has already validated the options against the pass declaration in
//! `SpmdPasses.td`, so the text is well formed: `{key=value key2=value2}`,
//! or empty when the pass has no options. Values may be quoted or braced
//! when they contain spaces.

use std::collections::BTreeMap;

/// Options of one pass invocation, by key.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct PassOptions {
    values: BTreeMap<String, String>,
}

impl PassOptions {
    /// Parses `{k=v k2=v2}` (the braces are optional).
    pub(crate) fn parse(text: &str) -> Self {
        let text = text.trim();
        let inner = text
            .strip_prefix('{')
            .and_then(|rest| rest.strip_suffix('}'))
            .unwrap_or(text);
        let mut values = BTreeMap::new();
        for item in split_top_level(inner) {
            let (key, value) = item.split_once('=').unwrap_or((item, "true"));
            values.insert(key.trim().to_string(), unquote(value.trim()).to_string());
        }
        Self { values }
    }

    /// The raw value of `key`, if it was printed.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// The value of `key`, or `default` when absent.
    pub(crate) fn get_or<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.get(key).unwrap_or(default)
    }
}

/// Splits on spaces that are not inside quotes or braces.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut quoted, mut start) = (0usize, false, 0usize);
    for (index, ch) in text.char_indices() {
        match ch {
            '"' | '\'' => quoted = !quoted,
            '{' if !quoted => depth += 1,
            '}' if !quoted => depth = depth.saturating_sub(1),
            ' ' if !quoted && depth == 0 => {
                if index > start {
                    items.push(&text[start..index]);
                }
                start = index + 1;
            }
            _ => {}
        }
    }
    if start < text.len() {
        items.push(&text[start..]);
    }
    items
}

fn unquote(value: &str) -> &str {
    for (open, close) in [('"', '"'), ('\'', '\''), ('{', '}')] {
        if let Some(inner) = value.strip_prefix(open).and_then(|v| v.strip_suffix(close)) {
            return inner;
        }
    }
    value
}

/// Typed option readers: each emits "invalid value ... for option ..." on
/// `root` and returns `Err(())` for a value it cannot read.
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

    /// A `bool` (MLIR prints them as `true`/`false`; `1`/`0` are accepted).
    pub(crate) fn flag(
        root: OperationRef<'_, '_>,
        options: &PassOptions,
        key: &str,
        default: bool,
    ) -> Result<bool, ()> {
        match options.get(key) {
            None => Ok(default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(other) => {
                invalid(root, key, other, "'true' or 'false'");
                Err(())
            }
        }
    }

    /// A non-negative integer.
    pub(crate) fn number(
        root: OperationRef<'_, '_>,
        options: &PassOptions,
        key: &str,
        default: usize,
    ) -> Result<usize, ()> {
        let Some(text) = options.get(key) else {
            return Ok(default);
        };
        text.parse()
            .map_err(|_| invalid(root, key, text, "a non-negative integer"))
    }

    /// One of the names `parse` accepts; `expected` lists them for the error.
    pub(crate) fn choice<T>(
        root: OperationRef<'_, '_>,
        options: &PassOptions,
        key: &str,
        default: &str,
        parse: impl Fn(&str) -> Option<T>,
        expected: &str,
    ) -> Result<T, ()> {
        let text = options.get_or(key, default);
        parse(text).ok_or_else(|| invalid(root, key, text, expected))
    }

    /// The block ordering of the reconvergence sweep.
    pub(crate) fn ordering(
        root: OperationRef<'_, '_>,
        options: &PassOptions,
        default: &str,
    ) -> Result<Ordering, ()> {
        choice(
            root,
            options,
            "ordering",
            default,
            Ordering::parse,
            "'df', 'dfpd', 'bf' or 'rpot'",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::PassOptions;

    #[test]
    fn parses_printed_option_lists() {
        let options = PassOptions::parse("{ordering=dfpd output=\"a b.dot\" skip=true}");
        assert_eq!(options.get("ordering"), Some("dfpd"));
        assert_eq!(options.get("output"), Some("a b.dot"));
        assert_eq!(options.get_or("missing", "x"), "x");
        assert_eq!(PassOptions::parse(""), PassOptions::default());
    }
}
