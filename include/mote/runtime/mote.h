/* Mote's runtime for C (C99 and later) and C++: load a program, bind it to an arena you own, fill
 * the inputs, run, read the outputs. A thin layer over the C++ runtime (executor.h), with its
 * guarantees: no heap, no exceptions, no file access; the only RAM is your arena plus a
 * mote_program and a mote_executor, which you place where you like (static, stack).
 *
 *   #include "mote/runtime/mote.h"
 *   #include "kws_program.h"    // mote compile --emit c, or mote_add_model()
 *
 *   static uint8_t arena[KWS_PROGRAM_ARENA_BYTES]
 *       __attribute__((aligned(KWS_PROGRAM_ARENA_ALIGN)));
 *   mote_program program;
 *   mote_executor executor;
 *   mote_tensor in, out;
 *   if (mote_load(&program, kws_program, KWS_PROGRAM_BYTES, NULL) != MOTE_OK) ...
 *   if (mote_executor_init(&executor, &program, arena, sizeof(arena)) != MOTE_OK) ...
 *   mote_input(&executor, 0, &in);    // fill in.data[0, in.size)
 *   if (mote_run(&executor) != MOTE_OK) ...
 *   mote_output(&executor, 0, &out);  // read out.data[0, out.size)
 *
 * Every function that can fail returns a mote_status; mote_status_string() describes it. */
#ifndef MOTE_RUNTIME_MOTE_H_
#define MOTE_RUNTIME_MOTE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The values equal mote::runtime::Error's (error.h): stable, groupable by their high nibble. */
typedef enum mote_status {
  MOTE_OK = 0x00,
  MOTE_INTERNAL = 0x01,            /* a broken runtime invariant; never caused by input */
  MOTE_INVALID_PROGRAM = 0x10,     /* not a well-formed, consistent Mote program */
  MOTE_UNSUPPORTED_VERSION = 0x11, /* a Mote program of another format version */
  MOTE_PROGRAM_MISALIGNED = 0x12,  /* program bytes not 16-byte aligned */
  MOTE_INVALID_PLAN = 0x13,        /* the memory plan lets two live buffers share bytes */
  MOTE_CORRUPT_CONSTANTS = 0x14,   /* the constants differ from their CRC-32 (--checksum) */
  MOTE_ARENA_TOO_SMALL = 0x20,     /* smaller than the program's arena (mote_arena_bytes) */
  MOTE_ARENA_MISALIGNED = 0x21,    /* not at the program's arena alignment */
  MOTE_SCRATCH_TOO_SMALL = 0x22,   /* debug checks: a scratch region below the kernel's need */
  MOTE_INPUT_NOT_BOUND = 0x23,     /* an input outside the arena without mote_bind_input */
  MOTE_INVALID_ARGUMENT = 0x30,    /* a null pointer or an index out of range */
  MOTE_UNSUPPORTED = 0x31          /* an operator or parameter this build cannot run */
} mote_status;

/* The values equal mote::runtime::DataType's. */
typedef enum mote_type {
  MOTE_FLOAT32 = 0,
  MOTE_INT8 = 1,
  MOTE_INT16 = 2,
  MOTE_INT32 = 3,
  MOTE_INT64 = 4,
  MOTE_UINT8 = 5,
  MOTE_BOOL = 6,
  MOTE_INT4 = 7,
  MOTE_UINT32 = 8,
  MOTE_UINT64 = 9
} mote_type;

/* A loaded (verified) program: a handle to its bytes, which must stay valid and unchanged while
 * it or an executor made from it is in use. Opaque; two words. */
typedef struct mote_program {
  void* opaque[2];
} mote_program;

/* A program bound to an arena. Opaque; eight words (the program handle, the arena, and the
 * buffers bound to inputs kept outside the arena). It keeps its own copy of the program handle,
 * so the mote_program may go once the executor exists. */
typedef struct mote_executor {
  void* opaque[8];
} mote_executor;

/* A graph input or output, inside the arena (or an input's bound buffer, outside it). */
typedef struct mote_tensor {
  uint8_t* data;
  size_t size;          /* bytes */
  mote_type type;
  const int32_t* shape; /* `rank` dimensions, read from the program bytes */
  size_t rank;
  float scale;          /* real = scale * (q - zero_point); 0 when not quantized */
  int32_t zero_point;
} mote_tensor;

/* Every byte of memory a running program uses (the "I mote:" report). */
typedef struct mote_memory_status {
  size_t program_size;   /* the program bytes (flash) */
  size_t constant_data;  /* of which constants */
  size_t arena_planned;  /* the arena the plan needs (RAM) */
  size_t activations;    /* plan statistics: activation part of the arena */
  size_t scratch;        /*   scratch-only part of the arena */
  size_t lower_bound;    /*   largest total of live bytes at any step */
  size_t runtime_state;  /* RAM besides the arena: sizeof(mote_program) + sizeof(mote_executor) */
  size_t temp_allocator; /* always 0: scratch is planned, nothing is allocated at run time */
  size_t state;          /* of the activations, the states' bytes (kept between runs; 0: none) */
  size_t inputs_outside; /* bytes of the graph inputs kept outside the arena (the caller's) */
} mote_memory_status;

/* Where mote_load found a defect. */
typedef enum mote_where {
  MOTE_WHERE_PROGRAM = 0,
  MOTE_WHERE_TENSOR = 1,
  MOTE_WHERE_OPERATOR = 2,
  MOTE_WHERE_INPUT = 3,
  MOTE_WHERE_OUTPUT = 4
} mote_where;

