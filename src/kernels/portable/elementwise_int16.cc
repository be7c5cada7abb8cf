// ADD and MUL of same-shape int16 tensors (16x8 models): the int8 kernels' arithmetic on int16
// values, as TFLite's reference int16 AddElementwise and MulElementwise.

#include "mote/kernels/add.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

int16_t clamp16(int32_t v, int32_t lo, int32_t hi) {
  return static_cast<int16_t>(v < lo ? lo : (v > hi ? hi : v));
}

}  // namespace

void add(const AddParams& params, int32_t count, const int16_t* input1, const int16_t* input2,
         int16_t* output) {
  const AddParams p = params;  // a local copy: output stores could alias params
  for (int32_t i = 0; i < count; ++i) {
    const int32_t x1 = static_cast<int32_t>(static_cast<uint32_t>(input1[i] + p.input1_offset)
                                            << p.left_shift);
    const int32_t x2 = static_cast<int32_t>(static_cast<uint32_t>(input2[i] + p.input2_offset)
                                            << p.left_shift);
    const int32_t v1 = multiply_by_quantized_multiplier(x1, p.input1_multiplier, p.input1_shift);
    const int32_t v2 = multiply_by_quantized_multiplier(x2, p.input2_multiplier, p.input2_shift);
    const int32_t sum = multiply_by_quantized_multiplier(v1 + v2, p.output_multiplier, p.output_shift);
    output[i] = clamp16(sum + p.output_offset, p.act_min, p.act_max);
  }
}

void mul(const MulParams& params, int32_t count, const int16_t* input1, const int16_t* input2,
         int16_t* output) {
  const MulParams p = params;
  for (int32_t i = 0; i < count; ++i) {
    const int32_t product = (input1[i] + p.input1_offset) * (input2[i] + p.input2_offset);
    const int32_t v = multiply_by_quantized_multiplier(product, p.output_multiplier, p.output_shift);
    output[i] = clamp16(v + p.output_offset, p.act_min, p.act_max);
  }
}

}  // namespace kernels
}  // namespace mote
