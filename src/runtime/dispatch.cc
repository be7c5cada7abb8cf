// Operator dispatch: builds each kernel's parameter struct from the program's options and tensors
// (all checked by Program::load) and calls the kernel. Nothing is kept between operators.

#include "runtime/dispatch.h"

#include <string.h>

#include "mote/kernels/add.h"
#include "mote/kernels/broadcast.h"
#include "mote/kernels/concatenation.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/hard_swish.h"
#include "mote/kernels/leaky_relu.h"
#include "mote/kernels/logistic.h"
#include "mote/kernels/lookup_table.h"
#include "mote/kernels/maximum_minimum.h"
#include "mote/kernels/mean.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/pad.h"
#include "mote/kernels/pooling.h"
#include "mote/kernels/quantize.h"
#include "mote/kernels/reshape.h"
#include "mote/kernels/resize_nearest_neighbor.h"
#include "mote/kernels/softmax.h"
#include "mote/kernels/transpose.h"
#include "mote/kernels/transpose_conv.h"
#include "runtime/internal.h"

namespace mote {
namespace runtime {
namespace internal {
namespace {

using schema::Location;
using schema::OpKind;
using schema::Tensor;

// Typed access to one operator's tensors and constants.
class Op {
 public:
  Op(const OpEnv& env, const schema::Operator& op) : env_(env), op_(op) {}

  const Tensor& in(size_t k) const { return tensor(input_index(op_, k)); }
  const Tensor& out(size_t k = 0) const { return tensor(output_index(op_, k)); }
  bool has_in(size_t k) const { return k < num_inputs(op_) && input_index(op_, k) >= 0; }

  template <typename T>
  const T* in_data(size_t k) const {
    return reinterpret_cast<const T*>(bytes(in(k)));
  }
  template <typename T>
  T* out_data(size_t k = 0) const {
    return reinterpret_cast<T*>(env_.arena + out(k).offset());
  }
  // Optional input (bias): null when absent.
  template <typename T>
  const T* optional_in_data(size_t k) const {
    return has_in(k) ? in_data<T>(k) : nullptr;
  }
  // An int32 array in the constant blob.
  const int32_t* constant_i32(const schema::Region* region) const {
    return region != nullptr && region->size() != 0
               ? reinterpret_cast<const int32_t*>(env_.constants + region->offset())
               : nullptr;
  }
  kernels::Scratch scratch() const {
    const schema::Region* r = op_.scratch();
    if (r == nullptr || r->size() == 0) return kernels::Scratch{nullptr, 0};
    return kernels::Scratch{reinterpret_cast<int8_t*>(env_.arena + r->offset()), r->size()};
  }
  const uint8_t* constants() const { return env_.constants; }
  const schema::Operator& op() const { return op_; }

 private:
  const Tensor& tensor(int32_t index) const {
    return *env_.program->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  }
  const uint8_t* bytes(const Tensor& t) const {
    return (t.location() == Location::Arena ? env_.arena : env_.constants) + t.offset();
  }

