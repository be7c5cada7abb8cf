// A firmware as a user would write it (targets/cortex-m/README.md, "mote_add_model for users"):
// the program comes from mote_add_model() as a const array, the arena is a static buffer, and
// the code talks to the runtime directly.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "conv2d_x3_program.h"  // generated: conv2d_x3_program[], conv2d_x3_program_size
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "platform/console.h"

namespace {

alignas(16) uint8_t g_arena[4096];

int fail(const char* what, mote::runtime::Error error) {
  mote::platform::Line().text("user_app: ").text(what).text(": ").text(mote::runtime::to_string(error)).end();
  return 2;
}

}  // namespace

int main() {
  using namespace mote::runtime;
  const Result<Program> program = Program::load(conv2d_x3_program, conv2d_x3_program_size);
  if (!program.ok()) return fail("load", program.error());
  Result<Executor> executor = Executor::create(*program, g_arena, sizeof(g_arena));
  if (!executor.ok()) return fail("arena", executor.error());

  // conv2d_x3 takes float32 1x8x8x3 (held quantized as int8: write_input quantizes the floats)
  // and returns float32 1x8x8x8. A row of 8 pixels at a time, as a camera delivers them.
  if (!executor->input_takes_float(0) || executor->input(0).size != 8 * 8 * 3) {
    return fail("input", Error::kInternal);
  }
  for (size_t row = 0; row < 8; ++row) {
    float x[8 * 3];
    for (size_t i = 0; i < 8 * 3; ++i) x[i] = static_cast<float>((row * 24 + i) % 17) / 8.0f - 1.0f;
    const Error written = executor->write_input(0, x, 8 * 3, row * 8 * 3);
    if (written != Error::kOk) return fail("input", written);
  }
  const Error error = executor->run();
  if (error != Error::kOk) return fail("run", error);

  const TensorView out = executor->output(0);
  float y0;
  memcpy(&y0, out.data, sizeof(y0));
  char status[256];
  mote::platform::write(status, format_memory_status(executor->memory_status(), status, sizeof(status)));
  mote::platform::Line().text("user_app: output bytes ").unsigned_number(out.size).text(", first value x1000 ").signed_number(static_cast<int64_t>(y0 * 1000.0f)).end();
  mote::platform::Line().text("user_app: ok").end();
  return 0;
}
