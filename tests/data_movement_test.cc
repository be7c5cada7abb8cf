// The data-movement operators (STRIDED_SLICE, SLICE, SPLIT, SPLIT_V, PACK, UNPACK, GATHER,
// DEPTH_TO_SPACE, SPACE_TO_DEPTH) end to end: builder models of several shapes and parameters
// (negative axes and strides, masks, several outputs and inputs) written as .tflite, read back,
// compiled for a scalar, a DSP and an MVE CPU, run on the host and compared with slow references
// (operator_model.cc's, from TFLite's definitions, and hand-checked values here); what TFLite
// does not define or Mote does not run is refused with the operator named.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <numeric>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/ops/validate.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"
#include "tests/operator_model.h"

namespace mote {
namespace {

using builder::ModelBuilder;
using builder::TensorId;
using ::testing::HasSubstr;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

// Input bytes 0, 1, 2, ... (as int8), so every output byte names the input element it came from.
std::vector<uint8_t> iota_input(const ir::Graph& g, size_t k = 0) {
  std::vector<uint8_t> v(static_cast<size_t>(g.tensors[g.inputs[k]].num_bytes()));
  std::iota(v.begin(), v.end(), uint8_t{0});
  return v;
}

// Every graph output's bytes, concatenated, from the program compiled for `cpu` (through
// .tflite and back).
std::vector<uint8_t> run(const ir::Graph& built, const char* cpu,
                         const std::vector<std::vector<uint8_t>>& inputs) {
  const ir::Graph graph = tflite::read_model(builder::write_model(built));
  EXPECT_EQ(graph, built);
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  const pipeline::Compiled compiled = pipeline::compile(graph, options);
  const pipeline::HostRun r = pipeline::run_on_host(compiled.program, inputs);
  std::vector<uint8_t> out;
  for (const auto& o : r.outputs) out.insert(out.end(), o.begin(), o.end());
  return out;
}

// A model of one input of `shape` and the operators `build` adds (marking its outputs), run on
// every CPU against the reference interpreter of operator_model.cc.
void expect_matches_reference(const std::vector<int32_t>& shape,
                              const std::function<void(ModelBuilder&, TensorId)>& build) {
  ModelBuilder b(3);
  const TensorId x = b.add_input(shape, ir::DataType::kInt8, 0.05f, -7);
  build(b, x);
  const ir::Graph g = b.build();
  std::vector<uint8_t> input(static_cast<size_t>(g.tensors[g.inputs[0]].num_bytes()));
  pipeline::DefaultInput().fill(input);
  const std::vector<uint8_t> expected = testing::operator_model_reference(g, input);
  for (const char* cpu : kCpus) EXPECT_EQ(run(g, cpu, {input}), expected) << cpu;
}

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> r;
  for (int x : v) r.push_back(static_cast<uint8_t>(x));
  return r;
}

// One model, every CPU, hand-checked output bytes (the input is 0, 1, 2, ...).
void expect_bytes(const std::vector<int32_t>& shape,
                  const std::function<void(ModelBuilder&, TensorId)>& build,
                  const std::vector<uint8_t>& expected) {
  ModelBuilder b(3);
  const TensorId x = b.add_input(shape, ir::DataType::kInt8, 0.05f, -7);
  build(b, x);
  const ir::Graph g = b.build();
  for (const char* cpu : kCpus) EXPECT_EQ(run(g, cpu, {iota_input(g)}), expected) << cpu;
}

void expect_refused(const std::vector<int32_t>& shape,
                    const std::function<void(ModelBuilder&, TensorId)>& build,
                    const std::string& text) {
  ModelBuilder b;
  const TensorId x = b.add_input(shape, ir::DataType::kInt8, 0.1f, 0);
  try {
    build(b, x);
    b.build();
    ADD_FAILURE() << "accepted; expected: " << text;
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(text));
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(StridedSlice, HandChecked) {
  // [2,3,4] = 0..23; x[1, ::-1, 1:4:2] -> rows 2, 1, 0 of batch 1, columns 1 and 3.
  ir::StridedSliceOptions o;
  o.shrink_axis_mask = 1;
  expect_bytes({2, 3, 4},
               [&](ModelBuilder& b, TensorId x) {
                 b.mark_output(b.add_strided_slice(x, {1, -1, 1}, {2, -4, 4}, {1, -1, 2}, o));
               },
               bytes({21, 23, 17, 19, 13, 15}));
  // Ellipsis and a new axis: x[..., None, 2] on [2,3,4] -> [2,3,1] of column 2.
  ir::StridedSliceOptions e;
  e.ellipsis_mask = 1;
  e.new_axis_mask = 2;
  e.shrink_axis_mask = 4;
  expect_bytes({2, 3, 4},
               [&](ModelBuilder& b, TensorId x) {
                 const TensorId y = b.add_strided_slice(x, {0, 0, 2}, {0, 0, 3}, {1, 1, 1}, e);
                 EXPECT_EQ(b.tensor(y).shape, (std::vector<int32_t>{2, 3, 1}));
                 b.mark_output(y);
               },
               bytes({2, 6, 10, 14, 18, 22}));
  // Begin and end masks with a reversed stride, and entries beyond the end clamped:
  // x[:, 5:-10:-2] on [2,4] (0..7) -> columns 3, 1.
  ir::StridedSliceOptions m;
  m.begin_mask = 1;
  m.end_mask = 1;
  expect_bytes({2, 4},
               [&](ModelBuilder& b, TensorId x) {
                 b.mark_output(b.add_strided_slice(x, {9, 5}, {9, -10}, {1, -2}, m));
               },
               bytes({3, 1, 7, 5}));
}

TEST(StridedSlice, MatchesTheReferenceOnSeveralShapes) {
  ir::StridedSliceOptions none;
  expect_matches_reference({1, 6, 5, 3}, [&](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_strided_slice(x, {0, 1, -1, 0}, {1, 6, -6, 3}, {1, 2, -1, 2}, none));
  });
  ir::StridedSliceOptions masks;
  masks.begin_mask = 0b101;
  masks.end_mask = 0b010;
  masks.shrink_axis_mask = 0b1000;
  expect_matches_reference({3, 4, 5, 2, 3}, [&](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_strided_slice(x, {2, 1, 4, -1}, {-4, 0, 0, 0}, {-1, 2, -3, 1}, masks));
  });
  expect_matches_reference({7}, [&](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_strided_slice(x, {-1}, {-8}, {-3}, none));
  });
}

