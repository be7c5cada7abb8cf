// AVERAGE_POOL_2D's kernel variants (as conv.cc for CONV_2D). Neither needs scratch, so the size
// stays in scratch.cc; the table picks the kernel.
#include "mote/kernels/pooling.h"

#include "dsp/kernels.h"
#include "variant_table.h"

namespace mote {
namespace kernels {
namespace {

using PoolKernel = void (*)(const PoolParams&, const int8_t*, int8_t*, Scratch);
using PoolVariant = internal::KernelVariant<PoolParams, PoolKernel>;

size_t no_scratch(const PoolParams&) { return 0; }

constexpr PoolVariant kAveragePoolVariants[] = {
    {Variant::kDsp, &dsp::average_pool_handles, &no_scratch, MOTE_DSP_KERNEL(dsp::average_pool),
     &dsp::average_pool_overlap},
    {Variant::kPortable, nullptr, &no_scratch, &portable_average_pool,
     &internal::portable_pool_overlap},
};

}  // namespace

const char* average_pool_kernel_variant(const PoolParams& params, Extension extension) {
  return to_string(internal::variant_for(kAveragePoolVariants, params, extension).variant);
}

OverlapRule average_pool_overlap(const PoolParams& params, Extension extension) {
  return internal::overlap_of(internal::variant_for(kAveragePoolVariants, params, extension),
                              params);
}

OverlapRule built_average_pool_overlap(const PoolParams& params) {
  return internal::overlap_of(internal::built_variant(kAveragePoolVariants, params), params);
}

const char* built_average_pool_kernel_variant(const PoolParams& params) {
  return to_string(internal::built_variant(kAveragePoolVariants, params).variant);
}

void average_pool(const PoolParams& params, const int8_t* input, int8_t* output, Scratch scratch) {
  internal::built_variant(kAveragePoolVariants, params).kernel(params, input, output, scratch);
}

}  // namespace kernels
}  // namespace mote
