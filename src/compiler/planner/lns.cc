// Large-neighbourhood search (see improve_lns in algorithms.h).
//
// The working plan never ends above the best plan found. The search aims at a target below the
// best plan (one alignment step at first, twice as far after each success, back towards one step
// after `patience` failures in a row). Two kinds of moves, each freeing a neighbourhood of one
// buffer (the buffer and the movable buffers nearest to it) while every other buffer stays
// where it is, and asking the exact algorithm's decision search (decide_exact) for a placement
// of the freed ones within a few hundred nodes:
//  - a repair move frees a buffer that ends above the target and asks for all the freed
//    buffers below the target: on success one buffer fewer sticks out, and none more;
//  - a gravity move frees a buffer picked at random (the higher of two) and asks for the freed
//    buffers no higher than the highest of them (sometimes one alignment step lower); the new
//    placement is kept if it lowers the local top or moves weight down (sum of size x offset),
//    with no more bytes above the target. Holes rise towards the top, where repairs need them.
// Once no buffer ends above the target, the working plan is the new best.
//
// Neighbourhoods: the buffers nearest to the picked one by a distance that weighs the steps
// between the lifetimes (a weight drawn at random, from tall narrow columns to wide flat bands)
// and the bytes between the placements; or, every other time, only the buffers living within a
// window of steps around the picked one's lifetime, nearest in offset first (such a
// neighbourhood is closed: nothing freed is held by buffers outside the window).
//
// The decision search works on a sub-problem: the freed buffers, and the pinned ones (those
// living with a freed buffer) as fixed buffers, all cut to the freed buffers' steps; pinned
// buffers with the same cut lifetime that touch are merged into one. Everything is counted in
// nodes and drawn from a seeded generator, so a run is the same on every machine until the
// deadline cuts it short.
#include <algorithm>
#include <limits>
#include <tuple>

#include "compiler/planner/algorithms.h"

namespace mote::planner::internal {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

Buffer unnamed(const Buffer& b) {
  Buffer copy;
  copy.size = b.size;
  copy.alignment = b.alignment;
  copy.first_step = b.first_step;
  copy.last_step = b.last_step;
  return copy;
}

class Lns {
 public:
  Lns(const Problem& problem, const std::vector<uint64_t>& start, uint64_t lower,
      const LnsOptions& options, Clock::time_point deadline)
      : problem_(problem),
        buffers_(problem.buffers),
        lower_(lower),
        options_(options),
        deadline_(deadline),
        random_(Random::seeded(options.seed)),
        offsets_(start),
        score_(buffers_.size()),
        is_freed_(buffers_.size(), 0) {
    alignment_ = arena_alignment(problem);
    node_limit_ = options.node_limit == 0 ? kNever : options.node_limit;
    for (size_t i = 0; i < buffers_.size(); ++i) {
      if (!buffers_[i].fixed_offset && aligned_size(buffers_[i]) > 0) items_.push_back(i);
    }
    result_.offsets = start;
    best_arena_ = arena_bytes(problem, start);
  }

  LnsResult run() {
    if (items_.empty()) return std::move(result_);
    uint64_t step = alignment_;
    uint64_t failures = 0;
    while (best_arena_ > lower_ && result_.nodes < node_limit_ && Clock::now() < deadline_) {
      const uint64_t target = best_arena_ - std::min(step, best_arena_ - lower_);
      violators_.clear();
      for (size_t b : items_) {
        if (end_of(b) > target) violators_.push_back(b);
      }
      if (violators_.empty()) {
        // The working plan fits the target: it is the new best.
        best_arena_ = arena_bytes(problem_, offsets_);
        result_.offsets = offsets_;
        ++result_.improvements;
        step *= 2;
        failures = 0;
        continue;
      }
      ++result_.moves;
      if (random_.below(100) < options_.gravity_percent) {
        size_t picked = items_[random_.below(items_.size())];
        const size_t other = items_[random_.below(items_.size())];
        if (end_of(other) > end_of(picked)) picked = other;
        gravity(picked, target, failures);
        continue;
      }
      if (repair(violators_[random_.below(violators_.size())], target, failures)) {
        failures = 0;
      } else if (++failures >= options_.patience && step > alignment_) {
        step = std::max(alignment_, step / 2);
        failures = 0;
      }
    }
    return std::move(result_);
  }

