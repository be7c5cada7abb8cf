#include "compiler/planner/lower_bound.h"

#include <algorithm>

namespace mote::planner {

std::vector<uint64_t> live_bytes_per_step(const Problem& problem) {
  // Difference array: O(buffers + steps).
  std::vector<int64_t> delta(static_cast<size_t>(problem.num_steps) + 1, 0);
  for (const Buffer& b : problem.buffers) {
    const auto bytes = static_cast<int64_t>(aligned_size(b));
    delta[static_cast<size_t>(b.first_step)] += bytes;
    delta[static_cast<size_t>(b.last_step) + 1] -= bytes;
  }
  std::vector<uint64_t> live(static_cast<size_t>(problem.num_steps));
  int64_t running = 0;
  for (size_t t = 0; t < live.size(); ++t) {
    running += delta[t];
    live[t] = static_cast<uint64_t>(running);
  }
  return live;
}

LowerBound lower_bound(const Problem& problem) {
  LowerBound bound;
  const std::vector<uint64_t> live = live_bytes_per_step(problem);
  for (size_t t = 0; t < live.size(); ++t) {
    if (live[t] > bound.live_bytes) {
      bound.live_bytes = live[t];
      bound.step = static_cast<int32_t>(t);
    }
  }
  uint64_t bytes = bound.live_bytes;
  for (const Buffer& b : problem.buffers) {
    if (b.fixed_offset) bytes = std::max(bytes, *b.fixed_offset + aligned_size(b));
  }
  bound.bytes = align_up(bytes, arena_alignment(problem));
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (b.first_step <= bound.step && bound.step <= b.last_step) bound.live.push_back(i);
  }
  return bound;
}

}  // namespace mote::planner
