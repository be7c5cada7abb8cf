// Decoding and running kernel calls (kernel_call.h) on this build's kernels.

#include "kernels/vector_calls/kernel_call.h"

#include <string.h>

#include "kernels/vector_calls/kernel_call_fields.h"

namespace mote {
namespace kernels {
namespace testing {
namespace {

// Reads the call's ints into a kind's fields, in order; false if the counts differ.
class IntReader {
 public:
  explicit IntReader(const KernelCall& call) : call_(call) {}
  void operator()(int32_t& field) {
    if (next_ < call_.n_ints) field = call_.ints[next_];
    ++next_;
  }
  bool exact() const { return next_ == call_.n_ints; }

 private:
  const KernelCall& call_;
  uint32_t next_ = 0;
};

template <typename P, typename Fields>
bool read_fields(const KernelCall& call, P* params, Fields fields) {
  IntReader reader(call);
  fields(*params, reader);
  return reader.exact();
}

bool conv_params(const KernelCall& call, ConvParams* p) {
  *p = ConvParams{};
  return read_fields(call, p, [](ConvParams& q, IntReader& r) { conv_fields(q, r); });
}

bool depthwise_params(const KernelCall& call, DepthwiseConvParams* p) {
  *p = DepthwiseConvParams{};
  return read_fields(call, p,
                     [](DepthwiseConvParams& q, IntReader& r) { depthwise_conv_fields(q, r); });
}

bool fully_connected_params(const KernelCall& call, FullyConnectedParams* p) {
  *p = FullyConnectedParams{};
  int32_t per_channel = 0;
  const bool ok = read_fields(call, p, [&](FullyConnectedParams& q, IntReader& r) {
    fully_connected_fields(q, per_channel, r);
  });
  p->per_channel = per_channel != 0;
  return ok;
}

bool pool_params(const KernelCall& call, PoolParams* p) {
  *p = PoolParams{};
  return read_fields(call, p, [](PoolParams& q, IntReader& r) { pool_fields(q, r); });
}

bool add_params(const KernelCall& call, AddParams* p, int32_t* count) {
  *p = AddParams{};
  return read_fields(call, p, [&](AddParams& q, IntReader& r) { add_fields(q, *count, r); });
}

bool mul_params(const KernelCall& call, MulParams* p, int32_t* count) {
  *p = MulParams{};
  return read_fields(call, p, [&](MulParams& q, IntReader& r) { mul_fields(q, *count, r); });
}

// Element counts as int64, so that hostile parameters cannot overflow; negative dims give < 0.
int64_t product(std::initializer_list<int32_t> dims) {
  int64_t n = 1;
  for (int32_t d : dims) {
    if (d < 0 || d > (1 << 20)) return -1;
    n *= d;
    if (n > (int64_t{1} << 40)) return -1;
  }
  return n;
}

struct Expected {
  uint32_t element_bytes;
  int64_t count;  // -1: "0 or `alternative`" is checked by the caller instead
};

bool tensors_are(const KernelCall& call, std::initializer_list<Expected> want) {
  if (call.n_tensors != want.size()) return false;
  size_t i = 0;
  for (const Expected& e : want) {
    const CallTensor& t = call.tensors[i++];
    if (t.element_bytes != e.element_bytes || e.count < 0 || t.count != e.count) return false;
  }
  return true;
}

// A bias is optional: an empty tensor means none.
int64_t optional(const KernelCall& call, size_t index, int64_t count) {
  return index < call.n_tensors && call.tensors[index].count == 0 ? 0 : count;
}

// The element sizes of a kind's input, (int4: packed) filter, bias and output.
struct Elements {
  uint32_t input, bias, output;
  bool packed;
};

bool is_16x8(CallKind kind) {
  return kind == CallKind::kConv16x8 || kind == CallKind::kDepthwiseConv16x8 ||
         kind == CallKind::kFullyConnected16x8;
}
bool is_int4(CallKind kind) {
  return kind == CallKind::kConvInt4 || kind == CallKind::kDepthwiseConvInt4 ||
         kind == CallKind::kFullyConnectedInt4;
}

Elements elements_of(const KernelCall& call) {
  if (is_16x8(call.kind)) {
    // An int64 bias (TFLite's) or an int32 one; none reads as int64.
    const uint32_t bias = call.n_tensors > 2 && call.tensors[2].element_bytes == 4 ? 4 : 8;
    return {2, bias, 2, false};
  }
  return {1, 4, 1, is_int4(call.kind)};
}

// The filter's bytes: one per element, or int4's two per byte.
int64_t filter_bytes(int64_t elements, bool packed) {
  return elements < 0 || !packed ? elements : (elements + 1) / 2;
}

bool conv_tensors_fit(const KernelCall& call) {
  ConvParams p;
  if (!conv_params(call, &p)) return false;
  const ConvShape& s = p.shape;
  const Elements e = elements_of(call);
  const int64_t oc = s.output_c < 0 ? -1 : s.output_c;
  return tensors_are(
      call, {{e.input, product({s.batches, s.input_h, s.input_w, s.input_c})},
             {1, filter_bytes(product({s.output_c, s.filter_h, s.filter_w, s.filter_c}), e.packed)},
             {e.bias, optional(call, 2, oc)},
             {4, oc},
             {4, oc},
             {e.output, product({s.batches, s.output_h, s.output_w, s.output_c})}});
}

bool depthwise_tensors_fit(const KernelCall& call) {
  DepthwiseConvParams p;
  if (!depthwise_params(call, &p)) return false;
  const DepthwiseShape& s = p.shape;
  const Elements e = elements_of(call);
  const int64_t oc = s.output_c < 0 ? -1 : s.output_c;
  return tensors_are(call,
                     {{e.input, product({s.batches, s.input_h, s.input_w, s.input_c})},
                      {1, filter_bytes(product({s.filter_h, s.filter_w, s.output_c}), e.packed)},
                      {e.bias, optional(call, 2, oc)},
                      {4, oc},
                      {4, oc},
                      {e.output, product({s.batches, s.output_h, s.output_w, s.output_c})}});
}

bool fully_connected_tensors_fit(const KernelCall& call) {
  FullyConnectedParams p;
  if (!fully_connected_params(call, &p)) return false;
  const Elements e = elements_of(call);
  const int64_t od = p.output_depth < 0 ? -1 : p.output_depth;
  const int64_t quant = p.per_channel ? od : 1;
  return tensors_are(call, {{e.input, product({p.batches, p.input_depth})},
                            {1, filter_bytes(product({p.output_depth, p.input_depth}), e.packed)},
                            {e.bias, optional(call, 2, od)},
                            {4, quant},
                            {4, quant},
                            {e.output, product({p.batches, p.output_depth})}});
}

bool pool_tensors_fit(const KernelCall& call) {
  PoolParams p;
  if (!pool_params(call, &p)) return false;
  return tensors_are(call, {{1, product({p.batches, p.input_h, p.input_w, p.channels})},
                            {1, product({p.batches, p.output_h, p.output_w, p.channels})}});
}

bool elementwise_tensors_fit(const KernelCall& call) {
  int32_t count = -1;
  AddParams a;
  MulParams m;
  const bool ok = call.kind == CallKind::kAdd ? add_params(call, &a, &count)
                                              : mul_params(call, &m, &count);
  const int64_t n = product({count});
  return ok && tensors_are(call, {{1, n}, {1, n}, {1, n}});
}

bool tensors_fit(const KernelCall& call) {
  switch (call.kind) {
    case CallKind::kConv:
    case CallKind::kConv16x8:
    case CallKind::kConvInt4:
      return conv_tensors_fit(call);
    case CallKind::kDepthwiseConv:
    case CallKind::kDepthwiseConv16x8:
    case CallKind::kDepthwiseConvInt4:
      return depthwise_tensors_fit(call);
    case CallKind::kFullyConnected:
    case CallKind::kFullyConnected16x8:
    case CallKind::kFullyConnectedInt4:
      return fully_connected_tensors_fit(call);
    case CallKind::kAveragePool:
    case CallKind::kMaxPool:
      return pool_tensors_fit(call);
    case CallKind::kAdd:
    case CallKind::kMul:
      return elementwise_tensors_fit(call);
  }
  return false;
}

const int8_t* int8s(const KernelCall& call, size_t i) {
  return static_cast<const int8_t*>(call.tensors[i].data);
}
template <typename T = int32_t>
const T* or_null(const KernelCall& call, size_t i) {
  return call.tensors[i].count == 0 ? nullptr : static_cast<const T*>(call.tensors[i].data);
}
const int32_t* int32s_or_null(const KernelCall& call, size_t i) { return or_null(call, i); }
template <typename T>
const T* data_of(const KernelCall& call, size_t i) {
  return static_cast<const T*>(call.tensors[i].data);
}

// The 16x8 and int4 kinds: the kernel of the call's form, on this build's variant.
void run_wide(const KernelCall& call, void* output) {
  const auto* mult = data_of<int32_t>(call, 3);
  const auto* shift = data_of<int32_t>(call, 4);
  const bool bias64 = elements_of(call).bias == 8;
  switch (call.kind) {
    case CallKind::kConv16x8: {
      ConvParams p;
      conv_params(call, &p);
      p.output_multiplier = mult;
      p.output_shift = shift;
      if (bias64) {
        conv2d_16x8(p, data_of<int16_t>(call, 0), int8s(call, 1), or_null<int64_t>(call, 2),
                    static_cast<int16_t*>(output));
      } else {
        conv2d_16x8(p, data_of<int16_t>(call, 0), int8s(call, 1), or_null<int32_t>(call, 2),
                    static_cast<int16_t*>(output));
      }
      return;
    }
    case CallKind::kConvInt4: {
      ConvParams p;
      conv_params(call, &p);
      p.output_multiplier = mult;
      p.output_shift = shift;
      conv2d_int4(p, int8s(call, 0), data_of<uint8_t>(call, 1), or_null(call, 2),
                  static_cast<int8_t*>(output));
      return;
    }
    case CallKind::kDepthwiseConv16x8: {
      DepthwiseConvParams p;
      depthwise_params(call, &p);
      p.output_multiplier = mult;
      p.output_shift = shift;
      // TFLite's 16x8 depthwise convolution has an int64 bias only.
      if (bias64) {
        depthwise_conv2d_16x8(p, data_of<int16_t>(call, 0), int8s(call, 1),
                              or_null<int64_t>(call, 2), static_cast<int16_t*>(output));
      }
      return;
    }
    case CallKind::kDepthwiseConvInt4: {
      DepthwiseConvParams p;
      depthwise_params(call, &p);
      p.output_multiplier = mult;
      p.output_shift = shift;
      depthwise_conv2d_int4(p, int8s(call, 0), data_of<uint8_t>(call, 1), or_null(call, 2),
                            static_cast<int8_t*>(output));
      return;
    }
    case CallKind::kFullyConnected16x8: {
      FullyConnectedParams p;
      fully_connected_params(call, &p);
      p.output_multiplier = mult;
      p.output_shift = shift;
      if (bias64) {
        fully_connected_16x8(p, data_of<int16_t>(call, 0), int8s(call, 1),
                             or_null<int64_t>(call, 2), static_cast<int16_t*>(output));
      } else {
        fully_connected_16x8(p, data_of<int16_t>(call, 0), int8s(call, 1),
                             or_null<int32_t>(call, 2), static_cast<int16_t*>(output));
      }
      return;
    }
    case CallKind::kFullyConnectedInt4: {
      FullyConnectedParams p;
      fully_connected_params(call, &p);
      p.output_multiplier = mult;
      p.output_shift = shift;
      fully_connected_int4(p, int8s(call, 0), data_of<uint8_t>(call, 1), or_null(call, 2),
                           static_cast<int8_t*>(output));
      return;
    }
    default:
      return;
  }
}

class ByteReader {
 public:
  ByteReader(const uint8_t* bytes, size_t size) : bytes_(bytes), size_(size) {}
  bool word(uint32_t* v) {
    if (size_ - at_ < 4) return false;
    memcpy(v, bytes_ + at_, 4);
    at_ += 4;
    return true;
  }
  // `n` bytes, then padding to 4; with `align8`, first the padding word that puts them at a
  // multiple of 8 from the start.
  const void* take(size_t n, bool align8) {
    if (align8 && at_ % 8 != 0) {
      if (size_ - at_ < 4) return nullptr;
      at_ += 4;
    }
    const size_t padded = (n + 3) & ~size_t{3};
    if (padded < n || size_ - at_ < padded) return nullptr;
    const void* p = bytes_ + at_;
    at_ += padded;
    return p;
  }
  bool done() const { return at_ == size_; }

