// Guillotine decomposition of perfect packings (see decide_cuts in algorithms.h).
//
// A set of buffers living within steps [first, last] and filling `height` bytes at every one of
// those steps (a full rectangle) is packed by cutting it:
//  - in time, at a step boundary no buffer crosses: the two sides are full rectangles of the
//    same height, packed on their own;
//  - in bytes: a subset A of the buffers whose live bytes are the same h at every step goes
//    below h, the others above, each part again a full rectangle (of heights h and height - h).
// Such a subset is found by a search over binary choices (in A or not) along the boundaries
// between steps, in time order: at each boundary the buffers of A that end there must add up to
// those of A that start right after it. A buffer is decided at its start, except those that
// start at the rectangle's first step and the starters of a crowded boundary (more than
// kMaxStarters), which are decided at their end (a crowded boundary then only has to stay
// balanced up to a subset sum of its undecided starters). Choices with fewer buffers in A come
// first (the next attempt takes those with more first; the search restarts in Luby-sequence
// lengths, later attempts in orders varied at random, seeded, some backward in time); one
// buffer of the first step (the anchor) is put in A to rule out the empty set (A and the rest
// may swap), each in turn with a node budget that doubles every round. After each choice the
// boundaries where the newly decided buffers end (or started) are checked by subset sums, and a
// failure jumps back to the latest boundary whose choices it depends on (conflict-directed
// backjumping). When a part cannot be packed, the search goes on to the next subset. A single
// buffer spanning the whole rectangle goes to its bottom.
//
// Every packing found this way is valid. Packings that no sequence of such cuts makes (not
// guillotine) are not found, and choices are cut off at kMaxOptions per boundary, so the search
// never claims infeasibility. It applies only where every step is exactly full at the capacity
// and no buffer is fixed; the cut packings of random_problems.h (tight, dense) are guillotine by
// construction, real models' problems mostly not full. Counted in nodes.
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "compiler/planner/algorithms.h"

namespace mote::planner::internal {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
// At most this many undecided enders at one boundary (2^n choices are looked at), and at most
// this many choices kept at a boundary.
constexpr size_t kMaxChoice = 16;
constexpr size_t kMaxOptions = 1 << 16;
// Boundaries with more starters than this decide them at their ends.
constexpr size_t kMaxStarters = 12;
// The first node budget of an anchor, per buffer of the rectangle.
constexpr uint64_t kAnchorNodesPerItem = 4;
// Restart lengths: this many nodes per buffer (at least kMinRestartNodes) times the Luby
// sequence.
constexpr uint64_t kRestartNodesPerItem = 50;
constexpr uint64_t kMinRestartNodes = 2000;

class Cuts {
 public:
  Cuts(const Problem& problem, uint64_t capacity, Clock::time_point deadline)
      : problem_(problem), capacity_(capacity), deadline_(deadline) {}

  // Attempts (restarts) of Luby-sequence lengths until one finds a packing, one ends the search
  // (every order would), or the limits are reached. They alternate the order of the choices:
  // fewer buffers in A first, then more first (so that the smaller side comes first either
  // way); from the third on, the anchors are shuffled and neighbouring choices swapped at
  // random, and from the fifth on every other pair runs backward in time (a packing of the
  // mirrored steps is one of the problem's). A search that chose wrong near its root rarely
  // recovers within its budget, while a fresh start in another order often finds a packing at
  // once (heavy-tailed run lengths).
  CutsResult run(const CutsOptions& options) {
    CutsResult result;
    std::vector<int32_t> all;
    if (!prepare(all)) return result;
    const uint64_t limit = options.node_limit == 0 ? kNever : options.node_limit;
    const Clock::time_point end = deadline_;
    const uint64_t restart = std::max(kMinRestartNodes, kRestartNodesPerItem * all.size());
    for (uint64_t attempt = 0; result.nodes < limit && Clock::now() < end; ++attempt) {
      fewest_first_ = attempt % 2 == 0;
      shuffle_ = attempt >= 2;
      mirror_ = attempt % 4 >= 2 && attempt >= 4 ? last_step_ : -1;
      random_ = Random(0x9e3779b97f4a7c15ULL * (attempt + 1));  // seeded by the attempt
      nodes_ = 0;
      aborted_ = false;
      local_limit_ = kNever;
      node_limit_ = std::min(limit - result.nodes, restart * luby(attempt + 1));
      const Status status = pack(all, 0, capacity_);
      result.nodes += nodes_;
      if (status == Status::kFound) {
        result.offsets = offsets_;
        break;
      }
      if (status == Status::kFail) break;  // the search ended: another order would too
    }
    return result;
  }

