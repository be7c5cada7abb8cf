// Operators with state, end to end: keyword-spotting style builder models (two stacked SVDF
// layers with int16 or int8 state, then FULLY_CONNECTED; an UNIDIRECTIONAL_SEQUENCE_LSTM layer,
// batch-major then FULLY_CONNECTED or time-major with two sequences and a cell clip) are written
// as .tflite, read back, compiled for a scalar, a DSP and an MVE CPU and run on the host
// invocation after invocation with one Executor, the state carried from run to run; every
// output must equal a slow reference written here from TFLite's definitions, and reset_state()
// (C++ and C) must bring back the first result.
// Also: the plan keeps the states apart from every other buffer, and the loader refuses a program
// whose state shares bytes with anything.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ops/validate.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/planner/verify.h"
#include "compiler/tflite/reader.h"
#include "mote/kernels/integer.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/signal.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/mote.h"
#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"
#include "tests/lstm_reference.h"

namespace mote {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int32_t kFeatures = 40;  // one frame of filterbank features
constexpr int kFrames = 8;

// An edited program packed and loaded: the load's error and "<operator>: <reason>".
std::pair<runtime::Error, std::string> repack_and_load(const schema::ProgramT& p) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(schema::Program::Pack(fbb, &p), schema::ProgramIdentifier());
  const emit::AlignedBuffer bytes({fbb.GetBufferPointer(), fbb.GetSize()});
  runtime::LoadDiagnostic d;
  const auto loaded = emit::load_program(bytes.span(), &d);
  return {loaded.ok() ? runtime::Error::kOk : loaded.error(),
          std::string(d.op_name) + ": " + d.reason};
}

ir::Graph keyword_model(bool int8_state = false) {
  builder::ModelBuilder b(7);
  const builder::TensorId x = b.add_input({1, kFeatures}, ir::DataType::kInt8, 0.05f, 3);
  const builder::TensorId s1 = b.add_svdf(x, 24, 1, 8, true, int8_state, ir::Activation::kRelu);
  const builder::TensorId s2 = b.add_svdf(s1, 12, 2, 4, false, int8_state);
  b.mark_output(b.add_fully_connected(s2, 4));
  return b.build();
}

std::vector<std::vector<int8_t>> frames(uint32_t seed) {
  builder::Random r(seed);
  std::vector<std::vector<int8_t>> out(kFrames, std::vector<int8_t>(kFeatures));
  for (auto& f : out) {
    for (int8_t& v : f) v = static_cast<int8_t>(r.between(-128, 127));
  }
  return out;
}

// ---- The slow reference, from TFLite's definitions (int64 sums, per-filter memories).

int64_t round_half_away_pot(int64_t x, int exponent) {
  if (exponent == 0) return x;
  const int64_t half = int64_t{1} << (exponent - 1);
  return x >= 0 ? (x + half) >> exponent : -((-x + half) >> exponent);
}
// TFLite's MultiplyByQuantizedMultiplier, double rounding, on int64.
int64_t mbqm(int64_t x, int32_t multiplier, int shift) {
  const int64_t shifted = shift > 0 ? x * (int64_t{1} << shift) : x;
  const int64_t ab = shifted * multiplier;
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30);
  const int64_t high = (ab + nudge) / (int64_t{1} << 31);  // truncates, as C++ does
  return round_half_away_pot(high, shift > 0 ? 0 : -shift);
}
int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
int64_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

const ir::Tensor& tensor(const ir::Graph& g, int32_t id) { return g.tensors[static_cast<size_t>(id)]; }
float scale(const ir::Graph& g, int32_t id) { return tensor(g, id).quantization.scale[0]; }
int32_t zp(const ir::Graph& g, int32_t id) {
  return static_cast<int32_t>(tensor(g, id).quantization.zero_point[0]);
}
int64_t value(const ir::Tensor& t, int64_t k) {
  switch (t.type) {
    case ir::DataType::kInt8: return static_cast<int8_t>(t.data[static_cast<size_t>(k)]);
    case ir::DataType::kInt16: {
      int16_t v;
      std::memcpy(&v, t.data.data() + 2 * k, 2);
      return v;
    }
    default: {
      int32_t v;
      std::memcpy(&v, t.data.data() + 4 * k, 4);
      return v;
    }
  }
}

class Reference {
 public:
  explicit Reference(const ir::Graph& g) : g_(g) { reset(); }

  // Every variable tensor at TFLite's initial value: the zero point.
  void reset() {
    memories_.clear();
    for (const ir::Operator& op : g_.operators) {
      if (op.type != ir::OpType::kSvdf) continue;
      const ir::Tensor& wt = tensor(g_, op.inputs[2]);
      memories_.push_back(std::vector<std::vector<int64_t>>(
          static_cast<size_t>(wt.shape[0]),
          std::vector<int64_t>(static_cast<size_t>(wt.shape[1]), zp(g_, op.inputs[4]))));
    }
  }

  std::vector<int8_t> step(const std::vector<int8_t>& input) {
    std::vector<int64_t> x(input.begin(), input.end());
    size_t svdf_index = 0;
    for (const ir::Operator& op : g_.operators) {
      x = op.type == ir::OpType::kSvdf ? svdf(op, x, memories_[svdf_index++])
                                       : fully_connected(op, x);
    }
    return {x.begin(), x.end()};
  }

 private:
  // TFLM's integer SVDF, batch 1: scales multiplied in float, as its Prepare does.
  std::vector<int64_t> svdf(const ir::Operator& op, const std::vector<int64_t>& x,
                            std::vector<std::vector<int64_t>>& memory) const {
    const int32_t in = op.inputs[0], state = op.inputs[4], out = op.outputs[0];
    const ir::Tensor& wf = tensor(g_, op.inputs[1]);
    const ir::Tensor& wt = tensor(g_, op.inputs[2]);
    const int32_t rank = std::get<ir::SvdfOptions>(op.options).rank;
    const auto s1 = kernels::quantize_multiplier(
        static_cast<double>(scale(g_, in) * scale(g_, op.inputs[1]) / scale(g_, state)));
    const auto s2 = kernels::quantize_multiplier(
        static_cast<double>(scale(g_, state) * scale(g_, op.inputs[2]) / scale(g_, out)));
    const bool int16 = tensor(g_, state).type == ir::DataType::kInt16;
    const int64_t lo = int16 ? -32768 : -128, hi = int16 ? 32767 : 127;
    const int32_t filters = wf.shape[0], depth = wf.shape[1], length = wt.shape[1];
    std::vector<int64_t> sums(static_cast<size_t>(filters / rank), 0);
    if (op.inputs[3] != ir::kNoTensor) {
      for (size_t u = 0; u < sums.size(); ++u) sums[u] = value(tensor(g_, op.inputs[3]), u);
    }
    const int64_t state_zp = zp(g_, state);
    for (int32_t f = 0; f < filters; ++f) {
      int64_t dot = 0;
      for (int32_t i = 0; i < depth; ++i) {
        dot += value(wf, int64_t{f} * depth + i) * (x[static_cast<size_t>(i)] - zp(g_, in));
      }
      auto& row = memory[static_cast<size_t>(f)];
      row.erase(row.begin());
      row.push_back(clamp(mbqm(dot, s1.multiplier, s1.shift) + state_zp, lo, hi));
      int64_t s = 0;
      for (int32_t t = 0; t < length; ++t) {
        s += value(wt, int64_t{f} * length + t) * (row[static_cast<size_t>(t)] - state_zp);
      }
      sums[static_cast<size_t>(f / rank)] += wrap32(s);
    }
    std::vector<int64_t> y;
    for (int64_t s : sums) {
      y.push_back(clamp(mbqm(wrap32(s), s2.multiplier, s2.shift) + zp(g_, out), -128, 127));
    }
    return y;
  }