 private:
  const uint8_t* bytes_;
  size_t size_;
  size_t at_ = 0;
};

}  // namespace

bool decode_call(const uint8_t* bytes, size_t size, KernelCall* call) {
  if (bytes == nullptr || reinterpret_cast<uintptr_t>(bytes) % 4 != 0) return false;
  // A call with 8-byte elements needs its bytes 8-aligned for them to be.
  const bool aligned8 = reinterpret_cast<uintptr_t>(bytes) % 8 == 0;
  ByteReader in(bytes, size);
  uint32_t magic = 0, kind = 0;
  if (!in.word(&magic) || magic != kCallMagic || !in.word(&kind)) return false;
  if (kind < static_cast<uint32_t>(CallKind::kConv) ||
      kind > static_cast<uint32_t>(CallKind::kFullyConnectedInt4)) {
    return false;
  }
  call->kind = static_cast<CallKind>(kind);
  if (!in.word(&call->n_ints) || call->n_ints > kMaxCallInts) return false;
  for (uint32_t i = 0; i < call->n_ints; ++i) {
    uint32_t v = 0;
    if (!in.word(&v)) return false;
    call->ints[i] = static_cast<int32_t>(v);
  }
  if (!in.word(&call->n_tensors) || call->n_tensors == 0 || call->n_tensors > kMaxCallTensors) {
    return false;
  }
  for (uint32_t i = 0; i < call->n_tensors; ++i) {
    CallTensor& t = call->tensors[i];
    if (!in.word(&t.element_bytes) || !in.word(&t.count)) return false;
    if (t.element_bytes != 1 && t.element_bytes != 2 && t.element_bytes != 4 &&
        t.element_bytes != 8) {
      return false;
    }
    if (t.count > size) return false;  // every element takes a byte at least: no overflow below
    if (t.element_bytes == 8 && !aligned8) return false;
    t.data = in.take(size_t{t.count} * t.element_bytes, t.element_bytes == 8);
    if (t.data == nullptr) return false;
  }
  return in.done() && tensors_fit(*call);
}

const CallTensor& expected_output(const KernelCall& call) { return call.tensors[call.n_tensors - 1]; }

size_t call_scratch_bytes(const KernelCall& call, Extension extension) {
  switch (call.kind) {
    case CallKind::kConv: {
      ConvParams p;
      conv_params(call, &p);
      return conv_scratch_bytes(p.shape, extension);
    }
    case CallKind::kDepthwiseConv: {
      DepthwiseConvParams p;
      depthwise_params(call, &p);
      return depthwise_conv_scratch_bytes(p.shape, extension);
    }
    case CallKind::kFullyConnected: {
      FullyConnectedParams p;
      fully_connected_params(call, &p);
      return static_cast<size_t>(p.output_depth) * sizeof(int32_t) +
             static_cast<size_t>(p.batches) * static_cast<size_t>(p.output_depth);
    }
    case CallKind::kAveragePool: {
      PoolParams p;
      pool_params(call, &p);
      return average_pool_scratch_bytes(p.channels, extension);
    }
    default:  // max pool, add, mul, the 16x8 and int4 kinds
      return 0;
  }
}

size_t built_call_scratch_bytes(const KernelCall& call) {
  switch (call.kind) {
    case CallKind::kConv: {
      ConvParams p;
      conv_params(call, &p);
      return built_conv_scratch_bytes(p.shape);
    }
    case CallKind::kDepthwiseConv: {
      DepthwiseConvParams p;
      depthwise_params(call, &p);
      return built_depthwise_conv_scratch_bytes(p.shape);
    }
    case CallKind::kAveragePool: {
      // No "built" size for the pool: the largest any variant plans.
      size_t most = 0;
      for (Extension e : {Extension::kScalar, Extension::kDsp, Extension::kMve}) {
        const size_t n = call_scratch_bytes(call, e);
        if (n > most) most = n;
      }
      return most;
    }
    default:
      return call_scratch_bytes(call, Extension::kScalar);
  }
}

const char* built_call_variant(const KernelCall& call) {
  switch (call.kind) {
    case CallKind::kConv: {
      ConvParams p;
      conv_params(call, &p);
      return built_conv_kernel_variant(p.shape);
    }
    case CallKind::kDepthwiseConv: {
      DepthwiseConvParams p;
      depthwise_params(call, &p);
      return built_depthwise_conv_kernel_variant(p.shape);
    }
    case CallKind::kFullyConnected: {
      FullyConnectedParams p;
      fully_connected_params(call, &p);
      return built_fully_connected_kernel_variant(p.output_depth);
    }
    case CallKind::kAveragePool: {
      PoolParams p;
      pool_params(call, &p);
      return built_average_pool_kernel_variant(p);
    }
    case CallKind::kMaxPool: {
      PoolParams p;
      pool_params(call, &p);
      return built_max_pool_kernel_variant(p);
    }
    case CallKind::kAdd: {
      int32_t count = 0;
      AddParams p;
      add_params(call, &p, &count);
      return built_add_kernel_variant(elementwise_shape(count));
    }
    case CallKind::kMul: {
      int32_t count = 0;
      MulParams p;
      mul_params(call, &p, &count);
      return built_mul_kernel_variant(elementwise_shape(count));
    }
    case CallKind::kConv16x8:
    case CallKind::kConvInt4: {
      ConvParams p;
      conv_params(call, &p);
      return call.kind == CallKind::kConv16x8 ? built_conv_16x8_kernel_variant(p.shape)
                                               : built_conv_int4_kernel_variant(p.shape);
    }
    case CallKind::kDepthwiseConv16x8:
    case CallKind::kDepthwiseConvInt4: {
      DepthwiseConvParams p;
      depthwise_params(call, &p);
      return call.kind == CallKind::kDepthwiseConv16x8
                 ? built_depthwise_conv_16x8_kernel_variant(p.shape)
                 : built_depthwise_conv_int4_kernel_variant(p.shape);
    }
    case CallKind::kFullyConnected16x8:
    case CallKind::kFullyConnectedInt4: {
      FullyConnectedParams p;
      fully_connected_params(call, &p);
      return call.kind == CallKind::kFullyConnected16x8
                 ? built_fully_connected_16x8_kernel_variant(p.output_depth)
                 : built_fully_connected_int4_kernel_variant(p.output_depth);
    }
    default:
      return "portable";
  }
}

CallStatus run_call(const KernelCall& call, void* output_bytes_at, size_t output_bytes,
                    Scratch scratch) {
  const CallTensor& expected = expected_output(call);
  if (output_bytes / expected.element_bytes < expected.count) return CallStatus::kOutputTooSmall;
  if (scratch.size < built_call_scratch_bytes(call)) return CallStatus::kScratchTooSmall;
  int8_t* const output = static_cast<int8_t*>(output_bytes_at);
  switch (call.kind) {
    case CallKind::kConv: {
      ConvParams p;
      conv_params(call, &p);
      p.output_multiplier = static_cast<const int32_t*>(call.tensors[3].data);
      p.output_shift = static_cast<const int32_t*>(call.tensors[4].data);
      conv2d(p, int8s(call, 0), int8s(call, 1), int32s_or_null(call, 2), output, scratch);
      return CallStatus::kOk;
    }
    case CallKind::kDepthwiseConv: {
      DepthwiseConvParams p;
      depthwise_params(call, &p);
      p.output_multiplier = static_cast<const int32_t*>(call.tensors[3].data);
      p.output_shift = static_cast<const int32_t*>(call.tensors[4].data);
      depthwise_conv2d(p, int8s(call, 0), int8s(call, 1), int32s_or_null(call, 2), output, scratch);
      return CallStatus::kOk;
    }
    case CallKind::kFullyConnected: {
      FullyConnectedParams p;
      fully_connected_params(call, &p);
      p.output_multiplier = static_cast<const int32_t*>(call.tensors[3].data);
      p.output_shift = static_cast<const int32_t*>(call.tensors[4].data);
      const int32_t* bias = int32s_or_null(call, 2);
      fully_connected(p, int8s(call, 0), int8s(call, 1), bias, output);
      // Again with the sums the compiler computes ahead (scratch: the sums, then that output).
      int32_t* sums = reinterpret_cast<int32_t*>(scratch.data);
      int8_t* again = scratch.data + static_cast<size_t>(p.output_depth) * sizeof(int32_t);
      fully_connected_kernel_sums(p, int8s(call, 1), bias, sums);
      FullyConnectedParams with_sums = p;
      with_sums.kernel_sums = sums;
      fully_connected(with_sums, int8s(call, 0), int8s(call, 1), nullptr, again);
      const size_t n = expected_output(call).count;
      return memcmp(output, again, n) == 0 ? CallStatus::kOk : CallStatus::kKernelSumsDiffer;
    }
    case CallKind::kAveragePool: {
      PoolParams p;
      pool_params(call, &p);
      average_pool(p, int8s(call, 0), output, scratch);
      return CallStatus::kOk;
    }
    case CallKind::kMaxPool: {
      PoolParams p;
      pool_params(call, &p);
      max_pool(p, int8s(call, 0), output);
      return CallStatus::kOk;
    }
    case CallKind::kAdd: {
      AddParams p;
      int32_t count = 0;
      add_params(call, &p, &count);
      add(p, elementwise_shape(count), int8s(call, 0), int8s(call, 1), output);
      return CallStatus::kOk;
    }
    case CallKind::kMul: {
      MulParams p;
      int32_t count = 0;
      mul_params(call, &p, &count);
      mul(p, elementwise_shape(count), int8s(call, 0), int8s(call, 1), output);
      return CallStatus::kOk;
    }
    default:
      run_wide(call, output);
      return CallStatus::kOk;
  }
}

}  // namespace testing
}  // namespace kernels
}  // namespace mote
