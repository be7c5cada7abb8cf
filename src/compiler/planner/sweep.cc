// Chronological (time-sweep) decision search (see decide_sweep in algorithms.h).
//
// The search sweeps the time points (the distinct first steps) in order. At time point p the
// buffers that died before it have freed their bytes; the buffers starting at p are placed, one
// at a time, at the lowest free offset of the point (after alignment): every free byte below
// the capacity either gets a buffer starting there or is left empty, and the bytes left empty
// at a point are at most its slack (capacity minus the bytes live there). Where a point is
// exactly full (every point of a cut packing at its bound), its starters must tile the free
// intervals exactly: few candidates fit at the lowest free offset, and wrong choices fail
// within the point. Leaving bytes empty is tried only for a whole free interval (from the
// lowest free offset to the next occupied byte), after every buffer that fits there: with
// slack the search is not complete, and it never claims that a capacity is infeasible.
//
// Fixed buffers take their bytes below the capacity from their first point on; a buffer is not
// placed where a fixed buffer that starts later in its life would meet it.
//
// Pruning, sound for every plan whose points all leave at most their slack empty:
//  - at the point being filled, the free intervals must be filled by its unplaced starters,
//    each interval by a subset of them: the interval's bytes minus the largest subset sum that
//    fits in it stay empty, and those add up to at most the point's slack (subset sums by
//    bitset, in units of the common divisor of the sizes);
//  - after each placement, the same per time point q from the next one to the end of the
//    placed buffer's life, with the free intervals left there by the placed and fixed buffers
//    live at q, and as fillers the unplaced buffers live at q that fit in the interval during
//    their whole life so far (a placed buffer that dies before q blocks its bytes from the
//    filler's first point on; the point's own starters go at or above the lowest free offset,
//    which only rises while a point is filled);
//  - identical buffers (size, alignment, lifetime) are placed in index order, and of two
//    buffers with the same lifetime and alignment placed right on top of each other, the lower
//    has the lower index (such neighbours swap without changing anything else);
//  - once a point's starters are all placed, the future depends only on where the buffers that
//    live on sit: such a state that failed before fails again (remembered by hash, across
//    restarts; at most kMaxMemo states).
// Restarts: candidate orderings by size, by end (latest or earliest first) and shuffled,
// cycled with doubling node limits. Seeded and counted in nodes.
#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_set>

#include "compiler/planner/algorithms.h"

namespace mote::planner::internal {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
// Subset sums are tracked up to this many units; larger free intervals are not checked.
constexpr uint64_t kMaxUnits = uint64_t{1} << 15;
// Failed states remembered at most.
constexpr size_t kMaxMemo = size_t{1} << 18;

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL) {}
  uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }

 private:
  uint64_t state_;
};

class Sweep {
 public:
  Sweep(const Problem& problem, uint64_t capacity, Clock::time_point deadline)
      : problem_(problem), capacity_(capacity), deadline_(deadline) {
    prepare();
  }

  SweepResult run(const SweepOptions& options) {
    SweepResult result;
    node_limit_ = options.node_limit == 0 ? kNever : options.node_limit;
    if (!feasible_) return result;
    Random random(options.seed);
    uint64_t budget = std::max<uint64_t>(options.first_budget, 1);
    for (uint64_t round = 0; !aborted_; ++round) {
      ordering_ = static_cast<int>(round % 4);
      for (size_t i = 0; i < items_.size(); ++i) noise_[i] = random.next();
      search_limit_ = nodes_ + budget;
      const Status status = point(0);
      if (status == Status::kFound) {
        result.offsets = offsets();
        break;
      }
      if (status == Status::kFail) break;  // complete only without slack: not claimed
      if (round % 4 == 3) budget *= 2;
    }
    result.nodes = nodes_;
    result.deepest_point = deepest_;
    return result;
  }

 private:
  enum class Status { kFound, kFail, kAbort };

  struct Item {
    size_t buffer;
    uint64_t size;  // aligned
    uint64_t alignment;
    int32_t first_point, last_point;
    int32_t first_step, last_step;
    size_t klass;
  };
  struct Interval {
    uint64_t low, high;
    int32_t last_point;  // live through this point
    int32_t item;        // -1: fixed, -2: left empty at this point
  };

