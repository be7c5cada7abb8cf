#pragma once
// Builds int8 graphs in code, with deterministic pseudo-random weights and realistic
// quantization, so that tests never depend on model files from elsewhere. write_model (see
// writer.h) turns the result into a .tflite file.
//
//   ModelBuilder b(/*seed=*/1);
//   TensorId x = b.add_input({1, 8, 8, 3});                 // float32 graph input
//   TensorId q = b.add_quantize(x, 2.0f / 255, 0);
//   TensorId y = b.add_conv2d(q, 8, 3, 3, 1, ir::Padding::kSame, ir::Activation::kRelu);
//   b.mark_output(b.add_dequantize(y));
//   ir::Graph g = b.build();

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::builder {

// Index of a tensor in the graph under construction.
using TensorId = int32_t;

// Marsaglia's xorshift32 (13, 17, 5): the same stream on every platform.
class Random {
 public:
  explicit Random(uint32_t seed) : state_(seed == 0 ? 1 : seed) {}
  uint32_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }
  // Uniform in [0, 1).
  float uniform() { return static_cast<float>(next() >> 8) * (1.0f / 16777216.0f); }
  // Uniform integer in [lo, hi].
  int32_t between(int32_t lo, int32_t hi) {
    return lo + static_cast<int32_t>(next() % static_cast<uint32_t>(hi - lo + 1));
  }

 private:
  uint32_t state_;
};

// Each add_* appends one operator (plus its constant inputs) and returns its output tensor.
// Weights are symmetric int8 with one scale per output channel (fully connected: one scale
// unless asked otherwise) sized so that the output keeps the input's magnitude; biases are int32
// with scale input_scale * weight_scale. Output quantization comes from an estimate of the
// output's real range (from the input range and the weights), so values neither saturate nor
// collapse to a few levels. Operators that only move bytes (pooling, pad, reshape, transpose,
// resize, concatenation) keep their input's quantization, as TFLite's kernels require.
// Bad arguments (a kernel larger than its input, mismatched shapes) throw std::invalid_argument.
class ModelBuilder {
 public:
  explicit ModelBuilder(uint32_t seed = 1);

  // A graph input. int8 and uint8 inputs take their quantization here (follow uint8 with
  // add_quantize to int8); float32 inputs have none (follow them with add_quantize); int32
  // inputs (GATHER's indices) have none.
  TensorId add_input(const std::vector<int32_t>& shape, ir::DataType type = ir::DataType::kFloat32,
                     float scale = 0.0f, int32_t zero_point = 0);

  // float32 -> int8, int8 -> int8 with new quantization, uint8 -> int8, or (`type` uint8)
  // int8 -> uint8, or (`type` int32) int8 -> int32, a raw result.
  TensorId add_quantize(TensorId input, float scale, int32_t zero_point,
                        ir::DataType type = ir::DataType::kInt8);
  // int8 -> float32.
  TensorId add_dequantize(TensorId input);

