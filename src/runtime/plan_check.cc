// The plan check (plan_check.h): every arena buffer is a rectangle, bytes [offset, end) by steps
// [first, last]. With a workspace, the buffers are copied there once (four words each), sorted by
// (offset, group) and swept in that order; a segment tree over the steps keeps, per step, the
// highest end of the buffers swept so far, so a buffer overlaps an earlier one exactly when the
// highest end over its steps lies above its offset. Only such a buffer is looked at again: the
// buffers it meets are among those that start below its end (a prefix of the sorted ones), and
// each must be a declared overlap, judged in closed form from its operator's parameters.

#include "runtime/plan_check.h"

#include "mote/kernels/overlap.h"
#include "runtime/internal.h"
#include "runtime/ops/registry.h"
#include "runtime/stages.h"

namespace mote {
namespace runtime {
namespace internal {
namespace {

using schema::Location;
using Where = LoadDiagnostic::Where;

static_assert(load_workspace_words(kMaxTensors, kMaxOperators) ==
                  plan_check_words(kMaxTensors + kMaxOperators, kMaxOperators),
              "Program::load's workspace bound is the plan check's for every buffer");
// Steps, tensor and buffer indices fit the 16-bit halves of an entry's words.
static_assert(kMaxOperators <= 0x10000 && kMaxTensors + kMaxOperators <= 0x10000, "");

bool lifetimes_overlap(const schema::Tensor& a, const schema::Tensor& b) {
  return a.first_step() <= b.last_step() && b.first_step() <= a.last_step();
}

int32_t alias_root(const schema::Program& p, int32_t index) {
  const int32_t alias = p.tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))->alias();
  return alias < 0 ? index : alias;
}

// Whether the kind's kernel may write its output over an input that starts at the same address
// (its registration says; every other kernel reads its inputs after it has started writing, some
// with memcpy, so they must not share a byte). Only kinds built in get this far.
bool runs_in_place(schema::OpKind kind) {
  const OpRegistration* op = built_in_op(kind);
  return op != nullptr && op->runs_in_place;
}

// One arena buffer in the workspace. Buffers are numbered: tensor t is t, operator i's scratch
// is num_tensors + i; a tensor's group is its alias root, a scratch region's its own number.
struct Entry {
  uint32_t offset;
  uint32_t end;    // offset + size (inside the arena: check_tensors, check_operators)
  uint32_t steps;  // first << 16 | last
  uint32_t tag;    // group << 16 | number: the sort order after the offset
  uint32_t first() const { return steps >> 16; }
  uint32_t last() const { return steps & 0xFFFF; }
  uint32_t group() const { return tag >> 16; }
  uint32_t id() const { return tag & 0xFFFF; }
};
static_assert(sizeof(Entry) == 4 * sizeof(uint32_t), "four words per buffer");

bool before(const Entry& a, const Entry& b) {
  return a.offset != b.offset ? a.offset < b.offset : a.tag < b.tag;
}

// Heapsort: in place, no recursion, O(n log n) in the worst case.
void sift_down(Entry* e, size_t root, size_t n) {
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && before(e[child], e[child + 1])) ++child;
    if (!before(e[root], e[child])) return;
    const Entry swap = e[root];
    e[root] = e[child];
    e[child] = swap;
    root = child;
  }
}
void sort_entries(Entry* e, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift_down(e, i, n);
  for (size_t end = n; end > 1; --end) {
    const Entry swap = e[0];
    e[0] = e[end - 1];
    e[end - 1] = swap;
    sift_down(e, 0, end - 1);
  }
}

bool entries_overlap(const Entry& a, const Entry& b) {
  return a.group() != b.group() && a.offset < b.end && b.offset < a.end &&
         a.first() <= b.last() && b.first() <= a.last();
}

