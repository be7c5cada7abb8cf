#include "compiler/planner/lower_bound.h"

#include <algorithm>
#include <bit>

namespace mote::planner {

std::vector<uint64_t> live_bytes_per_step(const Problem& problem) {
  // Offsets are multiples of every live buffer's alignment, so of the smallest one, a: cut the
  // arena into blocks of a bytes and no two live buffers share a block; a buffer of s bytes
  // covers ceil(s / a) of them. Per alignment present (a power of two, so at most 32 of them),
  // difference arrays give in O(buffers + steps) how many buffers of that alignment live at each
  // step and their live total rounded to it; each step then takes the smallest alignment live.
  const size_t steps = static_cast<size_t>(problem.num_steps);
  struct Class {
    std::vector<int64_t> count;  // buffers of this alignment (difference array)
    std::vector<int64_t> bytes;  // every buffer's size rounded to this alignment (difference)
  };
  Class classes[32];
  bool present[32] = {};
  for (const Buffer& b : problem.buffers) {
    if (b.size != 0) present[std::countr_zero(b.alignment)] = true;
  }
  for (int k = 0; k < 32; ++k) {
    if (!present[k]) continue;
    Class& c = classes[k];
    c.count.assign(steps + 1, 0);
    c.bytes.assign(steps + 1, 0);
    for (const Buffer& b : problem.buffers) {
      if (b.size == 0) continue;
      // validate() keeps every total within 2^62: no overflow.
      const auto bytes = static_cast<int64_t>(align_up(b.size, uint64_t{1} << k));
      c.bytes[static_cast<size_t>(b.first_step)] += bytes;
      c.bytes[static_cast<size_t>(b.last_step) + 1] -= bytes;
      if (std::countr_zero(b.alignment) == k) {
        ++c.count[static_cast<size_t>(b.first_step)];
        --c.count[static_cast<size_t>(b.last_step) + 1];
      }
    }
  }
  std::vector<uint64_t> live(steps, 0);
  std::vector<int> smallest(steps, 0);  // log2 of the smallest alignment live at each step
  int64_t count[32] = {};
  int64_t bytes[32] = {};
  for (size_t t = 0; t < steps; ++t) {
    bool found = false;
    for (int k = 0; k < 32; ++k) {
      if (!present[k]) continue;
      count[k] += classes[k].count[t];
      bytes[k] += classes[k].bytes[t];
      if (!found && count[k] > 0) {
        live[t] = static_cast<uint64_t>(bytes[k]);
        smallest[t] = k;
        found = true;
      }
    }
  }
  // An output that may overlap an input shares at most min(output, input) bytes with it, and at
  // most output - lead (backward: input - back_lead) once offsets are multiples of the step's
  // alignment (the lead rounded up to it). The inputs an output may overlap are apart, and so
  // are the outputs over one input, so one output shares at most its own bytes with all its
  // inputs together, and one input at most its own with all its outputs: an ADD whose output may
  // overlap either input saves one tensor, not two (both inputs are live as it writes).
  std::vector<uint64_t> by_output(problem.buffers.size(), 0), by_input(problem.buffers.size(), 0);
  for (const Overlap& o : problem.overlaps) {
    const Buffer& out = problem.buffers[o.output];
    const Buffer& in = problem.buffers[o.input];
    if (out.size == 0 || in.size == 0) continue;
    const size_t t = static_cast<size_t>(out.first_step);
    const uint64_t a = uint64_t{1} << smallest[t];
    const auto out_bytes = static_cast<int64_t>(align_up(out.size, a));
    const auto in_bytes = static_cast<int64_t>(align_up(in.size, a));
    const auto step = static_cast<int64_t>(a);
    const auto round_up = [step](int64_t lead) {
      return lead >= 0 ? (lead + step - 1) / step * step : -(-lead / step * step);
    };
    int64_t saved = std::max<int64_t>(0, std::min({out_bytes, in_bytes, out_bytes - round_up(o.lead)}));
    // Backward, the output starts back_lead (rounded up) into the input: they share the rest of
    // the input at most.
    if (o.back_lead) {
      saved = std::max(saved, std::min({out_bytes, in_bytes, in_bytes - round_up(*o.back_lead)}));
    }
    if (o.exact) saved = std::min(out_bytes, in_bytes);  // in place: one on the other
    by_output[o.output] = std::min(by_output[o.output] + static_cast<uint64_t>(saved),
                                   static_cast<uint64_t>(out_bytes));
    by_input[o.input] = std::min(by_input[o.input] + static_cast<uint64_t>(saved),
                                 static_cast<uint64_t>(in_bytes));
  }
  // Each step saves at most what its outputs can share, and at most what its inputs can.
  std::vector<uint64_t> saved_by_outputs(steps, 0), saved_by_inputs(steps, 0);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (by_output[i] != 0) saved_by_outputs[static_cast<size_t>(b.first_step)] += by_output[i];
    if (by_input[i] != 0) saved_by_inputs[static_cast<size_t>(b.last_step)] += by_input[i];
  }
  for (size_t t = 0; t < steps; ++t) {
    live[t] -= std::min({live[t], saved_by_outputs[t], saved_by_inputs[t]});
  }
  return live;
}

LowerBound lower_bound(const Problem& problem) {
  LowerBound bound;
  const std::vector<uint64_t> live = live_bytes_per_step(problem);
  for (size_t t = 0; t < live.size(); ++t) {
    if (live[t] > bound.live_bytes) {
      bound.live_bytes = live[t];
      bound.step = static_cast<int32_t>(t);
    }
  }
  uint64_t bytes = bound.live_bytes;
  for (const Buffer& b : problem.buffers) {
    if (b.fixed_offset) bytes = std::max(bytes, *b.fixed_offset + aligned_size(b));
  }
  bound.bytes = align_up(bytes, arena_alignment(problem));
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (b.first_step <= bound.step && bound.step <= b.last_step) bound.live.push_back(i);
  }
  return bound;
}

}  // namespace mote::planner
