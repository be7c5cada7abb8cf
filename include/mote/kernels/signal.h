#pragma once
// TFLM's signal operators (tensorflow/lite/micro's signal/ library, the audio front end of
// micro_speech), bit exact with TFLM's kernels as GCC compiles them: every wrap of TFLM's int16,
// int32 and uint32 arithmetic is computed here modulo 2^n (so never undefined), every shift is
// within its type (the loader checks the parameters that set them; a shift that comes from run
// time data is clamped as written below). Plain integers, no quantization.
// Embeddable C++17: no heap, no exceptions, no float.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

// SignalWindow: output[i] = saturate_int16((input[i] * window[i % window_size]) >> shift), over
// `size` elements (a multiple of window_size). shift in [0, 31].
void signal_window(const int16_t* input, const int16_t* window, int32_t size, int32_t window_size,
                   int32_t shift, int16_t* output);

// SignalFftAutoScale: the left shift that brings the largest magnitude to bit 14 (0 when the
// input is all zeros or holds -32768, as TFLM's MaxAbs16 and MostSignificantBit32 give), and the
// input shifted by it (wrapped to int16). Returns the shift.
int32_t signal_fft_auto_scale(const int16_t* input, int32_t size, int16_t* output);

// SignalRfft (int16): kissfft's fixed-point real FFT as TFLM configures it (a complex FFT of
// fft_length / 2 points in radix-4 and radix-2 stages, each stage scaling by 1/radix with
// rounding, then the real-input split), for fft_length a power of two in [4, 4096]. Each of the
// `batches` rows of `input_length` samples (<= fft_length) is zero-padded to fft_length and
// transformed into fft_length / 2 + 1 complex values (real, imaginary) at output_stride complex
// values apart.
// `twiddles`: the constants signal_rfft_twiddles writes (signal_rfft_twiddle_count int16 values).
// `scratch`: signal_rfft_scratch_bytes(fft_length) bytes, 4-byte aligned.
struct RfftParams {
  int32_t fft_length;
  int32_t input_length;
  int32_t batches;
  int32_t output_stride;  // complex values between two rows of the output
};
inline constexpr int32_t kMaxRfftLength = 4096;
bool rfft_length_ok(int32_t fft_length);
size_t signal_rfft_scratch_bytes(int32_t fft_length);
// The twiddle table's int16 values: fft_length / 2 complex twiddles of the complex FFT, then
// fft_length / 4 of the real split (two int16 each).
size_t signal_rfft_twiddle_count(int32_t fft_length);
void signal_rfft(const RfftParams& p, const int16_t* twiddles, const int16_t* input,
                 int16_t* output, void* scratch);

// SignalEnergy: output[i] = re^2 + im^2 (uint32, as TFLM's int32 sum wraps) of the complex
// input[i] for i in [start, end); the other elements of the output are zeroed (TFLM leaves them
// as the arena held them; the model never reads them).
void signal_energy(const int16_t* complex_input, int32_t start, int32_t end, int32_t size,
                   uint32_t* output);

// SignalFilterBank: num_channels + 1 running sums, channel c over width[c] bins from
// frequency_start[c] (weights and unweights from weight_start[c]); output[c - 1] for c >= 1 is
// channel c's weighted sum plus channel c - 1's unweighted one (uint64, int16 weights widened as
// TFLM does: sign-extended, modulo 2^64). Every index is in range (the loader checks it).
struct FilterBankParams {
  int32_t num_channels;
  const int16_t* weights;
  const int16_t* unweights;
  const int16_t* frequency_starts;  // num_channels + 1 each
  const int16_t* weight_starts;
  const int16_t* widths;
};
void signal_filter_bank(const FilterBankParams& p, const uint32_t* input, uint64_t* output);
// Whether the channel tables read only inside input[input_size] and weights[weight_count]
// (non-negative starts and widths, sums in range), for the compiler and the loader.
bool filter_bank_indices_ok(const FilterBankParams& p, int32_t input_size, int32_t weight_count);

// SignalFilterBankSquareRoot: output[i] = isqrt_rounded(input[i]) >> shift, TFLM's Sqrt64; a
// shift of 32 or more gives 0 and a negative one is taken as 0 (TFLM: undefined).
void signal_filter_bank_square_root(const uint64_t* input, int32_t count, int32_t shift,
                                    uint32_t* output);

// SignalFilterBankSpectralSubtraction: updates the noise estimate (the operator's state) and
// writes the signal above it, never below min_signal_remaining of the input.
struct SpectralSubtractionParams {
  int32_t num_channels;
  uint32_t smoothing, one_minus_smoothing;                      // even channels
  uint32_t alternate_smoothing, alternate_one_minus_smoothing;  // odd channels
  uint32_t min_signal_remaining;
  int32_t smoothing_bits;             // [0, 31]
  int32_t spectral_subtraction_bits;  // [0, 63]
  bool clamping;
};
void signal_spectral_subtraction(const SpectralSubtractionParams& p, const uint32_t* input,
                                 uint32_t* output, uint32_t* noise_estimate);

// SignalPCAN: per-channel automatic gain control, TFLM's ApplyPcanAutoGainControlFixed.
// gain_lut holds at least kPcanLutSize entries; snr_shift in [0, 63].
inline constexpr int32_t kPcanLutSize = 125;
void signal_pcan(const uint32_t* input, const uint32_t* noise_estimate, const int16_t* gain_lut,
                 int32_t snr_shift, int32_t count, uint32_t* output);

// SignalFilterBankLog: output[i] = min(log_e(input[i] << correction_bits) * output_scale, 32767)
// in TFLM's fixed point (0 where the shifted input is 0 or 1). correction_bits in [0, 31].
void signal_filter_bank_log(const uint32_t* input, int32_t count, int32_t output_scale,
                            int32_t correction_bits, int16_t* output);

}  // namespace kernels
}  // namespace mote
