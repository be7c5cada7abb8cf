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
    case BufferKind::kState: return "state";
  }
  return "?";
}

std::optional<BufferKind> buffer_kind_from_string(std::string_view text) {
  for (BufferKind kind : {BufferKind::kInput, BufferKind::kOutput, BufferKind::kActivation,
                          BufferKind::kScratch, BufferKind::kState}) {
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
    if (b.kind == BufferKind::kState && (b.first_step != 0 || b.last_step != problem.num_steps - 1)) {
      throw InputError(describe(problem, i) + ": a state must live at every step [0, " +
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
  for (size_t k = 0; k < problem.overlaps.size(); ++k) {
    const Overlap& o = problem.overlaps[k];
    const std::string what = "overlap " + std::to_string(k);
    if (o.output >= problem.buffers.size() || o.input >= problem.buffers.size() ||
        o.output == o.input) {
      throw InputError(what + ": buffer index out of range or output equal to input");
    }
    const Buffer& out = problem.buffers[o.output];
    const Buffer& in = problem.buffers[o.input];
    if (out.kind == BufferKind::kState || in.kind == BufferKind::kState) {
      throw InputError(what + ": a state shares its bytes with nothing");
    }
    if (in.last_step != out.first_step) {
      throw InputError(what + ": " + describe(problem, o.input) + " does not die where " +
                       describe(problem, o.output) + " is born");
    }
    constexpr int64_t kMaxLead = int64_t{1} << 62;
    if (o.lead > kMaxLead || o.lead < -kMaxLead) throw InputError(what + ": lead too large");
    if (o.back_lead && (*o.back_lead > kMaxLead || *o.back_lead < -kMaxLead)) {
      throw InputError(what + ": backward lead too large");
    }
    if (o.exact && (o.lead != 0 || o.back_lead)) {
      throw InputError(what + ": an exact (in place) overlap has no lead");
    }
    for (size_t j = 0; j < k; ++j) {
      if (problem.overlaps[j].output == o.output && problem.overlaps[j].input == o.input) {
        throw InputError(what + ": the same pair as overlap " + std::to_string(j));
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

OverlapIndex::OverlapIndex(const Problem& problem) : problem_(problem) {
  if (problem.overlaps.empty()) return;
  leads_.resize(problem.buffers.size());
  for (const Overlap& o : problem.overlaps) {
    leads_[o.output].push_back({o.input, o.lead, o.back_lead, o.exact});
  }
}

const OverlapIndex::Entry* OverlapIndex::find(size_t output, size_t input) const {
  if (leads_.empty()) return nullptr;
  for (const Entry& e : leads_[output]) {
    if (e.input == input) return &e;
  }
  return nullptr;
}

std::optional<int64_t> OverlapIndex::lead(size_t output, size_t input) const {
  const Entry* e = find(output, input);
  return e != nullptr ? std::optional<int64_t>(e->lead) : std::nullopt;
}

std::optional<int64_t> OverlapIndex::back_lead(size_t output, size_t input) const {
  const Entry* e = find(output, input);
  return e != nullptr && !e->exact ? e->back_lead : std::nullopt;
}

bool OverlapIndex::exact(size_t output, size_t input) const {
  const Entry* e = find(output, input);
  return e != nullptr && e->exact;
}

bool OverlapIndex::allows(size_t output, size_t input, uint64_t output_offset,
                          uint64_t input_offset) const {
  const Entry* e = find(output, input);
  if (e == nullptr) return false;
  if (e->exact) return output_offset == input_offset;
  const auto out = static_cast<int64_t>(output_offset), in = static_cast<int64_t>(input_offset);
  return out + e->lead <= in || (e->back_lead && out >= in + *e->back_lead);
}

OverlapIndex::Bounds OverlapIndex::bounds(size_t x, size_t y, uint64_t y_offset) const {
  const auto y_at = static_cast<int64_t>(y_offset);
  int64_t below = y_at - static_cast<int64_t>(aligned_size(problem_.buffers[x]));
  int64_t above = y_at + static_cast<int64_t>(aligned_size(problem_.buffers[y]));
  // Forward, the output sits at most lead below the input; backward, at least back_lead above:
  // what is forbidden stays one interval (below, above).
  if (!leads_.empty()) {
    const Entry* e = find(x, y);
    if (e != nullptr && !e->exact) {  // x output of y
      below = std::max(below, y_at - e->lead);
      if (e->back_lead) above = std::min(above, y_at + *e->back_lead);
    }
    e = find(y, x);
    if (e != nullptr && !e->exact) {  // y output of x
      above = std::min(above, y_at + e->lead);
      if (e->back_lead) below = std::max(below, y_at - *e->back_lead);
    }
  }
  return {below, above};
}

Problem without_overlaps(const Problem& problem) {
  Problem plain;
  plain.buffers = problem.buffers;
  plain.num_steps = problem.num_steps;
  return plain;
}

}  // namespace mote::planner
