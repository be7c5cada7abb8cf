// Exact placement: branch and bound over canonical placements.
//
// Canonical placements (as in MiniMalloc, Moffitt, ASPLOS 2023). Push every buffer of a plan
// down as far as it goes; the arena does not grow. In such a "compact" plan each buffer sits at
// the lowest offset that is free of the buffers below it, so listing the buffers by (offset,
// rank), for any fixed ranking of the buffers, and placing each at its lowest free offset
// rebuilds the plan exactly (buffers at one offset never live together, so the order among
// them does not matter). The search builds plans as such sequences: each step places one more
// buffer at its lowest free offset, after the previous one in (offset, rank) order. Every
// compact plan is reachable. The ranking is one of a few static orderings (before()), the
// same that orders the children of a node.
//
// The search answers "is there a plan whose arena is at most C?" (a decision search). For a
// partial sequence whose last buffer sits at offset L:
//  - a buffer still to place that fits in a hole entirely below L could never be placed (its
//    lowest free offset stays below L): the branch is dead; and placing a buffer at or above
//    where another one would end is never needed (that one would then be dead);
//  - every buffer still to place goes at or above its lowest free offset, above L, above the
//    placed buffer that crosses L at any of its time points (placed buffers never overlap, so
//    at most one crosses L at a time point), and, if it ranks before the last buffer placed,
//    strictly above L (at the next offset where anything can start). Its end must fit in C;
//  - at every time point, everything still to place there stacks above the lowest such floor
//    of the buffers live there, beside the fixed buffers: floor + remaining bytes + fixed bytes
//    between floor and C <= C. This is the live-bytes lower bound sharpened by the holes the
//    partial plan has left;
//  - identical buffers (same size, alignment and lifetime) are placed in index order, and of two
//    buffers with the same lifetime, a smaller one never sits right below a larger one (swapping
//    such a pair keeps the plan valid and lowers sum(size^2 * offset));
//  - a buffer that failed at its lowest offset while no buffer still to place lives with it
//    ends the node: every later child would fail too (alone());
//  - once no buffer still to place spans a time point boundary, the two sides are independent
//    problems: each is solved on its own (with its own canonical order), and a failure of one
//    fails the node without retrying the other (no thrashing between unrelated parts).
//
// Where every step is exactly full at the lower bound (a perfect packing), the exact algorithm
// first tries the guillotine decomposition (cuts.cc) there, with at most half of the nodes and
// of the time. A plan it finds is at the bound, so optimal.
//
// The exact algorithm runs such decision searches in rounds with doubling node limits and
// several orderings (restarts), first at the lower bound (where pruning is strongest, and
// a success proves optimality), then at targets climbing from halfway between the bounds
// towards the best plan known. A search that fails completely proves its capacity infeasible
// and raises the lower bound. Between the bound and the ladder, the best plan is repaired
// locally (see Repair) for as long as that lowers it. Everything is counted
// in nodes, so the outcome depends on the clock only when the deadline cuts it short.
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <set>
#include <utility>

#include "compiler/planner/algorithms.h"
#include "compiler/planner/lower_bound.h"

namespace mote::planner::internal {

namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
// Nodes between two looks at the clock, at most.
constexpr uint64_t kClockInterval = 256;
// Child orderings the restarts cycle through (see before()).
constexpr int kNumOrderings = 4;
// The guillotine decomposition at the bound (cuts_at): at most this many nodes per item (and
// kCutsMinNodes at least).
constexpr uint64_t kCutsNodesPerItem = 4096;
constexpr uint64_t kCutsMinNodes = 2000;
// Nodes one decision search may get at most.
constexpr uint64_t kMaxBudget = uint64_t{1} << 40;

struct Obstacle {
  uint64_t offset;
  uint64_t end;
};

class Search {
 public:
  Search(const Problem& problem, const PlanOptions& options, Clock::time_point deadline)
      : problem_(problem), deadline_(deadline) {
    node_limit_ = options.node_limit == 0 ? kNone : options.node_limit;
    prepare();
  }

  // One decision search (see Decide) for decide_exact().
  DecisionResult decide_once(uint64_t capacity, int ordering, uint64_t budget) {
    DecisionResult result;
    const Status status = Decide(capacity, ordering % kNumOrderings, budget);
    result.nodes = nodes_;
    result.infeasible = status == Status::kFail;
    if (status == Status::kFound) result.offsets = std::move(best_offsets_);
    return result;
  }

