# SpmdTableGen.cmake - run mlir-tblgen over the spmd .td files.
#
# spmd_tablegen_dialect(<td> <dialect>) generates the op, dialect, type,
# attribute and enum declarations/definitions of one ODS file next to the
# build tree's copy of the headers.

function(spmd_tablegen_dialect td dialect)
  set(LLVM_TARGET_DEFINITIONS ${td})
  mlir_tablegen(SpmdOps.h.inc -gen-op-decls)
  mlir_tablegen(SpmdOps.cpp.inc -gen-op-defs)
  mlir_tablegen(SpmdDialect.h.inc -gen-dialect-decls -dialect=${dialect})
  mlir_tablegen(SpmdDialect.cpp.inc -gen-dialect-defs -dialect=${dialect})
  mlir_tablegen(SpmdTypes.h.inc -gen-typedef-decls -typedefs-dialect=${dialect})
  mlir_tablegen(SpmdTypes.cpp.inc -gen-typedef-defs -typedefs-dialect=${dialect})
  mlir_tablegen(SpmdAttrs.h.inc -gen-attrdef-decls -attrdefs-dialect=${dialect})
  mlir_tablegen(SpmdAttrs.cpp.inc -gen-attrdef-defs -attrdefs-dialect=${dialect})
  mlir_tablegen(SpmdEnums.h.inc -gen-enum-decls)
  mlir_tablegen(SpmdEnums.cpp.inc -gen-enum-defs)
  add_public_tablegen_target(SpmdOpsIncGen)
endfunction()

function(spmd_tablegen_passes td)
  set(LLVM_TARGET_DEFINITIONS ${td})
  mlir_tablegen(SpmdPasses.h.inc -gen-pass-decls -name Spmd)
  add_public_tablegen_target(SpmdPassesIncGen)
endfunction()