  void prepare() {
    const auto& buffers = problem_.buffers;
    std::vector<int32_t> points;
    for (const Buffer& b : buffers) {
      if (aligned_size(b) > 0) points.push_back(b.first_step);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    const auto num_points = static_cast<int32_t>(points.size());
    auto point_index = [&](int32_t step) {
      return static_cast<int32_t>(std::upper_bound(points.begin(), points.end(), step) - points.begin()) - 1;
    };
    starters_.assign(points.size(), {});
    live_.assign(points.size(), {});
    fixed_live_.assign(points.size(), {});
    fixed_starting_.assign(points.size(), {});
    slack_.assign(points.size(), static_cast<int64_t>(capacity_));
    uint64_t unit = 0;
    for (size_t i = 0; i < buffers.size(); ++i) {
      const Buffer& b = buffers[i];
      const uint64_t size = aligned_size(b);
      if (size == 0) continue;
      const int32_t first = point_index(b.first_step), last = point_index(b.last_step);
      if (b.fixed_offset) {
        // Only the bytes below the capacity take room there.
        const uint64_t low = std::min(*b.fixed_offset, capacity_);
        const uint64_t high = std::min(*b.fixed_offset + size, capacity_);
        if (low < high) {
          fixed_starting_[static_cast<size_t>(first)].push_back({low, high, last, -1});
          for (int32_t q = first; q <= last; ++q) {
            fixed_live_[static_cast<size_t>(q)].push_back({low, high, last, -1});
            slack_[static_cast<size_t>(q)] -= static_cast<int64_t>(high - low);
          }
        }
        continue;
      }
      if (size > capacity_) feasible_ = false;
      const auto index = static_cast<int32_t>(items_.size());
      items_.push_back({i, size, b.alignment, first, last, b.first_step, b.last_step, 0});
      starters_[static_cast<size_t>(first)].push_back(index);
      for (int32_t q = first; q <= last; ++q) {
        live_[static_cast<size_t>(q)].push_back(index);
        slack_[static_cast<size_t>(q)] -= static_cast<int64_t>(size);
      }
      unit = std::gcd(unit, size);
    }
    for (int64_t s : slack_) {
      if (s < 0) feasible_ = false;
    }
    for (auto& at : fixed_live_) {
      std::sort(at.begin(), at.end(), [](const Interval& x, const Interval& y) { return x.low < y.low; });
      for (size_t k = 1; k < at.size(); ++k) {
        if (at[k - 1].high > at[k].low) feasible_ = false;  // fixed buffers that overlap
      }
    }
    unit_ = std::max<uint64_t>(unit, 1);
    // Identical items in index order.
    const size_t n = items_.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto key = [&](size_t i) {
      const Item& x = items_[i];
      return std::make_tuple(x.size, x.alignment, x.first_step, x.last_step);
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
    for (size_t k = 0; k < n; ++k) {
      if (k > 0 && key(order[k]) == key(order[k - 1])) {
        items_[order[k]].klass = items_[order[k - 1]].klass;
        klass_members_[items_[order[k]].klass].push_back(order[k]);
      } else {
        items_[order[k]].klass = klass_members_.size();
        klass_members_.push_back({order[k]});
      }
    }
    klass_next_.assign(klass_members_.size(), 0);
    // The fixed buffers each item lives with.
    fixed_of_.assign(n, {});
    for (size_t i = 0; i < n; ++i) {
      std::vector<Interval>& of = fixed_of_[i];
      for (int32_t q = items_[i].first_point; q <= items_[i].last_point; ++q) {
        for (const Interval& f : fixed_live_[static_cast<size_t>(q)]) {
          const bool known = std::any_of(of.begin(), of.end(), [&](const Interval& g) {
            return g.low == f.low && g.high == f.high;
          });
          if (!known) of.push_back(f);
        }
      }
    }
    placed_.assign(n, 0);
    offset_.assign(n, 0);
    noise_.assign(n, 0);
    (void)num_points;
  }

  // Would item i at offset meet a fixed buffer during its life (one that starts after it)?
  bool hits_fixed(size_t i, uint64_t offset) const {
    const uint64_t end = offset + items_[i].size;
    for (const Interval& f : fixed_of_[i]) {
      if (f.low < end && offset < f.high) return true;
    }
    return false;
  }

  std::vector<uint64_t> offsets() const {
    std::vector<uint64_t> result(problem_.buffers.size(), 0);
    for (size_t i = 0; i < problem_.buffers.size(); ++i) {
      if (problem_.buffers[i].fixed_offset) result[i] = *problem_.buffers[i].fixed_offset;
    }
    for (size_t i = 0; i < items_.size(); ++i) result[items_[i].buffer] = offset_[i];
    return result;
  }

  bool out_of_budget() {
    if (aborted_) return true;
    if (nodes_ >= node_limit_) {
      aborted_ = true;
      return true;
    }
    if (nodes_ >= search_limit_) return true;
    if (++since_clock_ >= 64) {
      since_clock_ = 0;
      if (Clock::now() >= deadline_) aborted_ = true;
    }
    return aborted_;
  }

  // Subset sums (in units, up to `units`) of the sizes of the unplaced items of `live`, into
  // bits.
  void subset_sums(const std::vector<int32_t>& live, uint64_t units, std::vector<uint64_t>& bits) const {
    const size_t words = static_cast<size_t>(units / 64 + 1);
    bits.assign(words, 0);
    bits[0] = 1;
    for (int32_t i : live) {
      const Item& item = items_[static_cast<size_t>(i)];
      if (placed_[static_cast<size_t>(i)]) continue;
      const uint64_t s = item.size / unit_;
      if (s > units) continue;
      const size_t shift_words = static_cast<size_t>(s / 64), shift_bits = static_cast<size_t>(s % 64);
      for (size_t w = words; w-- > shift_words;) {
        uint64_t v = bits[w - shift_words] << shift_bits;
        if (shift_bits != 0 && w - shift_words >= 1) v |= bits[w - shift_words - 1] >> (64 - shift_bits);
        bits[w] |= v;
      }
    }
  }

  // Largest sum in bits at most k units.
  static uint64_t largest_sum(const std::vector<uint64_t>& bits, uint64_t k) {
    size_t w = static_cast<size_t>(k / 64);
    uint64_t word = bits[w];
    const uint64_t bit = k % 64;
    if (bit != 63) word &= (uint64_t{2} << bit) - 1;
    while (word == 0) word = bits[--w];  // bit 0 is always set
    return uint64_t{w} * 64 + static_cast<uint64_t>(63 - __builtin_clzll(word));
  }

  // Bytes that must stay empty at point p in the free intervals between `taken` (sorted by
  // offset, below the capacity), which p's unplaced starters fill.
  uint64_t forced_empty(const std::vector<Interval>& taken, int32_t p) {
    gaps_.clear();
    uint64_t x = 0, widest = 0;
    auto gap = [&](uint64_t low, uint64_t high) {
      gaps_.push_back({low, high});
      widest = std::max(widest, (high - low) / unit_);
    };
    for (const Interval& t : taken) {
      if (t.low > x) gap(x, t.low);
      x = std::max(x, t.high);
    }
    if (capacity_ > x) gap(x, capacity_);
    if (gaps_.empty()) return 0;
    subset_sums(starters_[static_cast<size_t>(p)], std::min(widest, kMaxUnits), sums_);
    uint64_t empty = 0;
    for (const auto& [low, high] : gaps_) {
      const uint64_t k = (high - low) / unit_;
      if (k > kMaxUnits) continue;  // too wide to check
      empty += (high - low) - largest_sum(sums_, k) * unit_;
    }
    return empty;
  }

  // The future point q (nothing left empty there yet) still fillable, while point p is filled
  // from front up?
  bool future_ok(int32_t q, int32_t p, uint64_t front) {
    const auto qq = static_cast<size_t>(q);
    taken_.clear();
    blockers_.clear();
    for (int32_t i : live_[static_cast<size_t>(p)]) {
      const auto ii = static_cast<size_t>(i);
      if (!placed_[ii]) continue;
      const Interval t{offset_[ii], offset_[ii] + items_[ii].size, items_[ii].last_point, i};
      (items_[ii].last_point >= q ? taken_ : blockers_).push_back(t);
    }
    taken_.insert(taken_.end(), fixed_live_[qq].begin(), fixed_live_[qq].end());
    auto by_low = [](const Interval& x, const Interval& y) { return x.low < y.low; };
    std::sort(taken_.begin(), taken_.end(), by_low);
    std::sort(blockers_.begin(), blockers_.end(), by_low);
    // Free intervals at q; each is filled by unplaced items live at q that fit there during
    // their whole life so far (the placed items that die before q still block it from the
    // item's first point on; the point's own starters go at or above front).
    uint64_t x = 0;
    uint64_t empty = 0;
    auto gap = [&](uint64_t low, uint64_t high) {
      const uint64_t k = (high - low) / unit_;
      if (k > kMaxUnits) return;
      const size_t words = static_cast<size_t>(k / 64 + 1);
      sums_.assign(words, 0);
      sums_[0] = 1;
      for (int32_t j : live_[qq]) {
        const Item& item = items_[static_cast<size_t>(j)];
        if (placed_[static_cast<size_t>(j)] || item.size > high - low) continue;
        // The widest run in [from, high) free of the blockers that live at or after j's first
        // point.
        const uint64_t from = item.first_point == p ? std::max(low, front) : low;
        uint64_t run = 0, at = from;
        for (const Interval& b : blockers_) {
          if (b.high <= at || b.last_point < item.first_point) continue;
          if (b.low >= high) break;
          if (b.low > at) run = std::max(run, b.low - at);
          at = std::max(at, b.high);
        }
        if (high > at) run = std::max(run, high - at);
        if (run < item.size) continue;
        const uint64_t s = item.size / unit_;
        const size_t shift_words = static_cast<size_t>(s / 64), shift_bits = static_cast<size_t>(s % 64);
        for (size_t w = words; w-- > shift_words;) {
          uint64_t v = sums_[w - shift_words] << shift_bits;
          if (shift_bits != 0 && w - shift_words >= 1) v |= sums_[w - shift_words - 1] >> (64 - shift_bits);
          sums_[w] |= v;
        }
      }
      empty += (high - low) - largest_sum(sums_, k) * unit_;
    };
    for (const Interval& t : taken_) {
      if (t.low > x) gap(x, t.low);
      x = std::max(x, t.high);
    }
    if (capacity_ > x) gap(x, capacity_);
    return empty <= static_cast<uint64_t>(slack_[qq]);
  }

  uint64_t state_hash(int32_t p) const {
    uint64_t h = 0x84222325cbf29ce4ULL ^ static_cast<uint64_t>(p);
    for (const Interval& t : occupied_) {
      if (t.item < 0 || t.last_point <= p) continue;
      h = (h ^ static_cast<uint64_t>(t.item)) * 0x100000001b3ULL;
      h = (h ^ t.low) * 0x100000001b3ULL;
      h ^= h >> 29;
    }
    return h;
  }

  // Enter point p: drop what died, add the fixed buffers starting here.
  Status point(int32_t p) {
    if (p == static_cast<int32_t>(starters_.size())) return Status::kFound;
    deepest_ = std::max(deepest_, p);
    const std::vector<Interval> saved = occupied_;
    occupied_.erase(std::remove_if(occupied_.begin(), occupied_.end(),
                                   [&](const Interval& t) { return t.last_point < p; }),
                    occupied_.end());
    for (const Interval& f : fixed_starting_[static_cast<size_t>(p)]) insert(f);
    empty_used_ = 0;
    const Status status = fill(p);
    occupied_ = saved;
    return status;
  }

  void insert(const Interval& t) {
    auto it = std::upper_bound(occupied_.begin(), occupied_.end(), t.low,
                               [](uint64_t v, const Interval& x) { return v < x.low; });
    occupied_.insert(it, t);
  }
  void erase(uint64_t low) {
    auto it = std::lower_bound(occupied_.begin(), occupied_.end(), low,
                               [](const Interval& x, uint64_t v) { return x.low < v; });
    occupied_.erase(it);
  }

  // Place the rest of point p's starters.
  Status fill(int32_t p) {
    const auto pp = static_cast<size_t>(p);
    // Lowest free offset and the free run there.
    uint64_t x = 0;
    uint64_t run_end = capacity_;
    bool free_found = false;
    for (const Interval& t : occupied_) {
      if (t.low > x) {
        run_end = t.low;
        free_found = true;
        break;
      }
      x = std::max(x, t.high);
    }
    if (!free_found) run_end = capacity_;
    bool any = false;
    for (int32_t i : starters_[pp]) any = any || !placed_[static_cast<size_t>(i)];
    if (!any) {
      // All placed: on to the next point, unless this state failed before.
      const uint64_t h = state_hash(p);
      if (failed_.count(h) != 0) return Status::kFail;
      const Status status = point(p + 1);
      if (status == Status::kFail && failed_.size() < kMaxMemo) failed_.insert(h);
      return status;
    }
    if (x >= capacity_) return Status::kFail;
    // Fillable at this point?
    taken_ = occupied_;
    const uint64_t slack = static_cast<uint64_t>(slack_[pp]) - empty_used_;
    if (forced_empty(taken_, p) > slack) return Status::kFail;
    // The item right below x, for the symmetry rule.
    int32_t below = -1;
    for (const Interval& t : occupied_) {
      if (t.high == x && t.item >= 0) below = t.item;
    }
    std::vector<int32_t> candidates;
    for (int32_t i : starters_[pp]) {
      const auto ii = static_cast<size_t>(i);
      if (placed_[ii]) continue;
      const Item& item = items_[ii];
      if (klass_members_[item.klass][klass_next_[item.klass]] != ii) continue;
      const uint64_t at = align_up(x, item.alignment);
      if (at + item.size > run_end) continue;
      if (at - x > slack) continue;
      if (hits_fixed(ii, at)) continue;
      if (at == x && below >= 0) {
        const Item& b = items_[static_cast<size_t>(below)];
        if (b.first_step == item.first_step && b.last_step == item.last_step &&
            b.alignment == item.alignment && below > i) {
          continue;
        }
      }
      candidates.push_back(i);
    }
    auto key = [&](int32_t i) -> std::pair<uint64_t, uint64_t> {
      const Item& item = items_[static_cast<size_t>(i)];
      const uint64_t noise = noise_[static_cast<size_t>(i)];
      switch (ordering_) {
        case 0: return {kNever - item.size, noise};
        case 1: return {kNever - static_cast<uint64_t>(item.last_step), kNever - item.size};
        case 2: return {static_cast<uint64_t>(item.last_step), kNever - item.size};
        default: return {noise, 0};
      }
    };
    std::sort(candidates.begin(), candidates.end(), [&](int32_t a, int32_t b) {
      const auto ka = key(a), kb = key(b);
      return ka != kb ? ka < kb : a < b;
    });
    for (int32_t i : candidates) {
      ++nodes_;
      if (out_of_budget()) return Status::kAbort;
      const auto ii = static_cast<size_t>(i);
      const Item& item = items_[ii];
      const uint64_t at = align_up(x, item.alignment);
      placed_[ii] = 1;
      offset_[ii] = at;
      ++klass_next_[item.klass];
      const uint64_t saved_empty = empty_used_;
      empty_used_ += at - x;
      insert({at, at + item.size, item.last_point, i});
      bool ok = true;
      for (int32_t q = p + 1; q <= item.last_point && ok; ++q) ok = future_ok(q, p, at + item.size);
      const Status status = ok ? fill(p) : Status::kFail;
      if (status == Status::kFound) return status;
      erase(at);
      empty_used_ = saved_empty;
      --klass_next_[item.klass];
      placed_[ii] = 0;
      if (status == Status::kAbort) return status;
    }
    // Leave the whole free run empty.
    if (run_end - x <= slack) {
      ++nodes_;
      if (out_of_budget()) return Status::kAbort;
      const uint64_t saved_empty = empty_used_;
      empty_used_ += run_end - x;
      insert({x, run_end, p, -2});
      const Status status = fill(p);
      if (status == Status::kFound) return status;
      erase(x);
      empty_used_ = saved_empty;
      return status;
    }
    return Status::kFail;
  }

  const Problem& problem_;
  uint64_t capacity_;
  Clock::time_point deadline_;
  bool feasible_ = true;
  uint64_t unit_ = 1;
  std::vector<Item> items_;
  std::vector<std::vector<int32_t>> starters_, live_;  // per point: items
  std::vector<std::vector<Interval>> fixed_live_, fixed_starting_, fixed_of_;
  std::vector<int64_t> slack_;
  std::vector<std::vector<size_t>> klass_members_;
  std::vector<size_t> klass_next_;
  std::vector<uint8_t> placed_;
  std::vector<uint64_t> offset_, noise_;
  std::vector<Interval> occupied_, taken_, blockers_;
  std::vector<std::pair<uint64_t, uint64_t>> gaps_;
  std::vector<uint64_t> sums_;
  std::unordered_set<uint64_t> failed_;
  uint64_t empty_used_ = 0;
  int32_t deepest_ = 0;
  int ordering_ = 0;
  uint64_t nodes_ = 0, node_limit_ = kNever, search_limit_ = kNever, since_clock_ = 0;
  bool aborted_ = false;
};

}  // namespace

SweepResult decide_sweep(const Problem& problem, uint64_t capacity, const SweepOptions& options,
                         Clock::time_point deadline) {
  return Sweep(problem, capacity, deadline).run(options);
}

}  // namespace mote::planner::internal
