// Bad option values get a diagnostic and a non-zero exit, never a crash.
// RUN: not spmd-opt %s --spmd-structurize=irreducible=maybe -o /dev/null 2>&1 | FileCheck %s --check-prefix=IRR --implicit-check-not="Stack dump"
// RUN: not spmd-opt %s --spmd-structurize=ordering=zigzag -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORD --implicit-check-not="Stack dump"
// RUN: not spmd-opt %s --spmd-structurize=skip-uniform-regions=perhaps -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOOL --implicit-check-not="Stack dump"
// IRR: error: invalid value 'maybe' for option 'irreducible': expected 'reject' or 'fix'
// ORD: error: invalid value 'zigzag' for option 'ordering'
// BOOL: error
func.func @f() {
  return
}