  ExactResult run(const std::vector<uint64_t>& seed) {
    ExactResult result;
    const uint64_t alignment = arena_alignment(problem_);
    uint64_t low = lower_bound(problem_).bytes;
    best_offsets_ = seed;
    best_arena_ = arena_bytes(problem_, seed);
    if (best_arena_ > low && cuts_at(low)) {
      result.offsets = best_offsets_;
      result.optimal = true;
      result.nodes = nodes_;
      return result;
    }
    // Round r gives each decision search base << r nodes. A round asks first for the lower
    // bound itself, then climbs a ladder of targets from halfway between the bounds towards the
    // best plan, stopping at the first success or proof (after which the next round starts
    // from the new bounds with the same budget). The ladder's decision searches never get more
    // nodes in all than those at the bound: where the bound is the optimum (as it mostly is),
    // that is where the plan and its proof are found (MiniMalloc's challenging benchmarks: six of
    // eleven proven optimal in 10 s, four with an unbounded ladder).
    uint64_t budget = std::max<uint64_t>(2000, 8 * items_.size());
    uint64_t bound_nodes = 0, ladder_nodes = 0;
    while (best_arena_ > low && !aborted_) {
      bool changed = false;
      uint64_t target = low;
      while (!aborted_ && best_arena_ > low && target < best_arena_) {
        // A decision search is deterministic: one that ran out of nodes would again.
        const bool tried = !undecided_.insert({target, budget}).second;
        const uint64_t nodes_before = nodes_;
        const Status status = tried ? Status::kAbort : decide_any_ordering(target, budget);
        (target == low ? bound_nodes : ladder_nodes) += nodes_ - nodes_before;
        if (status == Status::kFound) {
          changed = true;
          break;
        }
        if (status == Status::kFail) {
          low = target + alignment;  // proven: no plan fits in target
          changed = true;
          break;
        }
        // Undecided. After the bound itself, repair the best plan locally for as long as that
        // works: each success doubles the step below the best plan, a failure goes back to one
        // alignment step, and a failure there ends the repairs.
        if (target == low) {
          uint64_t step = alignment;
          while (!aborted_ && best_arena_ > low) {
            const uint64_t capacity = best_arena_ - std::min(step, best_arena_ - low);
            if (Repair(capacity, budget, ++repairs_) == Status::kFound) {
              changed = true;
              step *= 2;
            } else if (step > alignment) {
              step = alignment;
            } else {
              break;
            }
          }
          if (changed) break;
        }
        if (ladder_nodes >= bound_nodes) break;
        // Then aim higher: halfway between this target and the best plan.
        const uint64_t next = target + (best_arena_ - target) / alignment / 2 * alignment;
        target = next > target ? next : target + alignment;
      }
      if (!changed) budget = std::min(2 * budget, kMaxBudget);
    }
    result.offsets = best_offsets_;
    result.optimal = best_arena_ <= low;
    result.nodes = nodes_;
    return result;
  }

 private:
  enum class Status { kFound, kFail, kAbort };

  struct Item {
    size_t buffer;       // index in the problem
    uint64_t size;       // aligned
    uint64_t alignment;
    int32_t first_point, last_point;  // inclusive range of compressed time points
    int32_t steps;       // lifetime in steps
    size_t klass;        // identical items share a class
  };

  // A range of time points and the items living only there, solved on its own.
  struct Part {
    std::vector<size_t> items;
    int32_t first_point, last_point;
  };

