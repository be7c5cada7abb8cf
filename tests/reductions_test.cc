// SUM, REDUCE_MAX, ARG_MAX, ARG_MIN and RESIZE_BILINEAR end to end: builder models
// written as .tflite, read back, compiled for a scalar, a DSP and an MVE CPU, run on the host
// and compared byte for byte with slow references written here from TensorFlow Lite's
// definitions; and the models their definitions refuse, with the reason.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"

namespace mote {
namespace {

using ::testing::HasSubstr;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed, int lo = -128, int hi = 127) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(lo, hi);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(static_cast<int8_t>(value(rng)));
  return v;
}

size_t product(const std::vector<int32_t>& dims) {
  size_t n = 1;
  for (int32_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// The graph through .tflite, compiled for `cpu` and run on the host with one input.
std::vector<uint8_t> compile_and_run(const ir::Graph& graph, const char* cpu,
                                     const std::vector<uint8_t>& input) {
  const ir::Graph read = tflite::read_model(builder::write_model(graph));
  EXPECT_EQ(read, graph);
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  const pipeline::Compiled compiled = pipeline::compile(read, options);
  return pipeline::run_on_host(compiled.program, {input}).outputs.at(0);
}

// --- TFLite's integer arithmetic, from its definitions -----------------------------------------

// QuantizeMultiplier: frexp, a Q31 mantissa, renormalised when rounding reaches 2^31.
void quantize(double real, int64_t* mantissa, int* shift) {
  const double q = std::frexp(real, shift);
  *mantissa = static_cast<int64_t>(std::round(q * 2147483648.0));
  if (*mantissa == (int64_t{1} << 31)) {
    *mantissa /= 2;
    ++*shift;
  }
}

// MultiplyByQuantizedMultiplier: left shift, rounding doubling high multiply, rounding right
// shift (halves away from zero).
int64_t multiply(int64_t x, int64_t mantissa, int shift) {
  const int64_t ab = (shift > 0 ? x * (int64_t{1} << shift) : x) * mantissa;
  const int64_t high = ab >= 0 ? (ab + (int64_t{1} << 30)) >> 31
                               : -((-ab + (int64_t{1} << 30) - 1) >> 31);
  const int right = shift > 0 ? 0 : -shift;
  if (right == 0) return high;
  const int64_t magnitude = (std::llabs(high) + (int64_t{1} << (right - 1))) >> right;
  return high < 0 ? -magnitude : magnitude;
}

// For every input element (row-major over `dims`), the output element it reduces into.
std::vector<size_t> reduced_into(const std::vector<int32_t>& dims, std::vector<int32_t> axes,
                                 size_t* outputs, int64_t* count) {
  const int rank = static_cast<int>(dims.size());
  std::vector<bool> reduced(dims.size(), false);
  for (int32_t a : axes) reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  *outputs = 1;
  *count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      *count *= dims[d];
    } else {
      *outputs *= static_cast<size_t>(dims[d]);
    }
  }
  std::vector<size_t> into;
  std::vector<int32_t> index(dims.size(), 0);
  for (size_t flat = 0; flat < product(dims); ++flat) {
    size_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * static_cast<size_t>(dims[d]) + static_cast<size_t>(index[d]);
    }
    into.push_back(o);
    for (int d = rank - 1; d >= 0 && ++index[d] == dims[d]; --d) index[d] = 0;
  }
  return into;
}

// SUM (reference_ops::QuantizedMeanOrSum, compute_sum): the raw sum minus zp_in * count,
// MultiplyByQuantizedMultiplier(QuantizeMultiplier(in_scale / out_scale)), plus zp_out, clamped.
std::vector<uint8_t> slow_sum(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                              float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                              const std::vector<uint8_t>& input) {
  size_t outputs = 0;
  int64_t count = 0;
  const std::vector<size_t> into = reduced_into(dims, axes, &outputs, &count);
  std::vector<int64_t> sums(outputs, 0);
  for (size_t i = 0; i < input.size(); ++i) sums[into[i]] += static_cast<int8_t>(input[i]);
  int64_t mantissa = 0;
  int shift = 0;
  quantize(double{in_scale} / double{out_scale}, &mantissa, &shift);
  std::vector<uint8_t> out;
  for (int64_t s : sums) {
    const int64_t v = multiply(s - in_zp * count, mantissa, shift) + out_zp;
    out.push_back(static_cast<uint8_t>(static_cast<int8_t>(std::clamp<int64_t>(v, -128, 127))));
  }
  return out;
}

