#pragma once
// The runner's adapter to Mote's runtime (include/mote/runtime): Model::load is Program::load plus
// Executor::create, run() is Executor::run(), run_operator(i) Executor::run_operator(i), and
// print_memory_status prints format_memory_status(), the same five "I mote: ..." lines as
// `mote run` on the host.
// The Program and Executor handles live inside Model, on the runner's stack; the runtime itself
// keeps nothing in static RAM.

#include <stddef.h>
#include <stdint.h>

#include "mote/runtime/error.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"
#include "platform/console.h"
#include "runner/runner.h"

namespace mote {
namespace runner {

class Model {
 public:
  /// Verifies `program` in place (it must stay valid and 16-byte aligned) and binds the start
  /// of `arena`, rounded up to the program's arena alignment.
  Status load(ConstBytes program, Bytes arena) {
    runtime::LoadDiagnostic where;
    const runtime::Result<runtime::Program> loaded =
        runtime::Program::load(program.data, program.size, &where);
    if (!loaded.ok()) {
      runtime::format_load_error(loaded.error(), where, message_, sizeof(message_));
      return {static_cast<int>(loaded.error()), message_};
    }
    const size_t alignment = loaded->arena_alignment();
    const size_t skip = (alignment - reinterpret_cast<uintptr_t>(arena.data) % alignment) % alignment;
    // The bytes needed and given, so the message says how much the runner's arena lacks.
    const size_t usable = skip > arena.size ? 0 : arena.size - skip;
    executor_ = runtime::Executor::create(*loaded, arena.data + skip, usable);
    if (!executor_.ok()) {
      runtime::format_create_error(executor_.error(), *loaded, arena.data + skip, usable, message_,
                                   sizeof(message_));
      return {static_cast<int>(executor_.error()), message_};
    }
    return kOk;
  }

  size_t input_count() const { return executor_->num_inputs(); }
  Bytes input(size_t i) {
    const runtime::TensorView view = executor_->input(i);
    return {view.data, view.size};
  }
  // An input compiled outside the arena (--inputs-outside-arena) reads `data` in place.
  bool input_is_external(size_t i) const { return executor_->input_is_external(i); }
  bool bind_input(size_t i, const uint8_t* data, size_t size) {
    return executor_->bind_input(i, data, size) == runtime::Error::kOk;
  }
  // A float input the program holds quantized: its elements, which the runner writes as floats
  // (Executor::write_input quantizes them); 0 for any other input.
  size_t input_float_count(size_t i) const {
    if (!executor_->input_takes_float(i)) return 0;
    const runtime::TensorView view = executor_->input(i);
    return view.type == runtime::DataType::kInt16 ? view.size / 2 : view.size;
  }
  bool write_input_float(size_t i, const float* values, size_t count, size_t first) {
    return executor_->write_input(i, values, count, first) == runtime::Error::kOk;
  }
  size_t output_count() const { return executor_->num_outputs(); }
  ConstBytes output(size_t i) const {
    const runtime::TensorView view = executor_->output(i);
    return {view.data, view.size};
  }
  size_t operator_count() const { return executor_->num_operators(); }
  const char* operator_name(size_t i) const {
    const auto* ops = executor_->program().root()->operators();
    if (i >= ops->size()) return "?";
    return schema::EnumNameOpKind(ops->Get(static_cast<flatbuffers::uoffset_t>(i))->kind());
  }

  Status run() { return status(executor_->run()); }
  Status run_operator(size_t i) { return status(executor_->run_operator(i)); }

  // TFLite's variable tensors (SVDF's, an LSTM's states) back to their initial values.
  void reset_state() { executor_->reset_state(); }

  void print_memory_status() const {
    char text[384];
    const size_t length =
        runtime::format_memory_status(executor_->memory_status(), text, sizeof(text));
    platform::write(text, length);
  }

 private:
  static Status status(runtime::Error error) {
    if (error != runtime::Error::kOk) return {static_cast<int>(error), runtime::to_string(error)};
    return kOk;
  }

  runtime::Result<runtime::Executor> executor_ = runtime::Error::kInternal;
  // "invalid program: operator 3 (CONV_2D): <reason>", "arena too small: the program needs...".
  char message_[256] = {};
};

}  // namespace runner
}  // namespace mote