// Range "raise to at least v" and range maximum over steps [0, size), bottom up (tags on inner
// nodes pushed down before a query): O(log steps) per call, 3 * size words. Up to kFlatSteps
// steps, a plain array of each step's maximum instead: at most that many words per call, and
// cheaper than the tree's walks for the few steps most buffers live.
class StepTree {
 public:
  static constexpr uint32_t kFlatSteps = 64;
  StepTree(uint32_t* words, uint32_t size) : t_(words), d_(words + 2 * size), n_(size) {
    for (uint32_t i = 0; i < 3 * size; ++i) words[i] = 0;
    while ((1u << h_) < n_) ++h_;
    ++h_;
  }
  void raise(uint32_t l, uint32_t r, uint32_t v) {  // [l, r)
    if (n_ <= kFlatSteps) {
      for (; l < r; ++l) t_[l] = larger(t_[l], v);
      return;
    }
    l += n_;
    r += n_;
    const uint32_t l0 = l, r0 = r;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) apply(l++, v);
      if (r & 1) apply(--r, v);
    }
    build(l0);
    build(r0 - 1);
  }
  uint32_t max(uint32_t l, uint32_t r) {  // [l, r)
    if (n_ <= kFlatSteps) {
      uint32_t best = 0;
      for (; l < r; ++l) best = larger(best, t_[l]);
      return best;
    }
    l += n_;
    r += n_;
    push(l);
    push(r - 1);
    uint32_t best = 0;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) best = larger(best, t_[l++]);
      if (r & 1) best = larger(best, t_[--r]);
    }
    return best;
  }

 private:
  static uint32_t larger(uint32_t a, uint32_t b) { return a > b ? a : b; }
  void apply(uint32_t p, uint32_t v) {
    t_[p] = larger(t_[p], v);
    if (p < n_) d_[p] = larger(d_[p], v);
  }
  void build(uint32_t p) {
    while (p > 1) {
      p >>= 1;
      t_[p] = larger(larger(t_[2 * p], t_[2 * p + 1]), d_[p]);
    }
  }
  void push(uint32_t p) {
    for (uint32_t s = h_; s > 0; --s) {
      const uint32_t i = p >> s;
      if (i == 0 || d_[i] == 0) continue;
      apply(2 * i, d_[i]);
      apply(2 * i + 1, d_[i]);
      d_[i] = 0;
    }
  }

  uint32_t* t_;  // 2 * n_: node maxima
  uint32_t* d_;  // n_: pending raises of inner nodes
  uint32_t n_;
  uint32_t h_ = 0;
};

class PlanCheck {
 public:
  PlanCheck(const schema::Program& p, LoadDiagnostic* diagnostic)
      : p_(p), diagnostic_(diagnostic), num_tensors_(p.tensors()->size()) {}

  // Tensor pairs first, then the in-place rule, then scratch regions, so a program with several
  // defects gets the same verdict whichever way the overlaps are found.
  Error run(uint32_t* workspace, size_t workspace_words) {
    const uint32_t num_ops = p_.operators()->size();
    size_t n = 0;
    for (uint32_t id = 0; id < num_tensors_ + num_ops; ++id) n += entry(id).end != 0 ? 1 : 0;
    if (workspace == nullptr || workspace_words < plan_check_words(n, num_ops)) {
      MOTE_TRY(pairwise_tensor_overlaps());
      MOTE_TRY(check_in_place());
      return pairwise_scratch_overlaps();
    }
    entries_ = reinterpret_cast<Entry*>(workspace);
    n_ = 0;
    bool any_scratch = false;
    for (uint32_t id = 0; id < num_tensors_ + num_ops; ++id) {
      const Entry e = entry(id);
      if (e.end == 0) continue;
      entries_[n_++] = e;
      any_scratch |= id >= num_tensors_;
    }
    sort_entries(entries_, n_);
    uint32_t* tree = workspace + 4 * n_;
    MOTE_TRY(sweep(tree, /*with_scratch=*/false));
    MOTE_TRY(check_in_place());
    // Without scratch regions the second sweep would be the first.
    return any_scratch ? sweep(tree, /*with_scratch=*/true) : Error::kOk;
  }

 private:
  Error fail_at(Where where, uint32_t index, const char* reason) {
    return fail(diagnostic_, Error::kInvalidPlan, where, index, reason);
  }
  Error tensor_overlap_error(uint32_t index) {
    return fail_at(Where::kTensor, index, "shares bytes with a tensor live at the same time");
  }
  Error scratch_overlap_error(uint32_t op) {
    return fail_at(Where::kOperator, op, "scratch region shares bytes with a live tensor");
  }

  // Buffer `id` as an entry; end 0 for one outside the check (not in the arena, or empty).
  Entry entry(uint32_t id) const {
    if (id < num_tensors_) {
      const schema::Tensor& t = *p_.tensors()->Get(id);
      if (t.location() != Location::Arena || t.size() == 0) return {};
      const uint32_t group = static_cast<uint32_t>(alias_root(p_, static_cast<int32_t>(id)));
      return {t.offset(), t.offset() + t.size(), t.first_step() << 16 | t.last_step(),
              group << 16 | id};
    }
    const uint32_t op = id - num_tensors_;
    const schema::Region* scratch = p_.operators()->Get(op)->scratch();
    if (scratch == nullptr || scratch->size() == 0) return {};
    return {scratch->offset(), scratch->offset() + scratch->size(), op << 16 | op, id << 16 | id};
  }

