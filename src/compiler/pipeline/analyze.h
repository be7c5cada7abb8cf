#pragma once
// `mote analyze`: one row per operator of a compiled model (what it computes, what it keeps in
// flash, what the arena holds while it runs, which kernel runs it), with totals, in the forms
// the command prints (text, JSON, CSV).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/graph.h"
#include "compiler/pipeline/compile.h"
#include "mote/schema/mote_generated.h"

namespace mote::pipeline {

struct OperatorRow {
  int32_t step = 0;                  // the operator's step in the plan and the program
  int32_t model_index = 0;           // its index in the model (another when the order moved it)
  std::string type;                  // "CONV_2D"
  std::vector<int32_t> output_shape;  // of its first output
  int64_t macs = 0;
  int64_t constant_bytes = 0;   // weights, biases and other constants it reads (flash)
  uint64_t live_bytes = 0;      // arena bytes of the buffers live at this step, its scratch too
  uint64_t arena_bytes = 0;     // the arena in use at this step: the highest end of a live buffer
  uint64_t scratch_bytes = 0;   // its own scratch, sized for the target's kernel
  std::string kernel_variant;   // "portable", "dsp", "mve"
  uint64_t instructions = 0;    // measured on the CPU (mote analyze --measure), else 0
};

struct Analysis {
  std::string source;  // the model's file
  std::string cpu;
  std::string extension;
  std::string target_note;  // the text's words after the CPU (that it is the default)
  std::vector<OperatorRow> rows;
  // Totals: as `mote inspect` counts them (every constant once) and as the plan has them.
  int64_t macs = 0;
  int64_t constant_bytes = 0;
  uint64_t arena_bytes = 0;
  uint64_t lower_bound = 0;
  uint64_t scratch_bytes = 0;  // the largest scratch of any operator
  uint64_t program_bytes = 0;
  int32_t peak_step = 0;       // the plan report's peak step (PlanFigures::peak_step)
  int32_t folded_pads = 0;     // PADs run as their reader's padding (no step of their own)
  int32_t quantized_inputs = 0;  // float inputs held quantized (their QUANTIZE has no step)
  std::string quantized_inputs_sentence;  // what the plan report says of them ("" for none)
  bool measured = false;       // rows hold instructions (and `instructions` their total)
  uint64_t instructions = 0;
  std::string measured_on;     // the QEMU board
  bool from_program = false;   // read from a .mote program, not compiled from a model
  std::string optimize;        // the --optimize preset and what it chose ("" for a program)
  // One inference estimated from the measured kernel costs, and what the plan's in-place
  // kernels or stages add (nullopt: an unmeasured CPU, or a program).
  std::optional<double> estimated_instructions;
  std::optional<double> extra_instructions;
};

// Adds measured instructions, one per operator in order (throws mote::InputError on a count
// mismatch).
void add_instructions(Analysis& a, const std::vector<uint64_t>& per_operator,
                      const std::string& board);

// One row per step of the program: the model's operators in the order compiled.planned.graph
// has them (the order the plan chose).
Analysis analyze(const std::string& source, const Compiled& compiled);

// The kernel variant that runs operator `op` of a compiled program on the CPU it names
// ("portable", "dsp", "mve", "in-place"), as the compiler chose it.
std::string program_kernel_variant(const schema::ProgramT& program, const schema::OperatorT& op);

// One row per step of a compiled program (a .mote file, already verified), from what it holds:
// the same figures as `analyze` of its model, except what a program does not keep (each row's
// model_index is its step; PADs folded into their readers are not counted).
Analysis analyze_program(const std::string& source, const schema::ProgramT& program,
                         size_t program_bytes);

std::string analysis_text(const Analysis& a);
nlohmann::json analysis_json(const Analysis& a);
// One header line, one line per operator, then a "total" line (RFC 4180; shapes as 1x8x8x3).
std::string analysis_csv(const Analysis& a);

}  // namespace mote::pipeline