  void prepare() {
    const auto& buffers = problem_.buffers;
    // Time points: the distinct first steps. The live set is largest at some buffer's first
    // step, and every step's live set is contained in that of the last time point before it.
    std::vector<int32_t> points;
    for (const Buffer& b : buffers) {
      if (aligned_size(b) > 0) points.push_back(b.first_step);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    auto point_index = [&](int32_t step) {  // the last time point at or before step
      return static_cast<int32_t>(std::upper_bound(points.begin(), points.end(), step) -
                                  points.begin()) - 1;
    };
    for (const Buffer& b : buffers) {
      if (!b.fixed_offset) continue;
      fixed_ends_.push_back(*b.fixed_offset + aligned_size(b));
    }
    std::sort(fixed_ends_.begin(), fixed_ends_.end());
    // Items in TFLM's greedy order (largest first), which is also ordering 0.
    for (size_t i : greedy_order(problem_)) {
      const Buffer& b = buffers[i];
      const uint64_t size = aligned_size(b);
      if (size == 0) continue;
      if (b.fixed_offset) {
        fixed_.push_back(i);
        continue;
      }
      items_.push_back({i, size, b.alignment, point_index(b.first_step), point_index(b.last_step),
                        b.last_step - b.first_step + 1, 0});
    }
    const size_t n = items_.size();
    // Classes of identical items, each listed by index.
    std::map<std::tuple<uint64_t, uint64_t, int32_t, int32_t>, size_t> klass_of;
    for (size_t i = 0; i < n; ++i) {
      const Item& a = items_[i];
      const Buffer& b = buffers[a.buffer];
      const auto [it, added] =
          klass_of.try_emplace({a.size, a.alignment, b.first_step, b.last_step}, klass_members_.size());
      if (added) klass_members_.emplace_back();
      klass_members_[it->second].push_back(i);
      items_[i].klass = it->second;
    }
    klass_next_.assign(klass_members_.size(), 0);
    // Conflicts: sweep the items by first step, so each meets only those that start before it
    // ends.
    neighbours_.assign(n, {});
    fixed_neighbours_.assign(n, {});
    std::vector<size_t> by_start(n);
    for (size_t i = 0; i < n; ++i) by_start[i] = i;
    std::stable_sort(by_start.begin(), by_start.end(), [&](size_t x, size_t y) {
      return buffers[items_[x].buffer].first_step < buffers[items_[y].buffer].first_step;
    });
    for (size_t k = 0; k < n; ++k) {
      const size_t i = by_start[k];
      const int32_t last = buffers[items_[i].buffer].last_step;
      for (size_t m = k + 1; m < n; ++m) {
        const size_t j = by_start[m];
        if (buffers[items_[j].buffer].first_step > last) break;
        neighbours_[i].push_back(j);
        neighbours_[j].push_back(i);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      std::sort(neighbours_[i].begin(), neighbours_[i].end());
      const Buffer& a = buffers[items_[i].buffer];
      for (size_t f : fixed_) {
        const Buffer& b = buffers[f];
        if (lifetimes_overlap(a, b)) {
          fixed_neighbours_[i].push_back({*b.fixed_offset, *b.fixed_offset + aligned_size(b)});
        }
      }
      std::sort(fixed_neighbours_[i].begin(), fixed_neighbours_[i].end(),
                [](const Obstacle& x, const Obstacle& y) { return x.offset < y.offset; });
    }
    // Items with the same lifetime and alignment (but another size).
    twins_.assign(n, {});
    for (size_t i = 0; i < n; ++i) {
      const Buffer& a = buffers[items_[i].buffer];
      for (size_t j : neighbours_[i]) {
        const Buffer& b = buffers[items_[j].buffer];
        if (a.first_step == b.first_step && a.last_step == b.last_step &&
            items_[i].alignment == items_[j].alignment && items_[i].size != items_[j].size) {
          twins_[i].push_back(j);
        }
      }
    }
    placed_.assign(n, false);
    offset_.assign(n, 0);
    lowest_.assign(n, 0);
    const size_t num_points = points.size();
    skyline_.assign(num_points, 0);
    fixed_at_point_.assign(num_points, {});
    for (size_t f : fixed_) {
      const Buffer& b = buffers[f];
      const int32_t first = static_cast<int32_t>(
          std::lower_bound(points.begin(), points.end(), b.first_step) - points.begin());
      for (int32_t p = first; p <= point_index(b.last_step); ++p) {
        fixed_at_point_[static_cast<size_t>(p)].push_back({*b.fixed_offset, *b.fixed_offset + aligned_size(b)});
      }
    }
    // Per time point, the fixed buffers by offset and the running total of their sizes, for
    // fixed_bytes(). Fixed buffers living together are apart (validate), unless a declared
    // overlap let two of them share bytes: then the plain sum over them is used.
    fixed_prefix_.assign(num_points, {});
    fixed_disjoint_ = true;
    for (size_t q = 0; q < num_points; ++q) {
      auto& at = fixed_at_point_[q];
      std::sort(at.begin(), at.end(), [](const Obstacle& x, const Obstacle& y) { return x.offset < y.offset; });
      fixed_prefix_[q].assign(at.size() + 1, 0);
      for (size_t k = 0; k < at.size(); ++k) {
        if (k > 0 && at[k - 1].end > at[k].offset) fixed_disjoint_ = false;
        fixed_prefix_[q][k + 1] = fixed_prefix_[q][k] + (at[k].end - at[k].offset);
      }
    }
    remaining_.assign(num_points, 0);
    floor_.assign(num_points, 0);
    spanning_.assign(num_points, 0);
    for (size_t i = 0; i < n; ++i) {
      const Item& item = items_[i];
      for (int32_t p = item.first_point; p <= item.last_point; ++p) {
        remaining_[static_cast<size_t>(p)] += item.size;
      }
      for (int32_t p = item.first_point; p < item.last_point; ++p) {
        ++spanning_[static_cast<size_t>(p)];
      }
      lowest_[i] = lowest_free(i, 0);
    }
    // Orderings for the restarts.
    total_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      for (int32_t p = items_[i].first_point; p <= items_[i].last_point; ++p) {
        total_[i] = std::max(total_[i], remaining_[static_cast<size_t>(p)]);
      }
    }
    rank_.assign(kNumOrderings, std::vector<uint32_t>(n));
    for (int h = 0; h < kNumOrderings; ++h) {
      std::vector<size_t> order(n);
      for (size_t i = 0; i < n; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return before(h, a, b); });
      for (size_t r = 0; r < n; ++r) rank_[h][order[r]] = static_cast<uint32_t>(r);
    }
  }

