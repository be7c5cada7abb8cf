// What int8 models from the field contain, end to end: builder models written as
// .tflite, read back, compiled for a scalar, a DSP and an MVE CPU, run on the host and compared
// byte for byte with slow references written here from TensorFlow Lite's definitions.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/quantize.h"

namespace mote {
namespace {

using ::testing::HasSubstr;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// The graph through .tflite, compiled for `cpu` and run on the host with one int8 input.
std::vector<uint8_t> compile_and_run(const ir::Graph& graph, const char* cpu,
                                     const std::vector<uint8_t>& input) {
  const ir::Graph read = tflite::read_model(builder::write_model(graph));
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  const pipeline::Compiled compiled = pipeline::compile(read, options);
  const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input});
  return run.outputs.at(0);
}

// TensorFlow Lite's int8 MEAN (reference_ops::QuantizedMeanOrSum, tensorflow/lite/kernels/
// internal/reference/reduce.h, which reduce.cc's EvalQuantizedMean calls for every int8 MEAN):
// raw int32 sums; multiplier and shift of input_scale / output_scale (QuantizeMultiplier); the
// count folded in as (multiplier << s) / count, shift - s, s = min(floor(log2 count), 32,
// 31 + shift); MultiplyByQuantizedMultiplier(sum - zp_in * count) + zp_out, clamped.
int64_t rounding_high_mul(int64_t a, int64_t b) {
  const int64_t ab = a * b;
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30);
  return (ab + nudge) / (int64_t{1} << 31);  // C++ division truncates, as gemmlowp's does
}
int64_t rounding_shift_right(int64_t x, int e) {
  if (e == 0) return x;
  const int64_t mask = (int64_t{1} << e) - 1, rem = x & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (rem > threshold ? 1 : 0);
}
std::vector<uint8_t> slow_mean(const std::vector<int32_t>& dims, std::vector<int32_t> axes,
                               double in_scale, int32_t in_zp, double out_scale, int32_t out_zp,
                               const std::vector<uint8_t>& input) {
  const int rank = static_cast<int>(dims.size());
  for (int32_t& a : axes) a = a < 0 ? a + rank : a;
  std::vector<bool> reduced(dims.size(), false);
  for (int32_t a : axes) reduced[static_cast<size_t>(a)] = true;
  int64_t count = 1, outputs = 1;
  for (int d = 0; d < rank; ++d) (reduced[d] ? count : outputs) *= dims[d];
  std::vector<int64_t> sums(static_cast<size_t>(outputs), 0);
  std::vector<int32_t> index(dims.size(), 0);
  for (uint8_t byte : input) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * dims[d] + index[d];
    }
    sums[static_cast<size_t>(o)] += static_cast<int8_t>(byte);
    for (int d = rank - 1; d >= 0 && ++index[d] == dims[d]; --d) index[d] = 0;
  }
  const kernels::QuantizedMultiplier q = kernels::quantize_multiplier(in_scale / out_scale);
  int s = 0;
  while ((int64_t{2} << s) <= count) ++s;
  s = std::min({s, 32, 31 + static_cast<int>(q.shift)});
  const int64_t multiplier = (int64_t{q.multiplier} << s) / count;
  const int shift = q.shift - s;
  std::vector<uint8_t> out;
  for (int64_t sum : sums) {
    const int64_t x = (sum - in_zp * count) * (shift > 0 ? (int64_t{1} << shift) : 1);
    const int64_t v =
        rounding_shift_right(rounding_high_mul(x, multiplier), shift > 0 ? 0 : -shift);
    out.push_back(
        static_cast<uint8_t>(static_cast<int8_t>(std::clamp<int64_t>(v + out_zp, -128, 127))));
  }
  return out;
}

// A model that is one MEAN of an int8 input.
ir::Graph mean_model(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                     bool keep_dims, float in_scale, int32_t in_zp, float out_scale,
                     int32_t out_zp) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input(dims, ir::DataType::kInt8, in_scale, in_zp);
  b.mark_output(b.add_mean(x, axes, keep_dims, out_scale, out_zp));
  return b.build();
}

