// TFLM's signal operators (mote/kernels/signal.h). Written from the arithmetic of TFLM's
// signal/src (90b983c) and kissfft v130's fixed-point macros, which TFLM compiles with
// FIXED_POINT 16; the wraps of that code (int16 stores, int32 and uint32 products) are computed
// here in unsigned arithmetic, which gives the same bits without undefined behaviour.

#include "mote/kernels/signal.h"

#include <string.h>

namespace mote {
namespace kernels {
namespace {

// TFLM's MostSignificantBit32 and MostSignificantBit64 as GCC builds them: the bit width minus
// clz(x), and the width for 0.
template <typename U>
int32_t msb(U x) {
  if (x == 0) return static_cast<int32_t>(8 * sizeof(U));
  int32_t n = 0;
  while (x != 0) {
    x >>= 1;
    ++n;
  }
  return n;
}

// A value stored into an int16 (modulo 2^16, as GCC does).
inline int16_t wrap16(int32_t v) { return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint32_t>(v))); }
// An int32 sum or product as the CPU's int32 arithmetic wraps it.
inline int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

// --- kissfft's fixed-point complex arithmetic (FRACBITS 15) ----------------------------------

struct Cpx {
  int16_t r, i;
};

// sround(x): (x + 2^14) >> 15, stored as int16.
inline int16_t round15(int32_t x) { return wrap16(wrap32(int64_t{x} + (1 << 14)) >> 15); }
// a * b as int32 (int16 operands: never overflows).
inline int32_t prod(int32_t a, int32_t b) { return a * b; }

inline Cpx cmul(Cpx a, Cpx b) {
  return {round15(wrap32(int64_t{prod(a.r, b.r)} - prod(a.i, b.i))),
          round15(wrap32(int64_t{prod(a.r, b.i)} + prod(a.i, b.r)))};
}
// c /= div as kissfft's C_FIXDIV: times (32767 / div) in Q15.
inline Cpx fixdiv(Cpx c, int32_t div) {
  const int32_t k = 32767 / div;
  return {round15(prod(c.r, k)), round15(prod(c.i, k))};
}
inline Cpx cadd(Cpx a, Cpx b) { return {wrap16(a.r + b.r), wrap16(a.i + b.i)}; }
inline Cpx csub(Cpx a, Cpx b) { return {wrap16(a.r - b.r), wrap16(a.i - b.i)}; }

// Complex value k of an int16 array of (real, imaginary) pairs.
inline Cpx at(const int16_t* p, int32_t k) { return {p[2 * k], p[2 * k + 1]}; }

// Radix-2 butterflies of one block: m pairs, twiddles `stride` apart.
void butterfly2(Cpx* out, int32_t stride, const int16_t* tw, int32_t m) {
  for (int32_t k = 0; k < m; ++k) {
    Cpx a = fixdiv(out[k], 2);
    Cpx b = fixdiv(out[k + m], 2);
    const Cpx t = cmul(b, at(tw, k * stride));
    out[k + m] = csub(a, t);
    out[k] = cadd(a, t);
  }
}

// Radix-4 butterflies of one block (forward).
void butterfly4(Cpx* out, int32_t stride, const int16_t* tw, int32_t m) {
  for (int32_t k = 0; k < m; ++k) {
    Cpx f0 = fixdiv(out[k], 4);
    const Cpx f1 = fixdiv(out[k + m], 4);
    const Cpx f2 = fixdiv(out[k + 2 * m], 4);
    const Cpx f3 = fixdiv(out[k + 3 * m], 4);
    const Cpx s0 = cmul(f1, at(tw, k * stride));
    const Cpx s1 = cmul(f2, at(tw, 2 * k * stride));
    const Cpx s2 = cmul(f3, at(tw, 3 * k * stride));
    const Cpx s5 = csub(f0, s1);
    f0 = cadd(f0, s1);
    const Cpx s3 = cadd(s0, s2);
    const Cpx s4 = csub(s0, s2);
    out[k + 2 * m] = csub(f0, s3);
    out[k] = cadd(f0, s3);
    out[k + m] = {wrap16(s5.r + s4.i), wrap16(s5.i - s4.r)};
    out[k + 3 * m] = {wrap16(s5.r - s4.i), wrap16(s5.i + s4.r)};
  }
}

// kissfft's factors of a power of two n: 4 while 4 divides n, then a 2. Returns their count.
int32_t factor(int32_t n, int32_t* radix) {
  int32_t count = 0;
  while (n > 1) {
    const int32_t p = n % 4 == 0 ? 4 : 2;
    radix[count++] = p;
    n /= p;
  }
  return count;
}

// The complex FFT of n points (a power of two), kissfft's kf_work unrolled: its recursion
// reads input element sum_s digit_s * stride_s into the output's mixed-radix position, then
// combines blocks from the innermost stage out; blocks of one stage are independent.
void complex_fft(const int16_t* in, Cpx* out, int32_t n, const int16_t* tw) {
  int32_t radix[16];
  const int32_t stages = factor(n, radix);
  for (int32_t o = 0; o < n; ++o) {
    int32_t rest = o, size = n, stride = 1, source = 0;
    for (int32_t s = 0; s < stages; ++s) {
      const int32_t m = size / radix[s];
      source += (rest / m) * stride;
      rest %= m;
      stride *= radix[s];
      size = m;
    }
    out[o] = at(in, source);
  }
  // Stage s combines blocks of radix[s] * m_s points; its twiddle stride is the product of the
  // radices before it (the number of blocks).
  for (int32_t s = stages - 1; s >= 0; --s) {
    int32_t fstride = 1;
    for (int32_t t = 0; t < s; ++t) fstride *= radix[t];
    const int32_t block = n / fstride;
    const int32_t m = block / radix[s];
    for (int32_t b = 0; b < fstride; ++b) {
      if (radix[s] == 4) {
        butterfly4(out + b * block, fstride, tw, m);
      } else {
        butterfly2(out + b * block, fstride, tw, m);
      }
    }
  }
}

// kissfft's HALF_OF on an int sum, stored as int16.
inline int16_t half(int32_t v) { return wrap16(v >> 1); }

// TFLM's Sqrt32 and Sqrt64, one digit-by-digit loop at either width: the integer square root,
// rounded up where the remainder exceeds it, but not past the half width's largest value. Sqrt64
// hands a value below 2^32 to Sqrt32 (whose cap is 0xFFFF), so this does too.
template <typename U>
uint32_t integer_sqrt(U num) {
  constexpr int32_t kBits = static_cast<int32_t>(8 * sizeof(U));
  if constexpr (kBits == 64) {
    if ((num >> 32) == 0) return integer_sqrt(static_cast<uint32_t>(num));
  }
  if (num == 0) return 0;
  U res = 0;
  const int32_t max_bit = (kBits - msb(num)) | 1;
  U bit = U{1} << (kBits - 1 - max_bit);
  int32_t iterations = (kBits - 1 - max_bit) / 2 + 1;
  while (iterations-- > 0) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1) + bit;
    } else {
      res >>= 1;
    }
    bit >>= 2;
  }
  constexpr U kHalfMax = (U{1} << (kBits / 2)) - 1;
  if (num > res && res != kHalfMax) ++res;
  return static_cast<uint32_t>(res);
}

