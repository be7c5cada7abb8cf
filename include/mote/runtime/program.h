#pragma once
// A verified Mote program, read in place from its bytes (which may sit in flash).

#include <stddef.h>
#include <stdint.h>

#include "mote/runtime/error.h"

namespace mote {
namespace schema {
struct Program;  // the FlatBuffers root table (mote/schema/mote_generated.h)
}  // namespace schema

namespace runtime {

/// The program format version this runtime reads.
inline constexpr uint32_t kFormatVersion = 1;
/// Program bytes must start at this alignment: constants inside are read in place.
inline constexpr size_t kProgramAlignment = 16;
/// Largest tensor rank the runtime accepts.
inline constexpr size_t kMaxRank = 6;
/// Most tensors and most operators a program may have (Error::kUnsupported above): they bound
/// the time Program::load takes and the workspace its plan check needs.
inline constexpr size_t kMaxTensors = 16384;
inline constexpr size_t kMaxOperators = 16384;
/// Graph inputs a program may keep outside the arena (schema Location::External), which the
/// caller binds with Executor::bind_input: only the first kMaxExternalInputs inputs may be. The
/// Executor holds a pointer for each (no heap), so this bounds its size.
inline constexpr size_t kMaxExternalInputs = 4;

/// 32-bit words of workspace with which Program::load checks the plan of a program with these
/// counts in O(n log n): four per arena buffer (tensor or scratch region; the check needs them
/// only for those in the arena with a size) and a segment tree over the operator steps.
/// load_workspace_words(kMaxTensors, kMaxOperators) fits any program.
constexpr size_t load_workspace_words(size_t num_tensors, size_t num_operators) {
  return 4 * (num_tensors + num_operators) + 3 * (num_operators > 0 ? num_operators : 1);
}
/// Program::load without a workspace uses this many words of its own stack (1 KiB); a program
/// that needs more is checked pair by pair instead (O(n^2), no memory, the same verdicts).
inline constexpr size_t kLoadStackWorkspaceWords = 256;

/// Element types; the values equal the schema's DataType.
/// kInt4: weights packed two per byte, constants only (never an input or output).
enum class DataType : uint8_t { kFloat32, kInt8, kInt16, kInt32, kInt64, kUInt8, kBool, kInt4,
                                 kUInt32, kUInt64 };

/// The CPU extension a program was planned for; the values equal kernels::Extension.
enum class Extension : uint8_t { kScalar = 0, kDsp = 1, kMve = 2 };

/// Where Program::load found a defect, for messages ("operator 3: scratch region outside arena").
struct LoadDiagnostic {
  enum class Where : uint8_t { kProgram, kTensor, kOperator, kInput, kOutput };
  Where where = Where::kProgram;
  uint32_t index = 0;           // tensor, operator, input or output index
  const char* reason = "";      // a static string, never null
  const char* op_name = "";     // kOperator: the operator's kind ("CONV_2D"), "" if unknown
  // Set when a program planned for another extension's kernels than this runtime's fails a check
  // (its scratch sizes and overlaps are theirs): the CPU the program names (in the program's
  // bytes), the kernels this runtime runs ("dsp", "mve") and the CPU it was built for ("" when
  // its build did not say: MOTE_RUNTIME_CPU, which Mote's CMake sets from MOTE_CPU); the reason
  // then says to recompile.
  const char* program_cpu = "";
  const char* runtime_kernels = "";
  const char* runtime_cpu = "";
};

/// A handle to verified program bytes: two words, no copy of any metadata. The bytes must stay
/// valid and unchanged while the Program (or an Executor built from it) is in use.
class Program {
 public:
  /// Verifies `data[0, size)` completely: the FlatBuffers structure, then every index, offset,
  /// size, shape, operator arity and parameter, and the memory plan (no two buffers that are live
  /// at the same step share a byte). `data` must be 16-byte aligned. On failure, returns the
  /// Error and, when `diagnostic` is not null, fills it.
  /// The plan check runs in O(n log n) when the program needs at most kLoadStackWorkspaceWords
  /// of workspace (most models), else pair by pair; pass a workspace to bound the time of any
  /// program (a device that loads programs it did not build).
  static Result<Program> load(const uint8_t* data, size_t size,
                              LoadDiagnostic* diagnostic = nullptr);
  /// The same checks and verdicts, with `workspace_words` words of caller memory for the plan
  /// check: O(n log n) whenever workspace_words >= load_workspace_words(tensors, operators).
  /// The check of row-streamed stages, which runs before it, keeps its table of a stage's
  /// operators and their reads (832 bytes on a 32-bit CPU) there too when the workspace holds
  /// it, else on the stack.
  static Result<Program> load(const uint8_t* data, size_t size, uint32_t* workspace,
                              size_t workspace_words, LoadDiagnostic* diagnostic = nullptr);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  /// The root table; valid only for a loaded program.
  const schema::Program* root() const;

  size_t num_tensors() const;
  size_t num_operators() const;
  size_t num_inputs() const;
  size_t num_outputs() const;
  /// Whether graph input `index` is a float32 input of the model that the program holds
  /// quantized (Executor::write_input); false for an index out of range.
  bool input_takes_float(size_t index) const;
  /// Arena bytes and alignment the plan needs.
  size_t arena_size() const;
  size_t arena_alignment() const;
  /// The constant blob (weights, biases, multipliers...) inside the program bytes.
  const uint8_t* constants() const;
  size_t constants_size() const;
  Extension extension() const;
  /// The CPU the program was compiled for (`mote compile --target`), "" if it names none.
  const char* target_cpu() const;
  /// TFLite's name of operator `index`'s kind ("CONV_2D"); "" for an index out of range.
  const char* operator_name(size_t index) const;

 private:
  Program(const uint8_t* data, uint32_t size) : data_(data), size_(size) {}

  const uint8_t* data_;
  uint32_t size_;
};

}  // namespace runtime
}  // namespace mote
