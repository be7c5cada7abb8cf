#include "compiler/planner/report.h"

#include <algorithm>
#include <cstdio>

#include "compiler/target/target.h"

namespace mote::planner {

// Reports name the extension a problem was sized for; which CPU has it is the target module's.
using target::extension_name;

namespace {


std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value);
  return text;
}

std::string pad(std::string text, size_t width, bool right) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string short_buffer_name(std::string_view name, size_t max_chars) {
  // TensorFlow joins the names of fused ops with ';' and nests scopes with '/': the first op's
  // last scope names the tensor well enough ("model/conv2d/Relu;model/..." -> "conv2d/Relu").
  if (name.size() <= max_chars) return std::string(name);
  std::string_view text = name.substr(0, name.find(';'));
  const size_t last = text.rfind('/');
  if (last != std::string_view::npos && last > 0) {
    const size_t before = text.rfind('/', last - 1);
    if (before != std::string_view::npos) text = text.substr(before + 1);
  }
  std::string out(text);
  if (out.size() != name.size() && out.size() + 3 <= max_chars) out = "..." + out;
  if (out.size() > max_chars) {
    out = max_chars >= 4 ? out.substr(0, max_chars - 3) + "..." : out.substr(0, max_chars);
  }
  return out;
}

namespace {

// Names in text reports: each shortened (the JSON keeps them whole).
constexpr size_t kTextNameChars = 32;

std::string names_of(const Problem& problem, const std::vector<size_t>& indices, size_t limit) {
  std::string out;
  for (size_t k = 0; k < indices.size() && k < limit; ++k) {
    if (k > 0) out += ", ";
    out += short_buffer_name(problem.buffers[indices[k]].name, kTextNameChars);
  }
  if (indices.size() > limit) out += ", ... (" + std::to_string(indices.size() - limit) + " more)";
  return out;
}

nlohmann::json name_list(const Problem& problem, const std::vector<size_t>& indices) {
  nlohmann::json names = nlohmann::json::array();
  for (size_t i : indices) names.push_back(problem.buffers[i].name);
  return names;
}

}  // namespace

uint64_t state_bytes(const Problem& problem) {
  uint64_t bytes = 0;
  for (const Buffer& b : problem.buffers) {
    if (b.kind == BufferKind::kState) bytes += aligned_size(b);
  }
  return bytes;
}

uint64_t round_tick(uint64_t top, int max_ticks) {
  // The smallest 1, 2 or 5 x 10^k that needs at most max_ticks steps to pass `top`.
  for (uint64_t scale = 1;; scale *= 10) {
    for (uint64_t m : {1, 2, 5}) {
      if (top / (m * scale) < static_cast<uint64_t>(max_ticks)) return m * scale;
    }
  }
}

