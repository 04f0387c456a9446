//! Builds the C++ half of spmd (dialect/, cmake/) with CMake and links its
//! static archives whole-archive into every Rust artifact, so they resolve
//! against the single static copy of MLIR that mlir-sys links. The dialect
//! plugin (libSpmdPlugin.so, linked against libMLIR.so for Debian's mlir-opt)
//! is copied next to the binaries, e.g. target/debug/libSpmdPlugin.so.

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