 private:
  enum class Status { kFound, kFail, kAbort };
  // The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, ... (i from 1): restart lengths within a constant
  // factor of the best fixed length, whatever the distribution of run lengths.
  static uint64_t luby(uint64_t i) {
    for (uint64_t k = 1;; ++k) {
      const uint64_t end = (uint64_t{1} << k) - 1;
      if (i == end) return uint64_t{1} << (k - 1);
      if (i < end) return luby(i - (end >> 1));
    }
  }

  bool prepare(std::vector<int32_t>& all) {
    if (!problem_.overlaps.empty()) return false;
    const auto& buffers = problem_.buffers;
    offsets_.assign(buffers.size(), 0);
    sizes_.resize(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i) {
      sizes_[i] = aligned_size(buffers[i]);
      last_step_ = std::max(last_step_, buffers[i].last_step);
    }
    for (size_t i = 0; i < buffers.size(); ++i) {
      const Buffer& b = buffers[i];
      const uint64_t size = sizes_[i];
      if (size == 0) {
        if (b.fixed_offset) offsets_[i] = *b.fixed_offset;
        continue;
      }
      if (b.fixed_offset) return false;
      all.push_back(static_cast<int32_t>(i));
      unit_ = std::gcd(unit_, size);
    }
    return !all.empty() && every_step_full(problem_, capacity_);
  }

  uint64_t size(int32_t i) const { return sizes_[static_cast<size_t>(i)]; }
  // A buffer's steps, reversed in time (step s becomes mirror_ - s) when mirror_ >= 0.
  int32_t first(int32_t i) const {
    const Buffer& b = problem_.buffers[static_cast<size_t>(i)];
    return mirror_ < 0 ? b.first_step : mirror_ - b.last_step;
  }
  int32_t last(int32_t i) const {
    const Buffer& b = problem_.buffers[static_cast<size_t>(i)];
    return mirror_ < 0 ? b.last_step : mirror_ - b.first_step;
  }

  // The caller's limits (aborted_) or the budget of the anchor being tried (local_limit_).
  bool out_of_budget() {
    if (aborted_) return true;
    if (++nodes_ >= node_limit_) aborted_ = true;
    if (++since_clock_ >= 64) {
      since_clock_ = 0;
      if (Clock::now() >= deadline_) aborted_ = true;
    }
    return aborted_ || nodes_ >= local_limit_;
  }

