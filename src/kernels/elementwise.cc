// ADD's and MUL's kernel variants (as pooling.cc for the pools): none needs scratch; the tables
// pick the kernels by the broadcast shape. SUB has the portable kernel alone.
#include "mote/kernels/add.h"
#include "mote/kernels/mul.h"

#include "dsp/kernels.h"
#include "mve/kernels.h"
#include "variant_table.h"

namespace mote {
namespace kernels {
namespace {

template <typename Params>
using ElementwiseKernel = void (*)(const Params&, const BroadcastShape&, const int8_t*,
                                   const int8_t*, int8_t*);

size_t no_scratch(const BroadcastShape&) { return 0; }

constexpr internal::KernelVariant<BroadcastShape, ElementwiseKernel<AddParams>> kAddVariants[] = {
    {Variant::kMve, &mve::add_handles, &no_scratch, MOTE_MVE_KERNEL(mve::add)},
    {Variant::kDsp, &dsp::add_handles, &no_scratch, MOTE_DSP_KERNEL(dsp::add)},
    {Variant::kPortable, nullptr, &no_scratch, &portable_add},
};

constexpr internal::KernelVariant<BroadcastShape, ElementwiseKernel<MulParams>> kMulVariants[] = {
    {Variant::kDsp, &dsp::mul_handles, &no_scratch, MOTE_DSP_KERNEL(dsp::mul)},
    {Variant::kPortable, nullptr, &no_scratch, &portable_mul},
};

}  // namespace

MOTE_KERNEL_VARIANT_NAMES(add, const BroadcastShape&, kAddVariants)
MOTE_KERNEL_VARIANT_NAMES(mul, const BroadcastShape&, kMulVariants)

void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  internal::built_variant(kAddVariants, shape).kernel(params, shape, input1, input2, output);
}

void mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  internal::built_variant(kMulVariants, shape).kernel(params, shape, input1, input2, output);
}

}  // namespace kernels
}  // namespace mote
