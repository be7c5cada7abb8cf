// TFLM's signal kernels on cases worked out by hand, and the RFFT against a DFT in double.
#include "mote/kernels/signal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace mote::kernels {
namespace {

TEST(SignalWindow, MultipliesShiftsAndSaturates) {
  const std::vector<int16_t> x = {1000, -1000, 32767, -32768, 8, 8};
  const std::vector<int16_t> w = {4096, 2048, 8192};  // 1, 0.5, 2 in 12 bits
  std::vector<int16_t> y(6);
  signal_window(x.data(), w.data(), 6, 3, 12, y.data());
  // The window repeats every 3 samples; 32767 * 2 saturates, -32768 * 1 does not.
  EXPECT_EQ(y, (std::vector<int16_t>{1000, -500, 32767, -32768, 4, 16}));
}

TEST(SignalFftAutoScale, BringsTheLargestToBit14) {
  std::vector<int16_t> y(3);
  EXPECT_EQ(signal_fft_auto_scale(std::vector<int16_t>{3, -100, 50}.data(), 3, y.data()), 8);
  EXPECT_EQ(y, (std::vector<int16_t>{768, -25600, 12800}));
  // All zeros, and a -32768 that is the largest when it comes, leave the input as it is (TFLM's
  // MaxAbs16 keeps it as -32768, whose MostSignificantBit32 is 32); one that comes first is
  // replaced by the next larger value.
  EXPECT_EQ(signal_fft_auto_scale(std::vector<int16_t>{0, 0}.data(), 2, y.data()), 0);
  EXPECT_EQ(signal_fft_auto_scale(std::vector<int16_t>{1, -32768}.data(), 2, y.data()), 0);
  EXPECT_EQ(y[1], -32768);
  EXPECT_EQ(signal_fft_auto_scale(std::vector<int16_t>{-32768, 1}.data(), 2, y.data()), 14);
}

// kissfft's twiddles for fft_length (the compiler's, written here again in double).
std::vector<int16_t> twiddles(int32_t fft_length) {
  const int32_t n = fft_length / 2;
  std::vector<int16_t> t;
  auto add = [&](double phase) {
    t.push_back(static_cast<int16_t>(std::floor(0.5 + 32767 * std::cos(phase))));
    t.push_back(static_cast<int16_t>(std::floor(0.5 + 32767 * std::sin(phase))));
  };
  const double pi = 3.141592653589793238462643383279502884;
  for (int32_t i = 0; i < n; ++i) add(-2 * pi * i / n);
  for (int32_t i = 0; i < n / 2; ++i) add(-pi * ((double)(i + 1) / n + .5));
  EXPECT_EQ(t.size(), signal_rfft_twiddle_count(fft_length));
  return t;
}

std::vector<int16_t> rfft(const std::vector<int16_t>& x, int32_t fft_length) {
  RfftParams p{fft_length, static_cast<int32_t>(x.size()), 1, fft_length / 2 + 1};
  std::vector<int16_t> y(static_cast<size_t>(fft_length) + 2, 0x5A5A);
  std::vector<uint32_t> scratch(signal_rfft_scratch_bytes(fft_length) / 4 + 1);
  const std::vector<int16_t> tw = twiddles(fft_length);
  signal_rfft(p, tw.data(), x.data(), y.data(), scratch.data());
  return y;
}

TEST(SignalRfft, ImpulseIsFlat) {
  // X[k] = A for every k; kissfft's fixed point scales the spectrum by 1 / fft_length.
  for (int32_t n : {4, 8, 16, 32, 512}) {
    SCOPED_TRACE(n);
    std::vector<int16_t> x(static_cast<size_t>(n), 0);
    x[0] = 16384;
    const std::vector<int16_t> y = rfft(x, n);
    for (int32_t k = 0; k <= n / 2; ++k) {
      EXPECT_NEAR(y[2 * k], 16384 / n, 2) << k;
      EXPECT_NEAR(y[2 * k + 1], 0, 2) << k;
    }
  }
}

TEST(SignalRfft, CosineLandsInItsBin) {
  const int32_t n = 64, bin = 5;
  std::vector<int16_t> x(n);
  for (int32_t t = 0; t < n; ++t) {
    x[t] = static_cast<int16_t>(std::lround(16000 * std::cos(2 * M_PI * bin * t / n)));
  }
  const std::vector<int16_t> y = rfft(x, n);
  for (int32_t k = 0; k <= n / 2; ++k) {
    EXPECT_NEAR(y[2 * k], k == bin ? 8000 : 0, 4) << k;
    EXPECT_NEAR(y[2 * k + 1], 0, 4) << k;
  }
}

TEST(SignalRfft, ZeroPadsRowsAndMatchesADft) {
  // 480 samples zero-padded to 512 (micro_speech's shape), against a DFT in double / 512.
  const int32_t n = 512, length = 480;
  std::vector<int16_t> x(length);
  uint32_t s = 7;
  for (int16_t& v : x) {
    s = s * 1103515245u + 12345u;
    v = static_cast<int16_t>(static_cast<int32_t>(s >> 16) % 8192 - 4096);
  }
  const std::vector<int16_t> y = rfft(x, n);
  for (int32_t k = 0; k <= n / 2; ++k) {
    double re = 0, im = 0;
    for (int32_t t = 0; t < length; ++t) {
      re += x[t] * std::cos(2 * M_PI * k * t / n);
      im -= x[t] * std::sin(2 * M_PI * k * t / n);
    }
    EXPECT_NEAR(y[2 * k], re / n, 6) << k;
    EXPECT_NEAR(y[2 * k + 1], im / n, 6) << k;
  }
}

TEST(SignalRfft, LengthsAndSizes) {
  EXPECT_TRUE(rfft_length_ok(4));
  EXPECT_TRUE(rfft_length_ok(512));
  EXPECT_TRUE(rfft_length_ok(4096));
  EXPECT_FALSE(rfft_length_ok(2));
  EXPECT_FALSE(rfft_length_ok(480));
  EXPECT_FALSE(rfft_length_ok(8192));
  EXPECT_FALSE(rfft_length_ok(-512));
  EXPECT_EQ(signal_rfft_scratch_bytes(512), 512u * 2 + 256u * 4);
}

TEST(SignalEnergy, SquaresInTheRangeAndZeroesTheRest) {
  const std::vector<int16_t> x = {3, 4, -5, 12, -32768, -32768, 1, 1};
  std::vector<uint32_t> y(4, 77);
  signal_energy(x.data(), 1, 3, 4, y.data());
  // TFLM's int32 sum of two 2^30 wraps to 2^31: the same bits as a uint32.
  EXPECT_EQ(y, (std::vector<uint32_t>{0, 169, 2147483648u, 0}));
}

TEST(SignalFilterBank, AccumulatesWeightedAndUnweightedNeighbours) {
  // Two channels over bins 0..5: the tables have num_channels + 1 entries (channel 0 feeds only
  // the first output's unweighted half).
  const std::vector<uint32_t> x = {1, 2, 3, 4, 5, 6};
  const std::vector<int16_t> weights = {10, 20, 30, 40, 50};
  const std::vector<int16_t> unweights = {1, 2, 3, 4, 5};
  const std::vector<int16_t> freq = {0, 1, 4}, start = {0, 1, 3}, width = {1, 2, 2};
  FilterBankParams p{2, weights.data(), unweights.data(), freq.data(), start.data(), width.data()};
  ASSERT_TRUE(filter_bank_indices_ok(p, 6, 5));
  std::vector<uint64_t> y(2);
  signal_filter_bank(p, x.data(), y.data());
  // Channel 1: weighted 20*2 + 30*3 = 130, plus channel 0's unweighted 1*1 = 1.
  // Channel 2: weighted 40*5 + 50*6 = 500, plus channel 1's unweighted 2*2 + 3*3 = 13.
  EXPECT_EQ(y, (std::vector<uint64_t>{131, 513}));
  // A negative weight widens as TFLM's int16 * uint64: modulo 2^64.
  const std::vector<int16_t> negative = {-1, 0, 0, 0, 0};
  p.weights = negative.data();
  signal_filter_bank(p, x.data(), y.data());
  EXPECT_EQ(y[0], 1u);  // channel 1 starts from channel 0's unweighted 1
  // Tables that read outside the input or the weights are refused.
  const std::vector<int16_t> past = {0, 1, 5};
  p.frequency_starts = past.data();
  EXPECT_FALSE(filter_bank_indices_ok(p, 6, 5));
  const std::vector<int16_t> below = {0, -1, 4};
  p.frequency_starts = below.data();
  EXPECT_FALSE(filter_bank_indices_ok(p, 6, 5));
}

TEST(SignalFilterBankSquareRoot, RoundsAndShifts) {
  const std::vector<uint64_t> x = {0, 16, 20, 21, uint64_t{1} << 40, ~uint64_t{0}};
  std::vector<uint32_t> y(6);
  signal_filter_bank_square_root(x.data(), 6, 0, y.data());
  // sqrt(21) = 4 remainder 5 > 4: rounded up; 2^64 - 1 stays below 2^32.
  EXPECT_EQ(y, (std::vector<uint32_t>{0, 4, 4, 5, 1u << 20, 0xFFFFFFFFu}));
  signal_filter_bank_square_root(x.data(), 6, 2, y.data());
  EXPECT_EQ(y[4], 1u << 18);
  signal_filter_bank_square_root(x.data(), 6, 40, y.data());  // TFLM: undefined; here 0
  EXPECT_EQ(y[4], 0u);
}

TEST(SignalSpectralSubtraction, CarriesTheNoiseEstimate) {
  SpectralSubtractionParams p{};
  p.num_channels = 2;
  p.smoothing = p.alternate_smoothing = 8192;  // 0.5 in 14 bits
  p.one_minus_smoothing = p.alternate_one_minus_smoothing = 8192;
  p.min_signal_remaining = 1638;  // 0.1
  p.smoothing_bits = 10;
  p.spectral_subtraction_bits = 14;
  p.clamping = false;
  std::vector<uint32_t> noise = {0, 0}, y(2);
  const std::vector<uint32_t> x = {1000, 10};
  signal_spectral_subtraction(p, x.data(), y.data(), noise.data());
  // Noise: half the signal (in 10 more bits); output: the other half, above 10 %.
  EXPECT_EQ(noise, (std::vector<uint32_t>{512000, 5120}));
  EXPECT_EQ(y, (std::vector<uint32_t>{500, 5}));
  signal_spectral_subtraction(p, x.data(), y.data(), noise.data());
  EXPECT_EQ(noise, (std::vector<uint32_t>{768000, 7680}));
  EXPECT_EQ(y, (std::vector<uint32_t>{250, 2}));
  // The floor: min_signal_remaining of the input.
  for (int k = 0; k < 20; ++k) signal_spectral_subtraction(p, x.data(), y.data(), noise.data());
  EXPECT_EQ(y[0], (1000u * 1638) >> 14);
}

TEST(SignalPcan, ShrinksTheGainedSignal) {
  // A flat gain table: each octave's three entries start at 4 * octave - 6 (2 modulo 4), its
  // constant term 2048 and no slope; entries 0..2 are the gains of 0, 1 and 2.
  std::vector<int16_t> lut(kPcanLutSize, 0);
  for (int32_t i = 2; i < kPcanLutSize; i += 4) lut[i] = 2048;
  lut[1] = 2048;
  const std::vector<uint32_t> x = {64, 1000}, noise = {1, 1000};
  std::vector<uint32_t> y(2);
  signal_pcan(x.data(), noise.data(), lut.data(), 6, 2, y.data());
  // snr = x * 2048 >> 6 = 32 x: 2048 (< 8192) shrinks to 2048^2 >> 20 = 4; 32000 to
  // (32000 >> 6) - 64 = 436.
  EXPECT_EQ(y, (std::vector<uint32_t>{4, 436}));
}

TEST(SignalFilterBankLog, LogOfKnownValues) {
  const std::vector<uint32_t> x = {0, 1, 2, 65536, 0xFFFFFFFFu};
  std::vector<int16_t> y(5);
  signal_filter_bank_log(x.data(), 5, 64, 0, y.data());
  // ln(65536) * 64 = 709.78: TFLM's fixed point gives 710; ln(2) * 64 = 44.4.
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(y[2], 44);
  EXPECT_EQ(y[3], 710);
  EXPECT_NEAR(y[4], std::log(4294967295.0) * 64, 2);
  // The output saturates at 32767; correction bits shift first (1 << 16 as 65536).
  signal_filter_bank_log(x.data(), 5, 4096, 0, y.data());
  EXPECT_EQ(y[3], 32767);
  signal_filter_bank_log(std::vector<uint32_t>{1}.data(), 1, 64, 16, y.data());
  EXPECT_EQ(y[0], 710);
}

}  // namespace
}  // namespace mote::kernels
