// Every operator kind through the runtime: a one-operator program built with the emitter, run by
// the Executor, compared with the kernel called directly with the parameters the program holds.
// This checks the dispatch wiring (options, tensors, constants, scratch) for each kind.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "compiler/emit/kernel_options.h"
#include "compiler/emit/program_builder.h"
#include "mote/kernels/add.h"
#include "mote/kernels/concatenation.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/hard_swish.h"
#include "mote/kernels/logistic.h"
#include "mote/kernels/lookup_table.h"
#include "mote/kernels/maximum_minimum.h"
#include "mote/kernels/mean.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/pad.h"
#include "mote/kernels/pooling.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/quantize.h"
#include "mote/kernels/resize_nearest_neighbor.h"
#include "mote/kernels/log_softmax.h"
#include "mote/kernels/softmax.h"
#include "mote/kernels/tanh.h"
#include "mote/kernels/transpose.h"
#include "mote/kernels/transpose_conv.h"
#include "mote/runtime/executor.h"
#include "runtime/testing/test_programs.h"

// Specs list only the fields they need.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace mote::runtime {
namespace {

using schema::DataType;
using schema::OpKind;

struct Spec {
  DataType type = DataType::Int8;
  std::vector<int32_t> shape;
  float scale = 0.0f;
  int32_t zero_point = 0;
  std::vector<uint8_t> constant;  // non-empty: a constant tensor with these bytes
};

size_t bytes_of(const Spec& s) {
  size_t n = s.type == DataType::Float32 || s.type == DataType::Int32 ? 4
             : s.type == DataType::Int16                             ? 2
                                                                     : 1;
  for (const int32_t d : s.shape) n *= static_cast<size_t>(d);
  return n;
}

std::vector<uint8_t> pseudo_random_bytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) {
    seed = seed * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(seed >> 24);
  }
  return v;
}

template <typename T>
const T* as(const std::vector<uint8_t>& v) {
  return reinterpret_cast<const T*>(v.data());
}

// Builds, loads and runs one operator; inputs and outputs are placed one after the other.
class OneOp {
 public:
  OneOp(OpKind kind, std::vector<Spec> inputs, std::vector<Spec> outputs,
        schema::OpOptionsUnion options = {}, uint32_t scratch = 0,
        schema::Extension extension = schema::Extension::Scalar)
      : builder_("test", extension) {
    uint32_t offset = 0;
    auto place = [&](const Spec& s) {
      const int32_t t = builder_.add_arena_tensor("t", s.type, s.shape, offset, s.scale,
                                                  s.zero_point);
      offset += (static_cast<uint32_t>(bytes_of(s)) + 15) / 16 * 16;
      return t;
    };
    std::vector<int32_t> ins, outs, graph_ins;
    for (const Spec& s : inputs) {
      if (s.constant.empty()) {
        ins.push_back(place(s));
        graph_ins.push_back(ins.back());
        inputs_.push_back(s);
      } else {
        ins.push_back(builder_.add_constant_tensor("k", s.type, s.shape, s.constant, s.scale,
                                                   s.zero_point));
      }
    }
    for (const Spec& s : outputs) outs.push_back(place(s));
    std::optional<schema::Region> region;
    if (scratch != 0) {
      region = schema::Region(offset, scratch);
      offset += (scratch + 15) / 16 * 16;
    }
    builder_.add_operator(kind, ins, outs, std::move(options), region);
    builder_.set_graph_io(graph_ins, outs);
    builder_.set_arena(offset);
    builder_.derive_lifetimes();
  }

  emit::ProgramBuilder& builder() { return builder_; }

  // Runs with these input bytes (or pseudo-random ones); returns the outputs' bytes.
  std::vector<std::vector<uint8_t>> run(std::vector<std::vector<uint8_t>> input_bytes = {}) {
    for (size_t i = input_bytes.size(); i < inputs_.size(); ++i) {
      input_bytes.push_back(pseudo_random_bytes(bytes_of(inputs_[i]), 7 + 31 * i));
    }
    inputs_used_ = input_bytes;
    loaded_ = std::make_unique<testing::Loaded>(testing::load(builder_.finish()));
    EXPECT_TRUE(loaded_->program.ok()) << loaded_->diagnostic.reason;
    if (!loaded_->program.ok()) return {};
    arena_ = emit::AlignedBuffer(loaded_->program->arena_size());
    auto executor = Executor::create(*loaded_->program, arena_.data(), arena_.size());
    EXPECT_TRUE(executor.ok());
    for (size_t i = 0; i < input_bytes.size(); ++i) {
      const TensorView v = executor->input(i);
      EXPECT_EQ(v.size, input_bytes[i].size());
      std::memcpy(v.data, input_bytes[i].data(), v.size);
    }
    EXPECT_EQ(executor->run(), Error::kOk);
    std::vector<std::vector<uint8_t>> outputs;
    for (size_t i = 0; i < executor->num_outputs(); ++i) {
      const TensorView v = executor->output(i);
      outputs.emplace_back(v.data, v.data + v.size);
    }
    return outputs;
  }
  const std::vector<uint8_t>& input(size_t i) const { return inputs_used_.at(i); }

