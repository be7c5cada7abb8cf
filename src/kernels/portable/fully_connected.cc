// int8 FULLY_CONNECTED. sum (x + io)(w + fo) = sum (x + io) w + fo sum (x + io): the weight zero
// point costs one input-row sum per batch instead of an add per multiply. With precomputed kernel
// sums the input offset leaves the inner loop too: sums[o] + sum x w + fo sum x.
// Four outputs share each widened input element.

#include "mote/kernels/fully_connected.h"

#include <stddef.h>
#include <stdint.h>

#include "conv_internal.h"

namespace mote {
namespace kernels {
namespace {

template <bool kOffset>
void fully_connected_rows(const FullyConnectedParams p, const int8_t* input, const int8_t* filter,
                          const int32_t* base, int16_t offset, int32_t row_extra_per_x,
                          int32_t row_extra_const, int8_t* output) {
  const int32_t n = p.input_depth;
  const int32_t od = p.output_depth;
  // Per-tensor quantization reads multiplier/shift index 0 for every output.
  const int32_t zero = 0;
  const internal::Requantizer rq = internal::make_requantizer(
      p.output_multiplier, p.output_shift, p.output_offset, p.act_min, p.act_max);
  auto channel = [&](int32_t o) { return p.per_channel ? o : zero; };
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * n;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * od;
    // Weight zero point: fo * sum_i (x_i + io), the same for every output of this row.
    int32_t row_term = 0;
    if (row_extra_per_x != 0) {
      int32_t sum_x = 0;
      for (int32_t i = 0; i < n; ++i) sum_x += x[i];
      row_term = row_extra_per_x * sum_x + row_extra_const;
    }
    int32_t o = 0;
    for (; o + 4 <= od; o += 4) {
      const int8_t* w = filter + static_cast<ptrdiff_t>(o) * n;
      int32_t a[4];
      for (int32_t k = 0; k < 4; ++k) a[k] = (base ? base[o + k] : 0) + row_term;
      internal::dot_1x4<kOffset>(x, w, w + n, w + 2 * n, w + 3 * n, n, offset, a);
      for (int32_t k = 0; k < 4; ++k) out[o + k] = rq(a[k], channel(o + k));
    }
    for (; o < od; ++o) {
      const int32_t a = (base ? base[o] : 0) + row_term +
                        internal::dot_1x1<kOffset>(x, filter + static_cast<ptrdiff_t>(o) * n, n, offset);
      out[o] = rq(a, channel(o));
    }
  }
}

// With kernel sums the loop is sum x * w. On Arm that is the cheapest form (one multiply-accumulate
// per pair; MVE has an int8 dot product). On x86, gcc vectorises int8 * int8 through 16-bit
// multiplies and widening adds, about twice the instructions of (x + offset) * w, which becomes
// pmaddwd; there the loop keeps that form with an offset of zero the compiler cannot fold away.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
constexpr bool kOffsetFormForSums = true;
inline int16_t opaque_zero() {
  int16_t zero = 0;
  __asm__("" : "+r"(zero));
  return zero;
}
#else
constexpr bool kOffsetFormForSums = false;
inline int16_t opaque_zero() { return 0; }
#endif

}  // namespace

void portable_fully_connected(const FullyConnectedParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output) {
  const int32_t fo = params.filter_offset;
  if (params.kernel_sums != nullptr) {
    // sums[o] + sum x w + fo * sum x.
    fully_connected_rows<kOffsetFormForSums>(params, input, filter, params.kernel_sums, opaque_zero(),
                                             fo, 0, output);
  } else {
    // bias[o] + sum (x + io) w + fo * (sum x + n io).
    fully_connected_rows<true>(params, input, filter, bias, static_cast<int16_t>(params.input_offset),
                               fo, fo * params.input_depth * params.input_offset, output);
  }
}

void fully_connected_kernel_sums(const FullyConnectedParams& params, const int8_t* filter,
                                 const int32_t* bias, int32_t* sums) {
  // In int64, saturated to int32: an extreme bias (or depth) gives a sum beyond int32, which
  // Program::load then refuses as an accumulator that could overflow, instead of wrapping here.
  const int32_t n = params.input_depth;
  const int64_t both = int64_t{n} * params.input_offset * params.filter_offset;
  for (int32_t o = 0; o < params.output_depth; ++o) {
    const int8_t* w = filter + static_cast<ptrdiff_t>(o) * n;
    int64_t sum_w = 0;
    for (int32_t i = 0; i < n; ++i) sum_w += w[i];
    int64_t sum = int64_t{internal::bias_or_zero(bias, o)} + params.input_offset * sum_w + both;
    if (sum > INT32_MAX) sum = INT32_MAX;
    if (sum < INT32_MIN) sum = INT32_MIN;
    sums[o] = static_cast<int32_t>(sum);
  }
}

}  // namespace kernels
}  // namespace mote