  // TFLite's per-tensor int8 FULLY_CONNECTED, no activation.
  std::vector<int64_t> fully_connected(const ir::Operator& op, const std::vector<int64_t>& x) const {
    const int32_t in = op.inputs[0], out = op.outputs[0];
    const ir::Tensor& w = tensor(g_, op.inputs[1]);
    const auto m = kernels::quantize_multiplier(static_cast<double>(scale(g_, in)) *
                                                static_cast<double>(scale(g_, op.inputs[1])) /
                                                static_cast<double>(scale(g_, out)));
    std::vector<int64_t> y;
    for (int32_t o = 0; o < w.shape[0]; ++o) {
      int64_t acc = op.inputs[2] != ir::kNoTensor ? value(tensor(g_, op.inputs[2]), o) : 0;
      for (int32_t i = 0; i < w.shape[1]; ++i) {
        acc += value(w, int64_t{o} * w.shape[1] + i) * (x[static_cast<size_t>(i)] - zp(g_, in));
      }
      y.push_back(clamp(mbqm(acc, m.multiplier, m.shift) + zp(g_, out), -128, 127));
    }
    return y;
  }

  const ir::Graph& g_;
  std::vector<std::vector<std::vector<int64_t>>> memories_;
};

// ---- The runtime, one Executor for the whole sequence.

struct Device {
  explicit Device(const std::vector<uint8_t>& program)
      : bytes(std::span<const uint8_t>(program)) {
    auto loaded = emit::load_program(bytes.span(), nullptr);
    if (!loaded.ok()) throw std::runtime_error("load failed");
    this->program = *loaded;
    arena = emit::AlignedBuffer(this->program->arena_size(), this->program->arena_alignment());
    // Garbage in the arena: the Executor must set the states itself.
    std::memset(arena.data(), 0x5A, arena.size());
    auto created = runtime::Executor::create(*this->program, arena.data(), arena.size());
    if (!created.ok()) throw std::runtime_error("create failed");
    executor = *created;
  }
  // One run on `frame`, the output's values (T: the activations' type, int8 or int16).
  template <typename T>
  std::vector<T> run(const std::vector<T>& frame) {
    const runtime::TensorView in = executor->input(0);
    EXPECT_EQ(in.size, frame.size() * sizeof(T));
    std::memcpy(in.data, frame.data(), frame.size() * sizeof(T));
    EXPECT_EQ(executor->run(), runtime::Error::kOk);
    const runtime::TensorView out = executor->output(0);
    std::vector<T> y(out.size / sizeof(T));
    std::memcpy(y.data(), out.data, y.size() * sizeof(T));
    return y;
  }

  emit::AlignedBuffer bytes;
  std::optional<runtime::Program> program;
  emit::AlignedBuffer arena;
  std::optional<runtime::Executor> executor;
};

// Runs `inputs` one after the other on the device, each output equal to the reference's step
// (state carried over); then a reset gives the first results again, and without one the state
// goes on (the first input again gives something else). `what` names a run in failures.
template <typename SlowReference, typename T>
void expect_runs_like_reference_and_resets(Device& device, SlowReference& ref,
                                           const std::vector<std::vector<T>>& inputs,
                                           int runs, const char* what) {
  std::vector<std::vector<T>> outputs;
  for (int k = 0; k < runs; ++k) {
    outputs.push_back(device.run(inputs[k]));
    ASSERT_EQ(outputs.back(), ref.step(inputs[k])) << what << " " << k;
  }
  device.executor->reset_state();
  EXPECT_EQ(device.run(inputs[0]), outputs[0]);
  EXPECT_EQ(device.run(inputs[1]), outputs[1]);
  EXPECT_NE(device.run(inputs[0]), outputs[0]);
}

pipeline::Compiled compile_for(const ir::Graph& g, const char* cpu) {
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  return pipeline::compile(g, options);
}

TEST(Stateful, VariableTensorsRoundTripThroughTflite) {
  const ir::Graph g = keyword_model();
  const ir::Graph back = tflite::read_model(builder::write_model(g));
  EXPECT_EQ(back, g);
  int states = 0;
  for (const ir::Tensor& t : back.tensors) states += t.is_variable ? 1 : 0;
  EXPECT_EQ(states, 2);
}

TEST(Stateful, ReferenceChangesFromFrameToFrame) {
  // The test means something only if the state matters: the same frame twice gives different
  // outputs, and the outputs are not saturated.
  const ir::Graph g = keyword_model();
  Reference ref(g);
  const auto input = frames(3);
  const auto first = ref.step(input[0]);
  const auto again = ref.step(input[0]);
  EXPECT_NE(first, again);
  int saturated = 0;
  for (int k = 0; k < kFrames; ++k) {
    for (int8_t v : ref.step(input[k])) saturated += (v == -128 || v == 127) ? 1 : 0;
  }
  EXPECT_LT(saturated, kFrames * 4 / 2);
}

// `mote validate` compares one run per input with a target's run that starts afresh: the host's
// per-operator run must start from the initial state too, not from the previous input's.
TEST(Stateful, HostLayersOfAnInputDoNotDependOnTheInputBefore) {
  const ir::Graph g = keyword_model();
  const pipeline::Compiled compiled = compile_for(g, "cortex-m4");
  pipeline::HostProgram host(compiled.program);
  const auto input = frames(3);
  const std::vector<std::vector<uint8_t>> frame0 = {{input[0].begin(), input[0].end()}};
  const std::vector<std::vector<uint8_t>> frame1 = {{input[1].begin(), input[1].end()}};
  const auto first = host.run_layers(frame0);
  host.run_layers(frame1);
  const auto again = host.run_layers(frame0);
  ASSERT_EQ(first.size(), again.size());
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].bytes, again[i].bytes) << i;
}

class StatefulOnCpu : public ::testing::TestWithParam<const char*> {};

TEST_P(StatefulOnCpu, RunsFrameAfterFrameLikeTheReferenceAndResets) {
  for (const bool int8_state : {false, true}) {
    SCOPED_TRACE(int8_state ? "int8 state" : "int16 state");
    const ir::Graph g = tflite::read_model(builder::write_model(keyword_model(int8_state)));
    const pipeline::Compiled compiled = compile_for(g, GetParam());
    Device device(compiled.program);
    Reference ref(g);
    ASSERT_NO_FATAL_FAILURE(
        expect_runs_like_reference_and_resets(device, ref, frames(11), kFrames, "frame"));
  }
}

TEST_P(StatefulOnCpu, CApiResetsTheState) {
  const ir::Graph g = keyword_model();
  const pipeline::Compiled compiled = compile_for(g, GetParam());
  const emit::AlignedBuffer bytes{std::span<const uint8_t>(compiled.program)};
  mote_program program;
  ASSERT_EQ(mote_load(&program, bytes.data(), bytes.size(), nullptr), MOTE_OK);
  emit::AlignedBuffer arena(mote_arena_bytes(&program), mote_arena_align(&program));
  mote_executor executor;
  ASSERT_EQ(mote_executor_init(&executor, &program, arena.data(), arena.size()), MOTE_OK);
  const auto input = frames(5);
  auto run = [&](const std::vector<int8_t>& frame) {
    mote_tensor in, out;
    EXPECT_EQ(mote_input(&executor, 0, &in), MOTE_OK);
    std::memcpy(in.data, frame.data(), frame.size());
    EXPECT_EQ(mote_run(&executor), MOTE_OK);
    EXPECT_EQ(mote_output(&executor, 0, &out), MOTE_OK);
    return std::vector<uint8_t>(out.data, out.data + out.size);
  };
  const auto first = run(input[0]);
  run(input[1]);
  EXPECT_EQ(mote_reset_state(&executor), MOTE_OK);
  EXPECT_EQ(run(input[0]), first);
  EXPECT_EQ(mote_reset_state(nullptr), MOTE_INVALID_ARGUMENT);
  mote_memory_status status;
  ASSERT_EQ(mote_get_memory_status(&executor, &status), MOTE_OK);
  // Two int16 states: 24 filters * 8 and 24 * 4 values.
  EXPECT_EQ(status.state, 2u * (24 * 8 + 24 * 4));
}

