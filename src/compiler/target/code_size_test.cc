#include "compiler/target/code_size.h"

#include <gtest/gtest.h>

namespace mote::target {
namespace {

// The measured table (targets/cortex-m/code_sizes.tsv, checked against the firmware build by
// targets/cortex-m/code-size-table.sh --check): the runtime alone for no operator, more for each
// kind, a unit shared by two kinds counted once, and no figures for a CPU never measured.
TEST(CodeSize, EstimateAddsTheUnitsOfTheProgramsKinds) {
  for (const char* cpu : {"cortex-m4", "cortex-m55"}) {
    const auto none = estimate_code(cpu, {});
    ASSERT_TRUE(none.has_value()) << cpu;
    EXPECT_GT(none->runtime_bytes, 10000u) << cpu;
    EXPECT_EQ(none->kernel_bytes, 0u);
    const auto conv = estimate_code(cpu, {"Conv2D"});
    ASSERT_TRUE(conv.has_value());
    EXPECT_GT(conv->kernel_bytes, 1000u) << cpu;
    EXPECT_EQ(conv->runtime_bytes, none->runtime_bytes);
    const auto pools = estimate_code(cpu, {"AveragePool2D", "MaxPool2D"});
    const auto average = estimate_code(cpu, {"AveragePool2D"});
    ASSERT_TRUE(pools && average);
    EXPECT_EQ(pools->kernel_bytes, average->kernel_bytes) << "one unit, counted once";
    EXPECT_GT(estimate_code(cpu, {"Conv2D", "Softmax"})->kernel_bytes, conv->kernel_bytes);
    EXPECT_EQ(estimate_code(cpu, {"NoSuchKind"})->unmeasured,
              std::vector<std::string>{"NoSuchKind"});
  }
  EXPECT_FALSE(estimate_code("cortex-m0", {"Conv2D"}).has_value());
}

}  // namespace
}  // namespace mote::target
