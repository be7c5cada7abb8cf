// The mve kernels' instance tables (mve/instance_tables.h): every instance in the library; in a
// firmware image compiled with its selection header, only those its programs run. Empty where
// the CPU has no MVE (an image compiles this file whatever its CPU).
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include "mve/instance_tables.h"

#if defined(MOTE_OP_SELECTION_HEADER)
#include MOTE_OP_SELECTION_HEADER
#endif
#if !defined(MOTE_SELECTED_MVE_FOUR_ROWS)
#define MOTE_SELECTED_MVE_FOUR_ROWS (~0ull)
#define MOTE_SELECTED_MVE_ROW3 (~0u)
#define MOTE_SELECTED_MVE_WIDE (~0u)
#define MOTE_SELECTED_GROUPED_CONV 1
#endif

namespace mote {
namespace kernels {
namespace mve {
namespace {

// An instance's address where the selection has its bit, else null: a constant the compiler
// folds, so that an unselected instance is not referenced at all.
template <typename F>
constexpr F pick(bool selected, F f) {
  return selected ? f : nullptr;
}

constexpr bool four_rows_selected(int rows, bool right, bool small, bool tail) {
  return ((MOTE_SELECTED_MVE_FOUR_ROWS >> four_rows_instance(rows, right, small, tail)) & 1) != 0;
}

constexpr bool row3_selected(int pixels, int stride, bool border, bool table) {
  return ((MOTE_SELECTED_MVE_ROW3 >> row3_instance(pixels, stride, border, table)) & 1) != 0;
}

template <int kW, int kP, bool kBorder>
constexpr depthwise_instances::Wide wide_entry() {
  return pick(((MOTE_SELECTED_MVE_WIDE >> wide_instance(kW, kP, kBorder)) & 1) != 0,
              &depthwise_instances::wide_pixels<kW, kP, kBorder>);
}

template <int kRows, bool kRight, bool kSmall, bool kTail>
constexpr conv_instances::FourRows four_rows_entry() {
  return pick(four_rows_selected(kRows, kRight, kSmall, kTail),
              &conv_instances::four_rows<kRows, kRight, kSmall, kTail>);
}

template <int kP, int kStride, bool kBorder, bool kTable>
constexpr depthwise_instances::Row3 row3_entry() {
  return pick(row3_selected(kP, kStride, kBorder, kTable),
              &depthwise_instances::row3_pixels<kP, kStride, kBorder, kTable>);
}

}  // namespace

// In four_rows_instance order.
#define MOTE_MVE_FOUR_ROWS(r)                                                                    \
  four_rows_entry<r, false, false, false>(), four_rows_entry<r, false, false, true>(),          \
      four_rows_entry<r, false, true, false>(), four_rows_entry<r, false, true, true>(),        \
      four_rows_entry<r, true, false, false>(), four_rows_entry<r, true, false, true>(),        \
      four_rows_entry<r, true, true, false>(), four_rows_entry<r, true, true, true>()
extern const ConvInstanceTable kConvInstances{
    {MOTE_MVE_FOUR_ROWS(1), MOTE_MVE_FOUR_ROWS(2), MOTE_MVE_FOUR_ROWS(3), MOTE_MVE_FOUR_ROWS(4),
     four_rows_entry<5, false, false, false>(), four_rows_entry<5, false, false, true>(),
     four_rows_entry<5, true, false, false>(), four_rows_entry<5, true, false, true>()},
    pick(MOTE_SELECTED_GROUPED_CONV != 0, &conv_instances::im2col_grouped)};
#undef MOTE_MVE_FOUR_ROWS

// In row3_instance order; a table window of fewer than three pixels is never without border.
#define MOTE_MVE_ROW3(p, stride)                                                              \
  row3_entry<p, stride, false, false>(),                                                      \
      (p == 3 ? row3_entry<3, stride, false, true>() : nullptr),                              \
      row3_entry<p, stride, true, false>(), row3_entry<p, stride, true, true>()
// In wide_instance order.
#define MOTE_MVE_WIDE(w)                                                                    \
  wide_entry<w, 1, false>(), wide_entry<w, 1, true>(), wide_entry<w, 2, false>(),            \
      wide_entry<w, 2, true>(), wide_entry<w, 3, false>(), wide_entry<w, 3, true>()
extern const DepthwiseInstanceTable kDepthwiseInstances{
    {MOTE_MVE_ROW3(1, 1), MOTE_MVE_ROW3(1, 2), MOTE_MVE_ROW3(2, 1), MOTE_MVE_ROW3(2, 2),
     MOTE_MVE_ROW3(3, 1), MOTE_MVE_ROW3(3, 2)},
    {MOTE_MVE_WIDE(5), MOTE_MVE_WIDE(7)}};
#undef MOTE_MVE_WIDE
#undef MOTE_MVE_ROW3

// (The set bits alone: every program load asks, for each convolution.)
bool instances_linked(const Instances& used) {
  for (uint64_t bits = used.four_rows; bits != 0; bits &= bits - 1) {
    if (kConvInstances.four_rows[__builtin_ctzll(bits)] == nullptr) return false;
  }
  for (uint32_t bits = used.row3; bits != 0; bits &= bits - 1) {
    if (kDepthwiseInstances.row3[__builtin_ctz(bits)] == nullptr) return false;
  }
  for (uint32_t bits = used.wide; bits != 0; bits &= bits - 1) {
    if (kDepthwiseInstances.wide[__builtin_ctz(bits)] == nullptr) return false;
  }
  return !used.grouped || kConvInstances.grouped != nullptr;
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote

#endif
