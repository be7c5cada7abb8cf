// A runtime built with the dsp kernels (emulated on the host) given a program planned for a CPU
// without them (cortex-m0plus): where this runtime's kernels fit its plan it runs (the load
// checks make sure), and where a check refuses it the refusal names the program's CPU, this
// runtime's kernels and the fix. The refusal here is forced by a bad arena alignment.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"

namespace mote::runtime {
namespace {

TEST(OtherTarget, RefusalNamesBothSidesAndTheFix) {
  std::ifstream in(std::string(MOTE_VARIANT_TEST_DIR) + "/kws_dscnn_like-cortex-m0plus.mote",
                   std::ios::binary);
  ASSERT_TRUE(in);
  const std::vector<char> file{std::istreambuf_iterator<char>(in), {}};
  // 16-byte aligned copy, as Program::load requires.
  std::vector<uint8_t> storage(2 * file.size() + 64);  // room for the repacked program too
  uint8_t* bytes = storage.data() + ((16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16);
  std::memcpy(bytes, file.data(), file.size());
  LoadDiagnostic diagnostic;
  ASSERT_TRUE(Program::load(bytes, file.size(), &diagnostic).ok()) << diagnostic.reason;
  EXPECT_STREQ(diagnostic.program_cpu, "");

  auto program = schema::UnPackProgram(bytes);
  program->arena_alignment = 3;
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(schema::Program::Pack(builder, program.get()), schema::ProgramIdentifier());
  std::memcpy(bytes, builder.GetBufferPointer(), builder.GetSize());
  const Result<Program> loaded = Program::load(bytes, builder.GetSize(), &diagnostic);
  ASSERT_FALSE(loaded.ok());
  EXPECT_STREQ(diagnostic.program_cpu, "cortex-m0plus");
  EXPECT_STREQ(diagnostic.runtime_kernels, "dsp");
  // The host's build names no CPU (firmware builds do: firmware.<cpu>.refuses_other_cpu).
  EXPECT_STREQ(diagnostic.runtime_cpu, "");
  EXPECT_NE(std::strstr(diagnostic.reason, "compile the model again with --target"), nullptr)
      << diagnostic.reason;
}

}  // namespace
}  // namespace mote::runtime
