// Row-streamed stages (schema Stage): reading a stage's members from the program, running a
// stage, and the loader's checks of its rings and of its output's overlap with its input.

#include "runtime/stages.h"

#include <string.h>

#include <new>

#include "mote/kernels/overlap.h"
#include "mote/runtime/stage_words.h"
#include "runtime/ops/op_support.h"

namespace mote {
namespace runtime {
namespace internal {
namespace {

// Bytes of one row of a [1, H, W, C] tensor.
int64_t row_bytes(const schema::Tensor& t) {
  return int64_t{dim(t, 2)} * dim(t, 3) * static_cast<int64_t>(element_size(t.type()));
}

// A replay that requires the program's entries (Program.stage_calls) to be the schedule's calls.
struct CallsCheck : StageReplay {
  const flatbuffers::Vector<uint16_t>* calls = nullptr;
  uint32_t next = 0;
  bool same = true;
  void call(int32_t m, int32_t begin, int32_t end) {
    stage_call_entries(m, begin, end, [&](uint16_t entry) {
      same = same && next < calls->size() && calls->Get(next) == entry;
      ++next;
    });
  }
};

// Stage k's calls, or null.
const schema::StageCalls* calls_of(const schema::Program& program, uint32_t k) {
  const auto* all = program.stage_calls();
  if (all == nullptr || k >= all->size()) return nullptr;
  return all->Get(k);
}

// Whether the stage's words (StageCalls.args) are its members' row_args, in member order;
// `words`: room for kMaxRowWords.
bool args_match(const schema::Program& program, const schema::Stage& stage,
                const flatbuffers::Vector<int32_t>& args, int32_t* words) {
  const auto& ops = *program.operators();
  uint32_t at = 0;
  for (uint32_t k = stage.first(); k <= stage.last(); ++k) {
    const schema::Operator& op = *ops.Get(k);
    const OpRowForm* r = row_form(op);  // (stage_members checked the kind)
    const uint32_t n = r->row_words;
    if (n > kMaxRowWords || !r->row_args(program, op, words) || n > args.size() - at ||
        memcmp(args.data() + at, words, n * sizeof(int32_t)) != 0) {
      return false;
    }
    at += n;
  }
  return at == args.size();
}

}  // namespace

const schema::Stage* stage_holding(const schema::Program& program, uint32_t index,
                                   uint32_t* k) {
  if (program.stages() == nullptr) return nullptr;
  for (uint32_t i = 0; i < program.stages()->size(); ++i) {
    const schema::Stage* s = program.stages()->Get(i);
    if (index >= s->first() && index <= s->last()) {
      if (k != nullptr) *k = i;
      return s;
    }
  }
  return nullptr;
}

const char* stage_members(const schema::Program& program, const schema::Stage& stage,
                          StageMember* members, StageRead* reads, int32_t* count) {
  const auto& ops = *program.operators();
  if (stage.first() >= stage.last() || stage.last() >= ops.size()) {
    return "stage's operators out of order or range";
  }
  const uint32_t n = stage.last() - stage.first() + 1;
  if (n > static_cast<uint32_t>(kMaxStageMembers)) return "stage of more than 16 operators";
  int32_t num_reads = 0;
  for (uint32_t m = 0; m < n; ++m) {
    const schema::Operator& op = *ops.Get(stage.first() + m);
    const OpRowForm* r = row_form(op);
    if (r == nullptr) return "operator kind cannot run in a stage";
    if (op.backward() || op.in_place()) return "stage member marked backward or in place";
    if (op.outputs()->size() != 1) return "stage member with several outputs";
    const schema::Tensor& out = output_of(program, op);
    if (rank(out) != 4 || dim(out, 0) != 1) return "stage member's output not [1, H, W, C]";
    StageMember& me = members[m];
    if (!stage_rows_fit(dim(out, 1))) return "stage member's output taller than 32,767 rows";
    me = {op.outputs()->Get(0), static_cast<int16_t>(dim(out, 1)), 0, reads + num_reads};
    for (uint32_t k = 0; k < op.inputs()->size(); ++k) {
      const int32_t t = op.inputs()->Get(k);
      if (t < 0 || tensor_at(program, t).location() == schema::Location::Constant) continue;
      StageRowReach reach{};
      if (!r->row_reach(program, op, k, &reach)) return "stage member cannot run by rows";
      if (me.num_reads == kMaxStageReads) return "stage member reads more than four inputs";
      if (num_reads == kMaxStageTableReads) return "stage reads more than 32 inputs";
      const schema::Tensor& in = tensor_at(program, t);
      if (!stage_rows_fit(dim(in, 1))) return "stage member's input taller than 32,767 rows";
      int16_t maker = -1;
      for (uint32_t j = 0; j < m; ++j) {
        if (members[j].output == t) maker = static_cast<int16_t>(j);
      }
      reads[num_reads++] = {t, maker, static_cast<int16_t>(dim(in, 1)), reach};
      ++me.num_reads;
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

// Each entry of the stage's calls (the loader checked them against the schedule) on its
// member's row kernel, from the rows that member has computed so far and its words
// (StageCalls.args, which the loader checked against the operators).
void run_stage(const OpEnv& env, const schema::Stage& stage, const schema::StageCalls& calls) {
  struct Member {
    void (*invoke_rows)(const OpEnv&, const int32_t*, int32_t, int32_t);
    const int32_t* words;
  };
  Member members[kMaxStageMembers];
  const auto& ops = *env.program->operators();
  const int32_t* words = calls.args()->data();
  for (uint32_t m = 0; m <= stage.last() - stage.first(); ++m) {
    const OpRowForm* r = row_form(*ops.Get(stage.first() + m));
    members[m] = {r->invoke_rows, words};
    words += r->row_words;
  }
  int16_t done[kMaxStageMembers] = {};  // a stage's rows fit int16 (stage_rows_fit)
  for (const uint16_t entry : *calls.calls()) {
    const int32_t m = stage_call_member(entry);
    const int32_t begin = done[m];
    const int32_t end = begin + stage_call_rows(entry);
    done[m] = static_cast<int16_t>(end);
    members[m].invoke_rows(env, members[m].words, begin, end);
  }
}

namespace {

// check_stage with its table in `members` (kMaxStageMembers of them) and `reads`
// (kMaxStageTableReads).
const char* check_stage_in(const schema::Program& program, uint32_t k, StageMember* members,
                           StageRead* reads, int32_t* row_words, Error* error) {
  *error = Error::kInvalidProgram;
  const schema::Stage& stage = *program.stages()->Get(k);
  int32_t n = 0;
  if (const char* reason = stage_members(program, stage, members, reads, &n)) return reason;
  const schema::StageCalls* entry = calls_of(program, k);
  const flatbuffers::Vector<uint16_t>* calls = entry != nullptr ? entry->calls() : nullptr;
  if (calls == nullptr) {
    return "stage without its calls (Program.stage_calls; compile the model again)";
  }
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
    for (uint32_t i = 0; i < ops.size(); ++i) {
      if (i >= first && i <= last) continue;
      const schema::Operator& op = *ops.Get(i);
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
  // The calls the runtime will run are exactly the schedule's, each ring holds every row the
  // schedule still needs when it writes one, and the stage's output shares bytes with its input
  // from outside only by the lead the schedule allows (the plan check accepts that pair's
  // overlap on this verdict, stage_outside_input).
  CallsCheck replay;
  replay.members = members;
  replay.n = n;
  replay.calls = calls;
  const schema::Tensor& output = tensor_at(program, members[n - 1].output);
  const int32_t outside = stage_outside_input(members, n);
  if (outside >= 0) {
    const schema::Tensor& in = tensor_at(program, outside);
    replay.outside = outside;
    replay.outside_row_bytes = row_bytes(in);
    replay.outside_bytes = in.size();
    replay.output_row_bytes = row_bytes(output);
  }
  StageSchedule<CallsCheck>(members, n, replay).run();
  if (!replay.same || replay.next != calls->size()) return "stage's calls differ from its schedule";
  for (int32_t m = 0; m + 1 < n; ++m) {
    const schema::Tensor& t = tensor_at(program, members[m].output);
    if (static_cast<int32_t>(t.ring_rows()) < replay.held[m]) {
      *error = Error::kInvalidPlan;
      return "ring holds fewer rows than its stage's schedule needs";
    }
  }
  if (outside >= 0) {
    const schema::Tensor& in = tensor_at(program, outside);
    if (output.location() == schema::Location::Arena && in.location() == schema::Location::Arena &&
        ranges_overlap(output.offset(), output.size(), in.offset(), in.size()) &&
        !kernels::overlap_allows({true, replay.output_lead()}, output.offset(), in.offset())) {
      *error = Error::kInvalidPlan;
      return "stage's output shares bytes with its input beyond what its schedule allows";
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
  // Last, so that a change the checks above name is named by them: the words the runtime reads
  // instead of the operators' tables are the operators'.
  if (entry->args() == nullptr) {
    return "stage without its members' words (StageCalls.args; compile the model again)";
  }
  if (!args_match(program, stage, *entry->args(), row_words)) return kStageWordsDiffer;
  *error = Error::kOk;
  return nullptr;
}

// The same with the table on the stack, in a frame of its own (only a loader without workspace
// pays for it).
__attribute__((noinline)) const char* check_stage_on_stack(const schema::Program& program,
                                                           uint32_t k, Error* error) {
  StageMember members[kMaxStageMembers];
  StageRead reads[kMaxStageTableReads];
  int32_t row_words[kMaxRowWords];
  return check_stage_in(program, k, members, reads, row_words, error);
}

}  // namespace

const char* check_stage(const schema::Program& program, uint32_t k, void* table,
                        size_t table_bytes, Error* error) {
  if (table == nullptr || table_bytes < kStageTableBytes ||
      reinterpret_cast<uintptr_t>(table) % alignof(StageMember) != 0) {
    return check_stage_on_stack(program, k, error);
  }
  StageMember* members = static_cast<StageMember*>(table);
  for (int32_t m = 0; m < kMaxStageMembers; ++m) new (&members[m]) StageMember{};
  StageRead* reads = reinterpret_cast<StageRead*>(members + kMaxStageMembers);
  for (int32_t i = 0; i < kMaxStageTableReads; ++i) new (&reads[i]) StageRead{};
  return check_stage_in(program, k, members, reads,
                        reinterpret_cast<int32_t*>(reads + kMaxStageTableReads), error);
}

int32_t stage_outside_tensor(const schema::Program& program, const schema::Stage& stage) {
  // stage_outside_input's rule on the operators themselves (the loader's check_stage has
  // verified that every non-constant input is a read): made by no earlier member.
  const auto& ops = *program.operators();
  int32_t outside = -1;
  for (uint32_t m = stage.first(); m <= stage.last(); ++m) {
    for (const int32_t t : *ops.Get(m)->inputs()) {
      if (t < 0 || tensor_at(program, t).location() == schema::Location::Constant) continue;
      bool made_inside = false;
      for (uint32_t j = stage.first(); j < m && !made_inside; ++j) {
        made_inside = ops.Get(j)->outputs()->Get(0) == t;
      }
      if (made_inside) continue;
      if (m == stage.last() || (outside >= 0 && outside != t)) return -1;
      outside = t;
    }
  }
  return outside;
}

extern const StageSupport kStageSupport{&check_stage, &run_stage};

Error run_step(const OpEnv& env, uint32_t index) {
  uint32_t k = 0;
  if (const schema::Stage* stage = stage_holding(*env.program, index, &k)) {
    // (The loader refused a stage without its calls.)
    if (index == stage->first()) {
      const StageSupport* stages = built_stages();
      if (stages == nullptr) return Error::kUnsupported;  // (the load refused it)
      stages->run(env, *stage, *calls_of(*env.program, k));
    }
    return Error::kOk;  // the rest of the stage ran at its first operator
  }
  return run_operator(env, *env.program->operators()->Get(index));
}

}  // namespace internal

size_t stage_row_word_count(schema::OpKind kind) {
  const internal::OpRowForm* r = internal::any_row_form(kind);
  return r != nullptr ? r->row_words : 0;
}

bool stage_row_words(const schema::Program& program, uint32_t k, int32_t* words,
                     size_t capacity) {
  if (program.stages() == nullptr || k >= program.stages()->size()) return false;
  const schema::Stage& stage = *program.stages()->Get(k);
  if (stage.last() >= program.operators()->size()) return false;
  size_t at = 0;
  for (uint32_t op = stage.first(); op <= stage.last(); ++op) {
    const schema::Operator& o = *program.operators()->Get(op);
    const internal::OpRowForm* r = internal::row_form(o);
    if (r == nullptr || r->row_words > capacity - at) return false;
    int32_t member[internal::kMaxRowWords] = {};
    if (!r->row_args(program, o, member)) return false;
    memcpy(words + at, member, r->row_words * sizeof(int32_t));
    at += r->row_words;
  }
  return true;
}

}  // namespace runtime
}  // namespace mote