TEST(FieldMean, SevenBySevenOf1280ChannelsMatchesTfLiteBitForBit) {
  // The field's layer: the global average of a MobileNetV2 head, output scale differing.
  const std::vector<int32_t> dims = {1, 7, 7, 1280};
  const float in_scale = 0.0235294122f, out_scale = 0.0117647061f;
  const ir::Graph graph = mean_model(dims, {1, 2}, true, in_scale, -128, out_scale, -128);
  const std::vector<uint8_t> input = random_bytes(7 * 7 * 1280, 16);
  const std::vector<uint8_t> expected =
      slow_mean(dims, {1, 2}, in_scale, -128, out_scale, -128, input);
  ASSERT_EQ(expected.size(), 1280u);
  for (const char* cpu : kCpus) {
    EXPECT_EQ(compile_and_run(graph, cpu, input), expected) << cpu;
  }
  // The rule Mote had (requantize the sum, then divide by 49 rounding half away) differs from
  // TFLite's on a few percent of these outputs: the comparison above tells them apart.
  const kernels::QuantizedMultiplier q = kernels::quantize_multiplier(double{in_scale} / out_scale);
  int differ = 0;
  for (size_t c = 0; c < 1280; ++c) {
    int64_t sum = 0;
    for (size_t i = 0; i < 49; ++i) sum += static_cast<int8_t>(input[i * 1280 + c]) + 128;
    const int64_t x = sum * (q.shift > 0 ? (int64_t{1} << q.shift) : 1);
    const int64_t scaled =
        rounding_shift_right(rounding_high_mul(x, q.multiplier), q.shift > 0 ? 0 : -q.shift);
    const int64_t old = (scaled > 0 ? scaled + 24 : scaled - 24) / 49 - 128;
    differ += static_cast<int8_t>(std::clamp<int64_t>(old, -128, 127)) !=
              static_cast<int8_t>(expected[c]);
  }
  EXPECT_GT(differ, 0);
}

TEST(FieldMean, AnyAxesKeepDimsOrNotMatchTfLite) {
  struct Case {
    std::vector<int32_t> dims, axes;
  };
  const Case cases[] = {{{1, 5, 6, 24}, {1, 2}}, {{2, 5, 6, 8}, {2, 1}},
                        {{1, 5, 6, 8}, {1}},     {{1, 5, 6, 8}, {-1}},
                        {{3, 10, 7}, {2}},       {{4, 33}, {1}},
                        {{2, 3, 4, 5}, {0, 3}},  {{2, 3, 4, 5}, {0, 1, 2, 3}},
                        {{6, 7}, {0}},           {{1, 4, 4, 3}, {1, 2, 1}}};
  std::mt19937 rng(5);
  int iter = 0;
  for (const Case& k : cases) {
    for (const bool keep_dims : {true, false}) {
      const float in_scale = std::uniform_real_distribution<float>(0.002f, 0.1f)(rng);
      const float out_scale = std::uniform_real_distribution<float>(0.002f, 0.1f)(rng);
      const int32_t in_zp = static_cast<int32_t>(rng() % 256) - 128;
      const int32_t out_zp = static_cast<int32_t>(rng() % 256) - 128;
      size_t n = 1;
      for (int32_t d : k.dims) n *= static_cast<size_t>(d);
      const std::vector<uint8_t> input = random_bytes(n, static_cast<uint32_t>(++iter));
      const ir::Graph graph =
          mean_model(k.dims, k.axes, keep_dims, in_scale, in_zp, out_scale, out_zp);
      const std::vector<uint8_t> expected =
          slow_mean(k.dims, k.axes, in_scale, in_zp, out_scale, out_zp, input);
      for (const char* cpu : kCpus) {
        EXPECT_EQ(compile_and_run(graph, cpu, input), expected)
            << cpu << " dims " << ir::shape_string(k.dims) << " axes " << ir::shape_string(k.axes)
            << " keep_dims " << keep_dims;
      }
    }
  }
}