  // The orderings (MiniMalloc's static preorders, then the greedy one). An ordering ranks the
  // items; children at the same offset are tried by rank, and the rank also breaks ties in the
  // canonical (offset, rank) sequence. Keys, compared in turn, larger first:
  //   0 lifetime (W), area (A), most bytes live at one of its time points (T);
  //   1 T, A, W;   2 T, W, A;   3 size only (the greedy order, largest first).
  // Equal keys keep the greedy order.
  bool before(int h, size_t a, size_t b) const {
    const Item& x = items_[a];
    const Item& y = items_[b];
    auto key = [&](char k, const Item& item, size_t i) -> uint64_t {
      switch (k) {
        case 'W': return static_cast<uint64_t>(item.steps);
        case 'A': return item.size * static_cast<uint64_t>(item.steps);
        case 'T': return total_[i];
        default: return item.size;
      }
    };
    static constexpr const char* kKeys[kNumOrderings] = {"WAT", "TAW", "TWA", "Z"};
    for (const char* k = kKeys[h]; *k != 0; ++k) {
      const uint64_t kx = key(*k, x, a);
      const uint64_t ky = key(*k, y, b);
      if (kx != ky) return kx > ky;
    }
    return a < b;
  }

  // Lowest aligned offset >= from where item i misses every placed item and fixed buffer it
  // lives with.
  uint64_t lowest_free(size_t i, uint64_t from) {
    obstacles_.clear();
    for (size_t j : neighbours_[i]) {
      if (placed_[j] && offset_[j] + items_[j].size > from) {
        obstacles_.push_back({offset_[j], offset_[j] + items_[j].size});
      }
    }
    std::sort(obstacles_.begin(), obstacles_.end(),
              [](const Obstacle& x, const Obstacle& y) { return x.offset < y.offset; });
    const uint64_t size = items_[i].size;
    const uint64_t alignment = items_[i].alignment;
    uint64_t x = align_up(from, alignment);
    // The placed neighbours and the fixed ones (sorted once in prepare()), merged by offset.
    const std::vector<Obstacle>& fixed = fixed_neighbours_[i];
    size_t a = 0, b = 0;
    while (a < obstacles_.size() || b < fixed.size()) {
      const bool take_fixed =
          a == obstacles_.size() || (b < fixed.size() && fixed[b].offset < obstacles_[a].offset);
      const Obstacle& o = take_fixed ? fixed[b++] : obstacles_[a++];
      if (o.offset >= x + size) break;
      if (o.end > x) x = align_up(o.end, alignment);
    }
    return x;
  }

  // Bytes of the fixed buffers living at time point q that lie within [low, high).
  uint64_t fixed_bytes(size_t q, uint64_t low, uint64_t high) const {
    const std::vector<Obstacle>& at = fixed_at_point_[q];
    if (at.empty() || low >= high) return 0;
    if (!fixed_disjoint_) {
      uint64_t sum = 0;
      for (const Obstacle& o : at) {
        const uint64_t l = std::max(o.offset, low), h = std::min(o.end, high);
        if (l < h) sum += h - l;
      }
      return sum;
    }
    // Apart and sorted by offset, so sorted by end too.
    const size_t first = static_cast<size_t>(
        std::upper_bound(at.begin(), at.end(), low, [](uint64_t v, const Obstacle& o) { return v < o.end; }) -
        at.begin());
    const size_t last = static_cast<size_t>(
        std::lower_bound(at.begin(), at.end(), high, [](const Obstacle& o, uint64_t v) { return o.offset < v; }) -
        at.begin());
    if (first >= last) return 0;
    uint64_t sum = fixed_prefix_[q][last] - fixed_prefix_[q][first];
    if (at[first].offset < low) sum -= low - at[first].offset;
    if (at[last - 1].end > high) sum -= at[last - 1].end - high;
    return sum;
  }

  // The undo log.
  enum class Undo : uint8_t { kPlace, kSkyline, kLowest };
  struct Entry {
    Undo kind;
    size_t index;
    uint64_t value;
  };

  void place(size_t i) {
    const Item& item = items_[i];
    const uint64_t offset = lowest_[i];
    const uint64_t end = offset + item.size;
    undo_.push_back({Undo::kPlace, i, 0});
    placed_[i] = true;
    offset_[i] = offset;
    ++klass_next_[item.klass];
    for (int32_t p = item.first_point; p <= item.last_point; ++p) {
      const auto q = static_cast<size_t>(p);
      remaining_[q] -= item.size;
      if (skyline_[q] < end) {
        undo_.push_back({Undo::kSkyline, q, skyline_[q]});
        skyline_[q] = end;
      }
    }
    for (int32_t p = item.first_point; p < item.last_point; ++p) {
      --spanning_[static_cast<size_t>(p)];
    }
    for (size_t j : neighbours_[i]) {
      if (placed_[j]) continue;
      const uint64_t low = lowest_[j];
      if (low < end && offset < low + items_[j].size) {
        undo_.push_back({Undo::kLowest, j, low});
        lowest_[j] = lowest_free(j, low);
      }
    }
  }