  // Weights [out_channels, kernel_h, kernel_w, input channels]; square strides and dilations.
  TensorId add_conv2d(TensorId input, int32_t out_channels, int32_t kernel_h, int32_t kernel_w,
                      int32_t stride = 1, ir::Padding padding = ir::Padding::kSame,
                      ir::Activation activation = ir::Activation::kNone, bool bias = true,
                      int32_t dilation = 1);
  // Weights [1, kernel_h, kernel_w, channels * depth_multiplier].
  TensorId add_depthwise(TensorId input, int32_t kernel_h, int32_t kernel_w, int32_t stride = 1,
                         ir::Padding padding = ir::Padding::kSame,
                         ir::Activation activation = ir::Activation::kNone,
                         int32_t depth_multiplier = 1, bool bias = true, int32_t dilation = 1);
  // Weights [units, last input dimension]; output [rows, units].
  TensorId add_fully_connected(TensorId input, int32_t units,
                               ir::Activation activation = ir::Activation::kNone, bool bias = true,
                               bool per_channel = false);
  TensorId add_average_pool(TensorId input, int32_t filter_h, int32_t filter_w, int32_t stride,
                            ir::Padding padding = ir::Padding::kValid);
  TensorId add_average_pool(TensorId input, int32_t filter_h, int32_t filter_w, int32_t stride_h,
                            int32_t stride_w, ir::Padding padding);
  TensorId add_max_pool(TensorId input, int32_t filter_h, int32_t filter_w, int32_t stride,
                        ir::Padding padding = ir::Padding::kValid);
  TensorId add_max_pool(TensorId input, int32_t filter_h, int32_t filter_w, int32_t stride_h,
                        int32_t stride_w, ir::Padding padding);
  // A constant int8 tensor (an operand of the binary arithmetic operators) holding `values`
  // (row-major).
  TensorId add_int8_constant(const std::vector<int32_t>& shape, const std::vector<int8_t>& values,
                             float scale, int32_t zero_point);
  TensorId add_add(TensorId a, TensorId b, ir::Activation activation = ir::Activation::kNone);
  TensorId add_mul(TensorId a, TensorId b, ir::Activation activation = ir::Activation::kNone);
  // MAXIMUM and MINIMUM of two int8 (or two int16) operands that share one quantization (TFLite
  // compares the raw values), either one a constant, broadcast; the output quantized as they are.
  TensorId add_maximum(TensorId a, TensorId b);
  TensorId add_minimum(TensorId a, TensorId b);
  TensorId add_softmax(TensorId input, float beta = 1.0f);
  // new_shape may hold one -1, resolved from the element count (TFLite's convention).
  TensorId add_reshape(TensorId input, const std::vector<int32_t>& new_shape);
  // SQUEEZE: removes the listed dimensions (each of size 1; none listed: every size-1 one).
  TensorId add_squeeze(TensorId input, const std::vector<int32_t>& squeeze_dims);
  // EXPAND_DIMS: a dimension of size 1 at `axis` (negative counts from the end, -1 appends).
  TensorId add_expand_dims(TensorId input, int32_t axis);
  // One (before, after) pair per input dimension.
  TensorId add_pad(TensorId input, const std::vector<std::pair<int32_t, int32_t>>& paddings);
  // The output keeps the input's quantization, or takes `scale` and `zero_point`.
  TensorId add_mean(TensorId input, const std::vector<int32_t>& axes, bool keep_dims);
  TensorId add_mean(TensorId input, const std::vector<int32_t>& axes, bool keep_dims, float scale,
                    int32_t zero_point);
  // Inputs must share their quantization (TFLite's int8 kernel does not rescale).
  TensorId add_concatenation(const std::vector<TensorId>& inputs, int32_t axis);
  // The same for branches of differing quantization, as TFLite's converter writes them (a fire
  // module's expands, an FPN's merge): each input, an int8 output of one of the builder's
  // operators that nothing reads yet, is requantized to one quantization covering all their
  // ranges, which the output keeps. An input whose operator keeps its input's quantization (a
  // pool) makes build() refuse the graph.
  TensorId add_branch_concatenation(const std::vector<TensorId>& inputs, int32_t axis);
  TensorId add_transpose(TensorId input, const std::vector<int32_t>& perm);
  TensorId add_logistic(TensorId input);
  TensorId add_resize_nearest(TensorId input, int32_t height, int32_t width,
                              bool align_corners = false, bool half_pixel_centers = false);
  TensorId add_hard_swish(TensorId input);
  // SUM (output quantized by `scale` and `zero_point`) and REDUCE_MAX (output quantized as the
  // input) over `axes`, as add_mean.
  TensorId add_sum(TensorId input, const std::vector<int32_t>& axes, bool keep_dims, float scale,
                   int32_t zero_point);
  TensorId add_reduce_max(TensorId input, const std::vector<int32_t>& axes, bool keep_dims);
  // ARG_MAX (or ARG_MIN when `arg_min`) along `axis` (negative counts from the end):
  // `index_type` (int32 or int64) indices, the input's shape without the axis.
  TensorId add_arg_min_max(TensorId input, int32_t axis, bool arg_min = false,
                           ir::DataType index_type = ir::DataType::kInt32);
  TensorId add_resize_bilinear(TensorId input, int32_t height, int32_t width,
                               bool align_corners = false, bool half_pixel_centers = false);
  // Weights [out_channels, kernel_h, kernel_w, input channels], square stride; the output is
  // input * stride (SAME) or (input - 1) * stride + kernel (VALID) along each axis.
  TensorId add_transpose_conv(TensorId input, int32_t out_channels, int32_t kernel_h,
                              int32_t kernel_w, int32_t stride,
                              ir::Padding padding = ir::Padding::kSame,
                              ir::Activation activation = ir::Activation::kNone, bool bias = true);
  // The data-movement operators keep their input's quantization. Negative axes count from the
  // end, as in TFLite. Constant parameters (begin, end, strides, size, axis, size_splits, indices)
  // become int32 constant inputs.
  TensorId add_strided_slice(TensorId input, const std::vector<int32_t>& begin,
                             const std::vector<int32_t>& end,
                             const std::vector<int32_t>& strides,
                             const ir::StridedSliceOptions& masks = {});
  TensorId add_slice(TensorId input, const std::vector<int32_t>& begin,
                     const std::vector<int32_t>& size);
  // SPLIT into `num_splits` equal parts; SPLIT_V into parts of `sizes` (one may be -1).
  std::vector<TensorId> add_split(TensorId input, int32_t axis, int32_t num_splits);
  std::vector<TensorId> add_split_v(TensorId input, const std::vector<int32_t>& sizes,
                                    int32_t axis);
  TensorId add_pack(const std::vector<TensorId>& inputs, int32_t axis);
  std::vector<TensorId> add_unpack(TensorId input, int32_t axis);
  // GATHER by constant indices of `indices_shape`, or by an int32 tensor (a graph input).
  TensorId add_gather(TensorId input, const std::vector<int32_t>& indices,
                      const std::vector<int32_t>& indices_shape, int32_t axis,
                      int32_t batch_dims = 0);
  TensorId add_gather_by(TensorId input, TensorId indices, int32_t axis, int32_t batch_dims = 0);
  TensorId add_depth_to_space(TensorId input, int32_t block_size);
  TensorId add_space_to_depth(TensorId input, int32_t block_size);
  // SVDF over an int8 input [batches, input_size]: weights_feature [units * rank, input_size],
  // weights_time [units * rank, memory] and its state (a variable tensor [batches, units * rank *
  // memory]) int16 as TFLite's converter writes them (symmetric), or TFLM's int8 form with
  // `int8_state` (the state then asymmetric: a non-zero zero point); output [batches, units].
  TensorId add_svdf(TensorId input, int32_t units, int32_t rank, int32_t memory, bool bias = true,
                    bool int8_state = false, ir::Activation activation = ir::Activation::kNone);
  // UNIDIRECTIONAL_SEQUENCE_LSTM in the form TFLite's converter writes for a Keras LSTM layer
  // (TFLM's integer 8x8->16) over an int8 input [batches, steps, features] ([steps, batches,
  // features] with `time_major`): per gate (input, forget, cell, output) input weights [hidden,
  // features] and recurrent weights [hidden, hidden], int8 per tensor, and an int32 bias (the
  // forget gate's lifted by 1, Keras's unit_forget_bias); an int8 hidden state quantized as the
  // output and an int16 cell state of scale 2^cell_scale_power, both variable tensors [batches,
  // hidden]. Output int8 [.., .., hidden] covering about [-1, 1] (off-centre zero point).
  TensorId add_lstm(TensorId input, int32_t hidden, bool time_major = false,
                    float cell_clip = 0.0f, int32_t cell_scale_power = -12);
  // BATCH_MATMUL of two int8 tensors (either may be an add_int8_constant), ranks 2..5; the
  // output's quantization covers a few times the product's estimated root mean square.
  TensorId add_batch_matmul(TensorId lhs, TensorId rhs, bool adj_x = false, bool adj_y = false);
  // Any operator without weights, for those the builder has no helper for: the caller gives the
  // output (int8 `shape`, `scale`, `zero_point`); build() checks everything else.
  TensorId add_operator(ir::OpType type, const std::vector<TensorId>& inputs, ir::Options options,
                        const std::vector<int32_t>& shape, float scale, int32_t zero_point);