  // With scratch, every buffer takes part; tensor pairs are clean by then, so an overlap found
  // involves a scratch region.
  Error sweep(uint32_t* tree_words, bool with_scratch) {
    const uint32_t num_ops = p_.operators()->size();
    StepTree tree(tree_words, num_ops > 0 ? num_ops : 1);
    const auto takes_part = [&](const Entry& e) { return with_scratch || e.id() < num_tensors_; };
    for (size_t begin = 0; begin < n_;) {
      // A group (aliases of one tensor, all at one offset) is queried before any of it is
      // added, so its members never meet each other.
      size_t end = begin + 1;
      while (end < n_ && entries_[end].offset == entries_[begin].offset &&
             entries_[end].group() == entries_[begin].group()) {
        ++end;
      }
      for (size_t k = begin; k < end; ++k) {
        const Entry& e = entries_[k];
        if (!takes_part(e) || tree.max(e.first(), e.last() + 1) <= e.offset) continue;
        if (!only_declared_overlaps(e, begin, with_scratch)) return overlap_error(e, with_scratch);
      }
      for (size_t k = begin; k < end; ++k) {
        const Entry& e = entries_[k];
        if (takes_part(e)) tree.raise(e.first(), e.last() + 1, e.end);
      }
      begin = end;
    }
    return Error::kOk;
  }

  // The sweep found that `e` overlaps an earlier buffer: fine if every buffer it overlaps is a
  // declared overlap. Only those before its group (`added`, in the tree already) are looked at:
  // a later buffer that overlaps `e` finds `e` in the tree when its own turn comes.
  bool only_declared_overlaps(const Entry& e, size_t added, bool with_scratch) const {
    if (e.id() >= num_tensors_) return false;
    for (size_t k = 0; k < added; ++k) {
      const Entry& other = entries_[k];
      if (other.id() >= num_tensors_ && !with_scratch) continue;
      if (other.id() == e.id() || !entries_overlap(e, other)) continue;
      if (other.id() >= num_tensors_) return false;
      // The sweep without scratch judged every pair of tensors already (and found each declared):
      // the one with scratch only looks for scratch regions.
      if (!with_scratch && !declared_overlap(e.id(), other.id())) return false;
    }
    return true;
  }

  // The sweep knows that `e` overlaps a buffer it may not; the lowest-numbered such buffer
  // names the message.
  Error overlap_error(const Entry& e, bool with_scratch) {
    const uint32_t id = e.id();
    uint32_t lowest = UINT32_MAX;
    for (size_t k = 0; k < n_ && entries_[k].offset < e.end; ++k) {
      const Entry& o = entries_[k];
      if (o.id() >= num_tensors_ && !with_scratch) continue;
      if (o.id() == id || o.id() >= lowest || !entries_overlap(e, o)) continue;
      if (o.id() < num_tensors_ && id < num_tensors_ && declared_overlap(id, o.id())) continue;
      lowest = o.id();
    }
    const uint32_t other = lowest != UINT32_MAX ? lowest : id;
    if (id >= num_tensors_) return scratch_overlap_error(id - num_tensors_);
    if (other >= num_tensors_ && other != id) return scratch_overlap_error(other - num_tensors_);
    return tensor_overlap_error(id > other ? id : other);
  }

  // Tensors `a` and `b` share bytes at a common step: allowed only where one is the output of
  // the operator at which the other (an input of it) dies, and that operator's kernel (the one
  // built into this library) allows its output there (OpRegistration::overlap).
  // Judged on the alias roots: they carry the buffer's lifetime, and an operator's output is a
  // root (a RESHAPE of it is an alias that shares its bytes with whatever the root shares).
  bool declared_overlap(uint32_t a, uint32_t b) const {
    const uint32_t ra = static_cast<uint32_t>(alias_root(p_, static_cast<int32_t>(a)));
    const uint32_t rb = static_cast<uint32_t>(alias_root(p_, static_cast<int32_t>(b)));
    return ra != rb && (output_may_overlap(ra, rb) || output_may_overlap(rb, ra));
  }
  bool output_may_overlap(uint32_t out, uint32_t in) const {
    const schema::Tensor& to = *p_.tensors()->Get(out);
    const schema::Tensor& ti = *p_.tensors()->Get(in);
    const uint32_t step = to.first_step();
    if (to.alias() != -1 || ti.last_step() != step || step >= p_.operators()->size()) return false;
    if (to.state() || ti.state()) return false;  // a state shares its bytes with nothing
    const schema::Operator& op = *p_.operators()->Get(step);
    if (op.outputs()->size() != 1 || op.outputs()->Get(0) != static_cast<int32_t>(out)) {
      return false;
    }
    // In a stage only its output over its input from outside, whose offsets check_stage held
    // to the stage's own rule; `in` is a root, the stage may read an alias of it (a RESHAPE's).
    if (const schema::Stage* stage = stage_holding(p_, step)) {
      if (step != stage->last()) return false;
      const int32_t outside = stage_outside_tensor(p_, *stage);
      return outside == static_cast<int32_t>(in) ||
             (outside >= 0 && alias_root(p_, outside) == static_cast<int32_t>(in));
    }
    const OpRegistration* registration = built_in_op(op.kind());
    if (registration == nullptr || registration->overlap == nullptr) return false;
    // Every input slot holding those bytes must allow it.
    const int32_t root = alias_root(p_, static_cast<int32_t>(in));
    bool found = false;
    for (uint32_t k = 0; k < op.inputs()->size(); ++k) {
      const int32_t t = op.inputs()->Get(k);
      if (t < 0 || alias_root(p_, t) != root) continue;
      const kernels::OverlapRule rule = registration->overlap(p_, op, k);
      const uint32_t input_offset = p_.tensors()->Get(static_cast<uint32_t>(t))->offset();
      if (!kernels::overlap_allows(rule, to.offset(), input_offset)) return false;
      found = true;
    }
    return found;
  }

