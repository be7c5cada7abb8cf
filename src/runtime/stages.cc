// Row-streamed stages (schema Stage): reading a stage's members from the program, running a
// stage, and the loader's checks of its rings and of its output's overlap with its input.

#include "runtime/stages.h"

#include "runtime/ops/op_support.h"

namespace mote {
namespace runtime {
namespace internal {
namespace {

// Bytes of one row of a [1, H, W, C] tensor.
int64_t row_bytes(const schema::Tensor& t) {
  return int64_t{dim(t, 2)} * dim(t, 3) * static_cast<int64_t>(element_size(t.type()));
}

// Runs each call of the schedule on the member's kernel.
struct Runner {
  const OpEnv* env;
  const schema::Program* program;
  uint32_t first;
  void row(int32_t, int32_t, const int32_t*) {}
  void call(int32_t m, int32_t begin, int32_t end) {
    const schema::Operator& op = *program->operators()->Get(first + static_cast<uint32_t>(m));
    built_in_op(op.kind())->invoke_rows(Op(*env, op), begin, end);
  }
};

}  // namespace

const schema::Stage* stage_holding(const schema::Program& program, uint32_t index) {
  if (program.stages() == nullptr) return nullptr;
  for (const schema::Stage* s : *program.stages()) {
    if (index >= s->first() && index <= s->last()) return s;
  }
  return nullptr;
}

const char* stage_members(const schema::Program& program, const schema::Stage& stage,
                          StageMember* members, int32_t* count) {
  const auto& ops = *program.operators();
  if (stage.first() >= stage.last() || stage.last() >= ops.size()) {
    return "stage's operators out of order or range";
  }
  const uint32_t n = stage.last() - stage.first() + 1;
  if (n > static_cast<uint32_t>(kMaxStageMembers)) return "stage of more than 16 operators";
  for (uint32_t m = 0; m < n; ++m) {
    const schema::Operator& op = *ops.Get(stage.first() + m);
    const OpRegistration* r = built_in_op(op.kind());
    if (r == nullptr || r->row_reach == nullptr || r->invoke_rows == nullptr) {
      return "operator kind cannot run in a stage";
    }
    if (op.backward() || op.in_place()) return "stage member marked backward or in place";
    if (op.outputs()->size() != 1) return "stage member with several outputs";
    const schema::Tensor& out = output_of(program, op);
    if (rank(out) != 4 || dim(out, 0) != 1) return "stage member's output not [1, H, W, C]";
    StageMember& me = members[m];
    if (!stage_rows_fit(dim(out, 1))) return "stage member's output taller than 32,767 rows";
    me = {op.outputs()->Get(0), static_cast<int16_t>(dim(out, 1)), 0, {}};
    for (uint32_t k = 0; k < op.inputs()->size(); ++k) {
      const int32_t t = op.inputs()->Get(k);
      if (t < 0 || tensor_at(program, t).location() == schema::Location::Constant) continue;
      StageRowReach reach{};
      if (!r->row_reach(program, op, k, &reach)) return "stage member cannot run by rows";
      if (me.num_reads == kMaxStageReads) return "stage member reads more than two inputs";
      const schema::Tensor& in = tensor_at(program, t);
      if (!stage_rows_fit(dim(in, 1))) return "stage member's input taller than 32,767 rows";
      int16_t maker = -1;
      for (uint32_t j = 0; j < m; ++j) {
        if (members[j].output == t) maker = static_cast<int16_t>(j);
      }
      me.reads[me.num_reads++] = {t, maker, static_cast<int16_t>(dim(in, 1)), reach};
      // An accumulating member counts its input's rows, and ends the stage.
      if (reach.accumulate != 0) {
        if (m + 1 != n || me.num_reads != 1) return "accumulating member not the stage's last";
        me.height = static_cast<int16_t>(dim(in, 1));
      }
    }
  }
  *count = static_cast<int32_t>(n);
  return nullptr;
}

void run_stage(const OpEnv& env, const schema::Stage& stage) {
  StageMember members[kMaxStageMembers];
  int32_t n = 0;
  if (stage_members(*env.program, stage, members, &n) != nullptr) return;  // checked at load
  Runner runner{&env, env.program, stage.first()};
  StageSchedule<Runner>(members, n, runner).run();
}

const char* check_stage(const schema::Program& program, const schema::Stage& stage,
                        Error* error) {
  *error = Error::kInvalidProgram;
  StageMember members[kMaxStageMembers];
  int32_t n = 0;
  if (const char* reason = stage_members(program, stage, members, &n)) return reason;
  const auto& ops = *program.operators();
  const uint32_t first = stage.first(), last = stage.last();
  // Rings: what each member but the last makes, read inside the stage only, live through it.
  for (int32_t m = 0; m < n; ++m) {
    const schema::Tensor& t = tensor_at(program, members[m].output);
    if (m + 1 == n) {
      if (t.ring_rows() != 0) return "stage's output held as a ring";
      continue;
    }
    if (t.ring_rows() == 0) return "tensor made inside a stage not held as a ring";
    if (t.alias() != -1 || t.state()) return "ring with an alias or state";
    if (t.first_step() > first || t.last_step() < last) {
      *error = Error::kInvalidPlan;
      return "ring not live through its stage";
    }
    for (uint32_t k = 0; k < ops.size(); ++k) {
      if (k >= first && k <= last) continue;
      const schema::Operator& op = *ops.Get(k);
      for (int32_t in : *op.inputs()) {
        if (in == members[m].output) return "ring read outside its stage";
      }
    }
    for (int32_t o : *program.outputs()) {
      if (o == members[m].output) return "ring is a graph output";
    }
  }
  // Inputs from outside are read until the stage's end.
  for (int32_t m = 0; m < n; ++m) {
    for (int32_t i = 0; i < members[m].num_reads; ++i) {
      const StageRead& r = members[m].reads[i];
      const schema::Tensor& t = tensor_at(program, r.tensor);
      if (r.maker >= 0 || t.location() != schema::Location::Arena) continue;
      if (t.ring_rows() != 0) return "stage reads another stage's ring";
      if (t.last_step() < last) {
        *error = Error::kInvalidPlan;
        return "stage input not live through its stage";
      }
    }
  }
  // Each ring holds every row the schedule still needs when it writes one.
  StageReplay replay;
  replay.members = members;
  replay.n = n;
  StageSchedule<StageReplay>(members, n, replay).run();
  for (int32_t m = 0; m + 1 < n; ++m) {
    const schema::Tensor& t = tensor_at(program, members[m].output);
    if (static_cast<int32_t>(t.ring_rows()) < replay.held[m]) {
      *error = Error::kInvalidPlan;
      return "ring holds fewer rows than its stage's schedule needs";
    }
  }
  // An accumulating last member keeps its int32 sums in its own scratch from call to call.
  const StageMember& tail = members[n - 1];
  if (tail.num_reads == 1 && tail.reads[0].reach.accumulate != 0) {
    const schema::Region* sums = ops.Get(last)->scratch();
    const int32_t channels = dim(tensor_at(program, tail.output), 3);
    if (sums == nullptr || sums->size() < 4u * static_cast<uint32_t>(channels)) {
      *error = Error::kScratchTooSmall;
      return "accumulating member's scratch smaller than its sums";
    }
    for (uint32_t m = first; m < last; ++m) {
      const schema::Region* other = ops.Get(m)->scratch();
      if (other != nullptr &&
          ranges_overlap(other->offset(), other->size(), sums->offset(), sums->size())) {
        *error = Error::kInvalidPlan;
        return "accumulating member's sums share bytes with another member's scratch";
      }
    }
  }
  // A member's scratch is used while any tensor of the stage lives: it shares no byte with one.
  for (uint32_t m = first; m <= last; ++m) {
    const schema::Region* scratch = ops.Get(m)->scratch();
    if (scratch == nullptr) continue;
    for (const schema::Tensor* t : *program.tensors()) {
      if (t->location() != schema::Location::Arena || t->last_step() < first ||
          t->first_step() > last) {
        continue;
      }
      if (ranges_overlap(scratch->offset(), scratch->size(), t->offset(), t->size())) {
        *error = Error::kInvalidPlan;
        return "stage member's scratch overlaps a tensor of its stage";
      }
    }
  }
  *error = Error::kOk;
  return nullptr;
}

kernels::OverlapRule stage_output_overlap(const schema::Program& program,
                                          const schema::Stage& stage, int32_t input) {
  StageMember members[kMaxStageMembers];
  int32_t n = 0;
  if (stage_members(program, stage, members, &n) != nullptr) return kernels::kNoOverlap;
  if (stage_outside_input(members, n) != input) return kernels::kNoOverlap;
  const schema::Tensor& in = tensor_at(program, input);
  StageReplay replay;
  replay.members = members;
  replay.n = n;
  replay.outside = input;
  replay.outside_row_bytes = row_bytes(in);
  replay.outside_bytes = in.size();
  replay.output_row_bytes = row_bytes(tensor_at(program, members[n - 1].output));
  StageSchedule<StageReplay>(members, n, replay).run();
  return {true, replay.output_lead()};
}

Error run_step(const OpEnv& env, uint32_t index) {
  if (const schema::Stage* stage = stage_holding(*env.program, index)) {
    if (index == stage->first()) run_stage(env, *stage);
    return Error::kOk;  // the rest of the stage ran at its first operator
  }
  return run_operator(env, *env.program->operators()->Get(index));
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
