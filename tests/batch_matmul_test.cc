// BATCH_MATMUL end to end: builder models with a constant rhs (weights) and with an
// activation rhs, adj_x / adj_y and broadcast batch dimensions, written as .tflite, read back,
// compiled for a scalar, a DSP and an MVE CPU, run on the host and compared byte for byte with a
// slow reference written here from TensorFlow Lite's definition (reference_ops::BatchMatMul and
// batch_matmul.cc's Prepare), independent of Mote's kernel.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

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

// QuantizeMultiplier (frexp, Q31 mantissa, renormalised when rounding reaches 2^31) and
// MultiplyByQuantizedMultiplier (rounding doubling high multiply, then a rounding right shift with
// halves away from zero), in int64.
std::pair<int64_t, int> quantize(double real) {
  int shift = 0;
  const double q = std::frexp(real, &shift);
  int64_t fixed = static_cast<int64_t>(std::round(q * 2147483648.0));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++shift;
  }
  return {fixed, shift};
}
int64_t multiply(int64_t x, std::pair<int64_t, int> m) {
  const int64_t shifted = m.second > 0 ? x * (int64_t{1} << m.second) : x;
  const int64_t ab = shifted * m.first;
  const int64_t high =
      ab >= 0 ? (ab + (int64_t{1} << 30)) >> 31 : -((-ab + (int64_t{1} << 30) - 1) >> 31);
  const int right = m.second > 0 ? 0 : -m.second;
  if (right == 0) return high;
  const int64_t magnitude = (std::llabs(high) + (int64_t{1} << (right - 1))) >> right;
  return high < 0 ? -magnitude : magnitude;
}

// The value of a tensor at a multi-index of its own shape.
int8_t at(const std::vector<int8_t>& v, const std::vector<int32_t>& shape,
          const std::vector<int32_t>& index) {
  size_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i) flat = flat * shape[i] + index[i];
  return v[flat];
}

// TFLite's int8 BATCH_MATMUL: every output index [batch..., r, c]; each operand's batch index is
// the output's, right-aligned, with its size-1 dimensions at 0; the adjoint flags swap the
// stored matrix's last two indices; multiplier lhs_scale * rhs_scale (in float, as TFLite's
// GetQuantizedConvolutionMultipler) / output_scale in double.
std::vector<int8_t> reference(const ir::Graph& g, const std::vector<int8_t>& lhs,
                              const std::vector<int8_t>& rhs) {
  const ir::Operator& op = g.operators.at(0);
  const auto& o = std::get<ir::BatchMatMulOptions>(op.options);
  const ir::Tensor &tl = g.tensors[op.inputs[0]], &tr = g.tensors[op.inputs[1]];
  const ir::Tensor& ty = g.tensors[op.outputs[0]];
  const auto m = quantize(double{tl.quantization.scale[0] * tr.quantization.scale[0]} /
                          double{ty.quantization.scale[0]});
  const int64_t zl = tl.quantization.zero_point[0], zr = tr.quantization.zero_point[0];
  const int64_t zy = ty.quantization.zero_point[0];
  const size_t rank = ty.shape.size();
  const int32_t depth = o.adj_x ? tl.shape[tl.shape.size() - 2] : tl.shape.back();
  std::vector<int8_t> out(static_cast<size_t>(ty.num_elements()));
  std::vector<int32_t> index(rank, 0);
  for (size_t flat = 0; flat < out.size(); ++flat) {
    size_t rest = flat;
    for (size_t i = rank; i-- > 0;) {
      index[i] = static_cast<int32_t>(rest % ty.shape[i]);
      rest /= ty.shape[i];
    }
    auto operand_index = [&](const std::vector<int32_t>& shape, int32_t row, int32_t col,
                             bool swap) {
      std::vector<int32_t> ix(shape.size());
      for (size_t i = 0; i + 2 < shape.size(); ++i) {
        ix[i] = shape[i] == 1 ? 0 : index[rank - shape.size() + i];
      }
      ix[shape.size() - 2] = swap ? col : row;
      ix[shape.size() - 1] = swap ? row : col;
      return ix;
    };
    const int32_t r = index[rank - 2], c = index[rank - 1];
    int64_t acc = 0;
    for (int32_t k = 0; k < depth; ++k) {
      acc += (at(lhs, tl.shape, operand_index(tl.shape, r, k, o.adj_x)) - zl) *
             (at(rhs, tr.shape, operand_index(tr.shape, k, c, o.adj_y)) - zr);
    }
    out[flat] = static_cast<int8_t>(std::clamp<int64_t>(multiply(acc, m) + zy, -128, 127));
  }
  return out;
}

