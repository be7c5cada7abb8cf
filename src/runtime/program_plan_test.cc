// Program::load's plan check: the O(n log n) sweep (with a workspace) gives the same verdicts as
// the pairwise check (without one), and the runtime's tensor and operator bounds hold.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/emit/program_builder.h"
#include "mote/runtime/program.h"
#include "runtime/testing/test_programs.h"

namespace mote::runtime {
namespace {

using testing::pack_unchecked;
using Where = LoadDiagnostic::Where;

struct Verdict {
  Error error = Error::kOk;
  LoadDiagnostic diagnostic;
};

// With `sweep`, a workspace large enough for the program; without, none (the pairwise check).
Verdict load_with(const std::vector<uint8_t>& bytes, bool sweep) {
  const emit::AlignedBuffer copy(bytes);
  std::vector<uint32_t> workspace(load_workspace_words(kMaxTensors, kMaxOperators));
  Verdict v;
  const auto loaded =
      sweep ? Program::load(copy.data(), copy.size(), workspace.data(), workspace.size(),
                            &v.diagnostic)
            : Program::load(copy.data(), copy.size(), nullptr, 0, &v.diagnostic);
  v.error = loaded.ok() ? Error::kOk : loaded.error();
  return v;
}

// A chain of `steps` RESHAPEs over int8 [size] tensors c0 -> c1 -> ... (each op reads c_i and
// writes c_i+1), each at a given offset; the caller adds more tensors and scratch regions.
struct Chain {
  emit::ProgramBuilder builder{"cortex-m4", schema::Extension::Dsp};
  std::vector<int32_t> tensors;
};

Chain make_chain(uint32_t steps, const std::vector<uint32_t>& offsets, uint32_t size,
                 uint32_t arena) {
  Chain c;
  for (uint32_t i = 0; i <= steps; ++i) {
    c.tensors.push_back(c.builder.add_arena_tensor("c" + std::to_string(i), schema::DataType::Int8,
                                                   {static_cast<int32_t>(size)}, offsets[i]));
  }
  for (uint32_t i = 0; i < steps; ++i) {
    c.builder.add_operator(schema::OpKind::Reshape, {c.tensors[i]}, {c.tensors[i + 1]});
  }
  c.builder.set_graph_io({c.tensors.front()}, {c.tensors.back()});
  c.builder.set_arena(arena);
  c.builder.derive_lifetimes();
  return c;
}

TEST(ProgramPlanTest, SweepAndPairwiseChecksGiveTheSameVerdicts) {
  std::mt19937 rng(20240518);
  auto uniform = [&](uint32_t lo, uint32_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  int accepted = 0, tensor_overlaps = 0, scratch_overlaps = 0;
  for (int round = 0; round < 3000; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const uint32_t steps = uniform(1, 24);
    const uint32_t arena = 16 * uniform(8, 48);
    const uint32_t size = 4 * uniform(1, 4);
    std::vector<uint32_t> offsets;
    for (uint32_t i = 0; i <= steps; ++i) offsets.push_back(4 * uniform(0, (arena - size) / 4));
    Chain c = make_chain(steps, offsets, size, arena);
    schema::ProgramT& p = c.builder.program();
    // Some chain outputs made aliases of their inputs (a reshape in place).
    for (uint32_t i = 1; i <= steps; ++i) {
      if (uniform(0, 3) == 0 && p.tensors[i - 1]->alias == -1) {
        p.tensors[i]->alias = static_cast<int32_t>(i - 1);
        p.tensors[i]->offset = p.tensors[i - 1]->offset;
      }
    }
    // Tensors no operator uses, with any lifetime; some are aliases of another one.
    const uint32_t extra = uniform(0, 40);
    for (uint32_t k = 0; k < extra; ++k) {
      const uint32_t bytes = uniform(1, 64);
      const int32_t t = c.builder.add_arena_tensor("x" + std::to_string(k), schema::DataType::Int8,
                                                   {static_cast<int32_t>(bytes)},
                                                   uniform(0, arena - bytes));
      const uint32_t first = uniform(0, steps - 1);
      c.builder.tensor(t).first_step = first;
      c.builder.tensor(t).last_step = uniform(first, steps - 1);
      if (uniform(0, 4) == 0) {
        const int32_t target = static_cast<int32_t>(uniform(0, static_cast<uint32_t>(t) - 1));
        if (p.tensors[target]->alias == -1 && p.tensors[target]->offset + bytes <= arena) {
          c.builder.tensor(t).alias = target;
          c.builder.tensor(t).offset = p.tensors[target]->offset;
        }
      }
    }
    // Scratch regions on some operators.
    for (uint32_t i = 0; i < steps; ++i) {
      if (uniform(0, 2) != 0) continue;
      const uint32_t bytes = 4 * uniform(0, 8);
      p.operators[i]->scratch =
          std::make_unique<schema::Region>(4 * uniform(0, (arena - bytes) / 4), bytes);
    }
    p.version = kFormatVersion;
    // Rarely valid by chance: also try a plan without the extra tensors' overlaps.
    if (round % 3 == 0) {
      uint32_t next = 0;
      for (auto& t : p.tensors) {
        if (t->alias != -1) continue;
        t->offset = next;
        next += 16 * ((t->size + 15) / 16);
      }
      for (auto& t : p.tensors) {
        if (t->alias != -1) t->offset = p.tensors[t->alias]->offset;
      }
      for (auto& op : p.operators) {
        if (op->scratch) op->scratch = std::make_unique<schema::Region>(next, op->scratch->size());
        next += 64;
      }
      p.arena_size = next + 64;
    }
    const std::vector<uint8_t> bytes = pack_unchecked(p);
    const Verdict sweep = load_with(bytes, true);
    const Verdict pairwise = load_with(bytes, false);
    ASSERT_EQ(sweep.error, pairwise.error)
        << "sweep: " << sweep.diagnostic.reason << "; pairwise: " << pairwise.diagnostic.reason;
    EXPECT_EQ(sweep.diagnostic.where, pairwise.diagnostic.where);
    EXPECT_STREQ(sweep.diagnostic.reason, pairwise.diagnostic.reason);
    if (sweep.error == Error::kOk) ++accepted;
    const std::string reason = sweep.diagnostic.reason;
    if (reason == "shares bytes with a tensor live at the same time") ++tensor_overlaps;
    if (reason == "scratch region shares bytes with a live tensor") ++scratch_overlaps;
  }
  // Every verdict came up often enough to mean something.
  EXPECT_GT(accepted, 100);
  EXPECT_GT(tensor_overlaps, 100);
  EXPECT_GT(scratch_overlaps, 20);
}

// `count` tensors of 4 bytes each side by side (sixteen thousand fill 64 KiB), as a hostile
// program might pack them: the sweep accepts the clean plan and names a planted overlap.
std::vector<uint8_t> many_tensors(uint32_t count, bool plant_overlap) {
  Chain c = make_chain(2, {0, 16, 32}, 4, 64 + 4 * count);
  for (uint32_t k = 0; k < count; ++k) {
    const int32_t t = c.builder.add_arena_tensor("", schema::DataType::Int8, {4}, 64 + 4 * k);
    c.builder.tensor(t).first_step = 0;
    c.builder.tensor(t).last_step = 1;
  }
  schema::ProgramT& p = c.builder.program();
  if (plant_overlap) p.tensors[3 + count / 2]->offset = 64 + 4 * (count / 3) + 2;
  p.version = kFormatVersion;
  return pack_unchecked(p);
}

TEST(ProgramPlanTest, LoadsSixteenThousandTensorsWithAWorkspace) {
  const uint32_t count = 16000;
  Verdict v = load_with(many_tensors(count, false), true);
  EXPECT_EQ(v.error, Error::kOk) << v.diagnostic.reason;

  v = load_with(many_tensors(count, true), true);
  EXPECT_EQ(v.error, Error::kInvalidPlan);
  EXPECT_EQ(v.diagnostic.where, Where::kTensor);
  EXPECT_EQ(v.diagnostic.index, 3 + count / 2);  // the moved one, the later of the pair
  EXPECT_STREQ(v.diagnostic.reason, "shares bytes with a tensor live at the same time");
}

TEST(ProgramPlanTest, SmallProgramsUseTheStackWorkspace) {
  // The reference program fits the loader's own workspace: it loads with and without one.
  const std::vector<uint8_t> bytes = emit::emit_program(testing::conv_add_program());
  EXPECT_EQ(testing::load(bytes).program.error(), Error::kOk);
  EXPECT_LE(load_workspace_words(7, 3), kLoadStackWorkspaceWords);
  EXPECT_EQ(load_with(bytes, false).error, Error::kOk);
}

TEST(ProgramPlanTest, RefusesMoreTensorsOrOperatorsThanTheBounds) {
  Verdict v = load_with(many_tensors(kMaxTensors - 3, false), true);  // 3 chain tensors
  EXPECT_EQ(v.error, Error::kOk) << v.diagnostic.reason;
  v = load_with(many_tensors(kMaxTensors - 2, false), true);
  EXPECT_EQ(v.error, Error::kUnsupported);
  EXPECT_STREQ(v.diagnostic.reason, "more than 16384 tensors (kMaxTensors)");

  // One reshape repeated past the operator bound (the count is refused before anything else).
  Chain c = make_chain(1, {0, 0}, 4, 64);
  schema::ProgramT& p = c.builder.program();
  p.tensors[1]->alias = 0;
  for (size_t i = 1; i <= kMaxOperators; ++i) {
    auto op = std::make_unique<schema::OperatorT>();
    op->kind = schema::OpKind::Reshape;
    op->inputs = {0};
    op->outputs = {1};
    p.operators.push_back(std::move(op));
  }
  p.version = kFormatVersion;
  v = load_with(pack_unchecked(p), true);
  EXPECT_EQ(v.error, Error::kUnsupported);
  EXPECT_STREQ(v.diagnostic.reason, "more than 16384 operators (kMaxOperators)");
}

}  // namespace
}  // namespace mote::runtime
