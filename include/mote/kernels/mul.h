#pragma once
// int8 MUL with broadcasting, bit exact with TFLite's reference integer kernel (MulElementwise).
// Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stdint.h>

#include "mote/kernels/broadcast.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {

// Precomputed by prepare_mul().
struct MulParams {
  int32_t input1_offset;  // -input1 zero point
  int32_t input2_offset;  // -input2 zero point
  int32_t output_offset;  // +output zero point
  int32_t output_multiplier;  // input1_scale * input2_scale / output_scale
  int32_t output_shift;       // positive = left shift
  int32_t act_min;
  int32_t act_max;
};

// Whether the output requantization of a product of two centred int8 values (|x| <= 255 each)
// stays within kAccLimit. The load check and the compiler's MUL definition ask it.
bool mul_fits(const MulParams& params);

// Host-callable: what TFLite's Prepare computes.
MulParams prepare_mul(float input1_scale, int32_t input1_zero_point, float input2_scale,
                      int32_t input2_zero_point, float output_scale, int32_t output_zero_point,
                      int32_t act_min, int32_t act_max);

// output = input1 * input2 over `shape` (see broadcast.h). No scratch. The output may be an input
// buffer whose shape equals the output's (in place). Runs the variant built into the library that
// handles the shape (src/kernels/mul.cc picks; every variant keeps the in-place rule).
void mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output);
// The portable kernel; the variant a build for `extension` runs, and this build's.
void portable_mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
                  const int8_t* input2, int8_t* output);
const char* mul_kernel_variant(const BroadcastShape& shape, Extension extension);
const char* built_mul_kernel_variant(const BroadcastShape& shape);

// int16 MUL of two same-shape tensors of `count` elements (TFLite's int16 MulElementwise: the
// same formula, offsets 0), and with broadcasting (TFLite's BroadcastMul). Portable in every
// build; the broadcast one may run in place like the int8 kernel. mul_int16_fits is mul_fits for
// products of int16 values.
void mul(const MulParams& params, int32_t count, const int16_t* input1, const int16_t* input2,
         int16_t* output);
void mul(const MulParams& params, const BroadcastShape& shape, const int16_t* input1,
         const int16_t* input2, int16_t* output);
bool mul_int16_fits(const MulParams& params);

}  // namespace kernels
}  // namespace mote