 private:
  emit::ProgramBuilder builder_;
  std::vector<Spec> inputs_;
  std::vector<std::vector<uint8_t>> inputs_used_;
  std::unique_ptr<testing::Loaded> loaded_;
  emit::AlignedBuffer arena_;
};

// The one-operator program loaded as written, without the emitter's own checks (which refuse
// the same programs): what the loader says of a program it must refuse.
testing::Loaded load_unchecked(OneOp& t) {
  schema::ProgramT program = t.builder().take_program();
  program.version = kFormatVersion;
  return testing::load(testing::pack_unchecked(program));
}

template <typename T>
schema::OpOptionsUnion options(T value) {
  schema::OpOptionsUnion u;
  u.Set(std::move(value));
  return u;
}

std::vector<uint8_t> int32_bytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Per-channel requantization for `channels` outputs with realistic multipliers.
struct PerChannel {
  std::vector<int32_t> multipliers, shifts;
  PerChannel(int channels, double base) {
    for (int c = 0; c < channels; ++c) {
      const auto q = kernels::quantize_multiplier(base * (1.0 + 0.3 * c));
      multipliers.push_back(q.multiplier);
      shifts.push_back(q.shift);
    }
  }
};

TEST(OpsTest, DepthwiseConvWithMultiplierAndNoBias) {
  // 3 input channels, depth multiplier 2, 3x3, stride 2, pad 1, dilation 1.
  const Spec x{DataType::Int8, {1, 7, 6, 3}};
  const Spec w{DataType::Int8, {1, 3, 3, 6}, 0, 0, pseudo_random_bytes(54, 3)};
  const Spec y{DataType::Int8, {1, 4, 3, 6}};
  const PerChannel pc(6, 0.004);
  schema::DepthwiseConvOptionsT o;
  o.stride_h = o.stride_w = 2;
  o.pad_h = o.pad_w = 1;
  o.depth_multiplier = 2;
  o.input_offset = 7;
  o.output_offset = -3;
  o.activation_min = -120;
  o.activation_max = 110;
  OneOp t(OpKind::DepthwiseConv2D, {x, w}, {y});
  o.multipliers = std::make_unique<schema::Region>(t.builder().add_constant_array(pc.multipliers));
  o.shifts = std::make_unique<schema::Region>(t.builder().add_constant_array(pc.shifts));
  t.builder().op(0).options.Set(std::move(o));
  const auto out = t.run();
  kernels::DepthwiseConvParams p{};
  p.shape = kernels::DepthwiseShape{1, 7, 6, 3, 3, 3, 4, 3, 6, 2, 2, 1, 1, 1, 1};
  p.input_offset = 7;
  p.output_offset = -3;
  p.act_min = -120;
  p.act_max = 110;
  p.output_multiplier = pc.multipliers.data();
  p.output_shift = pc.shifts.data();
  std::vector<int8_t> expected(72);
  kernels::depthwise_conv2d(p, as<int8_t>(t.input(0)), as<int8_t>(w.constant), nullptr,
                            expected.data(), kernels::Scratch{nullptr, 0});
  EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 72), 0);
}

TEST(OpsTest, DepthwiseConvRunsWithoutScratchOnMve) {
  // The portable depthwise kernel that an MVE build runs needs no scratch (CMSIS-NN's Helium
  // kernel would want 4 * 124 * Kh * Kw = 4464 bytes): a program without any loads and runs.
  const Spec x{DataType::Int8, {1, 4, 4, 8}};
  const Spec w{DataType::Int8, {1, 3, 3, 8}, 0, 0, pseudo_random_bytes(72, 5)};
  const Spec b{DataType::Int32, {8}, 0, 0, int32_bytes({1, -2, 300, 4, -5000, 6, 7, 8})};
  const Spec y{DataType::Int8, {1, 4, 4, 8}};
  const PerChannel pc(8, 0.01);
  schema::DepthwiseConvOptionsT o;
  o.pad_h = o.pad_w = 1;
  OneOp t(OpKind::DepthwiseConv2D, {x, w, b}, {y}, {}, 0, schema::Extension::Mve);
  o.multipliers = std::make_unique<schema::Region>(t.builder().add_constant_array(pc.multipliers));
  o.shifts = std::make_unique<schema::Region>(t.builder().add_constant_array(pc.shifts));
  t.builder().op(0).options.Set(std::move(o));
  EXPECT_EQ(t.run().at(0).size(), 128u);
}

