#include "compiler/target/target.h"

#include <gtest/gtest.h>

namespace mote::target {
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

TEST(FindCpu, GivesCanonicalNamesAndExtensions) {
  EXPECT_EQ(find_cpu("cortex-m0plus")->extension, Extension::kScalar);
  EXPECT_EQ(find_cpu("Cortex-M0+")->extension, Extension::kScalar);
  EXPECT_EQ(find_cpu("m3")->extension, Extension::kScalar);
  EXPECT_EQ(find_cpu("cortex-m23")->extension, Extension::kScalar);
  EXPECT_EQ(find_cpu("cortex-m4")->extension, Extension::kDsp);
  EXPECT_EQ(find_cpu("cortex-m7")->extension, Extension::kDsp);
  EXPECT_EQ(find_cpu("cortex-m33")->extension, Extension::kDsp);
  EXPECT_EQ(find_cpu("cortex-m35p")->extension, Extension::kDsp);
  EXPECT_EQ(find_cpu("cortex-m55")->extension, Extension::kMve);
  EXPECT_EQ(find_cpu("M85")->extension, Extension::kMve);
  EXPECT_EQ(find_cpu("Cortex-M0+")->name, "cortex-m0plus");
  EXPECT_EQ(find_cpu("M85")->name, "cortex-m85");
  EXPECT_FALSE(find_cpu("cortex-a53").has_value());
  EXPECT_FALSE(find_cpu("").has_value());
}

}  // namespace
}  // namespace mote::target
