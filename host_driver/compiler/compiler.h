// The host driver's compiler, namespace tpu::compiler: layers lowered to device programs
// (instructions and the host-memory images they read), and their results read back.
//   compiler/dense_layer.h      DenseLayer, CheckDenseLayer
//   compiler/dense_lowering.h   LowerDense, LowerDenseChain, ExtractDenseOutput
//   compiler/dense_plan.h       LayerPlan: tiling, chunking, UB layout of one layer
//   compiler/dense_images.h     weight tiles, parameter sets, K-tile slices as host bytes
//   compiler/dense_emit.h       the instructions of one planned layer, token roles
//   compiler/program_builder.h  ProgramBuilder: instructions checked as they are added
//   compiler/layers.h           conv2d, pool, activation: Lower*, ExtractLayerOutput
//   compiler/identity_lowering.h  the identity-tile pass under pool and activation
//   compiler/conv_window_lowering.h  conv2d by the MATMUL sliding window
#ifndef TPU_COMPILER_COMPILER_H_
#define TPU_COMPILER_COMPILER_H_

#include "compiler/conv_window_lowering.h"
#include "compiler/dense_emit.h"
#include "compiler/dense_images.h"
#include "compiler/dense_layer.h"
#include "compiler/dense_lowering.h"
#include "compiler/dense_plan.h"
#include "compiler/identity_lowering.h"
#include "compiler/layers.h"
#include "compiler/program_builder.h"

#endif  // TPU_COMPILER_COMPILER_H_
