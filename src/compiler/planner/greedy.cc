// Naive, first-fit and best-fit placement.
#include <algorithm>
#include <cstdlib>
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

namespace {

// Chains of overlaps: buffers b0 -> b1 -> ... where each is an output that may overlap the one
// before it, a dying input (a convolution chain: conv, depthwise, pointwise, ...). Placed one by
// one, each output starts its lead below its input and the chain drifts down the arena; placed
// as one unit whose members' offsets relative to each other are chosen together, a chain that
// may alternate forward (output below) and backward (output above) steps keeps its place.
struct Unit {
  std::vector<size_t> members;
  std::vector<int64_t> relative;  // offset of each member from the unit's base, >= 0
  uint64_t alignment = 1;
};

int64_t floor_to(int64_t v, int64_t a) { return v >= 0 ? v / a * a : -((-v + a - 1) / a * a); }
int64_t ceil_to(int64_t v, int64_t a) { return -floor_to(-v, a); }

// The chain edges: per output at most one input (the largest), per input at most one output.
// Fixed and empty buffers stay out.
std::vector<std::optional<size_t>> chain_next(const Problem& problem) {
  const auto& buffers = problem.buffers;
  std::vector<std::optional<size_t>> next(buffers.size()), prev(buffers.size());
  auto usable = [&](size_t i) { return !buffers[i].fixed_offset && buffers[i].size != 0; };
  for (const Overlap& o : problem.overlaps) {
    if (!usable(o.output) || !usable(o.input) || next[o.input]) continue;
    if (prev[o.output]) {
      const size_t old = *prev[o.output];
      if (aligned_size(buffers[old]) >= aligned_size(buffers[o.input])) continue;
      next[old].reset();
    }
    next[o.input] = o.output;
    prev[o.output] = o.input;
  }
  return next;
}

// Relative offsets along a chain: each output where the chain's span (highest end less lowest
// start) grows least, among the offsets its overlap allows (forward: at most lead below its
// input; backward: at least back_lead above; in place: on its input), ties to the offset nearest
// the chain's first member (so that it comes back to its place).
std::vector<int64_t> chain_offsets(const Problem& problem, const OverlapIndex& index,
                                   const std::vector<size_t>& chain, int64_t a) {
  const auto& buffers = problem.buffers;
  std::vector<int64_t> r(chain.size(), 0);
  int64_t bottom = 0, top = static_cast<int64_t>(aligned_size(buffers[chain[0]]));
  for (size_t k = 1; k < chain.size(); ++k) {
    const size_t in = chain[k - 1], out = chain[k];
    const int64_t s = static_cast<int64_t>(aligned_size(buffers[out]));
    const int64_t lead = *index.lead(out, in);
    const std::optional<int64_t> back = index.back_lead(out, in);
    // Where the span is least: [m_lo, m_hi].
    const int64_t m_lo = std::min(bottom, top - s), m_hi = std::max(bottom, top - s);
    auto span = [&](int64_t x) { return std::max(top, x + s) - std::min(bottom, x); };
    // The point of [lo, hi] (either end may be open) nearest 0 within [m_lo, m_hi], else the
    // end nearest that range.
    auto pick = [&](std::optional<int64_t> lo, std::optional<int64_t> hi) {
      int64_t x = std::clamp<int64_t>(0, m_lo, m_hi);
      if (lo && x < *lo) x = *lo;
      if (hi && x > *hi) x = *hi;
      return x;
    };
    int64_t best = index.exact(out, in) ? r[k - 1]
                                        : floor_to(pick(std::nullopt, floor_to(r[k - 1] - lead, a)), a);
    if (back) {
      const int64_t x = ceil_to(pick(ceil_to(r[k - 1] + *back, a), std::nullopt), a);
      const int64_t sx = span(x), sb = span(best);
      if (sx < sb || (sx == sb && std::abs(x) < std::abs(best))) best = x;
    }
    r[k] = best;
    bottom = std::min(bottom, best);
    top = std::max(top, best + s);
  }
  return r;
}

// The same choice searched wider: a beam of the `width` partial chains of least span, each
// output tried at its tightest offsets (forward and backward) and at the offsets that line its
// start or end up with an earlier member's (where the chain may come back to), within what its
// overlap allows.
std::vector<int64_t> chain_offsets_beam(const Problem& problem, const OverlapIndex& index,
                                        const std::vector<size_t>& chain, int64_t a,
                                        size_t width) {
  const auto& buffers = problem.buffers;
  struct State {
    std::vector<int64_t> r;
    int64_t bottom, top;
  };
  std::vector<int64_t> sizes(chain.size());
  for (size_t k = 0; k < chain.size(); ++k) {
    sizes[k] = static_cast<int64_t>(aligned_size(buffers[chain[k]]));
  }
  std::vector<State> beam{{{0}, 0, sizes[0]}};
  std::vector<State> next;
  std::vector<int64_t> candidates;
  for (size_t k = 1; k < chain.size(); ++k) {
    const size_t in = chain[k - 1], out = chain[k];
    const int64_t s = sizes[k];
    const int64_t lead = *index.lead(out, in);
    const std::optional<int64_t> back = index.back_lead(out, in);
    next.clear();
    const bool exact = index.exact(out, in);
    for (const State& st : beam) {
      if (exact) {  // in place: on its input, no choice
        State n = st;
        n.r.push_back(st.r[k - 1]);
        n.top = std::max(st.top, st.r[k - 1] + s);
        n.bottom = std::min(st.bottom, st.r[k - 1]);
        next.push_back(std::move(n));
        continue;
      }
      const int64_t hi = floor_to(st.r[k - 1] - lead, a);
      const std::optional<int64_t> lo =
          back ? std::optional<int64_t>(ceil_to(st.r[k - 1] + *back, a)) : std::nullopt;
      candidates.clear();
      candidates.push_back(hi);
      if (lo) candidates.push_back(*lo);
      for (size_t j = 0; j < k; ++j) {
        for (const int64_t level : {st.r[j], st.r[j] + sizes[j] - s, st.bottom, st.top - s}) {
          if (level % a != 0) continue;
          if (level <= hi || (lo && level >= *lo)) candidates.push_back(level);
        }
      }
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      for (const int64_t x : candidates) {
        State n = st;
        n.r.push_back(x);
        n.bottom = std::min(st.bottom, x);
        n.top = std::max(st.top, x + s);
        next.push_back(std::move(n));
      }
    }
    // Least span first; equal spans: the last member nearest the first (room to come back).
    std::sort(next.begin(), next.end(), [](const State& x, const State& y) {
      const int64_t sx = x.top - x.bottom, sy = y.top - y.bottom;
      if (sx != sy) return sx < sy;
      return std::abs(x.r.back()) < std::abs(y.r.back());
    });
    // Drop states equal in (bottom, top, last offset): the rest of the chain sees only those.
    std::vector<State> kept;
    for (State& n : next) {
      bool seen = false;
      for (const State& k2 : kept) {
        if (k2.bottom == n.bottom && k2.top == n.top && k2.r.back() == n.r.back()) {
          seen = true;
          break;
        }
      }
      if (!seen) kept.push_back(std::move(n));
      if (kept.size() >= width) break;
    }
    beam = std::move(kept);
  }
  return beam.front().r;
}

// Whether a unit's members, at their relative offsets, leave each other alone where they live
// together (consecutive members do by construction; others are checked in case).
bool unit_holds(const Problem& problem, const OverlapIndex& index, const Unit& u) {
  const auto& buffers = problem.buffers;
  for (size_t i = 0; i < u.members.size(); ++i) {
    for (size_t j = i + 1; j < u.members.size(); ++j) {
      const size_t x = u.members[i], y = u.members[j];
      if (!lifetimes_overlap(buffers[x], buffers[y])) continue;
      const auto at_x = static_cast<uint64_t>(u.relative[i]);
      const auto at_y = static_cast<uint64_t>(u.relative[j]);
      if (index.allows(x, y, at_x, at_y) || index.allows(y, x, at_y, at_x)) continue;  // in place
      const OverlapIndex::Bounds b = index.bounds(x, y, at_y);
      if (u.relative[i] > b.below && u.relative[i] < b.above) return false;
    }
  }
  return true;
}

std::vector<uint64_t> place_units(const Problem& problem, const OverlapIndex& index,
                                  const std::vector<Unit>& units, Rule rule) {
  const auto& buffers = problem.buffers;
  std::vector<uint64_t> offsets(buffers.size(), 0);
  std::vector<size_t> placed;
  std::vector<Extent> extents;
  for (const Unit& u : units) {
    extents.clear();
    for (size_t m = 0; m < u.members.size(); ++m) {
      const size_t i = u.members[m];
      if (buffers[i].fixed_offset || aligned_size(buffers[i]) == 0) continue;
      for (size_t j : placed) {
        if (!lifetimes_overlap(buffers[i], buffers[j])) continue;
        const OverlapIndex::Bounds b = index.bounds(i, j, offsets[j]);
        extents.push_back({b.below - u.relative[m], b.above - u.relative[m]});
      }
    }
    std::sort(extents.begin(), extents.end(),
              [](const Extent& a, const Extent& c) { return a.below < c.below; });
    uint64_t base = 0;
    if (u.members.size() == 1 && buffers[u.members[0]].fixed_offset) {
      base = *buffers[u.members[0]].fixed_offset;
    } else if (u.members.size() > 1 || aligned_size(buffers[u.members[0]]) > 0) {
      base = rule == Rule::kLowest ? lowest_fit(extents, u.alignment)
                                   : best_fit(extents, u.alignment);
    }
    for (size_t m = 0; m < u.members.size(); ++m) {
      const size_t i = u.members[m];
      offsets[i] = base + static_cast<uint64_t>(u.relative[m]);
      if (aligned_size(buffers[i]) > 0) placed.push_back(i);
    }
  }
  return offsets;
}

uint64_t end_of(const Problem& problem, const std::vector<uint64_t>& offsets) {
  uint64_t end = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    end = std::max(end, offsets[i] + aligned_size(problem.buffers[i]));
  }
  return end;
}

}  // namespace

