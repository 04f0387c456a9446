// The C interface compiles as C (and as C++) for embedders, and declares
// what the Rust library and the C++ archives define: the public header
// alone, and the internal one (which includes it).
// RUN: cc -std=c11 -Wall -Werror -fsyntax-only -I%spmd_src_root/dialect/include -I%llvm_include -x c %s
// RUN: c++ -std=c++17 -Wall -Werror -fsyntax-only -I%spmd_src_root/dialect/include -I%llvm_include -x c++ %s

#include "spmd-c/Dialect.h"
#include "spmd-c/Internal.h"

/* A C++ or C compiler embedding spmd registers the dialect and the passes. */
static void registerSpmd(MlirDialectRegistry registry) {
  MlirDialectHandle spmd = mlirGetDialectHandle__spmd__();
  mlirDialectHandleInsertDialect(spmd, registry);
  spmdRegisterAllPasses();
}

static int isBranchWithForwardedOperands(MlirOperation op) {
  intptr_t begin = 0, count = 0;
  return spmdIsBranch(op) && spmdGetSuccessorOperandRange(op, 0, &begin, &count);
}

int main(void) {
  (void)registerSpmd;
  (void)isBranchWithForwardedOperands;
  return 0;
}
