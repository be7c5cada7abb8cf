#include "mote/kernels/mul.h"

#include "broadcast_loop.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

template <typename T>
struct MulOp {
  const MulParams& p;
  T operator()(T x1, T x2) const {
    const int32_t product = (p.input1_offset + x1) * (p.input2_offset + x2);
    int32_t out =
        p.output_offset + multiply_by_quantized_multiplier(product, p.output_multiplier, p.output_shift);
    out = out < p.act_min ? p.act_min : out;
    out = out > p.act_max ? p.act_max : out;
    return static_cast<T>(out);
  }
};

}  // namespace

bool mul_fits(const MulParams& p) {
  return requant_fits(int64_t{255} * 255, p.output_multiplier, p.output_shift);
}

bool mul_int16_fits(const MulParams& p) {
  return requant_fits(int64_t{32768} * 32768, p.output_multiplier, p.output_shift);
}

MulParams prepare_mul(float input1_scale, int32_t input1_zero_point, float input2_scale,
                      int32_t input2_zero_point, float output_scale, int32_t output_zero_point,
                      int32_t act_min, int32_t act_max) {
  MulParams p{};
  p.input1_offset = -input1_zero_point;
  p.input2_offset = -input2_zero_point;
  p.output_offset = output_zero_point;
  const double real_multiplier = static_cast<double>(input1_scale) *
                                 static_cast<double>(input2_scale) /
                                 static_cast<double>(output_scale);
  const QuantizedMultiplier m = quantize_multiplier(real_multiplier);
  p.output_multiplier = m.multiplier;
  p.output_shift = m.shift;
  p.act_min = act_min;
  p.act_max = act_max;
  return p;
}

void portable_mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
                  const int8_t* input2, int8_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, MulOp<int8_t>{params});
}

void mul(const MulParams& params, const BroadcastShape& shape, const int16_t* input1,
         const int16_t* input2, int16_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, MulOp<int16_t>{params});
}

}  // namespace kernels
}  // namespace mote
