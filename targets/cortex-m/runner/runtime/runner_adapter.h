#pragma once
// The runner's adapter to Mote's runtime (include/mote/runtime): Model::load is Program::load plus
// Executor::create, run_operator(i) is Executor::run_operator(i), and print_memory_status prints
// format_memory_status(), the same five "I mote: ..." lines as `mote run` on the host.
// The Program and Executor handles live inside Model, on the runner's stack; the runtime itself
// keeps nothing in static RAM.

#include <stddef.h>
#include <stdint.h>

#include "mote/runtime/decimal.h"
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
    if (!loaded.ok()) return failed(loaded.error(), &where);
    const size_t alignment = loaded->arena_alignment();
    const size_t skip = (alignment - reinterpret_cast<uintptr_t>(arena.data) % alignment) % alignment;
    if (skip > arena.size) return failed(runtime::Error::kArenaTooSmall, nullptr);
    executor_ = runtime::Executor::create(*loaded, arena.data + skip, arena.size - skip);
    if (!executor_.ok()) return failed(executor_.error(), nullptr);
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

  Status run_operator(size_t i) {
    const runtime::Error error = executor_->run_operator(i);
    if (error != runtime::Error::kOk) return failed(error, nullptr);
    return kOk;
  }

  // TFLite's variable tensors (SVDF's, an LSTM's states) back to their initial values.
  void reset_state() { executor_->reset_state(); }

  void print_memory_status() const {
    char text[384];
    const size_t length =
        runtime::format_memory_status(executor_->memory_status(), text, sizeof(text));
    platform::write(text, length);
  }

 private:
  // "invalid program: operator 3: <reason>" into message_, for the runner's error line.
  Status failed(runtime::Error error, const runtime::LoadDiagnostic* where) {
    size_t n = 0;
    append(n, runtime::to_string(error));
    if (where != nullptr) {
      using Where = runtime::LoadDiagnostic::Where;
      static constexpr const char* kPlaces[] = {"", "tensor ", "operator ", "input ", "output "};
      const size_t place = static_cast<size_t>(where->where);
      append(n, ": ");
      if (where->where != Where::kProgram && place < sizeof(kPlaces) / sizeof(kPlaces[0])) {
        append(n, kPlaces[place]);
        append_unsigned(n, where->index);
        append(n, ": ");
      }
      append(n, where->reason);
    }
    message_[n] = '\0';
    return {static_cast<int>(error), message_};
  }

  void append(size_t& n, const char* text) {
    while (*text != '\0' && n + 1 < sizeof(message_)) message_[n++] = *text++;
  }
  void append_unsigned(size_t& n, uint32_t value) {
    char digits[kMaxDecimalDigits];
    const size_t count = decimal_digits(value, digits);
    for (size_t i = 0; i < count && n + 1 < sizeof(message_); ++i) message_[n++] = digits[i];
  }

  runtime::Result<runtime::Executor> executor_ = runtime::Error::kInternal;
  char message_[96] = {};
};

}  // namespace runner
}  // namespace mote
