#include "compiler/passes/row_stages.h"

#include <algorithm>
#include <climits>
#include <functional>

#include "compiler/ops/op_def.h"
#include "compiler/planner/planner.h"

namespace mote::passes {
namespace {

// An activation read or written by rows: [1, H, W, C].
bool by_rows(const ir::Tensor& t) {
  return !t.is_constant && !t.is_variable && t.shape.size() == 4 && t.shape[0] == 1 &&
         t.shape[1] > 0 && t.num_bytes() > 0;
}

int64_t row_bytes(const ir::Tensor& t) { return t.num_bytes() / t.shape[1]; }

// The lowest and highest input rows that output rows up to `y` (the lowest: from `y`) read,
// clamped to the input's `rows`.
int32_t lowest_read(const ops::RowReach& r, int32_t y, int32_t rows) {
  return std::clamp(y * r.stride - r.pad, 0, rows - 1);
}
int32_t highest_read(const ops::RowReach& r, int32_t y, int32_t rows) {
  return std::clamp(y * r.stride - r.pad + (r.filter - 1) * r.dilation, 0, rows - 1);
}

// One operator of a stage and how it reads each activation input.
struct Member {
  int32_t op;
  int32_t output;
  int32_t height;  // output rows
  struct Read {
    int32_t tensor;
    int32_t maker;  // the member that makes it, or -1 (from outside the stage)
    ops::RowReach reach;
    int32_t rows;  // the tensor's height
  };
  std::vector<Read> reads;
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
  std::vector<int32_t> maker(graph.tensors.size(), -1);  // member making each tensor
  std::vector<Member> members;
  for (int32_t k = first; k <= last; ++k) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(k)];
    const ops::OpDef& def = ops::op_def(op.type);
    if (def.row_reach == nullptr || op.outputs.size() != 1 || !by_rows(tensor(op.outputs[0]))) {
      return std::nullopt;
    }
    Member m{k, op.outputs[0], tensor(op.outputs[0]).shape[1], {}};
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const int32_t t = op.inputs[i];
      if (t == ir::kNoTensor || tensor(t).is_constant) continue;
      const std::optional<ops::RowReach> reach = def.row_reach(graph, op, i);
      if (!reach || !by_rows(tensor(t))) return std::nullopt;
      m.reads.push_back({t, maker[static_cast<size_t>(t)], *reach, tensor(t).shape[1]});
    }
    maker[static_cast<size_t>(op.outputs[0])] = static_cast<int32_t>(members.size());
    members.push_back(std::move(m));
  }
  // Tensors made before `last` are read inside the stage only.
  const auto is_output = [&](int32_t t) {
    return std::find(graph.outputs.begin(), graph.outputs.end(), t) != graph.outputs.end();
  };
  for (size_t m = 0; m + 1 < members.size(); ++m) {
    if (is_output(members[m].output)) return std::nullopt;
    for (size_t k = 0; k < graph.operators.size(); ++k) {
      if (static_cast<int32_t>(k) >= first && static_cast<int32_t>(k) <= last) continue;
      const std::vector<int32_t>& ins = graph.operators[k].inputs;
      if (std::find(ins.begin(), ins.end(), members[m].output) != ins.end()) return std::nullopt;
    }
  }

  // The demand-driven schedule: the last member's rows one at a time, each member computing the
  // rows its readers need when they need them. A ring slot is free once every reader has moved
  // past its row, so a ring needs the most rows any write finds still held.
  const size_t n = members.size();
  std::vector<int32_t> done(n, 0);   // rows each member has computed
  std::vector<int32_t> held(n, 0);   // the ring size each member's output needs
  RowStage stage;
  stage.first = first;
  stage.last = last;
  // The lowest row of `t` a reader still reads (its next output row's window), or INT32_MAX.
  const auto lowest_needed = [&](int32_t t) {
    int32_t low = INT32_MAX;
    for (size_t m = 0; m < n; ++m) {
      if (done[m] >= members[m].height) continue;
      for (const Member::Read& r : members[m].reads) {
        if (r.tensor == t) low = std::min(low, lowest_read(r.reach, done[m], r.rows));
      }
    }
    return low;
  };
  // The stage's one input from outside that dies in it (the output may then overlap it).
  int32_t outside = ir::kNoTensor;
  bool one_outside = true;
  for (const Member& m : members) {
    for (const Member::Read& r : m.reads) {
      if (r.maker >= 0) continue;
      if (outside != ir::kNoTensor && outside != r.tensor) one_outside = false;
      outside = r.tensor;
    }
  }
  bool last_reads_outside = false;
  for (const Member::Read& r : members.back().reads) last_reads_outside |= r.maker < 0;
  int64_t lead = INT64_MIN;

  // Row by row: each row of a member right after the input rows its window needs, so that no
  // ring holds a row sooner than it must. Consecutive rows of one member make one call.
  const std::function<void(size_t, int32_t)> compute = [&](size_t m, int32_t rows) {
    const Member& me = members[m];
    while (done[m] < rows) {
      const int32_t y = done[m];
      for (const Member::Read& r : me.reads) {
        if (r.maker >= 0) compute(static_cast<size_t>(r.maker), highest_read(r.reach, y, r.rows) + 1);
      }
      if (m + 1 < n) {
        const int32_t low = lowest_needed(me.output);
        held[m] = std::max(held[m], low == INT32_MAX ? 1 : y - std::min(low, y) + 1);
      } else if (outside != ir::kNoTensor) {
        // Output row y written whole while the outside input's rows below `low` are dead.
        const int32_t low = lowest_needed(outside);
        const ir::Tensor& in = tensor(outside);
        const int64_t dead = low == INT32_MAX ? in.num_bytes() : low * row_bytes(in);
        lead = std::max(lead, (y + 1) * row_bytes(tensor(me.output)) - dead);
      }
      if (!stage.schedule.empty() && stage.schedule.back().op == me.op &&
          stage.schedule.back().end == y) {
        stage.schedule.back().end = y + 1;
      } else {
        stage.schedule.push_back({me.op, y, y + 1});
      }
      done[m] = y + 1;
    }
  };
  for (int32_t y = 1; y <= members.back().height; ++y) compute(n - 1, y);

  for (size_t m = 0; m + 1 < n; ++m) {
    const ir::Tensor& t = tensor(members[m].output);
    if (done[m] < members[m].height) {
      // Rows nobody reads (a window that never reaches them) are still computed by the kernel.
      stage.schedule.push_back({members[m].op, done[m], members[m].height});
    }
    stage.rings.push_back({members[m].output, std::max(1, std::min(held[m], t.shape[1])), row_bytes(t)});
  }
  if (outside != ir::kNoTensor && one_outside && !last_reads_outside) {
    stage.input = outside;
    stage.output_lead = std::max(lead, -tensor(outside).num_bytes());
  }
  return stage;
}

