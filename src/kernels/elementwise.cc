// ADD's and MUL's kernel variants (as pooling.cc for the pools): none needs scratch; the tables
// pick the kernels by the broadcast shape. SUB has the portable kernel alone.
#include "mote/kernels/add.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/overlap.h"

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

// The portable, dsp and mve kernels walk the output forward (mve: four elements at a time), reading element i of each input just
// before writing element i: input 1 (the table's input 0) may be overwritten, in place or from
// before, when it is not broadcast (a broadcast input is read again after later writes).
OverlapRule elementwise_input1_overlap(const BroadcastShape& s) {
  for (int32_t d = 0; d < s.rank; ++d) {
    if (s.input1[d] != s.output[d]) return kNoOverlap;
  }
  return kElementwiseOverlap;
}

constexpr internal::KernelVariant<BroadcastShape> kAddVariants[] = {
    {Variant::kMve, &mve::add_handles, &no_scratch, MOTE_MVE_BUILT, &elementwise_input1_overlap},
    {Variant::kDsp, &dsp::add_handles, &no_scratch, MOTE_DSP_BUILT, &elementwise_input1_overlap},
    {Variant::kPortable, nullptr, &no_scratch, true, &elementwise_input1_overlap},
};
constexpr auto kAddChoices = internal::choices_of(kAddVariants);
constexpr ElementwiseKernel<AddParams> kAddKernels[] = {
    MOTE_MVE_KERNEL(mve::add), MOTE_DSP_KERNEL(dsp::add), &portable_add};
static_assert(internal::kernels_match(kAddVariants, kAddKernels));

// MUL declares no overlap (its rule is not derived yet).
constexpr internal::KernelVariant<BroadcastShape> kMulVariants[] = {
    {Variant::kMve, &mve::mul_handles, &no_scratch, MOTE_MVE_BUILT, nullptr},
    {Variant::kDsp, &dsp::mul_handles, &no_scratch, MOTE_DSP_BUILT, nullptr},
    {Variant::kPortable, nullptr, &no_scratch, true, nullptr},
};
constexpr auto kMulChoices = internal::choices_of(kMulVariants);
constexpr ElementwiseKernel<MulParams> kMulKernels[] = {
    MOTE_MVE_KERNEL(mve::mul), MOTE_DSP_KERNEL(dsp::mul), &portable_mul};
static_assert(internal::kernels_match(kMulVariants, kMulKernels));

// The table's rules are for input 1; the kernels treat both inputs alike, so input 2's rule is
// input 1's with the inputs swapped (the variant still picked for the real shape).
BroadcastShape as_input1(const BroadcastShape& shape, int32_t input) {
  BroadcastShape s = shape;
  if (input == 1) {
    for (int32_t d = 0; d < s.rank; ++d) {
      s.input1[d] = shape.input2[d];
      s.input2[d] = shape.input1[d];
    }
  }
  return s;
}

}  // namespace

MOTE_KERNEL_VARIANT_NAMES(add, const BroadcastShape&, kAddVariants)
MOTE_KERNEL_VARIANT_NAMES(mul, const BroadcastShape&, kMulVariants)

OverlapRule add_overlap(const BroadcastShape& shape, int32_t input, Extension extension) {
  if (input < 0 || input > 1) return kNoOverlap;
  return internal::overlap_of(internal::variant_for(kAddVariants, shape, extension),
                              as_input1(shape, input));
}

OverlapRule built_add_overlap(const BroadcastShape& shape, int32_t input) {
  if (input < 0 || input > 1) return kNoOverlap;
  return internal::overlap_of(internal::built_variant(kAddVariants, shape), as_input1(shape, input));
}

void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  internal::built_kernel(kAddChoices, kAddKernels, shape)(params, shape, input1, input2, output);
}

void mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  internal::built_kernel(kMulChoices, kMulKernels, shape)(params, shape, input1, input2, output);
}

}  // namespace kernels
}  // namespace mote