std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(rng());
  return v;
}

// Compiled from .tflite for each CPU and run with `inputs`: the output, which must equal
// `expected` and not be trivial.
void expect_matches(const ir::Graph& graph, const std::vector<std::vector<int8_t>>& inputs,
                    const std::vector<int8_t>& expected) {
  const std::set<int8_t> distinct(expected.begin(), expected.end());
  EXPECT_GE(distinct.size(), 20u) << "the reference saturates or collapses";
  const ir::Graph read = tflite::read_model(builder::write_model(graph));
  EXPECT_EQ(read, graph);
  std::vector<std::vector<uint8_t>> bytes;
  for (const auto& v : inputs) bytes.emplace_back(v.begin(), v.end());
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::Compiled compiled = pipeline::compile(read, options);
    const pipeline::HostRun run = pipeline::run_on_host(compiled.program, bytes);
    const std::vector<uint8_t>& got = run.outputs.at(0);
    EXPECT_EQ(std::vector<int8_t>(got.begin(), got.end()), expected) << cpu;
  }
}

TEST(BatchMatMul, ConstantRhsWeights) {
  // A transformer-style projection: activations [2,6,24] times weights [24,20] (rank 2, broadcast
  // over the batch), and the same weights stored transposed [20,24] with adj_y.
  for (const bool adj_y : {false, true}) {
    builder::ModelBuilder b(3);
    const builder::TensorId x = b.add_input({2, 6, 24}, ir::DataType::kInt8, 0.04f, 5);
    const std::vector<int8_t> w = random_int8(24 * 20, 11);
    const builder::TensorId weights =
        b.add_int8_constant(adj_y ? std::vector<int32_t>{20, 24} : std::vector<int32_t>{24, 20},
                            w, 0.02f, -3);
    b.mark_output(b.add_batch_matmul(x, weights, false, adj_y));
    const ir::Graph g = b.build();
    EXPECT_EQ(g.tensors[g.outputs[0]].shape, (std::vector<int32_t>{2, 6, 20}));
    const std::vector<int8_t> input = random_int8(2 * 6 * 24, 5);
    SCOPED_TRACE(adj_y ? "adj_y" : "plain");
    expect_matches(g, {input}, reference(g, input, w));
  }
}

TEST(BatchMatMul, ActivationRhsBroadcastAndAdjoints) {
  // Attention-style: two activations, batch dimensions [3,1] and [2] broadcast to [3,2], every
  // combination of adj_x and adj_y.
  for (int flags = 0; flags < 4; ++flags) {
    const bool adj_x = flags & 1, adj_y = flags & 2;
    builder::ModelBuilder b(9);
    const int rows = 5, depth = 13, cols = 7;
    const builder::TensorId lhs = b.add_input(
        {3, 1, adj_x ? depth : rows, adj_x ? rows : depth}, ir::DataType::kInt8, 0.05f, -7);
    const builder::TensorId rhs =
        b.add_input({2, adj_y ? cols : depth, adj_y ? depth : cols}, ir::DataType::kInt8, 0.03f, 12);
    b.mark_output(b.add_batch_matmul(lhs, rhs, adj_x, adj_y));
    const ir::Graph g = b.build();
    EXPECT_EQ(g.tensors[g.outputs[0]].shape, (std::vector<int32_t>{3, 2, rows, cols}));
    const std::vector<int8_t> a = random_int8(3 * rows * depth, 21 + flags);
    const std::vector<int8_t> c = random_int8(2 * depth * cols, 31 + flags);
    SCOPED_TRACE("adj_x " + std::to_string(adj_x) + " adj_y " + std::to_string(adj_y));
    expect_matches(g, {a, c}, reference(g, a, c));
  }
}

