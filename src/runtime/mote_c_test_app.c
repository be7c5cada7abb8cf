/* The C side of mote_c_test.cc, compiled as C11: the whole C API flow, as a C firmware would
 * write it, on program bytes and an arena the test provides. */
#include <string.h>

#include "mote/runtime/mote.h"

/* Loads, binds, fills input 0 with `input` (or, for an input outside the arena, binds `input`
 * itself), runs, copies output 0 into `output`. Returns the first status that is not MOTE_OK,
 * and names the failing step in *step. */
mote_status mote_c_test_run(const uint8_t* program_bytes, size_t program_size, uint8_t* arena,
                            size_t arena_size, const uint8_t* input, size_t input_size,
                            uint8_t* output, size_t output_capacity, size_t* output_size,
                            const char** step) {
  mote_program program;
  mote_executor executor;
  mote_tensor in, out;
  mote_diagnostic diagnostic;
  mote_memory_status memory;
  char report[384];
  mote_status s;

  *step = "load";
  if ((s = mote_load(&program, program_bytes, program_size, &diagnostic)) != MOTE_OK) return s;
  *step = "arena";
  if (mote_arena_bytes(&program) > arena_size) return MOTE_ARENA_TOO_SMALL;
  if ((s = mote_executor_init(&executor, &program, arena, arena_size)) != MOTE_OK) return s;
  *step = "input";
  if (mote_num_inputs(&executor) != 1 || mote_num_outputs(&executor) != 1) return MOTE_INVALID_ARGUMENT;
  if (mote_input_is_external(&executor, 0)) {
    /* Described but not bound: the caller's buffer is read in place. */
    if ((s = mote_input(&executor, 0, &in)) != MOTE_INPUT_NOT_BOUND || in.data != NULL) {
      return MOTE_INTERNAL;
    }
    if (in.size != input_size) return MOTE_INVALID_ARGUMENT;
    *step = "unbound run";
    if (mote_run(&executor) != MOTE_INPUT_NOT_BOUND) return MOTE_INTERNAL;
    *step = "bind";
    if ((s = mote_bind_input(&executor, 0, input, input_size)) != MOTE_OK) return s;
  } else {
    if ((s = mote_input(&executor, 0, &in)) != MOTE_OK) return s;
    if (in.size != input_size) return MOTE_INVALID_ARGUMENT;
    memcpy(in.data, input, input_size);
  }
  *step = "run";
  if ((s = mote_run(&executor)) != MOTE_OK) return s;
  *step = "output";
  if ((s = mote_output(&executor, 0, &out)) != MOTE_OK) return s;
  if (out.size > output_capacity) return MOTE_INVALID_ARGUMENT;
  memcpy(output, out.data, out.size);
  *output_size = out.size;
  *step = "memory status";
  if ((s = mote_get_memory_status(&executor, &memory)) != MOTE_OK) return s;
  if (memory.temp_allocator != 0 || memory.arena_planned != mote_arena_bytes(&program)) return MOTE_INTERNAL;
  if (memory.runtime_state != sizeof(mote_program) + sizeof(mote_executor)) return MOTE_INTERNAL;
  if (memory.inputs_outside != (mote_input_is_external(&executor, 0) ? input_size : 0)) {
    return MOTE_INTERNAL;
  }
  if (mote_format_memory_status(&memory, report, sizeof(report)) == 0) return MOTE_INTERNAL;
  *step = "";
  return MOTE_OK;
}
