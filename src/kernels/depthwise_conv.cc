// DEPTHWISE_CONV_2D's kernel variants: which one runs, what it needs, and the depthwise_conv2d
// entry that calls it (as conv.cc for CONV_2D).
#include "mote/kernels/depthwise_conv.h"

#include "dsp/kernels.h"
#include "mve/kernels.h"
#include "variant_table.h"

namespace mote {
namespace kernels {
namespace {

using DepthwiseKernel = void (*)(const DepthwiseConvParams&, const int8_t*, const int8_t*,
                                 const int32_t*, int8_t*, Scratch);
using DepthwiseVariant = internal::KernelVariant<DepthwiseShape, DepthwiseKernel>;

// The portable kernel needs no scratch.
size_t portable_depthwise_conv_scratch_bytes(const DepthwiseShape&) { return 0; }

constexpr DepthwiseVariant kDepthwiseVariants[] = {
    {Variant::kMve, &mve::depthwise_conv_handles, &mve::depthwise_conv_scratch_bytes,
     MOTE_MVE_KERNEL(mve::depthwise_conv2d), &mve::depthwise_conv_overlap},
    {Variant::kDsp, &dsp::depthwise_conv_handles, &dsp::depthwise_conv_scratch_bytes,
     MOTE_DSP_KERNEL(dsp::depthwise_conv2d), &dsp::depthwise_conv_overlap},
    {Variant::kPortable, nullptr, &portable_depthwise_conv_scratch_bytes, &portable_depthwise_conv2d,
     &internal::portable_depthwise_conv_overlap},
};

}  // namespace

MOTE_KERNEL_VARIANT_QUERIES(depthwise_conv, const DepthwiseShape&, kDepthwiseVariants)
MOTE_KERNEL_OVERLAP_QUERIES(depthwise_conv, const DepthwiseShape&, kDepthwiseVariants)

void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  internal::built_variant(kDepthwiseVariants, params.shape)
      .kernel(params, input, filter, bias, output, scratch);
}

}  // namespace kernels
}  // namespace mote