TEST(StridedSlice, RefusesWhatItCannotRun) {
  ir::StridedSliceOptions none;
  expect_refused({1, 4},
                 [&](ModelBuilder& b, TensorId x) {
                   b.mark_output(b.add_strided_slice(x, {0, 0}, {1, 4}, {1, 0}, none));
                 },
                 "strides[1] is 0");
  expect_refused({1, 4},
                 [&](ModelBuilder& b, TensorId x) {
                   b.mark_output(b.add_strided_slice(x, {0, 3}, {1, 1}, {1, 1}, none));
                 },
                 "empty");
  expect_refused({1, 1, 1, 1, 1, 2},
                 [&](ModelBuilder& b, TensorId x) {
                   b.mark_output(b.add_strided_slice(x, {0}, {1}, {1}, none));
                 },
                 "at most 5 dimensions");
  ir::StridedSliceOptions offset;
  offset.offset = true;
  expect_refused({1, 4},
                 [&](ModelBuilder& b, TensorId x) {
                   b.mark_output(b.add_strided_slice(x, {0, 0}, {1, 2}, {1, 1}, offset));
                 },
                 "offset");
  // The compiler's own check, on a graph the builder did not shape: the output differs.
  ModelBuilder b;
  const TensorId x = b.add_input({1, 4}, ir::DataType::kInt8, 0.1f, 0);
  b.mark_output(b.add_strided_slice(x, {0, 0}, {1, 2}, {1, 1}, none));
  ir::Graph g = b.graph();
  g.tensors[g.operators[0].outputs[0]].shape = {1, 3};
  try {
    ops::validate(g);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("operator 0 (STRIDED_SLICE): output (tensor 4) has shape "
                                    "[1,3], expected [1,2]"));
  }
}

TEST(Slice, HandCheckedAndReference) {
  expect_bytes({3, 4},
               [](ModelBuilder& b, TensorId x) { b.mark_output(b.add_slice(x, {1, 1}, {2, -1})); },
               bytes({5, 6, 7, 9, 10, 11}));
  expect_matches_reference({2, 5, 4, 3}, [](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_slice(x, {1, 2, 0, 1}, {1, 3, -1, 2}));
  });
  expect_matches_reference({9}, [](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_slice(x, {8}, {1}));
  });
  expect_refused({3, 4},
                 [](ModelBuilder& b, TensorId x) { b.mark_output(b.add_slice(x, {1, 1}, {3, 1})); },
                 "do not fit");
}

