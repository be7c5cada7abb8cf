#include "compiler/planner/target.h"

#include <gtest/gtest.h>

namespace mote::planner {
namespace {

using kernels::Extension;

TEST(TargetTest, MapsEveryCortexMToItsExtension) {
  for (const char* cpu : {"M0", "M0+", "m0plus", "M3", "M23", "cortex-m0"}) {
    EXPECT_EQ(extension_for_cpu(cpu), Extension::kScalar) << cpu;
  }
  for (const char* cpu : {"M4", "M7", "M33", "M35P", "Cortex-M4", "m35p"}) {
    EXPECT_EQ(extension_for_cpu(cpu), Extension::kDsp) << cpu;
  }
  for (const char* cpu : {"M55", "M85", "cortex-m55", "CORTEX-M85"}) {
    EXPECT_EQ(extension_for_cpu(cpu), Extension::kMve) << cpu;
  }
}

TEST(TargetTest, RejectsUnknownNames) {
  for (const char* cpu : {"", "M5", "A53", "cortex-", "m55x", "x86"}) {
    EXPECT_EQ(extension_for_cpu(cpu), std::nullopt) << cpu;
  }
}

TEST(TargetTest, NamesExtensions) {
  EXPECT_EQ(extension_name(Extension::kScalar), "scalar");
  EXPECT_EQ(extension_name(Extension::kDsp), "dsp");
  EXPECT_EQ(extension_name(Extension::kMve), "mve");
}

}  // namespace
}  // namespace mote::planner
