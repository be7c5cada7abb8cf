#pragma once
// int16 LOGISTIC and TANH (16x8 models, and the LSTM's gates), bit exact with TFLite's reference
// int16 kernels: x is scaled onto the input of one 256-entry sigmoid table (units of 1/4096 of
// 4/3, so that +-2^17 spans +-10.7) and interpolated linearly (tanh(x) = 2 sigmoid(2x) - 1); the
// result is Q0.15. Embeddable C++17; the prepare is host-callable.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

// x in the table's units: (x * multiplier + round) >> left_shift, multiplier in [0, 32767] and
// left_shift in [0, 31] (so an int16 x never overflows int32).
struct Activation16Params {
  int32_t multiplier;
  int32_t left_shift;
};

// TFLM's Prepare for an int16 input of `input_scale`, zero point 0: a power-of-two scale of 2^-12
// (TANH also 2^-11, by CheckedLog2's test) multiplies by 3 << shift; any other scale by
// scale * 3 * 4096 doubled into (16383.5, 32767] with as many shifts (at most 31). False when the
// multiplier exceeds 32767 (an input scale above 8/3).
bool prepare_activation16(float input_scale, bool tanh, Activation16Params* params);

// Entry i of the sigmoid table (sigmoid(i / 24) in 0.16 fixed point).
uint16_t sigmoid_table16(int32_t i);
// sigmoid and tanh of `v` in the table's units, Q0.15.
int16_t logistic16_scaled(int32_t v);
int16_t tanh16_scaled(int32_t v);

// The output may be the input buffer.
void logistic(const Activation16Params& params, const int16_t* input, int16_t* output,
              size_t count);
void tanh(const Activation16Params& params, const int16_t* input, int16_t* output, size_t count);

}  // namespace kernels
}  // namespace mote