 private:
  uint64_t end_of(size_t b) const { return offsets_[b] + aligned_size(buffers_[b]); }

  // Frees v's neighbourhood and asks for the freed buffers at or below target.
  bool repair(size_t v, uint64_t target, uint64_t failures) {
    neighbourhood(v, failures);
    std::optional<std::vector<uint64_t>> placed = solve(target);
    if (!placed) return false;
    for (size_t j = 0; j < freed_.size(); ++j) offsets_[freed_[j]] = (*placed)[j];
    return true;
  }

  void gravity(size_t v, uint64_t target, uint64_t failures) {
    neighbourhood(v, failures);
    uint64_t top = 0, above = 0;
    double weight = 0;
    for (size_t b : freed_) {
      top = std::max(top, end_of(b));
      above += end_of(b) > target ? end_of(b) - target : 0;
      weight += static_cast<double>(aligned_size(buffers_[b])) * static_cast<double>(offsets_[b]);
    }
    const bool lower_top = random_.below(100) < options_.lower_top_percent && top > alignment_;
    std::optional<std::vector<uint64_t>> placed = solve(lower_top ? top - alignment_ : top);
    if (!placed) return;
    uint64_t new_above = 0;
    double new_weight = 0;
    for (size_t j = 0; j < freed_.size(); ++j) {
      const uint64_t size = aligned_size(buffers_[freed_[j]]);
      const uint64_t offset = (*placed)[j];
      new_above += offset + size > target ? offset + size - target : 0;
      new_weight += static_cast<double>(size) * static_cast<double>(offset);
    }
    if (new_above <= above && (lower_top || new_weight < weight)) {
      for (size_t j = 0; j < freed_.size(); ++j) offsets_[freed_[j]] = (*placed)[j];
    }
  }

  // Picks freed_: v first, then the buffers nearest to it (see the file comment).
  void neighbourhood(size_t v, uint64_t failures) {
    const Buffer& vb = buffers_[v];
    const uint64_t v_low = offsets_[v], v_high = end_of(v);
    const uint64_t time_weight = 16 * (uint64_t{1} << random_.below(12));  // bytes per step
    const bool closed = random_.below(2) == 0;
    const auto reach = static_cast<int32_t>(options_.max_free / 8 + 1);
    const int32_t from = vb.first_step - static_cast<int32_t>(random_.below(static_cast<uint64_t>(reach)));
    const int32_t to = vb.last_step + static_cast<int32_t>(random_.below(static_cast<uint64_t>(reach)));
    for (size_t b : items_) {
      const Buffer& x = buffers_[b];
      if (closed && (x.first_step < from || x.last_step > to)) {
        score_[b] = kNever;
        continue;
      }
      const int64_t gap = std::max<int64_t>(
          0, std::max<int64_t>(x.first_step - vb.last_step, vb.first_step - x.last_step));
      const uint64_t low = offsets_[b], high = end_of(b);
      const uint64_t apart = high <= v_low ? v_low - high : (low >= v_high ? low - v_high : 0);
      score_[b] = static_cast<uint64_t>(gap) * time_weight + apart + random_.below(16);
    }
    score_[v] = 0;
    const size_t k = std::min(
        items_.size(), options_.min_free + failures / 8 +
                           random_.below(options_.max_free - std::min(options_.max_free, options_.min_free) + 1));
    order_ = items_;
    std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(k), order_.end(),
                      [&](size_t a, size_t b) { return score_[a] != score_[b] ? score_[a] < score_[b] : a < b; });
    freed_.assign(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(k));
    while (freed_.size() > 1 && score_[freed_.back()] == kNever) freed_.pop_back();
  }

