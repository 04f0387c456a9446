//! Builds the C++ half of spmd (dialect/, cmake/) with CMake and links its
//! static archives whole-archive into every Rust artifact, so they resolve
//! against the single static copy of MLIR that mlir-sys links. The dialect
//! plugin (libSpmdPlugin.so, linked against libMLIR.so for Debian's mlir-opt)
//! is copied next to the binaries, e.g. target/debug/libSpmdPlugin.so.
//! It also turns the pass declarations of SpmdPasses.td into Rust tables
//! (option defaults, statistics) for `src/ir/ods.rs`.

use std::{env, fs, path::PathBuf};

/// Static archives built by dialect/CMakeLists.txt, in link order.
const ARCHIVES: &[&str] = &["SpmdOptMain", "SpmdPassShells", "SpmdCAPI", "SpmdDialect"];

fn main() {
    let prefix = env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    for path in ["dialect", "cmake"] {
        println!("cargo:rerun-if-changed={path}");
    }
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-env-changed=SPMD_DIALECT_CXX");

    let mut config = cmake::Config::new("dialect");
    // The C++ compiler of the dialect. The installed plugin needs the one
    // that built libMLIR.so (Debian: clang), see docs/embedding.md.
    if let Ok(compiler) = env::var("SPMD_DIALECT_CXX") {
        config.define("CMAKE_CXX_COMPILER", &compiler);
    }
    let install = config
        .generator("Ninja")
        .profile("Release")
        .define("MLIR_DIR", format!("{prefix}/lib/cmake/mlir"))
        .define("LLVM_DIR", format!("{prefix}/lib/cmake/llvm"))
        .build_target("all")
        .build();
    let lib_dir = install.join("build").join("lib");

    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    for archive in ARCHIVES {
        println!("cargo:rustc-link-lib=static:+whole-archive={archive}");
    }

    copy_plugin_next_to_binaries(&lib_dir);
    generate_ods_tables(&prefix);

    // melior's `dialect!` macro reads the ODS files through this variable.
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    println!(
        "cargo:rustc-env=SPMD_ODS_INCLUDE_DIR={}",
        manifest.join("dialect").join("include").display()
    );
}

/// OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out: the binaries live
/// three levels up.
fn copy_plugin_next_to_binaries(lib_dir: &std::path::Path) {
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let Some(profile_dir) = out_dir.ancestors().nth(3) else {
        return;
    };
    let plugin = lib_dir.join("libSpmdPlugin.so");
    fs::copy(&plugin, profile_dir.join("libSpmdPlugin.so"))
        .unwrap_or_else(|error| panic!("cannot copy {}: {error}", plugin.display()));
}

