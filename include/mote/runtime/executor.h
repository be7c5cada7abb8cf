#pragma once
// Runs a loaded Program in an arena the caller owns. No heap: all working memory is the arena,
// whose layout (activations and every kernel's scratch region) the compiler planned.

#include <stddef.h>
#include <stdint.h>

#include "mote/runtime/error.h"
#include "mote/runtime/program.h"

namespace mote {
namespace runtime {

/// A graph input or output: inside the arena, or (an input kept outside it) the caller's bound
/// buffer. `data` is null for an index out of range and for an external input not bound yet
/// (the other fields then still describe it, to size the buffer).
struct TensorView {
  uint8_t* data;
  size_t size;             // bytes
  DataType type;
  const int32_t* shape;    // `rank` dimensions, read from the program bytes
  size_t rank;
  float scale;             // real = scale * (q - zero_point); 0 when not quantized
  int32_t zero_point;
};

/// Every byte of memory a running program uses, for the "I mote: ..." report.
struct MemoryStatus {
  size_t program_size;    // the program bytes (flash)
  size_t constant_data;   // of which constants
  size_t arena_planned;   // the arena the plan needs (RAM)
  size_t activations;     // plan statistics: activation part of the arena
  size_t scratch;         //   scratch-only part of the arena
  size_t lower_bound;     //   largest total of live bytes at any step
  size_t runtime_state;   // RAM besides the arena: sizeof(Program) + sizeof(Executor)
  size_t temp_allocator;  // always 0: scratch is planned, nothing is allocated at run time
  size_t state;           // of the activations, the states' bytes (kept between runs; 0: none)
  size_t inputs_outside;  // bytes of the graph inputs kept outside the arena (the caller's)
};

namespace internal {
struct OpEnv;  // src/runtime/internal.h
}  // namespace internal

class Executor {
 public:
  /// Binds `arena[0, arena_size)` to `program`. The arena must hold program.arena_size() bytes
  /// at program.arena_alignment(); it must outlive the Executor, as must the program bytes.
  /// The Executor keeps a copy of the Program handle (two words). It sets every state to its
  /// initial value (reset_state()).
  static Result<Executor> create(const Program& program, uint8_t* arena, size_t arena_size);

  /// Sets every state (a TFLite variable tensor: the memory of SVDF, LSTM... that each run()
  /// reads and updates, kept in its own region of the arena between runs) to its initial value,
  /// TFLite's: the zero point for int8, zero for every other type. A new Executor starts so;
  /// call it to start a new sequence (for example a new utterance). Touches no other byte;
  /// no heap. A program without state has nothing to reset.
  void reset_state();

  size_t num_inputs() const { return program_.num_inputs(); }
  size_t num_outputs() const { return program_.num_outputs(); }
  /// Views of graph inputs (fill them before run()) and outputs (read them after).
  /// An input in the arena is not preserved by run(): the plan may give its bytes to later
  /// tensors once it is read, and with overlap (the compiler's default; `--no-overlap` turns it
  /// off) the first operators may write their outputs over it. After run() its bytes hold
  /// whatever the plan put there: fill the inputs before every run(). input_preserved() says
  /// whether a program keeps them; `mote plan` and `mote compile` report it too.
  TensorView input(size_t index) const;
  TensorView output(size_t index) const;

