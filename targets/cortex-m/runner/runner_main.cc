// The firmware runner: one embedded .mote program (mote_program.h), its input (mote_input.h) and
// optionally the host's output for it (mote_expected.h). Prints, in this order:
//   mote runner: <name> on <board> (<cpu>)
//   <the runtime's memory status lines, as `mote run` prints them>
//   static_ram <.data + .bss bytes of the whole image>
//   stack_peak <bytes of stack one inference used below the runner's own frame>
//   instructions <per inference>            (meaningful under run-qemu.sh --icount)
//   op <index> <name> instructions <count>  (one line per operator)
//   output <index> <bytes in hex>
//   outputs match expected                  (when expected bytes are embedded)
// and exits 0; a runtime status exits 2, an output mismatch 1, both with an "error:" line.
// The inference runs twice: once untouched for the totals and the stack, once with a line
// printed after each operator; both must give the same outputs.

#include <stddef.h>
#include <stdint.h>

#include "mote_input.h"
#include "mote_program.h"
#include "platform/board.h"
#include "platform/console.h"
#include "platform/cycles.h"
#include "runner/runner.h"
#include "runner_adapter.h"
#if defined(MOTE_RUNNER_HAS_EXPECTED)
#include "mote_expected.h"
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

// Copies the embedded input into the program's inputs, one after the other.
Status FillInputs(Model& model) {
  size_t needed = 0;
  for (size_t i = 0; i < model.input_count(); ++i) needed += model.input(i).size;
  if (needed != mote_input_size) {
    Line().Text("error: the embedded input has ").Unsigned(mote_input_size).Text(" bytes, the program's inputs take ").Unsigned(needed).End();
    return {-1, "input size mismatch"};
  }
  size_t offset = 0;
  for (size_t i = 0; i < model.input_count(); ++i) {
    const Bytes input = model.input(i);
    for (size_t b = 0; b < input.size; ++b) input.data[b] = mote_input[offset + b];
    offset += input.size;
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

}  // namespace

int main() {
  using namespace mote::platform;
  Line().Text("mote runner: ").Text(MOTE_RUNNER_NAME).Text(" on ").Text(BoardName()).Text(" (").Text(CpuName()).Text(")").End();

  Model model;
  const MemoryRegion arena = ArenaRegion();
  Status status = model.Load({mote_program, mote_program_size}, {arena.data, arena.size});
  if (!status.ok()) return Fail(status);

  // First inference: nothing else runs, so the totals and the stack are the inference's own.
  status = FillInputs(model);
  if (!status.ok()) return Fail(status);
  StartInstructionCounter();
  const size_t depth = StackDepthBytes();
  PaintStack();
  const uint64_t start = SysTickTicks();
  for (size_t i = 0; i < model.operator_count() && status.ok(); ++i) status = model.RunOperator(i);
  const uint64_t instructions = TicksToInstructions(SysTickTicks() - start);
  const size_t stack_peak = StackPeakBytes() - depth;
  if (!status.ok()) return Fail(status);
  const uint32_t first_hash = HashOutputs(model);

  model.PrintMemoryStatus();
  Line().Text("static_ram ").Unsigned(StaticRamBytes()).End();
  Line().Text("stack_peak ").Unsigned(stack_peak).End();
  Line().Text("instructions ").Unsigned(instructions).End();

  // Second inference, operator by operator (the arena may have reused the input's bytes).
  status = FillInputs(model);
  if (!status.ok()) return Fail(status);
  for (size_t i = 0; i < model.operator_count(); ++i) {
    const uint64_t before = SysTickTicks();
    status = model.RunOperator(i);
    const uint64_t ticks = SysTickTicks() - before;
    if (!status.ok()) return Fail(status);
    Line().Text("op ").Unsigned(i).Text(" ").Text(model.operator_name(i)).Text(" instructions ").Unsigned(TicksToInstructions(ticks)).End();
  }
  if (HashOutputs(model) != first_hash) {
    Line().Text("error: the second inference gave different outputs").End();
    return mote::runner::kExitMismatch;
  }

  for (size_t i = 0; i < model.output_count(); ++i) {
    const ConstBytes output = model.output(i);
    Line().Text("output ").Unsigned(i).Text(" ").HexBytes(output.data, output.size).End();
  }

#if defined(MOTE_RUNNER_HAS_EXPECTED)
  size_t offset = 0;
  for (size_t i = 0; i < model.output_count(); ++i) {
    const ConstBytes output = model.output(i);
    for (size_t b = 0; b < output.size; ++b) {
      if (offset + b >= mote_expected_size || output.data[b] != mote_expected[offset + b]) {
        Line().Text("error: output ").Unsigned(i).Text(" differs from the expected bytes at byte ").Unsigned(b).End();
        return mote::runner::kExitMismatch;
      }
    }
    offset += output.size;
  }
  if (offset != mote_expected_size) {
    Line().Text("error: the outputs have ").Unsigned(offset).Text(" bytes, the expected ").Unsigned(mote_expected_size).End();
    return mote::runner::kExitMismatch;
  }
  Line().Text("outputs match expected").End();
#endif
  return 0;
}
