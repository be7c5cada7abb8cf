#pragma once
// The lower bound every plan is measured against: no placement can beat the largest total of
// (aligned) bytes live at one step.

#include <cstdint>
#include <vector>

#include "compiler/planner/problem.h"

namespace mote::planner {

struct LowerBound {
  // max(largest live total, end of any fixed buffer), rounded up to the arena alignment.
  uint64_t bytes = 0;
  uint64_t live_bytes = 0;    // the largest total of aligned bytes live at one step
  int32_t step = 0;           // the earliest step where live_bytes is reached
  std::vector<size_t> live;   // indices of the buffers live at that step, in problem order
};

LowerBound lower_bound(const Problem& problem);

// Aligned bytes live at each step (size num_steps).
std::vector<uint64_t> live_bytes_per_step(const Problem& problem);

}  // namespace mote::planner
