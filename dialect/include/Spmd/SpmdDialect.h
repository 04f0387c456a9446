//===- SpmdDialect.h - the spmd dialect -------------------------*- C++ -*-===//
//
// C++ entry point of the `spmd` dialect: the dialect class, its types,
// attributes and operations, all generated from SpmdBase.td / SpmdOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SPMDDIALECT_H
#define SPMD_SPMDDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Spmd/SpmdEnums.h.inc"

#include "Spmd/SpmdDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Spmd/SpmdTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Spmd/SpmdAttrs.h.inc"

#define GET_OP_CLASSES
#include "Spmd/SpmdOps.h.inc"

#endif // SPMD_SPMDDIALECT_H