  // The overlap rule above lets aliases share bytes; an operator may only read and write the
  // same bytes when its kernel runs in place, from the same start, and (elementwise kinds)
  // over an input as large as the output, never a broadcast one.
  Error check_in_place() {
    const auto& tensors = *p_.tensors();
    for (uint32_t i = 0; i < p_.operators()->size(); ++i) {
      const schema::Operator& op = *p_.operators()->Get(i);
      for (const int32_t o : *op.outputs()) {
        const schema::Tensor& out = *tensors.Get(static_cast<uint32_t>(o));
        for (const int32_t t : *op.inputs()) {
          if (t < 0) continue;
          const schema::Tensor& in = *tensors.Get(static_cast<uint32_t>(t));
          if (in.location() != Location::Arena || alias_root(p_, t) != alias_root(p_, o)) continue;
          if (!ranges_overlap(in.offset(), in.size(), out.offset(), out.size())) continue;
          const bool elementwise = op.kind() != schema::OpKind::Reshape &&
                                   op.kind() != schema::OpKind::Quantize &&
                                   op.kind() != schema::OpKind::Dequantize;
          const bool in_place =
              runs_in_place(op.kind()) && in.offset() == out.offset() &&
              (!elementwise || element_count(in) == element_count(out));
          if (!in_place) {
            return fail_at(Where::kOperator, i,
                           "output shares bytes with an input but the kernel cannot run in place");
          }
        }
      }
    }
    return Error::kOk;
  }

  // O(n^2) in arena tensors; no memory needed.
  Error pairwise_tensor_overlaps() {
    const auto& tensors = *p_.tensors();
    for (uint32_t a = 0; a < num_tensors_; ++a) {
      const schema::Tensor& ta = *tensors.Get(a);
      if (ta.location() != Location::Arena) continue;
      const int32_t root_a = alias_root(p_, static_cast<int32_t>(a));
      for (uint32_t b = a + 1; b < num_tensors_; ++b) {
        const schema::Tensor& tb = *tensors.Get(b);
        if (tb.location() != Location::Arena) continue;
        if (!lifetimes_overlap(ta, tb)) continue;
        if (!ranges_overlap(ta.offset(), ta.size(), tb.offset(), tb.size())) continue;
        if (alias_root(p_, static_cast<int32_t>(b)) == root_a) continue;
        if (declared_overlap(a, b)) continue;
        return tensor_overlap_error(b);
      }
    }
    return Error::kOk;
  }

  // O(operators * tensors); no memory needed.
  Error pairwise_scratch_overlaps() {
    const auto& tensors = *p_.tensors();
    for (uint32_t i = 0; i < p_.operators()->size(); ++i) {
      const schema::Region* scratch = p_.operators()->Get(i)->scratch();
      if (scratch == nullptr || scratch->size() == 0) continue;
      for (uint32_t t = 0; t < num_tensors_; ++t) {
        const schema::Tensor& tensor = *tensors.Get(t);
        if (tensor.location() != Location::Arena) continue;
        if (tensor.first_step() > i || tensor.last_step() < i) continue;
        if (ranges_overlap(scratch->offset(), scratch->size(), tensor.offset(), tensor.size())) {
          return scratch_overlap_error(i);
        }
      }
    }
    return Error::kOk;
  }

  const schema::Program& p_;
  LoadDiagnostic* diagnostic_;
  const uint32_t num_tensors_;
  Entry* entries_ = nullptr;
  size_t n_ = 0;
};

}  // namespace

Error check_plan(const schema::Program& program, uint32_t* workspace, size_t workspace_words,
                 LoadDiagnostic* diagnostic) {
  return PlanCheck(program, diagnostic).run(workspace, workspace_words);
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
