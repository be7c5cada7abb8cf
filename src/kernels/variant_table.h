#pragma once
// One operator's kernel variants, tried in order: the first that the build holds (or that a build
// for an extension holds) and that handles the shape runs. The portable kernel is the last line
// and handles every shape. Internal to src/kernels/. Embeddable C++17.

#include <stddef.h>

#include "mote/kernels/overlap.h"
#include "mote/kernels/scratch.h"

// The kernel of a variant folder, or null where the library is built without that folder
// (mote_add_kernels_library(VARIANTS ...) defines MOTE_KERNELS_WITH_<FOLDER>), and whether it is
// built. Its size function is referenced either way: the host compiler plans for kernels it does
// not contain.
#if defined(MOTE_KERNELS_WITH_DSP)
#define MOTE_DSP_KERNEL(f) (&f)
#define MOTE_DSP_BUILT true
#else
#define MOTE_DSP_KERNEL(f) nullptr
#define MOTE_DSP_BUILT false
#endif
#if defined(MOTE_KERNELS_WITH_MVE)
#define MOTE_MVE_KERNEL(f) (&f)
#define MOTE_MVE_BUILT true
#else
#define MOTE_MVE_KERNEL(f) nullptr
#define MOTE_MVE_BUILT false
#endif

// The four queries every operator with a table answers (see README.md), for `op` (conv,
// depthwise_conv, ...) whose table `table` is keyed by `Key` (its shape):
//   <op>_scratch_bytes(key, extension), <op>_kernel_variant(key, extension),
//   built_<op>_scratch_bytes(key), built_<op>_kernel_variant(key).
#define MOTE_KERNEL_VARIANT_QUERIES(op, Key, table)                                    \
  size_t op##_scratch_bytes(Key key, Extension extension) {                           \
    return internal::variant_for(table, key, extension).scratch_bytes(key);           \
  }                                                                                   \
  const char* op##_kernel_variant(Key key, Extension extension) {                     \
    return to_string(internal::variant_for(table, key, extension).variant);           \
  }                                                                                   \
  size_t built_##op##_scratch_bytes(Key key) {                                        \
    return internal::built_variant(table, key).scratch_bytes(key);                    \
  }                                                                                   \
  const char* built_##op##_kernel_variant(Key key) {                                  \
    return to_string(internal::built_variant(table, key).variant);                    \
  }

// The two name queries of an operator whose variants need no scratch:
//   <op>_kernel_variant(key, extension), built_<op>_kernel_variant(key).
#define MOTE_KERNEL_VARIANT_NAMES(op, Key, table)                                      \
  const char* op##_kernel_variant(Key key, Extension extension) {                     \
    return to_string(internal::variant_for(table, key, extension).variant);           \
  }                                                                                   \
  const char* built_##op##_kernel_variant(Key key) {                                  \
    return to_string(internal::built_variant(table, key).variant);                    \
  }

// And for a table whose variants declare overlap rules: <op>_overlap(key, extension),
// built_<op>_overlap(key).
#define MOTE_KERNEL_OVERLAP_QUERIES(op, Key, table)                                    \
  OverlapRule op##_overlap(Key key, Extension extension) {                            \
    return internal::overlap_of(internal::variant_for(table, key, extension), key);   \
  }                                                                                   \
  OverlapRule built_##op##_overlap(Key key) {                                         \
    return internal::overlap_of(internal::built_variant(table, key), key);            \
  }

namespace mote {
namespace kernels {
namespace internal {

// One line of a table. The kernels themselves sit in an array beside the table, line for line
// (built_kernel), so that the queries (scratch, overlap, names) reference no kernel: an image
// whose programs never run an operator's whole-tensor kernel does not link it.
template <typename Shape>
struct KernelVariant {
  Variant variant;
  bool (*handles)(const Shape& shape);  // null: every shape
  size_t (*scratch_bytes)(const Shape& shape);
  bool built;  // built into this library
  // Where its output may overlap a dying input 0 (mote/kernels/overlap.h); null: nowhere.
  OverlapRule (*overlap)(const Shape& shape);
};

template <typename Shape>
OverlapRule overlap_of(const KernelVariant<Shape>& v, const Shape& shape) {
  return v.overlap == nullptr ? kNoOverlap : v.overlap(shape);
}

template <typename Shape>
bool handles(const KernelVariant<Shape>& v, const Shape& shape) {
  return v.handles == nullptr || v.handles(shape);
}

// What a library built for `extension` runs: its extension's folder, else portable.
template <typename Shape, size_t N>
const KernelVariant<Shape>& variant_for(const KernelVariant<Shape> (&table)[N], const Shape& shape,
                                        Extension extension) {
  const Variant wanted = extension_variant(extension);
  for (const auto& v : table) {
    if ((v.variant == wanted || v.variant == Variant::kPortable) && handles(v, shape)) return v;
  }
  return table[N - 1];
}

// What this library runs.
template <typename Shape, size_t N>
const KernelVariant<Shape>& built_variant(const KernelVariant<Shape> (&table)[N],
                                          const Shape& shape) {
  for (const auto& v : table) {
    if (v.built && handles(v, shape)) return v;
  }
  return table[N - 1];
}

// The kernel this library runs for `shape`: `kernels` holds the table's kernels, line for line.
template <typename Shape, typename Kernel, size_t N>
Kernel built_kernel(const KernelVariant<Shape> (&table)[N], const Kernel (&kernels)[N],
                    const Shape& shape) {
  return kernels[&built_variant(table, shape) - table];
}

// Whether `kernels` is `table`'s, line for line: a kernel exactly where the line is built.
template <typename Shape, typename Kernel, size_t N>
constexpr bool kernels_match(const KernelVariant<Shape> (&table)[N], const Kernel (&kernels)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (table[i].built != (kernels[i] != nullptr)) return false;
  }
  return true;
}

}  // namespace internal
}  // namespace kernels
}  // namespace mote
