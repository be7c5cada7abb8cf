#include "compiler/tflite/shape_folding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/tflite/reader.h"

namespace mote::tflite {
namespace {

using ::testing::HasSubstr;

Int32Value vec(std::vector<int32_t> v) {
  const auto n = static_cast<int32_t>(v.size());
  return {{n}, std::move(v)};
}
Int32Value scalar(int32_t v) { return {{}, {v}}; }

std::vector<int32_t> slice(const std::vector<int32_t>& in, int32_t b, int32_t e, int32_t s,
                           StridedSliceMasks m = {}) {
  const auto r = fold_strided_slice(vec(in), vec({b}), vec({e}), vec({s}), m);
  EXPECT_TRUE(r.has_value());
  return r ? r->values : std::vector<int32_t>{-999};
}

// Hand-checked against TensorFlow's rules (tf.strided_slice on [1, 49, 10, 64]).
TEST(ShapeFolding, StridedSlice) {
  const std::vector<int32_t> shape = {1, 49, 10, 64};
  EXPECT_EQ(slice(shape, 0, 1, 1), (std::vector<int32_t>{1}));
  EXPECT_EQ(slice(shape, 1, 3, 1), (std::vector<int32_t>{49, 10}));
  EXPECT_EQ(slice(shape, 1, 100, 1), (std::vector<int32_t>{49, 10, 64}));  // end clamped
  EXPECT_EQ(slice(shape, -2, 4, 1), (std::vector<int32_t>{10, 64}));       // from the end
  EXPECT_EQ(slice(shape, 0, 4, 2), (std::vector<int32_t>{1, 10}));
  EXPECT_EQ(slice(shape, -1, 0, -1), (std::vector<int32_t>{64, 10, 49}));  // backwards, 0 excluded
  EXPECT_EQ(slice(shape, 9, 1, 1, {.begin = 1}), (std::vector<int32_t>{1}));  // begin_mask: from 0
  EXPECT_EQ(slice(shape, 2, 0, 1, {.end = 1}), (std::vector<int32_t>{10, 64}));  // end_mask: to n
  EXPECT_EQ(slice(shape, 0, 0, -1, {.begin = 1, .end = 1}),
            (std::vector<int32_t>{64, 10, 49, 1}));
  EXPECT_EQ(slice(shape, 3, 2, 1), (std::vector<int32_t>{}));  // empty

  // shrink_axis_mask: one element, a scalar.
  const auto first = fold_strided_slice(vec(shape), vec({0}), vec({1}), vec({1}), {.shrink_axis = 1});
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->shape.empty());
  EXPECT_EQ(first->values, (std::vector<int32_t>{1}));
  const auto last = fold_strided_slice(vec(shape), vec({-1}), vec({0}), vec({1}), {.shrink_axis = 1});
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->values, (std::vector<int32_t>{64}));

  // What it leaves to the operator's own definition.
  EXPECT_FALSE(fold_strided_slice(vec(shape), vec({0}), vec({1}), vec({0}), {}));  // stride 0
  EXPECT_FALSE(fold_strided_slice(vec(shape), vec({0}), vec({1}), vec({1}), {.ellipsis = 1}));
  EXPECT_FALSE(fold_strided_slice(vec(shape), vec({0}), vec({1}), vec({1}), {.new_axis = 1}));
  EXPECT_FALSE(fold_strided_slice(vec(shape), vec({0}), vec({1}), vec({1}), {.offset = true}));
  EXPECT_FALSE(fold_strided_slice(vec(shape), vec({4}), vec({5}), vec({1}), {.shrink_axis = 1}));
  EXPECT_FALSE(fold_strided_slice(vec(shape), vec({0, 1}), vec({1, 2}), vec({1, 1}), {}));
  EXPECT_FALSE(fold_strided_slice({{2, 2}, {1, 2, 3, 4}}, vec({0}), vec({1}), vec({1}), {}));
}

