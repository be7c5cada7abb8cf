// A runtime built with a subset of the operators (op_table.cc compiled into this test with
// testing/conv_add_ops.h, as a firmware image is with its programs' kinds and forms): programs of
// those kinds and forms load and run exactly; a program using another kind, or a form left out,
// is refused at load, naming it.

#include <gtest/gtest.h>

#include <cstring>

#include "runtime/ops/registry.h"
#include "runtime/stages.h"
#include "runtime/testing/test_programs.h"

namespace mote::runtime {
namespace {

using schema::OpKind;

TEST(OpSelectionTest, OnlySelectedKindsAreBuiltIn) {
  for (int k = 0; k <= static_cast<int>(OpKind::MAX); ++k) {
    const auto kind = static_cast<OpKind>(k);
    const internal::OpEntry& entry = *internal::op_entry(kind);
    const bool selected = kind == OpKind::Conv2D || kind == OpKind::Add || kind == OpKind::Reshape;
    EXPECT_EQ(entry.op != nullptr, selected) << entry.name;
    EXPECT_EQ(entry.built_in, selected) << entry.name;
  }
  EXPECT_STREQ(internal::op_entry(OpKind::Softmax)->name, "SOFTMAX");
}

TEST(OpSelectionTest, OnlySelectedFormsAreBuiltIn) {
  const internal::OpFormTable* conv = internal::op_entry(OpKind::Conv2D)->forms;
  ASSERT_NE(conv, nullptr);
  EXPECT_NE(conv->plain, nullptr);
  EXPECT_EQ(conv->portable, nullptr);
  EXPECT_NE(conv->int4, nullptr);
  EXPECT_EQ(conv->rows, nullptr);
  EXPECT_EQ(conv->backward, nullptr);
  EXPECT_EQ(conv->int16, nullptr);
  const internal::OpFormTable* add = internal::op_entry(OpKind::Add)->forms;
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->separate,
            internal::kFormPlain | internal::kFormRows | internal::kFormInt32);
  EXPECT_EQ(add->int32, nullptr);  // not selected
  EXPECT_NE(add->plain, nullptr);
  EXPECT_EQ(add->rows, nullptr);
  EXPECT_EQ(internal::op_entry(OpKind::Reshape)->forms, nullptr);  // it has none
  EXPECT_NE(internal::op_entry(OpKind::Reshape)->plain, nullptr);
  EXPECT_EQ(internal::op_entry(OpKind::Softmax)->plain, nullptr);
  EXPECT_EQ(internal::op_entry(OpKind::DepthwiseConv2D)->forms, nullptr);  // not selected
  // No form runs by rows: no stage machinery either.
  EXPECT_EQ(internal::built_stages(), nullptr);
}

// conv_add_program with `edit` applied, loaded unchecked: refused at operator 0 with `reason`.
void expect_form_refused(void (*edit)(schema::ProgramT&), const char* reason) {
  schema::ProgramT p = testing::conv_add_program();
  p.version = kFormatVersion;
  edit(p);
  const testing::Loaded loaded = testing::load(testing::pack_unchecked(p));
  ASSERT_FALSE(loaded.program.ok());
  EXPECT_EQ(loaded.program.error(), Error::kUnsupported);
  EXPECT_EQ(loaded.diagnostic.where, LoadDiagnostic::Where::kOperator);
  EXPECT_EQ(loaded.diagnostic.index, 0u);
  EXPECT_STREQ(loaded.diagnostic.op_name, "CONV_2D");
  EXPECT_EQ(std::strncmp(loaded.diagnostic.reason, reason, std::strlen(reason)), 0)
      << loaded.diagnostic.reason;
}

TEST(OpSelectionTest, RefusesAFormLeftOutNamingIt) {
  // The convolution runs backward, a form CONV_2D has but this runtime does not build in.
  expect_form_refused([](schema::ProgramT& p) { p.operators[0]->backward = true; },
                      "its backward form is not built into this image: rebuild the image with "
                      "this program (mote_add_model)");
  // The convolution on the portable kernel (as planned for a CPU whose extension kernel does not
  // take its shape), which this runtime does not build in.
  expect_form_refused([](schema::ProgramT& p) { p.operators[0]->portable_kernel = true; },
                      "its portable-kernel form (a shape this CPU's extension kernel does not "
                      "take) is not built into this image");
  // The convolution and the add as a row-streamed stage.
  expect_form_refused(
      [](schema::ProgramT& p) {
        p.stages.push_back(schema::Stage(0, 1));
        p.stage_calls.push_back(std::make_unique<schema::StageCallsT>());
      },
      "its row-streamed form is not built into this image");
  // The same stage with the convolution on the portable row kernel.
  expect_form_refused(
      [](schema::ProgramT& p) {
        p.stages.push_back(schema::Stage(0, 1));
        p.stage_calls.push_back(std::make_unique<schema::StageCallsT>());
        p.operators[0]->portable_kernel = true;
      },
      "its row-streamed form on the portable kernel (a shape this CPU's extension kernel does "
      "not take) is not built into this image");
}

TEST(OpSelectionTest, RunsAProgramOfSelectedKinds) {
  const testing::Loaded loaded = testing::load(emit::emit_program(testing::conv_add_program()));
  ASSERT_TRUE(loaded.program.ok()) << loaded.diagnostic.reason;
  emit::AlignedBuffer arena(loaded.program->arena_size());
  auto executor = Executor::create(*loaded.program, arena.data(), arena.size());
  ASSERT_TRUE(executor.ok());
  std::vector<int8_t> input(50);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int8_t>(i * 7 - 100);
  std::memcpy(executor->input(0).data, input.data(), input.size());
  ASSERT_EQ(executor->run(), Error::kOk);
  const std::vector<int8_t> expected = testing::conv_add_expected(input);
  ASSERT_EQ(executor->output(0).size, expected.size());
  EXPECT_EQ(std::memcmp(executor->output(0).data, expected.data(), expected.size()), 0);
}

TEST(OpSelectionTest, RefusesAKindLeftOutNamingIt) {
  // kitchen_sink_program's first operator is QUANTIZE. (emit_program would refuse to write it:
  // it checks what it writes with this runtime.)
  schema::ProgramT p = testing::kitchen_sink_program();
  p.version = kFormatVersion;
  const testing::Loaded loaded = testing::load(testing::pack_unchecked(p));
  ASSERT_FALSE(loaded.program.ok());
  EXPECT_EQ(loaded.program.error(), Error::kUnsupported);
  EXPECT_EQ(loaded.diagnostic.where, LoadDiagnostic::Where::kOperator);
  EXPECT_EQ(loaded.diagnostic.index, 0u);
  EXPECT_STREQ(loaded.diagnostic.reason, internal::kAbsentKind);
  EXPECT_STREQ(loaded.diagnostic.op_name, "QUANTIZE");
}

TEST(OpSelectionTest, RunRefusesAKindChangedAfterTheLoad) {
  testing::Loaded loaded = testing::load(emit::emit_program(testing::conv_add_program()));
  ASSERT_TRUE(loaded.program.ok()) << loaded.diagnostic.reason;
  emit::AlignedBuffer arena(loaded.program->arena_size());
  auto executor = Executor::create(*loaded.program, arena.data(), arena.size());
  ASSERT_TRUE(executor.ok());
  // Operator 1 (ADD) becomes SOFTMAX, which this runtime does not have, in the loaded bytes.
  auto* ops = schema::GetMutableProgram(loaded.bytes.data())->mutable_operators();
  auto* op = ops->GetMutableObject(1);
  ASSERT_TRUE(op->mutate_kind(OpKind::Softmax));
  EXPECT_EQ(executor->run_operator(0), Error::kOk);
  EXPECT_EQ(executor->run_operator(1), Error::kUnsupported);
}

TEST(OpSelectionTest, UnknownKindsStayInvalid) {
  schema::ProgramT p = testing::conv_add_program();
  p.version = kFormatVersion;
  p.operators[2]->kind = static_cast<OpKind>(200);
  const testing::Loaded loaded = testing::load(testing::pack_unchecked(p));
  EXPECT_EQ(loaded.program.error(), Error::kInvalidProgram);
  EXPECT_STREQ(loaded.diagnostic.reason, "unknown operator kind");
}

}  // namespace
}  // namespace mote::runtime
