#pragma once
// What the compiler knows about one operator, in one place: its TFLite code and options (read
// and written), its validation and output shape, its MACs, the scratch its kernel asks for, its
// lowering to the program's options, and how `mote inspect` describes it. Each operator's
// definition is a file in this folder; the reader, validator, stats, memory problem, lowering,
// builder and inspect look it up here instead of switching on the operator type.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/graph.h"
#include "mote/kernels/overlap.h"
#include "mote/kernels/scratch.h"
#include "mote/schema/mote_generated.h"

namespace mote::tflite::fb {
struct Operator;
struct BuiltinOptionsUnion;
}  // namespace mote::tflite::fb

namespace mote::ops {

class Checker;
class LowerContext;
class TfliteOptions;

// One line of `mote inspect` (text) and its JSON fields.
struct Description {
  std::string text;
  nlohmann::json json = nlohmann::json::object();

  void add(const std::string& words) { text += (text.empty() ? "" : " ") + words; }
  void activation(ir::Activation a);
  void window(const char* what, int32_t h, int32_t w, int32_t stride_h, int32_t stride_w,
              ir::Padding padding);
  // A folded PAD's rows and columns (nothing when there is none).
  void folded(const ir::FoldedPad& pad);
};

// How an operator's output rows read the rows of one input (row-streamed stages,
// passes/row_stages.h): output row y reads input rows y * stride - pad + k * dilation for
// k in [0, filter), those inside the input.
// An accumulating operator (a global average pool) takes its input one row at a time into sums
// and writes its output once, after the last row (program/stage_schedule.h). An upsampling one
// (a nearest-neighbour resize by an integer factor `upsample` >= 2) reads input row y / upsample.
// A bilinear one (RESIZE_BILINEAR, TFLite's integer rule) reads the floor and the ceiling of its
// source position, y * `bilinear_step` in 1/1024 rows (offset for half-pixel centres), clamped:
// the rows kernels::bilinear_source names.
struct RowReach {
  int32_t filter = 1, stride = 1, pad = 0, dilation = 1;
  bool accumulate = false;
  int32_t upsample = 0;
  std::optional<int32_t> bilinear_step = std::nullopt;
  bool half_pixel_centers = false;
};

struct OpDef {
  // TFLite's BuiltinOperator code (CUSTOM for a custom operator, then named by custom_code).
  int32_t builtin_code = -1;
  // A custom operator's name (OperatorCode.custom_code, e.g. TFLM's "SignalWindow"); null for a
  // builtin. Its options are TfliteOptions::custom_map(), written back by write_custom.
  const char* custom_code = nullptr;
  std::vector<uint8_t> (*write_custom)(const ir::Operator& op) = nullptr;
  // State the operator keeps inside itself in TFLite (TFLM allocates it in Init, zeroes it in
  // Reset), which the reader makes Mote's: variable tensors appended to the operator's inputs
  // (declared in state_inputs), planned and reset as any state; the builder's writer leaves them
  // out. Null: none.
  std::vector<ir::Tensor> (*internal_state)(const ir::Operator& op) = nullptr;
  // The IR options from the operator's TFLite options table, and back (the builder's writer).
  ir::Options (*read_options)(const TfliteOptions& tflite) = nullptr;
  void (*write_options)(const ir::Operator& op, tflite::fb::BuiltinOptionsUnion& out) = nullptr;
  // How many inputs it takes, checked before `check`: at least `min`, at most `max`; inputs
  // before `first_optional` must be present.
  struct Inputs {
    size_t min = 0, max = SIZE_MAX, first_optional = SIZE_MAX;
  } inputs = {};
  // How many outputs (one for most; SPLIT, SPLIT_V and UNPACK have several, each its own tensor
  // and its own buffer in the plan).
  struct Outputs {
    size_t min = 1, max = 1;
  } outputs = {};
  // Types, quantization and output shape; throws InputError naming the operator.
  void (*check)(Checker& c) = nullptr;
  // Multiply-accumulates of one run (0 when absent).
  int64_t (*macs)(const ir::Graph& graph, const ir::Operator& op) = nullptr;
  // Arena bytes the kernel that runs on `extension` needs during the operator (0 when absent).
  uint64_t (*scratch_bytes)(const ir::Graph& graph, const ir::Operator& op,
                            kernels::Extension extension) = nullptr;
  // The kernel variant that runs it on `extension` (kernels::to_string(Variant)); null: the
  // operator has no variant table, the portable kernel runs everywhere.
  const char* (*kernel_variant)(const ir::Graph& graph, const ir::Operator& op,
                                kernels::Extension extension) = nullptr;
  // The program's options table (none when absent); parameters computed here, once. It never
  // refuses: every reason to refuse a model belongs in `check`.
  void (*lower)(LowerContext& context, schema::OperatorT& out) = nullptr;
  // The IR inputs the runtime reads, in the program's order; empty: all of them (parameter
  // inputs such as shapes and axes are folded into the options by `lower`).
  std::span<const int8_t> program_inputs = {};
  // The inputs that are the operator's state (variable tensors it reads and writes, whose bytes
  // persist from one run to the next); each must be a variable tensor, and no other input may
  // be one. Empty: the operator keeps no state.
  std::span<const int8_t> state_inputs = {};
  // Where the output may overlap input `input` (an index into op.inputs) when that input dies
  // at this operator: the rule of the kernel that runs on `extension` (mote/kernels/overlap.h).
  // Null: nowhere. The runtime's registration computes the same rule for the kernel it runs.
  kernels::OverlapRule (*overlap)(const ir::Graph& graph, const ir::Operator& op, size_t input,
                                  kernels::Extension extension) = nullptr;
  // Where the output may overlap input `input` dying here when the operator runs backward
  // (a backward rule, mote/kernels/overlap.h; the runtime runs it backward when the program says
  // so). Null: the operator never runs backward.
  kernels::OverlapRule (*back_overlap)(const ir::Graph& graph, const ir::Operator& op,
                                       size_t input) = nullptr;
  // Scratch bytes of the operator's kernel run in place (its output exactly on input 0, the
  // exact overlap rule of mote/kernels/overlap.h; the program marks it `in_place`), which works
  // alike on every extension. Null or 0: it never runs so.
  uint64_t (*in_place_scratch)(const ir::Graph& graph, const ir::Operator& op) = nullptr;
  // It takes int16 activations (16x8 models: int16 inputs and outputs, int8 weights) where its
  // check allows; false: validate refuses any int16 activation it reads or writes.
  bool int16_activations = false;
  // Its output may be a plain int8 (no quantization): CAST, which converts plain integers.
  bool plain_output = false;
  // The output is input 0's bytes under another shape (no kernel work; the planner aliases them).
  bool output_aliases_input = false;
  // It computes in float32 (ONNX's float islands, MoteFloatRnn): its check judges its float32
  // operands, which validate otherwise takes for an unquantized model.
  bool float_operands = false;
  void (*describe)(const ir::Graph& graph, const ir::Operator& op, Description& d) = nullptr;
  // Whether a range of output rows can be computed from input `input` (an index into op.inputs,
  // a 4-D activation of batch 1) held by rows, and how the rows are read; nullopt: not this
  // operator, shape or input. Null: never (a row-streamed stage never holds the operator).
  std::optional<RowReach> (*row_reach)(const ir::Graph& graph, const ir::Operator& op,
                                       size_t input) = nullptr;
};

const OpDef& op_def(ir::OpType type);
// The operator Mote compiles for a TFLite builtin code, if any (never a custom operator's).
std::optional<ir::OpType> op_type_for_builtin(int32_t code);
// The operator Mote compiles for a TFLite custom operator's name, if any.
std::optional<ir::OpType> op_type_for_custom(std::string_view name);

// Shared by the definitions.
// `scratch_bytes` and `kernel_variant` of an operator with a kernel variant table: the kernel
// library's queries (`kScratch`, `kVariant`) on the key `kKey` computes (its shape).
template <auto kKey, auto kScratch>
uint64_t variant_scratch(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  return kScratch(kKey(g, op), e);
}
template <auto kKey, auto kVariant>
const char* variant_name(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  return kVariant(kKey(g, op), e);
}

// Whether `op` runs in its 16x8 form (input 0 an int16 activation).
inline bool int16(const ir::Graph& g, const ir::Operator& op) {
  return g.tensors[op.inputs[0]].type == ir::DataType::kInt16;
}
// Whether `op`'s weights (input 1) are int4, packed two per byte.
inline bool int4_weights(const ir::Graph& g, const ir::Operator& op) {
  return op.inputs.size() > 1 && op.inputs[1] != ir::kNoTensor &&
         g.tensors[op.inputs[1]].type == ir::DataType::kInt4;
}
// The forms that run the portable direct loops on every extension (16x8, int4 weights): no
// scratch, no overlap, no backward or in-place runs, no row stages.
inline bool direct_loops(const ir::Graph& g, const ir::Operator& op) {
  return int16(g, op) || int4_weights(g, op);
}
// The kernel variant of a direct-loop form.
inline const char* direct_variant(const ir::Graph& g, const ir::Operator& op) {
  return int16(g, op) ? "portable 16x8" : "portable int4";
}

// `describe` of the operators whose only option is a fused activation.
void describe_activation(const ir::Graph& graph, const ir::Operator& op, Description& d);
inline schema::OpKind op_kind(ir::OpType type) { return static_cast<schema::OpKind>(type); }
int64_t operator_macs(const ir::Graph& graph, const ir::Operator& op);
int64_t total_macs(const ir::Graph& graph);
uint64_t operator_scratch_bytes(const ir::Graph& graph, const ir::Operator& op,
                                kernels::Extension extension);
const char* operator_kernel_variant(const ir::Graph& graph, const ir::Operator& op,
                                    kernels::Extension extension);
kernels::OverlapRule operator_overlap(const ir::Graph& graph, const ir::Operator& op, size_t input,
                                      kernels::Extension extension);
kernels::OverlapRule operator_back_overlap(const ir::Graph& graph, const ir::Operator& op,
                                           size_t input);
uint64_t operator_in_place_scratch(const ir::Graph& graph, const ir::Operator& op);
// `overlap` of the elementwise operators: in place or before, over an input of the output's
// shape and type (a broadcast input is read again and again).
kernels::OverlapRule elementwise_overlap(const ir::Graph& graph, const ir::Operator& op,
                                         size_t input, kernels::Extension extension);
// A constant of rank <= 4 that does not vary along H (nor batch) once right-aligned to [1, H, W,
// C] (a scalar, per channel, along W and C): every output row of an operator reads all of it.
bool constant_across_rows(const ir::Tensor& t);
// `row_reach` of the elementwise operators (ADD, MUL, MAXIMUM, MINIMUM, LOGISTIC, QUANTIZE): row
// y of input `input` for row y of an int8 [1, H, W, C] output, where that input is an activation
// of the output's shape and every other one too or a constant_across_rows (read whole by every
// row); a broadcast activation has no rows of its own to stream.
std::optional<RowReach> elementwise_rows(const ir::Graph& graph, const ir::Operator& op,
                                         size_t input);
// `overlap` of an operator with a kernel variant table: the kernel library's query on input 0.
template <auto kKey, auto kOverlap>
kernels::OverlapRule variant_overlap(const ir::Graph& g, const ir::Operator& op, size_t input,
                                     kernels::Extension e) {
  return input == 0 ? kOverlap(kKey(g, op), e) : kernels::kNoOverlap;
}

}  // namespace mote::ops