  // A placement of freed_ (in that order) at or below capacity, everything else where it is.
  std::optional<std::vector<uint64_t>> solve(uint64_t capacity) {
    int32_t first = std::numeric_limits<int32_t>::max(), last = -1;
    for (size_t b : freed_) {
      is_freed_[b] = 1;
      first = std::min(first, buffers_[b].first_step);
      last = std::max(last, buffers_[b].last_step);
    }
    Problem sub;
    sub.num_steps = last - first + 1;
    // live_before[s]: how many of the sub-problem's steps before s have a freed buffer living.
    std::vector<int32_t> live_before(static_cast<size_t>(sub.num_steps) + 1, 0);
    for (size_t b : freed_) {
      Buffer x = unnamed(buffers_[b]);
      x.first_step -= first;
      x.last_step -= first;
      live_before[static_cast<size_t>(x.first_step)] += 1;
      live_before[static_cast<size_t>(x.last_step) + 1] -= 1;
      sub.buffers.push_back(x);
    }
    int32_t running = 0, seen = 0;
    for (int32_t& s : live_before) {
      running += s;
      s = seen;
      seen += running > 0;
    }
    pins_.clear();
    for (size_t b = 0; b < buffers_.size(); ++b) {
      const Buffer& other = buffers_[b];
      if (is_freed_[b] || aligned_size(other) == 0) continue;
      if (other.last_step < first || other.first_step > last) continue;
      Buffer pinned = unnamed(other);
      pinned.first_step = std::max(other.first_step, first) - first;
      pinned.last_step = std::min(other.last_step, last) - first;
      if (live_before[static_cast<size_t>(pinned.last_step) + 1] ==
          live_before[static_cast<size_t>(pinned.first_step)]) {
        continue;  // lives with no freed buffer
      }
      pinned.size = aligned_size(other);
      pinned.fixed_offset = other.fixed_offset ? *other.fixed_offset : offsets_[b];
      pins_.push_back(pinned);
    }
    for (size_t b : freed_) is_freed_[b] = 0;
    std::sort(pins_.begin(), pins_.end(), [](const Buffer& x, const Buffer& y) {
      return std::tie(x.first_step, x.last_step, *x.fixed_offset) <
             std::tie(y.first_step, y.last_step, *y.fixed_offset);
    });
    for (const Buffer& pin : pins_) {
      Buffer& previous = sub.buffers.back();
      if (sub.buffers.size() > freed_.size() && previous.first_step == pin.first_step &&
          previous.last_step == pin.last_step && previous.alignment == pin.alignment &&
          *previous.fixed_offset + previous.size == *pin.fixed_offset) {
        previous.size += pin.size;
      } else {
        sub.buffers.push_back(pin);
      }
    }
    const uint64_t budget = std::min(node_limit_ - result_.nodes, options_.sub_nodes);
    DecisionResult decision =
        decide_exact(sub, capacity, static_cast<int>(random_.below(4)), budget, deadline_);
    result_.nodes += decision.nodes;
    if (!decision.offsets) return std::nullopt;
    decision.offsets->resize(freed_.size());
    return std::move(decision.offsets);
  }

  const Problem& problem_;
  const std::vector<Buffer>& buffers_;
  uint64_t lower_;
  LnsOptions options_;
  Clock::time_point deadline_;
  Random random_;
  uint64_t alignment_ = 1;
  uint64_t node_limit_ = kNever;
  std::vector<size_t> items_;  // the movable buffers
  std::vector<uint64_t> offsets_;  // the working plan
  uint64_t best_arena_ = 0;
  LnsResult result_;
  std::vector<size_t> violators_, order_, freed_;
  std::vector<uint64_t> score_;
  std::vector<uint8_t> is_freed_;
  std::vector<Buffer> pins_;
};

}  // namespace

LnsResult improve_lns(const Problem& problem, const std::vector<uint64_t>& start, uint64_t lower,
                      const LnsOptions& options, Clock::time_point deadline) {
  return Lns(problem, start, lower, options, deadline).run();
}

}  // namespace mote::planner::internal