TEST(OpsTest, FullyConnectedPerTensorPerChannelAndKernelSums) {
  const int32_t depth = 20, outputs = 6, batches = 3;
  const Spec x{DataType::Int8, {batches, depth}};
  const Spec w{DataType::Int8, {outputs, depth}, 0, 0, pseudo_random_bytes(outputs * depth, 9)};
  const std::vector<int32_t> bias = {100, -200, 300, -400, 500, -600};
  const Spec b{DataType::Int32, {outputs}, 0, 0, int32_bytes(bias)};
  const Spec y{DataType::Int8, {batches, outputs}};
  const PerChannel pc(outputs, 0.002);
  for (int variant = 0; variant < 3; ++variant) {  // per tensor, per channel, kernel sums
    const int32_t filter_offset = variant == 0 ? 3 : 0;
    OneOp t(OpKind::FullyConnected, {x, w, b}, {y});
    schema::FullyConnectedOptionsT o;
    o.input_offset = -5;
    o.filter_offset = filter_offset;
    o.output_offset = 9;
    kernels::FullyConnectedParams p{};
    p.batches = batches;
    p.input_depth = depth;
    p.output_depth = outputs;
    p.input_offset = -5;
    p.filter_offset = filter_offset;
    p.output_offset = 9;
    p.act_min = -128;
    p.act_max = 127;
    p.output_multiplier = pc.multipliers.data();
    p.output_shift = pc.shifts.data();
    std::vector<int32_t> sums(outputs);
    if (variant == 0) {
      o.output_requant = std::make_unique<schema::Requant>(pc.multipliers[0], pc.shifts[0]);
    } else {
      o.multipliers = std::make_unique<schema::Region>(t.builder().add_constant_array(pc.multipliers));
      o.shifts = std::make_unique<schema::Region>(t.builder().add_constant_array(pc.shifts));
      p.per_channel = true;
    }
    if (variant == 2) {
      kernels::fully_connected_kernel_sums(p, as<int8_t>(w.constant), bias.data(), sums.data());
      o.kernel_sums = std::make_unique<schema::Region>(t.builder().add_constant_array(sums));
    }
    t.builder().op(0).options.Set(std::move(o));
    const auto out = t.run();
    std::vector<int8_t> expected(batches * outputs);
    kernels::fully_connected(p, as<int8_t>(t.input(0)), as<int8_t>(w.constant), bias.data(),
                             expected.data());
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), expected.size()), 0) << variant;
  }
}

TEST(OpsTest, TransposeConv) {
  const Spec x{DataType::Int8, {1, 3, 4, 5}};
  const Spec w{DataType::Int8, {2, 3, 3, 5}, 0, 0, pseudo_random_bytes(90, 13)};
  const Spec y{DataType::Int8, {1, 6, 8, 2}};
  const PerChannel pc(2, 0.003);
  schema::TransposeConvOptionsT o;
  o.stride_h = o.stride_w = 2;
  o.pad_h = o.pad_w = 0;
  o.input_offset = 4;
  o.output_offset = -6;
  // Scalar: ((Wi-1)*sw + max(Kw, sh)) * Co * max(Kh, sh) * 4 = (6 + 3) * 2 * 3 * 4.
  OneOp t(OpKind::TransposeConv, {x, w}, {y}, {}, 216);
  o.multipliers = std::make_unique<schema::Region>(t.builder().add_constant_array(pc.multipliers));
  o.shifts = std::make_unique<schema::Region>(t.builder().add_constant_array(pc.shifts));
  t.builder().op(0).options.Set(std::move(o));
  const auto out = t.run();
  kernels::TransposeConvParams p{};
  p.shape = kernels::TransposeConvShape{1, 3, 4, 5, 3, 3, 6, 8, 2, 2, 2, 0, 0};
  p.input_offset = 4;
  p.output_offset = -6;
  p.act_min = -128;
  p.act_max = 127;
  p.output_multiplier = pc.multipliers.data();
  p.output_shift = pc.shifts.data();
  std::vector<int8_t> expected(96);
  kernels::transpose_conv2d(p, as<int8_t>(t.input(0)), as<int8_t>(w.constant), nullptr,
                            expected.data(), kernels::Scratch{nullptr, 0});
  EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 96), 0);
}

TEST(OpsTest, MaxAndAveragePool) {
  for (const bool average : {false, true}) {
    schema::PoolOptionsT o;
    o.stride_h = o.stride_w = 2;
    o.filter_h = o.filter_w = 3;
    o.pad_h = o.pad_w = 1;
    o.activation_min = -100;
    o.activation_max = 90;
    const Spec x{DataType::Int8, {2, 7, 6, 3}, 0.1f, 0};
    const Spec y{DataType::Int8, {2, 4, 3, 3}, 0.1f, 0};
    // DSP average pooling plans channels * 4 bytes of scratch.
    OneOp t(average ? OpKind::AveragePool2D : OpKind::MaxPool2D, {x}, {y}, options(o),
            average ? 12 : 0, schema::Extension::Dsp);
    const auto out = t.run();
    const kernels::PoolParams p{2, 7, 6, 3, 4, 3, 3, 3, 2, 2, 1, 1, -100, 90};
    std::vector<int8_t> expected(bytes_of(y));
    if (average) {
      int8_t scratch[12];
      kernels::average_pool(p, as<int8_t>(t.input(0)), expected.data(),
                            kernels::Scratch{scratch, sizeof(scratch)});
    } else {
      kernels::max_pool(p, as<int8_t>(t.input(0)), expected.data());
    }
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), expected.size()), 0) << average;
  }
}

