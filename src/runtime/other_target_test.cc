// A runtime built with the dsp kernels (emulated on the host) given a program planned for a CPU
// without them (cortex-m0plus, portable kernels): the refusal names the program's CPU, this
// runtime's kernels and the fix, instead of the scratch check that caught it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "mote/runtime/program.h"

namespace mote::runtime {
namespace {

TEST(OtherTarget, RefusalNamesBothSidesAndTheFix) {
  std::ifstream in(std::string(MOTE_VARIANT_TEST_DIR) + "/conv2d_x3-cortex-m0plus.mote",
                   std::ios::binary);
  ASSERT_TRUE(in);
  const std::vector<char> file{std::istreambuf_iterator<char>(in), {}};
  // 16-byte aligned copy, as Program::load requires.
  std::vector<uint8_t> storage(file.size() + 16);
  uint8_t* bytes = storage.data() + ((16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16);
  std::memcpy(bytes, file.data(), file.size());
  LoadDiagnostic diagnostic;
  const Result<Program> loaded = Program::load(bytes, file.size(), &diagnostic);
  ASSERT_FALSE(loaded.ok());
  EXPECT_STREQ(diagnostic.program_cpu, "cortex-m0plus");
  EXPECT_STREQ(diagnostic.runtime_kernels, "dsp");
  EXPECT_NE(std::strstr(diagnostic.reason, "compile the model again with --target"), nullptr)
      << diagnostic.reason;
}

}  // namespace
}  // namespace mote::runtime
