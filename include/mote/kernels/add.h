#pragma once
// int8 ADD and SUB with broadcasting, bit exact with TFLite's reference integer kernels (AddFunc,
// SubElementwise).
// Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stdint.h>

#include "mote/kernels/broadcast.h"
#include "mote/kernels/overlap.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {

// Precomputed by prepare_add(). Each input is moved to a common scale with 20 bits of headroom
// (left_shift), the two are summed, and the sum is rescaled to the output.
struct AddParams {
  int32_t input1_offset;  // -input1 zero point
  int32_t input2_offset;  // -input2 zero point
  int32_t output_offset;  // +output zero point
  int32_t left_shift;     // 20 for int8
  int32_t input1_multiplier;
  int32_t input1_shift;  // <= 0 (right shift)
  int32_t input2_multiplier;
  int32_t input2_shift;  // <= 0
  int32_t output_multiplier;
  int32_t output_shift;  // <= 0
  int32_t act_min;       // fused activation range in the output's quantized domain
  int32_t act_max;
};

// Host-callable: what TFLite's Prepare computes from the tensors' scales and zero points (the
// same for ADD and SUB).
// act_min/act_max come from activation_range_int8() (or -128/127 without activation).
AddParams prepare_add(float input1_scale, int32_t input1_zero_point, float input2_scale,
                      int32_t input2_zero_point, float output_scale, int32_t output_zero_point,
                      int32_t act_min, int32_t act_max);

// Whether the kernel's int32 arithmetic holds for every int8 input (each rescaled input within
// 2^30 - 128, their sum's requantization within kAccLimit) with left_shift in [0, 22]. The load
// check and the compiler's ADD and SUB definitions ask it.
bool add_fits(const AddParams& params);

// output = input1 + input2 over `shape` (see broadcast.h). No scratch. The output may be an input
// buffer whose shape equals the output's (in place). Runs the variant built into the library that
// handles the shape (src/kernels/elementwise.cc picks: dsp or mve without broadcasting; every
// variant keeps the in-place rule).
void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output);
// The portable kernel; the variant a build for `extension` runs, and this build's.
void portable_add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
                  const int8_t* input2, int8_t* output);
const char* add_kernel_variant(const BroadcastShape& shape, Extension extension);
const char* built_add_kernel_variant(const BroadcastShape& shape);
// Where the output may overlap input `input` (0 or 1) when it dies at the ADD
// (mote/kernels/overlap.h): the rule of the variant a build for `extension` runs, and this
// build's. Elementwise over an input of the output's shape, else none.
OverlapRule add_overlap(const BroadcastShape& shape, int32_t input, Extension extension);
OverlapRule built_add_overlap(const BroadcastShape& shape, int32_t input);

// output = input1 - input2, the same way: each input scaled to the common scale, then subtracted.
void sub(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output);

// int16 (16x8 models): TFLite's int16 ADD and SUB (the same arithmetic with 15 bits of
// headroom, zero points 0), broadcasting as above; portable in every build, no scratch, and the
// output may be an input of its shape. prepare_add_int16 is prepare_add with left_shift 15;
// add_int16_fits is add_fits for int16 inputs.
AddParams prepare_add_int16(float input1_scale, int32_t input1_zero_point, float input2_scale,
                            int32_t input2_zero_point, float output_scale,
                            int32_t output_zero_point, int32_t act_min, int32_t act_max);
bool add_int16_fits(const AddParams& params);
void add(const AddParams& params, const BroadcastShape& shape, const int16_t* input1,
         const int16_t* input2, int16_t* output);
void sub(const AddParams& params, const BroadcastShape& shape, const int16_t* input1,
         const int16_t* input2, int16_t* output);

// int16 ADD of two same-shape tensors of `count` elements (TFLite's general int16 add: the same
// formula, left_shift 15, offsets 0). Portable in every build.
void add(const AddParams& params, int32_t count, const int16_t* input1, const int16_t* input2,
         int16_t* output);

}  // namespace kernels
}  // namespace mote
