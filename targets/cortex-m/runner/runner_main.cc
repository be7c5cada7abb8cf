// The firmware runner: one embedded .mote program (mote_program.h), its input (mote_input.h) and
// optionally the host's output for it (mote_expected.h) and a reference output
// (mote_reference.h, e.g. TensorFlow Lite's). Prints, in this order:
//   mote runner: <name> on <board> (<cpu>)
//   I mote: program_size: ...             the runtime's five memory status lines, exactly as
//   ...                                   `mote run` prints them on the host
//   I mote: static_ram: <n> bytes         .data + .bss of the whole image (linker symbols)
//   I mote: stack_peak: <n> bytes         deepest stack below the runner's frame, loading or
//                                         running (stack painting)
//   I mote: load_instructions: <n>        Program::load + Executor::create (verification)
//   I mote: instructions: <n>             one inference (meaningful under run-qemu.sh --icount)
//   I mote: op <i> <kind>: <n> instructions   one line per operator
//   output <i> <bytes in hex>
//   outputs match expected                (when expected bytes are embedded)
//   outputs match reference               (when reference bytes are embedded)
// and exits 0; a runtime status exits 2, an output mismatch 1, both after an "error:" line.
// The inference runs twice: once untouched for the totals and the stack, once with a
// measurement around each operator; both must give the same outputs.
//
// Command line (run-qemu.sh <board> <runner.elf> [words...]):
//   flip <offset>   run a RAM copy of the program with byte <offset> inverted: a corrupted
//                   program must end with an "error:" line and a non-zero status, never a fault
//   sweep [<step>]  for every <step>-th byte (default 1), invert it in a RAM copy, load, and run
//                   what loads; prints how each ended and exits 0 (a fault would exit 3)

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mote_input.h"
#include "mote_program.h"
#include "platform/board.h"
#include "platform/console.h"
#include "platform/cycles.h"
#include "platform/semihosting.h"
#include "runner/runner.h"
#include "runner_adapter.h"
#if defined(MOTE_RUNNER_HAS_EXPECTED)
#include "mote_expected.h"
#endif
#if defined(MOTE_RUNNER_HAS_REFERENCE)
#include "mote_reference.h"
#endif

namespace {

using mote::platform::Line;
using mote::runner::Bytes;
using mote::runner::ConstBytes;
using mote::runner::Model;
using mote::runner::Status;

int Fail(const Status& status) {
  Line().Text("error: ").Text(status.message).Text(" (runtime status ").Signed(status.code).Text(")").End();
  return mote::runner::kExitRuntimeError;
}

size_t InputBytes(Model& model) {
  size_t needed = 0;
  for (size_t i = 0; i < model.input_count(); ++i) needed += model.input(i).size;
  return needed;
}

// Copies the embedded input into the program's inputs, one after the other. False when the
// sizes differ.
bool FillInputs(Model& model) {
  if (InputBytes(model) != mote_input_size) return false;
  size_t offset = 0;
  for (size_t i = 0; i < model.input_count(); ++i) {
    const Bytes input = model.input(i);
    memcpy(input.data, mote_input + offset, input.size);
    offset += input.size;
  }
  return true;
}

int InputSizeError(Model& model) {
  Line().Text("error: the embedded input has ").Unsigned(mote_input_size).Text(" bytes, the program's inputs take ").Unsigned(InputBytes(model)).End();
  return mote::runner::kExitRuntimeError;
}

Status RunAll(Model& model) {
  for (size_t i = 0; i < model.operator_count(); ++i) {
    const Status status = model.RunOperator(i);
    if (!status.ok()) return status;
  }
  return mote::runner::kOk;
}

// FNV-1a over every output, to compare the two inferences.
uint32_t HashOutputs(const Model& model) {
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < model.output_count(); ++i) {
    const ConstBytes output = model.output(i);
    for (size_t b = 0; b < output.size; ++b) hash = (hash ^ output.data[b]) * 16777619u;
  }
  return hash;
}

