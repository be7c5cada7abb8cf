/* A C firmware as a user writes it: only mote/runtime/mote.h and the header that
 * mote_add_model() generates, an arena sized and aligned by that header's constants, and the
 * board's console. The input and the host's output (`mote run`) are embedded beside it; the
 * outputs must equal the host's byte for byte. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "c_app_expected.h" /* embedded: the host's output for c_app_input */
#include "c_app_input.h"    /* embedded: conv2d_x3's input */
#include "conv2d_x3_c.h"    /* mote_add_model: conv2d_x3_c[], CONV2D_X3_C_ARENA_BYTES, ... */
#include "mote/runtime/mote.h"
#include "platform/console_c.h"

static uint8_t arena[CONV2D_X3_C_ARENA_BYTES] __attribute__((aligned(CONV2D_X3_C_ARENA_ALIGN)));
static mote_program program;
static mote_executor executor;

static void print_number(size_t value) {
  char digits[24];
  size_t n = 0;
  do {
    digits[sizeof(digits) - 1 - n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0 && n < sizeof(digits));
  mote_console_write(digits + sizeof(digits) - n, n);
}

static int fail(const char* what, mote_status status) {
  mote_console_print("c_app: ");
  mote_console_print(what);
  mote_console_print(": ");
  mote_console_print(mote_status_string(status));
  mote_console_print("\n");
  return 2;
}

int main(void) {
  mote_diagnostic diagnostic;
  mote_tensor in, out;
  mote_memory_status memory;
  char report[256];
  mote_status s;
  size_t n;

  s = mote_load(&program, conv2d_x3_c, CONV2D_X3_C_BYTES, &diagnostic);
  if (s != MOTE_OK) return fail(diagnostic.reason, s);
  /* The header's figures are the program's own. */
  if (mote_arena_bytes(&program) != CONV2D_X3_C_ARENA_BYTES ||
      mote_arena_align(&program) != CONV2D_X3_C_ARENA_ALIGN) {
    return fail("header", MOTE_INTERNAL);
  }
  s = mote_executor_init(&executor, &program, arena, sizeof(arena));
  if (s != MOTE_OK) return fail("arena", s);
  s = mote_input(&executor, 0, &in);
  if (s != MOTE_OK) return fail("input", s);
  if (in.size != CONV2D_X3_C_INPUT0_BYTES) return fail("input size", MOTE_INVALID_ARGUMENT);
  if (mote_input_takes_float(&executor, 0)) {
    /* The model's float32 input, held quantized: write the floats (a few at a time, as a camera
     * delivers them), which the runtime quantizes. */
    float values[24];
    size_t first, count;
    if (!CONV2D_X3_C_INPUT0_TAKES_FLOAT || c_app_input_size != in.size * sizeof(float)) {
      return fail("input size", MOTE_INVALID_ARGUMENT);
    }
    for (first = 0; first < in.size; first += count) {
      count = in.size - first < 24 ? in.size - first : 24;
      memcpy(values, c_app_input + first * sizeof(float), count * sizeof(float));
      s = mote_write_input_float(&executor, 0, values, count, first);
      if (s != MOTE_OK) return fail("input", s);
    }
  } else {
    if (in.size != c_app_input_size) return fail("input size", MOTE_INVALID_ARGUMENT);
    memcpy(in.data, c_app_input, in.size);
  }
  s = mote_run(&executor);
  if (s != MOTE_OK) return fail("run", s);
  s = mote_output(&executor, 0, &out);
  if (s != MOTE_OK) return fail("output", s);

  if (mote_get_memory_status(&executor, &memory) != MOTE_OK) return fail("memory", MOTE_INTERNAL);
  n = mote_format_memory_status(&memory, report, sizeof(report));
  mote_console_write(report, n);
  mote_console_print("c_app: arena ");
  print_number(sizeof(arena));
  mote_console_print(" bytes, output ");
  print_number(out.size);
  mote_console_print(" bytes\n");
  if (out.size != CONV2D_X3_C_OUTPUT0_BYTES || out.size != c_app_expected_size ||
      memcmp(out.data, c_app_expected, out.size) != 0) {
    mote_console_print("c_app: outputs differ from the host's\n");
    return 1;
  }
  mote_console_print("c_app: outputs match the host's\n");
  return 0;
}
