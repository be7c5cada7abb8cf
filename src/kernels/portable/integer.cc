// Plain integer operators (mote/kernels/integer.h).

#include "mote/kernels/integer.h"

#include <string.h>

#include "broadcast_loop.h"

namespace mote {
namespace kernels {
namespace {

inline int32_t wrap(uint32_t v) { return static_cast<int32_t>(v); }

int32_t apply(IntegerOp op, int32_t a, int32_t b) {
  switch (op) {
    case IntegerOp::kAdd: return wrap(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    case IntegerOp::kMul: return wrap(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
    case IntegerOp::kDiv:
      if (b == 0) return 0;
      if (b == -1) return wrap(0u - static_cast<uint32_t>(a));
      return a / b;
    case IntegerOp::kMinimum: return a < b ? a : b;
    case IntegerOp::kMaximum: return a > b ? a : b;
  }
  return 0;
}

template <typename T>
int64_t load(const void* p, size_t i) {
  T v;
  memcpy(&v, static_cast<const uint8_t*>(p) + i * sizeof(T), sizeof(T));
  return static_cast<int64_t>(v);
}

template <typename T>
void store(void* p, size_t i, int64_t v) {
  // static_cast to a narrower type: modulo 2^n (C++20's rule, GCC's before it).
  const T x = static_cast<T>(static_cast<uint64_t>(v));
  memcpy(static_cast<uint8_t*>(p) + i * sizeof(T), &x, sizeof(T));
}

}  // namespace

void integer_binary(IntegerOp op, const BroadcastShape& shape, const int32_t* a, const int32_t* b,
                    int32_t* out, int32_t act_min, int32_t act_max) {
  internal::broadcast_binary(shape, a, b, out, [&](int32_t x, int32_t y) {
    const int32_t v = apply(op, x, y);
    return v < act_min ? act_min : v > act_max ? act_max : v;
  });
}

void cast(IntegerType from, const void* input, IntegerType to, void* output, size_t count) {
  // Element by element from the first: an output over its input (the same size or smaller
  // elements) reads each input element before writing over it.
  for (size_t i = 0; i < count; ++i) {
    int64_t v = 0;
    switch (from) {
      case IntegerType::kInt8: v = load<int8_t>(input, i); break;
      case IntegerType::kInt16: v = load<int16_t>(input, i); break;
      case IntegerType::kInt32: v = load<int32_t>(input, i); break;
      case IntegerType::kUInt32: v = load<uint32_t>(input, i); break;
    }
    switch (to) {
      case IntegerType::kInt8: store<int8_t>(output, i, v); break;
      case IntegerType::kInt16: store<int16_t>(output, i, v); break;
      case IntegerType::kInt32: store<int32_t>(output, i, v); break;
      case IntegerType::kUInt32: store<uint32_t>(output, i, v); break;
    }
  }
}

}  // namespace kernels
}  // namespace mote
