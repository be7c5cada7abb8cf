// A host program on an installed Mote, in C++ through the C API: mote.h and the generated
// header, the arena sized by its constants; the outputs must equal `mote run`'s (the same
// portable kernels).
#include <stdio.h>
#include <string.h>

#include "app_expected.h"
#include "app_input.h"
#include "conv2d_x3_c.h"
#include "mote/runtime/mote.h"

static uint8_t arena[CONV2D_X3_C_ARENA_BYTES] __attribute__((aligned(CONV2D_X3_C_ARENA_ALIGN)));

int main() {
  mote_program program;
  mote_executor executor;
  mote_tensor in, out;
  mote_status s;
  if ((s = mote_load(&program, conv2d_x3_c, CONV2D_X3_C_BYTES, NULL)) != MOTE_OK ||
      (s = mote_executor_init(&executor, &program, arena, sizeof(arena))) != MOTE_OK ||
      (s = mote_input(&executor, 0, &in)) != MOTE_OK) {
    printf("host_app: %s\n", mote_status_string(s));
    return 2;
  }
  if (mote_input_takes_float(&executor, 0)) {
    // The model's float32 input, held quantized: the floats go through the runtime.
    float values[CONV2D_X3_C_INPUT0_BYTES];
    if (app_input_size != sizeof(values)) return 3;
    memcpy(values, app_input, sizeof(values));
    if ((s = mote_write_input_float(&executor, 0, values, in.size, 0)) != MOTE_OK) {
      printf("host_app: %s\n", mote_status_string(s));
      return 2;
    }
  } else {
    if (in.size != app_input_size) return 3;
    memcpy(in.data, app_input, in.size);
  }
  if ((s = mote_run(&executor)) != MOTE_OK || (s = mote_output(&executor, 0, &out)) != MOTE_OK) {
    printf("host_app: %s\n", mote_status_string(s));
    return 2;
  }
  if (out.size != app_expected_size || memcmp(out.data, app_expected, out.size) != 0) {
    printf("host_app: outputs differ from mote run's\n");
    return 1;
  }
  printf("host_app: outputs match mote run's\n");
  return 0;
}
