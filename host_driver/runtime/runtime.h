// The host driver's runtime, namespace tpu::runtime: lowering layers to device programs.
//   runtime/dense_layer.h      DenseLayer, CheckDenseLayer
//   runtime/dense_lowering.h   LowerDense, LowerDenseChain, ExtractDenseOutput
//   runtime/dense_plan.h       LayerPlan: tiling, chunking, UB layout of one layer
//   runtime/dense_images.h     weight tiles, parameter sets, K-tile slices as host bytes
//   runtime/dense_emit.h       the instructions of one planned layer, token roles
//   runtime/program_builder.h  ProgramBuilder: instructions checked as they are added
//   runtime/layers.h           conv2d, pool, activation: Lower*, ExtractLayerOutput
//   runtime/identity_lowering.h  the identity-tile pass under pool and activation
//   runtime/conv_window_lowering.h  conv2d by the MATMUL sliding window
#ifndef TPU_RUNTIME_RUNTIME_H_
#define TPU_RUNTIME_RUNTIME_H_

#include "runtime/conv_window_lowering.h"
#include "runtime/dense_emit.h"
#include "runtime/dense_images.h"
#include "runtime/dense_layer.h"
#include "runtime/dense_lowering.h"
#include "runtime/dense_plan.h"
#include "runtime/identity_lowering.h"
#include "runtime/layers.h"
#include "runtime/program_builder.h"

#endif  // TPU_RUNTIME_RUNTIME_H_