  void undo_to(size_t mark) {
    while (undo_.size() > mark) {
      const Entry e = undo_.back();
      undo_.pop_back();
      switch (e.kind) {
        case Undo::kSkyline: skyline_[e.index] = e.value; break;
        case Undo::kLowest: lowest_[e.index] = e.value; break;
        case Undo::kPlace: {
          const Item& item = items_[e.index];
          for (int32_t p = item.first_point; p <= item.last_point; ++p) {
            remaining_[static_cast<size_t>(p)] += item.size;
          }
          for (int32_t p = item.first_point; p < item.last_point; ++p) {
            ++spanning_[static_cast<size_t>(p)];
          }
          placed_[e.index] = false;
          --klass_next_[item.klass];
          break;
        }
      }
    }
  }

  bool out_of_budget() {
    if (aborted_) return true;
    if (nodes_ >= node_limit_) {
      aborted_ = true;
      return true;
    }
    if (nodes_ >= search_node_limit_) return true;
    // The first node of a search looks too: preparing one may have taken a while. Nodes cost
    // from well under a microsecond to a millisecond (many neighbours to update), so the
    // interval adapts to keep about 0.2 ms between looks.
    if (++since_clock_ >= clock_interval_) {
      since_clock_ = 0;
      const Clock::time_point now = Clock::now();
      if (now >= deadline_) aborted_ = true;
      const auto gap = now - last_clock_;
      if (gap > std::chrono::microseconds(400) && clock_interval_ > 1) clock_interval_ /= 2;
      if (gap < std::chrono::microseconds(100) && clock_interval_ < kClockInterval) clock_interval_ *= 2;
      last_clock_ = now;
    }
    return aborted_;
  }

  // Large-neighbourhood repair of the best plan towards a smaller capacity: while some items
  // end above it, pick one, free every item living within a window of time points around it,
  // keep all others where they are (as fixed buffers), and run a decision search on the freed
  // items alone; on success the picked item and its neighbours all fit under the capacity and
  // nothing else moved. The window widens after failures. Returns kFound with a new best plan,
  // or kAbort once budget nodes are spent.
  Status Repair(uint64_t capacity, uint64_t budget, uint64_t seed) {
    std::vector<uint64_t> offsets = best_offsets_;
    const auto& buffers = problem_.buffers;
    const int32_t last_point = static_cast<int32_t>(skyline_.size()) - 1;
    uint64_t state = seed * 0x9e3779b97f4a7c15ULL + 1;
    auto random = [&state]() {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      return state;
    };
    uint64_t spent = 0;
    int32_t width = 1;
    std::vector<size_t> violators;
    while (spent < budget && !aborted_) {
      violators.clear();
      for (size_t i = 0; i < items_.size(); ++i) {
        if (offsets[items_[i].buffer] + items_[i].size > capacity) violators.push_back(i);
      }
      if (violators.empty()) {
        const uint64_t arena = arena_bytes(problem_, offsets);
        if (arena >= best_arena_) return Status::kAbort;  // fixed buffers stick out
        best_arena_ = arena;
        best_offsets_ = std::move(offsets);
        return Status::kFound;
      }
      const Item& picked = items_[violators[random() % violators.size()]];
      const int32_t from = std::max(0, picked.first_point - width);
      const int32_t to = std::min(last_point, picked.last_point + width);
      // The window's items become movable; everything living at the same time stays put.
      Problem sub;
      sub.num_steps = problem_.num_steps;
      std::vector<size_t> freed;  // problem buffer indices, in sub's order
      int32_t first_step = std::numeric_limits<int32_t>::max(), last_step = -1;
      for (const Item& item : items_) {
        if (item.last_point < from || item.first_point > to) continue;
        freed.push_back(item.buffer);
        first_step = std::min(first_step, buffers[item.buffer].first_step);
        last_step = std::max(last_step, buffers[item.buffer].last_step);
      }
      for (size_t b : freed) sub.buffers.push_back(Unnamed(buffers[b]));
      for (size_t b = 0; b < buffers.size(); ++b) {
        const Buffer& other = buffers[b];
        if (aligned_size(other) == 0 || other.last_step < first_step || other.first_step > last_step) continue;
        if (std::find(freed.begin(), freed.end(), b) != freed.end()) continue;
        Buffer pinned = Unnamed(other);
        pinned.fixed_offset = offsets[b];
        sub.buffers.push_back(pinned);
      }
      PlanOptions sub_options;
      if (node_limit_ != kNone) {
        if (nodes_ >= node_limit_) {
          aborted_ = true;
          break;
        }
        sub_options.node_limit = node_limit_ - nodes_;
      }
      Search search(sub, sub_options, deadline_);
      const Status status = search.Decide(capacity, static_cast<int>(random() % kNumOrderings),
                                          std::max<uint64_t>(200, (budget - spent) / 8));
      spent += search.nodes_;
      nodes_ += search.nodes_;
      aborted_ = aborted_ || search.aborted_;
      if (status == Status::kFound) {
        for (size_t k = 0; k < freed.size(); ++k) offsets[freed[k]] = search.best_offsets_[k];
        width = 1;
      } else {
        width = std::min(2 * width, last_point + 1);
      }
    }
    return Status::kAbort;
  }