  // Packs `items` (a full rectangle of `height` bytes over their steps) at base and up.
  Status pack(std::vector<int32_t> items, uint64_t base, uint64_t height) {
    if (out_of_budget()) return Status::kAbort;
    if (items.size() == 1) {
      const int32_t i = items[0];
      if (size(i) != height || base % problem_.buffers[static_cast<size_t>(i)].alignment != 0) {
        return Status::kFail;
      }
      offsets_[static_cast<size_t>(i)] = base;
      return Status::kFound;
    }
    // Time cuts: where no buffer crosses a boundary.
    std::sort(items.begin(), items.end(), [&](int32_t a, int32_t b) {
      return first(a) != first(b) ? first(a) < first(b) : a < b;
    });
    {
      std::vector<std::vector<int32_t>> pieces(1);
      int32_t reach = last(items[0]);
      for (size_t k = 0; k < items.size(); ++k) {
        if (k > 0 && first(items[k]) > reach) pieces.emplace_back();
        pieces.back().push_back(items[k]);
        reach = std::max(reach, last(items[k]));
      }
      if (pieces.size() > 1) {
        for (std::vector<int32_t>& piece : pieces) {
          const Status status = pack(std::move(piece), base, height);
          if (status != Status::kFound) return status;
        }
        return Status::kFound;
      }
    }
    // One buffer over the whole rectangle: cut it off at the bottom.
    const int32_t window_first = first(items[0]);
    int32_t window_last = window_first;
    for (int32_t i : items) window_last = std::max(window_last, last(i));
    for (size_t k = 0; k < items.size(); ++k) {
      const int32_t i = items[k];
      if (first(i) == window_first && last(i) == window_last && size(i) < height &&
          base % problem_.buffers[static_cast<size_t>(i)].alignment == 0) {
        offsets_[static_cast<size_t>(i)] = base;
        std::vector<int32_t> rest = items;
        rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
        return pack(std::move(rest), base + size(i), height - size(i));
      }
    }
    // Byte cuts: search for a subset with constant live bytes.
    Split split;
    split.items = items;
    std::map<int32_t, size_t> boundary_of;  // step s: boundary between s and s + 1
    for (int32_t i : items) {
      if (last(i) < window_last) {
        auto [it, added] = boundary_of.try_emplace(last(i), split.boundaries.size());
        if (added) split.boundaries.push_back({});
        split.boundaries[it->second].enders.push_back(i);
      }
    }
    for (int32_t i : items) {
      if (first(i) > window_first) {
        auto it = boundary_of.find(first(i) - 1);
        if (it == boundary_of.end()) return Status::kFail;  // a step not full
        split.boundaries[it->second].starters.push_back(i);
      }
    }
    std::sort(split.boundaries.begin(), split.boundaries.end(), [&](const Boundary& x, const Boundary& y) {
      return last(x.enders[0]) < last(y.enders[0]);
    });
    for (int32_t i : items) {
      start_boundary_[static_cast<size_t>(i)] = -1;
      end_boundary_[static_cast<size_t>(i)] = -1;
      deferred_[static_cast<size_t>(i)] = 0;
    }
    for (size_t k = 0; k < split.boundaries.size(); ++k) {
      for (int32_t i : split.boundaries[k].enders) end_boundary_[static_cast<size_t>(i)] = static_cast<int32_t>(k);
      // The starters of a crowded boundary are decided at their ends (those that end inside).
      const bool crowded = split.boundaries[k].starters.size() > kMaxStarters;
      for (int32_t i : split.boundaries[k].starters) {
        start_boundary_[static_cast<size_t>(i)] = static_cast<int32_t>(k);
        deferred_[static_cast<size_t>(i)] = crowded && last(i) < window_last;
      }
    }
    split.starter_sums.resize(split.boundaries.size());
    split.base = base;
    split.height = height;
    split.window_first = window_first;
    split.window_last = window_last;
    for (int32_t i : items) in_[static_cast<size_t>(i)] = -1;
    // Rule out the empty set: one buffer of the first step (the anchor) is in A. Every cut has
    // the anchor on one side, and the sides may swap, so a search that fails for one anchor
    // fails for all. The smallest A that holds an anchor is found soonest, and it is small
    // only if the anchor lies on the smaller side: anchors in turn (those that end first
    // first), each with a node budget that doubles every round.
    std::vector<int32_t> anchors;
    for (int32_t i : items) {
      if (first(i) == window_first) anchors.push_back(i);
    }
    std::sort(anchors.begin(), anchors.end(), [&](int32_t a, int32_t b) {
      return last(a) != last(b) ? last(a) < last(b) : a < b;
    });
    if (shuffle_) {
      for (size_t j = anchors.size(); j > 1; --j) std::swap(anchors[j - 1], anchors[random_.below(j)]);
    }
    for (uint64_t budget = kAnchorNodesPerItem * items.size();; budget *= 2) {
      bool cut_short = false;
      for (int32_t anchor : anchors) {
        for (int32_t i : items) in_[static_cast<size_t>(i)] = -1;
        in_[static_cast<size_t>(anchor)] = 1;
        const uint64_t outer = local_limit_;
        split.outer_limit = outer;
        local_limit_ = std::min(outer, nodes_ + budget);
        Conflict conflict;
        const Status status = choose(split, 0, conflict);
        local_limit_ = outer;
        if (status != Status::kAbort) return status;
        if (aborted_ || nodes_ >= outer) return Status::kAbort;
        cut_short = true;
      }
      if (!cut_short) return Status::kFail;
    }
  }

  using Conflict = std::vector<uint64_t>;  // a set of boundaries
  struct Boundary {
    std::vector<int32_t> enders, starters;
  };
  struct Split {
    std::vector<int32_t> items;
    std::vector<Boundary> boundaries;
    uint64_t base = 0, height = 0;
    int32_t window_first = 0, window_last = 0;
    uint64_t outer_limit = kNever;  // the node budget of the search this rectangle is part of
    mutable std::vector<std::vector<uint64_t>> starter_sums;  // by boundary (feasible)
  };

