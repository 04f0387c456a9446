/* device_launch_parameters.h: CUDA code includes it; with spmd's header it is spmd_cuda.h
 * (scripts/cuda-to-ptx.sh pre-includes that one anyway). */
#include "spmd_cuda.h"
