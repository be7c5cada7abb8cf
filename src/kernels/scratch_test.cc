// The scratch Mote plans is what its own kernels use: the portable kernels on every extension
// today (scratch.cc), not CMSIS-NN's sizes (peers/cmsis_nn_scratch.h).

#include "mote/kernels/scratch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mote/kernels/cmsis_nn_scratch.h"
#include "mote/kernels/conv.h"

namespace mote::kernels {
namespace {

constexpr Extension kExtensions[] = {Extension::kScalar, Extension::kDsp, Extension::kMve};

ConvShape Conv3x3(int32_t channels) {
  return ConvShape{1, 8, 8, channels, 3, 3, channels, 8, 8, 4, 1, 1, 1, 1, 1, 1};
}

TEST(KernelScratch, PortableConvAsksForTwoInt16Columns) {
  for (Extension e : kExtensions) {
    EXPECT_EQ(conv_scratch_bytes(Conv3x3(3), e), 2u * 27 * 2) << to_string(e);
    ConvShape pointwise{1, 8, 8, 16, 1, 1, 16, 8, 8, 8, 1, 1, 0, 0, 1, 1};
    EXPECT_EQ(conv_scratch_bytes(pointwise, e), 0u) << to_string(e);
    // The dsp kernel asks for the same columns, the mve kernel for four int8 columns: the same bytes.
    EXPECT_STREQ(conv_kernel_variant(Conv3x3(3), e), e == Extension::kScalar ? "portable" : to_string(e));
  }
}

TEST(KernelScratch, OtherKernelsNeedNone) {
  const DepthwiseShape dw{1, 16, 16, 32, 3, 3, 16, 16, 32, 1, 1, 1, 1, 1, 1};
  const TransposeConvShape tc{1, 8, 8, 32, 3, 3, 16, 16, 16, 2, 2, 0, 0};
  for (Extension e : kExtensions) {
    EXPECT_EQ(depthwise_conv_scratch_bytes(dw, e), 0u);
    EXPECT_EQ(fully_connected_scratch_bytes(1000, e), 0u);
    EXPECT_EQ(average_pool_scratch_bytes(32, e), 0u);
    EXPECT_EQ(transpose_conv_scratch_bytes(tc, e).total(), 0u);
  }
  // What CMSIS-NN would reserve for the same depthwise layer on Helium.
  EXPECT_EQ(cmsis_nn::depthwise_conv_scratch_bytes(dw, Extension::kMve), 4464u);
}

// The portable convolution given exactly what is planned takes its im2col path and stays inside.
TEST(KernelScratch, PlannedBytesAreEnoughAndNeverExceeded) {
  const ConvShape s = Conv3x3(3);
  const size_t planned = conv_scratch_bytes(s, Extension::kScalar);
  std::vector<int8_t> input(8 * 8 * 3, 3), filter(4 * 27, 1), out_planned(256), out_none(256);
  const std::vector<int32_t> multipliers(4, 1 << 30), shifts(4, -4);
  ConvParams p{s, 0, 0, -128, 127, multipliers.data(), shifts.data()};
  std::vector<int8_t> scratch(planned + 32, 0x5a);
  conv2d(p, input.data(), filter.data(), nullptr, out_planned.data(), Scratch{scratch.data(), planned});
  conv2d(p, input.data(), filter.data(), nullptr, out_none.data(), Scratch{nullptr, 0});
  EXPECT_EQ(out_planned, out_none);
  for (size_t i = planned; i < scratch.size(); ++i) ASSERT_EQ(scratch[i], 0x5a) << i;
  EXPECT_NE(scratch[0], 0x5a) << "the im2col path did not run";
}

// The host library is built with portable/ alone (no variant folder): it runs the portable
// kernel (mote_kernels_dsp, the host build with dsp/, is tested in dsp/kernels_test.cc).
TEST(KernelVariants, HostBuildRunsPortable) {
  EXPECT_TRUE(variant_built(Variant::kPortable));
  EXPECT_FALSE(variant_built(Variant::kDsp));
  EXPECT_FALSE(variant_built(Variant::kMve));
  EXPECT_FALSE(variant_built(Variant::kTesting));
  EXPECT_STREQ(built_conv_kernel_variant(Conv3x3(3)), "portable");
  EXPECT_EQ(built_conv_scratch_bytes(Conv3x3(3)), portable_conv_scratch_bytes(Conv3x3(3)));
}

TEST(KernelVariants, EachExtensionHasItsFolder) {
  EXPECT_EQ(extension_variant(Extension::kScalar), Variant::kPortable);
  EXPECT_EQ(extension_variant(Extension::kDsp), Variant::kDsp);
  EXPECT_EQ(extension_variant(Extension::kMve), Variant::kMve);
  // The folder names of cmake/mote_libraries.cmake (MOTE_KERNEL_EXTENSION_VARIANTS).
  EXPECT_STREQ(to_string(Variant::kDsp), to_string(Extension::kDsp));
  EXPECT_STREQ(to_string(Variant::kMve), to_string(Extension::kMve));
}

TEST(Extension, Names) {
  EXPECT_EQ(std::string(to_string(Extension::kScalar)), "scalar");
  EXPECT_EQ(std::string(to_string(Extension::kDsp)), "dsp");
  EXPECT_EQ(std::string(to_string(Extension::kMve)), "mve");
}

}  // namespace
}  // namespace mote::kernels