  static Buffer Unnamed(const Buffer& b) {
    Buffer copy;
    copy.size = b.size;
    copy.alignment = b.alignment;
    copy.first_step = b.first_step;
    copy.last_step = b.last_step;
    copy.fixed_offset = b.fixed_offset;
    return copy;
  }

  // The guillotine decomposition (decide_cuts) at the lower bound, where every step is full
  // there (it gives up at once otherwise), with at most half of the nodes and of the time left.
  // True if it found a plan of that size.
  bool cuts_at(uint64_t capacity) {
    uint64_t budget = std::max<uint64_t>(kCutsMinNodes, kCutsNodesPerItem * items_.size());
    if (node_limit_ != kNone) budget = std::min(budget, (node_limit_ - std::min(nodes_, node_limit_)) / 2);
    if (budget == 0) return false;
    const Clock::time_point now = Clock::now();
    if (now >= deadline_) return false;
    CutsOptions options;
    options.node_limit = budget;
    CutsResult cut = decide_cuts(problem_, capacity, options, now + (deadline_ - now) / 2);
    nodes_ += cut.nodes;
    if (nodes_ >= node_limit_) aborted_ = true;
    if (!cut.offsets || arena_bytes(problem_, *cut.offsets) > capacity) return false;
    best_arena_ = arena_bytes(problem_, *cut.offsets);
    best_offsets_ = std::move(*cut.offsets);
    return true;
  }

  // Decide with each ordering in turn until one of them finds a plan or proves there is none.
  Status decide_any_ordering(uint64_t capacity, uint64_t budget) {
    for (int ordering = 0; ordering < kNumOrderings && !aborted_; ++ordering) {
      const Status status = Decide(capacity, ordering, budget);
      if (status != Status::kAbort) return status;
    }
    return Status::kAbort;
  }

  // Is there a plan whose arena is at most capacity? On success it becomes the best plan.
  Status Decide(uint64_t capacity, int ordering, uint64_t budget) {
    capacity_ = capacity;
    ordering_ = ordering;
    search_node_limit_ = nodes_ + budget;
    Part all;
    for (size_t i = 0; i < items_.size(); ++i) all.items.push_back(i);
    all.first_point = 0;
    all.last_point = static_cast<int32_t>(skyline_.size()) - 1;
    const Status status = solve_parts(all);
    if (status == Status::kFound) {
      std::vector<uint64_t> offsets(problem_.buffers.size(), 0);
      for (size_t i = 0; i < problem_.buffers.size(); ++i) {
        if (problem_.buffers[i].fixed_offset) offsets[i] = *problem_.buffers[i].fixed_offset;
      }
      for (size_t i = 0; i < items_.size(); ++i) offsets[items_[i].buffer] = offset_[i];
      const uint64_t arena = arena_bytes(problem_, offsets);
      if (arena < best_arena_) {
        best_arena_ = arena;
        best_offsets_ = std::move(offsets);
      }
    }
    undo_to(0);
    return status;
  }

  // Splits the unplaced items of part where no unplaced item spans a time point boundary and
  // solves each piece on its own.
  Status solve_parts(const Part& part) {
    std::vector<Part> pieces;
    int32_t start = part.first_point;
    for (int32_t p = part.first_point; p <= part.last_point; ++p) {
      if (p == part.last_point || spanning_[static_cast<size_t>(p)] == 0) {
        pieces.push_back({{}, start, p});
        start = p + 1;
      }
    }
    for (size_t i : part.items) {
      if (placed_[i]) continue;
      // Pieces are sorted; find the one holding the item's first point.
      auto it = std::upper_bound(pieces.begin(), pieces.end(), items_[i].first_point,
                                 [](int32_t p, const Part& piece) { return p < piece.first_point; });
      (it - 1)->items.push_back(i);
    }
    for (Part& piece : pieces) {
      if (piece.items.empty()) continue;
      const uint64_t saved_level = level_;
      const int64_t saved_cursor = cursor_;
      level_ = 0;
      cursor_ = -1;
      const Status status = dive(piece);
      level_ = saved_level;
      cursor_ = saved_cursor;
      if (status != Status::kFound) return status;
    }
    return Status::kFound;
  }

