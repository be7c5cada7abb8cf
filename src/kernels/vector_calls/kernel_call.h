#pragma once
// One kernel call as bytes: the parameters and tensors of a reference-vector set (shared/vectors)
// for an operator with kernel variants, so that the same set runs through the kernels of any
// build: the host's vector test (kernel_call_vectors.cc reads the JSON into a call) and the
// firmware's, which reads calls written on the host through semihosting
// (targets/cortex-m/tests/vector_calls.cc). Test support; embeddable C++17 (no heap).
//
// Layout, little-endian, every field 4 bytes:
//   "MKC1"  kind  n_ints  ints[n_ints]  n_tensors  { element_bytes  count  data (padded to 4) }...
// An 8-byte tensor's data starts at a multiple of 8 from the call's start (a zero word before it
// when needed), so that its elements are aligned where the call's bytes are (decode_call checks).
// The ints are the kind's parameter fields in the order of visit_fields() in kernel_call.cc; the
// tensors are in the order of the kind's comment below, the expected output last.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/common.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {
namespace testing {

enum class CallKind : uint32_t {
  kConv = 1,            // input, filter, bias (may be empty), multipliers, shifts, expected
  kDepthwiseConv = 2,   // the same
  kFullyConnected = 3,  // input, filter, bias (may be empty), multipliers, shifts, expected
  kAveragePool = 4,     // input, expected
  kMaxPool = 5,         // input, expected
  kAdd = 6,             // input1, input2, expected
  kMul = 7,             // input1, input2, expected
  // int16 activations with int8 weights (16x8) and int8 activations with packed int4 weights:
  // the tensors of the int8 kinds above. 16x8: input and expected int16, the bias int64 or int32
  // (its element size picks the arithmetic, as the kernels' overloads). int4: the filter's
  // elements packed two per byte (its count the bytes, half the elements rounded up).
  kConv16x8 = 8,
  kDepthwiseConv16x8 = 9,
  kFullyConnected16x8 = 10,
  kConvInt4 = 11,
  kDepthwiseConvInt4 = 12,
  kFullyConnectedInt4 = 13,
};

inline constexpr uint32_t kCallMagic = 0x31434B4Du;  // "MKC1"
inline constexpr size_t kMaxCallInts = 32;
inline constexpr size_t kMaxCallTensors = 8;

struct CallTensor {
  const void* data;  // aligned to its element size (at most 8) when the call's bytes are to 8
  uint32_t element_bytes;  // 1, 2, 4 or 8 (signed integers)
  uint32_t count;
};

// Element i of a tensor of int8, int16 or int32 values (an output, an expected output).
inline int32_t value_at(const void* data, uint32_t element_bytes, uint32_t i) {
  switch (element_bytes) {
    case 2: return static_cast<const int16_t*>(data)[i];
    case 4: return static_cast<const int32_t*>(data)[i];
    default: return static_cast<const int8_t*>(data)[i];
  }
}

// A decoded call; points into the bytes it was decoded from.
struct KernelCall {
  CallKind kind;
  uint32_t n_ints;
  int32_t ints[kMaxCallInts];
  uint32_t n_tensors;
  CallTensor tensors[kMaxCallTensors];
};

// Decodes `size` bytes (4-byte aligned) into `call`; false if they are not a well-formed call of a
// known kind with the tensors its kind needs, each of the size its parameters imply.
bool decode_call(const uint8_t* bytes, size_t size, KernelCall* call);

// The expected output (the last tensor) and the output's element count.
const CallTensor& expected_output(const KernelCall& call);

// Scratch run_call needs: the kernel's for a build for `extension`, or for this build's own
// kernels; fully connected needs room there for its kernel sums and a second output instead.
size_t call_scratch_bytes(const KernelCall& call, Extension extension);
size_t built_call_scratch_bytes(const KernelCall& call);
// The name of the kernel variant this build runs for the call ("dsp", "portable").
const char* built_call_variant(const KernelCall& call);

enum class CallStatus {
  kOk,
  kOutputTooSmall,     // `output_bytes` below the expected output's bytes
  kScratchTooSmall,    // below built_call_scratch_bytes()
  kKernelSumsDiffer,   // fully connected: compile-time kernel sums change the result
};

// Runs the call on this build's kernels, writing expected_output(call).count values of the
// expected output's type to `output` (aligned for them). Fully connected (int8) also runs with
// kernel sums computed ahead (as the runtime does), in `scratch`, and must give the same result.
CallStatus run_call(const KernelCall& call, void* output, size_t output_bytes, Scratch scratch);

}  // namespace testing
}  // namespace kernels
}  // namespace mote
