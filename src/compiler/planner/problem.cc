#include "compiler/planner/problem.h"

#include <algorithm>

#include "compiler/ir/error.h"

namespace mote::planner {

std::string_view to_string(BufferKind kind) {
  switch (kind) {
    case BufferKind::kInput: return "input";
    case BufferKind::kOutput: return "output";
    case BufferKind::kActivation: return "activation";
    case BufferKind::kScratch: return "scratch";
  }
  return "?";
}

std::optional<BufferKind> buffer_kind_from_string(std::string_view text) {
  for (BufferKind kind : {BufferKind::kInput, BufferKind::kOutput, BufferKind::kActivation,
                          BufferKind::kScratch}) {
    if (text == to_string(kind)) return kind;
  }
  return std::nullopt;
}

uint64_t aligned_size(const Buffer& buffer) { return align_up(buffer.size, buffer.alignment); }

uint32_t arena_alignment(const Problem& problem) {
  uint32_t alignment = 1;
  for (const Buffer& buffer : problem.buffers) alignment = std::max(alignment, buffer.alignment);
  return alignment;
}

bool lifetimes_overlap(const Buffer& a, const Buffer& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

namespace {

std::string describe(const Problem& problem, size_t index) {
  return "buffer " + std::to_string(index) + " '" + problem.buffers[index].name + "'";
}

}  // namespace

void validate(const Problem& problem) {
  if (problem.num_steps < 0) {
    throw InputError("problem has a negative number of steps (" +
                     std::to_string(problem.num_steps) + ")");
  }
  if (problem.num_steps > kMaxSteps) {
    throw InputError("problem has " + std::to_string(problem.num_steps) + " steps, more than " +
                     std::to_string(kMaxSteps));
  }
  // Sizes beyond 2^62 would overflow offset arithmetic; no arena is that large.
  constexpr uint64_t kMaxBytes = uint64_t{1} << 62;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (b.first_step < 0 || b.last_step < b.first_step || b.last_step >= problem.num_steps) {
      throw InputError(describe(problem, i) + ": lifetime [" + std::to_string(b.first_step) +
                       ", " + std::to_string(b.last_step) + "] is not inside steps [0, " +
                       std::to_string(problem.num_steps - 1) + "]");
    }
    if (b.alignment == 0 || (b.alignment & (b.alignment - 1)) != 0) {
      throw InputError(describe(problem, i) + ": alignment " + std::to_string(b.alignment) +
                       " is not a power of two");
    }
    if (b.size > kMaxBytes) {
      throw InputError(describe(problem, i) + ": size " + std::to_string(b.size) +
                       " is too large");
    }
    if (b.fixed_offset) {
      if (*b.fixed_offset > kMaxBytes) {
        throw InputError(describe(problem, i) + ": fixed offset " +
                         std::to_string(*b.fixed_offset) + " is too large");
      }
      if (*b.fixed_offset % b.alignment != 0) {
        throw InputError(describe(problem, i) + ": fixed offset " +
                         std::to_string(*b.fixed_offset) + " is not a multiple of its alignment " +
                         std::to_string(b.alignment));
      }
    }
  }
  // Every algorithm may stack all buffers above the highest fixed one (naive does), and the
  // lower bound sums live sizes in int64: keep that total within kMaxBytes too.
  uint64_t total = 0;
  uint64_t fixed_end = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    total += aligned_size(b);  // each at most 2^62 + 2^31: no wrap before the check below
    if (b.fixed_offset) fixed_end = std::max(fixed_end, *b.fixed_offset + aligned_size(b));
    if (total > kMaxBytes || fixed_end > kMaxBytes) {
      throw InputError(describe(problem, i) + ": the buffers' sizes total more than 2^62 bytes");
    }
  }
  // Two fixed buffers that live together must not overlap, or no plan exists.
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& a = problem.buffers[i];
    if (!a.fixed_offset || a.size == 0) continue;
    for (size_t j = i + 1; j < problem.buffers.size(); ++j) {
      const Buffer& b = problem.buffers[j];
      if (!b.fixed_offset || b.size == 0 || !lifetimes_overlap(a, b)) continue;
      // Raw sizes: overlapping only in alignment padding harms no one.
      const uint64_t a_end = *a.fixed_offset + a.size;
      const uint64_t b_end = *b.fixed_offset + b.size;
      if (*a.fixed_offset < b_end && *b.fixed_offset < a_end) {
        throw InputError(describe(problem, i) + " and " + describe(problem, j) +
                         ": fixed offsets overlap while both are live");
      }
    }
  }
}

}  // namespace mote::planner
