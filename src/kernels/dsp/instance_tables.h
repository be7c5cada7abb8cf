#pragma once
// The table through which the dsp CONV_2D kernel calls its grouped im2col, so that a firmware
// image links it only where its programs have a grouped convolution: as the mve kernels' tables
// (mve/instance_tables.h), the library's table holds it, and an image compiles
// instance_tables.cc again with its selection (MOTE_SELECTED_GROUPED_CONV). Embeddable C++17.

#include <stdint.h>

#include "dsp/requantize.h"
#include "mote/kernels/conv.h"
#include "portable/row_window.h"

namespace mote {
namespace kernels {
namespace dsp {

// conv.cc's grouped im2col over output rows [y_begin, y_end) of one image.
void conv_im2col_grouped(const ConvShape& shape, internal::RowTable& rows, const int8_t* filter,
                         const int32_t* bias, const internal::OutputRows& out_rows,
                         int32_t y_begin, int32_t y_end, int16_t offset, int16_t* col0,
                         int16_t* col1, const Requantizer& rq_in);

struct ConvInstanceTable {
  decltype(&conv_im2col_grouped) grouped;  // null: not linked
};
extern const ConvInstanceTable kConvInstances;

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
