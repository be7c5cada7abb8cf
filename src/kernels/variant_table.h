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
// A library with an extension folder, whose <op>_extension kernels run that folder's kernels
// alone; without one they are the portable kernels.
#if defined(MOTE_KERNELS_WITH_DSP) || defined(MOTE_KERNELS_WITH_MVE)
#define MOTE_KERNELS_WITH_EXTENSION 1
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
// whose programs never run an operator's whole-tensor kernel does not link it. And the kernels
// are picked from the table's choices (choices_of), which hold no size or overlap function: an
// image that runs kernels but checks no program (MOTE_VERIFY crc) links none of those.
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

// A table's lines as the kernels are picked by them: what each handles and whether it is built.
template <typename Shape, size_t N>
struct VariantChoices {
  struct Line {
    Variant variant;
    bool (*handles)(const Shape& shape);  // null: every shape, or a line not built
    bool built;
  } lines[N];
};

template <typename Shape, size_t N>
constexpr VariantChoices<Shape, N> choices_of(const KernelVariant<Shape> (&table)[N]) {
  VariantChoices<Shape, N> c{};
  for (size_t i = 0; i < N; ++i) {
    // An unbuilt line's handles dropped, so that the image does not link it.
    c.lines[i] = {table[i].variant, table[i].built ? table[i].handles : nullptr, table[i].built};
  }
  return c;
}

// The line this library runs for `shape` (built_variant's).
template <typename Shape, size_t N>
size_t built_line(const VariantChoices<Shape, N>& choices, const Shape& shape) {
  for (size_t i = 0; i + 1 < N; ++i) {
    const auto& line = choices.lines[i];
    if (line.built && (line.handles == nullptr || line.handles(shape))) return i;
  }
  return N - 1;
}

template <typename Shape, size_t N>
Variant built_choice(const VariantChoices<Shape, N>& choices, const Shape& shape) {
  return choices.lines[built_line(choices, shape)].variant;
}

// The kernel this library runs for `shape`: `kernels` holds the table's kernels, line for line.
template <typename Shape, typename Kernel, size_t N>
Kernel built_kernel(const VariantChoices<Shape, N>& choices, const Kernel (&kernels)[N],
                    const Shape& shape) {
  return kernels[built_line(choices, shape)];
}

// Whether `kernels` is `table`'s, line for line: a kernel exactly where the line is built.
template <typename Shape, typename Kernel, size_t N>
constexpr bool kernels_match(const KernelVariant<Shape> (&table)[N], const Kernel (&kernels)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (table[i].built != (kernels[i] != nullptr)) return false;
  }
  return true;
}

// Whether `kernels` is a table's extension kernels, line for line: each extension's kernel
// without its portable fallback (returning false, having written nothing, where it hands a shape
// to portable), and null on the portable line. What built_kernel picks from them is null where the
// build's extension does not take the shape (or where there is none).
template <typename Shape, typename Kernel, size_t N>
constexpr bool extension_kernels_match(const KernelVariant<Shape> (&table)[N],
                                       const Kernel (&kernels)[N]) {
  for (size_t i = 0; i + 1 < N; ++i) {
    if (table[i].built != (kernels[i] != nullptr)) return false;
  }
  return table[N - 1].variant == Variant::kPortable && kernels[N - 1] == nullptr;
}

// An <op>_extension entry: the extension kernel of `kernels` (extension_kernels_match) for `shape`,
// or in a library without extension kPortable. A template argument, the portable kernel is not
// referenced (so not linked) where an extension is built.
template <auto kPortable, typename Shape, typename Kernel, size_t N, typename... Args>
void run_extension(const VariantChoices<Shape, N>& choices, const Kernel (&kernels)[N],
                   const Shape& shape, const Args&... args) {
  if (const Kernel kernel = built_kernel(choices, kernels, shape)) {
    kernel(args...);
    return;
  }
#if !defined(MOTE_KERNELS_WITH_EXTENSION)
  kPortable(args...);
#endif
}

// Whether an <op>_extension entry runs `shape`: a built variant other than portable takes it, or
// the library has no extension and its entry runs the portable kernel.
template <typename Shape, size_t N>
bool extension_takes(const VariantChoices<Shape, N>& choices, const Shape& shape) {
#if defined(MOTE_KERNELS_WITH_EXTENSION)
  return built_choice(choices, shape) != Variant::kPortable;
#else
  (void)choices;
  (void)shape;
  return true;
#endif
}

}  // namespace internal
}  // namespace kernels
}  // namespace mote
