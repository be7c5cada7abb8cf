// AVERAGE_POOL_2D's and MAX_POOL_2D's kernel variants (as conv.cc for CONV_2D). None needs
// scratch, so the average pool's planned size stays in scratch.cc; the tables pick the kernels.
#include "mote/kernels/pooling.h"

#include "dsp/kernels.h"
#include "mve/kernels.h"
#include "variant_table.h"

namespace mote {
namespace kernels {
namespace {

using PoolKernel = void (*)(const PoolParams&, const int8_t*, int8_t*, Scratch);
using PoolVariant = internal::KernelVariant<PoolParams>;

size_t no_scratch(const PoolParams&) { return 0; }

constexpr PoolVariant kAveragePoolVariants[] = {
    // The mve kernels: one pixel at a time, a block of channels written after reading its window
    // (eight, sixteen for max pool): portable's rule holds for them too.
    {Variant::kMve, &mve::average_pool_handles, &no_scratch, MOTE_MVE_BUILT,
     &internal::portable_pool_overlap},
    {Variant::kDsp, &dsp::average_pool_handles, &no_scratch, MOTE_DSP_BUILT,
     &dsp::average_pool_overlap},
    {Variant::kPortable, nullptr, &no_scratch, true, &internal::portable_pool_overlap},
};
constexpr auto kAveragePoolChoices = internal::choices_of(kAveragePoolVariants);
constexpr PoolKernel kAveragePoolKernels[] = {MOTE_MVE_KERNEL(mve::average_pool),
                                              MOTE_DSP_KERNEL(dsp::average_pool),
                                              &portable_average_pool};
static_assert(internal::kernels_match(kAveragePoolVariants, kAveragePoolKernels));
using AveragePoolExtensionKernel = bool (*)(const PoolParams&, const int8_t*, int8_t*);
constexpr AveragePoolExtensionKernel kAveragePoolExtensionKernels[] = {
    MOTE_MVE_KERNEL(mve::average_pool_no_fallback), MOTE_DSP_KERNEL(dsp::average_pool_no_fallback),
    nullptr};
static_assert(internal::extension_kernels_match(kAveragePoolVariants,
                                                kAveragePoolExtensionKernels));

using MaxPoolKernel = void (*)(const PoolParams&, const int8_t*, int8_t*);
using MaxPoolVariant = internal::KernelVariant<PoolParams>;

// The dsp kernel writes four channels of a pixel after reading their windows, so every output byte
// is written after what portable has read by then: portable's rule holds for it.
constexpr MaxPoolVariant kMaxPoolVariants[] = {
    {Variant::kDsp, nullptr, &no_scratch, MOTE_DSP_BUILT, &internal::portable_pool_overlap},
    {Variant::kMve, nullptr, &no_scratch, MOTE_MVE_BUILT, &internal::portable_pool_overlap},
    {Variant::kPortable, nullptr, &no_scratch, true, &internal::portable_pool_overlap},
};
constexpr auto kMaxPoolChoices = internal::choices_of(kMaxPoolVariants);
constexpr MaxPoolKernel kMaxPoolKernels[] = {MOTE_DSP_KERNEL(dsp::max_pool),
                                             MOTE_MVE_KERNEL(mve::max_pool), &portable_max_pool};
static_assert(internal::kernels_match(kMaxPoolVariants, kMaxPoolKernels));

}  // namespace

MOTE_KERNEL_VARIANT_NAMES(max_pool, const PoolParams&, kMaxPoolVariants)
MOTE_KERNEL_VARIANT_NAMES(average_pool, const PoolParams&, kAveragePoolVariants)
MOTE_KERNEL_OVERLAP_QUERIES(max_pool, const PoolParams&, kMaxPoolVariants)
MOTE_KERNEL_OVERLAP_QUERIES(average_pool, const PoolParams&, kAveragePoolVariants)

void max_pool(const PoolParams& params, const int8_t* input, int8_t* output) {
  internal::built_kernel(kMaxPoolChoices, kMaxPoolKernels, params)(params, input, output);
}

void average_pool(const PoolParams& params, const int8_t* input, int8_t* output, Scratch scratch) {
  internal::built_kernel(kAveragePoolChoices, kAveragePoolKernels, params)(params, input, output,
                                                                           scratch);
}

void average_pool_extension(const PoolParams& params, const int8_t* input, int8_t* output,
                            Scratch scratch) {
  if (const auto kernel =
          internal::built_kernel(kAveragePoolChoices, kAveragePoolExtensionKernels, params)) {
    kernel(params, input, output);
    return;
  }
#if !defined(MOTE_KERNELS_WITH_EXTENSION)
  portable_average_pool(params, input, output, scratch);
#else
  (void)scratch;
#endif
}

bool average_pool_extension_takes(const PoolParams& params) {
  return internal::extension_takes(kAveragePoolChoices, params);
}

// Rows run on the portable kernels in every build (mote/kernels/rows.h).
void max_pool_rows(const PoolParams& params, const int8_t* input, RowRing input_ring,
                   int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end) {
  portable_max_pool_rows(params, input, input_ring, output, output_ring, y_begin, y_end);
}

void average_pool_rows(const PoolParams& params, const int8_t* input, RowRing input_ring,
                       int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end,
                       Scratch scratch) {
  portable_average_pool_rows(params, input, input_ring, output, output_ring, y_begin, y_end,
                             scratch);
}

// The streamed global average pool's sums on mve or dsp where the average pool runs that variant.
void global_average_pool_accumulate(const PoolParams& params, const int8_t* input,
                                    RowRing input_ring, int32_t y_begin, int32_t y_end,
                                    int32_t* sums) {
#if defined(MOTE_KERNELS_WITH_MVE)
  if (internal::built_choice(kAveragePoolChoices, params) == Variant::kMve) {
    mve::global_average_pool_accumulate(params, input, input_ring, y_begin, y_end, sums);
    return;
  }
#endif
#if defined(MOTE_KERNELS_WITH_DSP)
  if (internal::built_choice(kAveragePoolChoices, params) == Variant::kDsp) {
    dsp::global_average_pool_accumulate(params, input, input_ring, y_begin, y_end, sums);
    return;
  }
#endif
  portable_global_average_pool_accumulate(params, input, input_ring, y_begin, y_end, sums);
}

}  // namespace kernels
}  // namespace mote
