#pragma once
// The lower bound every plan is measured against: no placement can beat the largest total of
// bytes live at one step, each buffer's size rounded up to the smallest alignment among the
// buffers live then. (Not to its own alignment: a buffer with a small alignment may sit in the
// padding of one with a large alignment. With one alignment for all, it is the same.)

#include <cstdint>
#include <vector>

#include "compiler/planner/problem.h"

namespace mote::planner {

struct LowerBound {
  // max(largest live total, end of any fixed buffer), rounded up to the arena alignment.
  uint64_t bytes = 0;
  uint64_t live_bytes = 0;    // the largest total of (rounded) bytes live at one step
  int32_t step = 0;           // the earliest step where live_bytes is reached
  std::vector<size_t> live;   // indices of the buffers live at that step, in problem order
};

LowerBound lower_bound(const Problem& problem);

// Bytes live at each step (size num_steps), rounded as above.
std::vector<uint64_t> live_bytes_per_step(const Problem& problem);

}  // namespace mote::planner