TEST(FieldMean, SameQuantizationIsTheFoldedRuleToo) {
  // TFLite's reference runs one rule whatever the quantization. Equal scales: multiplier 2^30,
  // shift 1; over 7 elements it folds to 613566756 = 2^32 / 7, shift -1, so a sum of 3 gives
  // round(3 * 613566756 / 2^31) = 1, then 1 / 2 rounded half away = 1, where 3 / 7 = 0.43 would
  // round to 0; a sum of 1 gives 0.
  const std::vector<int32_t> dims = {1, 1, 7, 2};
  const ir::Graph graph = mean_model(dims, {2}, false, 0.5f, 0, 0.5f, 0);
  const std::vector<uint8_t> input = {1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<uint8_t> expected = {1, 0};
  ASSERT_EQ(slow_mean(dims, {2}, 0.5, 0, 0.5, 0, input), expected);
  for (const char* cpu : kCpus) EXPECT_EQ(compile_and_run(graph, cpu, input), expected) << cpu;
}

// A per-channel convolution and fully connected layer; their biases carry one scale per channel.
ir::Graph per_channel_model() {
  builder::ModelBuilder b(3);
  builder::TensorId x = b.add_input({1, 6, 6, 4}, ir::DataType::kInt8, 0.05f, -3);
  x = b.add_conv2d(x, 8, 3, 3, 1, ir::Padding::kSame, ir::Activation::kRelu);
  x = b.add_reshape(x, {1, 6 * 6 * 8});
  b.mark_output(b.add_fully_connected(x, 5, ir::Activation::kNone, true, /*per_channel=*/true));
  return b.build();
}

// The model as .tflite with every rank-1 bias's quantized_dimension set to `qd` (TOCO wrote 3).
std::vector<uint8_t> with_bias_quantized_dimension(const ir::Graph& g, int32_t qd,
                                                   std::vector<std::string>* names) {
  auto model = builder::to_tflite_object(g);
  for (auto& t : model->subgraphs[0]->tensors) {
    if (t->shape.size() == 1 && t->quantization && t->quantization->scale.size() > 1) {
      t->quantization->quantized_dimension = qd;
      names->push_back(t->name);
    }
  }
  return builder::pack_model(*model);
}

TEST(FieldBias, QuantizedDimensionBeyondABiasRankIsIgnoredAndNoted) {
  const ir::Graph graph = per_channel_model();
  std::vector<std::string> biases;
  const std::vector<uint8_t> bytes = with_bias_quantized_dimension(graph, 3, &biases);
  ASSERT_EQ(biases.size(), 2u);
  const ir::Graph read = tflite::read_model(bytes);
  ASSERT_EQ(read.notes.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_THAT(read.notes[k], HasSubstr("(" + biases[k] +
                                         "): quantized_dimension 3 beyond its "
                                         "rank 1 ignored"));
  }
  // Read as 0: the same graph as the one written with a valid field, and the same results.
  ir::Graph expected = tflite::read_model(builder::write_model(graph));
  EXPECT_TRUE(expected.notes.empty());
  expected.notes = read.notes;
  EXPECT_EQ(read, expected);
  const std::vector<uint8_t> input = random_bytes(6 * 6 * 4, 9);
  for (const char* cpu : {"cortex-m4", "cortex-m55"}) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const auto a = pipeline::run_on_host(pipeline::compile(read, options).program, {input});
    const auto b = pipeline::run_on_host(pipeline::compile(expected, options).program, {input});
    EXPECT_EQ(a.outputs, b.outputs) << cpu;
  }
}

TEST(FieldBias, QuantizedDimensionStillMattersWhereItHasMeaning) {
  // On the rank-4 weights, dimension 3 is a real axis of 4 (not 8) elements: refused.
  auto model = builder::to_tflite_object(per_channel_model());
  bool edited = false;
  for (auto& t : model->subgraphs[0]->tensors) {
    if (t->shape.size() == 4 && t->quantization && t->quantization->scale.size() == 8) {
      t->quantization->quantized_dimension = 3;
      edited = true;
    }
  }
  ASSERT_TRUE(edited);
  try {
    tflite::read_model(builder::pack_model(*model));
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("8 scales for dimension 3 of shape [8,3,3,4]"));
  }
  // A negative value on a bias is never meaningful either: read as 0 with a note.
  std::vector<std::string> names;
  EXPECT_EQ(tflite::read_model(with_bias_quantized_dimension(per_channel_model(), -1, &names))
                .notes.size(),
            2u);
}