TEST_P(StatefulOnCpu, StatesGetRegionsOfTheirOwn) {
  const ir::Graph g = keyword_model();
  const pipeline::Compiled compiled = compile_for(g, GetParam());
  const auto program = emit::read_program(compiled.program);
  const uint32_t last = static_cast<uint32_t>(program->operators.size() - 1);
  std::vector<const schema::TensorT*> states;
  for (const auto& t : program->tensors) {
    if (t->state) states.push_back(t.get());
  }
  ASSERT_EQ(states.size(), 2u);
  for (const schema::TensorT* s : states) {
    EXPECT_EQ(s->first_step, 0u);
    EXPECT_EQ(s->last_step, last);
    // No other arena tensor and no scratch region shares a byte, whatever its lifetime.
    for (const auto& t : program->tensors) {
      if (t.get() == s || t->location != schema::Location::Arena) continue;
      EXPECT_TRUE(t->offset >= s->offset + s->size || s->offset >= t->offset + t->size);
    }
    for (const auto& op : program->operators) {
      if (!op->scratch) continue;
      EXPECT_TRUE(op->scratch->offset() >= s->offset + s->size ||
                  s->offset >= op->scratch->offset() + op->scratch->size());
    }
  }
  EXPECT_EQ(program->plan->state_bytes, 2u * (24 * 8 + 24 * 4));
}

// The CPUs every stateful model compiles for, and their test names (cortex_m4).
const auto kCpus = ::testing::Values("cortex-m0plus", "cortex-m4", "cortex-m55");
std::string cpu_test_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cpus, StatefulOnCpu, kCpus, cpu_test_name);

// A program edited so that a state shares bytes with another tensor (or a scratch region) that
// is never live with it in one run: the loader refuses it, since the state lives across runs.
TEST(Stateful, LoaderRefusesAStateThatSharesBytes) {
  const pipeline::Compiled compiled = compile_for(keyword_model(), "cortex-m4");
  const auto program = emit::read_program(compiled.program);
  EXPECT_EQ(repack_and_load(*program).first, runtime::Error::kOk);
  size_t state = 0, other = 0;
  for (size_t i = 0; i < program->tensors.size(); ++i) {
    const auto& t = *program->tensors[i];
    if (t.state && state == 0) state = i;
    // The FULLY_CONNECTED output: born at the last step, after the first state's operator.
    if (!t.state && t.location == schema::Location::Arena && t.first_step == 2) other = i;
  }
  ASSERT_NE(state, other);
  const uint32_t saved = program->tensors[other]->offset;
  program->tensors[other]->offset = program->tensors[state]->offset;
  emit::write_call_words(*program);  // the output's new place in its operator's call
  const auto [error, reason] = repack_and_load(*program);
  EXPECT_EQ(error, runtime::Error::kInvalidPlan);
  EXPECT_THAT(reason, HasSubstr("shares bytes"));
  program->tensors[other]->offset = saved;
  emit::write_call_words(*program);

  // A state that claims a shorter life is refused before the plan is looked at.
  program->tensors[state]->last_step = 0;
  EXPECT_EQ(repack_and_load(*program).first, runtime::Error::kInvalidPlan);
  EXPECT_THAT(repack_and_load(*program).second, HasSubstr("state not live at every step"));
}

// ---- An LSTM keyword model: every invocation reads a few frames of features, and the LSTM's
// hidden and cell states carry the sequence over from one invocation to the next.

constexpr int kInvocations = 6;

// Batch-major: [1, 3 frames, 10 features] -> LSTM (12 units) -> FULLY_CONNECTED (4 keywords per
// frame). Time-major: two utterances side by side, [3 frames, 2, 10] -> LSTM (8 units) with a
// cell clip and a cell scale of 2^-11.
ir::Graph lstm_model(bool time_major) {
  builder::ModelBuilder b(9);
  if (!time_major) {
    const builder::TensorId x = b.add_input({1, 3, 10}, ir::DataType::kInt8, 0.04f, -5);
    const builder::TensorId h = b.add_lstm(x, 12);
    b.mark_output(b.add_fully_connected(h, 4));
  } else {
    const builder::TensorId x = b.add_input({3, 2, 10}, ir::DataType::kInt8, 0.03f, 7);
    b.mark_output(b.add_lstm(x, 8, /*time_major=*/true, /*cell_clip=*/0.75f,
                             /*cell_scale_power=*/-11));
  }
  return b.build();
}