// TFLM's log table: log2(1 + x) - x in 1/65536, at 128 segments of [0, 1) (and two ends).
const uint16_t kLogTable[] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646,
    2797, 2944, 3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460,
    4549, 4633, 4714, 4791, 4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408,
    5444, 5477, 5507, 5533, 5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633,
    5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332, 5291, 5249,
    5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341,
    4264, 4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981,
    2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224,
    1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};

// log2's fraction of x (whose integer part is `log2x`), in 1/65536: linear interpolation of the
// table. x >= 2.
uint32_t log2_fraction(uint32_t x, int32_t log2x) {
  int32_t frac = static_cast<int32_t>(x - (uint32_t{1} << log2x));
  if (log2x < 16) {
    frac = static_cast<int32_t>(static_cast<uint32_t>(frac) << (16 - log2x));
  } else {
    frac >>= log2x - 16;
  }
  const uint32_t segment = static_cast<uint32_t>(frac) >> 9;
  const int32_t c0 = kLogTable[segment];
  const int32_t c1 = kLogTable[segment + 1];
  const int32_t segment_base = static_cast<int32_t>(segment << 9);
  const int32_t rel = wrap32(int64_t{c1 - c0} * (frac - segment_base)) >> 16;
  return static_cast<uint32_t>(frac + c0 + rel);
}

// TFLM's Log32: log_e(x) * out_scale in fixed point, for x >= 2.
uint32_t log32(uint32_t x, uint32_t out_scale) {
  const int32_t integer = msb(x) - 1;
  const uint32_t fraction = log2_fraction(x, integer);
  const uint32_t log2 = (static_cast<uint32_t>(integer) << 16) + fraction;
  const uint32_t loge = static_cast<uint32_t>((uint64_t{45426} * log2 + 32768) >> 16);
  return (out_scale * loge + 32768) >> 16;
}

