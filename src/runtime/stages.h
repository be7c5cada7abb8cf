#pragma once
// Row-streamed stages at run and load time (schema Stage; the schedule is
// program/stage_schedule.h). A stage's operators run together when the executor reaches its
// first one: Executor::run_operator(first) runs the whole stage and the other members' indices
// run nothing, so run() is still run_operator(0), ..., run_operator(n - 1).

#include <stddef.h>
#include <stdint.h>

#include "mote/runtime/error.h"
#include "mote/schema/mote_generated.h"
#include "runtime/internal.h"
#include "runtime/ops/registry.h"
#include "program/stage_schedule.h"

namespace mote {
namespace runtime {
namespace internal {

// The stage that holds operator `index` (its position in Program.stages in *k), or null.
const schema::Stage* stage_holding(const schema::Program& program, uint32_t index,
                                   uint32_t* k = nullptr);

// The stage's members and how each reads its inputs (the registrations' row_reach), into
// members[kMaxStageMembers] and their reads into reads[kMaxStageTableReads]; null, or why the
// operators cannot run as one stage.
const char* stage_members(const schema::Program& program, const schema::Stage& stage,
                          StageMember* members, StageRead* reads, int32_t* count);

// Bytes of the table check_stage needs: the members, their reads, and after them one member's
// row-call words.
inline constexpr size_t kStageTableBytes = sizeof(StageMember) * kMaxStageMembers +
                                           sizeof(StageRead) * kMaxStageTableReads +
                                           sizeof(int32_t) * kMaxRowWords;
static_assert(sizeof(StageMember) % alignof(StageRead) == 0 &&
                  sizeof(StageRead) % sizeof(int32_t) == 0,
              "the reads and the words after the members aligned");

// check_stage's reason when a stage's words are not its members' row_args (the compiler writes
// them with stage_row_words, mote/runtime/stage_words.h).
inline constexpr char kStageWordsDiffer[] =
    "stage's words (StageCalls.args) differ from its operators'";

// The loader's check of stage k (after every operator's own check): its members can run by rows,
// its words (StageCalls.args) are its members' row_args, its calls (Program.stage_calls[k]) are
// exactly the replayed schedule's, every tensor made inside it is a ring read only inside it and
// live through it, its inputs live through it, each ring holds what the schedule needs, no member's
// scratch meets a tensor of the stage, and its output shares bytes with its input from outside
// (stage_outside_tensor) only by the lead the schedule allows. `table`: memory for the members'
// table (the loader's workspace, idle then; kStageTableBytes, 4-byte aligned), or null: a stack
// frame of its own. Null, or the reason (and *error).
const char* check_stage(const schema::Program& program, uint32_t k, void* table,
                        size_t table_bytes, Error* error);

// The stage's one input from outside when its output may be written over it (the tensor
// check_stage checked that overlap against), else -1. No table: the plan check asks it.
int32_t stage_outside_tensor(const schema::Program& program, const schema::Stage& stage);

// Runs operator `index`, or its whole stage at the stage's first operator (nothing at the
// others): the stage's calls as the program lists them, no schedule computed.
Error run_step(const OpEnv& env, uint32_t index);

// Checking and running stages, which an image holds only where one of its programs streams:
// reached through built_stages(), so that the others link neither.
struct StageSupport {
  // check_stage.
  const char* (*check)(const schema::Program& program, uint32_t k, void* table,
                       size_t table_bytes, Error* error);
  // Each entry of the stage's calls on its member's row kernel.
  void (*run)(const OpEnv& env, const schema::Stage& stage, const schema::StageCalls& calls);
};
extern const StageSupport kStageSupport;

// kStageSupport where the operator table holds a row-streamed form (op_table.cc), else null.
const StageSupport* built_stages();

}  // namespace internal
}  // namespace runtime
}  // namespace mote
