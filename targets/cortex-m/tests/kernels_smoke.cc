// Kernel code built for the target CPU and run under QEMU. The inline fixed-point helpers are
// checked against values worked out by hand from TFLite's reference semantics (FACTS.md §2);
// kernel sources that exist (mote_kernels is linked whole, so all of it must link for the
// target) add their own checks: quantization.cc and scratch.cc (FACTS.md §1 reference sizes for
// this CPU's extension).

#include <stdint.h>

#include "mote/kernels/quantization.h"
#include "mote/kernels/cmsis_nn_scratch.h"
#include "platform/board.h"
#include "platform/console.h"

namespace {

using mote::platform::Line;
namespace k = mote::kernels;

struct Checks {
  int failed = 0;
  void Expect(bool ok, const char* what) {
    Line().Text(ok ? "  ok   " : "  FAIL ").Text(what).End();
    if (!ok) ++failed;
  }
  void ExpectEqual(int64_t got, int64_t want, const char* what) {
    Line line;
    line.Text(got == want ? "  ok   " : "  FAIL ").Text(what).Text(": ").Signed(got);
    if (got != want) line.Text(" (expected ").Signed(want).Text(")");
    line.End();
    if (got != want) ++failed;
  }
};

// volatile inputs so that the target's code computes them, not the compiler.
int32_t Opaque(int32_t v) {
  volatile int32_t x = v;
  return x;
}

void CheckInlineHelpers(Checks& c) {
  c.ExpectEqual(k::saturating_rounding_doubling_high_mul(Opaque(INT32_MIN), Opaque(INT32_MIN)),
                INT32_MAX, "srdhm saturates INT32_MIN^2");
  c.ExpectEqual(k::saturating_rounding_doubling_high_mul(Opaque(1 << 30), Opaque(1 << 30)),
                1 << 29, "srdhm 2^30 * 2^30");
  c.ExpectEqual(k::saturating_rounding_doubling_high_mul(Opaque(-(1 << 30)), Opaque(1 << 30)),
                -(1 << 29), "srdhm -2^30 * 2^30");
  c.ExpectEqual(k::rounding_divide_by_pot(Opaque(5), 1), 3, "rdbp 5/2");
  c.ExpectEqual(k::rounding_divide_by_pot(Opaque(-5), 1), -3, "rdbp -5/2");
  c.ExpectEqual(k::rounding_divide_by_pot(Opaque(-6), 2), -2, "rdbp -6/4");
  c.ExpectEqual(k::rounding_divide_by_pot(Opaque(7), 2), 2, "rdbp 7/4");
  c.ExpectEqual(k::multiply_by_quantized_multiplier(Opaque(100), 1 << 30, 0), 50, "mbqm 100*0.5");
  c.ExpectEqual(k::multiply_by_quantized_multiplier(Opaque(12345), 1 << 30, 1), 12345,
                "mbqm 12345*0.5*2");
  c.ExpectEqual(k::multiply_by_quantized_multiplier(Opaque(-77), 1 << 30, -3), -5,
                "mbqm -77*0.5/8");
}

#if defined(MOTE_KERNEL_SOURCE_QUANTIZATION)
void CheckQuantization(Checks& c) {
  volatile double half = 0.5;
  const k::QuantizedMultiplier a = k::quantize_multiplier(half);
  c.Expect(a.multiplier == (1 << 30) && a.shift == 0, "quantize_multiplier(0.5)");
  const k::QuantizedMultiplier b = k::quantize_multiplier(half / 2);
  c.Expect(b.multiplier == (1 << 30) && b.shift == -1, "quantize_multiplier(0.25)");
  const k::QuantizedMultiplier d = k::quantize_multiplier(half * 1.5);
  c.Expect(d.multiplier == 1610612736 && d.shift == 0, "quantize_multiplier(0.75)");
  const k::ActivationRange relu6 = k::activation_range_int8(k::FusedActivation::kRelu6, 0.1f, -128);
  c.Expect(relu6.min == -128 && relu6.max == -68, "activation_range_int8(RELU6, 0.1, -128)");
  const k::ActivationRange relu = k::activation_range_int8(k::FusedActivation::kRelu, 0.5f, 5);
  c.Expect(relu.min == 5 && relu.max == 127, "activation_range_int8(RELU, 0.5, 5)");
}
#endif

#if defined(MOTE_KERNEL_SOURCE_SCRATCH)
// FACTS.md §1 reference values, for scalar / DSP / MVE.
int64_t ForExtension(int64_t scalar, int64_t dsp, int64_t mve) {
  switch (static_cast<k::Extension>(MOTE_FIRMWARE_EXTENSION)) {
    case k::Extension::kScalar: return scalar;
    case k::Extension::kDsp: return dsp;
    default: return mve;
  }
}

void CheckScratch(Checks& c) {
  const auto extension = static_cast<k::Extension>(MOTE_FIRMWARE_EXTENSION);
  k::ConvShape conv{};
  conv.batches = 1;
  conv.input_h = conv.input_w = 32;
  conv.input_c = conv.filter_c = 3;
  conv.filter_h = conv.filter_w = 3;
  conv.output_h = conv.output_w = 32;
  conv.output_c = 16;
  conv.stride_h = conv.stride_w = 1;
  conv.pad_h = conv.pad_w = 1;
  conv.dilation_h = conv.dilation_w = 1;
  c.ExpectEqual(static_cast<int64_t>(k::cmsis_nn::conv_scratch_bytes(conv, extension)),
                ForExtension(112, 112, 128), "conv 1x32x32x3 3x3x3->16 scratch");

  k::DepthwiseShape depthwise{};
  depthwise.batches = 1;
  depthwise.input_h = depthwise.input_w = 16;
  depthwise.input_c = depthwise.output_c = 32;
  depthwise.filter_h = depthwise.filter_w = 3;
  depthwise.output_h = depthwise.output_w = 16;
  depthwise.stride_h = depthwise.stride_w = 1;
  depthwise.pad_h = depthwise.pad_w = 1;
  depthwise.dilation_h = depthwise.dilation_w = 1;
  c.ExpectEqual(static_cast<int64_t>(k::cmsis_nn::depthwise_conv_scratch_bytes(depthwise, extension)),
                ForExtension(0, 0, 4464), "depthwise 1x16x16x32 3x3 scratch");
  c.ExpectEqual(static_cast<int64_t>(k::cmsis_nn::fully_connected_buffer_bytes(10, extension)),
                ForExtension(0, 0, 40), "fully connected 256->10 CMSIS-NN buffer");
  c.ExpectEqual(static_cast<int64_t>(k::cmsis_nn::average_pool_scratch_bytes(32, extension)),
                ForExtension(0, 128, 0), "average pool 32 channels scratch");
}
#endif

}  // namespace

int main() {
  using namespace mote::platform;
  Line().Text("kernels on ").Text(CpuName()).Text(", sources: ").Text(MOTE_KERNEL_SOURCES).End();
  Checks checks;
  CheckInlineHelpers(checks);
#if defined(MOTE_KERNEL_SOURCE_QUANTIZATION)
  CheckQuantization(checks);
#else
  Print("  skip quantization.cc not built yet\n");
#endif
#if defined(MOTE_KERNEL_SOURCE_SCRATCH)
  CheckScratch(checks);
#else
  Print("  skip scratch.cc not built yet\n");
#endif
  Line().Text("static_ram ").Unsigned(StaticRamBytes()).Text(", stack_peak ").Unsigned(StackPeakBytes()).End();
  Line().Text(checks.failed == 0 ? "kernels: ok" : "kernels: FAILED").End();
  return checks.failed == 0 ? 0 : 1;
}