// TFLM's WideDynamicFunction: the PCAN gain for noise estimate x from its piecewise quadratic
// table (three entries per octave).
int16_t wide_dynamic(uint32_t x, const int16_t* lut) {
  if (x <= 2) return lut[x];
  const int32_t interval = msb(x);
  lut += 4 * interval - 6;
  const int32_t frac = static_cast<int32_t>(
      (interval < 11 ? x << (11 - interval) : x >> (interval - 11)) & 0x3FF);
  int32_t result = (int32_t{lut[2]} * frac) >> 5;
  result = wrap32(int64_t{result} + int64_t{lut[1]} * 32);
  result = wrap32(int64_t{result} * frac);
  result = wrap32(int64_t{result} + (1 << 14)) >> 15;
  result = wrap32(int64_t{result} + lut[0]);
  return wrap16(result);
}

uint32_t pcan_shrink(uint32_t x) {
  // kPcanSnrBits 12, kPcanOutputBits 6.
  if (x < (2u << 12)) return (x * x) >> (2 + 2 * 12 - 6);
  return (x >> (12 - 6)) - (1u << 6);
}

}  // namespace

void signal_window(const int16_t* input, const int16_t* window, int32_t size, int32_t window_size,
                   int32_t shift, int16_t* output) {
  for (int32_t base = 0; base < size; base += window_size) {
    for (int32_t i = 0; i < window_size; ++i) {
      const int32_t raw = (int32_t{input[base + i]} * window[i]) >> shift;
      output[base + i] = static_cast<int16_t>(raw < -32768 ? -32768 : raw > 32767 ? 32767 : raw);
    }
  }
}

int32_t signal_fft_auto_scale(const int16_t* input, int32_t size, int16_t* output) {
  // TFLM's MaxAbs16 keeps the maximum in an int16: -(-32768) wraps back to -32768.
  int16_t max = 0;
  for (int32_t i = 0; i < size; ++i) {
    const int16_t v = input[i];
    if (v > max) {
      max = v;
    } else if (-int32_t{v} > max) {
      max = wrap16(-int32_t{v});
    }
  }
  int32_t bits = 16 - msb(static_cast<uint32_t>(int32_t{max})) - 1;
  if (bits <= 0) bits = 0;
  for (int32_t i = 0; i < size; ++i) output[i] = wrap16(int32_t{input[i]} * (1 << bits));
  return bits;
}

bool rfft_length_ok(int32_t fft_length) {
  return fft_length >= 4 && fft_length <= kMaxRfftLength && (fft_length & (fft_length - 1)) == 0;
}

size_t signal_rfft_scratch_bytes(int32_t fft_length) {
  // The zero-padded input (fft_length int16), then the complex FFT's output (fft_length / 2).
  return static_cast<size_t>(fft_length) * 2 + static_cast<size_t>(fft_length / 2) * 4;
}

size_t signal_rfft_twiddle_count(int32_t fft_length) {
  return static_cast<size_t>(fft_length / 2) * 2 + static_cast<size_t>(fft_length / 4) * 2;
}

void signal_rfft(const RfftParams& p, const int16_t* twiddles, const int16_t* input,
                 int16_t* output, void* scratch) {
  const int32_t n = p.fft_length / 2;  // complex points
  int16_t* padded = static_cast<int16_t*>(scratch);
  Cpx* spectrum = reinterpret_cast<Cpx*>(padded + p.fft_length);
  const int16_t* super = twiddles + 2 * n;
  for (int32_t b = 0; b < p.batches; ++b) {
    memcpy(padded, input + static_cast<size_t>(b) * p.input_length,
           static_cast<size_t>(p.input_length) * sizeof(int16_t));
    memset(padded + p.input_length, 0,
           static_cast<size_t>(p.fft_length - p.input_length) * sizeof(int16_t));
    complex_fft(padded, spectrum, n, twiddles);
    int16_t* out = output + static_cast<size_t>(b) * p.output_stride * 2;
    // kiss_fftr's split of the packed real input's spectrum.
    const Cpx dc = fixdiv(spectrum[0], 2);
    out[0] = wrap16(dc.r + dc.i);
    out[1] = 0;
    out[2 * n] = wrap16(dc.r - dc.i);
    out[2 * n + 1] = 0;
    for (int32_t k = 1; k <= n / 2; ++k) {
      const Cpx fpk = fixdiv(spectrum[k], 2);
      const Cpx fpnk = fixdiv(Cpx{spectrum[n - k].r, wrap16(-int32_t{spectrum[n - k].i})}, 2);
      const Cpx f1k = cadd(fpk, fpnk);
      const Cpx f2k = csub(fpk, fpnk);
      const Cpx t = cmul(f2k, at(super, k - 1));
      out[2 * k] = half(f1k.r + t.r);
      out[2 * k + 1] = half(f1k.i + t.i);
      out[2 * (n - k)] = half(f1k.r - t.r);
      out[2 * (n - k) + 1] = half(t.i - f1k.i);
    }
  }
}

