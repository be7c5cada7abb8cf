#pragma once
// int8 (or int16) MAXIMUM and MINIMUM with broadcasting: TFLite compares the raw values (both
// inputs and the output share one quantization), so there are no parameters. The output may be
// an input buffer whose shape equals the output's (in place). Embeddable C++17.

#include <stdint.h>

#include "mote/kernels/broadcast.h"

namespace mote {
namespace kernels {

void maximum(const BroadcastShape& shape, const int8_t* input1, const int8_t* input2,
             int8_t* output);
void minimum(const BroadcastShape& shape, const int8_t* input1, const int8_t* input2,
             int8_t* output);
void maximum(const BroadcastShape& shape, const int16_t* input1, const int16_t* input2,
             int16_t* output);
void minimum(const BroadcastShape& shape, const int16_t* input1, const int16_t* input2,
             int16_t* output);

}  // namespace kernels
}  // namespace mote