  // Plain integers (no quantization): TFLM's signal operators (an audio front end) and its int32
  // arithmetic. An input of `type`; a constant holding `values` (row-major, `type`'s bytes); an
  // operator with its outputs' shapes and types, whose state kept inside TFLite's operator
  // (OpDef::internal_state) is added as the reader adds it. Returns the outputs.
  TensorId add_plain_input(const std::vector<int32_t>& shape, ir::DataType type);
  TensorId add_plain_constant(const std::vector<int32_t>& shape, ir::DataType type,
                              const std::vector<uint8_t>& bytes);
  std::vector<TensorId> add_plain_operator(
      ir::OpType type, const std::vector<TensorId>& inputs, ir::Options options,
      const std::vector<std::pair<std::vector<int32_t>, ir::DataType>>& outputs);

  void mark_output(TensorId tensor);

  // The graph so far, unchecked.
  const ir::Graph& graph() const { return graph_; }
  const ir::Tensor& tensor(TensorId id) const { return graph_.tensors.at(id); }

  // The finished graph; runs ops::validate (throws mote::InputError on a rule broken).
  ir::Graph build() const;

 private:
  // What the builder assumes about a tensor's real values: the range its quantization covers
  // and their root mean square (typically well inside the range).
  struct Range {
    float lo = 0.0f;
    float hi = 0.0f;
    float rms = 0.0f;
  };

