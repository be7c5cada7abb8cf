#pragma once
// Small hand-built programs for the runtime's tests (host only).

#include <cstdint>
#include <span>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/emit/program_builder.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"

namespace mote::runtime::testing {

/// Packs without any check (to build defective programs on purpose). With `force_defaults`, every
/// scalar field is stored even when it equals its default, so that byte-level damage reaches
/// every field (strides, dilations, ...).
std::vector<uint8_t> pack_unchecked(const schema::ProgramT& program, bool force_defaults = false);

/// Loads from a 16-byte aligned copy that the returned object owns.
struct Loaded {
  emit::AlignedBuffer bytes;
  Result<Program> program;
  LoadDiagnostic diagnostic;
};
Loaded load(std::span<const uint8_t> bytes);

/// The reference program of the tests, three steps:
///   x [1,5,5,2] int8 -> CONV_2D 3x3 pad 1 (4 channels, bias, per-channel requant, scratch)
///   -> y [1,5,5,4] -> ADD with a constant [4] (broadcast) -> z -> RESHAPE (aliased) -> out [1,100]
/// Arena: x @0, y @64, conv scratch @176 (80 bytes), z and out (aliased) @176; 288 bytes.
struct ConvAddParams {
  float input_scale = 0.5f;
  int32_t input_zero_point = -3;
  float conv_scale = 0.75f;
  int32_t conv_zero_point = 5;
  float output_scale = 0.6f;
  int32_t output_zero_point = -2;
};
schema::ProgramT conv_add_program(const ConvAddParams& params = {});

/// Marks graph input 0 of `program` external (schema Location::External): the caller's buffer,
/// outside the arena, offset and steps 0. conv_add_program()'s arena keeps its bytes unused.
void make_input_external(schema::ProgramT& program);

/// The values conv_add_program() must produce for `input` (computed independently of the
/// kernels: plain loops and double-precision rescaling, then TFLite rounding).
std::vector<int8_t> conv_add_expected(const std::vector<int8_t>& input,
                                      const ConvAddParams& params = {});

/// A chain through every other operator kind (17 steps, float input [1,4,4,2], float output [1,3]):
/// QUANTIZE, DEPTHWISE_CONV_2D, HARD_SWISH, PAD, AVERAGE_POOL_2D, RESIZE_NEAREST_NEIGHBOR, MUL,
/// CONCATENATION (one input requantized), TRANSPOSE_CONV, MAX_POOL_2D, TRANSPOSE, MINIMUM,
/// MAXIMUM, LOGISTIC, MEAN, FULLY_CONNECTED (kernel sums), SOFTMAX, DEQUANTIZE. Every tensor has
/// its own bytes (a plan without reuse); parameters come from the kernels' prepare functions.
schema::ProgramT kitchen_sink_program();

/// Fills inputs from the xorshift32 stream that `mote run` uses (state 1).
void fill_deterministic(Executor& executor);

}  // namespace mote::runtime::testing
