// FULLY_CONNECTED's kernel variants (as conv.cc for CONV_2D). The shape the table looks at is
// the output depth, all that the scratch sizes have ever depended on.
#include "mote/kernels/fully_connected.h"

#include "dsp/kernels.h"
#include "mve/kernels.h"
#include "mote/kernels/scratch.h"
#include "variant_table.h"

namespace mote {
namespace kernels {
namespace {

using FullyConnectedKernel = void (*)(const FullyConnectedParams&, const int8_t*, const int8_t*,
                                      const int32_t*, int8_t*);
using FullyConnectedVariant = internal::KernelVariant<int32_t>;

// The portable kernel needs no scratch.
size_t portable_fully_connected_scratch_bytes(const int32_t&) { return 0; }

constexpr FullyConnectedVariant kFullyConnectedVariants[] = {
    {Variant::kMve, nullptr, &mve::fully_connected_scratch_bytes, MOTE_MVE_BUILT, nullptr},
    {Variant::kDsp, nullptr, &dsp::fully_connected_scratch_bytes, MOTE_DSP_BUILT, nullptr},
    {Variant::kPortable, nullptr, &portable_fully_connected_scratch_bytes, true, nullptr},
};
constexpr auto kFullyConnectedChoices = internal::choices_of(kFullyConnectedVariants);
constexpr FullyConnectedKernel kFullyConnectedKernels[] = {
    MOTE_MVE_KERNEL(mve::fully_connected), MOTE_DSP_KERNEL(dsp::fully_connected),
    &portable_fully_connected};
static_assert(internal::kernels_match(kFullyConnectedVariants, kFullyConnectedKernels));
using FullyConnectedExtensionKernel = bool (*)(const FullyConnectedParams&, const int8_t*,
                                               const int8_t*, const int32_t*, int8_t*);
constexpr FullyConnectedExtensionKernel kFullyConnectedExtensionKernels[] = {
#if defined(MOTE_KERNELS_WITH_MVE)
    // The mve kernel has no fallback: it takes every shape.
    [](const FullyConnectedParams& p, const int8_t* x, const int8_t* w, const int32_t* b,
       int8_t* y) {
      mve::fully_connected(p, x, w, b, y);
      return true;
    },
#else
    nullptr,
#endif
    MOTE_DSP_KERNEL(dsp::fully_connected_no_fallback), nullptr};
static_assert(internal::extension_kernels_match(kFullyConnectedVariants,
                                                kFullyConnectedExtensionKernels));

// The 16x8 and int4 forms: every variant takes every shape and needs no scratch. One table for
// both 16x8 bias types (their kernels in two arrays beside it).
constexpr FullyConnectedVariant kWideVariants[] = {
    {Variant::kMve, nullptr, &portable_fully_connected_scratch_bytes, MOTE_MVE_BUILT, nullptr},
    {Variant::kDsp, nullptr, &portable_fully_connected_scratch_bytes, MOTE_DSP_BUILT, nullptr},
    {Variant::kPortable, nullptr, &portable_fully_connected_scratch_bytes, true, nullptr},
};
constexpr auto kWideChoices = internal::choices_of(kWideVariants);
using Kernel16x8With64 = void (*)(const FullyConnectedParams&, const int16_t*, const int8_t*,
                                  const int64_t*, int16_t*);
using Kernel16x8With32 = void (*)(const FullyConnectedParams&, const int16_t*, const int8_t*,
                                  const int32_t*, int16_t*);
using KernelInt4 = void (*)(const FullyConnectedParams&, const int8_t*, const uint8_t*,
                            const int32_t*, int8_t*);
constexpr Kernel16x8With64 k16x8With64Kernels[] = {
    MOTE_MVE_KERNEL(mve::fully_connected_16x8),
    MOTE_DSP_KERNEL(dsp::fully_connected_16x8),
    &portable_fully_connected_16x8};
constexpr Kernel16x8With32 k16x8With32Kernels[] = {
    MOTE_MVE_KERNEL(mve::fully_connected_16x8),
    MOTE_DSP_KERNEL(dsp::fully_connected_16x8),
    &portable_fully_connected_16x8};
constexpr KernelInt4 kInt4Kernels[] = {MOTE_MVE_KERNEL(mve::fully_connected_int4),
                                       MOTE_DSP_KERNEL(dsp::fully_connected_int4),
                                       &portable_fully_connected_int4};
static_assert(internal::kernels_match(kWideVariants, k16x8With64Kernels));
static_assert(internal::kernels_match(kWideVariants, k16x8With32Kernels));
static_assert(internal::kernels_match(kWideVariants, kInt4Kernels));

}  // namespace

MOTE_KERNEL_VARIANT_QUERIES(fully_connected, int32_t, kFullyConnectedVariants)
MOTE_KERNEL_VARIANT_NAMES(fully_connected_16x8, int32_t, kWideVariants)
MOTE_KERNEL_VARIANT_NAMES(fully_connected_int4, int32_t, kWideVariants)

void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int64_t* bias, int16_t* output) {
  internal::built_kernel(kWideChoices, k16x8With64Kernels, params.output_depth)(
      params, input, filter, bias, output);
}

void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int32_t* bias, int16_t* output) {
  internal::built_kernel(kWideChoices, k16x8With32Kernels, params.output_depth)(
      params, input, filter, bias, output);
}

void fully_connected_int4(const FullyConnectedParams& params, const int8_t* input,
                          const uint8_t* filter, const int32_t* bias, int8_t* output) {
  internal::built_kernel(kWideChoices, kInt4Kernels, params.output_depth)(params, input, filter,
                                                                         bias, output);
}

void fully_connected(const FullyConnectedParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output) {
  internal::built_kernel(kFullyConnectedChoices, kFullyConnectedKernels, params.output_depth)(
      params, input, filter, bias, output);
}

void fully_connected_extension(const FullyConnectedParams& params, const int8_t* input,
                               const int8_t* filter, const int32_t* bias, int8_t* output) {
  internal::run_extension<&portable_fully_connected>(kFullyConnectedChoices,
                                                     kFullyConnectedExtensionKernels,
                                                     params.output_depth, params, input, filter,
                                                     bias, output);
}

}  // namespace kernels
}  // namespace mote