  /// Whether graph input `index` is kept outside the arena (compiled with
  /// `--inputs-outside-arena`): its bytes are a buffer the caller binds with bind_input().
  bool input_is_external(size_t index) const;
  /// Binds the caller's buffer `data[0, bytes)` to external graph input `index` (a camera frame,
  /// a DMA buffer, const data in flash): run() reads it in place and never writes it, so it is
  /// preserved. It must stay valid and unchanged during run(); bind again to switch buffers.
  /// Error::kInvalidArgument when `index` is out of range, the input is in the arena (fill
  /// input(index).data instead), `data` is null or not aligned to the element size, or `bytes`
  /// differs from the input's size. run() fails with Error::kInputNotBound until every
  /// external input is bound.
  [[nodiscard]] Error bind_input(size_t index, const void* data, size_t bytes);
  /// Whether graph input `index` is a float32 input of the model that the program holds quantized
  /// (int8 or int16, a quarter or half the arena bytes; `mote compile` does so unless
  /// `--float-inputs float`): the program leaves out the model's QUANTIZE of it, so write the
  /// floats with write_input(), which quantizes them exactly as that QUANTIZE would.
  bool input_takes_float(size_t index) const { return program_.input_takes_float(index); }
  /// Writes `count` floats into arena input `index`, elements [first, first + count) in the
  /// tensor's own order: copied into a float32 input, quantized into an int8 or int16 one with its
  /// scale and zero point (TFLite's QUANTIZE: round half away from zero, saturate). Writing a
  /// row or a few at a time needs no float buffer of the whole input. Error::kInvalidArgument for
  /// an index out of range, an external input, a range beyond the input, null values, or an
  /// input of another type or without a scale.
  [[nodiscard]] Error write_input(size_t index, const float* values, size_t count,
                                  size_t first = 0);
  /// Whether input `index` keeps its bytes through run(): an external input always does; an
  /// arena input when no other buffer of the plan (tensor or scratch) shares any of its bytes.
  /// False for an index out of range. O(tensors + operators).
  bool input_preserved(size_t index) const;

  /// Runs every operator in order. Inputs are read from the arena (or the caller's bound
  /// buffers), and outputs written to the arena. Error::kInputNotBound when an external input
  /// has no buffer bound.
  [[nodiscard]] Error run();
  /// Operators in execution order; run_operator(0), ..., run_operator(num_operators() - 1) is
  /// exactly run(). Lets a caller time or trace each operator (the firmware runner does). The
  /// operators of a row-streamed stage (a program compiled with --stream) run together, all at
  /// the stage's first index; the others of the stage then run nothing.
  size_t num_operators() const { return program_.num_operators(); }
  /// Runs operator `index` alone; Error::kInvalidArgument when `index` is out of range,
  /// Error::kInputNotBound as run().
  [[nodiscard]] Error run_operator(size_t index);

  MemoryStatus memory_status() const;
  const Program& program() const { return program_; }

 private:
  Executor(const Program& program, uint8_t* arena) : program_(program), arena_(arena) {}

  TensorView view(int32_t tensor_index) const;
  // Every external input has a buffer bound.
  bool inputs_bound() const;
  // What the operators run with (every external input bound).
  void fill_env(internal::OpEnv* env) const;
  // Operator `index` (in range), every external input bound: run() checks the bindings and
  // fills `env` once, not before each operator.
  Error run_bound(const internal::OpEnv& env, size_t index);

  Program program_;
  uint8_t* arena_;
  // Some operator runs a type form (16x8, int4 weights, int32: ops/op_forms.h), which
  // run_operator then looks up; an int8 program's operators skip that.
  bool type_forms_ = false;
  // The caller's buffers of external inputs, by input index (null: not bound).
  const uint8_t* external_[kMaxExternalInputs] = {};
};

/// Writes the five "I mote: ..." report lines (each ending in '\n'; a sixth, inputs_outside_arena,
/// for a program that keeps inputs outside the arena) into `out` and returns the length, or 0 if
/// `capacity` is too small (384 bytes suffice while every figure is below 2^32). No printf:
/// usable on firmware.
size_t format_memory_status(const MemoryStatus& status, char* out, size_t capacity);

/// Writes what Program::load's `error` and `diagnostic` say into `out` and returns the length, or
/// 0 if `capacity` is too small (the reason plus 64 bytes suffice), e.g. "invalid program:
/// operator 3 (CONV_2D): scratch region outside the arena". No printf: usable on firmware.
size_t format_load_error(Error error, const LoadDiagnostic& diagnostic, char* out,
                         size_t capacity);

/// Writes what Executor::create's `error` means for this program and arena into `out` and returns
/// the length, or 0 if `capacity` is too small (96 bytes suffice): the figures to act on, e.g.
/// "arena too small: the program needs 8448 bytes, the arena has 8000" or "arena misaligned: the
/// program needs 16-byte alignment, the arena's address % 16 is 4"; other errors
/// are their to_string(). No printf: usable on firmware.
size_t format_create_error(Error error, const Program& program, const uint8_t* arena,
                           size_t arena_size, char* out, size_t capacity);

}  // namespace runtime
}  // namespace mote
