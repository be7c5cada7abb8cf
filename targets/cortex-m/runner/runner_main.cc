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
#if defined(MOTE_OP_SELECTION_HEADER)
#include MOTE_OP_SELECTION_HEADER
#endif

namespace {

// An image whose programs hold no float input quantized (mote_program_ops says which) links no
// float writing: no QUANTIZE kernel, no Executor::write_input.
#if defined(MOTE_OP_SELECTION_HEADER) && !defined(MOTE_SELECTED_FLOAT_INPUTS)
constexpr bool kFloatInputs = false;
#else
constexpr bool kFloatInputs = true;
#endif

using mote::platform::Line;
using mote::runner::Bytes;
using mote::runner::ConstBytes;
using mote::runner::Model;
using mote::runner::Status;

int fail(const Status& status) {
  Line().text("error: ").text(status.message).text(" (runtime status ").signed_number(status.code).text(")").end();
  return mote::runner::kExitRuntimeError;
}

// The embedded bytes of input `i`: its own, or float32 elements for an input the program holds
// quantized.
size_t input_bytes(Model& model, size_t i) {
  const size_t floats = kFloatInputs ? model.input_float_count(i) : 0;
  return floats != 0 ? floats * sizeof(float) : model.input(i).size;
}

size_t input_bytes(Model& model) {
  size_t needed = 0;
  for (size_t i = 0; i < model.input_count(); ++i) needed += input_bytes(model, i);
  return needed;
}

// Writes the floats at `bytes` (any alignment) into input `i`, a few at a time.
bool write_floats(Model& model, size_t i, const uint8_t* bytes, size_t count) {
  if (!kFloatInputs) return false;
  float chunk[64];
  for (size_t first = 0; first < count; first += 64) {
    const size_t n = count - first < 64 ? count - first : 64;
    memcpy(chunk, bytes + first * sizeof(float), n * sizeof(float));
    if (!model.write_input_float(i, chunk, n, first)) return false;
  }
  return true;
}

// Copies the embedded input into the program's inputs, one after the other; an input kept
// outside the arena reads its part of the embedded input in place instead. False when the sizes
// differ (or a part is not aligned to its elements).
bool fill_inputs(Model& model) {
  if (input_bytes(model) != mote_input_size) return false;
  size_t offset = 0;
  for (size_t i = 0; i < model.input_count(); ++i) {
    const Bytes input = model.input(i);
    if (model.input_is_external(i)) {
      if (!model.bind_input(i, mote_input + offset, input.size)) return false;
    } else if (const size_t floats = kFloatInputs ? model.input_float_count(i) : 0; floats != 0) {
      if (!write_floats(model, i, mote_input + offset, floats)) return false;
    } else {
      memcpy(input.data, mote_input + offset, input.size);
    }
    offset += input_bytes(model, i);
  }
  return true;
}

int input_size_error(Model& model) {
  Line().text("error: the embedded input has ").unsigned_number(mote_input_size).text(" bytes, the program's inputs take ").unsigned_number(input_bytes(model)).end();
  return mote::runner::kExitRuntimeError;
}

// FNV-1a over every output, to compare the two inferences.
uint32_t hash_outputs(const Model& model) {
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
[[maybe_unused]] bool outputs_equal(const Model& model, const uint8_t* expected, size_t expected_size,
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

[[maybe_unused]] int check_outputs(const Model& model, const uint8_t* expected, size_t expected_size,
                 const char* what) {
  Difference d{};
  if (outputs_equal(model, expected, expected_size, &d)) {
    Line().text("outputs match ").text(what).end();
    return 0;
  }
  if (d.output == model.output_count()) {
    Line().text("error: the outputs have ").unsigned_number(d.byte).text(" bytes, the ").text(what).text(" ").unsigned_number(expected_size).end();
  } else {
    Line().text("error: output ").unsigned_number(d.output).text(" differs from the ").text(what).text(" bytes at byte ").unsigned_number(d.byte).end();
  }
  return mote::runner::kExitMismatch;
}

// The program's bytes, or a copy of them at the start of the arena region with one byte
// inverted; `arena` gets the rest of the region.
ConstBytes place_program(const mote::platform::MemoryRegion& region, bool corrupt, size_t offset,
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

int sweep(size_t step) {
  const mote::platform::MemoryRegion region = mote::platform::arena_region();
  size_t flips = 0, rejected = 0, input_changed = 0, run_failed = 0, changed = 0, unchanged = 0;
  for (size_t offset = 0; offset < mote_program_size; offset += step) {
    ++flips;
    Bytes arena{};
    const ConstBytes program = place_program(region, true, offset, &arena);
    Model model;
    if (!model.load(program, arena).ok()) {
      ++rejected;
      continue;
    }
    if (!fill_inputs(model)) {
      ++input_changed;
      continue;
    }
    if (!model.run().ok()) {
      ++run_failed;
      continue;
    }
#if defined(MOTE_RUNNER_HAS_EXPECTED)
    if (outputs_equal(model, mote_expected, mote_expected_size, nullptr)) {
      ++unchanged;
    } else {
      ++changed;
    }
#else
    ++unchanged;
#endif
  }
  Line().text("sweep: ").unsigned_number(flips).text(" programs with one byte inverted (every ").unsigned_number(step).text(" of ").unsigned_number(mote_program_size).text(" bytes)").end();
  Line().text("sweep: rejected by load ").unsigned_number(rejected).text(", input size changed ").unsigned_number(input_changed).text(", failed to run ").unsigned_number(run_failed).end();
  Line().text("sweep: ran with other outputs ").unsigned_number(changed).text(", ran with the expected outputs ").unsigned_number(unchanged).end();
  Line().text("sweep: no fault").end();
  return 0;
}

// Parses a decimal number; false when `text` is not one.
bool parse_unsigned(const char* text, size_t* value) {
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
  Line().text("mote runner: ").text(MOTE_RUNNER_NAME).text(" on ").text(board_name()).text(" (").text(cpu_name()).text(")").end();

  // The command line: image name, then an optional mode and its number.
  char arguments[64] = {};
  command_line(arguments, sizeof(arguments));
  const char* words[3] = {nullptr, nullptr, nullptr};
  size_t count = 0;
  for (char* p = arguments; *p != '\0' && count < 3;) {
    while (*p == ' ') *p++ = '\0';
    if (*p == '\0') break;
    words[count++] = p;
    while (*p != '\0' && *p != ' ') ++p;
  }
  bool corrupt = false;
  size_t flip_offset = 0;
  if (count >= 2 && strcmp(words[1], "sweep") == 0) {
    size_t step = 1;
    if (count == 3 && (!parse_unsigned(words[2], &step) || step == 0)) {
      Line().text("error: sweep takes a positive step").end();
      return mote::runner::kExitRuntimeError;
    }
    return sweep(step);
  }
  if (count >= 2 && strcmp(words[1], "flip") == 0) {
    if (count != 3 || !parse_unsigned(words[2], &flip_offset) || flip_offset >= mote_program_size) {
      Line().text("error: flip takes a byte offset below ").unsigned_number(mote_program_size).end();
      return mote::runner::kExitRuntimeError;
    }
    corrupt = true;
    Line().text("flip: byte ").unsigned_number(flip_offset).text(" of the program inverted").end();
  } else if (count >= 2) {
    Line().text("error: unknown mode ").text(words[1]).text(" (flip <offset> or sweep [<step>])").end();
    return mote::runner::kExitRuntimeError;
  }

  Bytes arena{};
  const ConstBytes program = place_program(arena_region(), corrupt, flip_offset, &arena);
  Model model;
  start_instruction_counter();
  const size_t depth = stack_depth_bytes();

  // Loading verifies the whole program: measure its stack and instructions too.
  paint_stack();
  uint64_t start = systick_ticks();
  Status status = model.load(program, arena);
  const uint64_t load_ticks = systick_ticks() - start;
  const size_t load_stack = stack_peak_bytes() - depth;
  if (!status.ok()) return fail(status);

  // First inference: nothing else runs, so the totals and the stack are the inference's own.
  // Quantizing float inputs as they are written is the model's QUANTIZE: counted in it.
  bool float_inputs = false;
  for (size_t i = 0; kFloatInputs && i < model.input_count(); ++i) {
    float_inputs |= model.input_float_count(i) != 0;
  }
  start = systick_ticks();
  if (!fill_inputs(model)) return input_size_error(model);
  const uint64_t input_ticks = float_inputs ? systick_ticks() - start : 0;
  paint_stack();
  start = systick_ticks();
  status = model.run();
  const uint64_t run_ticks = systick_ticks() - start + input_ticks;
  const size_t run_stack = stack_peak_bytes() - depth;
  if (!status.ok()) return fail(status);
  const uint32_t first_hash = hash_outputs(model);

  model.print_memory_status();
  Line().text("I mote: static_ram: ").unsigned_number(static_ram_bytes()).text(" bytes").end();
  Line().text("I mote: stack_peak: ").unsigned_number(load_stack > run_stack ? load_stack : run_stack).text(" bytes (load ").unsigned_number(load_stack).text(", inference ").unsigned_number(run_stack).text(")").end();
  Line().text("I mote: load_instructions: ").unsigned_number(ticks_to_instructions(load_ticks)).end();
  Line().text("I mote: instructions: ").unsigned_number(ticks_to_instructions(run_ticks)).end();
  if (float_inputs) {
    Line().text("I mote: input_instructions: ").unsigned_number(ticks_to_instructions(input_ticks)).text(" (float inputs quantized as written, counted in instructions)").end();
  }

  // Second inference, operator by operator (the arena may have reused the input's bytes), from
  // the state the first one started from (a model with state, SVDF or LSTM, carries it over).
  if (!fill_inputs(model)) return input_size_error(model);
  model.reset_state();
  for (size_t i = 0; i < model.operator_count(); ++i) {
    const uint64_t before = systick_ticks();
    status = model.run_operator(i);
    const uint64_t ticks = systick_ticks() - before;
    if (!status.ok()) return fail(status);
    Line().text("I mote: op ").unsigned_number(i).text(" ").text(model.operator_name(i)).text(": ").unsigned_number(ticks_to_instructions(ticks)).text(" instructions").end();
  }
  if (hash_outputs(model) != first_hash) {
    Line().text("error: the second inference gave different outputs").end();
    return mote::runner::kExitMismatch;
  }

  for (size_t i = 0; i < model.output_count(); ++i) {
    const ConstBytes output = model.output(i);
    Line().text("output ").unsigned_number(i).text(" ").hex_bytes(output.data, output.size).end();
  }

  int result = 0;
#if defined(MOTE_RUNNER_HAS_EXPECTED)
  result = check_outputs(model, mote_expected, mote_expected_size, "expected");
  if (result != 0) return result;
#endif
#if defined(MOTE_RUNNER_HAS_REFERENCE)
  result = check_outputs(model, mote_reference, mote_reference_size, "reference");
#endif
  return result;
}
