#include "compiler/passes/row_stages.h"

#include <algorithm>
#include <climits>

#include "compiler/ops/op_def.h"
#include "compiler/planner/planner.h"
#include "program/stage_schedule.h"

namespace mote::passes {
namespace {

// An activation read or written by rows: [1, H, W, C], H within the schedule's int16 rows.
bool by_rows(const ir::Tensor& t) {
  return !t.is_constant && !t.is_variable && t.shape.size() == 4 && t.shape[0] == 1 &&
         program::stage_rows_fit(t.shape[1]) && t.num_bytes() > 0;
}

int64_t row_bytes(const ir::Tensor& t) { return t.num_bytes() / t.shape[1]; }

using program::StageMember;
using program::StageRead;
using program::StageRowReach;

// The replay that also records the calls.
struct Recorder : program::StageReplay {
  int32_t first;
  std::vector<StageCall>* calls;
  void call(int32_t m, int32_t begin, int32_t end) { calls->push_back({first + m, begin, end}); }
};

}  // namespace

int64_t RowStage::ring_bytes() const {
  int64_t total = 0;
  for (const StageRing& r : rings) total += r.bytes();
  return total;
}

std::optional<RowStage> row_stage(const ir::Graph& graph, int32_t first, int32_t last) {
  if (first < 0 || last <= first || static_cast<size_t>(last) >= graph.operators.size()) {
    return std::nullopt;
  }
  const auto tensor = [&](int32_t t) -> const ir::Tensor& {
    return graph.tensors[static_cast<size_t>(t)];
  };
  const int32_t n = last - first + 1;
  if (n > program::kMaxStageMembers) return std::nullopt;
  std::vector<int32_t> maker(graph.tensors.size(), -1);  // member making each tensor
  std::vector<StageMember> members(static_cast<size_t>(n));
  std::vector<StageRead> reads(program::kMaxStageTableReads);  // never reallocated
  int32_t num_reads = 0;
  for (int32_t m = 0; m < n; ++m) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(first + m)];
    const ops::OpDef& def = ops::op_def(op.type);
    if (def.row_reach == nullptr || op.outputs.size() != 1 || !by_rows(tensor(op.outputs[0]))) {
      return std::nullopt;
    }
    StageMember& me = members[static_cast<size_t>(m)];
    me = {op.outputs[0], static_cast<int16_t>(tensor(op.outputs[0]).shape[1]), 0,
          reads.data() + num_reads};
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const int32_t t = op.inputs[i];
      if (t == ir::kNoTensor || tensor(t).is_constant) continue;
      const std::optional<ops::RowReach> reach = def.row_reach(graph, op, i);
      if (!reach || !by_rows(tensor(t)) || me.num_reads == program::kMaxStageReads ||
          num_reads == program::kMaxStageTableReads) {
        return std::nullopt;
      }
      StageRowReach fits = program::kStageAccumulate;
      const bool fit =
          reach->accumulate ||
          (reach->bilinear_step ? program::stage_bilinear_reach(*reach->bilinear_step,
                                                                reach->half_pixel_centers, &fits)
           : reach->upsample > 1
               ? program::stage_upsample_reach(reach->upsample, &fits)
               : program::stage_window_reach(reach->filter, reach->stride, reach->pad,
                                             reach->dilation, &fits));
      if (!fit) return std::nullopt;
      reads[static_cast<size_t>(num_reads++)] = {
          t, static_cast<int16_t>(maker[static_cast<size_t>(t)]),
          static_cast<int16_t>(tensor(t).shape[1]), fits};
      ++me.num_reads;
      // An accumulating operator counts its input's rows, and ends the stage.
      if (reach->accumulate) {
        if (m + 1 != n || me.num_reads != 1) return std::nullopt;
        me.height = static_cast<int16_t>(tensor(t).shape[1]);
      }
    }
    maker[static_cast<size_t>(op.outputs[0])] = m;
  }
  // Tensors made before `last` are read inside the stage only.
  const auto is_output = [&](int32_t t) {
    return std::find(graph.outputs.begin(), graph.outputs.end(), t) != graph.outputs.end();
  };
  for (int32_t m = 0; m + 1 < n; ++m) {
    const int32_t made = members[static_cast<size_t>(m)].output;
    if (is_output(made)) return std::nullopt;
    for (size_t k = 0; k < graph.operators.size(); ++k) {
      if (static_cast<int32_t>(k) >= first && static_cast<int32_t>(k) <= last) continue;
      const std::vector<int32_t>& ins = graph.operators[k].inputs;
      if (std::find(ins.begin(), ins.end(), made) != ins.end()) return std::nullopt;
    }
  }
  // The stage's one input from outside, when the output may be written over it.
  const int32_t outside = program::stage_outside_input(members.data(), n);
  const bool overlap = outside >= 0;

  RowStage stage;
  stage.first = first;
  stage.last = last;
  stage.accumulates = members.back().num_reads == 1 && members.back().reads[0].reach.accumulate;
  Recorder replay;
  replay.members = members.data();
  replay.n = n;
  if (overlap) {
    replay.outside = outside;
    replay.outside_row_bytes = row_bytes(tensor(outside));
    replay.outside_bytes = tensor(outside).num_bytes();
  }
  replay.output_row_bytes = row_bytes(tensor(members.back().output));
  replay.first = first;
  replay.calls = &stage.schedule;
  program::StageSchedule<Recorder>(members.data(), n, replay).run();
  for (int32_t m = 0; m + 1 < n; ++m) {
    const ir::Tensor& t = tensor(members[static_cast<size_t>(m)].output);
    stage.rings.push_back({members[static_cast<size_t>(m)].output,
                           std::max(1, std::min(replay.held[m], t.shape[1])), row_bytes(t)});
  }
  if (overlap) {
    stage.input = outside;
    stage.output_lead = replay.output_lead();
  }
  return stage;
}

