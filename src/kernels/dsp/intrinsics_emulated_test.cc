// The host emulation of the DSP instructions against values worked out by hand from the Arm ARM
// pseudocode, at the edges the kernels reach (sign bits of every byte and lane, wrap-around).
#include "dsp/intrinsics_emulated.h"

#include <gtest/gtest.h>

namespace mote::kernels::dsp::emulated {
namespace {

TEST(DspEmulation, Sxtb16TakesBytesZeroAndTwo) {
  EXPECT_EQ(sxtb16(0x00000000u), 0x00000000u);
  EXPECT_EQ(sxtb16(0x7f7f7f7fu), 0x007f007fu);
  EXPECT_EQ(sxtb16(0x80808080u), 0xff80ff80u);
  EXPECT_EQ(sxtb16(0x12ff3401u), 0xffff0001u);  // bytes 1 and 3 ignored
  EXPECT_EQ(sxtb16(0xffffffffu), 0xffffffffu);
  EXPECT_EQ(sxtb16_ror8(0x12ff3401u), 0x00120034u);
  EXPECT_EQ(sxtb16_ror8(0x80017f00u), 0xff80007fu);
}

TEST(DspEmulation, Sxtab16AddsPerLaneModulo16Bits) {
  EXPECT_EQ(sxtab16(0x00800080u, 0x00800080u), 0x00000000u);  // -128 + 128
  EXPECT_EQ(sxtab16(0x007f007fu, 0x7f7f7f7fu), 0x00fe00feu);  // 127 + 127 = 254
  EXPECT_EQ(sxtab16(0x7fff7fffu, 0x00010001u), 0x80008000u);  // lanes wrap, no carry across
  EXPECT_EQ(sxtab16(0x0000ffffu, 0x00000001u), 0x00000000u);  // the low lane's carry is dropped
  EXPECT_EQ(sxtab16_ror8(0x00010002u, 0x80ff0000u), 0xff810002u);  // bytes 1, 3: 0, -128
}

TEST(DspEmulation, SmladSumsBothProductsAndWraps) {
  EXPECT_EQ(smlad(lanes(3, -4), lanes(5, 6), 10), 10 + 15 - 24);
  EXPECT_EQ(smlad(lanes(-32768, -32768), lanes(-32768, -32768), 0), INT32_MIN);  // 2^31 wraps
  EXPECT_EQ(smlad(lanes(-32768, -32768), lanes(-32768, -32768), -1), INT32_MAX);
  EXPECT_EQ(smlad(lanes(1, 0), lanes(1, 0), INT32_MAX), INT32_MIN);
  EXPECT_EQ(smlad(lanes(255, -255), lanes(-128, 127), 0), 255 * -128 + -255 * 127);
}

TEST(DspEmulation, SmlabbAndSmlattPickOneLane) {
  const uint32_t x = lanes(-7, 300), y = lanes(9, -2);
  EXPECT_EQ(smlabb(x, y, 1), 1 - 63);
  EXPECT_EQ(smlatt(x, y, 1), 1 - 600);
  EXPECT_EQ(smlabb(lanes(-32768, 0), lanes(-32768, 0), INT32_MAX), -1073741825);
  EXPECT_EQ(smlatt(lanes(0, 1), lanes(0, 1), INT32_MAX), INT32_MIN);
}

TEST(DspEmulation, SsatClampsToSignedRange) {
  EXPECT_EQ(ssat<8>(127), 127);
  EXPECT_EQ(ssat<8>(128), 127);
  EXPECT_EQ(ssat<8>(-128), -128);
  EXPECT_EQ(ssat<8>(-129), -128);
  EXPECT_EQ(ssat<8>(INT32_MIN), -128);
  EXPECT_EQ(ssat<16>(40000), 32767);
  EXPECT_EQ(ssat<1>(5), 0);
  EXPECT_EQ(ssat<1>(-5), -1);
  EXPECT_EQ(ssat<32>(INT32_MIN), INT32_MIN);
}

TEST(DspEmulation, Ssub8SelTakesSignedBytewiseMaximumAndMinimum) {
  // Bytes (low first): 5 / -3, -128 / 127, 127 / -128, -1 / -1.
  const uint32_t a = 0xff7f8005u, b = 0xff807ffdu;
  EXPECT_EQ(max_s8x4(a, b), 0xff7f7f05u);
  EXPECT_EQ(min_s8x4(a, b), 0xff8080fdu);
  EXPECT_EQ(max_s8x4(0x80808080u, 0x00000000u), 0x00000000u);
  EXPECT_EQ(min_s8x4(0x80808080u, 0x7f7f7f7fu), 0x80808080u);
}

}  // namespace
}  // namespace mote::kernels::dsp::emulated