// A window whose area times the largest element overflows even int64 (1.9e9 squared, times 128;
// found by fuzz_program_load_dsp) is refused as too large, its pads keeping it consistent.
TEST(OpsTest, PoolWindowOfAHugeAreaIsRefused) {
  for (const DataType type : {DataType::Int8, DataType::Int16}) {
    schema::PoolOptionsT o;
    o.stride_h = o.stride_w = 1;
    o.filter_h = o.filter_w = 1900000000;
    o.pad_h = o.pad_w = 1899999998;
    o.activation_min = type == DataType::Int16 ? -32768 : -128;
    o.activation_max = type == DataType::Int16 ? 32767 : 127;
    const Spec x{type, {1, 4, 4, 2}, 0.1f, 0};
    OneOp t(OpKind::AveragePool2D, {x}, {x}, options(o));
    const testing::Loaded loaded = load_unchecked(t);
    EXPECT_FALSE(loaded.program.ok());
    EXPECT_EQ(std::string(loaded.diagnostic.reason), "pooling window too large");
  }
}

// The loader checks each operator's signature (registry.h) before the operator's own check.
TEST(OpsTest, SignatureRefusesWhatTheKernelCannotTake) {
  const auto refusal = [](OpKind kind, std::vector<Spec> inputs, Spec output) {
    OneOp t(kind, std::move(inputs), {output});
    const testing::Loaded loaded = load_unchecked(t);
    EXPECT_FALSE(loaded.program.ok());
    return std::string(loaded.diagnostic.reason);
  };
  const Spec i8{DataType::Int8, {2, 3}}, f32{DataType::Float32, {2, 3}};
  EXPECT_EQ(refusal(OpKind::Maximum, {i8, f32}, i8), "inputs must be int8");
  EXPECT_EQ(refusal(OpKind::Minimum, {i8, i8}, f32), "output must be int8");
  EXPECT_EQ(refusal(OpKind::Maximum, {i8, {DataType::Int8, {3, 2}}}, i8),
            "input shapes do not broadcast to the output shape");
  EXPECT_EQ(refusal(OpKind::Minimum, {i8}, i8), "wrong number of inputs or outputs");
  EXPECT_EQ(refusal(OpKind::Dequantize, {i8}, {DataType::Float32, {7}}),
            "input and output sizes differ");
  EXPECT_EQ(refusal(OpKind::MaxPool2D, {i8}, i8), "options of the wrong kind");
}

TEST(OpsTest, MulWithBroadcast) {
  const kernels::MulParams p = kernels::prepare_mul(0.1f, 3, 0.2f, -4, 0.05f, 1, -120, 120);
  schema::MulOptionsT o = emit::program_options(p);
  const Spec a{DataType::Int8, {1, 3, 4, 5}}, b{DataType::Int8, {4, 1}}, y{DataType::Int8, {1, 3, 4, 5}};
  OneOp t(OpKind::Mul, {a, b}, {y}, options(std::move(o)));
  const auto out = t.run();
  const int32_t da[] = {1, 3, 4, 5}, db[] = {4, 1};
  kernels::BroadcastShape shape{};
  ASSERT_TRUE(kernels::prepare_broadcast_shape(da, 4, db, 2, &shape));
  std::vector<int8_t> expected(60);
  kernels::mul(p, shape, as<int8_t>(t.input(0)), as<int8_t>(t.input(1)), expected.data());
  EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 60), 0);
}

TEST(OpsTest, MinimumAndMaximum) {
  for (const bool maximum : {false, true}) {
    const Spec a{DataType::Int8, {2, 1, 3}}, b{DataType::Int8, {4, 1}}, y{DataType::Int8, {2, 4, 3}};
    OneOp t(maximum ? OpKind::Maximum : OpKind::Minimum, {a, b}, {y});
    const auto out = t.run();
    const int32_t da[] = {2, 1, 3}, db[] = {4, 1};
    kernels::BroadcastShape shape{};
    ASSERT_TRUE(kernels::prepare_broadcast_shape(da, 3, db, 2, &shape));
    std::vector<int8_t> expected(24);
    if (maximum) {
      kernels::maximum(shape, as<int8_t>(t.input(0)), as<int8_t>(t.input(1)), expected.data());
    } else {
      kernels::minimum(shape, as<int8_t>(t.input(0)), as<int8_t>(t.input(1)), expected.data());
    }
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 24), 0);
  }
}

TEST(OpsTest, SoftmaxToInt8AndInt16) {
  for (const DataType out_type : {DataType::Int8, DataType::Int16}) {
    const kernels::SoftmaxParams p = kernels::prepare_softmax(6, 10, 0.08f, 1.0f);
    schema::SoftmaxOptionsT o;
    o.input_multiplier = p.input_multiplier;
    o.input_left_shift = p.input_left_shift;
    o.diff_min = p.diff_min;
    const Spec x{DataType::Int8, {2, 3, 10}, 0.08f, 0};
    const Spec y{out_type, {2, 3, 10}};
    OneOp t(OpKind::Softmax, {x}, {y}, options(o));
    const auto out = t.run();
    if (out_type == DataType::Int8) {
      std::vector<int8_t> expected(60);
      kernels::softmax(p, as<int8_t>(t.input(0)), expected.data());
      EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 60), 0);
    } else {
      std::vector<int16_t> expected(60);
      kernels::softmax(p, as<int8_t>(t.input(0)), expected.data());
      EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 120), 0);
    }
  }
}