int32_t shared_scratch_op(const MemoryProblem& base, const RowStage& stage) {
  int32_t op = -1;
  uint64_t most = 0;
  for (int32_t k = stage.first; k <= stage.last; ++k) {
    const int32_t b = base.op_scratch_buffer[static_cast<size_t>(k)];
    if (b == kNoBuffer || (stage.accumulates && k == stage.last)) continue;
    const uint64_t size = base.problem.buffers[static_cast<size_t>(b)].size;
    if (size > most) {
      most = size;
      op = k;
    }
  }
  return op;
}

MemoryProblem streamed_memory(const ir::Graph& graph, const MemoryProblem& base,
                              const RowStage& stage) {
  MemoryProblem result = base;
  planner::Problem& p = result.problem;
  const int32_t shared = shared_scratch_op(base, stage);
  const auto buffer_of = [&](int32_t t) { return base.tensor_buffer[static_cast<size_t>(t)]; };
  // touched: the buffers the stage changes; made: those it writes (rings, scratch), apart from
  // its inputs made before it, whose makers keep their overlaps (a frame quantized in place).
  std::vector<bool> touched(p.buffers.size(), false), made(p.buffers.size(), false);
  for (const StageRing& r : stage.rings) {
    const int32_t b = buffer_of(r.tensor);
    if (b == kNoBuffer) continue;
    planner::Buffer& buf = p.buffers[static_cast<size_t>(b)];
    buf.size = static_cast<uint64_t>(r.bytes());
    buf.first_step = stage.first;
    buf.last_step = stage.last;
    touched[static_cast<size_t>(b)] = made[static_cast<size_t>(b)] = true;
  }
  for (int32_t k = stage.first; k <= stage.last; ++k) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(k)];
    for (int32_t t : op.inputs) {
      if (t == ir::kNoTensor || buffer_of(t) == kNoBuffer) continue;
      planner::Buffer& buf = p.buffers[static_cast<size_t>(buffer_of(t))];
      buf.last_step = std::max(buf.last_step, stage.last);
      touched[static_cast<size_t>(buffer_of(t))] = true;
    }
    const int32_t scratch = base.op_scratch_buffer[static_cast<size_t>(k)];
    if (scratch != kNoBuffer) {
      planner::Buffer& buf = p.buffers[static_cast<size_t>(scratch)];
      if (k == shared || (stage.accumulates && k == stage.last)) {
        buf.first_step = stage.first;
        buf.last_step = stage.last;
      } else {
        buf.size = 0;  // the operator uses the shared region (the program says so)
      }
      touched[static_cast<size_t>(scratch)] = made[static_cast<size_t>(scratch)] = true;
    }
  }
  // An accumulating last operator's sums: channels int32 through the stage, its own.
  if (stage.accumulates) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(stage.last)];
    const uint64_t sums = 4u * static_cast<uint64_t>(graph.tensors[static_cast<size_t>(op.outputs[0])].shape.back());
    int32_t& b = result.op_scratch_buffer[static_cast<size_t>(stage.last)];
    if (b == kNoBuffer) {
      planner::Buffer buf;
      buf.name = "sums of operator " + std::to_string(stage.last);
      buf.kind = planner::BufferKind::kScratch;
      b = static_cast<int32_t>(p.buffers.size());
      p.buffers.push_back(buf);
      touched.push_back(true);
      made.push_back(true);
    }
    planner::Buffer& buf = p.buffers[static_cast<size_t>(b)];
    buf.size = std::max(buf.size, sums);
    buf.first_step = stage.first;
    buf.last_step = stage.last;
  }
  // The output is written from the stage's start, but every buffer of the stage lives at its
  // last step, so being born there keeps it apart from all of them as well. Its own readers
  // after the stage keep their overlaps with it. An input made before the stage keeps its
  // maker's overlap: the maker's input dies at the maker's step, before the stage begins.
  const int32_t out = buffer_of(graph.operators[static_cast<size_t>(stage.last)].outputs[0]);
  std::erase_if(p.overlaps, [&](const planner::Overlap& o) {
    return touched[o.input] || made[o.output] || static_cast<int32_t>(o.output) == out;
  });
  if (stage.output_lead && out != kNoBuffer && buffer_of(stage.input) != kNoBuffer) {
    const planner::Buffer& in = p.buffers[static_cast<size_t>(buffer_of(stage.input))];
    // Only an input that dies in the stage may be written over.
    if (in.last_step == stage.last && in.kind != planner::BufferKind::kState) {
      p.overlaps.push_back({static_cast<size_t>(out), static_cast<size_t>(buffer_of(stage.input)),
                            *stage.output_lead, std::nullopt, false});
    }
  }
  return result;
}