  // Would item i at offset sit right on top of a smaller placed item with the same lifetime and
  // alignment? Swapping the two keeps the plan valid (everything living with one lives with the
  // other) and lowers sum(size^2 * offset), as does pushing any buffer down; so among the plans
  // that fit, a compact one without such a pair exists, and the search only builds those.
  bool on_smaller_twin(size_t i, uint64_t offset) const {
    for (size_t j : twins_[i]) {
      if (placed_[j] && offset_[j] + items_[j].size == offset && items_[j].size < items_[i].size) {
        return true;
      }
    }
    return false;
  }

  // Does item i live with no unplaced item? Then where it goes matters to nobody still to
  // place ("hatless" in MiniMalloc's terms). If a later child Y (in (offset, rank) order) led
  // to a plan, moving i in that plan down to its present lowest offset would keep it valid (all
  // of i's neighbours are placed below, and no one still to place meets it), and the plan's
  // sequence with i first, then Y and the rest as before, is one this search builds from here
  // with i as the child. So once i has failed, every later child would fail as well.
  bool alone(size_t i) const {
    for (size_t j : neighbours_[i]) {
      if (!placed_[j]) return false;
    }
    return true;
  }

  // One node of the search within part. On kFound the placements stay (the caller records
  // them); otherwise everything placed here has been undone.
  Status dive(const Part& part) {
    ++nodes_;
    if (out_of_budget()) return Status::kAbort;
    const uint64_t level = level_;
    const int64_t cursor = cursor_;
    const uint64_t capacity = capacity_;
    const std::vector<uint32_t>& rank = rank_[static_cast<size_t>(ordering_)];
    // The unplaced items, the smallest of them, and the lowest end among them.
    uint64_t smallest = kNone;
    uint64_t lowest_end = kNone;
    bool any = false;
    for (size_t i : part.items) {
      if (placed_[i]) continue;
      any = true;
      const uint64_t end = lowest_[i] + items_[i].size;
      if (end <= level) return Status::kFail;  // fits in a hole below the level: dead
      smallest = std::min(smallest, items_[i].size);
      lowest_end = std::min(lowest_end, end);
    }
    if (!any) return Status::kFound;
    // The next offset above the level where anything can start: an end that crosses the level
    // (a skyline value or a fixed buffer's end), or the level plus the smallest item left.
    uint64_t next_level = level + smallest;
    for (int32_t p = part.first_point; p <= part.last_point; ++p) {
      const uint64_t s = skyline_[static_cast<size_t>(p)];
      if (s > level) next_level = std::min(next_level, s);
    }
    auto above = std::upper_bound(fixed_ends_.begin(), fixed_ends_.end(), level);
    if (above != fixed_ends_.end()) next_level = std::min(next_level, *above);
    // Floors: each unplaced item's lowest possible offset; per time point the lowest of those.
    for (int32_t p = part.first_point; p <= part.last_point; ++p) {
      floor_[static_cast<size_t>(p)] = kNone;
    }
    for (size_t i : part.items) {
      if (placed_[i]) continue;
      const Item& item = items_[i];
      uint64_t low = std::max(lowest_[i], rank[i] <= cursor ? next_level : level);
      for (int32_t p = item.first_point; p <= item.last_point; ++p) {
        low = std::max(low, skyline_[static_cast<size_t>(p)]);
      }
      low = align_up(low, item.alignment);
      if (low + item.size > capacity) return Status::kFail;
      for (int32_t p = item.first_point; p <= item.last_point; ++p) {
        uint64_t& f = floor_[static_cast<size_t>(p)];
        f = std::min(f, low);
      }
    }
    for (int32_t p = part.first_point; p <= part.last_point; ++p) {
      const auto q = static_cast<size_t>(p);
      if (remaining_[q] == 0) continue;
      uint64_t needed = floor_[q] + remaining_[q];
      // Fixed buffers between the floor and the capacity take room there too.
      needed += fixed_bytes(q, floor_[q], capacity);
      if (needed > capacity) return Status::kFail;
    }
    // Children: the first unplaced item of each class that comes after the last placed one in
    // (offset, rank) order, and that does not start at or above another item's end.
    std::vector<size_t> children;
    for (size_t i : part.items) {
      if (placed_[i]) continue;
      const Item& item = items_[i];
      if (klass_members_[item.klass][klass_next_[item.klass]] != i) continue;
      const uint64_t low = lowest_[i];
      if (low < level || (low == level && rank[i] <= cursor)) continue;
      if (low >= lowest_end || low + item.size > capacity) continue;
      if (on_smaller_twin(i, low)) continue;
      children.push_back(i);
    }
    std::sort(children.begin(), children.end(), [&](size_t a, size_t b) {
      if (lowest_[a] != lowest_[b]) return lowest_[a] < lowest_[b];
      return rank[a] < rank[b];
    });
    for (size_t i : children) {
      const Item& item = items_[i];
      const size_t mark = undo_.size();
      level_ = lowest_[i];
      cursor_ = rank[i];
      place(i);
      // Did placing it leave no unplaced item spanning some boundary inside the part?
      bool split = false;
      for (int32_t p = std::max(item.first_point, part.first_point);
           p < std::min(item.last_point, part.last_point); ++p) {
        if (spanning_[static_cast<size_t>(p)] == 0) split = true;
      }
      const Status status = split ? solve_parts(part) : dive(part);
      level_ = level;
      cursor_ = cursor;
      if (status == Status::kFound) return status;
      undo_to(mark);
      if (status == Status::kAbort) return status;
      // An item that lives with no unplaced item failed at its lowest offset: any later child
      // fails too (see alone()).
      if (alone(i)) break;
    }
    return Status::kFail;
  }

