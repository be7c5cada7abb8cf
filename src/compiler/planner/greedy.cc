// Naive, first-fit and best-fit placement.
#include <algorithm>
#include <optional>

#include "compiler/planner/algorithms.h"

namespace mote::planner::internal {

namespace {

// The offsets a placed buffer leaves free to the one being placed: x <= below or x >= above
// (OverlapIndex::bounds; below = offset - size and above = offset + size without an overlap).
struct Extent {
  int64_t below;
  int64_t above;
};

int64_t align_up_signed(int64_t value, uint64_t alignment) {
  if (value <= 0) return 0;  // offsets are never negative
  return static_cast<int64_t>(align_up(static_cast<uint64_t>(value), alignment));
}

// Lowest aligned x that every extent (sorted by below) leaves free.
uint64_t lowest_fit(const std::vector<Extent>& sorted, uint64_t alignment) {
  int64_t x = 0;
  for (const Extent& e : sorted) {
    if (e.below >= x) break;
    x = std::max(x, align_up_signed(e.above, alignment));
  }
  return static_cast<uint64_t>(x);
}

// The smallest closed gap that holds the buffer (lowest on ties), else the top.
uint64_t best_fit(const std::vector<Extent>& sorted, uint64_t alignment) {
  int64_t x = 0;
  std::optional<int64_t> best_offset;
  int64_t best_gap = 0;
  for (const Extent& e : sorted) {
    if (e.below >= x) {
      const int64_t gap = e.below - x;
      if (!best_offset || gap < best_gap) {
        best_offset = x;
        best_gap = gap;
      }
    }
    x = std::max(x, align_up_signed(e.above, alignment));
  }
  return static_cast<uint64_t>(best_offset.value_or(x));
}

enum class Rule { kLowest, kBest };

// Places buffers in order; each avoids the placed buffers it conflicts with (all of them when
// ignore_time, which is the naive no-reuse plan, which also ignores overlaps).
std::vector<uint64_t> place_in_order(const Problem& problem, const std::vector<size_t>& order,
                                     Rule rule, bool ignore_time) {
  const auto& buffers = problem.buffers;
  const Problem plain = ignore_time ? without_overlaps(problem) : Problem{};
  const OverlapIndex index(ignore_time ? plain : problem);
  std::vector<uint64_t> offsets(buffers.size(), 0);
  std::vector<size_t> placed;
  std::vector<Extent> extents;
  for (size_t i : order) {
    const Buffer& b = buffers[i];
    const uint64_t size = aligned_size(b);
    if (b.fixed_offset) {
      offsets[i] = *b.fixed_offset;
    } else if (size == 0) {
      offsets[i] = 0;
      continue;  // occupies nothing
    } else {
      extents.clear();
      for (size_t j : placed) {
        if (ignore_time || lifetimes_overlap(b, buffers[j])) {
          const OverlapIndex::Bounds bounds = index.bounds(i, j, offsets[j]);
          extents.push_back({bounds.below, bounds.above});
        }
      }
      std::sort(extents.begin(), extents.end(),
                [](const Extent& a, const Extent& c) { return a.below < c.below; });
      offsets[i] = rule == Rule::kLowest ? lowest_fit(extents, b.alignment)
                                         : best_fit(extents, b.alignment);
    }
    if (size > 0) placed.push_back(i);
  }
  return offsets;
}

std::vector<size_t> fixed_first(const Problem& problem) {
  std::vector<size_t> order;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    if (problem.buffers[i].fixed_offset) order.push_back(i);
  }
  return order;
}

}  // namespace

std::vector<size_t> greedy_order(const Problem& problem) {
  std::vector<size_t> order = fixed_first(problem);
  const size_t num_fixed = order.size();
  // TFLM fills its sort array from the tail (so it holds the buffers in reverse order) and then
  // bubble-sorts it by size, a stable sort: equal sizes stay in reverse problem order.
  for (size_t i = problem.buffers.size(); i-- > 0;) {
    if (!problem.buffers[i].fixed_offset) order.push_back(i);
  }
  std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(num_fixed), order.end(),
                   [&](size_t a, size_t b) {
                     return aligned_size(problem.buffers[a]) > aligned_size(problem.buffers[b]);
                   });
  return order;
}

std::vector<uint64_t> place_naive(const Problem& problem) {
  std::vector<size_t> order = fixed_first(problem);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    if (!problem.buffers[i].fixed_offset) order.push_back(i);
  }
  return place_in_order(problem, order, Rule::kLowest, /*ignore_time=*/true);
}

std::vector<uint64_t> place_first_fit(const Problem& problem) {
  return place_in_order(problem, greedy_order(problem), Rule::kLowest, /*ignore_time=*/false);
}

std::vector<uint64_t> place_best_fit(const Problem& problem) {
  return place_in_order(problem, greedy_order(problem), Rule::kBest, /*ignore_time=*/false);
}

uint64_t arena_bytes(const Problem& problem, const std::vector<uint64_t>& offsets) {
  uint64_t end = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    end = std::max(end, offsets[i] + aligned_size(problem.buffers[i]));
  }
  return align_up(end, arena_alignment(problem));
}

}  // namespace mote::planner::internal
