# SpmdMLIR.cmake - locate LLVM/MLIR 22 and bring in their CMake helpers.
#
# Expects MLIR_DIR (e.g. /usr/lib/llvm-22/lib/cmake/mlir). Sets up include
# directories, LLVM definitions and compiler flags exactly as in-tree MLIR
# code is built, so our objects are ABI-compatible with Debian's libraries
# (RTTI on, exceptions off).

find_package(MLIR REQUIRED CONFIG)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "spmd needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "spmd: using MLIRConfig.cmake in ${MLIR_DIR}")
message(STATUS "spmd: using LLVMConfig.cmake in ${LLVM_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})

include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(SPMD_LLVM_DEFINITIONS NATIVE_COMMAND ${LLVM_DEFINITIONS})
add_definitions(${SPMD_LLVM_DEFINITIONS})
