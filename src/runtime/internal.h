#pragma once
// Shared by the runtime's sources: typed access to verified program metadata.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"

namespace mote {
namespace runtime {
namespace internal {

// Concatenation inputs the runtime accepts (their pointers and parameters sit on the stack).
inline constexpr size_t kMaxConcatenationInputs = 16;

// Bytes per element; 0 for a value outside the enum. Int4 packs two elements in a byte: 1 here,
// the byte they share (storage_bytes is exact).
inline size_t element_size(schema::DataType type) {
  switch (type) {
    case schema::DataType::Float32: return 4;
    case schema::DataType::Int8: return 1;
    case schema::DataType::Int16: return 2;
    case schema::DataType::Int32: return 4;
    case schema::DataType::Int64: return 8;
    case schema::DataType::UInt8: return 1;
    case schema::DataType::Bool: return 1;
    case schema::DataType::Int4: return 1;
    case schema::DataType::UInt32: return 4;
    case schema::DataType::UInt64: return 8;
  }
  return 0;
}

// Bytes that hold `count` elements of `type`.
inline uint64_t storage_bytes(schema::DataType type, uint64_t count) {
  return type == schema::DataType::Int4 ? (count + 1) / 2 : count * element_size(type);
}

inline size_t rank(const schema::Tensor& t) { return t.shape() ? t.shape()->size() : 0; }
inline int32_t dim(const schema::Tensor& t, size_t i) { return t.shape()->Get(static_cast<flatbuffers::uoffset_t>(i)); }
inline const int32_t* shape_data(const schema::Tensor& t) {
  return t.shape() ? t.shape()->data() : nullptr;
}
// Of an Int4 tensor, its bytes: only the weights of the operators whose signature takes int4
// are Int4 (OpSignature::int4_weights), and those read their shape instead.
inline size_t element_count(const schema::Tensor& t) { return t.size() / element_size(t.type()); }
// The elements of its shape, which a ring of rows (Tensor.ring_rows) holds only some of in its
// bytes; the loader checked every dimension positive and the product within 2^32.
inline uint64_t shape_elements(const schema::Tensor& t) {
  uint64_t count = 1;
  for (size_t d = 0; d < rank(t); ++d) count *= static_cast<uint64_t>(dim(t, d));
  return count;
}

// An int32 at a 4-byte aligned position of the constant blob (little-endian targets only).
inline int32_t load_i32(const uint8_t* p) {
  int32_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

// Whether arena byte ranges [a_offset, +a_size) and [b_offset, +b_size) share a byte (an empty
// range shares none).
inline bool ranges_overlap(uint32_t a_offset, uint32_t a_size, uint32_t b_offset,
                           uint32_t b_size) {
  const uint64_t a_end = uint64_t{a_offset} + a_size;
  const uint64_t b_end = uint64_t{b_offset} + b_size;
  return a_size != 0 && b_size != 0 && a_offset < b_end && b_offset < a_end;
}

inline size_t num_inputs(const schema::Operator& op) { return op.inputs() ? op.inputs()->size() : 0; }
inline size_t num_outputs(const schema::Operator& op) { return op.outputs() ? op.outputs()->size() : 0; }
inline int32_t input_index(const schema::Operator& op, size_t i) {
  return op.inputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
}
inline int32_t output_index(const schema::Operator& op, size_t i) {
  return op.outputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
}

// The slot of an external graph input (schema Location::External): its position among the
// program's first kMaxExternalInputs inputs, where the Executor keeps the caller's buffer; -1
// for a tensor that is not one of them.
inline int32_t external_slot(const schema::Program& program, int32_t tensor) {
  const auto& inputs = *program.inputs();
  const uint32_t n = inputs.size() < kMaxExternalInputs ? inputs.size()
                                                        : static_cast<uint32_t>(kMaxExternalInputs);
  for (uint32_t k = 0; k < n; ++k) {
    if (inputs.Get(k) == tensor) return static_cast<int32_t>(k);
  }
  return -1;
}

// A load check's failure: fills `diagnostic` (when not null) and returns `error`.
inline Error fail(LoadDiagnostic* diagnostic, Error error, LoadDiagnostic::Where where,
                  uint32_t index, const char* reason) {
  if (diagnostic != nullptr) {
    diagnostic->where = where;
    diagnostic->index = index;
    diagnostic->reason = reason;
    diagnostic->op_name = "";
  }
  return error;
}

// Program::load's checks (program.cc), which program_load.cc calls.
// Null, misaligned or oversized bytes.
Error check_program_bytes(const uint8_t* data, size_t size, LoadDiagnostic* diagnostic);
// Everything: check_program_bytes, the FlatBuffers verifier, every rule of the format and the plan.
Error check_program(const uint8_t* data, size_t size, uint32_t* workspace, size_t workspace_words,
                    LoadDiagnostic* diagnostic);
// Of a program the host verified (MOTE_VERIFY crc): planned for this runtime's kernels, or for
// the portable ones where this runtime has them alone.
Error check_trusted_target(const schema::Program& program, LoadDiagnostic* diagnostic);

// What operator `index` of a program is checked against: its tensors, graph inputs/outputs and
// constants are already checked (program.cc).
struct OpCheckContext {
  const schema::Program* program;
  const uint8_t* constants;
  uint32_t constants_size;
  uint32_t index;
  const char** reason;  // set on failure
  bool has_int4;        // some tensor of the program is Int4 (the signature looks where)
};

// What an operator runs with; nothing is kept between operators.
struct OpEnv {
  const schema::Program* program;
  uint8_t* arena;
  const uint8_t* constants;
  // The caller's buffers of external graph inputs, by slot (external_slot); all bound.
  const uint8_t* const* external;
  // Some operator runs a type form (op_forms.h: 16x8, int4 weights, int32); false: none does.
  bool type_forms;
};

// The operator table's uses (operators.cc): the load-time check of one operator (its kind is
// built in, its own rules hold, its planned scratch holds what the kernel needs), the scratch
// bytes its kernel needs on the program's target extension, and running it.
Error validate_operator(const OpCheckContext& context, const schema::Operator& op);
size_t required_scratch_bytes(const schema::Program& program, const schema::Operator& op);
Error run_operator(const OpEnv& env, const schema::Operator& op);
// The words of `op`'s prepared call (Operator.call) into words[kMaxCallWords] and their count
// (0: its whole-map form takes none); false when its tensors are not where a call can have them.
// Reads the operator's fields unchecked beyond what the loader checked before its call words.
bool call_words(const schema::Program& program, const schema::Operator& op, int32_t* words,
                size_t* count);

}  // namespace internal
}  // namespace runtime
}  // namespace mote