  const ir::Tensor& checked(TensorId id, const char* what) const;
  std::string op_name(const char* kind);
  TensorId add_tensor(ir::Tensor tensor, Range range);
  // A non-constant int8 tensor quantized to cover `range`.
  TensorId add_activation(const std::string& name, std::vector<int32_t> shape, Range range);
  // A non-constant int8 tensor with a copy of `like`'s quantization.
  TensorId add_activation_like(const std::string& name, std::vector<int32_t> shape, TensorId like);
  TensorId add_int32_constant(const std::string& name, std::vector<int32_t> shape,
                              const std::vector<int32_t>& values);
  // MEAN, SUM or REDUCE_MAX (`kind`: the helper's name, for messages), output quantized as input.
  TensorId add_reducer(ir::OpType type, const char* kind, TensorId input,
                       const std::vector<int32_t>& axes, bool keep_dims);
  // `out` requantized to `scale` and `zero_point`.
  TensorId requantized(TensorId out, float scale, int32_t zero_point);
  // Random symmetric weights with `channels` scales along `channel_dim` (or one when
  // channels == 1) of amplitude about sqrt(3 / fan_in); returns the tensor.
  TensorId add_weights(const std::string& name, std::vector<int32_t> shape, size_t channel_dim,
                       int32_t channels, int64_t fan_in);
  // int32 bias for `weights` read by `input`, values around `magnitude` in real terms.
  TensorId add_bias(const std::string& name, TensorId input, TensorId weights, int32_t channels,
                    float magnitude);
  TensorId add_op(ir::OpType type, std::vector<int32_t> inputs, TensorId output,
                  ir::Options options);
  // An operator with several outputs (SPLIT, SPLIT_V, UNPACK), each of `shapes`, quantized as
  // `like`.
  std::vector<TensorId> add_multi_output_op(ir::OpType type, std::vector<int32_t> inputs,
                                            const std::vector<std::vector<int32_t>>& shapes,
                                            TensorId like, ir::Options options);
  // The weighted-sum operators' common tail: bias, output tensor, estimates. `coverage` is the
  // average fraction of the window inside the input (below 1 with zero padding).
  TensorId finish_weighted_sum(const std::string& name, TensorId input, TensorId weights,
                               size_t channel_dim, int32_t channels, int64_t fan_in,
                               double coverage, bool bias, ir::Activation activation,
                               std::vector<int32_t> output_shape, ir::OpType type,
                               ir::Options options);
  TensorId window_op(ir::OpType type, TensorId input, int32_t filter_h, int32_t filter_w,
                     int32_t stride_h, int32_t stride_w, ir::Padding padding);
  TensorId elementwise(ir::OpType type, TensorId a, TensorId b, ir::Activation activation);
  TensorId extremum(ir::OpType type, TensorId a, TensorId b);

  ir::Graph graph_;
  std::vector<Range> ranges_;
  std::vector<std::pair<std::string, int>> name_counts_;
  Random random_;
};

// Quantization (scale, zero point) that covers [lo, hi] (widened to include 0) with int8.
std::pair<float, int32_t> quantization_for_range(float lo, float hi);

}  // namespace mote::builder
