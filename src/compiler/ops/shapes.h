#pragma once
// The kernels' shape structs of the window operators, from an IR operator (padding as TFLite
// computes it). Used by the definitions for both the scratch size and the lowering, so the two
// always see the same geometry.
#include "compiler/ir/graph.h"
#include "mote/kernels/scratch.h"

namespace mote::ops {

kernels::ConvShape conv_shape(const ir::Graph& graph, const ir::Operator& op);
kernels::DepthwiseShape depthwise_shape(const ir::Graph& graph, const ir::Operator& op);
// TRANSPOSE_CONV's inputs: (output shape, filter [Co,Kh,Kw,Ci], input, bias).
kernels::TransposeConvShape transpose_conv_shape(const ir::Graph& graph, const ir::Operator& op);

}  // namespace mote::ops
