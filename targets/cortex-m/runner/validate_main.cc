// The generic runner of `mote validate`: one image per CPU, no program built in. It reads
// program.mote and input.bin (every graph input's bytes, in order) from QEMU's working directory
// over semihosting, runs the program operator by operator with this CPU's kernels, and writes
// each operator's outputs, in operator order, to layers.bin, for the host to compare with its
// portable kernels' layer by layer. It prints each operator's instructions as the model runner
// does ("I mote: op <i> <kind>: <n> instructions", meaningful under -icount), for
// `mote analyze --measure`.
//
// MOTE_VALIDATE_PERTURB=",<OP>,<OP>," (a test build only) adds 1 to the first byte of the first
// output of each operator of those kinds after it runs: a wrong kernel, which `mote validate`
// must catch.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"
#include "platform/board.h"
#include "platform/console.h"
#include "platform/cycles.h"
#include "platform/semihosting.h"

namespace {

using mote::platform::Line;

constexpr int kExitOk = 0;
constexpr int kExitError = 2;

int fail(const char* what, const char* detail = "") {
  Line().text("error: ").text(what).text(detail).end();
  return kExitError;
}

#ifdef MOTE_VALIDATE_PERTURB
bool perturbed(const char* op) {
  char key[40] = ",";
  const size_t n = strlen(op);
  if (n + 3 > sizeof(key)) return false;
  memcpy(key + 1, op, n);
  key[n + 1] = ',';
  key[n + 2] = '\0';
  return strstr(MOTE_VALIDATE_PERTURB, key) != nullptr;
}
#endif

size_t align_up(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

// Reads the whole file into `out[0, capacity)`; the size, or SIZE_MAX when it cannot.
size_t read_file(const char* path, uint8_t* out, size_t capacity) {
  using namespace mote::platform;
  const int32_t handle = host_open(path, FileMode::kReadBinary);
  if (handle < 0) return SIZE_MAX;
  const int32_t length = host_file_length(handle);
  size_t n = SIZE_MAX;
  if (length >= 0 && static_cast<size_t>(length) <= capacity &&
      host_read(handle, out, static_cast<size_t>(length)) == static_cast<size_t>(length)) {
    n = static_cast<size_t>(length);
  }
  host_close(handle);
  return n;
}

}  // namespace

int main() {
  using namespace mote::platform;
  using namespace mote::runtime;
  // The board's large RAM: the program, then the loader's workspace, the arena, the inputs.
  const MemoryRegion region = arena_region();
  uint8_t* const base = region.data;
  const size_t program_size = read_file("program.mote", base, region.size / 2);
  if (program_size == SIZE_MAX) return fail("cannot read program.mote (or it is too large)");
  size_t used = align_up(program_size, 16);
  uint32_t* workspace = reinterpret_cast<uint32_t*>(base + used);
  const size_t workspace_words = load_workspace_words(kMaxTensors, kMaxOperators);
  used += align_up(workspace_words * sizeof(uint32_t), 16);
  LoadDiagnostic diagnostic;
  const Result<Program> program =
      Program::load(base, program_size, workspace, workspace_words, &diagnostic);
  if (!program.ok()) {
    char why[320];
    why[format_load_error(program.error(), diagnostic, why, sizeof(why))] = '\0';
    return fail("load: ", why);
  }
  used = align_up(used, program->arena_alignment());
  uint8_t* const arena = base + used;
  used += align_up(program->arena_size(), 16);
  if (used >= region.size) return fail("the arena does not fit the board's RAM");
  Result<Executor> executor = Executor::create(*program, arena, program->arena_size());
  if (!executor.ok()) return fail("arena: ", to_string(executor.error()));

  // input.bin holds every input, in order; read it beside the arena, then copy each in place.
  uint8_t* const inputs = base + used;
  const size_t input_size = read_file("input.bin", inputs, region.size - used);
  // An input the program holds quantized comes as floats, which write_input quantizes.
  auto bytes_of = [&](size_t i) {
    const TensorView in = executor->input(i);
    if (!executor->input_takes_float(i)) return in.size;
    return (in.type == mote::runtime::DataType::kInt16 ? in.size / 2 : in.size) * sizeof(float);
  };
  size_t expected = 0;
  for (size_t i = 0; i < executor->num_inputs(); ++i) expected += bytes_of(i);
  if (input_size != expected) return fail("input.bin does not hold exactly the inputs' bytes");
  size_t offset = 0;
  for (size_t i = 0; i < executor->num_inputs(); ++i) {
    const TensorView in = executor->input(i);
    if (executor->input_takes_float(i)) {
      float chunk[64];  // a few floats at a time, from bytes of any alignment
      const size_t count = bytes_of(i) / sizeof(float);
      for (size_t first = 0; first < count; first += 64) {
        const size_t n = count - first < 64 ? count - first : 64;
        memcpy(chunk, inputs + offset + first * sizeof(float), n * sizeof(float));
        if (executor->write_input(i, chunk, n, first) != Error::kOk) {
          return fail("input.bin: cannot write an input as floats");
        }
      }
    } else {
      memcpy(in.data, inputs + offset, in.size);
    }
    offset += bytes_of(i);
  }

  const int32_t layers = host_open("layers.bin", FileMode::kWriteBinary);
  if (layers < 0) return fail("cannot write layers.bin");
  const mote::schema::Program& root = *program->root();
  start_instruction_counter();
  for (size_t i = 0; i < executor->num_operators(); ++i) {
    const uint64_t start = systick_ticks();
    const Error error = executor->run_operator(i);
    const uint64_t ticks = systick_ticks() - start;
    if (error != Error::kOk) {
      Line().text("error: operator ").unsigned_number(i).text(" (").text(program->operator_name(i)).text("): ").text(to_string(error)).end();
      return kExitError;
    }
    Line().text("I mote: op ").unsigned_number(i).text(" ").text(program->operator_name(i)).text(": ").unsigned_number(ticks_to_instructions(ticks)).text(" instructions").end();
    const auto* outputs = root.operators()->Get(static_cast<flatbuffers::uoffset_t>(i))->outputs();
    for (flatbuffers::uoffset_t k = 0; k < outputs->size(); ++k) {
      const mote::schema::Tensor& t = *root.tensors()->Get(static_cast<flatbuffers::uoffset_t>(outputs->Get(k)));
      if (t.location() != mote::schema::Location::Arena) continue;
#ifdef MOTE_VALIDATE_PERTURB
      if (k == 0 && t.size() > 0 && perturbed(program->operator_name(i))) {
        arena[t.offset()] = static_cast<uint8_t>(arena[t.offset()] + 1);
      }
#endif
      if (host_write(layers, arena + t.offset(), t.size()) != t.size()) {
        return fail("cannot write layers.bin");
      }
    }
  }
  host_close(layers);
  Line().text("validate: ").unsigned_number(executor->num_operators()).text(" operators on ").text(cpu_name()).text(", layers.bin written").end();
  return kExitOk;
}