TEST(Split, SeveralOutputsEachItsOwnBuffer) {
  // [2,6] = 0..11 into three [2,2] along the last axis (-1).
  expect_bytes({2, 6},
               [](ModelBuilder& b, TensorId x) {
                 for (TensorId t : b.add_split(x, -1, 3)) b.mark_output(t);
               },
               bytes({0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
  expect_matches_reference({4, 3, 2, 5}, [](ModelBuilder& b, TensorId x) {
    for (TensorId t : b.add_split(x, 0, 2)) b.mark_output(t);
  });
  expect_matches_reference({1, 4, 6, 2}, [](ModelBuilder& b, TensorId x) {
    for (TensorId t : b.add_split(x, -2, 3)) b.mark_output(t);
  });
  expect_refused({2, 5},
                 [](ModelBuilder& b, TensorId x) { b.add_split(x, 1, 2); },
                 "uneven");
}

TEST(Split, UnusedOutputsAndOutputsFeedingOperatorsArePlannedApart) {
  // Only the middle part is a graph output; the first feeds a SLICE; the last is unused.
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 6, 4, 2}, ir::DataType::kInt8, 0.05f, 0);
  const std::vector<TensorId> parts = b.add_split(x, 1, 3);
  b.mark_output(parts[1]);
  b.mark_output(b.add_slice(parts[0], {0, 1, 0, 0}, {1, 1, 4, 2}));
  const ir::Graph g = b.build();
  std::vector<uint8_t> input = iota_input(g);
  std::vector<uint8_t> expected(input.begin() + 16, input.begin() + 32);
  expected.insert(expected.end(), input.begin() + 8, input.begin() + 16);
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::Compiled compiled = pipeline::compile(g, options);
    const pipeline::HostRun r = pipeline::run_on_host(compiled.program, {input});
    std::vector<uint8_t> out;
    for (const auto& o : r.outputs) out.insert(out.end(), o.begin(), o.end());
    EXPECT_EQ(out, expected) << cpu;
  }
}

