#pragma once
// Runs a loaded Program in an arena the caller owns. No heap: all working memory is the arena,
// whose layout (activations and every kernel's scratch region) the compiler planned.

#include <stddef.h>
#include <stdint.h>

#include "mote/runtime/error.h"
#include "mote/runtime/program.h"

namespace mote {
namespace runtime {

/// A graph input or output inside the arena. `data` is null for an index out of range.
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
};

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
  /// Views of graph inputs (fill them before run()) and outputs (read them after). A program
  /// planned with overlap (the compiler's default; `--no-overlap` turns it off) may let the first
  /// operators write over an input's bytes: fill the inputs before every run().
  TensorView input(size_t index) const;
  TensorView output(size_t index) const;

  /// Runs every operator in order. Inputs are read from, and outputs written to, the arena.
  [[nodiscard]] Error run();
  /// Operators in execution order; run_operator(0), ..., run_operator(num_operators() - 1) is
  /// exactly run(). Lets a caller time or trace each operator (the firmware runner does).
  size_t num_operators() const { return program_.num_operators(); }
  /// Runs operator `index` alone; Error::kInvalidArgument when `index` is out of range.
  [[nodiscard]] Error run_operator(size_t index);

  MemoryStatus memory_status() const;
  const Program& program() const { return program_; }

 private:
  Executor(const Program& program, uint8_t* arena, uint32_t arena_size)
      : program_(program), arena_(arena), arena_size_(arena_size) {}

  TensorView view(int32_t tensor_index) const;

  Program program_;
  uint8_t* arena_;
  uint32_t arena_size_;
};

/// Writes the five "I mote: ..." report lines (each ending in '\n') into `out` and returns the
/// length, or 0 if `capacity` is too small (256 bytes always suffice). No printf: usable on
/// firmware.
size_t format_memory_status(const MemoryStatus& status, char* out, size_t capacity);

}  // namespace runtime
}  // namespace mote