TEST(OpsTest, LogSoftmaxRunsTheKernelAndRefusesParametersItCannotTake) {
  const kernels::LogSoftmaxParams p = kernels::prepare_log_softmax(6, 10, 0.08f);
  const Spec x{DataType::Int8, {2, 3, 10}, 0.08f, 0};
  const Spec y{DataType::Int8, {2, 3, 10}, 16.0f / 256, 127};
  OneOp t(OpKind::LogSoftmax, {x}, {y}, options(emit::program_options(p)));
  const auto out = t.run();
  std::vector<int8_t> expected(60);
  kernels::log_softmax(p, as<int8_t>(t.input(0)), expected.data());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 60), 0);

  auto load_error = [&](const std::function<void(schema::LogSoftmaxOptionsT&)>& change,
                        std::vector<int32_t> shape = {2, 3, 10}) {
    schema::LogSoftmaxOptionsT o = emit::program_options(p);
    change(o);
    OneOp bad(OpKind::LogSoftmax, {{DataType::Int8, shape, 0.08f, 0}},
              {{DataType::Int8, shape, 16.0f / 256, 127}}, options(o));
    const testing::Loaded loaded = load_unchecked(bad);
    EXPECT_FALSE(loaded.program.ok());
    EXPECT_STREQ(loaded.diagnostic.op_name, "LOG_SOFTMAX");
    return std::string(loaded.diagnostic.reason);
  };
  EXPECT_EQ(load_error([](auto& o) { o.reverse_scaling_right_shift = 32; }),
            "log_softmax parameters out of range");
  EXPECT_EQ(load_error([](auto& o) { o.input_left_shift = 40; }),
            "log_softmax parameters out of range");
  EXPECT_EQ(load_error([](auto& o) { o.diff_min = INT32_MIN; }),
            "log_softmax parameters out of range");
  EXPECT_EQ(load_error([](auto&) {}, {1, 4096}), "log_softmax row of 4096 or more");
}

TEST(OpsTest, QuantizeRequantizeDequantize) {
  {
    std::vector<float> values(24);
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.7f * i) * 3.0f;
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    OneOp t(OpKind::Quantize, {{DataType::Float32, {2, 12}}}, {{DataType::Int8, {2, 12}, 0.03f, 4}},
            options(schema::QuantizeOptionsT{}));
    const auto out = t.run({bytes});
    std::vector<int8_t> expected(24);
    kernels::quantize(kernels::prepare_quantize(0.03f, 4), values.data(), expected.data(), 24);
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 24), 0);
  }
  {
    const kernels::RequantizeParams p = kernels::prepare_requantize(0.05f, 3, 0.08f, -7);
    schema::QuantizeOptionsT o;
    o.input_offset = -p.input_zero_point;
    o.output_offset = p.output_zero_point;
    o.requant = std::make_unique<schema::Requant>(p.multiplier, p.shift);
    OneOp t(OpKind::Quantize, {{DataType::Int8, {30}, 0.05f, 3}}, {{DataType::Int8, {30}, 0.08f, -7}},
            options(std::move(o)));
    const auto out = t.run();
    std::vector<int8_t> expected(30);
    kernels::requantize(p, as<int8_t>(t.input(0)), expected.data(), 30);
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 30), 0);
  }
  {
    OneOp t(OpKind::Dequantize, {{DataType::Int8, {3, 5}, 0.25f, -2}}, {{DataType::Float32, {3, 5}}});
    const auto out = t.run();
    std::vector<float> expected(15);
    kernels::dequantize(kernels::prepare_dequantize(0.25f, -2), as<int8_t>(t.input(0)),
                        expected.data(), 15);
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 60), 0);
  }
}

TEST(OpsTest, PadAndTranspose) {
  {
    schema::PadOptionsT o;
    o.before = {0, 1, 0, 2};
    o.after = {0, 2, 1, 0};
    o.pad_value = -9;
    OneOp t(OpKind::Pad, {{DataType::Int8, {1, 3, 4, 2}}}, {{DataType::Int8, {1, 6, 5, 4}}},
            options(o));
    const auto out = t.run();
    const int32_t dims[] = {1, 3, 4, 2}, before[] = {0, 1, 0, 2}, after[] = {0, 2, 1, 0};
    std::vector<int8_t> expected(120);
    kernels::pad(kernels::prepare_pad(4, dims, before, after, -9), as<int8_t>(t.input(0)),
                 expected.data());
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 120), 0);
  }
  {
    schema::TransposeOptionsT o;
    o.perm = {2, 0, 1};
    OneOp t(OpKind::Transpose, {{DataType::Int8, {2, 3, 4}}}, {{DataType::Int8, {4, 2, 3}}},
            options(o));
    const auto out = t.run();
    const int32_t dims[] = {2, 3, 4}, perm[] = {2, 0, 1};
    std::vector<int8_t> expected(24);
    kernels::transpose(kernels::prepare_transpose(3, dims, perm), as<int8_t>(t.input(0)),
                       expected.data());
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 24), 0);
  }
}