// REDUCE_MAX: max(in, current) from the lowest int8.
std::vector<uint8_t> slow_max(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                              const std::vector<uint8_t>& input) {
  size_t outputs = 0;
  int64_t count = 0;
  const std::vector<size_t> into = reduced_into(dims, axes, &outputs, &count);
  std::vector<int8_t> best(outputs, -128);
  for (size_t i = 0; i < input.size(); ++i) {
    best[into[i]] = std::max(best[into[i]], static_cast<int8_t>(input[i]));
  }
  return std::vector<uint8_t>(best.begin(), best.end());
}

// ARG_MAX / ARG_MIN (reference_ops::ArgMinMax): index 0, replaced only by a strictly greater
// (smaller) value; int32 (or, with `int64`, int64) indices, little-endian bytes.
std::vector<uint8_t> slow_arg(const std::vector<int32_t>& dims, int32_t axis, bool arg_min,
                              const std::vector<uint8_t>& input, bool int64 = false) {
  const int rank = static_cast<int>(dims.size());
  if (axis < 0) axis += rank;
  size_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= static_cast<size_t>(dims[d]);
  for (int d = axis + 1; d < rank; ++d) inner *= static_cast<size_t>(dims[d]);
  std::vector<uint8_t> out;
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      int32_t best_index = 0;
      int best = static_cast<int8_t>(input[o * dims[axis] * inner + i]);
      for (int32_t a = 1; a < dims[axis]; ++a) {
        const int v = static_cast<int8_t>(input[(o * dims[axis] + a) * inner + i]);
        if (arg_min ? v < best : v > best) {
          best = v;
          best_index = a;
        }
      }
      const int64_t index = best_index;
      uint8_t bytes[8];
      std::memcpy(bytes, &index, 8);  // little-endian: the int32's bytes, then its sign
      out.insert(out.end(), bytes, bytes + (int64 ? 8 : 4));
    }
  return out;
}

// RESIZE_BILINEAR (reference_ops::ResizeBilinearInteger): 10-bit scales and positions, the four
// neighbours' weighted sum / 2^20 rounded half away from zero.
std::vector<uint8_t> slow_resize(const std::vector<int32_t>& in_shape, int32_t oh, int32_t ow,
                                 bool align, bool half, const std::vector<uint8_t>& input) {
  const int64_t n = in_shape[0], ih = in_shape[1], iw = in_shape[2], c = in_shape[3];
  auto scale = [&](int64_t i, int64_t o) {
    return align && o > 1 ? (1024 * (i - 1) + (o - 1) / 2) / (o - 1) : (1024 * i + o / 2) / o;
  };
  const int64_t sh = scale(ih, oh), sw = scale(iw, ow);
  auto value = [&](int64_t b, int64_t y, int64_t x, int64_t ch) -> int64_t {
    return static_cast<int8_t>(input[static_cast<size_t>(((b * ih + y) * iw + x) * c + ch)]);
  };
  std::vector<uint8_t> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x) {
        const int64_t py = half ? y * sh + sh / 2 - 512 : y * sh;
        const int64_t px = half ? x * sw + sw / 2 - 512 : x * sw;
        const int64_t y0 = std::max<int64_t>(py / 1024, 0), x0 = std::max<int64_t>(px / 1024, 0);
        const int64_t y1 = std::min<int64_t>((py + 1023) / 1024, ih - 1);
        const int64_t x1 = std::min<int64_t>((px + 1023) / 1024, iw - 1);
        const int64_t fy = py - 1024 * y0, fx = px - 1024 * x0;
        for (int64_t ch = 0; ch < c; ++ch) {
          const int64_t v = value(b, y0, x0, ch) * (1024 - fy) * (1024 - fx) +
                            value(b, y1, x0, ch) * fy * (1024 - fx) +
                            value(b, y0, x1, ch) * (1024 - fy) * fx +
                            value(b, y1, x1, ch) * fy * fx;
          const int64_t r = (v + (v > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20);
          out.push_back(static_cast<uint8_t>(static_cast<int8_t>(r)));
        }
      }
  return out;
}

