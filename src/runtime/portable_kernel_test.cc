// A runtime built with the dsp kernels (emulated on the host) given a program the compiler
// planned for cortex-m4 (write_conv_program's wide_pool): a pointwise convolution, which the dsp
// kernel takes, and an average pool over 400 pixels, which it does not. The compiler marks the
// pool portable_kernel; the runtime runs it on the portable kernel and the convolution on the dsp
// kernel alone (no fallback), with the host's results, and refuses the pool unmarked. The same
// for the members of a row-streamed stage (kws_streamed): marked, they run the portable row
// kernels, unmarked the dsp ones alone. A depthwise of one input channel (one_input) runs its
// own form, the dsp kernel for that shape through its planned scratch.

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/pooling.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"
#include "runtime/ops/registry.h"
#include "runtime/testing/aligned_bytes.h"

namespace mote::runtime {
namespace {

using testing::read_file;

std::string path(const char* extension, const char* stem = "wide_pool") {
  return std::string(MOTE_VARIANT_TEST_DIR) + "/" + stem + extension;
}

std::vector<uint8_t> repack(const schema::ProgramT& program) {
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(schema::Program::Pack(builder, &program), schema::ProgramIdentifier());
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

// The program's output for write_conv_program's input, or empty with a test failure.
std::vector<uint8_t> run(const std::vector<uint8_t>& program_bytes,
                         const char* stem = "wide_pool") {
  const testing::AlignedBytes bytes(program_bytes);
  LoadDiagnostic diagnostic;
  Result<Program> program = Program::load(bytes.data, bytes.size, &diagnostic);
  EXPECT_TRUE(program.ok()) << diagnostic.reason;
  if (!program.ok()) return {};
  std::vector<uint8_t> arena(program->arena_size() + 16);
  uint8_t* at = arena.data() + ((16 - reinterpret_cast<uintptr_t>(arena.data()) % 16) % 16);
  Result<Executor> executor = Executor::create(*program, at, program->arena_size());
  EXPECT_TRUE(executor.ok());
  if (!executor.ok()) return {};
  const std::vector<uint8_t> input = read_file(path(".input", stem));
  std::memcpy(executor->input(0).data, input.data(), input.size());
  EXPECT_EQ(executor->run(), Error::kOk);
  const TensorView out = executor->output(0);
  return {out.data, out.data + out.size};
}

TEST(PortableKernel, TheCompilerMarksWhatTheDspKernelsDoNotTake) {
  const auto program = schema::UnPackProgram(read_file(path(".mote")).data());
  ASSERT_EQ(program->operators.size(), 2u);
  EXPECT_EQ(program->operators[0]->kind, schema::OpKind::Conv2D);
  EXPECT_FALSE(program->operators[0]->portable_kernel);
  EXPECT_EQ(program->operators[1]->kind, schema::OpKind::AveragePool2D);
  EXPECT_TRUE(program->operators[1]->portable_kernel);
  // What this runtime's dsp kernels say of the two shapes.
  EXPECT_TRUE(kernels::conv_extension_takes({1, 20, 20, 8, 1, 1, 8, 20, 20, 8, 1, 1, 0, 0, 1, 1}));
  kernels::PoolParams pool{};
  pool.batches = 1;
  pool.input_h = pool.input_w = 20;
  pool.channels = 8;
  pool.output_h = pool.output_w = 1;
  pool.filter_h = pool.filter_w = 20;
  pool.stride_h = pool.stride_w = 1;
  EXPECT_FALSE(kernels::average_pool_extension_takes(pool));
  pool.filter_h = pool.filter_w = 16;
  EXPECT_TRUE(kernels::average_pool_extension_takes(pool));
}

TEST(PortableKernel, RunsEachOperatorOnItsKernelWithTheHostsResults) {
  EXPECT_EQ(run(read_file(path(".mote"))), read_file(path(".output")));
  // The convolution marked too: both on the portable kernels, the same bytes.
  const auto program = schema::UnPackProgram(read_file(path(".mote")).data());
  program->operators[0]->portable_kernel = true;
  EXPECT_EQ(run(repack(*program)), read_file(path(".output")));
}

TEST(PortableKernel, RefusesAnOperatorItsExtensionKernelDoesNotTake) {
  const auto program = schema::UnPackProgram(read_file(path(".mote")).data());
  program->operators[1]->portable_kernel = false;
  const testing::AlignedBytes bytes(repack(*program));
  LoadDiagnostic diagnostic;
  const Result<Program> loaded = Program::load(bytes.data, bytes.size, &diagnostic);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error(), Error::kUnsupported);
  EXPECT_EQ(diagnostic.where, LoadDiagnostic::Where::kOperator);
  EXPECT_EQ(diagnostic.index, 1u);
  EXPECT_STREQ(diagnostic.op_name, "AVERAGE_POOL_2D");
  EXPECT_NE(std::strstr(diagnostic.reason, "extension kernel, which does not take its shape"),
            nullptr)
      << diagnostic.reason;
}

TEST(PortableKernel, StreamedMembersRunTheirRowKernelWithTheHostsResults) {
  const auto program = schema::UnPackProgram(read_file(path(".mote", "kws_streamed")).data());
  ASSERT_FALSE(program->stages.empty());
  const std::vector<uint8_t> expected = read_file(path(".output", "kws_streamed"));
  EXPECT_EQ(run(read_file(path(".mote", "kws_streamed")), "kws_streamed"), expected);
  // Every member marked: the portable row kernels, the same bytes.
  int marked = 0;
  for (uint32_t k = program->stages[0].first(); k <= program->stages[0].last(); ++k) {
    auto& op = *program->operators[k];
    if (op.kind == schema::OpKind::Conv2D || op.kind == schema::OpKind::DepthwiseConv2D) {
      EXPECT_FALSE(op.portable_kernel);  // the dsp kernels take all of them
      op.portable_kernel = true;
      ++marked;
    }
  }
  EXPECT_GT(marked, 1);
  const std::vector<uint8_t> bytes = repack(*program);
  EXPECT_EQ(run(bytes, "kws_streamed"), expected);
  // The stage calls each marked member's portable row form, the others their own.
  const auto& ops = *schema::GetProgram(bytes.data())->operators();
  for (uint32_t k = program->stages[0].first(); k <= program->stages[0].last(); ++k) {
    const schema::Operator& op = *ops.Get(k);
    const internal::OpFormTable& forms = *internal::op_entry(op.kind())->forms;
    if (op.portable_kernel()) {
      ASSERT_NE(forms.rows_portable, nullptr) << k;
      EXPECT_EQ(internal::row_form(op), forms.rows_portable) << k;
    } else {
      EXPECT_EQ(internal::row_form(op), forms.rows) << k;
    }
  }
}

TEST(OneInputForm, RunsTheDspKernelForOneInputChannelWithTheHostsResults) {
  const std::vector<uint8_t> bytes = read_file(path(".mote", "one_input"));
  const schema::Program& program = *schema::GetProgram(bytes.data());
  ASSERT_EQ(program.operators()->size(), 2u);
  // Operator 0 reads one channel into eight: its own form, with the scratch the dsp kernel
  // plans; operator 1 (eight into eight) the plain form.
  EXPECT_EQ(internal::op_forms(program, 0), internal::kFormOneInput);
  EXPECT_EQ(internal::op_forms(program, 1), internal::kFormPlain);
  const schema::Operator& op = *program.operators()->Get(0);
  ASSERT_NE(op.scratch(), nullptr);
  EXPECT_EQ(op.scratch()->size(), kernels::built_depthwise_conv_scratch_bytes(
                                      {1, 25, 20, 1, 10, 8, 13, 10, 8, 2, 2, 4, 3, 1, 1}));
  EXPECT_GT(op.scratch()->size(), 0u);
  // The executor runs operator 0 through the one-input form, operator 1 through the plain one
  // (both would give the same bytes: the form is checked here, the bytes below).
  const internal::OpFormTable& built = *internal::op_entry(schema::OpKind::DepthwiseConv2D)->forms;
  ASSERT_NE(built.one_input, nullptr);
  EXPECT_EQ(internal::plain_form(built, program, op), built.one_input);
  EXPECT_EQ(internal::plain_form(built, program, *program.operators()->Get(1)), built.plain);
  EXPECT_EQ(run(bytes, "one_input"), read_file(path(".output", "one_input")));
  // An image without the form refuses the program, naming it.
  internal::OpEntry entry = *internal::op_entry(schema::OpKind::DepthwiseConv2D);
  internal::OpFormTable forms = *entry.forms;
  forms.one_input = nullptr;
  entry.forms = &forms;
  EXPECT_STREQ(internal::absent_form(entry, internal::kFormOneInput),
               "its one-input-channel form is not built into this image: rebuild the image with "
               "this program (mote_add_model)");
  EXPECT_EQ(internal::absent_form(entry, internal::kFormPlain), nullptr);
}

}  // namespace
}  // namespace mote::runtime