PlanFigures plan_figures(const Problem& problem, const LowerBound& bound, const Plan& plan) {
  PlanFigures figures;
  const auto& buffers = problem.buffers;
  uint64_t activation_end = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].kind != BufferKind::kScratch) {
      activation_end = std::max(activation_end, plan.offsets[i] + aligned_size(buffers[i]));
    }
  }
  figures.activation_bytes =
      std::min(plan.arena_bytes, align_up(activation_end, arena_alignment(problem)));
  figures.scratch_bytes = plan.arena_bytes - figures.activation_bytes;
  figures.state_bytes = state_bytes(problem);
  figures.gap_percent =
      bound.bytes == 0 ? 0.0
                       : 100.0 * (static_cast<double>(plan.arena_bytes) - static_cast<double>(bound.bytes)) /
                             static_cast<double>(bound.bytes);
  // Highest end among the buffers live at each step.
  std::vector<uint64_t> top(static_cast<size_t>(problem.num_steps), 0);
  for (size_t i = 0; i < buffers.size(); ++i) {
    for (int32_t t = buffers[i].first_step; t <= buffers[i].last_step; ++t) {
      top[static_cast<size_t>(t)] = std::max(top[static_cast<size_t>(t)], plan.offsets[i] + buffers[i].size);
    }
  }
  for (size_t t = 0; t < top.size(); ++t) {
    if (top[t] > top[static_cast<size_t>(figures.peak_step)]) figures.peak_step = static_cast<int32_t>(t);
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].first_step <= figures.peak_step && figures.peak_step <= buffers[i].last_step) {
      figures.peak_live.push_back(i);
    }
  }
  std::sort(figures.peak_live.begin(), figures.peak_live.end(),
            [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
  return figures;
}

bool OrderSummary::model_order() const {
  for (size_t step = 0; step < order.size(); ++step) {
    if (order[step] != static_cast<int32_t>(step)) return false;
  }
  return true;
}

// 1234567 -> "1,234,567"
std::string grouped(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string counted(uint64_t count, std::string_view noun) {
  return grouped(count) + " " + std::string(noun) + (count == 1 ? "" : "s");
}

std::string order_sentence(const OrderSummary& order) {
  std::string out = "operator order: ";
  switch (order.kept) {
    case OrderSummary::Kept::kOnlyOrder:
      return out + "model's order kept (the only order: no branches)";
    case OrderSummary::Kept::kAsked:
      return out + "model's order kept (--order=model)";
    case OrderSummary::Kept::kSearched:
      break;
  }
  out += "searched " + grouped(order.orders) + (order.orders == 1 ? " order" : " orders") +
         (order.exhaustive ? " (all)" : " (a budgeted search, not all)");
  if (order.model_order() || order.arena >= order.model_arena) {
    return out + ", model's order kept (none smaller: " + grouped(order.model_arena) + " bytes)";
  }
  return out + ", saved " + grouped(order.model_arena - order.arena) + " bytes (" +
         grouped(order.model_arena) + " -> " + grouped(order.arena) + ")";
}

std::string outside_arena_text(const std::vector<OutsideBuffer>& outside) {
  if (outside.empty()) return "";
  std::string out = "inputs outside the arena: ";
  for (size_t i = 0; i < outside.size(); ++i) {
    if (i > 0) out += ", ";
    out += short_buffer_name(outside[i].name, kTextNameChars) + " " + grouped(outside[i].bytes) +
           " bytes";
  }
  return out + (outside.size() == 1 ? " (caller's buffer)" : " (caller's buffers)");
}

std::vector<size_t> overwritten_inputs(const Problem& problem, const Plan& plan) {
  std::vector<size_t> result;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& in = problem.buffers[i];
    if (in.kind != BufferKind::kInput || in.size == 0) continue;
    // Any other buffer on its bytes writes them at some step, after it dies or over it.
    for (size_t k = 0; k < problem.buffers.size(); ++k) {
      const Buffer& other = problem.buffers[k];
      if (k == i || other.size == 0) continue;
      if (plan.offsets[k] < plan.offsets[i] + in.size &&
          plan.offsets[i] < plan.offsets[k] + other.size) {
        result.push_back(i);
        break;
      }
    }
  }
  return result;
}

std::string text_report(const Problem& problem, const LowerBound& bound,
                        const std::vector<Plan>& plans, const ReportContext& context) {
  std::string out;
  out += "plan: " + (context.source.empty() ? std::string("problem") : context.source) + " (" +
         counted(problem.buffers.size(), "buffer") + ", " +
         counted(static_cast<uint64_t>(problem.num_steps), "step") + ", alignment " +
         std::to_string(arena_alignment(problem));
  if (context.target) out += ", target " + *context.target;
  if (context.extension) out += ", " + std::string(extension_name(*context.extension)) + " extension";
  out += ")\n";
  out += "lower bound: " + grouped(bound.bytes) + " bytes";
  if (!problem.buffers.empty()) {
    out += " (step " + std::to_string(bound.step) + ": " + grouped(bound.live_bytes) +
           " bytes live in " + counted(bound.live.size(), "buffer") + ": " +
           names_of(problem, bound.live, 8) + ")";
  }
  out += "\n";
  if (const uint64_t state = state_bytes(problem); state != 0) {
    size_t count = 0;
    for (const Buffer& b : problem.buffers) count += b.kind == BufferKind::kState ? 1 : 0;
    out += "state: " + grouped(state) + " bytes in " + std::to_string(count) +
           (count == 1 ? " buffer" : " buffers") +
           " (persist from one run to the next; part of every plan's activations)\n";
  }
  if (!context.outside_arena.empty()) {
    out += outside_arena_text(context.outside_arena) + "; no plan's arena holds them\n";
  }
  // Whether the caller must write the inputs before every run (the first plan's offsets).
  if (!plans.empty()) {
    const std::vector<size_t> overwritten = overwritten_inputs(problem, plans.front());
    for (size_t i = 0; i < problem.buffers.size(); ++i) {
      if (problem.buffers[i].kind != BufferKind::kInput) continue;
      const bool reused =
          std::find(overwritten.begin(), overwritten.end(), i) != overwritten.end();
      out += "input " + short_buffer_name(problem.buffers[i].name, kTextNameChars) +
             (reused ? ": its bytes are reused during a run (" + plans.front().algorithm +
                           " plan); write it before every run\n"
                     : ": kept intact by a run (" + plans.front().algorithm + " plan)\n");
    }
  }
  out += "\n";
  out += pad("algorithm", 11, false) + pad("chosen", 11, false) + pad("arena", 12, true) +
         pad("gap", 10, true) + pad("activations", 13, true) + pad("scratch", 10, true) +
         pad("time", 12, true) + "  proof\n";
  std::vector<PlanFigures> figures;
  for (const Plan& plan : plans) {
    figures.push_back(plan_figures(problem_of(plan, problem), bound, plan));
    const PlanFigures& f = figures.back();
    out += pad(plan.algorithm, 11, false) + pad(plan.chosen, 11, false) +
           pad(grouped(plan.arena_bytes), 12, true) + pad(format("%.2f%%", f.gap_percent), 10, true) +
           pad(grouped(f.activation_bytes), 13, true) + pad(grouped(f.scratch_bytes), 10, true) +
           pad(format("%.1f ms", plan.milliseconds), 12, true) + "  " +
           (plan.optimal ? "optimal" : "-") + "\n";
  }
  if (!context.outside_arena.empty() && !plans.empty()) {
    out += "\n" + plans.front().algorithm + ": arena " + grouped(plans.front().arena_bytes) +
           " bytes + " + outside_arena_text(context.outside_arena) + "\n";
  }
  out += "\npeak step of each plan (live buffers by offset):\n";
  for (size_t k = 0; k < plans.size(); ++k) {
    const Plan& plan = plans[k];
    out += "  " + pad(plan.algorithm, 10, false) + " step " + std::to_string(figures[k].peak_step) + ": ";
    const auto& live = figures[k].peak_live;
    for (size_t j = 0; j < live.size() && j < 8; ++j) {
      const size_t i = live[j];
      const Buffer& b = problem_of(plan, problem).buffers[i];
      if (j > 0) out += ", ";
      out += short_buffer_name(b.name, kTextNameChars) + " @" + grouped(plan.offsets[i]) + "+" +
             grouped(b.size);
    }
    if (live.size() > 8) out += ", ... (" + std::to_string(live.size() - 8) + " more)";
    out += "\n";
  }
  if (context.order) out += "\n" + order_sentence(*context.order) + "\n";
  if (!context.kernels.empty()) {
    // In another order than the model's, each step also names the model's operator it runs.
    const bool reordered = context.order && !context.order->model_order();
    out += "\nkernel of each operator (variant, scratch planned";
    out += reordered ? "; the model's operator index):\n" : "):\n";
    // The names' column as wide as the longest (TFLM's signal operators run past 24).
    size_t name_width = 24;
    for (const StepKernel& k : context.kernels) name_width = std::max(name_width, k.op.size() + 1);
    for (const StepKernel& k : context.kernels) {
      out += pad(std::to_string(k.step), 6, true) + "  " + pad(k.op, name_width, false) +
             pad(k.variant, 10, false) + pad(grouped(k.scratch_bytes), 10, true);
      const auto step = static_cast<size_t>(k.step);
      if (reordered && step < context.order->order.size()) {
        out += pad(std::to_string(context.order->order[step]), 8, true);
      }
      out += "\n";
    }
  }
  return out;
}

nlohmann::json json_report(const Problem& problem, const LowerBound& bound,
                           const std::vector<Plan>& plans, const ReportContext& context) {
  nlohmann::json report;
  report["source"] = context.source;
  report["target"] = context.target ? nlohmann::json(*context.target) : nlohmann::json(nullptr);
  report["extension"] = context.extension ? nlohmann::json(std::string(extension_name(*context.extension)))
                                          : nlohmann::json(nullptr);
  report["buffers"] = problem.buffers.size();
  report["steps"] = problem.num_steps;
  report["alignment"] = arena_alignment(problem);
  report["lower_bound_bytes"] = bound.bytes;
  report["lower_bound_step"] = bound.step;
  report["lower_bound_live"] = name_list(problem, bound.live);
  report["state_bytes"] = state_bytes(problem);
  nlohmann::json outside = nlohmann::json::array();
  for (const OutsideBuffer& b : context.outside_arena) {
    outside.push_back({{"name", b.name}, {"bytes", b.bytes}});
  }
  report["inputs_outside_arena"] = std::move(outside);
  nlohmann::json results = nlohmann::json::array();
  for (const Plan& plan : plans) {
    const PlanFigures f = plan_figures(problem_of(plan, problem), bound, plan);
    results.push_back({{"algorithm", plan.algorithm},
                       {"chosen", plan.chosen},
                       {"arena_bytes", plan.arena_bytes},
                       {"activation_bytes", f.activation_bytes},
                       {"scratch_bytes", f.scratch_bytes},
                       {"gap_percent", f.gap_percent},
                       {"optimal", plan.optimal},
                       {"milliseconds", plan.milliseconds},
                       {"nodes", plan.nodes},
                       {"peak_step", f.peak_step},
                       {"peak_live", name_list(problem_of(plan, problem), f.peak_live)}});
  }
  report["results"] = std::move(results);
  if (!plans.empty()) {
    nlohmann::json buffers = nlohmann::json::array();
    for (size_t i = 0; i < problem.buffers.size(); ++i) {
      const Buffer& b = problem.buffers[i];
      buffers.push_back({{"name", b.name},
                         {"kind", std::string(to_string(b.kind))},
                         {"size", b.size},
                         {"alignment", b.alignment},
                         {"first_step", b.first_step},
                         {"last_step", b.last_step},
                         {"offset", plans.front().offsets[i]},
                         {"fixed", b.fixed_offset.has_value()}});
    }
    report["plan"] = {{"algorithm", plans.front().algorithm}, {"buffers", std::move(buffers)}};
  }
  nlohmann::json operators = nlohmann::json::array();
  for (const StepKernel& k : context.kernels) {
    operators.push_back({{"index", k.step},
                         {"operator", k.op},
                         {"kernel_variant", k.variant},
                         {"scratch_bytes", k.scratch_bytes}});
  }
  report["operators"] = std::move(operators);
  if (context.order) {
    const OrderSummary& o = *context.order;
    const char* kept = o.kept == OrderSummary::Kept::kOnlyOrder ? "only order"
                       : o.kept == OrderSummary::Kept::kAsked   ? "model"
                                                                : "searched";
    report["operator_order"] = {
        {"kept", kept},
        {"orders", o.orders},
        {"exhaustive", o.exhaustive},
        {"model_arena_bytes", o.model_arena},
        {"arena_bytes", o.arena},
        {"saved_bytes", o.model_arena > o.arena ? o.model_arena - o.arena : 0},
        {"order", o.order}};
  }
  return report;
}

std::string svg_report(const Problem& problem, const LowerBound& bound, const Plan& plan,
                       const ReportContext& context) {
  const PlanFigures figures = plan_figures(problem, bound, plan);
  constexpr double kLeft = 90, kRight = 120, kTop = 70, kBottom = 60;
  constexpr double kPlotWidth = 1000, kPlotHeight = 560;
  constexpr double kMinBufferHeight = 2;
  const double width = kLeft + kPlotWidth + kRight;
  const double height = kTop + kPlotHeight + kBottom;
  const double steps = std::max(1, problem.num_steps);
  const double top_bytes = static_cast<double>(std::max<uint64_t>({plan.arena_bytes, bound.bytes, 1}));
  auto x_of = [&](double step) { return kLeft + step / steps * kPlotWidth; };
  auto y_of = [&](double bytes) { return kTop + kPlotHeight - bytes / top_bytes * kPlotHeight; };
  auto num = [](double v) { return format("%.2f", v); };

  std::string svg;
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  // Title.
  std::string title = (context.source.empty() ? std::string("plan") : context.source) + " - " +
                      plan.algorithm;
  if (plan.chosen != plan.algorithm) title += " (" + plan.chosen + ")";
  if (context.target) title += " - " + *context.target;
  if (context.extension) title += " (" + std::string(extension_name(*context.extension)) + ")";
  std::string subtitle = "arena " + grouped(plan.arena_bytes) + " B, lower bound " +
                         grouped(bound.bytes) + " B (+" + format("%.2f", figures.gap_percent) +
                         "%)" + (plan.optimal ? ", optimal" : "") + "; activations " +
                         grouped(figures.activation_bytes) + " B + scratch " +
                         grouped(figures.scratch_bytes) + " B";
  svg += "<text x=\"" + num(kLeft) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" +
         xml_escape(title) + "</text>\n";
  svg += "<text x=\"" + num(kLeft) + "\" y=\"44\">" + xml_escape(subtitle) + "</text>\n";
  // The peak step: the one the lower bound names (as in the text and JSON reports).
  const int32_t peak = problem.buffers.empty() ? 0 : bound.step;
  svg += "<rect x=\"" + num(x_of(peak)) + "\" y=\"" + num(kTop) + "\" width=\"" +
         num(kPlotWidth / steps) + "\" height=\"" + num(kPlotHeight) +
         "\" fill=\"#e15759\" fill-opacity=\"0.12\"><title>" +
         xml_escape("step " + std::to_string(peak) + ": " + grouped(bound.live_bytes) +
                    " bytes live in " + std::to_string(bound.live.size()) +
                    " buffers, the lower bound") +
         "</title></rect>\n";
  svg += "<text x=\"" + num(x_of(peak + 0.5)) + "\" y=\"" + num(kTop - 6) +
         "\" text-anchor=\"middle\" fill=\"#c03030\">peak (step " + std::to_string(peak) +
         ")</text>\n";
  // Buffers.
  auto colour = [](BufferKind kind) {
    switch (kind) {
      case BufferKind::kInput: return "#59a14f";
      case BufferKind::kOutput: return "#b07aa1";
      case BufferKind::kActivation: return "#4e79a7";
      case BufferKind::kScratch: return "#f28e2b";
      case BufferKind::kState: return "#76b7b2";
    }
    return "#999999";
  };
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (b.size == 0) continue;
    const double x0 = x_of(b.first_step);
    const double x1 = x_of(b.last_step + 1);
    const double y1 = y_of(static_cast<double>(plan.offsets[i]));
    const double y0 = y_of(static_cast<double>(plan.offsets[i] + b.size));
    // Tiny buffers keep a visible height (their tooltip tells the real size).
    const double drawn = std::max(kMinBufferHeight, y1 - y0);
    svg += "<rect x=\"" + num(x0) + "\" y=\"" + num(y1 - drawn) + "\" width=\"" + num(x1 - x0) +
           "\" height=\"" + num(drawn) + "\" fill=\"" + colour(b.kind) +
           "\" fill-opacity=\"0.85\" stroke=\"#222222\" stroke-width=\"0.6\"" +
           (b.fixed_offset ? " stroke-dasharray=\"4 2\"" : "") + "><title>" +
           xml_escape(b.name + " (" + std::string(to_string(b.kind)) + "): " + grouped(b.size) +
                      " B at offset " + grouped(plan.offsets[i]) + ", steps " +
                      std::to_string(b.first_step) + "-" + std::to_string(b.last_step) +
                      (b.fixed_offset ? ", fixed" : "")) +
           "</title></rect>\n";
    // Label the rectangles large enough to hold one.
    const size_t fits = static_cast<size_t>((x1 - x0 - 4) / 7);
    if (y1 - y0 >= 14 && fits >= 4) {
      const std::string label = short_buffer_name(b.name, fits);
      svg += "<text x=\"" + num(x0 + 3) + "\" y=\"" + num(y1 - (y1 - y0) / 2 + 4) +
             "\" fill=\"white\" font-size=\"11\" pointer-events=\"none\">" + xml_escape(label) +
             "</text>\n";
    }
  }
  // Declared overlaps the plan uses: the bytes an output shares with its dying input, at the
  // step where one is born and the other dies, hatched over both (tooltip: which, and whether
  // the operator runs forward or backward).
  bool hatch_defined = false;
  for (const Overlap& o : problem.overlaps) {
    const Buffer& out = problem.buffers[o.output];
    const Buffer& in = problem.buffers[o.input];
    const uint64_t begin = std::max(plan.offsets[o.output], plan.offsets[o.input]);
    const uint64_t end =
        std::min(plan.offsets[o.output] + out.size, plan.offsets[o.input] + in.size);
    if (begin >= end) continue;
    if (!hatch_defined) {
      svg += "<defs><pattern id=\"shared\" width=\"6\" height=\"6\" "
             "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" "
             "y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#222222\" stroke-width=\"2\"/></pattern></defs>\n";
      hatch_defined = true;
    }
    const bool backward = o.back_lead && static_cast<int64_t>(plan.offsets[o.output]) + o.lead >
                                             static_cast<int64_t>(plan.offsets[o.input]);
    const char* how = o.exact ? "run in place" : backward ? "run backward" : "run forward";
    const double x0 = x_of(out.first_step), x1 = x_of(out.first_step + 1);
    const double y1 = y_of(static_cast<double>(begin)), y0 = y_of(static_cast<double>(end));
    svg += "<rect x=\"" + num(x0) + "\" y=\"" + num(y0) + "\" width=\"" + num(x1 - x0) +
           "\" height=\"" + num(std::max(1.0, y1 - y0)) +
           "\" fill=\"url(#shared)\" fill-opacity=\"0.5\"><title>" +
           xml_escape(out.name + " over its dying input " + in.name + ": " + grouped(end - begin) +
                      " B shared, " + how) +
           "</title></rect>\n";
  }
  // Lower bound and arena lines.
  svg += "<line x1=\"" + num(kLeft) + "\" x2=\"" + num(kLeft + kPlotWidth) + "\" y1=\"" +
         num(y_of(static_cast<double>(bound.bytes))) + "\" y2=\"" +
         num(y_of(static_cast<double>(bound.bytes))) +
         "\" stroke=\"#c03030\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
  // Labels in the right margin: the lower bound, and the arena top when it is above it.
  svg += "<text x=\"" + num(kLeft + kPlotWidth + 6) + "\" y=\"" +
         num(y_of(static_cast<double>(bound.bytes)) + 4) + "\" fill=\"#c03030\">lower bound</text>\n";
  if (plan.arena_bytes > bound.bytes) {
    svg += "<text x=\"" + num(kLeft + kPlotWidth + 6) + "\" y=\"" +
           num(std::min(y_of(static_cast<double>(plan.arena_bytes)) + 4,
                        y_of(static_cast<double>(bound.bytes)) - 10)) +
           "\">arena</text>\n";
  }
  // Axes and ticks.
  svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kPlotWidth) +
         "\" height=\"" + num(kPlotHeight) + "\" fill=\"none\" stroke=\"#444444\"/>\n";
  const int32_t step_tick = std::max(1, problem.num_steps / 20);
  for (int32_t t = 0; t < problem.num_steps; t += step_tick) {
    svg += "<text x=\"" + num(x_of(t + 0.5)) + "\" y=\"" + num(kTop + kPlotHeight + 16) +
           "\" text-anchor=\"middle\">" + std::to_string(t) + "</text>\n";
  }
  svg += "<text x=\"" + num(kLeft + kPlotWidth / 2) + "\" y=\"" + num(kTop + kPlotHeight + 34) +
         "\" text-anchor=\"middle\">step</text>\n";
  const uint64_t tick = round_tick(static_cast<uint64_t>(top_bytes), 6);
  for (uint64_t bytes = 0; static_cast<double>(bytes) <= top_bytes; bytes += tick) {
    svg += "<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(y_of(static_cast<double>(bytes)) + 4) +
           "\" text-anchor=\"end\">" + grouped(bytes) + "</text>\n";
  }
  svg += "<text transform=\"translate(16 " + num(kTop + kPlotHeight / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">offset (bytes)</text>\n";
  // Legend.
  double legend_x = kLeft;
  // The state's entry only where the problem has one (most have none).
  const bool with_state = state_bytes(problem) != 0;
  for (BufferKind kind : {BufferKind::kInput, BufferKind::kOutput, BufferKind::kActivation,
                          BufferKind::kScratch, BufferKind::kState}) {
    if (kind == BufferKind::kState && !with_state) continue;
    svg += "<rect x=\"" + num(legend_x) + "\" y=\"" + num(height - 18) +
           "\" width=\"12\" height=\"12\" fill=\"" + colour(kind) + "\"/>\n";
    svg += "<text x=\"" + num(legend_x + 16) + "\" y=\"" + num(height - 8) + "\">" +
           std::string(to_string(kind)) + "</text>\n";
    legend_x += 100;
  }
  svg += "<text x=\"" + num(legend_x) + "\" y=\"" + num(height - 8) +
         "\">dashed outline: fixed offset</text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace mote::planner