// --- ADD, SUB and MUL with a constant operand -----------------------------------------------

// x * multiplier * 2^(shift - 31) as TFLite's MultiplyByQuantizedMultiplier (double rounding).
int64_t requantize(int64_t x, kernels::QuantizedMultiplier m) {
  const int64_t left = m.shift > 0 ? (x * (int64_t{1} << m.shift)) : x;
  return rounding_shift_right(rounding_high_mul(left, m.multiplier), m.shift > 0 ? 0 : -m.shift);
}

struct Operand {
  std::vector<int32_t> shape;
  std::vector<int8_t> values;
  double scale;
  int32_t zero_point;
};

// TFLite's int8 ADD / SUB (add.cc / sub.cc Prepare: inputs to twice the larger scale with
// left_shift 20, output multiplier twice_max / (2^20 * output_scale)) and MUL (mul.cc: one
// multiplier input1_scale * input2_scale / output_scale), broadcast by TFLite's rule, no fused
// activation.
std::vector<uint8_t> slow_binary(ir::OpType type, const Operand& a, const Operand& b,
                                 const std::vector<int32_t>& out_shape, double out_scale,
                                 int32_t out_zp) {
  const size_t rank = out_shape.size();
  auto at = [&](const Operand& x, const std::vector<int32_t>& index) {
    int64_t flat = 0;
    const size_t skip = rank - x.shape.size();
    for (size_t d = 0; d < x.shape.size(); ++d) {
      flat = flat * x.shape[d] + (x.shape[d] == 1 ? 0 : index[d + skip]);
    }
    return static_cast<int64_t>(x.values[static_cast<size_t>(flat)]);
  };
  const double twice_max = 2 * std::max(a.scale, b.scale);
  const auto ma = kernels::quantize_multiplier(a.scale / twice_max);
  const auto mb = kernels::quantize_multiplier(b.scale / twice_max);
  const auto mo_add = kernels::quantize_multiplier(twice_max / ((1 << 20) * out_scale));
  const auto mo_mul = kernels::quantize_multiplier(a.scale * b.scale / out_scale);
  std::vector<int32_t> index(rank, 0);
  size_t total = 1;
  for (int32_t d : out_shape) total *= static_cast<size_t>(d);
  std::vector<uint8_t> out;
  for (size_t e = 0; e < total; ++e) {
    const int64_t x = at(a, index) - a.zero_point, y = at(b, index) - b.zero_point;
    int64_t v;
    if (type == ir::OpType::kMul) {
      v = requantize(x * y, mo_mul);
    } else {
      const int64_t sx = requantize(x * (1 << 20), ma), sy = requantize(y * (1 << 20), mb);
      v = requantize(type == ir::OpType::kAdd ? sx + sy : sx - sy, mo_add);
    }
    out.push_back(
        static_cast<uint8_t>(static_cast<int8_t>(std::clamp<int64_t>(v + out_zp, -128, 127))));
    for (size_t d = rank; d-- > 0 && ++index[d] == out_shape[d];) index[d] = 0;
  }
  return out;
}

Operand random_operand(std::vector<int32_t> shape, std::mt19937& rng) {
  size_t n = 1;
  for (int32_t d : shape) n *= static_cast<size_t>(d);
  Operand o{std::move(shape),
            {},
            std::uniform_real_distribution<double>(0.005, 0.05)(rng),
            static_cast<int32_t>(rng() % 61) - 30};
  for (size_t i = 0; i < n; ++i) o.values.push_back(static_cast<int8_t>(rng()));
  return o;
}