// Whether the outputs, concatenated, equal `expected`. When they do not, `first_difference`
// is the output and byte where they first differ (byte = its size when the sizes differ).
struct Difference {
  size_t output;
  size_t byte;
};
[[maybe_unused]] bool OutputsEqual(const Model& model, const uint8_t* expected, size_t expected_size,
                  Difference* first_difference) {
  size_t offset = 0;
  for (size_t i = 0; i < model.output_count(); ++i) {
    const ConstBytes output = model.output(i);
    for (size_t b = 0; b < output.size; ++b) {
      if (offset + b >= expected_size || output.data[b] != expected[offset + b]) {
        if (first_difference != nullptr) *first_difference = {i, b};
        return false;
      }
    }
    offset += output.size;
  }
  if (offset != expected_size) {
    if (first_difference != nullptr) *first_difference = {model.output_count(), offset};
    return false;
  }
  return true;
}

[[maybe_unused]] int CheckOutputs(const Model& model, const uint8_t* expected, size_t expected_size,
                 const char* what) {
  Difference d{};
  if (OutputsEqual(model, expected, expected_size, &d)) {
    Line().Text("outputs match ").Text(what).End();
    return 0;
  }
  if (d.output == model.output_count()) {
    Line().Text("error: the outputs have ").Unsigned(d.byte).Text(" bytes, the ").Text(what).Text(" ").Unsigned(expected_size).End();
  } else {
    Line().Text("error: output ").Unsigned(d.output).Text(" differs from the ").Text(what).Text(" bytes at byte ").Unsigned(d.byte).End();
  }
  return mote::runner::kExitMismatch;
}

// The program's bytes, or a copy of them at the start of the arena region with one byte
// inverted; `arena` gets the rest of the region.
ConstBytes PlaceProgram(const mote::platform::MemoryRegion& region, bool corrupt, size_t offset,
                        Bytes* arena) {
  if (!corrupt) {
    *arena = {region.data, region.size};
    return {mote_program, mote_program_size};
  }
  // The region starts 16-byte aligned, as Program::load requires.
  uint8_t* copy = region.data;
  memcpy(copy, mote_program, mote_program_size);
  copy[offset] ^= 0xFFu;
  const size_t used = (mote_program_size + 15) / 16 * 16;
  *arena = {region.data + used, region.size - used};
  return {copy, mote_program_size};
}

int Sweep(size_t step) {
  const mote::platform::MemoryRegion region = mote::platform::ArenaRegion();
  size_t flips = 0, rejected = 0, input_changed = 0, run_failed = 0, changed = 0, unchanged = 0;
  for (size_t offset = 0; offset < mote_program_size; offset += step) {
    ++flips;
    Bytes arena{};
    const ConstBytes program = PlaceProgram(region, true, offset, &arena);
    Model model;
    if (!model.Load(program, arena).ok()) {
      ++rejected;
      continue;
    }
    if (!FillInputs(model)) {
      ++input_changed;
      continue;
    }
    if (!RunAll(model).ok()) {
      ++run_failed;
      continue;
    }
#if defined(MOTE_RUNNER_HAS_EXPECTED)
    if (OutputsEqual(model, mote_expected, mote_expected_size, nullptr)) {
      ++unchanged;
    } else {
      ++changed;
    }
#else
    ++unchanged;
#endif
  }
  Line().Text("sweep: ").Unsigned(flips).Text(" programs with one byte inverted (every ").Unsigned(step).Text(" of ").Unsigned(mote_program_size).Text(" bytes)").End();
  Line().Text("sweep: rejected by load ").Unsigned(rejected).Text(", input size changed ").Unsigned(input_changed).Text(", failed to run ").Unsigned(run_failed).End();
  Line().Text("sweep: ran with other outputs ").Unsigned(changed).Text(", ran with the expected outputs ").Unsigned(unchanged).End();
  Line().Text("sweep: no fault").End();
  return 0;
}

// Parses a decimal number; false when `text` is not one.
bool ParseUnsigned(const char* text, size_t* value) {
  if (text == nullptr || *text == '\0') return false;
  size_t v = 0;
  for (; *text != '\0'; ++text) {
    if (*text < '0' || *text > '9' || v > 100000000u) return false;
    v = v * 10 + static_cast<size_t>(*text - '0');
  }
  *value = v;
  return true;
}

}  // namespace

