#pragma once
// Plain integer operators (no quantization), as TFLM runs them on int32 tensors: the binary
// arithmetic with TFLite's broadcasting, and CAST between the integer types. Products and sums
// wrap modulo 2^32 as TFLM's int32 arithmetic does on the CPU (computed here in unsigned
// arithmetic, never undefined). Embeddable C++17.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/broadcast.h"

namespace mote {
namespace kernels {

enum class IntegerOp : uint8_t { kAdd, kMul, kDiv, kMinimum, kMaximum };

// out = clamp(a op b, act_min, act_max). kDiv truncates toward zero (C++'s /, TFLM's
// reference Div); TFLM leaves a zero divisor and INT32_MIN / -1 undefined: here x / 0 is 0 and
// INT32_MIN / -1 is INT32_MIN (the wrapped quotient).
void integer_binary(IntegerOp op, const BroadcastShape& shape, const int32_t* a, const int32_t* b,
                    int32_t* out, int32_t act_min, int32_t act_max);

// The integer types CAST converts between (TFLM's cast.cc: static_cast of each element).
enum class IntegerType : uint8_t { kInt8, kInt16, kInt32, kUInt32 };
void cast(IntegerType from, const void* input, IntegerType to, void* output, size_t count);

}  // namespace kernels
}  // namespace mote
