// ADD's kernel variants (as conv.cc for CONV_2D). None needs scratch; the table picks the kernel.
#include "mote/kernels/add.h"

#include "mve/kernels.h"
#include "variant_table.h"

namespace mote {
namespace kernels {
namespace {

using AddKernel = void (*)(const AddParams&, const BroadcastShape&, const int8_t*, const int8_t*,
                           int8_t*);
using AddVariant = internal::KernelVariant<BroadcastShape, AddKernel>;

size_t no_scratch(const BroadcastShape&) { return 0; }

constexpr AddVariant kAddVariants[] = {
    {Variant::kMve, &mve::add_handles, &no_scratch, MOTE_MVE_KERNEL(mve::add)},
    {Variant::kPortable, nullptr, &no_scratch, &portable_add},
};

}  // namespace

const char* add_kernel_variant(const BroadcastShape& shape, Extension extension) {
  return to_string(internal::variant_for(kAddVariants, shape, extension).variant);
}

const char* built_add_kernel_variant(const BroadcastShape& shape) {
  return to_string(internal::built_variant(kAddVariants, shape).variant);
}

void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  internal::built_variant(kAddVariants, shape).kernel(params, shape, input1, input2, output);
}

}  // namespace kernels
}  // namespace mote