// kInvocations frames of `size` values over T's whole range.
template <typename T>
std::vector<std::vector<T>> random_inputs(uint32_t seed, size_t size) {
  builder::Random r(seed);
  std::vector<std::vector<T>> out(kInvocations, std::vector<T>(size));
  for (auto& f : out) {
    for (T& v : f) {
      v = static_cast<T>(r.between(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    }
  }
  return out;
}

// What ops::validate says of g: its refusal, or "accepted".
std::string refusal(const ir::Graph& g) {
  try {
    ops::validate(g);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

// The model's slow reference: the LSTM's (tests/lstm_reference.cc, from TFLM's definition) with
// its states carried over, then TFLite's FULLY_CONNECTED.
class LstmReference {
 public:
  explicit LstmReference(const ir::Graph& g) : g_(g) { reset(); }

  void reset() { state_ = testing::lstm_initial_state(g_, g_.operators[0]); }

  std::vector<int8_t> step(const std::vector<int8_t>& input) {
    std::vector<int8_t> x = testing::lstm_reference(g_, g_.operators[0], input, state_);
    for (size_t k = 1; k < g_.operators.size(); ++k) x = fully_connected(g_.operators[k], x);
    return x;
  }

 private:
  // TFLite's per-tensor int8 FULLY_CONNECTED, no activation, row by row.
  std::vector<int8_t> fully_connected(const ir::Operator& op, const std::vector<int8_t>& x) const {
    const int32_t in = op.inputs[0], out = op.outputs[0];
    const ir::Tensor& w = tensor(g_, op.inputs[1]);
    const auto m = kernels::quantize_multiplier(static_cast<double>(scale(g_, in)) *
                                                static_cast<double>(scale(g_, op.inputs[1])) /
                                                static_cast<double>(scale(g_, out)));
    const size_t depth = static_cast<size_t>(w.shape[1]);
    std::vector<int8_t> y;
    for (size_t row = 0; row < x.size() / depth; ++row) {
      for (int32_t o = 0; o < w.shape[0]; ++o) {
        int64_t acc = value(tensor(g_, op.inputs[2]), o);
        for (size_t i = 0; i < depth; ++i) {
          acc += value(w, o * static_cast<int64_t>(depth) + static_cast<int64_t>(i)) *
                 (x[row * depth + i] - zp(g_, in));
        }
        y.push_back(static_cast<int8_t>(clamp(mbqm(acc, m.multiplier, m.shift) + zp(g_, out), -128, 127)));
      }
    }
    return y;
  }

  const ir::Graph& g_;
  testing::LstmState state_;
};

TEST(StatefulLstm, ReferenceChangesFromInvocationToInvocation) {
  for (const bool time_major : {false, true}) {
    SCOPED_TRACE(time_major ? "time-major" : "batch-major");
    const ir::Graph g = lstm_model(time_major);
    LstmReference ref(g);
    const auto input =
        random_inputs<int8_t>(3, static_cast<size_t>(tensor(g, g.inputs[0]).num_elements()));
    const auto first = ref.step(input[0]);
    EXPECT_NE(ref.step(input[0]), first);  // the same frames again: the state differs
    std::set<int8_t> distinct;
    int saturated = 0, total = 0;
    for (const auto& frames : input) {
      for (int8_t v : ref.step(frames)) {
        distinct.insert(v);
        saturated += (v == -128 || v == 127) ? 1 : 0;
        ++total;
      }
    }
    EXPECT_GE(distinct.size(), 20u);
    EXPECT_LT(saturated, total / 10);
  }
}

TEST(StatefulLstm, ReferenceGateFunctionsFollowSigmoidAndTanh) {
  // The reference's own arithmetic, checked against the functions it approximates.
  for (int64_t x = -32768; x <= 32767; x += 97) {
    const double real = static_cast<double>(x) / 4096;
    EXPECT_NEAR(static_cast<double>(testing::lstm_logistic_reference(x)) / 32768,
                1 / (1 + std::exp(-real)), 2e-4);
    EXPECT_NEAR(static_cast<double>(testing::lstm_tanh_reference(x, 0)) / 32768, std::tanh(real),
                4e-4);
  }
  EXPECT_EQ(testing::lstm_logistic_reference(0), 16384);
  EXPECT_EQ(testing::lstm_tanh_reference(0, 0), 0);
  // The cell's tanh at scale 2^-11 (shift 1): 2048 is 1.0.
  EXPECT_NEAR(static_cast<double>(testing::lstm_tanh_reference(2048, 1)) / 32768, std::tanh(1.0),
              4e-4);
}

class StatefulLstmOnCpu : public ::testing::TestWithParam<const char*> {};

TEST_P(StatefulLstmOnCpu, RunsInvocationAfterInvocationLikeTheReferenceAndResets) {
  for (const bool time_major : {false, true}) {
    SCOPED_TRACE(time_major ? "time-major" : "batch-major");
    const ir::Graph g = tflite::read_model(builder::write_model(lstm_model(time_major)));
    const pipeline::Compiled compiled = compile_for(g, GetParam());
    Device device(compiled.program);
    LstmReference ref(g);
    const auto inputs =
        random_inputs<int8_t>(11, static_cast<size_t>(tensor(g, g.inputs[0]).num_elements()));
    ASSERT_NO_FATAL_FAILURE(
        expect_runs_like_reference_and_resets(device, ref, inputs, kInvocations, "invocation"));
    // The two states (int8 hidden, int16 cell, [batches, units] each) in regions of their own,
    // each a whole number of the arena's 16-byte alignment units.
    const auto program = emit::read_program(compiled.program);
    const uint32_t cells = time_major ? 2 * 8 : 12;
    auto aligned = [](uint32_t bytes) { return (bytes + 15) / 16 * 16; };
    EXPECT_EQ(program->plan->state_bytes, aligned(cells) + aligned(2 * cells));
    EXPECT_EQ(device.executor->memory_status().state, program->plan->state_bytes);
    int states = 0;
    for (const auto& t : program->tensors) states += t->state ? 1 : 0;
    EXPECT_EQ(states, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(Cpus, StatefulLstmOnCpu, kCpus, cpu_test_name);

// What the integer kernel does not run is refused by the operator's check, naming the operator
// and the reason.
TEST(StatefulLstm, CheckRefusesWhatTheKernelDoesNotRun) {
  const ir::Graph good = lstm_model(false);
  ASSERT_EQ(refusal(good), "accepted");
  const auto lstm_op = [](ir::Graph& g) -> ir::Operator& { return g.operators[0]; };
  const std::string where = "operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM): ";
  {  // CIFG: no input gate
    ir::Graph g = good;
    lstm_op(g).inputs[1] = ir::kNoTensor;
    EXPECT_THAT(refusal(g), HasSubstr(where + "CIFG"));
  }
  {  // peephole: a cell-to-forget weight vector
    ir::Graph g = good;
    lstm_op(g).inputs[10] = lstm_op(g).inputs[13];
    EXPECT_THAT(refusal(g), HasSubstr(where + "input 10"));
    EXPECT_THAT(refusal(g), HasSubstr("peephole"));
  }
  {  // projection
    ir::Graph g = good;
    lstm_op(g).inputs[16] = lstm_op(g).inputs[5];
    EXPECT_THAT(refusal(g), HasSubstr("projection is not supported"));
  }
  {  // layer normalization
    ir::Graph g = good;
    lstm_op(g).inputs[22] = lstm_op(g).inputs[14];
    EXPECT_THAT(refusal(g), HasSubstr("layer normalization is not supported"));
  }
  {  // an activation other than TANH
    ir::Graph g = good;
    std::get<ir::LstmOptions>(lstm_op(g).options).activation_code = 1;  // RELU
    EXPECT_THAT(refusal(g), HasSubstr(where + "fused activation 1 not supported"));
  }
  {  // the output quantized otherwise than the hidden state it copies
    ir::Graph g = good;
    g.tensors[static_cast<size_t>(lstm_op(g).outputs[0])].quantization.zero_point[0] += 1;
    EXPECT_THAT(refusal(g), HasSubstr("differs from input 18"));
  }
  {  // a cell scale that is not a power of two
    ir::Graph g = good;
    g.tensors[static_cast<size_t>(lstm_op(g).inputs[19])].quantization.scale[0] *= 1.5f;
    EXPECT_THAT(refusal(g), HasSubstr("not a power of two"));
  }
  {  // per-channel weights
    ir::Graph g = good;
    ir::Quantization& q = g.tensors[static_cast<size_t>(lstm_op(g).inputs[3])].quantization;
    q.scale.assign(12, q.scale[0]);
    q.zero_point.assign(12, 0);
    EXPECT_THAT(refusal(g), HasSubstr("quantized per tensor"));
  }
  {  // a hidden state that is an ordinary activation, not the operator's state
    ir::Graph g = good;
    g.tensors[static_cast<size_t>(lstm_op(g).inputs[18])].is_variable = false;
    g.inputs.push_back(lstm_op(g).inputs[18]);
    EXPECT_THAT(refusal(g), HasSubstr(where + "input 18"));
    EXPECT_THAT(refusal(g), HasSubstr("must be the operator's state"));
  }
  {  // a cell state of the wrong type
    ir::Graph g = good;
    g.tensors[static_cast<size_t>(lstm_op(g).inputs[19])].type = ir::DataType::kInt8;
    EXPECT_THAT(refusal(g), HasSubstr(where));
    EXPECT_THAT(refusal(g), HasSubstr("expected int16"));
  }
}

// A program whose LSTM was edited after compiling is refused at load with the operator and the
// reason, before any kernel runs.
TEST(StatefulLstm, LoaderRefusesAnEditedLstm) {
  const pipeline::Compiled compiled = compile_for(lstm_model(true), "cortex-m55");
  const auto program = emit::read_program(compiled.program);
  ASSERT_EQ(repack_and_load(*program).first, runtime::Error::kOk);
  schema::OperatorT& op = *program->operators[0];
  ASSERT_EQ(op.kind, schema::OpKind::UnidirectionalSequenceLstm);
  schema::LstmOptionsT& o = *op.options.AsLstmOptions();
  {
    const int32_t saved = o.cell_clip;
    o.cell_clip = 40000;
    EXPECT_EQ(repack_and_load(*program).second,
              "UNIDIRECTIONAL_SEQUENCE_LSTM: cell clip outside [0, 32767]");
    o.cell_clip = saved;
  }
  {  // a gate requantization whose left shift overflows int32
    const schema::Requant saved = o.input_requant[1];
    o.input_requant[1] = schema::Requant(saved.multiplier(), 30);
    EXPECT_NE(repack_and_load(*program).first, runtime::Error::kOk);
    EXPECT_THAT(repack_and_load(*program).second, HasSubstr("out of range"));
    o.input_requant[1] = saved;
  }
  {  // three requantizations instead of four
    const std::vector<schema::Requant> saved = o.hidden_requant;
    o.hidden_requant.pop_back();
    EXPECT_EQ(repack_and_load(*program).second,
              "UNIDIRECTIONAL_SEQUENCE_LSTM: missing requantization");
    o.hidden_requant = saved;
  }
  {  // the hidden state input swapped for the (non-state) input
    const int32_t saved = op.inputs[13];
    op.inputs[13] = op.inputs[0];
    EXPECT_EQ(repack_and_load(*program).second,
              "UNIDIRECTIONAL_SEQUENCE_LSTM: inputs 13 and 14 must be state tensors");
    op.inputs[13] = saved;
  }
  {  // the recurrent weights of a gate in place of its input weights
    const int32_t saved = op.inputs[2];
    op.inputs[2] = op.inputs[6];
    EXPECT_EQ(repack_and_load(*program).second,
              "UNIDIRECTIONAL_SEQUENCE_LSTM: gate weights shapes inconsistent");
    op.inputs[2] = saved;
  }
  {  // a missing input
    op.inputs.pop_back();
    EXPECT_NE(repack_and_load(*program).first, runtime::Error::kOk);
  }
}

// ---- The 16x8 LSTM (TFLM's EvalLstm<int16_t, int8_t, int16_t, int64_t>): int16 input, hidden
// state and output, int64 biases; builder::lstm_16x8, two sequences, batch-major and time-major.

class Lstm16Reference {
 public:
  explicit Lstm16Reference(const ir::Graph& g) : g_(g) { reset(); }
  void reset() { state_ = testing::lstm_initial_state(g_, g_.operators[0]); }
  std::vector<int16_t> step(const std::vector<int16_t>& input) {
    const std::vector<int64_t> y = testing::lstm_reference(
        g_, g_.operators[0], std::vector<int64_t>(input.begin(), input.end()), state_);
    return {y.begin(), y.end()};
  }

 private:
  const ir::Graph& g_;
  testing::LstmState state_;
};

TEST(StatefulLstm16, ReferenceChangesFromInvocationToInvocation) {
  for (const bool time_major : {false, true}) {
    SCOPED_TRACE(time_major ? "time-major" : "batch-major");
    const ir::Graph g = builder::lstm_16x8(1, time_major);
    Lstm16Reference ref(g);
    const auto input =
        random_inputs<int16_t>(3, static_cast<size_t>(tensor(g, g.inputs[0]).num_elements()));
    const auto first = ref.step(input[0]);
    EXPECT_NE(ref.step(input[0]), first);  // the same frames again: the state differs
    std::set<int16_t> distinct;
    int saturated = 0, total = 0;
    for (const auto& frames : input) {
      for (int16_t v : ref.step(frames)) {
        distinct.insert(v);
        saturated += (v == -32768 || v == 32767) ? 1 : 0;
        ++total;
      }
    }
    EXPECT_GE(distinct.size(), static_cast<size_t>(total) * 3 / 4);  // int16 resolves them
    EXPECT_EQ(saturated, 0);
  }
}

// The reference's 16x8 arithmetic where it differs from the int8 one: TFLite's 64-bit
// requantization (the multiplier rounded to 16 bits) of the fully connected sums.
TEST(StatefulLstm16, ReferenceRequantizesSumsWithTheSixtyFourBitRule) {
  const testing::Multiplier half{1 << 30, 0};  // 0.5
  EXPECT_EQ(testing::multiply64_reference(1000, half), 500);
  EXPECT_EQ(testing::multiply64_reference(3, half), 2);    // 1.5 rounds up
  EXPECT_EQ(testing::multiply64_reference(-3, half), -1);  // -1.5 rounds up too (one shift)
  EXPECT_EQ(testing::multiply64_reference(int64_t{1} << 40, {1 << 30, -8}), int64_t{1} << 31);
  // The multiplier keeps 16 bits: 0x40008000 is 0.5 + 2^-16, read as 0x4001 / 2^15.
  EXPECT_EQ(testing::multiply64_reference(int64_t{1} << 20, {0x40008000, 0}), (0x4001 << 5));
}

class StatefulLstm16OnCpu : public ::testing::TestWithParam<const char*> {};

TEST_P(StatefulLstm16OnCpu, RunsInvocationAfterInvocationLikeTheReferenceAndResets) {
  for (const bool time_major : {false, true}) {
    SCOPED_TRACE(time_major ? "time-major" : "batch-major");
    const ir::Graph g = tflite::read_model(builder::write_model(builder::lstm_16x8(1, time_major)));
    ASSERT_EQ(tensor(g, g.inputs[0]).type, ir::DataType::kInt16);
    const pipeline::Compiled compiled = compile_for(g, GetParam());
    Device device(compiled.program);
    Lstm16Reference ref(g);
    const auto inputs =
        random_inputs<int16_t>(11, static_cast<size_t>(tensor(g, g.inputs[0]).num_elements()));
    ASSERT_NO_FATAL_FAILURE(
        expect_runs_like_reference_and_resets(device, ref, inputs, kInvocations, "invocation"));
    // Both states int16 [2 sequences, 8 units]: 32 bytes each, in regions of their own.
    const auto program = emit::read_program(compiled.program);
    EXPECT_EQ(program->plan->state_bytes, 2u * 32u);
    EXPECT_EQ(device.executor->memory_status().state, program->plan->state_bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(Cpus, StatefulLstm16OnCpu, kCpus, cpu_test_name);

// A layer that mixes the int8 and the 16x8 forms is refused, naming the operand and what to do.
TEST(StatefulLstm16, CheckRefusesAMixOfTheTwoForms) {
  const ir::Graph good = builder::lstm_16x8();
  ASSERT_EQ(refusal(good), "accepted");
  const ir::Operator& op = good.operators[0];
  const std::string where = "operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM): ";
  const std::string what_to_do =
      ": TFLM's integer LSTM takes int8 input, output and hidden state with int32 biases, or "
      "int16 ones with int64 biases (TFLite's 16x8 quantization), both with int8 weights and an "
      "int16 cell state; quantize the whole layer in one of the two forms";
  {  // int16 input with an int32 bias (the int8 form's)
    ir::Graph g = good;
    ir::Tensor& bias = g.tensors[static_cast<size_t>(op.inputs[13])];
    std::vector<uint8_t> narrow;
    for (size_t k = 0; k < bias.data.size(); k += 8) {
      int64_t v;
      std::memcpy(&v, bias.data.data() + k, 8);
      const int32_t n = static_cast<int32_t>(v);
      narrow.insert(narrow.end(), reinterpret_cast<const uint8_t*>(&n),
                    reinterpret_cast<const uint8_t*>(&n) + 4);
    }
    bias.type = ir::DataType::kInt32;
    bias.data = narrow;
    EXPECT_EQ(refusal(g), where + "input 13 (tensor " + std::to_string(op.inputs[13]) +
                              ") (the forget gate's bias) is int32, but input 0 is int16, so the "
                              "forget gate's bias must be int64" + what_to_do);
  }
  {  // an int8 hidden state under an int16 input
    ir::Graph g = good;
    g.tensors[static_cast<size_t>(op.inputs[18])].type = ir::DataType::kInt8;
    EXPECT_EQ(refusal(g), where + "input 18 (tensor " + std::to_string(op.inputs[18]) +
                              ") (the hidden state) is int8, but input 0 is int16, so the hidden "
                              "state must be int16" + what_to_do);
  }
  {  // an int8 output
    ir::Graph g = good;
    g.tensors[static_cast<size_t>(op.outputs[0])].type = ir::DataType::kInt8;
    EXPECT_THAT(refusal(g), HasSubstr(where + "output (tensor " + std::to_string(op.outputs[0]) +
                                      ") (the output) is int8, but input 0 is int16"));
  }
  {  // int16 weights (a 16x16 LSTM)
    ir::Graph g = good;
    ir::Tensor& w = g.tensors[static_cast<size_t>(op.inputs[7])];
    w.type = ir::DataType::kInt16;
    w.data.resize(w.data.size() * 2);
    EXPECT_THAT(refusal(g), HasSubstr(where + "input 7 (tensor " + std::to_string(op.inputs[7]) +
                                      ") (the cell gate's recurrent weights) is int16, but input 0 "
                                      "is int16, so the cell gate's recurrent weights must be "
                                      "int8"));
  }
  {  // the int8 form with an int64 bias
    ir::Graph g = lstm_model(false);
    builder::widen_bias(g.tensors[static_cast<size_t>(g.operators[0].inputs[12])]);
    EXPECT_THAT(refusal(g), HasSubstr("(the input gate's bias) is int64, but input 0 is int8, so "
                                      "the input gate's bias must be int32"));
  }
  {  // a bias beyond TFLite's 64-bit requantization's range (|sum| < 2^47)
    ir::Graph g = good;
    ir::Tensor& bias = g.tensors[static_cast<size_t>(op.inputs[14])];
    const int64_t huge = int64_t{1} << 50;
    std::memcpy(bias.data.data(), &huge, 8);
    EXPECT_THAT(refusal(g), HasSubstr(where + "the cell gate's input (input scale * weights "
                                      "scale / 2^-12) requantization"));
    EXPECT_THAT(refusal(g), HasSubstr("leaves TFLite's 64-bit requantization's range"));
  }
  {  // no hidden state
    ir::Graph g = good;
    g.operators[0].inputs[18] = ir::kNoTensor;
    EXPECT_THAT(refusal(g), HasSubstr(where + "input 18"));
  }
  {  // an int16 hidden state off zero
    ir::Graph g = good;
    for (int32_t t : {op.inputs[18], op.outputs[0]}) {
      g.tensors[static_cast<size_t>(t)].quantization.zero_point = {5};
    }
    EXPECT_THAT(refusal(g), HasSubstr(where + "input 18"));
    EXPECT_THAT(refusal(g), HasSubstr("int16 activations must be symmetric (zero point 0)"));
  }
}

// The load check of the 16x8 signature: each field a program could be edited in.
TEST(StatefulLstm16, LoaderRefusesAnEditedLstm) {
  const pipeline::Compiled compiled = compile_for(builder::lstm_16x8(), "cortex-m4");
  const auto program = emit::read_program(compiled.program);
  ASSERT_EQ(repack_and_load(*program).first, runtime::Error::kOk);
  schema::OperatorT& op = *program->operators[0];
  ASSERT_EQ(op.kind, schema::OpKind::UnidirectionalSequenceLstm);
  schema::LstmOptionsT& o = *op.options.AsLstmOptions();
  auto tensor_of = [&](size_t k) -> schema::TensorT& {
    return *program->tensors[static_cast<size_t>(op.inputs[k])];
  };
  {  // an input zero point
    o.input_offset = -3;
    EXPECT_EQ(repack_and_load(*program).second,
              "UNIDIRECTIONAL_SEQUENCE_LSTM: int16 zero point not 0");
    o.input_offset = 0;
  }
  {  // the hidden state's zero point
    o.hidden_zero_point = 1;
    EXPECT_EQ(repack_and_load(*program).second,
              "UNIDIRECTIONAL_SEQUENCE_LSTM: int16 zero point not 0");
    o.hidden_zero_point = 0;
  }
  {  // an int8 hidden state under the int16 input
    tensor_of(13).type = schema::DataType::Int8;
    EXPECT_NE(repack_and_load(*program).first, runtime::Error::kOk);
    tensor_of(13).type = schema::DataType::Int16;
  }
  {  // int32 biases under the int16 input (the bytes read as int32 values)
    tensor_of(10).type = schema::DataType::Int32;
    EXPECT_NE(repack_and_load(*program).first, runtime::Error::kOk);
    tensor_of(10).type = schema::DataType::Int64;
  }
  {  // a bias whose int64 sums could overflow
    const std::vector<int32_t> shape = tensor_of(9).shape;
    ASSERT_EQ(repack_and_load(*program).first, runtime::Error::kOk);
    schema::TensorT& bias = tensor_of(9);
    std::vector<uint8_t>& blob = program->constants;
    int64_t huge = INT64_MAX - 5;
    int64_t saved;
    std::memcpy(&saved, blob.data() + bias.offset, 8);
    std::memcpy(blob.data() + bias.offset, &huge, 8);
    EXPECT_EQ(repack_and_load(*program).second,
              "UNIDIRECTIONAL_SEQUENCE_LSTM: accumulator could overflow int64");
    huge = INT64_MIN;
    std::memcpy(blob.data() + bias.offset, &huge, 8);
    EXPECT_EQ(repack_and_load(*program).second,
              "UNIDIRECTIONAL_SEQUENCE_LSTM: accumulator could overflow int64");
    std::memcpy(blob.data() + bias.offset, &saved, 8);
  }
  {  // a negative gate multiplier
    const schema::Requant saved = o.input_requant[2];
    o.input_requant[2] = schema::Requant(-saved.multiplier(), saved.shift());
    EXPECT_NE(repack_and_load(*program).first, runtime::Error::kOk);
    o.input_requant[2] = saved;
  }
  ASSERT_EQ(repack_and_load(*program).first, runtime::Error::kOk);
}

TEST(Stateful, VerifierKeepsEveryBufferOffAState) {
  planner::Problem problem;
  problem.num_steps = 3;
  planner::Buffer state;
  state.name = "state";
  state.kind = planner::BufferKind::kState;
  state.size = 32;
  state.first_step = 0;
  state.last_step = 2;
  planner::Buffer a;
  a.name = "a";
  a.size = 32;
  a.first_step = 1;
  a.last_step = 1;
  problem.buffers = {state, a};
  planner::Plan plan;
  plan.offsets = {0, 32};
  plan.arena_bytes = 64;
  EXPECT_EQ(planner::verify(problem, plan), std::nullopt);
  // Even with lifetimes that do not meet, nothing shares a state's bytes.
  problem.buffers[0].last_step = 0;
  problem.buffers[1].first_step = problem.buffers[1].last_step = 2;
  plan.offsets = {0, 16};
  EXPECT_NE(planner::verify(problem, plan), std::nullopt);
  // And a state must live at every step.
  EXPECT_THROW(planner::validate(problem), InputError);
}

TEST(Stateful, ValidatorKeepsStateWhereAnOperatorDeclaresIt) {
  const ir::Graph good = keyword_model();
  EXPECT_EQ(refusal(good), "accepted");
  // The first SVDF's state handed to the second as well.
  ir::Graph shared = good;
  shared.operators[1].inputs[4] = shared.operators[0].inputs[4];
  EXPECT_THAT(refusal(shared), HasSubstr("operator 1 (SVDF): input 4"));
  EXPECT_THAT(refusal(shared), HasSubstr("operators cannot share a state"));
  // A state read by an operator that keeps none.
  ir::Graph misused = good;
  misused.operators[2].inputs[0] = misused.operators[0].inputs[4];
  EXPECT_THAT(refusal(misused), HasSubstr("is a variable tensor (state), which this operator"));
  // An SVDF whose state input is an ordinary activation.
  ir::Graph plain = keyword_model(/*int8_state=*/true);  // an int8 activation is allowed
  plain.tensors[static_cast<size_t>(plain.operators[0].inputs[4])].is_variable = false;
  plain.inputs.push_back(plain.operators[0].inputs[4]);
  EXPECT_THAT(refusal(plain), HasSubstr("must be the operator's state"));
  // A state as graph output.
  ir::Graph output = good;
  output.outputs.push_back(output.operators[0].inputs[4]);
  EXPECT_THAT(refusal(output), HasSubstr("graph output 1"));
}

// ---- Real recurrent models: TFLM's examples (keyword_scrambled_8bit, mnist_lstm's
// trained_lstm_int8, micro_speech_lstm, dtln_noise_suppression), from the folder
// $MOTE_RECURRENT_MODELS or ../shared/models/recurrent, each <name>.tflite beside
// <name>.expected.bin: TFLM's reference kernels' outputs of three invocations, state carried, the
// inputs one xorshift32 stream (state 1) across them. Skipped when the folder is absent.

fs::path recurrent_models_dir() {
  if (const char* dir = std::getenv("MOTE_RECURRENT_MODELS")) return dir;
  return fs::path(MOTE_SHARED_DIR) / "models" / "recurrent";
}

// The names of the <name>.tflite in `dir` with a <name>.expected.bin beside them, sorted; {""}
// (one skipped case) when there are none.
std::vector<std::string> models_with_expected(const fs::path& dir) {
  std::vector<std::string> names;
  if (!fs::is_directory(dir)) return {""};
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path expected = fs::path(entry.path()).replace_extension(".expected.bin");
    if (entry.path().extension() == ".tflite" && fs::exists(expected)) {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names.empty() ? std::vector<std::string>{""} : names;
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `runs` frames of DefaultInput's stream through `device`, each output against its slice of
// `expected` (TFLM's outputs, one invocation after another); then reset_state() and the first
// frame again must give the first output again.
void ExpectStreamThenReset(Device& device, const std::vector<uint8_t>& expected, size_t runs) {
  const size_t in_bytes = device.executor->input(0).size;
  const size_t out_bytes = device.executor->output(0).size;
  const auto output = [&](size_t k) {
    return std::vector<int8_t>(expected.begin() + k * out_bytes,
                               expected.begin() + (k + 1) * out_bytes);
  };
  pipeline::DefaultInput stream;
  std::vector<int8_t> first;
  for (size_t k = 0; k < runs; ++k) {
    std::vector<uint8_t> frame(in_bytes);
    stream.fill(frame);
    const std::vector<int8_t> input(frame.begin(), frame.end());
    if (k == 0) first = input;
    EXPECT_EQ(device.run(input), output(k)) << "invocation " << k;
  }
  device.executor->reset_state();
  EXPECT_EQ(device.run(first), output(0)) << "after reset_state";
}

std::vector<std::string> recurrent_models() { return models_with_expected(recurrent_models_dir()); }

class RecurrentModel : public ::testing::TestWithParam<std::string> {};

TEST_P(RecurrentModel, EqualsTflmAcrossInvocationsAndResets) {
  if (GetParam().empty()) GTEST_SKIP() << "no recurrent models in " << recurrent_models_dir();
  const fs::path dir = recurrent_models_dir();
  const ir::Graph graph = tflite::read_model_file(dir / (GetParam() + ".tflite"));
  const std::vector<uint8_t> expected = read_bytes(dir / (GetParam() + ".expected.bin"));
  constexpr size_t kRuns = 3;
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    Device device(compile_for(graph, cpu).program);
    ASSERT_EQ(expected.size(), kRuns * device.executor->output(0).size);
    ExpectStreamThenReset(device, expected, kRuns);
  }
}

INSTANTIATE_TEST_SUITE_P(Tflm, RecurrentModel, ::testing::ValuesIn(recurrent_models()),
                         [](const auto& info) {
                           return info.param.empty() ? std::string("none") : info.param;
                         });

// The builder's audio front end (every signal operator, the int32 arithmetic, CASTs and a state)
// run op by op straight on the kernels, the state carried: what the compiled program must give.
class FrontendReference {
 public:
  explicit FrontendReference(const ir::Graph& g) : g_(g), values_(g.tensors.size()) { reset(); }
  void reset() {
    for (size_t i = 0; i < g_.tensors.size(); ++i) {
      const ir::Tensor& t = g_.tensors[i];
      values_[i] = t.is_constant ? t.data : std::vector<uint8_t>(t.num_bytes(), 0);
    }
  }
  std::vector<int8_t> step(const std::vector<int8_t>& frame) {
    std::memcpy(values_[g_.inputs[0]].data(), frame.data(), frame.size());
    for (const ir::Operator& op : g_.operators) run(op);
    const std::vector<uint8_t>& y = values_[g_.outputs[0]];
    return {y.begin(), y.end()};
  }

 private:
  template <typename T>
  T* at(int32_t t) { return reinterpret_cast<T*>(values_[t].data()); }
  int32_t count(int32_t t) const { return static_cast<int32_t>(g_.tensors[t].num_elements()); }
  static kernels::IntegerType integer(ir::DataType t) {
    switch (t) {
      case ir::DataType::kInt8: return kernels::IntegerType::kInt8;
      case ir::DataType::kInt16: return kernels::IntegerType::kInt16;
      case ir::DataType::kUInt32: return kernels::IntegerType::kUInt32;
      default: return kernels::IntegerType::kInt32;
    }
  }
  void run(const ir::Operator& op) {
    const auto& in = op.inputs;
    const int32_t out = op.outputs[0];
    const auto* o = std::get_if<ir::SignalOptions>(&op.options);
    switch (op.type) {
      case ir::OpType::kSignalWindow:
        kernels::signal_window(at<int16_t>(in[0]), at<int16_t>(in[1]), count(in[0]), count(in[1]),
                               o->shift, at<int16_t>(out));
        break;
      case ir::OpType::kReshape: values_[out] = values_[in[0]]; break;
      case ir::OpType::kSignalFftAutoScale:
        *at<int32_t>(op.outputs[1]) =
            kernels::signal_fft_auto_scale(at<int16_t>(in[0]), count(in[0]), at<int16_t>(out));
        break;
      case ir::OpType::kSignalRfft: {
        const int32_t n = o->fft_length;
        std::vector<int16_t> tw;
        for (int32_t i = 0; i < n / 2; ++i) {
          const double phase = -2 * M_PI * i / (n / 2);
          tw.push_back(static_cast<int16_t>(std::floor(0.5 + 32767 * std::cos(phase))));
          tw.push_back(static_cast<int16_t>(std::floor(0.5 + 32767 * std::sin(phase))));
        }
        for (int32_t i = 0; i < n / 4; ++i) {
          const double phase = -M_PI * ((double)(i + 1) / (n / 2) + .5);
          tw.push_back(static_cast<int16_t>(std::floor(0.5 + 32767 * std::cos(phase))));
          tw.push_back(static_cast<int16_t>(std::floor(0.5 + 32767 * std::sin(phase))));
        }
        std::vector<uint32_t> scratch(kernels::signal_rfft_scratch_bytes(n) / 4);
        kernels::signal_rfft({n, count(in[0]), 1, n / 2 + 1}, tw.data(), at<int16_t>(in[0]),
                             at<int16_t>(out), scratch.data());
        break;
      }
      case ir::OpType::kSignalEnergy:
        kernels::signal_energy(at<int16_t>(in[0]), o->start_index, o->end_index, count(out),
                               at<uint32_t>(out));
        break;
      case ir::OpType::kCast:
        kernels::cast(integer(g_.tensors[in[0]].type), values_[in[0]].data(),
                      integer(g_.tensors[out].type), values_[out].data(),
                      static_cast<size_t>(count(out)));
        break;
      case ir::OpType::kSignalFilterBank: {
        const kernels::FilterBankParams p{o->num_channels,     at<int16_t>(in[1]),
                                          at<int16_t>(in[2]), at<int16_t>(in[3]),
                                          at<int16_t>(in[4]), at<int16_t>(in[5])};
        kernels::signal_filter_bank(p, at<uint32_t>(in[0]), at<uint64_t>(out));
        break;
      }
      case ir::OpType::kSignalFilterBankSquareRoot:
        kernels::signal_filter_bank_square_root(at<uint64_t>(in[0]), count(in[0]),
                                                *at<int32_t>(in[1]), at<uint32_t>(out));
        break;
      case ir::OpType::kSignalFilterBankSpectralSubtraction: {
        kernels::SpectralSubtractionParams p{};
        p.num_channels = o->num_channels;
        p.smoothing = o->smoothing;
        p.one_minus_smoothing = o->one_minus_smoothing;
        p.alternate_smoothing = o->alternate_smoothing;
        p.alternate_one_minus_smoothing = o->alternate_one_minus_smoothing;
        p.min_signal_remaining = o->min_signal_remaining;
        p.smoothing_bits = o->smoothing_bits;
        p.spectral_subtraction_bits = o->spectral_subtraction_bits;
        p.clamping = o->clamping;
        kernels::signal_spectral_subtraction(p, at<uint32_t>(in[0]), at<uint32_t>(out),
                                             at<uint32_t>(in[1]));
        values_[op.outputs[1]] = values_[in[1]];
        break;
      }
      case ir::OpType::kSignalPcan:
        kernels::signal_pcan(at<uint32_t>(in[0]), at<uint32_t>(in[1]), at<int16_t>(in[2]),
                             o->snr_shift, count(in[0]), at<uint32_t>(out));
        break;
      case ir::OpType::kSignalFilterBankLog:
        kernels::signal_filter_bank_log(at<uint32_t>(in[0]), count(in[0]), o->output_scale,
                                        o->input_correction_bits, at<int16_t>(out));
        break;
      default: {
        const kernels::IntegerOp kind = op.type == ir::OpType::kMul   ? kernels::IntegerOp::kMul
                                        : op.type == ir::OpType::kAdd ? kernels::IntegerOp::kAdd
                                        : op.type == ir::OpType::kDiv ? kernels::IntegerOp::kDiv
                                        : op.type == ir::OpType::kMinimum
                                            ? kernels::IntegerOp::kMinimum
                                            : kernels::IntegerOp::kMaximum;
        // The scalar operand: every element against its one value.
        for (int32_t i = 0; i < count(out); ++i) {
          const int32_t a = at<int32_t>(in[0])[i], b = *at<int32_t>(in[1]);
          int32_t r = 0;
          kernels::integer_binary(kind, kernels::elementwise_shape(1), &a, &b, &r, INT32_MIN,
                                  INT32_MAX);
          at<int32_t>(out)[i] = r;
        }
        break;
      }
    }
  }

  const ir::Graph& g_;
  std::vector<std::vector<uint8_t>> values_;
};

TEST(AudioFrontend, RunsLikeItsKernelsWithStateAndResets) {
  const ir::Graph g = builder::audio_frontend();
  // Through a .tflite and back: the custom operators' options and the state the reader adds.
  const ir::Graph back = tflite::read_model(builder::write_model(g));
  ASSERT_EQ(back.operators.size(), g.operators.size());
  for (size_t i = 0; i < g.operators.size(); ++i) {
    EXPECT_EQ(back.operators[i].options, g.operators[i].options) << i;
  }
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    Device device(compile_for(back, cpu).program);
    FrontendReference ref(back);
    pipeline::DefaultInput stream;
    std::vector<std::vector<int8_t>> inputs, outputs;
    for (int k = 0; k < 6; ++k) {
      std::vector<uint8_t> frame(device.executor->input(0).size);
      stream.fill(frame);
      inputs.emplace_back(frame.begin(), frame.end());
      outputs.push_back(ref.step(inputs.back()));
      EXPECT_EQ(device.run(inputs.back()), outputs.back()) << "invocation " << k;
    }
    device.executor->reset_state();
    EXPECT_EQ(device.run(inputs[0]), outputs[0]) << "after reset_state";
    EXPECT_EQ(device.run(inputs[1]), outputs[1]) << "after reset_state";
  }
}

// TFLM's signal models (the micro_speech audio preprocessor: the spectral subtraction's noise
// estimate carried from one invocation to the next), from $MOTE_SIGNAL_MODELS or
// shared/models/signal: <name>.tflite with <name>.expected.bin, TFLM's outputs of kSignalRuns
// invocations on pipeline::DefaultInput's stream, and optionally <name>.<clip>.input.bin with
// <name>.<clip>.expected.bin (frames of a recording, one after the other, and TFLM's outputs).
// Skipped without them.
fs::path signal_models_dir() {
  if (const char* dir = std::getenv("MOTE_SIGNAL_MODELS")) return dir;
  return fs::path(MOTE_SHARED_DIR) / "models" / "signal";
}

std::vector<std::string> signal_models() { return models_with_expected(signal_models_dir()); }

class SignalModel : public ::testing::TestWithParam<std::string> {};

TEST_P(SignalModel, EqualsTflmAcrossInvocationsAndResets) {
  if (GetParam().empty()) GTEST_SKIP() << "no signal models in " << signal_models_dir();
  const fs::path dir = signal_models_dir();
  const ir::Graph graph = tflite::read_model_file(dir / (GetParam() + ".tflite"));
  const std::vector<uint8_t> expected = read_bytes(dir / (GetParam() + ".expected.bin"));
  // Recordings: every <name>.<clip>.input.bin beside its .expected.bin.
  std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> clips;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    const std::string prefix = GetParam() + ".", suffix = ".input.bin";
    if (file.size() > prefix.size() + suffix.size() && file.rfind(prefix, 0) == 0 &&
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
      const std::string clip = file.substr(0, file.size() - suffix.size());
      clips.emplace_back(read_bytes(entry.path()), read_bytes(dir / (clip + ".expected.bin")));
    }
  }
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    Device device(compile_for(graph, cpu).program);
    const size_t in_bytes = device.executor->input(0).size;
    const size_t out_bytes = device.executor->output(0).size;
    ASSERT_GT(out_bytes, 0u);
    ASSERT_EQ(expected.size() % out_bytes, 0u);
    ExpectStreamThenReset(device, expected, expected.size() / out_bytes);
    for (const auto& [frames, outputs] : clips) {
      ASSERT_EQ(frames.size() % in_bytes, 0u);
      ASSERT_EQ(outputs.size(), frames.size() / in_bytes * out_bytes);
      device.executor->reset_state();
      for (size_t k = 0; k * in_bytes < frames.size(); ++k) {
        const std::vector<int8_t> frame(frames.begin() + k * in_bytes,
                                        frames.begin() + (k + 1) * in_bytes);
        EXPECT_EQ(device.run(frame), std::vector<int8_t>(outputs.begin() + k * out_bytes,
                                                         outputs.begin() + (k + 1) * out_bytes))
            << "recording frame " << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tflm, SignalModel, ::testing::ValuesIn(signal_models()),
                         [](const auto& info) {
                           return info.param.empty() ? std::string("none") : info.param;
                         });

}  // namespace
}  // namespace mote