TEST(BatchMatMul, ConstantLhs) {
  builder::ModelBuilder b(4);
  const std::vector<int8_t> w = random_int8(8 * 16, 41);
  const builder::TensorId weights = b.add_int8_constant({8, 16}, w, 0.01f, 0);
  const builder::TensorId x = b.add_input({1, 16, 10}, ir::DataType::kInt8, 0.05f, -1);
  b.mark_output(b.add_batch_matmul(weights, x));
  const ir::Graph g = b.build();
  const std::vector<int8_t> input = random_int8(16 * 10, 43);
  expect_matches(g, {input}, reference(g, w, input));
}

void expect_refused(const std::function<void(builder::ModelBuilder&)>& build,
                    const std::string& text) {
  builder::ModelBuilder b;
  build(b);
  try {
    b.build();
    ADD_FAILURE() << "accepted; expected: " << text;
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(BatchMatMul, RefusesWhatTfliteRefuses) {
  expect_refused(
      [](builder::ModelBuilder& b) {
        const auto x = b.add_input({2, 3, 4}, ir::DataType::kInt8, 0.1f, 0);
        const auto y = b.add_input({2, 5, 6}, ir::DataType::kInt8, 0.1f, 0);
        b.mark_output(b.add_operator(ir::OpType::kBatchMatMul, {x, y}, ir::BatchMatMulOptions{},
                                     {2, 3, 6}, 0.1f, 0));
      },
      "operator 0 (BATCH_MATMUL): lhs [2,3,4] and rhs [2,5,6] do not multiply: accumulation "
      "depths 4 and 5");
  expect_refused(
      [](builder::ModelBuilder& b) {
        const auto x = b.add_input({2, 3, 4}, ir::DataType::kInt8, 0.1f, 0);
        const auto y = b.add_input({3, 4, 6}, ir::DataType::kInt8, 0.1f, 0);
        b.mark_output(b.add_operator(ir::OpType::kBatchMatMul, {x, y}, ir::BatchMatMulOptions{},
                                     {3, 3, 6}, 0.1f, 0));
      },
      "operator 0 (BATCH_MATMUL): batch dimensions of [2,3,4] and [3,4,6] do not broadcast");
  expect_refused(
      [](builder::ModelBuilder& b) {
        const auto x = b.add_input({4}, ir::DataType::kInt8, 0.1f, 0);
        const auto y = b.add_input({4, 6}, ir::DataType::kInt8, 0.1f, 0);
        b.mark_output(b.add_operator(ir::OpType::kBatchMatMul, {x, y}, ir::BatchMatMulOptions{},
                                     {6}, 0.1f, 0));
      },
      "operator 0 (BATCH_MATMUL): input 0 (tensor 0) has shape [4], expected rank 2 to 5");
  expect_refused(
      [](builder::ModelBuilder& b) {
        const auto x = b.add_input({3, 4}, ir::DataType::kInt8, 0.1f, 0);
        const auto y = b.add_input({4, 6}, ir::DataType::kInt8, 0.1f, 0);
        b.mark_output(b.add_operator(ir::OpType::kBatchMatMul, {x, y}, ir::BatchMatMulOptions{},
                                     {3, 5}, 0.1f, 0));
      },
      "operator 0 (BATCH_MATMUL): output (tensor 2) has shape [3,5], expected [3,6]");
  expect_refused(
      [](builder::ModelBuilder& b) {
        const auto x = b.add_int8_constant({3, 4}, std::vector<int8_t>(12, 1), 0.1f, 0);
        const auto y = b.add_int8_constant({4, 6}, std::vector<int8_t>(24, 1), 0.1f, 0);
        b.mark_output(b.add_operator(ir::OpType::kBatchMatMul, {x, y}, ir::BatchMatMulOptions{},
                                     {3, 6}, 0.1f, 0));
      },
      "operator 0 (BATCH_MATMUL): both inputs are constants");
}

}  // namespace
}  // namespace mote