TEST(FieldConstantOperand, AddSubAndMulTakeAConstantEitherSideBroadcast) {
  struct Case {
    ir::OpType type;
    std::vector<int32_t> activation, constant;
    bool constant_first;
  };
  const Case cases[] = {
      {ir::OpType::kMul, {1, 5, 5, 16}, {1, 1, 1, 16}, false},  // squeeze-and-excitation scale
      {ir::OpType::kMul, {1, 5, 5, 16}, {16}, false},
      {ir::OpType::kMul, {1, 4, 6, 8}, {8}, true},
      {ir::OpType::kMul, {2, 3, 7}, {2, 3, 7}, true},
      {ir::OpType::kAdd, {1, 5, 5, 16}, {1, 5, 5, 16}, false},
      {ir::OpType::kAdd, {1, 5, 5, 16}, {1, 1, 1, 16}, true},
      {ir::OpType::kAdd, {1, 4, 6, 8}, {8}, false},
      {ir::OpType::kSub, {1, 4, 6, 8}, {8}, false},
      {ir::OpType::kSub, {1, 4, 6, 8}, {1, 4, 1, 8}, true},
  };
  std::mt19937 rng(44);
  for (const Case& k : cases) {
    const Operand act = random_operand(k.activation, rng);
    const Operand con = random_operand(k.constant, rng);
    builder::ModelBuilder b;
    const builder::TensorId x =
        b.add_input(act.shape, ir::DataType::kInt8, static_cast<float>(act.scale), act.zero_point);
    const builder::TensorId c =
        b.add_int8_constant(con.shape, con.values, static_cast<float>(con.scale), con.zero_point);
    const builder::TensorId l = k.constant_first ? c : x, r = k.constant_first ? x : c;
    builder::TensorId y;
    if (k.type == ir::OpType::kMul) {
      y = b.add_mul(l, r);
    } else if (k.type == ir::OpType::kAdd) {
      y = b.add_add(l, r);
    } else {
      y = b.add_operator(ir::OpType::kSub, {l, r}, ir::ElementwiseOptions{}, act.shape, 0.04f, 3);
    }
    b.mark_output(y);
    const ir::Graph graph = b.build();
    const ir::Tensor& out = graph.tensors[static_cast<size_t>(y)];
    // The scales as the .tflite file stores them (float).
    Operand fa = k.constant_first ? con : act, fb = k.constant_first ? act : con;
    fa.scale = static_cast<float>(fa.scale);
    fb.scale = static_cast<float>(fb.scale);
    std::vector<uint8_t> input(act.values.size());
    std::memcpy(input.data(), act.values.data(), input.size());
    const std::vector<uint8_t> expected =
        slow_binary(k.type, fa, fb, out.shape, out.quantization.scale[0],
                    static_cast<int32_t>(out.quantization.zero_point[0]));
    const std::set<uint8_t> distinct(expected.begin(), expected.end());
    EXPECT_GE(distinct.size(), 10u) << "the output saturates or collapses";
    for (const char* cpu : kCpus) {
      EXPECT_EQ(compile_and_run(graph, cpu, input), expected)
          << ir::to_string(k.type) << " " << ir::shape_string(k.activation) << " and constant "
          << ir::shape_string(k.constant) << (k.constant_first ? " first" : " second") << " on "
          << cpu;
    }
  }
}

TEST(FieldConstantOperand, TwoConstantsAreStillRefused) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 4}, ir::DataType::kInt8, 0.1f, 0);
  const builder::TensorId c1 = b.add_int8_constant({1, 4}, {1, 2, 3, 4}, 0.1f, 0);
  const builder::TensorId c2 = b.add_int8_constant({1, 4}, {1, 2, 3, 4}, 0.1f, 0);
  b.mark_output(b.add_add(x, b.add_add(c1, c2)));
  try {
    b.build();
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("operator 0 (ADD): input 0 (tensor 1) is a constant; expected "
                                    "an activation"));
  }
}