TEST(OpsTest, MeanOverAnyAxes) {
  // {axes, keep_dims output shape, dropped output shape} of a [2, 5, 3, 4] input.
  struct Case {
    std::vector<int32_t> axes;
    std::vector<int32_t> kept, dropped;
  };
  const Case cases[] = {{{1, 2}, {2, 1, 1, 4}, {2, 4}},
                        {{3}, {2, 5, 3, 1}, {2, 5, 3}},
                        {{0, 3}, {1, 5, 3, 1}, {5, 3}},
                        {{0, 1, 2, 3}, {1, 1, 1, 1}, {}}};
  const int32_t dims[] = {2, 5, 3, 4};
  for (const Case& k : cases) {
    for (const bool keep_dims : {true, false}) {
      int64_t count = 1;
      for (int32_t a : k.axes) count *= dims[a];
      const kernels::QuantizedMultiplier m = kernels::mean_requant(0.1f, 0.07f, count);
      const kernels::MeanParams p =
          kernels::prepare_mean(4, dims, static_cast<int32_t>(k.axes.size()), k.axes.data(), -5,
                                6, m.multiplier, m.shift);
      schema::MeanOptionsT o;
      o.axes = k.axes;
      o.keep_dims = keep_dims;
      o.input_offset = 5;
      o.output_offset = 6;
      o.requant = std::make_unique<schema::Requant>(m.multiplier, m.shift);
      o.formula = schema::MeanFormula::Folded;
      const Spec y{DataType::Int8, keep_dims ? k.kept : k.dropped};
      OneOp t(OpKind::Mean, {{DataType::Int8, {2, 5, 3, 4}}}, {y}, options(std::move(o)));
      const auto out = t.run();
      const size_t n = static_cast<size_t>(120 / count);
      std::vector<int8_t> expected(n);
      kernels::mean(p, as<int8_t>(t.input(0)), expected.data());
      ASSERT_EQ(out.at(0).size(), n);
      EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), n), 0) << keep_dims;
    }
  }
}

TEST(OpsTest, ConcatenationCopiesAndRequantizes) {
  const int32_t d0[] = {2, 3, 2}, d1[] = {2, 1, 2}, dout[] = {2, 4, 2};
  const kernels::ConcatenationInput in0 =
      kernels::prepare_concatenation_input(3, d0, 1, 0.1f, 2, 0.1f, 2);
  const kernels::ConcatenationInput in1 =
      kernels::prepare_concatenation_input(3, d1, 1, 0.3f, -1, 0.1f, 2);
  ASSERT_FALSE(in0.requantize);
  ASSERT_TRUE(in1.requantize);
  schema::ConcatenationOptionsT o;
  o.axis = 1;
  o.requant = {schema::ConcatRequant(false, 0, schema::Requant(0, 0)),
               schema::ConcatRequant(true, 1, schema::Requant(in1.multiplier, in1.shift))};
  OneOp t(OpKind::Concatenation,
          {{DataType::Int8, {2, 3, 2}, 0.1f, 2}, {DataType::Int8, {2, 1, 2}, 0.3f, -1}},
          {{DataType::Int8, {2, 4, 2}, 0.1f, 2}}, options(o));
  const auto out = t.run();
  const kernels::ConcatenationInput params[] = {in0, in1};
  const int8_t* inputs[] = {as<int8_t>(t.input(0)), as<int8_t>(t.input(1))};
  std::vector<int8_t> expected(16);
  kernels::concatenation(kernels::prepare_concatenation(2, 3, dout, 1), params, inputs,
                         expected.data());
  EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 16), 0);
}

TEST(OpsTest, LogisticFixedPointAndTable) {
  const Spec x{DataType::Int8, {40}, 0.1f, 3}, y{DataType::Int8, {40}, 1.0f / 256, -128};
  {
    const kernels::LogisticParams p = kernels::prepare_logistic(0.1f, 3);
    schema::LogisticOptionsT o = emit::program_options(p);
    OneOp t(OpKind::Logistic, {x}, {y}, options(o));
    const auto out = t.run();
    std::vector<int8_t> expected(40);
    kernels::logistic(p, as<int8_t>(t.input(0)), expected.data(), 40);
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 40), 0);
  }
  {
    int8_t table[256];
    kernels::prepare_logistic_table(0.1f, 3, 1.0f / 256, -128, table);
    schema::LogisticOptionsT o;
    OneOp t(OpKind::Logistic, {x}, {y});
    const schema::Region region = t.builder().add_constant_bytes(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(table), 256));
    o.table = std::make_unique<schema::Region>(region);
    t.builder().op(0).options.Set(std::move(o));
    const auto out = t.run();
    std::vector<int8_t> expected(40);
    kernels::lookup_table(table, as<int8_t>(t.input(0)), expected.data(), 40);
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 40), 0);
  }
}

TEST(OpsTest, TanhFixedPointAndTable) {
  const Spec x{DataType::Int8, {40}, 0.05f, -7}, y{DataType::Int8, {40}, 1.0f / 128, 0};
  {
    const kernels::TanhParams p = kernels::prepare_tanh(0.05f, -7);
    schema::TanhOptionsT o;
    o.input_zero_point = p.input_zero_point;
    o.input_range_radius = p.input_range_radius;
    o.input_multiplier = p.input_multiplier;
    o.input_left_shift = p.input_left_shift;
    OneOp t(OpKind::Tanh, {x}, {y}, options(o));
    const auto out = t.run();
    std::vector<int8_t> expected(40);
    kernels::tanh(p, as<int8_t>(t.input(0)), expected.data(), 40);
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 40), 0);
  }
  {
    int8_t table[256];
    kernels::prepare_tanh_table(0.05f, -7, 1.0f / 128, 0, table);
    schema::TanhOptionsT o;
    OneOp t(OpKind::Tanh, {x}, {y});
    const schema::Region region = t.builder().add_constant_bytes(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(table), 256));
    o.table = std::make_unique<schema::Region>(region);
    t.builder().op(0).options.Set(std::move(o));
    const auto out = t.run();
    std::vector<int8_t> expected(40);
    kernels::lookup_table(table, as<int8_t>(t.input(0)), expected.data(), 40);
    EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 40), 0);
  }
}