int main() {
  using namespace mote::platform;
  Line().Text("mote runner: ").Text(MOTE_RUNNER_NAME).Text(" on ").Text(BoardName()).Text(" (").Text(CpuName()).Text(")").End();

  // The command line: image name, then an optional mode and its number.
  char command_line[64] = {};
  CommandLine(command_line, sizeof(command_line));
  const char* words[3] = {nullptr, nullptr, nullptr};
  size_t count = 0;
  for (char* p = command_line; *p != '\0' && count < 3;) {
    while (*p == ' ') *p++ = '\0';
    if (*p == '\0') break;
    words[count++] = p;
    while (*p != '\0' && *p != ' ') ++p;
  }
  bool corrupt = false;
  size_t flip_offset = 0;
  if (count >= 2 && strcmp(words[1], "sweep") == 0) {
    size_t step = 1;
    if (count == 3 && (!ParseUnsigned(words[2], &step) || step == 0)) {
      Line().Text("error: sweep takes a positive step").End();
      return mote::runner::kExitRuntimeError;
    }
    return Sweep(step);
  }
  if (count >= 2 && strcmp(words[1], "flip") == 0) {
    if (count != 3 || !ParseUnsigned(words[2], &flip_offset) || flip_offset >= mote_program_size) {
      Line().Text("error: flip takes a byte offset below ").Unsigned(mote_program_size).End();
      return mote::runner::kExitRuntimeError;
    }
    corrupt = true;
    Line().Text("flip: byte ").Unsigned(flip_offset).Text(" of the program inverted").End();
  } else if (count >= 2) {
    Line().Text("error: unknown mode ").Text(words[1]).Text(" (flip <offset> or sweep [<step>])").End();
    return mote::runner::kExitRuntimeError;
  }

  Bytes arena{};
  const ConstBytes program = PlaceProgram(ArenaRegion(), corrupt, flip_offset, &arena);
  Model model;
  StartInstructionCounter();
  const size_t depth = StackDepthBytes();

  // Loading verifies the whole program: measure its stack and instructions too.
  PaintStack();
  uint64_t start = SysTickTicks();
  Status status = model.Load(program, arena);
  const uint64_t load_ticks = SysTickTicks() - start;
  const size_t load_stack = StackPeakBytes() - depth;
  if (!status.ok()) return Fail(status);

  // First inference: nothing else runs, so the totals and the stack are the inference's own.
  if (!FillInputs(model)) return InputSizeError(model);
  PaintStack();
  start = SysTickTicks();
  status = RunAll(model);
  const uint64_t run_ticks = SysTickTicks() - start;
  const size_t run_stack = StackPeakBytes() - depth;
  if (!status.ok()) return Fail(status);
  const uint32_t first_hash = HashOutputs(model);

  model.PrintMemoryStatus();
  Line().Text("I mote: static_ram: ").Unsigned(StaticRamBytes()).Text(" bytes").End();
  Line().Text("I mote: stack_peak: ").Unsigned(load_stack > run_stack ? load_stack : run_stack).Text(" bytes (load ").Unsigned(load_stack).Text(", inference ").Unsigned(run_stack).Text(")").End();
  Line().Text("I mote: load_instructions: ").Unsigned(TicksToInstructions(load_ticks)).End();
  Line().Text("I mote: instructions: ").Unsigned(TicksToInstructions(run_ticks)).End();

  // Second inference, operator by operator (the arena may have reused the input's bytes).
  if (!FillInputs(model)) return InputSizeError(model);
  for (size_t i = 0; i < model.operator_count(); ++i) {
    const uint64_t before = SysTickTicks();
    status = model.RunOperator(i);
    const uint64_t ticks = SysTickTicks() - before;
    if (!status.ok()) return Fail(status);
    Line().Text("I mote: op ").Unsigned(i).Text(" ").Text(model.operator_name(i)).Text(": ").Unsigned(TicksToInstructions(ticks)).Text(" instructions").End();
  }
  if (HashOutputs(model) != first_hash) {
    Line().Text("error: the second inference gave different outputs").End();
    return mote::runner::kExitMismatch;
  }

  for (size_t i = 0; i < model.output_count(); ++i) {
    const ConstBytes output = model.output(i);
    Line().Text("output ").Unsigned(i).Text(" ").HexBytes(output.data, output.size).End();
  }

  int result = 0;
#if defined(MOTE_RUNNER_HAS_EXPECTED)
  result = CheckOutputs(model, mote_expected, mote_expected_size, "expected");
  if (result != 0) return result;
#endif
#if defined(MOTE_RUNNER_HAS_REFERENCE)
  result = CheckOutputs(model, mote_reference, mote_reference_size, "reference");
#endif
  return result;
}