// SQUEEZE and EXPAND_DIMS move no byte: a model that squeezes and expands around an ADD gives,
// on every CPU, exactly what the ADD alone gives on the original shape.
TEST(FieldReshaping, SqueezeAndExpandDimsAreExactAliases) {
  const std::vector<int8_t> values = {5, -3, 7, 1, 0, -128, 127, 9, -9, 2, 4, -4};
  auto model = [&](bool reshaped) {
    builder::ModelBuilder b;
    builder::TensorId x = b.add_input({1, 3, 1, 4}, ir::DataType::kInt8, 0.05f, 2);
    if (reshaped) {
      x = b.add_squeeze(x, {2});        // [1, 3, 4]
      x = b.add_expand_dims(x, 0);      // [1, 1, 3, 4]
      x = b.add_squeeze(x, {});         // [3, 4]
      x = b.add_expand_dims(x, -1);     // [3, 4, 1]
      x = b.add_expand_dims(x, 0);      // [1, 3, 4, 1]
      EXPECT_EQ(b.tensor(x).shape, (std::vector<int32_t>{1, 3, 4, 1}));
    }
    const builder::TensorId c = b.add_int8_constant(b.tensor(x).shape, values, 0.05f, -1);
    b.mark_output(b.add_add(x, c));
    return b.build();
  };
  const ir::Graph plain = model(false), reshaped = model(true);
  for (const char* cpu : kCpus) {
    const std::vector<uint8_t> input = random_bytes(12, 7);
    EXPECT_EQ(compile_and_run(reshaped, cpu, input), compile_and_run(plain, cpu, input)) << cpu;
  }
}

