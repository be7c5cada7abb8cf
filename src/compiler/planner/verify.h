#pragma once
// The plan verifier. Written apart from the algorithms and from their notion of aligned sizes:
// it checks the raw bytes, so it accepts any correct plan, however it was made.

#include <optional>
#include <string>

#include "compiler/planner/planner.h"
#include "compiler/planner/problem.h"

namespace mote::planner {

// nullopt if the plan is valid: one offset per buffer, each a multiple of its buffer's
// alignment, fixed offsets honoured, every buffer inside [0, arena_bytes), arena_bytes a multiple
// of the largest alignment, and no two buffers whose lifetimes overlap sharing a byte (nor any
// buffer a byte of a state, whatever the lifetimes).
// Otherwise the first violation, naming the buffers, e.g.
// "buffers 2 'a' [0, 64) and 5 'b' [48, 80) share bytes [48, 64) at step 3".
std::optional<std::string> verify(const Problem& problem, const Plan& plan);

}  // namespace mote::planner
