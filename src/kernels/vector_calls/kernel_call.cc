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

bool conv_tensors_fit(const KernelCall& call) {
  ConvParams p;
  if (!conv_params(call, &p)) return false;
  const ConvShape& s = p.shape;
  const int64_t oc = s.output_c < 0 ? -1 : s.output_c;
  return tensors_are(call, {{1, product({s.batches, s.input_h, s.input_w, s.input_c})},
                            {1, product({s.output_c, s.filter_h, s.filter_w, s.filter_c})},
                            {4, optional(call, 2, oc)},
                            {4, oc},
                            {4, oc},
                            {1, product({s.batches, s.output_h, s.output_w, s.output_c})}});
}

bool depthwise_tensors_fit(const KernelCall& call) {
  DepthwiseConvParams p;
  if (!depthwise_params(call, &p)) return false;
  const DepthwiseShape& s = p.shape;
  const int64_t oc = s.output_c < 0 ? -1 : s.output_c;
  return tensors_are(call, {{1, product({s.batches, s.input_h, s.input_w, s.input_c})},
                            {1, product({s.filter_h, s.filter_w, s.output_c})},
                            {4, optional(call, 2, oc)},
                            {4, oc},
                            {4, oc},
                            {1, product({s.batches, s.output_h, s.output_w, s.output_c})}});
}

bool fully_connected_tensors_fit(const KernelCall& call) {
  FullyConnectedParams p;
  if (!fully_connected_params(call, &p)) return false;
  const int64_t od = p.output_depth < 0 ? -1 : p.output_depth;
  const int64_t quant = p.per_channel ? od : 1;
  return tensors_are(call, {{1, product({p.batches, p.input_depth})},
                            {1, product({p.output_depth, p.input_depth})},
                            {4, optional(call, 2, od)},
                            {4, quant},
                            {4, quant},
                            {1, product({p.batches, p.output_depth})}});
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
      return conv_tensors_fit(call);
    case CallKind::kDepthwiseConv:
      return depthwise_tensors_fit(call);
    case CallKind::kFullyConnected:
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
const int32_t* int32s_or_null(const KernelCall& call, size_t i) {
  return call.tensors[i].count == 0 ? nullptr : static_cast<const int32_t*>(call.tensors[i].data);
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
  // `n` bytes, then padding to 4.
  const void* take(size_t n) {
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
  ByteReader in(bytes, size);
  uint32_t magic = 0, kind = 0;
  if (!in.word(&magic) || magic != kCallMagic || !in.word(&kind)) return false;
  if (kind < static_cast<uint32_t>(CallKind::kConv) || kind > static_cast<uint32_t>(CallKind::kMul)) {
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
    if (t.element_bytes != 1 && t.element_bytes != 4) return false;
    if (t.count > size) return false;  // every element takes a byte at least: no overflow below
    t.data = in.take(size_t{t.count} * t.element_bytes);
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
    case CallKind::kMaxPool:
    case CallKind::kAdd:
    case CallKind::kMul:
      return 0;
  }
  return 0;
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
    default:
      return "portable";
  }
}

CallStatus run_call(const KernelCall& call, int8_t* output, size_t output_size, Scratch scratch) {
  if (output_size < expected_output(call).count) return CallStatus::kOutputTooSmall;
  if (scratch.size < built_call_scratch_bytes(call)) return CallStatus::kScratchTooSmall;
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
  }
  return CallStatus::kOk;
}

}  // namespace testing
}  // namespace kernels
}  // namespace mote