  const Problem& problem_;
  Clock::time_point deadline_;

  std::vector<Item> items_;
  std::vector<size_t> fixed_;
  std::vector<uint64_t> fixed_ends_;  // sorted
  std::vector<std::vector<size_t>> klass_members_;
  std::vector<size_t> klass_next_;
  std::vector<std::vector<size_t>> neighbours_;
  std::vector<std::vector<Obstacle>> fixed_neighbours_;
  std::vector<std::vector<size_t>> twins_;
  std::vector<std::vector<Obstacle>> fixed_at_point_;  // per time point, by offset
  std::vector<std::vector<uint64_t>> fixed_prefix_;    // per time point: running size totals
  bool fixed_disjoint_ = true;
  std::vector<uint64_t> total_;              // per item: most bytes live at one of its points
  std::vector<std::vector<uint32_t>> rank_;  // per ordering, per item
  std::vector<Obstacle> obstacles_;          // LowestFree's scratch

  // Search state.
  std::vector<uint8_t> placed_;
  std::vector<uint64_t> offset_;
  std::vector<uint64_t> lowest_;     // lowest free offset of each unplaced item
  std::vector<uint64_t> skyline_;    // per time point: highest end of a placed item live there
  std::vector<uint64_t> remaining_;  // per time point: aligned bytes still to place
  std::vector<uint64_t> floor_;      // per time point: scratch for Dive
  std::vector<uint32_t> spanning_;   // per time point p: unplaced items living at p and p + 1
  std::vector<Entry> undo_;
  uint64_t level_ = 0;   // offset of the last item placed in the current part
  int64_t cursor_ = -1;  // its rank in the current ordering

  uint64_t capacity_ = kNone;
  int ordering_ = 0;
  bool aborted_ = false;  // the deadline or the caller's node limit has passed
  uint64_t nodes_ = 0;
  uint64_t clock_interval_ = 1;           // nodes between looks at the clock
  uint64_t since_clock_ = kClockInterval;  // nodes since the last look
  Clock::time_point last_clock_ = Clock::now();
  uint64_t node_limit_ = kNone;
  uint64_t search_node_limit_ = kNone;

  std::vector<uint64_t> best_offsets_;
  uint64_t best_arena_ = kNone;
  std::set<std::pair<uint64_t, uint64_t>> undecided_;  // (capacity, budget) tried in vain
  uint64_t repairs_ = 0;
};

}  // namespace

DecisionResult decide_exact(const Problem& problem, uint64_t capacity, int ordering,
                            uint64_t node_budget, Clock::time_point deadline) {
  Search search(problem, PlanOptions{.time_limit_ms = 0, .node_limit = node_budget}, deadline);
  return search.decide_once(capacity, ordering, node_budget);
}

ExactResult place_exact(const Problem& problem, const std::vector<uint64_t>* seed,
                        const PlanOptions& options, Clock::time_point deadline) {
  if (!problem.overlaps.empty()) {
    // The search knows only buffers apart: it searches the problem without its overlaps (whose
    // plans all hold here too) and keeps the seed (which may overlap) when that is smaller. Its
    // proofs are about plans without overlaps, so it claims none.
    const Problem plain = without_overlaps(problem);
    ExactResult result = place_exact(plain, nullptr, options, deadline);
    result.optimal = false;
    if (seed != nullptr && arena_bytes(problem, *seed) <= arena_bytes(problem, result.offsets)) {
      result.offsets = *seed;
    }
    return result;
  }
  std::vector<uint64_t> start;
  if (seed != nullptr) {
    start = *seed;
  } else {
    // Without a seed, start from the better greedy plan.
    start = place_first_fit(problem);
    std::vector<uint64_t> other = place_best_fit(problem);
    if (arena_bytes(problem, other) < arena_bytes(problem, start)) start = std::move(other);
  }
  Search search(problem, options, deadline);
  return search.run(start);
}

}  // namespace mote::planner::internal
