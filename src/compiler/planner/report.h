#pragma once
// Plan reports: text for people, JSON for tools, SVG for a picture of the arena. Shared by
// `mote plan` and `mote compile`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/problem.h"
#include "mote/kernels/scratch.h"

namespace mote::planner {

// The kernel that runs at one step and the scratch planned for it. The planner reads none of
// it: the memory problem fills it from the operator definitions, reports print it.
struct StepKernel {
  int32_t step = 0;         // the operator's index
  std::string op;           // "CONV_2D"
  std::string variant;      // "portable", "dsp", "mve"
  uint64_t scratch_bytes = 0;
};

// What the compiler did with the operators' order (the planner knows no operators; the pipeline
// fills this in, reports print it).
struct OrderSummary {
  enum class Kept : uint8_t {
    kOnlyOrder,  // a chain: the model's order is the only one
    kAsked,      // --order=model
    kSearched,   // the order below is the best of those searched
  };
  Kept kept = Kept::kOnlyOrder;
  uint64_t orders = 0;        // orders compared (by lower bound; the best of them placed)
  bool exhaustive = false;    // they were every topological order there is
  uint64_t model_arena = 0;   // the plan's arena in the model's order (when searched)
  uint64_t arena = 0;         // the plan's arena in the order kept
  std::vector<int32_t> order;  // order[step]: the operator's index in the model
  bool model_order() const;
};

// 1234567 -> "1,234,567": how every report prints bytes.
std::string grouped(uint64_t value);

// (1, "step") -> "1 step", (3, "step") -> "3 steps": a grouped count with its noun.
std::string counted(uint64_t count, std::string_view noun);

// "operator order: model's order kept (...)" or "operator order: searched N orders (all), saved
// X bytes (A -> B)", without a newline.
std::string order_sentence(const OrderSummary& order);

// Bytes a program needs outside the arena, in a buffer the caller binds (a graph input kept
// outside it): no buffer of the problem, priced apart.
struct OutsideBuffer {
  std::string name;
  uint64_t bytes = 0;
};

// Where a problem came from; target, extension and kernels are unset for a CSV problem.
struct ReportContext {
  std::string source;                           // e.g. the file name
  std::optional<std::string> target;            // e.g. "cortex-m55"
  std::optional<kernels::Extension> extension;  // what the scratch sizes were made for
  std::vector<StepKernel> kernels = {};         // one per operator, by step
  std::optional<OrderSummary> order = {};       // unset for a CSV problem
  std::vector<OutsideBuffer> outside_arena = {};  // graph inputs the caller keeps
};

// "inputs outside the arena: input_1 27,648 bytes (caller's buffer)"; "" when there are none.
std::string outside_arena_text(const std::vector<OutsideBuffer>& outside);
// Per plan: the input buffers (BufferKind::kInput) whose bytes some other buffer shares, i.e.
// that a run overwrites. The caller must write them before every run.
std::vector<size_t> overwritten_inputs(const Problem& problem, const Plan& plan);

struct PlanFigures {
  // Arena the non-scratch buffers reach on their own (their highest end, aligned), and what
  // scratch adds on top: activation_bytes + scratch_bytes == arena_bytes. Scratch that fits in
  // memory the activations leave free at its step costs nothing here.
  uint64_t activation_bytes = 0;
  uint64_t scratch_bytes = 0;
  // Of activation_bytes, the states' (buffers of kind kState): bytes that persist from one run to
  // the next, reserved whatever the step.
  uint64_t state_bytes = 0;
  double gap_percent = 0;          // (arena - lower bound) / lower bound
  int32_t peak_step = 0;           // the earliest step where a live buffer reaches the arena top
  std::vector<size_t> peak_live;   // the buffers live then, by offset
};

PlanFigures plan_figures(const Problem& problem, const LowerBound& bound, const Plan& plan);
// The aligned bytes of the problem's states (BufferKind::kState).
uint64_t state_bytes(const Problem& problem);

// A buffer name short enough for a label or a text report line (at most max_chars): the last two
// scopes of the first of TensorFlow's ';'-joined names, "..." where something was left out.
std::string short_buffer_name(std::string_view name, size_t max_chars);

// The spacing of round axis ticks (1, 2 or 5 x 10^k) with at most max_ticks steps up to top.
uint64_t round_tick(uint64_t top, int max_ticks);

// A table with one row per plan (arena, gap, activations, scratch, time, proof), the lower
// bound's step and live buffers, each plan's peak step with its live buffers, and the kernel
// variant and scratch of each operator (when the context has them).
std::string text_report(const Problem& problem, const LowerBound& bound,
                        const std::vector<Plan>& plans, const ReportContext& context);

// {"source", "target", "extension" (null for a CSV problem), "buffers", "steps", "alignment",
//  "lower_bound_bytes", "lower_bound_step", "lower_bound_live": [names],
//  "results": [{"algorithm", "chosen", "arena_bytes", "activation_bytes", "scratch_bytes",
//               "gap_percent", "optimal", "milliseconds", "nodes", "peak_step",
//               "peak_live": [names]}, ...],
//  "plan": {"algorithm", "buffers": [{"name", "kind", "size", "alignment", "first_step",
//           "last_step", "offset", "fixed"}]},   (the first plan's offsets)
//  "operators": [{"index", "operator", "kernel_variant", "scratch_bytes"}],   (empty for CSV)
//  "operator_order": {"kept", "orders", "exhaustive", "model_arena_bytes", "arena_bytes",
//                     "saved_bytes", "order": [model operator index by step]}}   (absent for CSV)
nlohmann::json json_report(const Problem& problem, const LowerBound& bound,
                           const std::vector<Plan>& plans, const ReportContext& context);

// An SVG picture of plan: x is the step, y the offset (0 at the bottom), one rectangle per
// buffer coloured by kind (fixed buffers dashed), the lower bound as a dashed line, the peak
// step the lower bound names shaded, round offset ticks, buffers at least 2 px high, full names
// in each rectangle's tooltip, and a title with the arena size and the lower bound.
std::string svg_report(const Problem& problem, const LowerBound& bound, const Plan& plan,
                       const ReportContext& context);

}  // namespace mote::planner
