//! Builds `cpp/` (the driver's C++ services: LLVM IR import and the NVPTX
//! backend) with CMake into a static archive, which resolves against the
//! one static copy of MLIR and LLVM that mlir-sys links.

use std::env;

fn main() {
    let prefix = env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-changed=../../cmake");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let install = cmake::Config::new("cpp")
        .generator("Ninja")
        .profile("Release")
        .define("MLIR_DIR", format!("{prefix}/lib/cmake/mlir"))
        .define("LLVM_DIR", format!("{prefix}/lib/cmake/llvm"))
        .build_target("all")
        .build();
    let lib_dir = install.join("build").join("lib");
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=static=SpmdCompile");
}