planner::Problem streamed_problem(const ir::Graph& graph, const MemoryProblem& base,
                                  const RowStage& stage) {
  planner::Problem p = base.problem;
  const auto buffer_of = [&](int32_t t) { return base.tensor_buffer[static_cast<size_t>(t)]; };
  std::vector<bool> touched(p.buffers.size(), false);
  for (const StageRing& r : stage.rings) {
    const int32_t b = buffer_of(r.tensor);
    if (b == kNoBuffer) continue;
    planner::Buffer& buf = p.buffers[static_cast<size_t>(b)];
    buf.size = static_cast<uint64_t>(r.bytes());
    buf.first_step = stage.first;
    buf.last_step = stage.last;
    touched[static_cast<size_t>(b)] = true;
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
      p.buffers[static_cast<size_t>(scratch)].first_step = stage.first;
      p.buffers[static_cast<size_t>(scratch)].last_step = stage.last;
      touched[static_cast<size_t>(scratch)] = true;
    }
  }
  // The output is written from the stage's start, but every buffer of the stage lives at its
  // last step, so being born there keeps it apart from all of them as well. Its own readers
  // after the stage keep their overlaps with it.
  const int32_t out = buffer_of(graph.operators[static_cast<size_t>(stage.last)].outputs[0]);
  std::erase_if(p.overlaps, [&](const planner::Overlap& o) {
    return touched[o.input] || touched[o.output] || static_cast<int32_t>(o.output) == out;
  });
  if (stage.output_lead && out != kNoBuffer && buffer_of(stage.input) != kNoBuffer) {
    const planner::Buffer& in = p.buffers[static_cast<size_t>(buffer_of(stage.input))];
    // Only an input that dies in the stage may be written over.
    if (in.last_step == stage.last && in.kind != planner::BufferKind::kState) {
      p.overlaps.push_back({static_cast<size_t>(out), static_cast<size_t>(buffer_of(stage.input)),
                            *stage.output_lead, std::nullopt, false});
    }
  }
  return p;
}

std::vector<StreamCandidate> stream_candidates(const ir::Graph& graph,
                                               kernels::Extension extension, uint32_t alignment) {
  const MemoryProblem base = build_memory_problem(graph, extension, alignment);
  const int32_t ops = static_cast<int32_t>(graph.operators.size());
  std::vector<StreamCandidate> out;
  for (int32_t first = 0; first < ops; ++first) {
    // Runs start where the previous operator could not join (or at 0).
    if (first > 0 && row_stage(graph, first - 1, first)) continue;
    for (int32_t last = first + 1; last < ops; ++last) {
      std::optional<RowStage> stage = row_stage(graph, first, last);
      if (!stage) {
        // A tensor read after `last` may end being so further on; a missing reach never does.
        const ops::OpDef& def = ops::op_def(graph.operators[static_cast<size_t>(last)].type);
        if (def.row_reach == nullptr) break;
        continue;
      }
      planner::PlanOptions options;
      options.time_limit_ms = 100;
      const planner::Plan plan =
          planner::plan(streamed_problem(graph, base, *stage), planner::Algorithm::kAuto, options);
      out.push_back({std::move(*stage), plan.arena_bytes});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const StreamCandidate& a, const StreamCandidate& b) {
    return a.arena < b.arena;
  });
  return out;
}

}  // namespace mote::passes
