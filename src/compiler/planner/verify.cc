#include "compiler/planner/verify.h"

#include <algorithm>

namespace mote::planner {

namespace {

std::string name_of(const Problem& problem, size_t i) {
  return std::to_string(i) + " '" + problem.buffers[i].name + "'";
}

std::string range(uint64_t begin, uint64_t end) {
  // Appended piece by piece: "literal" + std::string trips a false -Wrestrict in gcc 12.
  std::string text = "[";
  text += std::to_string(begin);
  text += ", ";
  text += std::to_string(end);
  text += ")";
  return text;
}

}  // namespace

std::optional<std::string> verify(const Problem& problem, const Plan& plan) {
  const auto& buffers = problem.buffers;
  if (plan.offsets.size() != buffers.size()) {
    return "plan has " + std::to_string(plan.offsets.size()) + " offsets for " +
           std::to_string(buffers.size()) + " buffers";
  }
  uint64_t largest_alignment = 1;
  for (const Buffer& b : buffers) largest_alignment = std::max<uint64_t>(largest_alignment, b.alignment);
  if (plan.arena_bytes % largest_alignment != 0) {
    return "arena size " + std::to_string(plan.arena_bytes) + " is not a multiple of the alignment " +
           std::to_string(largest_alignment);
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    const uint64_t offset = plan.offsets[i];
    if (b.alignment == 0 || offset % b.alignment != 0) {
      return "buffer " + name_of(problem, i) + " at offset " + std::to_string(offset) +
             " is not aligned to " + std::to_string(b.alignment);
    }
    if (b.fixed_offset && offset != *b.fixed_offset) {
      return "buffer " + name_of(problem, i) + " is at offset " + std::to_string(offset) +
             " instead of its fixed offset " + std::to_string(*b.fixed_offset);
    }
    // Written so that it cannot overflow: offset + size <= arena.
    if (offset > plan.arena_bytes || b.size > plan.arena_bytes - offset) {
      return "buffer " + name_of(problem, i) + " " + range(offset, offset + b.size) +
             " ends outside the arena of " + std::to_string(plan.arena_bytes) + " bytes";
    }
  }
  const OverlapIndex overlaps(problem);
  // A declared overlap held: the output starts at least its lead before the input, or (backward)
  // at least its backward lead after it, or (exact) on it.
  auto declared = [&](size_t output, size_t input) {
    if (buffers[output].kind == BufferKind::kState || buffers[input].kind == BufferKind::kState) {
      return false;
    }
    return overlaps.allows(output, input, plan.offsets[output], plan.offsets[input]);
  };
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& a = buffers[i];
    if (a.size == 0) continue;
    const uint64_t a_begin = plan.offsets[i];
    const uint64_t a_end = a_begin + a.size;
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const Buffer& b = buffers[j];
      if (b.size == 0) continue;
      // A state persists between runs: whatever lifetimes say, it is live with everything.
      const bool state = a.kind == BufferKind::kState || b.kind == BufferKind::kState;
      const int32_t first = state ? 0 : std::max(a.first_step, b.first_step);
      const int32_t last = std::min(a.last_step, b.last_step);
      if (!state && first > last) continue;  // never live together
      const uint64_t b_begin = plan.offsets[j];
      const uint64_t b_end = b_begin + b.size;
      const uint64_t shared_begin = std::max(a_begin, b_begin);
      const uint64_t shared_end = std::min(a_end, b_end);
      if (shared_begin < shared_end && !declared(i, j) && !declared(j, i)) {
        return "buffers " + name_of(problem, i) + " " + range(a_begin, a_end) + " and " +
               name_of(problem, j) + " " + range(b_begin, b_end) + " share bytes " +
               range(shared_begin, shared_end) + " at step " + std::to_string(first);
      }
    }
  }
  return std::nullopt;
}

}  // namespace mote::planner