TEST(FieldReshaping, ShapesTfLiteRefusesAreRefused) {
  const auto refusal = [](auto add) {
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({1, 3, 1, 4}, ir::DataType::kInt8, 0.05f, 2);
    b.mark_output(add(b, x));
    try {
      b.build();
      return std::string("accepted");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_THAT(refusal([](builder::ModelBuilder& b, builder::TensorId x) {
                return b.add_operator(ir::OpType::kSqueeze, {x}, ir::SqueezeOptions{{1}}, {1, 1, 4},
                                      0.05f, 2);
              }),
              HasSubstr("squeeze_dims 1 names a dimension of size 3, not 1"));
  EXPECT_THAT(refusal([](builder::ModelBuilder& b, builder::TensorId x) {
                return b.add_operator(ir::OpType::kSqueeze, {x}, ir::SqueezeOptions{{4}}, {1, 3, 4},
                                      0.05f, 2);
              }),
              HasSubstr("squeeze_dims 4 is outside"));
  EXPECT_THAT(refusal([](builder::ModelBuilder& b, builder::TensorId x) {
                return b.add_operator(ir::OpType::kSqueeze, {x}, ir::SqueezeOptions{{2}}, {1, 3, 1, 4},
                                      0.05f, 2);
              }),
              HasSubstr("shape"));
}

// A camera's uint8 frame into an int8 model (a first QUANTIZE uint8 -> int8) and a uint8 result
// out (a last QUANTIZE int8 -> uint8), as TFLite's converter writes with
// inference_input_type/inference_output_type uint8. The same network with int8 edges is the
// reference: the frame shifted by 128 in, its result shifted by 128 out.
ir::Graph camera_model(bool uint8_edges) {
  builder::ModelBuilder b(7);
  const float scale = 1.0f / 255;
  builder::TensorId x = uint8_edges ? b.add_input({1, 8, 8, 3}, ir::DataType::kUInt8, scale, 0)
                                    : b.add_input({1, 8, 8, 3}, ir::DataType::kInt8, scale, -128);
  if (uint8_edges) x = b.add_quantize(x, scale, -128);
  x = b.add_conv2d(x, 8, 3, 3, 2, ir::Padding::kSame, ir::Activation::kRelu);
  x = b.add_depthwise(x, 3, 3);
  const ir::Tensor& y = b.graph().tensors[x];
  const float out_scale = y.quantization.scale[0];
  const int32_t out_zero_point = static_cast<int32_t>(y.quantization.zero_point[0]);
  if (uint8_edges) x = b.add_quantize(x, out_scale, out_zero_point + 128, ir::DataType::kUInt8);
  b.mark_output(x);
  return b.build();
}

TEST(FieldUint8Edges, Uint8InAndOutEqualTheInt8NetworkShiftedBy128) {
  const ir::Graph with_uint8 = camera_model(true);
  const ir::Graph with_int8 = camera_model(false);
  ASSERT_EQ(with_uint8.tensors[with_uint8.inputs[0]].type, ir::DataType::kUInt8);
  ASSERT_EQ(with_uint8.tensors[with_uint8.outputs[0]].type, ir::DataType::kUInt8);
  const std::vector<uint8_t> frame = random_bytes(8 * 8 * 3, 11);
  std::vector<uint8_t> shifted = frame;
  for (uint8_t& v : shifted) v = static_cast<uint8_t>(v - 128);  // the same pixel as int8
  for (const char* cpu : kCpus) {
    const std::vector<uint8_t> got = compile_and_run(with_uint8, cpu, frame);
    std::vector<uint8_t> want = compile_and_run(with_int8, cpu, shifted);
    for (uint8_t& v : want) v = static_cast<uint8_t>(v + 128);
    EXPECT_EQ(got, want) << cpu;
    EXPECT_GT(std::set<uint8_t>(got.begin(), got.end()).size(), 8u) << cpu;  // not trivial
  }
}

// A raw int32 result, as TFLM's keyword_scrambled models end: QUANTIZE int8 -> int32 after the
// network equals the int8 network's output requantized by TFLite's rule (kernels::requantize).
TEST(FieldInt32Result, QuantizeIntoInt32EqualsTheInt8NetworkRequantized) {
  const ir::Graph int8_net = camera_model(false);
  ir::Graph with_int32;
  {
    builder::ModelBuilder b(7);
    builder::TensorId x = b.add_input({1, 8, 8, 3}, ir::DataType::kInt8, 1.0f / 255, -128);
    x = b.add_conv2d(x, 8, 3, 3, 2, ir::Padding::kSame, ir::Activation::kRelu);
    x = b.add_depthwise(x, 3, 3);
    const ir::Tensor& y = b.graph().tensors[x];
    x = b.add_quantize(x, y.quantization.scale[0] / 3, 1000, ir::DataType::kInt32);
    b.mark_output(x);
    with_int32 = b.build();
  }
  const ir::Tensor& y = int8_net.tensors[int8_net.outputs[0]];
  const kernels::RequantizeParams p = kernels::prepare_requantize(
      y.quantization.scale[0], static_cast<int32_t>(y.quantization.zero_point[0]),
      y.quantization.scale[0] / 3, 1000);
  const std::vector<uint8_t> frame = random_bytes(8 * 8 * 3, 12);
  for (const char* cpu : kCpus) {
    const std::vector<uint8_t> int8_out = compile_and_run(int8_net, cpu, frame);
    std::vector<int32_t> want(int8_out.size());
    kernels::requantize(p, reinterpret_cast<const int8_t*>(int8_out.data()), want.data(),
                        int8_out.size());
    const std::vector<uint8_t> got = compile_and_run(with_int32, cpu, frame);
    ASSERT_EQ(got.size(), want.size() * sizeof(int32_t)) << cpu;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0) << cpu;
    EXPECT_GT(std::set<int32_t>(want.begin(), want.end()).size(), 8u) << cpu;  // not trivial
  }
}

TEST(FieldUint8Edges, Uint8ElsewhereIsRefusedNamingTheOperator) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.1f, 0);
  b.mark_output(b.add_depthwise(x, 3, 3));
  ir::Graph graph = b.build();
  ir::Tensor& input = graph.tensors[graph.inputs[0]];
  input.type = ir::DataType::kUInt8;  // the builder writes no such model
  input.quantization.zero_point = {128};
  try {
    pipeline::compile(tflite::read_model(builder::write_model(graph)), {});
    ADD_FAILURE() << "a depthwise convolution of uint8 was accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("operator 0 (DEPTHWISE_CONV_2D)"));
    EXPECT_THAT(e.what(), HasSubstr("has type uint8, expected int8"));
  }
}

}  // namespace
}  // namespace mote