void signal_energy(const int16_t* complex_input, int32_t start, int32_t end, int32_t size,
                   uint32_t* output) {
  for (int32_t i = 0; i < size; ++i) {
    if (i < start || i >= end) {
      output[i] = 0;
      continue;
    }
    const int32_t re = complex_input[2 * i], im = complex_input[2 * i + 1];
    output[i] = static_cast<uint32_t>(re * re) + static_cast<uint32_t>(im * im);
  }
}

bool filter_bank_indices_ok(const FilterBankParams& p, int32_t input_size, int32_t weight_count) {
  if (p.num_channels < 0) return false;
  for (int32_t c = 0; c <= p.num_channels; ++c) {
    const int32_t f = p.frequency_starts[c], w = p.weight_starts[c], n = p.widths[c];
    if (f < 0 || w < 0 || n < 0) return false;
    if (n > 0 && (f + n > input_size || w + n > weight_count)) return false;
  }
  return true;
}

void signal_filter_bank(const FilterBankParams& p, const uint32_t* input, uint64_t* output) {
  uint64_t weighted = 0, unweighted = 0;
  for (int32_t c = 0; c <= p.num_channels; ++c) {
    const int32_t f = p.frequency_starts[c], w = p.weight_starts[c];
    for (int32_t j = 0; j < p.widths[c]; ++j) {
      const uint64_t x = input[f + j];
      weighted += static_cast<uint64_t>(static_cast<int64_t>(p.weights[w + j])) * x;
      unweighted += static_cast<uint64_t>(static_cast<int64_t>(p.unweights[w + j])) * x;
    }
    if (c > 0) output[c - 1] = weighted;
    weighted = unweighted;
    unweighted = 0;
  }
}

void signal_filter_bank_square_root(const uint64_t* input, int32_t count, int32_t shift,
                                    uint32_t* output) {
  if (shift < 0) shift = 0;
  for (int32_t i = 0; i < count; ++i) {
    output[i] = shift >= 32 ? 0 : integer_sqrt(input[i]) >> shift;
  }
}

void signal_spectral_subtraction(const SpectralSubtractionParams& p, const uint32_t* input,
                                 uint32_t* output, uint32_t* noise_estimate) {
  for (int32_t i = 0; i < p.num_channels; ++i) {
    const bool odd = (i & 1) != 0;
    const uint32_t smoothing = odd ? p.alternate_smoothing : p.smoothing;
    const uint32_t one_minus = odd ? p.alternate_one_minus_smoothing : p.one_minus_smoothing;
    const uint32_t signal_up = input[i] << p.smoothing_bits;
    noise_estimate[i] = static_cast<uint32_t>(
        (uint64_t{signal_up} * smoothing + uint64_t{noise_estimate[i]} * one_minus) >>
        p.spectral_subtraction_bits);
    uint32_t estimate_up = noise_estimate[i];
    if (estimate_up > signal_up) {
      estimate_up = signal_up;
      if (p.clamping) noise_estimate[i] = estimate_up;
    }
    const uint32_t floor = static_cast<uint32_t>(
        (uint64_t{input[i]} * p.min_signal_remaining) >> p.spectral_subtraction_bits);
    const uint32_t subtracted = (signal_up - estimate_up) >> p.smoothing_bits;
    output[i] = subtracted > floor ? subtracted : floor;
  }
}

void signal_pcan(const uint32_t* input, const uint32_t* noise_estimate, const int16_t* gain_lut,
                 int32_t snr_shift, int32_t count, uint32_t* output) {
  for (int32_t i = 0; i < count; ++i) {
    // TFLM widens the int16 gain to uint32 (sign-extended, modulo 2^32).
    const uint32_t gain =
        static_cast<uint32_t>(int32_t{wide_dynamic(noise_estimate[i], gain_lut)});
    const uint32_t snr = static_cast<uint32_t>((uint64_t{input[i]} * gain) >> snr_shift);
    output[i] = pcan_shrink(snr);
  }
}

void signal_filter_bank_log(const uint32_t* input, int32_t count, int32_t output_scale,
                            int32_t correction_bits, int16_t* output) {
  for (int32_t i = 0; i < count; ++i) {
    const uint32_t scaled = input[i] << correction_bits;
    if (scaled > 1) {
      const uint32_t v = log32(scaled, static_cast<uint32_t>(output_scale));
      output[i] = static_cast<int16_t>(v < 32767u ? v : 32767u);
    } else {
      output[i] = 0;
    }
  }
}

}  // namespace kernels
}  // namespace mote