  // Decides the buffers of boundary k: its undecided enders (those of the first step, and the
  // deferred starters of crowded boundaries, which are decided at their end) and its starters
  // unless deferred. The boundary must stay balanced up to what its deferred starters can still
  // add (and so must the boundaries whose deferred starters end here). On failure, `conflict`
  // holds the boundaries whose decisions the failure depends on (conflict-directed
  // backjumping: a boundary not among them is not retried).
  Status choose(const Split& split, size_t k, Conflict& conflict) {
    const size_t words = split.boundaries.size() / 64 + 1;
    if (k == split.boundaries.size()) {
      const Status status = cut(split);
      conflict.assign(words, ~uint64_t{0});  // depends on everything
      return status;
    }
    if (out_of_budget()) return Status::kAbort;
    const Boundary& boundary = split.boundaries[k];
    uint64_t known = 0;
    std::vector<int32_t> free;  // undecided enders, then the starters decided here
    for (int32_t i : boundary.enders) {
      if (in_[static_cast<size_t>(i)] < 0) {
        free.push_back(i);
      } else if (in_[static_cast<size_t>(i)] == 1) {
        known += size(i);
      }
    }
    const size_t free_enders = free.size();
    Conflict acc(words, 0);
    reasons(split, k, acc);
    std::vector<int32_t> starters, deferred;
    for (int32_t i : boundary.starters) (deferred_[static_cast<size_t>(i)] ? deferred : starters).push_back(i);
    if (free_enders > kMaxChoice || starters.size() > 63 - free_enders) {
      conflict.assign(words, ~uint64_t{0});
      return Status::kFail;
    }
    std::sort(starters.begin(), starters.end(), [&](int32_t a, int32_t b) {
      return size(a) != size(b) ? size(a) > size(b) : a < b;
    });
    free.insert(free.end(), starters.begin(), starters.end());
    std::vector<uint64_t> after(starters.size() + 1, 0);
    for (size_t j = starters.size(); j-- > 0;) after[j] = after[j + 1] + size(starters[j]);
    // What the deferred starters can still add.
    uint64_t deferred_total = 0;
    for (int32_t i : deferred) deferred_total += size(i);
    std::vector<uint64_t> deferred_sums;
    if (!deferred.empty()) sums(deferred, deferred_total / unit_, deferred_sums);
    // Each assignment u of the free enders once: how many it puts in A, and what it asks of the
    // starters.
    struct EnderChoice {
      uint64_t u;
      size_t count;
      uint64_t target;
    };
    std::vector<EnderChoice> choices;
    choices.reserve(size_t{1} << free_enders);
    for (uint64_t u = 0; u < (uint64_t{1} << free_enders); ++u) {
      uint64_t target = known;
      for (size_t j = 0; j < free_enders; ++j) {
        if ((u >> j) & 1) target += size(free[j]);
      }
      choices.push_back({u, static_cast<size_t>(__builtin_popcountll(u)), target});
    }
    // The assignments that keep the boundary balanced, fewest buffers in A first (so that a
    // list cut off at kMaxOptions keeps the smallest): every count at once, then sorted by
    // count, unless there are too many to list; then count by count.
    std::vector<uint64_t> masks;
    bool listed = false;
    if (deferred.empty()) {
      counted_.clear();
      bool overflow = false;
      for (const EnderChoice& c : choices) {
        all_subsets(starters, after, 0, c.target, c.count, c.u, free_enders, overflow);
        if (overflow) break;
      }
      if (!overflow) {
        std::stable_sort(counted_.begin(), counted_.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (size_t j = 0; j < counted_.size() && j < kMaxOptions; ++j) masks.push_back(counted_[j].second);
        listed = true;
      }
    }
    for (size_t count = 0; !listed && count <= free.size() && masks.size() < kMaxOptions; ++count) {
      for (const EnderChoice& c : choices) {
        if (masks.size() >= kMaxOptions) break;
        if (c.count > count) continue;
        if (deferred.empty()) {
          subsets(starters, after, 0, c.target, count - c.count, c.u, free_enders, masks);
        } else {
          pick(starters, deferred_sums, 0, c.target, count - c.count, c.u, free_enders, masks);
        }
      }
    }
    if (!fewest_first_) std::reverse(masks.begin(), masks.end());
    if (shuffle_) {
      // A third of the neighbours swapped: the order stays roughly by count.
      for (size_t j = masks.size(); j > 1; --j) {
        if (random_.below(3) == 0) std::swap(masks[j - 1], masks[j - 2]);
      }
    }
    for (uint64_t m : masks) {
      for (size_t j = 0; j < free.size(); ++j) in_[static_cast<size_t>(free[j])] = (m >> j) & 1;
      // Forward checks: the boundaries where the starters just decided end, and those where
      // the deferred enders just decided started.
      bool ok = true;
      for (size_t j = 0; j < free.size() && ok; ++j) {
        const int32_t i = free[j];
        int32_t other = -1;
        if (j < free_enders) {
          other = start_boundary_[static_cast<size_t>(i)];
          if (other >= 0 && !balanced(split, static_cast<size_t>(other))) ok = false;
        } else if (last(i) < split.window_last) {
          other = end_boundary_[static_cast<size_t>(i)];
          if (!feasible(split, static_cast<size_t>(other))) ok = false;
        }
        if (!ok) reasons(split, static_cast<size_t>(other), acc);
      }
      if (!ok) continue;
      Conflict child;
      const Status status = choose(split, k + 1, child);
      if (status != Status::kFail) {
        if (status == Status::kAbort) {
          for (int32_t i : free) in_[static_cast<size_t>(i)] = -1;
        }
        return status;
      }
      if (((child[k / 64] >> (k % 64)) & 1) == 0) {
        // The failure does not depend on this boundary: jump back over it.
        for (int32_t i : free) in_[static_cast<size_t>(i)] = -1;
        conflict = std::move(child);
        return Status::kFail;
      }
      for (size_t w = 0; w < words; ++w) acc[w] |= child[w];
    }
    acc[k / 64] &= ~(uint64_t{1} << (k % 64));
    conflict = std::move(acc);
    for (int32_t i : free) in_[static_cast<size_t>(i)] = -1;
    return Status::kFail;
  }

  // Where item i is decided: at its end if deferred (or of the first step), else at its start.
  int32_t decided_at(int32_t i) const {
    return deferred_[static_cast<size_t>(i)] || start_boundary_[static_cast<size_t>(i)] < 0
               ? end_boundary_[static_cast<size_t>(i)]
               : start_boundary_[static_cast<size_t>(i)];
  }

  // Adds to conflict the boundaries where the decided buffers of boundary k were decided.
  void reasons(const Split& split, size_t k, Conflict& conflict) const {
    const Boundary& boundary = split.boundaries[k];
    for (const auto* list : {&boundary.enders, &boundary.starters}) {
      for (int32_t i : *list) {
        if (in_[static_cast<size_t>(i)] < 0) continue;
        const int32_t b = decided_at(i);
        if (b >= 0) conflict[static_cast<size_t>(b) / 64] |= uint64_t{1} << (static_cast<size_t>(b) % 64);
      }
    }
  }

  // Boundary k (all of whose enders are decided) can still balance with its undecided starters?
  bool balanced(const Split& split, size_t k) {
    const Boundary& boundary = split.boundaries[k];
    uint64_t left = 0, right = 0, open = 0;
    free_.clear();
    for (int32_t i : boundary.enders) {
      if (in_[static_cast<size_t>(i)] < 0) return true;
      if (in_[static_cast<size_t>(i)] == 1) left += size(i);
    }
    for (int32_t i : boundary.starters) {
      const int8_t in = in_[static_cast<size_t>(i)];
      if (in < 0) {
        free_.push_back(i);
        open += size(i);
      } else if (in == 1) {
        right += size(i);
      }
    }
    if (right > left || left - right > open) return false;
    if (free_.empty()) return left == right;
    sums(free_, open / unit_, starter_sums_);
    const uint64_t need = (left - right) / unit_;
    return (starter_sums_[static_cast<size_t>(need / 64)] >> (need % 64)) & 1;
  }

  // Adds to masks every subset of `count` starters[j..] whose sum is target less a sum of the
  // deferred starters (in deferred_sums), as for subsets().
  void pick(const std::vector<int32_t>& starters, const std::vector<uint64_t>& deferred_sums, size_t j,
            uint64_t target, size_t count, uint64_t mask, size_t shift, std::vector<uint64_t>& masks) const {
    if (masks.size() >= kMaxOptions) return;
    if (count == 0) {
      const uint64_t need = target / unit_;
      if (need / 64 < deferred_sums.size() && ((deferred_sums[static_cast<size_t>(need / 64)] >> (need % 64)) & 1)) {
        masks.push_back(mask);
      }
      return;
    }
    if (j == starters.size()) return;
    const uint64_t s = size(starters[j]);
    if (s <= target) {
      pick(starters, deferred_sums, j + 1, target - s, count - 1, mask | (uint64_t{1} << (shift + j)), shift, masks);
    }
    pick(starters, deferred_sums, j + 1, target, count, mask, shift, masks);
  }

  // Can boundary k still balance: (decided enders in A) + (some undecided enders) ==
  // (some starters)? By subset sums in units.
  bool feasible(const Split& split, size_t k) {
    const Boundary& boundary = split.boundaries[k];
    uint64_t known = 0;
    free_.clear();
    for (int32_t i : boundary.enders) {
      const int8_t in = in_[static_cast<size_t>(i)];
      if (in < 0) {
        free_.push_back(i);
      } else if (in == 1) {
        known += size(i);
      }
    }
    uint64_t total_starters = 0;
    for (int32_t i : boundary.starters) {
      if (in_[static_cast<size_t>(i)] >= 0) return true;  // being decided: not checked here
      total_starters += size(i);
    }
    if (known > total_starters) return false;
    const uint64_t units = total_starters / unit_;
    if (units > (uint64_t{1} << 16)) return true;
    // The starters' subset sums, the same every time all of them are undecided: kept.
    std::vector<uint64_t>& starter_sums = split.starter_sums[k];
    if (starter_sums.empty()) sums(boundary.starters, units, starter_sums);
    // Shift by known, then or in the free enders.
    const uint64_t k0 = known / unit_;
    if (free_.empty()) return (starter_sums[static_cast<size_t>(k0 / 64)] >> (k0 % 64)) & 1;
    ender_sums_.assign(starter_sums.size(), 0);
    ender_sums_[static_cast<size_t>(k0 / 64)] |= uint64_t{1} << (k0 % 64);
    add_all(free_, units, ender_sums_);
    for (size_t w = 0; w < starter_sums.size(); ++w) {
      if (starter_sums[w] & ender_sums_[w]) return true;
    }
    return false;
  }
  void sums(const std::vector<int32_t>& items, uint64_t units, std::vector<uint64_t>& bits) const {
    bits.assign(static_cast<size_t>(units / 64 + 1), 0);
    bits[0] = 1;
    add_all(items, units, bits);
  }
  void add_all(const std::vector<int32_t>& items, uint64_t units, std::vector<uint64_t>& bits) const {
    const size_t words = bits.size();
    for (int32_t i : items) {
      const uint64_t s = size(i) / unit_;
      if (s > units) continue;
      const size_t sw = static_cast<size_t>(s / 64), sb = static_cast<size_t>(s % 64);
      for (size_t w = words; w-- > sw;) {
        uint64_t v = bits[w - sw] << sb;
        if (sb != 0 && w - sw >= 1) v |= bits[w - sw - 1] >> (64 - sb);
        bits[w] |= v;
      }
    }
  }

  // Adds to masks every subset of `count` starters of starters[j..] summing to target (as bits
  // from `shift` on, over `mask`), up to kMaxOptions masks in all.
  void subsets(const std::vector<int32_t>& starters, const std::vector<uint64_t>& after, size_t j,
               uint64_t target, size_t count, uint64_t mask, size_t shift, std::vector<uint64_t>& masks) const {
    if (masks.size() >= kMaxOptions) return;
    if (count == 0) {
      if (target == 0) masks.push_back(mask);
      return;
    }
    if (j == starters.size() || after[j] < target || target == 0) return;
    const uint64_t s = size(starters[j]);
    if (s <= target) {
      subsets(starters, after, j + 1, target - s, count - 1, mask | (uint64_t{1} << (shift + j)), shift, masks);
    }
    subsets(starters, after, j + 1, target, count, mask, shift, masks);
  }

  // Adds to counted_ every subset of starters[j..] summing to target, with its size (count
  // buffers so far) and mask (bits from `shift` on, over `mask`); sets overflow past
  // 4 * kMaxOptions of them.
  void all_subsets(const std::vector<int32_t>& starters, const std::vector<uint64_t>& after, size_t j,
                   uint64_t target, size_t count, uint64_t mask, size_t shift, bool& overflow) {
    if (overflow) return;
    if (target == 0) {
      counted_.emplace_back(count, mask);
      overflow = counted_.size() > 4 * kMaxOptions;
      return;
    }
    if (j == starters.size() || after[j] < target) return;
    const uint64_t s = size(starters[j]);
    if (s <= target) {
      all_subsets(starters, after, j + 1, target - s, count + 1, mask | (uint64_t{1} << (shift + j)), shift, overflow);
    }
    all_subsets(starters, after, j + 1, target, count, mask, shift, overflow);
  }

  // Every buffer decided: pack A below, the rest above, unless A is all or nothing.
  Status cut(const Split& split) {
    std::vector<int32_t> below, above;
    uint64_t h = 0;
    for (int32_t i : split.items) {
      // Buffers of the first step that never end inside (they span the window) stay out of A.
      const bool in = in_[static_cast<size_t>(i)] == 1;
      (in ? below : above).push_back(i);
      if (in && first(i) == split.window_first) h += size(i);
    }
    if (below.empty() || above.empty() || h == 0 || h >= split.height) return Status::kFail;
    // The recursive packs overwrite in_ for their own items only; keep ours.
    struct Saved {
      int8_t in;
      int32_t start, end;
      uint8_t deferred;
    };
    std::vector<Saved> saved(split.items.size());
    for (size_t j = 0; j < split.items.size(); ++j) {
      const auto i = static_cast<size_t>(split.items[j]);
      saved[j] = {in_[i], start_boundary_[i], end_boundary_[i], deferred_[i]};
    }
    // The parts are packed within the budget of the search this rectangle is part of, not
    // within that of the anchor.
    const uint64_t anchor_limit = local_limit_;
    local_limit_ = split.outer_limit;
    Status status = pack(below, split.base, h);
    if (status == Status::kFound) status = pack(above, split.base + h, split.height - h);
    local_limit_ = anchor_limit;
    for (size_t j = 0; j < split.items.size(); ++j) {
      const auto i = static_cast<size_t>(split.items[j]);
      in_[i] = saved[j].in;
      start_boundary_[i] = saved[j].start;
      end_boundary_[i] = saved[j].end;
      deferred_[i] = saved[j].deferred;
    }
    return status;
  }

  const Problem& problem_;
  uint64_t capacity_;
  Clock::time_point deadline_;
  std::vector<uint64_t> offsets_;
  std::vector<uint64_t> sizes_;  // aligned sizes, by buffer
  std::vector<std::pair<size_t, uint64_t>> counted_;  // all_subsets' (count, mask)
  std::vector<int8_t> in_ = std::vector<int8_t>(problem_.buffers.size(), -1);
  std::vector<int32_t> end_boundary_ = std::vector<int32_t>(problem_.buffers.size(), -1);
  std::vector<int32_t> start_boundary_ = std::vector<int32_t>(problem_.buffers.size(), -1);
  std::vector<uint8_t> deferred_ = std::vector<uint8_t>(problem_.buffers.size(), 0);
  std::vector<int32_t> free_;
  std::vector<uint64_t> starter_sums_, ender_sums_;
  uint64_t unit_ = 0;
  uint64_t nodes_ = 0, node_limit_ = kNever, since_clock_ = 0;
  bool aborted_ = false;
  bool fewest_first_ = true;
  bool shuffle_ = false;  // restarts after the first two: anchors and choices varied at random
  int32_t mirror_ = -1;   // >= 0: the attempt runs backward in time (see first())
  int32_t last_step_ = 0;
  Random random_{1};
  uint64_t local_limit_ = kNever;
};

}  // namespace

bool every_step_full(const Problem& problem, uint64_t bound) {
  std::vector<int64_t> delta(static_cast<size_t>(problem.num_steps) + 1, 0);
  int32_t first = problem.num_steps, last = -1;
  for (const Buffer& b : problem.buffers) {
    const uint64_t size = aligned_size(b);
    if (size == 0) continue;
    delta[static_cast<size_t>(b.first_step)] += static_cast<int64_t>(size);
    delta[static_cast<size_t>(b.last_step) + 1] -= static_cast<int64_t>(size);
    first = std::min(first, b.first_step);
    last = std::max(last, b.last_step);
  }
  int64_t live = 0;
  for (int32_t s = 0; s <= last; ++s) {
    live += delta[static_cast<size_t>(s)];
    if (s >= first && live != static_cast<int64_t>(bound)) return false;
  }
  return last >= 0;
}

CutsResult decide_cuts(const Problem& problem, uint64_t capacity, const CutsOptions& options,
                        Clock::time_point deadline) {
  return Cuts(problem, capacity, deadline).run(options);
}

}  // namespace mote::planner::internal