struct ReduceCase {
  std::vector<int32_t> dims, axes;
};
const ReduceCase kReduceCases[] = {{{1, 5, 6, 24}, {1, 2}}, {{2, 5, 6, 8}, {2, 1}},
                                   {{1, 5, 6, 8}, {-1}},    {{3, 10, 7}, {2}},
                                   {{4, 33}, {1}},          {{2, 3, 4, 5}, {0, 3}},
                                   {{2, 3, 4, 5}, {0, 1, 2, 3}}, {{6, 7}, {0}},
                                   {{1, 4, 4, 3}, {1, 2, 1}},    {{1, 7, 7, 64}, {1, 2}}};

TEST(Sum, AnyAxesKeepDimsOrNotMatchTfLite) {
  std::mt19937 rng(25);
  uint32_t seed = 0;
  for (const ReduceCase& k : kReduceCases) {
    for (const bool keep_dims : {true, false}) {
      int64_t count = 1;
      for (int32_t a : std::vector<int32_t>(k.axes.begin(), k.axes.end())) {
        count *= k.dims[static_cast<size_t>(a < 0 ? a + static_cast<int>(k.dims.size()) : a)];
      }
      // An output scale around sqrt(count) times the input's (a sum of random values grows like
      // that), so most outputs land inside int8 and some saturate.
      const float in_scale = std::uniform_real_distribution<float>(0.005f, 0.1f)(rng);
      const float out_scale = in_scale * std::sqrt(static_cast<float>(count)) *
                              std::uniform_real_distribution<float>(0.3f, 2.0f)(rng);
      const int32_t in_zp = static_cast<int32_t>(rng() % 256) - 128;
      const int32_t out_zp = static_cast<int32_t>(rng() % 256) - 128;
      builder::ModelBuilder b;
      const builder::TensorId x = b.add_input(k.dims, ir::DataType::kInt8, in_scale, in_zp);
      b.mark_output(b.add_sum(x, k.axes, keep_dims, out_scale, out_zp));
      const ir::Graph graph = b.build();
      const std::vector<uint8_t> input = random_bytes(product(k.dims), ++seed);
      const std::vector<uint8_t> expected =
          slow_sum(k.dims, k.axes, in_scale, in_zp, out_scale, out_zp, input);
      for (const char* cpu : kCpus) {
        EXPECT_EQ(compile_and_run(graph, cpu, input), expected)
            << cpu << " dims " << ir::shape_string(k.dims) << " axes " << ir::shape_string(k.axes)
            << " keep_dims " << keep_dims;
      }
    }
  }
}

TEST(Sum, IsNotTheMeanAndSaturates) {
  // 1x2x2x1 {1, 2, 3, 5} at scale 0.5 zp 0 into scale 1 zp 0: 11 * 0.5 = 5.5 -> 6 (MEAN: 1);
  // 1x2x2x1 of 127 at equal scales: 508 saturates to 127.
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 2, 2, 1}, ir::DataType::kInt8, 0.5f, 0);
  b.mark_output(b.add_sum(x, {1, 2}, true, 1.0f, 0));
  const ir::Graph graph = b.build();
  builder::ModelBuilder b2;
  const builder::TensorId x2 = b2.add_input({1, 2, 2, 1}, ir::DataType::kInt8, 0.5f, 0);
  b2.mark_output(b2.add_sum(x2, {1, 2}, false, 0.5f, 0));
  const ir::Graph same = b2.build();
  for (const char* cpu : kCpus) {
    EXPECT_EQ(compile_and_run(graph, cpu, {1, 2, 3, 5}), std::vector<uint8_t>{6}) << cpu;
    EXPECT_EQ(compile_and_run(same, cpu, {127, 127, 127, 127}), std::vector<uint8_t>{127}) << cpu;
  }
}

TEST(ReduceMax, AnyAxesKeepDimsOrNotMatchTfLite) {
  uint32_t seed = 100;
  for (const ReduceCase& k : kReduceCases) {
    for (const bool keep_dims : {true, false}) {
      builder::ModelBuilder b;
      const builder::TensorId x = b.add_input(k.dims, ir::DataType::kInt8, 0.04f, -7);
      b.mark_output(b.add_reduce_max(x, k.axes, keep_dims));
      const ir::Graph graph = b.build();
      const std::vector<uint8_t> input = random_bytes(product(k.dims), ++seed);
      const std::vector<uint8_t> expected = slow_max(k.dims, k.axes, input);
      for (const char* cpu : kCpus) {
        EXPECT_EQ(compile_and_run(graph, cpu, input), expected)
            << cpu << " dims " << ir::shape_string(k.dims) << " axes " << ir::shape_string(k.axes);
      }
    }
  }
}

