// The Markdown reference in docs/dialect/ matches the ODS sources. If this
// test fails, run scripts/gen-docs.sh and commit the regenerated files.
//
// RUN: %mlir_tblgen -gen-dialect-doc -dialect=spmd -I %spmd_src_root/dialect/include -I %llvm_include \
// RUN:   %spmd_src_root/dialect/include/Spmd/SpmdOps.td -o %t.dialect.md
// RUN: diff %spmd_src_root/docs/dialect/SpmdDialect.md %t.dialect.md
//
// RUN: %mlir_tblgen -gen-pass-doc -I %spmd_src_root/dialect/include -I %llvm_include \
// RUN:   %spmd_src_root/dialect/include/Spmd/SpmdPasses.td -o %t.passes.md
// RUN: diff %spmd_src_root/docs/dialect/SpmdPasses.md %t.passes.md
