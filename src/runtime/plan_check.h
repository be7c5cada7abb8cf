#pragma once
// The loader's plan check (Program::load, after the format checks of program.cc and the stage
// checks of stages.cc): no two arena buffers (tensors and scratch regions) that are live at a
// common step share a byte, unless one is an alias of the other or the operator at which one
// dies declares an overlap its kernel allows (mote/kernels/overlap.h); an output shares bytes
// with its input only where its kernel runs in place.

#include <stddef.h>
#include <stdint.h>

#include "mote/runtime/error.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"

namespace mote {
namespace runtime {
namespace internal {

// Words of workspace the O(n log n) check needs for a program with `buffers` arena buffers
// (tensors and scratch regions of a non-zero size) and `operators` operators: four per buffer
// (its bytes, steps and group, sorted by offset) and a segment tree of three per step.
constexpr size_t plan_check_words(size_t buffers, size_t operators) {
  return 4 * buffers + 3 * (operators > 0 ? operators : 1);
}

// The plan check of a program whose tensors, operators and stages are checked: with at least
// plan_check_words(buffers, operators) words of `workspace`, a sweep in O(n log n); else pair by
// pair (O(n^2), no memory), with the same verdicts. kOk, or the error with `diagnostic` filled.
Error check_plan(const schema::Program& program, uint32_t* workspace, size_t workspace_words,
                 LoadDiagnostic* diagnostic);

}  // namespace internal
}  // namespace runtime
}  // namespace mote