TEST(SplitV, SizesWithMinusOne) {
  expect_bytes({5, 2},
               [](ModelBuilder& b, TensorId x) {
                 for (TensorId t : b.add_split_v(x, {1, -1, 2}, -2)) b.mark_output(t);
               },
               bytes({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  expect_matches_reference({2, 3, 7}, [](ModelBuilder& b, TensorId x) {
    for (TensorId t : b.add_split_v(x, {2, 4, 1}, 2)) b.mark_output(t);
  });
  expect_matches_reference({6, 2, 2}, [](ModelBuilder& b, TensorId x) {
    for (TensorId t : b.add_split_v(x, {-1, 5}, 0)) b.mark_output(t);
  });
}

TEST(Pack, StacksInputsAlongANewAxis) {
  // Two [2,2] inputs (the graph input and a slice of it) along axis 1 -> [2,2,2].
  expect_bytes({2, 3},
               [](ModelBuilder& b, TensorId x) {
                 const TensorId a = b.add_slice(x, {0, 0}, {2, 2});  // 0 1 / 3 4
                 const TensorId c = b.add_slice(x, {0, 1}, {2, 2});  // 1 2 / 4 5
                 b.mark_output(b.add_pack({a, c}, 1));
               },
               bytes({0, 1, 1, 2, 3, 4, 4, 5}));
  for (int32_t axis : {0, 2, -1, -3}) {
    expect_matches_reference({2, 3, 4}, [axis](ModelBuilder& b, TensorId x) {
      const std::vector<TensorId> parts = b.add_unpack(x, 0);
      b.mark_output(b.add_pack({parts[1], parts[0], parts[1]}, axis));
    });
  }
}

TEST(Unpack, OneOutputPerIndex) {
  expect_bytes({2, 3},
               [](ModelBuilder& b, TensorId x) {
                 for (TensorId t : b.add_unpack(x, -1)) b.mark_output(t);
               },
               bytes({0, 3, 1, 4, 2, 5}));
  expect_matches_reference({3, 2, 4, 2}, [](ModelBuilder& b, TensorId x) {
    for (TensorId t : b.add_unpack(x, 2)) b.mark_output(t);
  });
  expect_matches_reference({5}, [](ModelBuilder& b, TensorId x) {
    for (TensorId t : b.add_unpack(x, 0)) b.mark_output(t);
  });
}

TEST(Gather, ConstantIndices) {
  expect_bytes({3, 2},
               [](ModelBuilder& b, TensorId x) {
                 b.mark_output(b.add_gather(x, {2, 0, 2}, {3}, 0));
               },
               bytes({4, 5, 0, 1, 4, 5}));
  expect_matches_reference({2, 5, 3}, [](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_gather(x, {4, 0, 1, 1, 3, 2}, {3, 2}, -2));
  });
  expect_matches_reference({4, 6}, [](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_gather(x, {5}, {}, 1));
  });
  // batch_dims 1: out[b][i] = x[b][indices[b][i]].
  expect_bytes({2, 3},
               [](ModelBuilder& b, TensorId x) {
                 b.mark_output(b.add_gather(x, {2, 2, 0, 1}, {2, 2}, 1, 1));
               },
               bytes({2, 2, 3, 4}));
  expect_refused({3, 2},
                 [](ModelBuilder& b, TensorId x) {
                   b.mark_output(b.add_gather(x, {3}, {1}, 0));
                 },
                 "operator 0 (GATHER): input 1 (tensor 1) (indices) holds 3, outside [0, 3)");
}

TEST(Gather, IndicesComputedAtRunTime) {
  ModelBuilder b(3);
  const TensorId x = b.add_input({4, 3}, ir::DataType::kInt8, 0.05f, -7);
  const TensorId idx = b.add_input({5}, ir::DataType::kInt32);
  b.mark_output(b.add_gather_by(x, idx, 0));
  const ir::Graph g = b.build();
  std::vector<uint8_t> indices(20);
  const int32_t values[5] = {3, 0, 7, -1, 1};  // 7 and -1 are outside: zero-point slices
  std::memcpy(indices.data(), values, 20);
  for (const char* cpu : kCpus) {
    EXPECT_EQ(run(g, cpu, {iota_input(g), indices}),
              bytes({9, 10, 11, 0, 1, 2, -7, -7, -7, -7, -7, -7, 3, 4, 5}))
        << cpu;
  }
}

TEST(DepthToSpace, HandCheckedAndReference) {
  // [1,1,1,4] block 2 -> [1,2,2,1]: channels become the 2x2 block in row order.
  expect_bytes({1, 1, 2, 4},
               [](ModelBuilder& b, TensorId x) { b.mark_output(b.add_depth_to_space(x, 2)); },
               bytes({0, 1, 4, 5, 2, 3, 6, 7}));
  expect_matches_reference({2, 3, 2, 18}, [](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_depth_to_space(x, 3));
  });
  expect_refused({1, 2, 2, 6},
                 [](ModelBuilder& b, TensorId x) {
                   b.mark_output(b.add_operator(ir::OpType::kDepthToSpace, {x},
                                                ir::BlockSizeOptions{2}, {1, 4, 4, 1}, 0.1f, 0));
                 },
                 "operator 0 (DEPTH_TO_SPACE): input depth 6 is not a multiple of block_size^2 4");
}

TEST(SpaceToDepth, HandCheckedAndReference) {
  expect_bytes({1, 2, 4, 1},
               [](ModelBuilder& b, TensorId x) { b.mark_output(b.add_space_to_depth(x, 2)); },
               bytes({0, 1, 4, 5, 2, 3, 6, 7}));
  expect_matches_reference({2, 6, 4, 3}, [](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_space_to_depth(x, 2));
  });
  // DEPTH_TO_SPACE undoes it.
  expect_matches_reference({1, 4, 6, 2}, [](ModelBuilder& b, TensorId x) {
    b.mark_output(b.add_depth_to_space(b.add_space_to_depth(x, 2), 2));
  });
  expect_refused({1, 3, 4, 1},
                 [](ModelBuilder& b, TensorId x) {
                   b.mark_output(b.add_operator(ir::OpType::kSpaceToDepth, {x},
                                                ir::BlockSizeOptions{2}, {1, 1, 2, 4}, 0.1f, 0));
                 },
                 "must be multiples of block_size 2");
}

TEST(DataMovement, QuantizationMustBeKept) {
  expect_refused({1, 2, 2, 4},
                 [](ModelBuilder& b, TensorId x) {
                   b.mark_output(b.add_operator(ir::OpType::kDepthToSpace, {x},
                                                ir::BlockSizeOptions{2}, {1, 4, 4, 1}, 0.2f, 0));
                 },
                 "operator 0 (DEPTH_TO_SPACE): output (tensor 1) quantization (scale 0.200000003");
}

}  // namespace
}  // namespace mote