TEST(OpsTest, HardSwish) {
  const kernels::HardSwishParams p = kernels::prepare_hard_swish(0.05f, -10, 0.03f, 7);
  schema::HardSwishOptionsT o = emit::program_options(p);
  OneOp t(OpKind::HardSwish, {{DataType::Int8, {50}}}, {{DataType::Int8, {50}}}, options(o));
  const auto out = t.run();
  std::vector<int8_t> expected(50);
  kernels::hard_swish(p, as<int8_t>(t.input(0)), expected.data(), 50);
  EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 50), 0);
}

// An int8 operator in its table form (OptionsT::table, an ONNX model's): a lookup per element.
template <typename OptionsT>
void ExpectTableForm(OpKind kind) {
  int8_t table[256];
  for (int i = 0; i < 256; ++i) table[i] = static_cast<int8_t>(i * 7);  // any mapping
  OptionsT o;
  OneOp t(kind, {{DataType::Int8, {50}}}, {{DataType::Int8, {50}}});
  const schema::Region region = t.builder().add_constant_bytes(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(table), 256));
  o.table = std::make_unique<schema::Region>(region);
  t.builder().op(0).options.Set(std::move(o));
  const auto out = t.run();
  std::vector<int8_t> expected(50);
  kernels::lookup_table(table, as<int8_t>(t.input(0)), expected.data(), 50);
  EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 50), 0);
}

TEST(OpsTest, HardSwishAndLeakyReluTables) {
  ExpectTableForm<schema::HardSwishOptionsT>(OpKind::HardSwish);
  ExpectTableForm<schema::LeakyReluOptionsT>(OpKind::LeakyRelu);
}

// MoteTableLookup is nothing but its table: it runs it, and refuses to load without 256 bytes.
TEST(OpsTest, TableLookupRunsItsTableAndRefusesAMissingOne) {
  ExpectTableForm<schema::TableLookupOptionsT>(OpKind::TableLookup);
  auto load_error = [](size_t table_bytes) {
    OneOp bad(OpKind::TableLookup, {{DataType::Int8, {8}}}, {{DataType::Int8, {8}}});
    schema::TableLookupOptionsT o;
    if (table_bytes > 0) {
      const std::vector<uint8_t> bytes(table_bytes, 1);
      o.table = std::make_unique<schema::Region>(bad.builder().add_constant_bytes(bytes));
    }
    bad.builder().op(0).options.Set(std::move(o));
    const testing::Loaded loaded = load_unchecked(bad);
    EXPECT_FALSE(loaded.program.ok());
    EXPECT_STREQ(loaded.diagnostic.op_name, "MoteTableLookup");
    return std::string(loaded.diagnostic.reason);
  };
  EXPECT_EQ(load_error(0), "lookup table missing");
  EXPECT_EQ(load_error(255), "lookup table must be 256 constant bytes");
}

TEST(OpsTest, ResizeNearestNeighbor) {
  schema::ResizeNearestNeighborOptionsT o;
  o.half_pixel_centers = true;
  OneOp t(OpKind::ResizeNearestNeighbor, {{DataType::Int8, {1, 3, 4, 2}}},
          {{DataType::Int8, {1, 7, 5, 2}}}, options(o));
  const auto out = t.run();
  const kernels::ResizeNearestNeighborParams p{1, 3, 4, 2, 7, 5, false, true};
  std::vector<int8_t> expected(70);
  kernels::resize_nearest_neighbor(p, as<int8_t>(t.input(0)), expected.data());
  EXPECT_EQ(std::memcmp(out.at(0).data(), expected.data(), 70), 0);
}

TEST(OpsTest, ReshapeCopiesWhenNotAliased) {
  OneOp t(OpKind::Reshape, {{DataType::Int8, {2, 6}}}, {{DataType::Int8, {3, 4}}});
  const auto out = t.run();
  EXPECT_EQ(out.at(0), t.input(0));
}

}  // namespace
}  // namespace mote::runtime