TEST(ShapeFolding, PackConcatenationGather) {
  const auto packed = fold_pack({scalar(1), scalar(-1)}, 0);
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(packed->shape, (std::vector<int32_t>{2}));
  EXPECT_EQ(packed->values, (std::vector<int32_t>{1, -1}));
  const auto rows = fold_pack({vec({1, 2}), vec({3, 4}), vec({5, 6})}, 0);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->shape, (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(rows->values, (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(fold_pack({scalar(4), scalar(5)}, -1).has_value());
  EXPECT_FALSE(fold_pack({vec({1, 2}), vec({3, 4})}, 1));   // a new inner axis: not folded
  EXPECT_FALSE(fold_pack({vec({1, 2}), vec({3})}, 0));      // shapes differ
  EXPECT_FALSE(fold_pack({}, 0));

  const auto joined = fold_concatenation({vec({1}), vec({49, 640})}, 0);
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(joined->shape, (std::vector<int32_t>{3}));
  EXPECT_EQ(joined->values, (std::vector<int32_t>{1, 49, 640}));
  EXPECT_FALSE(fold_concatenation({scalar(1), scalar(2)}, 0));

  const auto picked = fold_gather(vec({1, 49, 10, 64}), vec({3, 0}), 0, 0);
  ASSERT_TRUE(picked.has_value());
  EXPECT_EQ(picked->shape, (std::vector<int32_t>{2}));
  EXPECT_EQ(picked->values, (std::vector<int32_t>{64, 1}));
  const auto one = fold_gather(vec({7, 8}), scalar(1), 0, 0);
  ASSERT_TRUE(one.has_value());
  EXPECT_TRUE(one->shape.empty());
  EXPECT_EQ(one->values, (std::vector<int32_t>{8}));
  EXPECT_FALSE(fold_gather(vec({7, 8}), scalar(2), 0, 0));  // out of range
  EXPECT_FALSE(fold_gather(vec({7, 8}), scalar(0), 0, 1));
}

// A Flatten as converters write it when the batch size is unknown:
//   s = SHAPE(x); b = STRIDED_SLICE(s, [0], [1], [1], shrink); p = PACK(b, -1); RESHAPE(x, p).
class FlattenModel {
 public:
  FlattenModel() {
    builder::ModelBuilder b;
    const builder::TensorId x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.1f, 0);
    b.mark_output(b.add_reshape(x, {1, 32}));
    model = builder::to_tflite_object(b.graph());
  }

  int32_t add_tensor(const std::string& name, std::vector<int32_t> shape,
                     const std::vector<int32_t>& values = {}) {
    auto t = std::make_unique<fb::TensorT>();
    t->name = name;
    t->shape = std::move(shape);
    t->type = 2;  // INT32
    if (!values.empty()) {
      auto buffer = std::make_unique<fb::BufferT>();
      buffer->data.resize(values.size() * sizeof(int32_t));
      std::memcpy(buffer->data.data(), values.data(), buffer->data.size());
      t->buffer = static_cast<uint32_t>(model->buffers.size());
      model->buffers.push_back(std::move(buffer));
    }
    graph().tensors.push_back(std::move(t));
    return static_cast<int32_t>(graph().tensors.size() - 1);
  }

  // Inserts an operator before the RESHAPE (which stays last).
  void add_operator(int32_t builtin, std::vector<int32_t> inputs, int32_t output,
                    fb::BuiltinOptionsUnion options = {}) {
    auto code = std::make_unique<fb::OperatorCodeT>();
    code->builtin_code = builtin;
    code->deprecated_builtin_code = static_cast<int8_t>(builtin);
    model->operator_codes.push_back(std::move(code));
    auto op = std::make_unique<fb::OperatorT>();
    op->opcode_index = static_cast<uint32_t>(model->operator_codes.size() - 1);
    op->inputs = std::move(inputs);
    op->outputs = {output};
    op->builtin_options = std::move(options);
    auto& ops = graph().operators;
    ops.insert(ops.end() - 1, std::move(op));
  }

  // The whole subgraph; `batch_shape` is what the STRIDED_SLICE's output tensor says it holds.
  std::vector<uint8_t> flatten(std::vector<int32_t> batch_shape = {}) {
    const int32_t x = graph().inputs[0];
    const int32_t s = add_tensor("shape", {4});
    const int32_t batch = add_tensor("batch", std::move(batch_shape));
    const int32_t packed = add_tensor("packed", {2});
    add_operator(77, {x}, s);  // SHAPE
    fb::StridedSliceOptionsT slice;
    slice.shrink_axis_mask = 1;
    fb::BuiltinOptionsUnion slice_options;
    slice_options.Set(std::move(slice));
    add_operator(45,  // STRIDED_SLICE
                 {s, add_tensor("begin", {1}, {0}), add_tensor("end", {1}, {1}),
                  add_tensor("strides", {1}, {1})},
                 batch, std::move(slice_options));
    fb::PackOptionsT pack;
    pack.values_count = 2;
    fb::BuiltinOptionsUnion pack_options;
    pack_options.Set(std::move(pack));
    add_operator(83, {batch, add_tensor("minus_one", {}, {-1})}, packed,  // PACK
                 std::move(pack_options));
    graph().operators.back()->inputs.resize(1);  // RESHAPE(x, packed)
    graph().operators.back()->inputs.push_back(packed);
    return builder::pack_model(*model);
  }

  fb::SubGraphT& graph() { return *model->subgraphs[0]; }
  std::unique_ptr<fb::ModelT> model;
};

TEST(ShapeFolding, TheReaderEvaluatesAShapeSubgraph) {
  FlattenModel m;
  const std::vector<uint8_t> bytes = m.flatten();
  const ir::Graph g = read_model(bytes);
  ASSERT_EQ(g.operators.size(), 1u);
  EXPECT_EQ(g.operators[0].type, ir::OpType::kReshape);
  ASSERT_EQ(g.operators[0].inputs.size(), 2u);
  const ir::Tensor& shape = g.tensors[g.operators[0].inputs[1]];
  ASSERT_TRUE(shape.is_constant);
  std::vector<int32_t> values(2);
  ASSERT_EQ(shape.data.size(), sizeof(int32_t) * 2);
  std::memcpy(values.data(), shape.data.data(), shape.data.size());
  EXPECT_EQ(values, (std::vector<int32_t>{1, -1}));
  ASSERT_EQ(g.notes.size(), 3u);
  EXPECT_THAT(g.notes[0], HasSubstr("operator 0 (SHAPE): evaluated while compiling"));
  EXPECT_THAT(g.notes[0], HasSubstr("[1,4,4,2]"));
  EXPECT_THAT(g.notes[2], HasSubstr("operator 2 (PACK): evaluated while compiling"));

  const SupportReport report = check_model(bytes);
  EXPECT_TRUE(report.compiles());
  ASSERT_EQ(report.operators.size(), 4u);
  EXPECT_EQ(report.operators[3].type, "RESHAPE");
}

TEST(ShapeFolding, AnOutputTensorOfAnotherShapeIsRefused) {
  FlattenModel m;
  const std::vector<uint8_t> bytes = m.flatten({1});  // the scalar declared as [1]
  try {
    read_model(bytes);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("operator 1 (STRIDED_SLICE): computes [1] of shape []"));
  }
  const SupportReport report = check_model(bytes);
  EXPECT_FALSE(report.compiles());
  EXPECT_THAT(report.operators[1].problem, HasSubstr("computes [1] of shape []"));
}

}  // namespace
}  // namespace mote::tflite
