// A runtime whose kernels library is built with the test CONV_2D variant (src/kernels/testing/,
// which needs more scratch than the portable kernel) refuses a program that Mote's compiler
// planned for the portable kernels, naming the operator, and runs one planned for its own kernel.
// The program comes from write_conv_program (this binary cannot link the compiler: its kernels
// library is not mote_kernels).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernels/testing/conv.h"
#include "mote/kernels/conv.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"
#include "runtime/testing/aligned_bytes.h"

namespace mote::runtime {
namespace {

using testing::read_file;

std::string program_path(const char* extension) {
  return std::string(MOTE_VARIANT_TEST_DIR) + "/conv2d_x3" + extension;
}

using Aligned = testing::AlignedBytes;

// The convolution's shape as the kernel sees it, from the program's tensors and options.
kernels::ConvShape conv_shape(const schema::ProgramT& p, const schema::OperatorT& op) {
  const auto& in = p.tensors[op.inputs[0]]->shape;
  const auto& filter = p.tensors[op.inputs[1]]->shape;
  const auto& out = p.tensors[op.outputs[0]]->shape;
  const auto& o = *op.options.AsConvOptions();
  return {in[0], in[1], in[2], in[3], filter[1], filter[2], filter[3], out[1], out[2], out[3],
          o.stride_h, o.stride_w, o.pad_h, o.pad_w, o.dilation_h, o.dilation_w};
}

bool is_conv(const schema::OperatorT& op) { return op.kind == schema::OpKind::Conv2D; }

TEST(KernelVariant, TheTestVariantIsBuiltAndNeedsMoreThanPortable) {
  EXPECT_TRUE(kernels::variant_built(kernels::Variant::kTesting));
  const auto program = schema::UnPackProgram(read_file(program_path(".mote")).data());
  int convs = 0;
  for (const auto& op : program->operators) {
    if (!is_conv(*op)) continue;
    ++convs;
    const kernels::ConvShape shape = conv_shape(*program, *op);
    EXPECT_STREQ(kernels::built_conv_kernel_variant(shape), "testing");
    EXPECT_GT(kernels::built_conv_scratch_bytes(shape),
              kernels::portable_conv_scratch_bytes(shape));
    // Planning for an extension never picks the test variant (the DSP and Helium extensions plan
    // their own kernels, which ask for the bytes portable does).
    for (auto e : {kernels::Extension::kScalar, kernels::Extension::kDsp, kernels::Extension::kMve}) {
      EXPECT_STREQ(kernels::conv_kernel_variant(shape, e),
                   e == kernels::Extension::kScalar ? "portable" : kernels::to_string(e));
      EXPECT_EQ(kernels::conv_scratch_bytes(shape, e), kernels::portable_conv_scratch_bytes(shape));
    }
  }
  EXPECT_EQ(convs, 3);
}

TEST(KernelVariant, RefusesAPlanForThePortableKernels) {
  const Aligned bytes(read_file(program_path(".mote")));
  LoadDiagnostic diagnostic;
  const Result<Program> loaded = Program::load(bytes.data, bytes.size, &diagnostic);
  ASSERT_EQ(loaded.error(), Error::kScratchTooSmall);
  EXPECT_EQ(diagnostic.where, LoadDiagnostic::Where::kOperator);
  const auto program = schema::UnPackProgram(bytes.data);
  ASSERT_LT(diagnostic.index, program->operators.size());
  // The first convolution with scratch (conv2d_x3: operator 1, after the QUANTIZE).
  uint32_t first = 0;
  while (!is_conv(*program->operators[first])) ++first;
  EXPECT_EQ(diagnostic.index, first);
  EXPECT_STREQ(diagnostic.op_name, "CONV_2D");
  EXPECT_NE(std::string(diagnostic.reason).find("scratch"), std::string::npos) << diagnostic.reason;
}

// Moves every convolution's scratch to a region of the test variant's size past the arena's end
// (scratch lives during its operator's step only, so the convolutions share it).
std::vector<uint8_t> plan_for_test_variant(const std::vector<uint8_t>& portable) {
  const auto program = schema::UnPackProgram(portable.data());
  const uint32_t offset = (program->arena_size + 15u) / 16u * 16u;
  uint32_t largest = 0;
  for (auto& op : program->operators) {
    if (!is_conv(*op)) continue;
    const auto need =
        static_cast<uint32_t>(kernels::testing_variant::conv_scratch_bytes(conv_shape(*program, *op)));
    op->scratch = std::make_unique<schema::Region>(offset, need);
    largest = std::max(largest, need);
  }
  program->arena_size = offset + largest;
  if (program->plan != nullptr) program->plan->scratch_bytes += largest;
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(schema::Program::Pack(builder, program.get()), schema::ProgramIdentifier());
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

TEST(KernelVariant, RunsAPlanForItsOwnKernel) {
  const Aligned bytes(plan_for_test_variant(read_file(program_path(".mote"))));
  LoadDiagnostic diagnostic;
  Result<Program> program = Program::load(bytes.data, bytes.size, &diagnostic);
  ASSERT_TRUE(program.ok()) << to_string(program.error()) << ": operator " << diagnostic.index
                            << " " << diagnostic.reason;
  std::vector<uint8_t> arena_storage(program->arena_size() + 16);
  uint8_t* arena = arena_storage.data() + ((16 - reinterpret_cast<uintptr_t>(arena_storage.data()) % 16) % 16);
  Result<Executor> executor = Executor::create(*program, arena, program->arena_size());
  ASSERT_TRUE(executor.ok()) << to_string(executor.error());
  const std::vector<uint8_t> input = read_file(program_path(".input"));
  ASSERT_EQ(executor->input(0).size, input.size());
  std::memcpy(executor->input(0).data, input.data(), input.size());
  ASSERT_EQ(executor->run(), Error::kOk);
  // The same outputs as the portable kernels on the host runtime, and the variant's own block
  // (filled by testing/conv.cc) in the scratch region: it ran.
  const std::vector<uint8_t> expected = read_file(program_path(".output"));
  const TensorView out = executor->output(0);
  ASSERT_EQ(out.size, expected.size());
  EXPECT_EQ(std::vector<uint8_t>(out.data, out.data + out.size), expected);
  const auto plan = schema::UnPackProgram(bytes.data);
  uint32_t scratch_at = 0;
  for (const auto& op : plan->operators) {
    if (is_conv(*op)) scratch_at = op->scratch->offset();
  }
  EXPECT_EQ(arena[scratch_at], 0x7e);
}

}  // namespace
}  // namespace mote::runtime