namespace mote::runtime {
namespace {

// In place: the compiler declares the output an alias of an input at the same offset; the plan
// check accepts it and the kernel reads and writes the same bytes.
TEST(OpsTest, AddInPlaceThroughAnAlias) {
  const kernels::AddParams p = kernels::prepare_add(0.1f, 1, 0.2f, -2, 0.15f, 3, -128, 127);
  emit::ProgramBuilder b("test", schema::Extension::Scalar);
  const int32_t x = b.add_arena_tensor("x", DataType::Int8, {24}, 0, 0.1f, 1);
  const int32_t y = b.add_arena_tensor("y", DataType::Int8, {24}, 32, 0.2f, -2);
  const int32_t z = b.add_arena_tensor("z", DataType::Int8, {24}, 0, 0.15f, 3);
  b.tensor(z).alias = x;
  schema::AddOptionsT o = emit::program_options(p);
  b.add_operator(OpKind::Add, {x, y}, {z}, options(std::move(o)));
  b.set_graph_io({x, y}, {z});
  b.set_arena(64);
  b.derive_lifetimes();
  const auto loaded = testing::load(b.finish());
  ASSERT_TRUE(loaded.program.ok()) << loaded.diagnostic.reason;
  emit::AlignedBuffer arena(64);
  auto executor = Executor::create(*loaded.program, arena.data(), arena.size());
  ASSERT_TRUE(executor.ok());
  const auto a = pseudo_random_bytes(24, 1), c = pseudo_random_bytes(24, 2);
  std::memcpy(executor->input(0).data, a.data(), 24);
  std::memcpy(executor->input(1).data, c.data(), 24);
  ASSERT_EQ(executor->run(), Error::kOk);
  std::vector<int8_t> expected(24);
  kernels::add(p, kernels::elementwise_shape(24), as<int8_t>(a), as<int8_t>(c), expected.data());
  EXPECT_EQ(executor->output(0).data, arena.data());
  EXPECT_EQ(std::memcmp(executor->output(0).data, expected.data(), 24), 0);
}

// The data-movement kinds' load checks: every read inside the input, the outputs covering it.
TEST(OpsTest, DataMovementLoadChecksRefuseReadsOutsideTheInput) {
  const auto refusal = [](OpKind kind, std::vector<Spec> inputs, std::vector<Spec> outputs,
                          schema::OpOptionsUnion o) {
    OneOp t(kind, std::move(inputs), std::move(outputs), std::move(o));
    const testing::Loaded loaded = load_unchecked(t);
    EXPECT_FALSE(loaded.program.ok());
    return std::string(loaded.diagnostic.reason);
  };
  const auto slice = [](std::vector<int32_t> begin, std::vector<int32_t> stride,
                        std::vector<int32_t> count) {
    schema::SliceOptionsT s;
    s.begin = std::move(begin);
    s.stride = std::move(stride);
    s.count = std::move(count);
    return options(std::move(s));
  };
  const Spec x{DataType::Int8, {4, 6}};
  // Rows 3, 1, -1: the last step leaves the input.
  EXPECT_EQ(refusal(OpKind::StridedSlice, {x}, {{DataType::Int8, {3, 6}}},
                    slice({3, 0}, {-2, 1}, {3, 6})),
            "slice reads outside the input");
  EXPECT_EQ(refusal(OpKind::Slice, {x}, {{DataType::Int8, {2, 5}}}, slice({0, 0}, {1, 1}, {2, 6})),
            "output size differs from the slice's");
  EXPECT_EQ(refusal(OpKind::Slice, {x}, {{DataType::Int8, {4, 6}}}, slice({0, 0}, {1, 0}, {4, 6})),
            "slice begin, stride or count invalid");
  schema::SplitOptionsT axis1;
  axis1.axis = 1;
  EXPECT_EQ(refusal(OpKind::Split, {x}, {{DataType::Int8, {4, 2}}, {DataType::Int8, {4, 2}}},
                    options(axis1)),
            "outputs do not cover the input along the axis");
  EXPECT_EQ(refusal(OpKind::Unpack, {x}, {{DataType::Int8, {4}}}, options(axis1)),
            "outputs do not cover the input along the axis");
  schema::GatherOptionsT g;
  g.axis = 0;
  EXPECT_EQ(refusal(OpKind::Gather, {x, {DataType::Int32, {2}, 0, 0, int32_bytes({1, 4})}},
                    {{DataType::Int8, {2, 6}}}, options(g)),
            "constant index outside the axis");
  schema::SpaceDepthOptionsT b;
  b.block_size = 2;
  EXPECT_EQ(refusal(OpKind::DepthToSpace, {{DataType::Int8, {1, 2, 2, 4}}},
                    {{DataType::Int8, {1, 4, 4, 2}}}, options(b)),
            "output shape inconsistent with block_size");
}

// SPLIT through the runtime alone: three outputs, each its own arena tensor.
TEST(OpsTest, SplitWritesEveryOutput) {
  schema::SplitOptionsT o;
  o.axis = 1;
  OneOp t(OpKind::Split, {{DataType::Int8, {2, 6}}},
          {{DataType::Int8, {2, 2}}, {DataType::Int8, {2, 2}}, {DataType::Int8, {2, 2}}},
          options(o));
  std::vector<uint8_t> in(12);
  for (size_t i = 0; i < 12; ++i) in[i] = static_cast<uint8_t>(i);
  const auto out = t.run({in});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], (std::vector<uint8_t>{0, 1, 6, 7}));
  EXPECT_EQ(out[1], (std::vector<uint8_t>{2, 3, 8, 9}));
  EXPECT_EQ(out[2], (std::vector<uint8_t>{4, 5, 10, 11}));
}

}  // namespace
}  // namespace mote::runtime