TEST(ArgMinMax, AnyAxisWithTiesMatchesTfLite) {
  struct Case {
    std::vector<int32_t> dims;
    int32_t axis;
  };
  const Case cases[] = {{{1, 10}, 1},     {{1, 10}, -1},      {{3, 4, 5}, 0}, {{3, 4, 5}, 1},
                        {{3, 4, 5}, 2},   {{1, 6, 6, 12}, 3}, {{2, 3, 4, 5}, -3}, {{7}, 0},
                        {{1, 1, 1, 1}, 2}};
  uint32_t seed = 200;
  for (const Case& k : cases) {
    for (const bool arg_min : {false, true}) {
      // int64 indices: TFLite's output_type INT64, ONNX's ArgMax.
      for (const bool int64 : {false, true}) {
        builder::ModelBuilder b;
        const builder::TensorId x = b.add_input(k.dims, ir::DataType::kInt8, 0.1f, 3);
        const ir::DataType index = int64 ? ir::DataType::kInt64 : ir::DataType::kInt32;
        b.mark_output(b.add_arg_min_max(x, k.axis, arg_min, index));
        const ir::Graph graph = b.build();
        EXPECT_EQ(graph.tensors[graph.outputs[0]].type, index);
        // A few distinct values only, so that extremes tie and the first index must win.
        const std::vector<uint8_t> input = random_bytes(product(k.dims), ++seed, -3, 3);
        const std::vector<uint8_t> expected = slow_arg(k.dims, k.axis, arg_min, input, int64);
        for (const char* cpu : kCpus) {
          EXPECT_EQ(compile_and_run(graph, cpu, input), expected)
              << cpu << " dims " << ir::shape_string(k.dims) << " axis " << k.axis
              << (arg_min ? " ARG_MIN" : " ARG_MAX") << (int64 ? " int64" : " int32");
        }
      }
    }
  }
}

TEST(ArgMinMax, HandChecked) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({2, 4}, ir::DataType::kInt8, 0.1f, 0);
  b.mark_output(b.add_arg_min_max(x, 1));
  const ir::Graph graph = b.build();
  // {1, 5, 5, 2}: the first 5 (index 1); {-3, -3, -9, -3}: the first -3 (index 0).
  const std::vector<uint8_t> input = {1, 5, 5, 2, 0xfd, 0xfd, 0xf7, 0xfd};
  const std::vector<uint8_t> expected = {1, 0, 0, 0, 0, 0, 0, 0};
  for (const char* cpu : kCpus) EXPECT_EQ(compile_and_run(graph, cpu, input), expected) << cpu;
}

TEST(ResizeBilinear, ShapesAndOptionsMatchTfLite) {
  struct Case {
    std::vector<int32_t> in;
    int32_t oh, ow;
  };
  const Case cases[] = {{{1, 4, 4, 3}, 8, 8}, {{1, 5, 7, 2}, 11, 3}, {{2, 3, 3, 4}, 6, 9},
                        {{1, 8, 8, 5}, 4, 4}, {{1, 1, 1, 3}, 3, 2},  {{1, 6, 2, 1}, 1, 1},
                        {{1, 3, 5, 16}, 40, 33}};
  uint32_t seed = 300;
  for (const Case& k : cases) {
    for (int option = 0; option < 3; ++option) {
      const bool align = option == 1, half = option == 2;
      builder::ModelBuilder b;
      const builder::TensorId x = b.add_input(k.in, ir::DataType::kInt8, 0.02f, -11);
      b.mark_output(b.add_resize_bilinear(x, k.oh, k.ow, align, half));
      const ir::Graph graph = b.build();
      const std::vector<uint8_t> input = random_bytes(product(k.in), ++seed);
      const std::vector<uint8_t> expected = slow_resize(k.in, k.oh, k.ow, align, half, input);
      for (const char* cpu : kCpus) {
        EXPECT_EQ(compile_and_run(graph, cpu, input), expected)
            << cpu << " " << ir::shape_string(k.in) << " -> " << k.oh << "x" << k.ow
            << " align_corners " << align << " half_pixel_centers " << half;
      }
    }
  }
}