  const OpEnv& env_;
  const schema::Operator& op_;
};

int32_t d(const Tensor& t, size_t i) { return dim(t, i); }

kernels::BroadcastShape broadcast_shape(const Tensor& a, const Tensor& b) {
  kernels::BroadcastShape shape{};
  // Checked at load: ranks <= 6 and compatible dimensions.
  kernels::prepare_broadcast_shape(shape_data(a), static_cast<int32_t>(rank(a)), shape_data(b),
                                   static_cast<int32_t>(rank(b)), &shape);
  return shape;
}

Error conv(const Op& op) {
  const auto& o = *op.op().options_as_ConvOptions();
  const Tensor &x = op.in(0), &w = op.in(1), &y = op.out();
  kernels::ConvParams p{};
  p.shape = kernels::ConvShape{d(x, 0), d(x, 1), d(x, 2), d(x, 3), d(w, 1), d(w, 2), d(w, 3),
                               d(y, 1), d(y, 2), d(y, 3), o.stride_h(), o.stride_w(),
                               o.pad_h(), o.pad_w(), o.dilation_h(), o.dilation_w()};
  p.input_offset = o.input_offset();
  p.output_offset = o.output_offset();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  p.output_multiplier = op.constant_i32(o.multipliers());
  p.output_shift = op.constant_i32(o.shifts());
  kernels::conv2d(p, op.in_data<int8_t>(0), op.in_data<int8_t>(1),
                  op.optional_in_data<int32_t>(2), op.out_data<int8_t>(), op.scratch());
  return Error::kOk;
}

Error depthwise_conv(const Op& op) {
  const auto& o = *op.op().options_as_DepthwiseConvOptions();
  const Tensor &x = op.in(0), &w = op.in(1), &y = op.out();
  kernels::DepthwiseConvParams p{};
  p.shape = kernels::DepthwiseShape{d(x, 0), d(x, 1), d(x, 2), d(x, 3), d(w, 1), d(w, 2),
                                    d(y, 1), d(y, 2), d(y, 3), o.stride_h(), o.stride_w(),
                                    o.pad_h(), o.pad_w(), o.dilation_h(), o.dilation_w()};
  p.input_offset = o.input_offset();
  p.output_offset = o.output_offset();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  p.output_multiplier = op.constant_i32(o.multipliers());
  p.output_shift = op.constant_i32(o.shifts());
  kernels::depthwise_conv2d(p, op.in_data<int8_t>(0), op.in_data<int8_t>(1),
                            op.optional_in_data<int32_t>(2), op.out_data<int8_t>(), op.scratch());
  return Error::kOk;
}

Error fully_connected(const Op& op) {
  const auto& o = *op.op().options_as_FullyConnectedOptions();
  const Tensor &x = op.in(0), &w = op.in(1);
  kernels::FullyConnectedParams p{};
  p.output_depth = d(w, 0);
  p.input_depth = d(w, 1);
  p.batches = static_cast<int32_t>(element_count(x) / static_cast<size_t>(p.input_depth));
  p.input_offset = o.input_offset();
  p.filter_offset = o.filter_offset();
  p.output_offset = o.output_offset();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  // Per tensor, the requantization sits in the options table; the kernel takes pointers.
  int32_t multiplier = 0, shift = 0;
  p.per_channel = o.multipliers() != nullptr && o.multipliers()->size() != 0;
  if (p.per_channel) {
    p.output_multiplier = op.constant_i32(o.multipliers());
    p.output_shift = op.constant_i32(o.shifts());
  } else {
    multiplier = o.output_requant()->multiplier();
    shift = o.output_requant()->shift();
    p.output_multiplier = &multiplier;
    p.output_shift = &shift;
  }
  p.kernel_sums = op.constant_i32(o.kernel_sums());
  kernels::fully_connected(p, op.in_data<int8_t>(0), op.in_data<int8_t>(1),
                           op.optional_in_data<int32_t>(2), op.out_data<int8_t>());
  return Error::kOk;
}

Error transpose_conv(const Op& op) {
  const auto& o = *op.op().options_as_TransposeConvOptions();
  const Tensor &x = op.in(0), &w = op.in(1), &y = op.out();
  kernels::TransposeConvParams p{};
  p.shape = kernels::TransposeConvShape{d(x, 0), d(x, 1), d(x, 2), d(x, 3), d(w, 1), d(w, 2),
                                        d(y, 1), d(y, 2), d(y, 3), o.stride_h(), o.stride_w(),
                                        o.pad_h(), o.pad_w()};
  p.input_offset = o.input_offset();
  p.output_offset = o.output_offset();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  p.output_multiplier = op.constant_i32(o.multipliers());
  p.output_shift = op.constant_i32(o.shifts());
  kernels::transpose_conv2d(p, op.in_data<int8_t>(0), op.in_data<int8_t>(1),
                            op.optional_in_data<int32_t>(2), op.out_data<int8_t>(), op.scratch());
  return Error::kOk;
}

kernels::PoolParams pool_params(const Op& op) {
  const auto& o = *op.op().options_as_PoolOptions();
  const Tensor &x = op.in(0), &y = op.out();
  kernels::PoolParams p{};
  p.batches = d(x, 0);
  p.input_h = d(x, 1);
  p.input_w = d(x, 2);
  p.channels = d(x, 3);
  p.output_h = d(y, 1);
  p.output_w = d(y, 2);
  p.filter_h = o.filter_h();
  p.filter_w = o.filter_w();
  p.stride_h = o.stride_h();
  p.stride_w = o.stride_w();
  p.pad_h = o.pad_h();
  p.pad_w = o.pad_w();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  return p;
}

// ADD and SUB.
Error add(const Op& op, bool subtract) {
  const auto& o = *op.op().options_as_AddOptions();
  kernels::AddParams p{};
  p.input1_offset = o.input1_offset();
  p.input2_offset = o.input2_offset();
  p.output_offset = o.output_offset();
  p.left_shift = o.left_shift();
  p.input1_multiplier = o.input1_requant()->multiplier();
  p.input1_shift = o.input1_requant()->shift();
  p.input2_multiplier = o.input2_requant()->multiplier();
  p.input2_shift = o.input2_requant()->shift();
  p.output_multiplier = o.output_requant()->multiplier();
  p.output_shift = o.output_requant()->shift();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  const auto kernel = subtract ? kernels::sub : kernels::add;
  kernel(p, broadcast_shape(op.in(0), op.in(1)), op.in_data<int8_t>(0), op.in_data<int8_t>(1),
         op.out_data<int8_t>());
  return Error::kOk;
}

Error mul(const Op& op) {
  const auto& o = *op.op().options_as_MulOptions();
  kernels::MulParams p{};
  p.input1_offset = o.input1_offset();
  p.input2_offset = o.input2_offset();
  p.output_offset = o.output_offset();
  p.output_multiplier = o.output_requant()->multiplier();
  p.output_shift = o.output_requant()->shift();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  kernels::mul(p, broadcast_shape(op.in(0), op.in(1)), op.in_data<int8_t>(0),
               op.in_data<int8_t>(1), op.out_data<int8_t>());
  return Error::kOk;
}

Error min_max(const Op& op, bool maximum) {
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (maximum) {
    kernels::maximum(shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  } else {
    kernels::minimum(shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  }
  return Error::kOk;
}

Error softmax(const Op& op) {
  const auto& o = *op.op().options_as_SoftmaxOptions();
  const Tensor& x = op.in(0);
  kernels::SoftmaxParams p{};
  p.row_size = d(x, rank(x) - 1);
  p.rows = static_cast<int32_t>(element_count(x) / static_cast<size_t>(p.row_size));
  p.input_multiplier = o.input_multiplier();
  p.input_left_shift = o.input_left_shift();
  p.diff_min = o.diff_min();
  if (op.out().type() == schema::DataType::Int16) {
    kernels::softmax(p, op.in_data<int8_t>(0), op.out_data<int16_t>());
  } else {
    kernels::softmax(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  }
  return Error::kOk;
}

Error quantize(const Op& op) {
  const Tensor &x = op.in(0), &y = op.out();
  const size_t count = element_count(y);
  if (x.type() == schema::DataType::Float32) {
    kernels::quantize(kernels::QuantizeParams{y.scale(), y.zero_point()}, op.in_data<float>(0),
                      op.out_data<int8_t>(), count);
    return Error::kOk;
  }
  const auto& o = *op.op().options_as_QuantizeOptions();
  kernels::RequantizeParams p{};
  p.input_zero_point = -o.input_offset();
  p.output_zero_point = o.output_offset();
  p.multiplier = o.requant()->multiplier();
  p.shift = o.requant()->shift();
  kernels::requantize(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), count);
  return Error::kOk;
}

Error dequantize(const Op& op) {
  const Tensor& x = op.in(0);
  kernels::dequantize(kernels::DequantizeParams{x.scale(), x.zero_point()}, op.in_data<int8_t>(0),
                      op.out_data<float>(), element_count(x));
  return Error::kOk;
}

Error pad(const Op& op) {
  const auto& o = *op.op().options_as_PadOptions();
  const Tensor& x = op.in(0);
  kernels::PadParams p{};
  p.rank = static_cast<int32_t>(rank(x));
  for (size_t k = 0; k < rank(x); ++k) {
    const auto i = static_cast<flatbuffers::uoffset_t>(k);
    p.input_dims[k] = d(x, k);
    p.before[k] = o.before()->Get(i);
    p.after[k] = o.after()->Get(i);
  }
  p.pad_value = static_cast<int8_t>(o.pad_value());
  kernels::pad(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  return Error::kOk;
}

Error mean(const Op& op) {
  const auto& o = *op.op().options_as_MeanOptions();
  const Tensor& x = op.in(0);
  kernels::MeanParams p{};
  p.batches = d(x, 0);
  p.height = d(x, 1);
  p.width = d(x, 2);
  p.channels = d(x, 3);
  p.input_zero_point = -o.input_offset();
  p.output_zero_point = o.output_offset();
  p.multiplier = o.requant()->multiplier();
  p.shift = o.requant()->shift();
  p.formula = o.formula() == schema::MeanFormula::Tflm ? kernels::MeanFormula::kTflm
                                                        : kernels::MeanFormula::kTfLite;
  kernels::mean(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  return Error::kOk;
}

Error concatenation(const Op& op) {
  const auto& o = *op.op().options_as_ConcatenationOptions();
  const Tensor& y = op.out();
  const size_t n = num_inputs(op.op());
  const int32_t axis = o.axis();
  kernels::ConcatenationInput params[kMaxConcatenationInputs];
  const int8_t* inputs[kMaxConcatenationInputs];
  for (size_t k = 0; k < n; ++k) {
    const Tensor& x = op.in(k);
    kernels::ConcatenationInput& in = params[k];
    in = kernels::ConcatenationInput{};
    in.copy_size = 1;
    for (size_t i = static_cast<size_t>(axis); i < rank(x); ++i) in.copy_size *= d(x, i);
    if (o.requant() != nullptr) {
      const schema::ConcatRequant& q = *o.requant()->Get(static_cast<flatbuffers::uoffset_t>(k));
      // Only a requantized input's parameters are checked at load (and read by the kernel).
      in.requantize = q.requantize();
      if (in.requantize) {
        in.input_zero_point = -q.input_offset();
        in.output_zero_point = y.zero_point();
        in.multiplier = q.requant().multiplier();
        in.shift = q.requant().shift();
      }
    }
    inputs[k] = op.in_data<int8_t>(k);
  }
  kernels::ConcatenationParams p{};
  p.num_inputs = static_cast<int32_t>(n);
  p.outer_size = 1;
  for (int32_t i = 0; i < axis; ++i) p.outer_size *= d(y, static_cast<size_t>(i));
  kernels::concatenation(p, params, inputs, op.out_data<int8_t>());
  return Error::kOk;
}

Error transpose(const Op& op) {
  const auto& o = *op.op().options_as_TransposeOptions();
  const Tensor& x = op.in(0);
  kernels::TransposeParams p{};
  p.rank = static_cast<int32_t>(rank(x));
  for (size_t k = 0; k < rank(x); ++k) {
    p.input_dims[k] = d(x, k);
    p.perm[k] = o.perm()->Get(static_cast<flatbuffers::uoffset_t>(k));
  }
  kernels::transpose(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  return Error::kOk;
}

Error logistic(const Op& op) {
  const auto& o = *op.op().options_as_LogisticOptions();
  const size_t count = element_count(op.in(0));
  if (const schema::Region* table = o.table(); table != nullptr && table->size() != 0) {
    kernels::lookup_table(reinterpret_cast<const int8_t*>(op.constants() + table->offset()),
                          op.in_data<int8_t>(0), op.out_data<int8_t>(), count);
    return Error::kOk;
  }
  kernels::LogisticParams p{};
  p.input_zero_point = o.input_zero_point();
  p.input_range_radius = o.input_range_radius();
  p.input_multiplier = o.input_multiplier();
  p.input_left_shift = o.input_left_shift();
  kernels::logistic(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), count);
  return Error::kOk;
}

Error hard_swish(const Op& op) {
  const auto& o = *op.op().options_as_HardSwishOptions();
  kernels::HardSwishParams p{};
  p.input_zero_point = static_cast<int16_t>(o.input_zero_point());
  p.output_zero_point = static_cast<int16_t>(o.output_zero_point());
  p.reluish_multiplier_fixedpoint_int16 = o.reluish_multiplier_fixedpoint_int16();
  p.reluish_multiplier_exponent = o.reluish_multiplier_exponent();
  p.output_multiplier_fixedpoint_int16 = o.output_multiplier_fixedpoint_int16();
  p.output_multiplier_exponent = o.output_multiplier_exponent();
  kernels::hard_swish(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), element_count(op.in(0)));
  return Error::kOk;
}

Error leaky_relu(const Op& op) {
  const auto& o = *op.op().options_as_LeakyReluOptions();
  kernels::LeakyReluParams p{};
  p.input_offset = o.input_offset();
  p.output_offset = o.output_offset();
  p.identity_multiplier = o.identity_requant()->multiplier();
  p.identity_shift = o.identity_requant()->shift();
  p.alpha_multiplier = o.alpha_requant()->multiplier();
  p.alpha_shift = o.alpha_requant()->shift();
  kernels::leaky_relu(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), element_count(op.in(0)));
  return Error::kOk;
}

Error resize_nearest(const Op& op) {
  const auto& o = *op.op().options_as_ResizeNearestNeighborOptions();
  const Tensor &x = op.in(0), &y = op.out();
  kernels::ResizeNearestNeighborParams p{};
  p.batches = d(x, 0);
  p.input_h = d(x, 1);
  p.input_w = d(x, 2);
  p.channels = d(x, 3);
  p.output_h = d(y, 1);
  p.output_w = d(y, 2);
  p.align_corners = o.align_corners();
  p.half_pixel_centers = o.half_pixel_centers();
  kernels::resize_nearest_neighbor(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  return Error::kOk;
}

}  // namespace

Error run_operator(const OpEnv& env, const schema::Operator& schema_op) {
  const Op op(env, schema_op);
  switch (schema_op.kind()) {
    case OpKind::Conv2D: return conv(op);
    case OpKind::AveragePool2D:
      kernels::average_pool(pool_params(op), op.in_data<int8_t>(0), op.out_data<int8_t>(),
                            op.scratch());
      return Error::kOk;
    case OpKind::MaxPool2D:
      kernels::max_pool(pool_params(op), op.in_data<int8_t>(0), op.out_data<int8_t>());
      return Error::kOk;
    case OpKind::Add: return add(op, /*subtract=*/false);
    case OpKind::Sub: return add(op, /*subtract=*/true);
    case OpKind::Mul: return mul(op);
    case OpKind::Minimum: return min_max(op, /*maximum=*/false);
    case OpKind::Maximum: return min_max(op, /*maximum=*/true);
    case OpKind::Softmax: return softmax(op);
    case OpKind::Reshape:
      // The compiler aliases a reshape's output to its input (then this is a no-op).
      kernels::reshape(op.in_data<uint8_t>(0), op.out_data<uint8_t>(), op.out().size());
      return Error::kOk;
    case OpKind::Quantize: return quantize(op);
    case OpKind::Dequantize: return dequantize(op);
    case OpKind::Pad: return pad(op);
    case OpKind::Mean: return mean(op);
    case OpKind::Concatenation: return concatenation(op);
    case OpKind::Transpose: return transpose(op);
    case OpKind::Logistic: return logistic(op);
    case OpKind::HardSwish: return hard_swish(op);
    case OpKind::LeakyRelu: return leaky_relu(op);
    case OpKind::ResizeNearestNeighbor: return resize_nearest(op);
    case OpKind::DepthwiseConv2D: return depthwise_conv(op);
    case OpKind::FullyConnected: return fully_connected(op);
    case OpKind::TransposeConv: return transpose_conv(op);
  }
  return Error::kUnsupported;
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