typedef struct mote_diagnostic {
  mote_where where;
  uint32_t index;      /* of the tensor, operator, input or output */
  const char* reason;  /* a static string, never null */
  const char* op_name; /* MOTE_WHERE_OPERATOR: its kind ("CONV_2D"), "" if unknown */
  /* A program planned for another CPU's kernels: the CPU it names and the kernels this runtime
     runs ("dsp", "mve"); "" otherwise. */
  const char* program_cpu;
  const char* runtime_kernels;
  /* The CPU this runtime was built for, "" when its build did not say. */
  const char* runtime_cpu;
} mote_diagnostic;

/* A short fixed description ("arena too small"); never null, also for unknown values. */
const char* mote_status_string(mote_status status);

/* Verifies data[0, size) completely (structure, every index, offset, size, shape, parameter, and
 * the memory plan) and fills *program. `data` must be 16-byte aligned. On failure, fills
 * *diagnostic when it is not NULL. Uses about 1 KiB of stack. */
mote_status mote_load(mote_program* program, const uint8_t* data, size_t size,
                      mote_diagnostic* diagnostic);

/* The arena the plan needs: bytes and alignment (equal to the generated header's
 * <NAME>_ARENA_BYTES and <NAME>_ARENA_ALIGN). 0 for a NULL program. */
size_t mote_arena_bytes(const mote_program* program);
size_t mote_arena_align(const mote_program* program);
/* The CPU the program was compiled for ("cortex-m4"; `mote compile --target`), "" if it names
 * none or for a NULL program. */
const char* mote_target_cpu(const mote_program* program);

/* Binds arena[0, arena_size) to the program: MOTE_ARENA_TOO_SMALL or MOTE_ARENA_MISALIGNED when
 * it does not hold mote_arena_bytes() at mote_arena_align(). The arena and the program bytes
 * must outlive the executor. */
mote_status mote_executor_init(mote_executor* executor, const mote_program* program,
                               uint8_t* arena, size_t arena_size);

size_t mote_num_inputs(const mote_executor* executor);
size_t mote_num_outputs(const mote_executor* executor);
size_t mote_num_operators(const mote_executor* executor);
/* Views of graph input / output `index`: MOTE_INVALID_ARGUMENT (and *tensor zeroed) for an
 * index out of range. Fill inputs before every mote_run, read outputs after: mote_run does not
 * preserve an input in the arena (the plan may reuse its bytes once it is read, and let the first
 * operators write their outputs over it); mote_input_preserved says whether it does. An input
 * kept outside the arena and not bound yet gives MOTE_INPUT_NOT_BOUND, with data NULL and the
 * other fields filled (to size its buffer). */
mote_status mote_input(const mote_executor* executor, size_t index, mote_tensor* tensor);
mote_status mote_output(const mote_executor* executor, size_t index, mote_tensor* tensor);
/* 1 when input `index` keeps its bytes through mote_run (an input outside the arena, or one no
 * other buffer of the plan shares bytes with), else 0 (also for a bad index). */
int mote_input_preserved(const mote_executor* executor, size_t index);

/* Inputs kept outside the arena (`mote compile --inputs-outside-arena`): the program plans no
 * bytes for them and reads the caller's buffer instead (a camera frame, a DMA buffer, const
 * data), which it never writes. mote_input_is_external says which (1, else 0). Bind each before
 * mote_run (MOTE_INPUT_NOT_BOUND otherwise), again to switch buffers; data[0, bytes) must stay
 * valid and unchanged while mote_run reads it. MOTE_INVALID_ARGUMENT for an index out of range,
 * an input in the arena (fill mote_input's data instead), NULL data, data not aligned to the
 * element size, or `bytes` other than the input's size. */
int mote_input_is_external(const mote_executor* executor, size_t index);
mote_status mote_bind_input(mote_executor* executor, size_t index, const void* data, size_t bytes);

/* Float inputs held quantized (what `mote compile` does with a float32 input the model quantizes
 * first, unless --float-inputs float): mote_input describes the int8 (or int16) tensor in the
 * arena, a quarter (half) of the float bytes, and the program leaves the model's QUANTIZE out.
 * mote_input_takes_float says which (1, else 0). mote_write_input_float writes `count` floats
 * into elements [first, first + count) of an arena input: quantized into an int8 or int16 input
 * with its scale and zero point exactly as that QUANTIZE would, copied into a float32 one; a row
 * at a time needs no float buffer of the whole input. MOTE_INVALID_ARGUMENT for an index out of
 * range, an input outside the arena, a range beyond the input, NULL values, or an input of
 * another type or without a scale. */
int mote_input_takes_float(const mote_executor* executor, size_t index);
mote_status mote_write_input_float(mote_executor* executor, size_t index, const float* values,
                                   size_t count, size_t first);

/* Runs every operator in order. A program with state (SVDF, LSTM: TFLite's variable tensors)
 * carries it from one mote_run to the next. */
mote_status mote_run(mote_executor* executor);
/* Sets every state back to its initial value (TFLite's: the zero point for int8, zero
 * otherwise), as mote_executor_init leaves it: to start a new sequence. No heap. */
mote_status mote_reset_state(mote_executor* executor);
/* Runs operator `index` alone (0 .. mote_num_operators() - 1 in order is mote_run), to time or
 * trace each one. */
mote_status mote_run_operator(mote_executor* executor, size_t index);
/* TFLite's name of operator `index`'s kind ("CONV_2D"); "" when out of range. */
const char* mote_operator_name(const mote_executor* executor, size_t index);

mote_status mote_get_memory_status(const mote_executor* executor, mote_memory_status* status);
/* Writes the five "I mote: ..." lines (a sixth, inputs_outside_arena, when there are such inputs)
 * into out[0, capacity) and returns their length, or 0 when capacity is too small (384 bytes
 * suffice while every figure is below 2^32). No printf. */
size_t mote_format_memory_status(const mote_memory_status* status, char* out, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* MOTE_RUNTIME_MOTE_H_ */