TEST(ResizeBilinear, HandChecked) {
  // 1x2 {0, 100} -> 1x4: 0, 50, 100, 100; half-pixel centres 0, 25, 75, 100; align corners
  // 0, 33, 67, 100 (mote/kernels/resize_bilinear.h's rule worked by hand).
  const std::vector<uint8_t> input = {0, 100};
  const std::vector<std::vector<uint8_t>> expected = {{0, 50, 100, 100}, {0, 33, 67, 100},
                                                      {0, 25, 75, 100}};
  for (int option = 0; option < 3; ++option) {
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({1, 1, 2, 1}, ir::DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_resize_bilinear(x, 1, 4, option == 1, option == 2));
    const ir::Graph graph = b.build();
    for (const char* cpu : kCpus) {
      EXPECT_EQ(compile_and_run(graph, cpu, input), expected[option]) << cpu << " " << option;
    }
  }
}

// Every operator of this file in one model, so the round trip covers their options together.
TEST(Reductions, OneModelRoundTripsThroughTflite) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 4, 4, 3}, ir::DataType::kInt8, 0.05f, 2);
  b.mark_output(b.add_sum(x, {1}, false, 0.2f, -3));
  b.mark_output(b.add_reduce_max(x, {2, 3}, true));
  b.mark_output(b.add_arg_min_max(x, -1));
  b.mark_output(b.add_arg_min_max(x, 0, true));
  b.mark_output(b.add_arg_min_max(x, 2, false, ir::DataType::kInt64));
  b.mark_output(b.add_resize_bilinear(x, 7, 5, false, true));
  const ir::Graph graph = b.build();
  EXPECT_EQ(tflite::read_model(builder::write_model(graph)), graph);
}

void expect_refused(const ir::Graph& graph, const std::string& text) {
  try {
    tflite::read_model(builder::write_model(graph));
    ADD_FAILURE() << "accepted; expected: " << text;
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(Reductions, DefinitionsRefuseWhatTheKernelsCannotRun) {
  {  // REDUCE_MAX does not requantize.
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_reduce_max(x, {1, 2}, true));
    ir::Graph g = b.graph();
    g.tensors[g.outputs[0]].quantization.scale = {0.2f};
    expect_refused(g, "operator 0 (REDUCE_MAX): output (tensor 2) quantization (scale 0.200000003");
  }
  {  // ARG_MAX's output_type must be its output's type; quantized indices are refused.
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({1, 10}, ir::DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_arg_min_max(x, 1));
    ir::Graph g = b.graph();
    std::get<ir::ArgMinMaxOptions>(g.operators[0].options).output_type = ir::DataType::kInt64;
    expect_refused(g, "operator 0 (ARG_MAX): output (tensor 2) is int32 but output_type is int64");
    g.tensors[g.outputs[0]].type = ir::DataType::kInt64;
    g.tensors[g.outputs[0]].quantization = {{0.5f}, {0}, 0};
    expect_refused(g, "tensor 2 (arg_max_0): type int64 not supported");
  }
  {  // ARG_MIN along an axis the input does not have.
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({3, 4}, ir::DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_arg_min_max(x, 1, true));
    ir::Graph g = b.graph();
    const int32_t five = 5;
    std::memcpy(g.tensors[g.operators[0].inputs[1]].data.data(), &five, 4);
    expect_refused(g, "operator 0 (ARG_MIN): axis 5 out of range for rank 2");
  }
  {  // RESIZE_BILINEAR with both flags.
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_resize_bilinear(x, 8, 8, true, true));
    expect_refused(b.graph(), "operator 0 (RESIZE_BILINEAR): align_corners and "
                              "half_pixel_centers are both set");
  }
  {  // An upscale so large that TFLite's rounded scale reads past the input.
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({1, 1, 1, 1}, ir::DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_resize_bilinear(x, 1, 1500));
    expect_refused(b.graph(), "operator 0 (RESIZE_BILINEAR): resizing [1,1] to [1,1500] puts "
                              "TFLite's last source pixel outside the input");
  }
  {  // SUM of too many elements for the int32 sum.
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({1, 4096, 4096}, ir::DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_sum(x, {1, 2}, false, 100.0f, 0));
    expect_refused(b.graph(), "operator 0 (SUM): adds 16777216 elements per output; at most");
  }
}

}  // namespace
}  // namespace mote
