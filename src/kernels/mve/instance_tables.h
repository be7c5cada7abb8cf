#pragma once
// The tables through which the mve convolution kernels call their specialised instances
// (mve/instances.h numbers them), and what the instances take. The library's own tables
// (instance_tables.cc) hold every instance. A firmware image compiles instance_tables.cc again
// with its operator selection (MOTE_SELECTED_MVE_*, which mote_program_ops writes), its tables
// then hold only the instances its programs run, and --gc-sections drops the others: its
// definition comes before the library on the link line, so the library's is never taken.
// Armv8.1-M MVE only; embeddable C++17.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/instances.h"
#include "mve/requantize.h"
#include "portable/row_window.h"
#include "portable/window.h"

namespace mote {
namespace kernels {
namespace mve {

// CONV_2D (conv.cc).
namespace conv_instances {

// Per-channel requantization of the output channels a call writes.
struct Quant {
  const int32_t* multiplier;
  const int32_t* shift;
  OutputStage stage;
};

// The input rows of a call: row iy at data + iy * row_bytes (the whole map of one image,
// rows <= 0) or at data + (iy mod rows) * row_bytes (a ring).
struct InputRows {
  const int8_t* data;
  ptrdiff_t row_bytes;
  int32_t rows;
  const int8_t* row(int32_t iy) const {
    return data + static_cast<ptrdiff_t>(ring_slot(rows, iy)) * row_bytes;
  }
};

template <int kRows, bool kRight, bool kSmall, bool kTail>
void four_rows(const int8_t* x0, const int8_t* x1, const int8_t* x2, const int8_t* x3,
               const int8_t* x4, const int8_t* filter, int32_t depth, int32_t co,
               const int32_t* bias, int32_t io, const Quant& q_in, int8_t* out,
               const uint32_t* out_offsets);
using FourRows = decltype(&four_rows<1, false, false, false>);

void im2col_grouped(const ConvShape& s, const InputRows& in, const int8_t* filter,
                    const int32_t* bias, const internal::OutputRows& out, int32_t p_begin,
                    int32_t p_end, int32_t io, const Quant& q, bool right, int8_t* cols);

}  // namespace conv_instances

struct ConvInstanceTable {
  conv_instances::FourRows four_rows[kFourRowsInstances];  // null: not linked
  decltype(&conv_instances::im2col_grouped) grouped;
};
extern const ConvInstanceTable kConvInstances;

// DEPTHWISE_CONV_2D (depthwise_conv.cc).
namespace depthwise_instances {

// A layer's shape, filter (and rearranged taps), bias, requantization and output stage.
struct Layer {
  DepthwiseShape s;
  const int8_t* filter;
  const int8_t* taps;  // the rearranged filter (single_input_row), or null
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t io;
  OutputStage stage;
};

template <int kP, int kStride, bool kBorder, bool kTable>
void row3_pixels(const Layer& l, const int8_t* first_row, const int8_t* const* rows,
                 const internal::PixelWindow& pw, int32_t x, uint32_t valid, int8_t* out);
using Row3 = decltype(&row3_pixels<1, 1, false, false>);

template <int kW, int kP, bool kBorder>
void wide_pixels(const Layer& l, const int8_t* first_row, const internal::PixelWindow& pw,
                 int32_t x, uint32_t valid, int8_t* out);
using Wide = decltype(&wide_pixels<5, 1, false>);

}  // namespace depthwise_instances

struct DepthwiseInstanceTable {
  depthwise_instances::Row3 row3[kRow3Instances];  // null: not linked (or never used)
  depthwise_instances::Wide wide[kWideInstances];
};
extern const DepthwiseInstanceTable kDepthwiseInstances;

// Whether this image links every instance in `used`.
bool instances_linked(const Instances& used);

}  // namespace mve
}  // namespace kernels
}  // namespace mote