static std::vector<uint64_t> place_chain_fit(const Problem& problem, bool beam) {
  const auto& buffers = problem.buffers;
  const OverlapIndex index(problem);
  const std::vector<std::optional<size_t>> next = chain_next(problem);
  std::vector<bool> has_prev(buffers.size(), false);
  for (const auto& n : next) {
    if (n) has_prev[*n] = true;
  }
  // Each buffer's unit: a chain from its first member, or itself.
  std::vector<int32_t> unit_of(buffers.size(), -1);
  std::vector<Unit> units;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (has_prev[i] || !next[i]) continue;
    std::vector<size_t> chain{i};
    for (std::optional<size_t> n = next[i]; n && unit_of[*n] < 0 && chain.size() <= buffers.size();
         n = next[*n]) {
      chain.push_back(*n);
    }
    Unit u;
    u.members = chain;
    for (size_t m : chain) u.alignment = std::max<uint64_t>(u.alignment, buffers[m].alignment);
    u.relative = beam ? chain_offsets_beam(problem, index, chain,
                                           static_cast<int64_t>(u.alignment), 64)
                      : chain_offsets(problem, index, chain, static_cast<int64_t>(u.alignment));
    const int64_t low = *std::min_element(u.relative.begin(), u.relative.end());
    for (int64_t& r : u.relative) r -= low;
    if (!unit_holds(problem, index, u)) continue;  // its members go alone
    for (size_t m : chain) unit_of[m] = static_cast<int32_t>(units.size());
    units.push_back(std::move(u));
  }
  // Units in greedy order (a chain where its first member in that order comes), fixed first.
  std::vector<Unit> ordered;
  std::vector<bool> taken(units.size(), false);
  for (size_t i : greedy_order(problem)) {
    if (unit_of[i] < 0) {
      ordered.push_back({{i}, {0}, buffers[i].alignment});
    } else if (!taken[static_cast<size_t>(unit_of[i])]) {
      taken[static_cast<size_t>(unit_of[i])] = true;
      ordered.push_back(units[static_cast<size_t>(unit_of[i])]);
    }
  }
  std::vector<uint64_t> lowest = place_units(problem, index, ordered, Rule::kLowest);
  std::vector<uint64_t> best = place_units(problem, index, ordered, Rule::kBest);
  return end_of(problem, best) < end_of(problem, lowest) ? best : lowest;
}

std::vector<uint64_t> place_chain_fit(const Problem& problem) {
  std::vector<uint64_t> greedy = place_chain_fit(problem, false);
  std::vector<uint64_t> searched = place_chain_fit(problem, true);
  return end_of(problem, searched) < end_of(problem, greedy) ? searched : greedy;
}

uint64_t arena_bytes(const Problem& problem, const std::vector<uint64_t>& offsets) {
  uint64_t end = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    end = std::max(end, offsets[i] + aligned_size(problem.buffers[i]));
  }
  return align_up(end, arena_alignment(problem));
}

}  // namespace mote::planner::internal
