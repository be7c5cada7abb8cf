// Program::load as an image built with MOTE_VERIFY crc compiles it (program_load.cc with
// MOTE_VERIFY_CRC and a selection header that mote_program_ops wrote from conv2d_x3.mote):
// exactly that program loads and runs; any other bytes, a well-formed program among them, are
// refused by name, as are null and misaligned ones. Its constants are not covered (the program
// has no --checksum), as the full check does not read them either. Registered by targets/cortex-m/CMakeLists.txt,
// beside mote_program_ops.

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"
#include "runtime/testing/aligned_bytes.h"
#include "runtime/ops/registry.h"
#include "runtime/stages.h"

namespace mote::runtime {
namespace {

using testing::read_file;

std::string path_of(const char* name) { return std::string(MOTE_CRC_TEST_DIR) + "/" + name; }

using Aligned = testing::AlignedBytes;

constexpr char kNotBuiltWith[] = "not one of the programs this image was built with";

void expect_refused(const uint8_t* data, size_t size, Error error, const char* reason) {
  LoadDiagnostic diagnostic;
  const Result<Program> program = Program::load(data, size, &diagnostic);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.error(), error);
  EXPECT_EQ(std::strncmp(diagnostic.reason, reason, std::strlen(reason)), 0) << diagnostic.reason;
}

TEST(CrcLoad, LoadsAndRunsTheProgramItWasBuiltWith) {
  const Aligned bytes(read_file(path_of("conv2d_x3.mote")));
  LoadDiagnostic diagnostic;
  Result<Program> program = Program::load(bytes.data, bytes.size, &diagnostic);
  ASSERT_TRUE(program.ok()) << diagnostic.reason;
  std::vector<uint8_t> arena_storage(program->arena_size() + 16);
  uint8_t* arena = arena_storage.data() +
                   ((16 - reinterpret_cast<uintptr_t>(arena_storage.data()) % 16) % 16);
  Result<Executor> executor = Executor::create(*program, arena, program->arena_size());
  ASSERT_TRUE(executor.ok()) << to_string(executor.error());
  const std::vector<uint8_t> input = read_file(path_of("conv2d_x3.input"));
  ASSERT_EQ(executor->input(0).size, input.size());
  std::memcpy(executor->input(0).data, input.data(), input.size());
  ASSERT_EQ(executor->run(), Error::kOk);
  const std::vector<uint8_t> expected = read_file(path_of("conv2d_x3.output"));
  const TensorView out = executor->output(0);
  EXPECT_EQ(std::vector<uint8_t>(out.data, out.data + out.size), expected);
}

// Where the program's constants lie: [begin, end) of its bytes.
std::pair<size_t, size_t> constants_span(const std::vector<uint8_t>& program) {
  const Aligned bytes(program);
  const auto* constants = schema::GetProgram(bytes.data)->constants();
  const auto begin = static_cast<size_t>(constants->data() - bytes.data);
  return {begin, begin + constants->size()};
}

// The image's table holds the operators' run-time side alone: no kind's load checks, no stage.
TEST(CrcLoad, HoldsNoLoadCheck) {
  const internal::OpEntry& conv = *internal::op_entry(schema::OpKind::Conv2D);
  EXPECT_TRUE(conv.built_in);
  EXPECT_EQ(conv.op, nullptr);
  ASSERT_NE(conv.forms, nullptr);
  EXPECT_NE(conv.forms->plain, nullptr);
  // A kind without separate forms holds its plain form itself.
  const internal::OpEntry& dequantize = *internal::op_entry(schema::OpKind::Dequantize);
  EXPECT_TRUE(dequantize.built_in);
  EXPECT_EQ(dequantize.op, nullptr);
  EXPECT_NE(dequantize.plain, nullptr);
  EXPECT_EQ(internal::built_stages(), nullptr);
}

TEST(CrcLoad, RefusesEveryOtherProgram) {
  const std::vector<uint8_t> original = read_file(path_of("conv2d_x3.mote"));
  const auto [begin, end] = constants_span(original);
  ASSERT_GT(begin, 4u);
  ASSERT_LT(end, original.size());
  // One byte changed outside the constants: the file identifier, a byte on each side of them,
  // the last byte.
  for (const size_t at : {size_t{4}, begin - 1, end, original.size() - 1}) {
    std::vector<uint8_t> changed = original;
    changed[at] ^= 0x01;
    const Aligned bytes(changed);
    expect_refused(bytes.data, bytes.size, Error::kInvalidProgram, kNotBuiltWith);
  }
  // A shorter copy, and a well-formed program of another model.
  const Aligned whole(original);
  expect_refused(whole.data, whole.size - 16, Error::kInvalidProgram, kNotBuiltWith);
  const Aligned other(read_file(path_of("kws_dscnn_like-cortex-m0plus.mote")));
  expect_refused(other.data, other.size, Error::kInvalidProgram, kNotBuiltWith);
  // What every load refuses before looking at the bytes.
  expect_refused(nullptr, whole.size, Error::kInvalidArgument, "null program");
  expect_refused(whole.data + 1, whole.size, Error::kProgramMisaligned, "program bytes not");
}

// A weight changed loads, as with the full check: only a program compiled with --checksum has its
// constants covered (the firmware's corrupt.crc_sweep runs one).
TEST(CrcLoad, LeavesTheConstantsToTheirOwnChecksum) {
  std::vector<uint8_t> changed = read_file(path_of("conv2d_x3.mote"));
  const auto [begin, end] = constants_span(changed);
  changed[begin] ^= 0x01;
  changed[end - 1] ^= 0x01;
  const Aligned bytes(changed);
  LoadDiagnostic diagnostic;
  EXPECT_TRUE(Program::load(bytes.data, bytes.size, &diagnostic).ok()) << diagnostic.reason;
}

}  // namespace
}  // namespace mote::runtime