namespace {

bool reads_graph_input(const ir::Graph& graph, int32_t op) {
  for (int32_t t : graph.operators[static_cast<size_t>(op)].inputs) {
    if (std::find(graph.inputs.begin(), graph.inputs.end(), t) != graph.inputs.end()) return true;
  }
  return false;
}

}  // namespace

std::vector<StreamCandidate> stream_candidates(const ir::Graph& graph, const MemoryProblem& base,
                                               double time_limit_ms,
                                               const std::vector<RowStage>& taken) {
  const int32_t ops = static_cast<int32_t>(graph.operators.size());
  const auto in_taken = [&](int32_t op) {
    return std::any_of(taken.begin(), taken.end(),
                       [&](const RowStage& s) { return op >= s.first && op <= s.last; });
  };
  std::vector<StreamCandidate> out;
  for (int32_t first = 0; first < ops; ++first) {
    if (in_taken(first)) continue;
    // Runs start where the previous operator could not join (or at 0), after a stage taken,
    // and after an operator that reads a graph input (a float frame's QUANTIZE): a stage that
    // began with it would keep the whole frame alive to its end.
    const bool after_input = first > 0 && reads_graph_input(graph, first - 1);
    if (first > 0 && !after_input && !in_taken(first - 1) && row_stage(graph, first - 1, first)) {
      continue;
    }
    for (int32_t last = first + 1; last < ops && !in_taken(last); ++last) {
      std::optional<RowStage> stage = row_stage(graph, first, last);
      if (!stage) {
        // A tensor read after `last` may end being so further on; a missing reach never does.
        const ops::OpDef& def = ops::op_def(graph.operators[static_cast<size_t>(last)].type);
        if (def.row_reach == nullptr) break;
        continue;
      }
      planner::PlanOptions options;
      options.time_limit_ms = time_limit_ms;
      const planner::Plan plan = planner::plan(streamed_memory(graph, base, *stage).problem,
                                               planner::Algorithm::kAuto, options);
      out.push_back({std::move(*stage), plan.arena_bytes});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const StreamCandidate& a, const StreamCandidate& b) {
    return a.arena < b.arena;
  });
  return out;
}

}  // namespace mote::passes
