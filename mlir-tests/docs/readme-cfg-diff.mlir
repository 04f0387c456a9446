// The picture in README.md comes from scripts/cfg-diff.sh on the main
// example: its DOT text, checked in next to it, must match what the script
// writes now (the SVG itself depends on the Graphviz version). Regenerate
// both with:
//   SPMD_CFG_DIFF_DOT=docs/images/divergent-kernel-cfg-diff.dot \
//     scripts/cfg-diff.sh examples/divergent-kernel.mlir spmd-reconverge \
//     -o docs/images/divergent-kernel-cfg-diff.svg
// REQUIRES: graphviz
// UNSUPPORTED: stock-mlir-opt
// RUN: env SPMD_OPT=%spmd_bin_dir/spmd-opt SPMD_CFG_DIFF_DOT=%t.dot %spmd_src_root/scripts/cfg-diff.sh %spmd_src_root/examples/divergent-kernel.mlir spmd-reconverge -o %t.svg
// RUN: diff %t.dot %spmd_src_root/docs/images/divergent-kernel-cfg-diff.dot
// RUN: grep -q 'docs/images/divergent-kernel-cfg-diff.svg' %spmd_src_root/README.md
// RUN: grep -q '<svg' %spmd_src_root/docs/images/divergent-kernel-cfg-diff.svg