/// Reads the pass declarations of `SpmdPasses.td` (through `mlir-tblgen
/// --print-records`, so TableGen resolves classes and `!listconcat`) and
/// writes `$OUT_DIR/spmd_passes_ods.rs`, which `src/ir/ods.rs` includes:
/// every pass with its options (key, kind, default) and statistics (name,
/// description), and per pass a module of typed default constants. This
/// makes ODS the only place an option default or a statistic is written.
fn generate_ods_tables(prefix: &str) {
    let td = "dialect/include/Spmd/SpmdPasses.td";
    let output = std::process::Command::new(format!("{prefix}/bin/mlir-tblgen"))
        .args(["--print-records", "-I", &format!("{prefix}/include"), td])
        .output()
        .unwrap_or_else(|error| panic!("cannot run {prefix}/bin/mlir-tblgen: {error}"));
    assert!(
        output.status.success(),
        "mlir-tblgen --print-records {td} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let records = parse_records(&String::from_utf8(output.stdout).expect("UTF-8 records"));
    let mut passes: Vec<&Record> = records
        .values()
        .filter(|record| record.classes.iter().any(|class| class == "Pass"))
        .collect();
    passes.sort_by_key(|pass| pass.field("argument"));
    let mut table = String::new();
    let mut modules = String::new();
    for pass in passes {
        let argument = pass.field("argument");
        table += &format!("    OdsPass {{\n        argument: {argument:?},\n        options: &[\n");
        let module = argument.replace('-', "_");
        modules += &format!(
            "/// The option defaults and statistics of `--{argument}` (`{}`).\npub mod {module} {{\n    use super::Statistic;\n",
            pass.name
        );
        for option in pass.list("options") {
            let option = &records[option];
            let key = option.field("argument");
            let kind = option_kind(option);
            let constant = key.replace('-', "_").to_uppercase();
            let (default, typed) = option_default(argument, key, kind, option);
            table += &format!(
                "            OdsOption {{ key: {key:?}, kind: OptionKind::{kind}, default: {default} }},\n"
            );
            if let Some(typed) = typed {
                modules += &format!(
                    "    /// The default of `{key}`.\n    pub const {constant}: {typed};\n"
                );
            }
        }
        table += &format!("        ],\n        statistics: {module}::STATISTICS,\n    }},\n");
        modules += "    /// The statistics of the pass, in declaration order.\n    pub const STATISTICS: &[Statistic] = &[\n";
        for statistic in pass.list("statistics") {
            let statistic = &records[statistic];
            modules += &format!(
                "        Statistic {{ name: {:?}, description: {:?} }},\n",
                statistic.field("name"),
                statistic.field("description")
            );
        }
        modules += "    ];\n}\n\n";
    }
    let text = format!(
        "// Generated by build.rs from {td}; do not edit.\n\n/// Every pass of `SpmdPasses.td`, sorted by argument.\npub const PASSES: &[OdsPass] = &[\n{table}];\n\n{modules}"
    );
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("spmd_passes_ods.rs");
    fs::write(&out, text).unwrap_or_else(|error| panic!("cannot write {}: {error}", out.display()));
}

/// The `OdsDefault` expression of an option's default, and the typed
/// constant (`type = value`) for its pass module (none for a list).
/// Panics unless the default is a plain literal of the option's kind.
fn option_default(
    argument: &str,
    key: &str,
    kind: &str,
    option: &Record,
) -> (String, Option<String>) {
    let literal = option.field("defaultValue");
    match kind {
        "Flag" => {
            let value: bool = literal
                .parse()
                .unwrap_or_else(|_| panic!("{argument}: default of {key} is not a bool literal"));
            (
                format!("OdsDefault::Flag({value})"),
                Some(format!("bool = {value}")),
            )
        }
        "Unsigned" => {
            let value: u32 = literal.parse().unwrap_or_else(|_| {
                panic!("{argument}: default of {key} is not an unsigned literal")
            });
            (
                format!("OdsDefault::Unsigned({value})"),
                Some(format!("u32 = {value}")),
            )
        }
        "Text" => {
            let value = literal
                .strip_prefix('"')
                .and_then(|rest| rest.strip_suffix('"'))
                .filter(|inner| !inner.contains(['"', '\\']))
                .unwrap_or_else(|| {
                    panic!("{argument}: default of {key} is not a plain string literal: {literal}")
                });
            (
                format!("OdsDefault::Text({value:?})"),
                Some(format!("&str = {value:?}")),
            )
        }
        _ => ("OdsDefault::TextList".to_string(), None),
    }
}

/// The kind of an option record: `Flag`, `Unsigned`, `Text` or `TextList`.
fn option_kind(option: &Record) -> &'static str {
    let list = option.classes.iter().any(|class| class == "ListOption");
    match (option.field("type"), list) {
        ("std::string", true) => "TextList",
        ("std::string", false) => "Text",
        ("bool", false) => "Flag",
        ("unsigned", false) => "Unsigned",
        (other, _) => panic!(
            "option {} has type {other}{}: the pass shells (SpmdPasses.cpp, ir/ods.rs) hand bool, unsigned, std::string and lists of std::string to Rust",
            option.field("argument"),
            if list { " (list)" } else { "" }
        ),
    }
}

/// One `def` of `--print-records`: its classes and its one-line fields.
struct Record {
    name: String,
    classes: Vec<String>,
    fields: std::collections::HashMap<String, String>,
}

impl Record {
    fn field(&self, key: &str) -> &str {
        self.fields
            .get(key)
            .unwrap_or_else(|| panic!("record {} has no field {key}", self.name))
    }

    /// The record names of a `list<...> key = [a, b];` field.
    fn list(&self, key: &str) -> Vec<&str> {
        let Some(value) = self.fields.get(key) else {
            return Vec::new();
        };
        value
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect()
    }
}

/// Parses the `def NAME {\t// Class ...` blocks of `--print-records`; of
/// their fields, those that fit on one line (`type key = value;`, not the
/// `code` blocks `[{ ... }]`), values without the quotes of strings
/// (TableGen prints them unescaped).
fn parse_records(text: &str) -> std::collections::HashMap<String, Record> {
    let mut records = std::collections::HashMap::new();
    let mut current: Option<Record> = None;
    let mut in_code = false;
    for line in text.lines() {
        if in_code {
            in_code = !line.ends_with("}];");
        } else if line.ends_with("[{") {
            in_code = true;
        } else if let Some(header) = line.strip_prefix("def ") {
            let (name, classes) = header.split_once('{').expect("def NAME {");
            let classes = classes.split_once("//").map_or("", |(_, c)| c);
            current = Some(Record {
                name: name.trim().to_string(),
                classes: classes.split_whitespace().map(String::from).collect(),
                fields: Default::default(),
            });
        } else if line == "}" {
            if let Some(record) = current.take() {
                records.insert(record.name.clone(), record);
            }
        } else if let Some(record) = current.as_mut() {
            let Some(field) = line.strip_prefix("  ") else {
                continue;
            };
            let Some((declaration, value)) = field.split_once(" = ") else {
                continue;
            };
            let Some(value) = value.strip_suffix(';') else {
                continue;
            };
            let key = declaration.rsplit(' ').next().unwrap_or_default();
            let value = if declaration.starts_with("string ") {
                value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .unwrap_or(value)
            } else {
                value
            };
            record.fields.insert(key.to_string(), value.to_string());
        }
    }
    records
}
