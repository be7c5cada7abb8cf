#include "compiler/passes/memory_problem.h"

#include <algorithm>
#include <numeric>

#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "mote/runtime/program.h"

namespace mote::passes {
namespace {

// The owner of a tensor's bytes: the output of an aliasing operator (RESHAPE) whose input is in
// the arena shares that input's buffer.
std::vector<int32_t> alias_owners(const ir::Graph& graph, const std::vector<bool>& external) {
  std::vector<int32_t> owner(graph.tensors.size());
  std::iota(owner.begin(), owner.end(), 0);
  for (const ir::Operator& op : graph.operators) {
    if (!ops::op_def(op.type).output_aliases_input) continue;
    const int32_t in = op.inputs[0];
    // Copied from constants, or from the caller's buffer.
    if (graph.tensors[static_cast<size_t>(in)].is_constant || external[static_cast<size_t>(in)]) {
      continue;
    }
    owner[static_cast<size_t>(op.outputs[0])] = owner[static_cast<size_t>(in)];
  }
  return owner;
}

}  // namespace

MemoryProblem build_memory_problem(const ir::Graph& graph, kernels::Extension extension,
                                   uint32_t alignment, bool with_overlaps,
                                   std::span<const int32_t> order,
                                   const std::vector<bool>& in_place,
                                   bool inputs_outside_arena) {
  // The operator that runs at a step.
  auto op_at = [&](int32_t step) -> const ir::Operator& {
    const size_t k = static_cast<size_t>(step);
    return graph.operators[order.empty() ? k : static_cast<size_t>(order[k])];
  };
  const size_t num_tensors = graph.tensors.size();
  const int32_t num_steps = static_cast<int32_t>(graph.operators.size());
  const int32_t last_step = num_steps - 1;

  MemoryProblem result;
  result.problem.num_steps = num_steps;
  result.tensor_buffer.assign(num_tensors, kNoBuffer);
  result.op_scratch_buffer.assign(graph.operators.size(), kNoBuffer);
  result.in_place.assign(graph.operators.size(), false);
  for (int32_t step = 0; step < num_steps && static_cast<size_t>(step) < in_place.size(); ++step) {
    result.in_place[static_cast<size_t>(step)] =
        in_place[static_cast<size_t>(step)] &&
        ops::operator_in_place_scratch(graph, op_at(step)) > 0;
  }
  std::vector<bool> external(num_tensors, false);
  if (inputs_outside_arena) {
    for (size_t k = 0; k < graph.inputs.size(); ++k) {
      const int32_t t = graph.inputs[k];
      const ir::Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
      // The runtime's limits: the caller's buffer is read, never written, and bound by slot.
      if (std::find(graph.outputs.begin(), graph.outputs.end(), t) != graph.outputs.end()) {
        throw InputError("graph input " + std::to_string(k) + " (" + tensor.name +
                         ") is also a graph output: it cannot be kept outside the arena");
      }
      if (tensor.is_variable || tensor.is_constant) continue;
      if (k >= runtime::kMaxExternalInputs) {
        throw InputError("--inputs-outside-arena: the runtime keeps at most " +
                         std::to_string(runtime::kMaxExternalInputs) +
                         " inputs outside the arena; this graph has " +
                         std::to_string(graph.inputs.size()));
      }
      if (external[static_cast<size_t>(t)]) continue;  // listed twice: one buffer
      external[static_cast<size_t>(t)] = true;
      result.external_inputs.push_back(t);
      result.outside_arena.push_back({tensor.name.empty() ? "tensor " + std::to_string(t)
                                                          : tensor.name,
                                      static_cast<uint64_t>(tensor.num_bytes())});
    }
  }
  const std::vector<int32_t> owner = alias_owners(graph, external);

  // Lifetime of every owner, as the union over the tensors that share its bytes.
  constexpr int32_t kUnset = -1;
  std::vector<int32_t> first(num_tensors, kUnset), last(num_tensors, kUnset);
  std::vector<bool> is_input(num_tensors, false), is_output(num_tensors, false);
  auto touch = [&](int32_t tensor, int32_t step) {
    const size_t o = static_cast<size_t>(owner[static_cast<size_t>(tensor)]);
    first[o] = first[o] == kUnset ? step : std::min(first[o], step);
    last[o] = std::max(last[o], step);
  };
  for (int32_t t : graph.inputs) {
    touch(t, 0);
    is_input[static_cast<size_t>(owner[static_cast<size_t>(t)])] = true;
  }
  for (int32_t step = 0; step < num_steps; ++step) {
    const ir::Operator& op = op_at(step);
    for (int32_t t : op.inputs) {
      if (t != ir::kNoTensor && !graph.tensors[static_cast<size_t>(t)].is_constant) touch(t, step);
    }
    for (int32_t t : op.outputs) touch(t, step);
  }
  for (int32_t t : graph.outputs) {
    touch(t, last_step);
    is_output[static_cast<size_t>(owner[static_cast<size_t>(t)])] = true;
  }
  // State persists from one run to the next: it lives at every step, so no other buffer may
  // ever share its bytes (and no output may overlap it, see below).
  for (size_t t = 0; t < num_tensors; ++t) {
    if (!graph.tensors[t].is_variable || first[t] == kUnset) continue;
    first[t] = 0;
    last[t] = std::max(last_step, 0);
  }

  // One buffer per owner, in tensor order (deterministic), sized for the largest sharer.
  std::vector<uint64_t> size(num_tensors, 0);
  for (size_t t = 0; t < num_tensors; ++t) {
    const size_t o = static_cast<size_t>(owner[t]);
    size[o] = std::max<uint64_t>(size[o], static_cast<uint64_t>(graph.tensors[t].num_bytes()));
  }
  std::vector<int32_t> owner_buffer(num_tensors, kNoBuffer);
  for (size_t t = 0; t < num_tensors; ++t) {
    if (owner[t] != static_cast<int32_t>(t) || first[t] == kUnset || graph.tensors[t].is_constant ||
        external[t]) {
      continue;
    }
    planner::Buffer buffer;
    buffer.name = graph.tensors[t].name.empty() ? "tensor " + std::to_string(t)
                                                : graph.tensors[t].name;
    buffer.kind = graph.tensors[t].is_variable ? planner::BufferKind::kState
                  : is_input[t]                ? planner::BufferKind::kInput
                  : is_output[t]               ? planner::BufferKind::kOutput
                                               : planner::BufferKind::kActivation;
    buffer.size = size[t];
    buffer.alignment = alignment;
    buffer.first_step = first[t];
    buffer.last_step = last[t];
    owner_buffer[t] = static_cast<int32_t>(result.problem.buffers.size());
    result.problem.buffers.push_back(std::move(buffer));
  }
  result.buffer_owner.assign(num_tensors, ir::kNoTensor);
  for (size_t t = 0; t < num_tensors; ++t) {
    const int32_t b = owner_buffer[static_cast<size_t>(owner[t])];
    if (b == kNoBuffer) continue;
    result.tensor_buffer[t] = b;
    result.buffer_owner[t] = owner[t];
  }

  // Outputs that may overlap an input dying here, by the rule of the kernel that runs on this
  // extension; every slot that holds the input must allow it (the tightest lead counts).
  if (with_overlaps) {
    for (int32_t step = 0; step < num_steps; ++step) {
      const ir::Operator& op = op_at(step);
      if (op.outputs.size() != 1 || ops::op_def(op.type).output_aliases_input) continue;
      const int32_t out = result.tensor_buffer[static_cast<size_t>(op.outputs[0])];
      if (out == kNoBuffer || result.problem.buffers[static_cast<size_t>(out)].first_step != step) {
        continue;
      }
      std::vector<planner::Overlap> found;
      std::vector<int32_t> refused;
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        const int32_t t = op.inputs[k];
        if (t == ir::kNoTensor) continue;
        const int32_t in = result.tensor_buffer[static_cast<size_t>(t)];
        // Only an input that dies here may be written over. State lives on to the next run, and a
        // graph output "dies" at the last step only in its lifetime (the caller reads it after
        // the run): neither ever is.
        if (in == kNoBuffer || in == out) continue;
        const planner::Buffer& input = result.problem.buffers[static_cast<size_t>(in)];
        if (input.last_step != step || input.kind == planner::BufferKind::kState ||
            input.kind == planner::BufferKind::kOutput) {
          continue;
        }
        kernels::OverlapRule rule = ops::operator_overlap(graph, op, k, extension);
        if (result.in_place[static_cast<size_t>(step)]) {
          rule = kernels::kNoOverlap;
          if (k == 0) rule.allowed = rule.exact = true;
        }
        if (!rule.allowed) {
          refused.push_back(in);
          continue;
        }
        const kernels::OverlapRule back = ops::operator_back_overlap(graph, op, k);
        auto same = std::find_if(found.begin(), found.end(), [&](const planner::Overlap& o) {
          return o.input == static_cast<size_t>(in);
        });
        if (same != found.end()) {
          same->lead = std::max(same->lead, rule.lead);
          same->back_lead.reset();  // read through two slots: forward only
          if (same->exact || rule.exact) refused.push_back(in);
        } else if (rule.exact) {
          found.push_back({static_cast<size_t>(out), static_cast<size_t>(in), 0, std::nullopt,
                           /*exact=*/true});
        } else {
          found.push_back({static_cast<size_t>(out), static_cast<size_t>(in), rule.lead,
                           back.allowed && back.backward ? std::optional<int64_t>(back.lead)
                                                         : std::nullopt});
        }
      }
      std::erase_if(found, [&](const planner::Overlap& o) {
        return std::find(refused.begin(), refused.end(), static_cast<int32_t>(o.input)) !=
               refused.end();
      });
      for (const planner::Overlap& o : found) result.problem.overlaps.push_back(o);
    }
  }

  for (int32_t step = 0; step < num_steps; ++step) {
    const ir::Operator& op = op_at(step);
    const bool runs_in_place = result.in_place[static_cast<size_t>(step)];
    const uint64_t bytes = runs_in_place ? ops::operator_in_place_scratch(graph, op)
                                         : ops::operator_scratch_bytes(graph, op, extension);
    result.kernels.push_back({step, std::string(ir::to_string(op.type)),
                              runs_in_place ? "in-place"
                                            : ops::operator_kernel_variant(graph, op, extension),
                              bytes});
    if (bytes == 0) continue;
    planner::Buffer buffer;
    buffer.name = "scratch of operator " + std::to_string(step) + " (" +
                  std::string(ir::to_string(op.type)) + ")";
    buffer.kind = planner::BufferKind::kScratch;
    buffer.size = bytes;
    buffer.alignment = alignment;
    buffer.first_step = step;
    buffer.last_step = step;
    result.op_scratch_buffer[static_cast<size_t>(step)] =
        static_cast<int32_t>(result.problem.buffers.size());
    result.problem.buffers.push_back(std::move(buffer));
  }
  return result;
}

}  // namespace mote::passes
