#include "compiler/pipeline/compile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ops/validate.h"
#include "compiler/passes/operator_order.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/pipeline/instruction_estimate.h"
#include "compiler/planner/verify.h"
#include "compiler/target/instruction_costs.h"
#include "mote/kernels/overlap.h"
#include "mote/runtime/executor.h"
#include "mote/schema/mote_generated.h"
#include "runtime/ops/convolution.h"
#include "runtime/stages.h"
#include "program/stage_schedule.h"

namespace mote::pipeline {
namespace {

using ::testing::AnyOf;

TEST(Compile, RejectsUnknownTargetAndBadAlignment) {
  CompileOptions options;
  options.plan.cpu = "cortex-a53";
  EXPECT_THROW(compile(builder::conv2d_x3(), options), InputError);
  options.plan.cpu = "cortex-m4";
  options.plan.alignment = 24;
  EXPECT_THROW(compile(builder::conv2d_x3(), options), InputError);
}

TEST(Compile, ScalesTheKernelsCannotRequantizeAreBadInputNotABug) {
  // Found by fuzz_tflite_reader: a valid model whose weight scale 6.9e27 makes the conv's
  // requantization shift far above 30. The runtime refuses the program; the compiler must report
  // bad input (mote compile: exit 2), not throw std::logic_error (exit 1, "a compiler bug").
  ir::Graph graph = builder::conv2d_x3();
  bool changed = false;
  for (ir::Tensor& t : graph.tensors) {
    if (t.is_constant && t.quantization.scale.size() > 1 && !changed) {
      t.quantization.scale[1] = 6.856e27f;
      changed = true;
    }
  }
  ASSERT_TRUE(changed);
  try {
    compile(graph, CompileOptions{});
    FAIL() << "compiled";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Conv2D): multiplier or shift out of range"),
              std::string::npos)
        << e.what();
  }
}

TEST(Compile, StridesAboveWhatTheRuntimeTakesAreBadInputNotABug) {
  // Found by fuzz_tflite_reader: a depthwise convolution with stride_h 2^31 - 1 over a height of
  // 1 is valid TFLite (the output height is 1 whatever the stride) but above the runtime's 256.
  builder::ModelBuilder b(4);
  const builder::TensorId x = b.add_input({1, 1, 12, 1}, ir::DataType::kInt8, 0.05f, 0);
  b.mark_output(b.add_depthwise(x, 1, 3, 1, ir::Padding::kValid, ir::Activation::kNone, 4));
  ir::Graph graph = b.build();
  std::get<ir::DepthwiseConv2DOptions>(graph.operators[0].options).stride_h = INT32_MAX;
  try {
    compile(graph, CompileOptions{});
    FAIL() << "compiled";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("DepthwiseConv2D): stride or dilation above 256"),
              std::string::npos)
        << e.what();
  }
}

TEST(Compile, ActivationScalesTheKernelsCannotTakeAreBadInputNotABug) {
  // Like the cases above (review after the fuzzer's findings): extreme input scales made
  // SOFTMAX, LOGISTIC and HARD_SWISH parameters the runtime refuses (std::logic_error), and
  // prepare_softmax / prepare_logistic shift by negative amounts or overflow a float-to-int
  // conversion (UBSan) on the way.
  enum Kind { kSoftmax, kLogistic, kHardSwish };
  auto compile_one = [](Kind kind, float input_scale) {
    builder::ModelBuilder b(1);
    const builder::TensorId x = b.add_input({1, 10}, ir::DataType::kInt8, input_scale, 0);
    b.mark_output(kind == kSoftmax    ? b.add_softmax(x)
                  : kind == kLogistic ? b.add_logistic(x)
                                      : b.add_hard_swish(x));
    return compile(b.build(), CompileOptions{});
  };
  auto message = [&](Kind kind, float input_scale) -> std::string {
    try {
      compile_one(kind, input_scale);
      return "compiled";
    } catch (const InputError& e) {
      return e.what();
    }
  };
  EXPECT_NE(message(kSoftmax, 4e-9f).find("too small for the int8 kernel"), std::string::npos);
  EXPECT_NE(message(kLogistic, 8.0f).find("outside what the int8 kernel supports"),
            std::string::npos);
  EXPECT_NE(message(kHardSwish, 1e10f).find("outside what the int8 kernel supports"),
            std::string::npos);
  EXPECT_NE(message(kHardSwish, 3.5e-12f).find("outside what the int8 kernel supports"),
            std::string::npos);
  {  // Found by fuzz_tflite_reader: a ratio of scales infinite in float (UBSan: infinity
     // converted to an integer in quantize_multiplier).
    builder::ModelBuilder b(1);
    const builder::TensorId x = b.add_input({1, 10}, ir::DataType::kInt8, 0.1f, 0);
    const builder::TensorId y = b.add_hard_swish(x);
    b.mark_output(y);
    ir::Graph graph = b.build();
    graph.tensors[x].quantization.scale = {3e38f};
    graph.tensors[y].quantization.scale = {1e-38f};
    try {
      ops::validate(graph);  // as read_model does
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("output scale too small"), std::string::npos)
          << e.what();
    }
  }
  // Just inside: they compile and run.
  for (const auto& [kind, scale] : {std::pair{kSoftmax, 1e-6f}, std::pair{kLogistic, 1e-10f},
                                    std::pair{kLogistic, 7.9f}, std::pair{kHardSwish, 1e-10f}}) {
    EXPECT_EQ(run_on_host(compile_one(kind, scale).program).outputs.size(), 1u);
  }
}

TEST(Compile, ExtremeFullyConnectedBiasIsBadInputNotAnOverflow) {
  // Found by fuzz_tflite_reader (UBSan: signed overflow in fully_connected_kernel_sums): a bias of
  // INT32_MIN overflowed the kernel sums the compiler precomputes for MVE. They saturate now, and
  // the runtime refuses the accumulator bound, which the compiler reports as bad input.
  builder::ModelBuilder b(1);
  const builder::TensorId x = b.add_input({1, 16}, ir::DataType::kInt8, 0.1f, 3);
  b.mark_output(b.add_fully_connected(x, 4));
  ir::Graph graph = b.build();
  const int32_t bias_index = graph.operators[0].inputs[2];
  ASSERT_GE(bias_index, 0);
  const int32_t lowest = INT32_MIN;
  std::memcpy(graph.tensors[static_cast<size_t>(bias_index)].data.data(), &lowest, 4);
  for (const char* cpu : {"cortex-m0", "cortex-m55"}) {
    CompileOptions options;
    options.plan.cpu = cpu;
    try {
      compile(graph, options);
      ADD_FAILURE() << cpu << ": compiled";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("accumulator could overflow"), std::string::npos)
          << e.what();
    }
  }
}

// Every builder model, every extension, two planners: the outputs never change, because a plan
// only moves bytes around. A plan that let two live buffers overlap would change them.
TEST(Compile, EveryModelRunsAndGivesTheSameOutputOnEveryTargetAndPlan) {
  for (const builder::NamedModel& model : builder::all_named_models()) {
    SCOPED_TRACE(model.name);
    std::vector<std::vector<uint8_t>> reference;
    for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
      for (planner::Algorithm algorithm : {planner::Algorithm::kNaive, planner::Algorithm::kAuto}) {
        SCOPED_TRACE(std::string(cpu) + " " + std::string(planner::to_string(algorithm)));
        CompileOptions options;
        options.plan.cpu = cpu;
        options.plan.algorithm = algorithm;
        options.plan.time_limit_ms = 100;
        const Compiled compiled = compile(model.graph, options);
        EXPECT_EQ(planner::verify(compiled.planned.memory.problem, compiled.planned.plan()),
                  std::nullopt);
        const HostRun run = run_on_host(compiled.program);
        EXPECT_EQ(run.status.temp_allocator, 0u);
        EXPECT_EQ(run.status.arena_planned, compiled.planned.plan().arena_bytes);
        EXPECT_EQ(run.status.program_size, compiled.program.size());
        ASSERT_FALSE(run.outputs.empty());
        if (reference.empty()) {
          reference = run.outputs;
        } else {
          EXPECT_EQ(run.outputs, reference);
        }
      }
    }
  }
}

TEST(Compile, ScratchIsPlannedPerExtension) {
  // KWS's first layer (49x10x1 input, 10x4 filter, stride 2, 25x5 output): two int16 columns of
  // 40 taps, 160 bytes, portable and dsp; the Helium kernel gathers five int8 columns, its rows
  // of five pixels one block in a row call (CMSIS-NN would take 192 on MVE).
  const struct {
    const char* cpu;
    uint64_t bytes;
  } expected[] = {{"cortex-m0plus", 160}, {"cortex-m4", 160}, {"cortex-m55", 200}};
  for (const auto& e : expected) {
    PlanRequest request;
    request.cpu = e.cpu;
    const PlannedGraph planned = plan_graph(builder::kws_dscnn_like(), request);
    const int32_t scratch = planned.memory.op_scratch_buffer[0];
    ASSERT_NE(scratch, passes::kNoBuffer) << e.cpu;
    EXPECT_EQ(planned.memory.problem.buffers[static_cast<size_t>(scratch)].size, e.bytes)
        << e.cpu;
  }
}

// The first-fit row is TensorFlow Lite Micro's rule on its own problem (model order, outputs
// apart, no kernel in place, no stage, inputs in the arena), whatever Mote's plan used: on the
// keyword-spotting model 16,000 bytes on every CPU, though the M4's plan runs depthwise in place
// (its plane scratch is no part of TFLM's problem) and a streamed plan has rings.
TEST(Compile, FirstFitRowIsTensorFlowLiteMicrosRuleOnItsProblem) {
  const ir::Graph graph = builder::kws_dscnn_like();
  for (const char* cpu : {"cortex-m4", "cortex-m55"}) {
    for (const bool stream : {false, true}) {
      PlanRequest request;
      request.cpu = cpu;
      request.stream = stream;
      request.inputs_outside_arena = stream;
      const PlannedGraph planned = plan_graph(graph, request);
      const planner::Plan* first_fit = nullptr;
      for (size_t k = 1; k < planned.plans.size(); ++k) {
        if (planned.plans[k].algorithm == "first-fit") first_fit = &planned.plans[k];
      }
      ASSERT_NE(first_fit, nullptr) << cpu;
      EXPECT_EQ(first_fit->arena_bytes, 16000u) << cpu << (stream ? " streamed" : "");
      EXPECT_FALSE(first_fit->optimal) << "Mote's bound is below it";
      const planner::Problem& problem = planner::problem_of(*first_fit, planned.memory.problem);
      EXPECT_EQ(problem, tflm_problem(graph, request));
      EXPECT_TRUE(problem.overlaps.empty());
      EXPECT_EQ(planner::verify(problem, *first_fit), std::nullopt);
    }
  }
}

// TFLM runs the model as written: the first-fit row plans the PADs Mote folds and the float input
// Mote holds quantized (with its QUANTIZE), one step per model operator.
TEST(Compile, FirstFitRowRunsTheModelsPadsAndFloatInputs) {
  for (const ir::Graph& model : {builder::explicit_pads(), builder::conv2d_x3()}) {
    PlanRequest request;
    request.cpu = "cortex-m4";
    const PlannedGraph planned = plan_graph(model, request);
    ASSERT_LT(planned.graph.operators.size(), model.operators.size());
    const planner::Plan* first_fit = nullptr;
    for (size_t k = 1; k < planned.plans.size(); ++k) {
      if (planned.plans[k].algorithm == "first-fit") first_fit = &planned.plans[k];
    }
    ASSERT_NE(first_fit, nullptr);
    const planner::Problem& problem = planner::problem_of(*first_fit, planned.memory.problem);
    EXPECT_EQ(problem, tflm_problem(model, request));
    EXPECT_EQ(problem.num_steps, static_cast<int32_t>(model.operators.size()));
    EXPECT_GE(first_fit->arena_bytes,
              planner::plan(tflm_problem(planned.graph, request), planner::Algorithm::kFirstFit)
                  .arena_bytes);
  }
}

TEST(Compile, ReshapeSharesItsInputsBuffer) {
  const ir::Graph graph = builder::kws_dscnn_like();
  const PlannedGraph planned = plan_graph(graph, {});
  bool found = false;
  for (const ir::Operator& op : graph.operators) {
    if (op.type != ir::OpType::kReshape) continue;
    found = true;
    const auto in = static_cast<size_t>(op.inputs[0]);
    const auto out = static_cast<size_t>(op.outputs[0]);
    EXPECT_EQ(planned.memory.tensor_buffer[in], planned.memory.tensor_buffer[out]);
    EXPECT_EQ(planned.memory.buffer_owner[out], static_cast<int32_t>(in));
  }
  EXPECT_TRUE(found);
}

// The reason the loader gives for a tampered copy of `program` (packed without emit's own
// check), or "" when it runs.
std::string tampered_refusal(const schema::Program& program,
                             const std::vector<std::vector<uint8_t>>& inputs,
                             const std::function<void(schema::ProgramT&)>& change) {
  schema::ProgramT copy;
  program.UnPackTo(&copy);
  change(copy);
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(schema::Program::Pack(builder, &copy), schema::ProgramIdentifier());
  const std::vector<uint8_t> bytes(builder.GetBufferPointer(),
                                   builder.GetBufferPointer() + builder.GetSize());
  try {
    run_on_host(bytes, inputs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Compile, TenChainedConvolutionsReachTheLowerBound) {
  const ir::Graph graph = builder::conv_chain(10);
  PlanRequest request;
  request.cpu = "cortex-m4";
  request.overlap = false;
  const PlannedGraph apart = plan_graph(graph, request);
  EXPECT_EQ(apart.plan().arena_bytes, apart.bound.bytes);
  EXPECT_TRUE(apart.plan().optimal);
  EXPECT_TRUE(apart.memory.problem.overlaps.empty());
  // With overlaps: never more than apart (every plan apart is one of its plans), never below
  // its own bound.
  request.overlap = true;
  const PlannedGraph overlapped = plan_graph(graph, request);
  EXPECT_FALSE(overlapped.memory.problem.overlaps.empty());
  EXPECT_LE(overlapped.plan().arena_bytes, apart.plan().arena_bytes);
  EXPECT_GE(overlapped.plan().arena_bytes, overlapped.bound.bytes);
  EXPECT_LE(overlapped.bound.bytes, apart.bound.bytes);
}

// A depthwise-separable chain (keyword spotting's kind): with overlaps, the plan runs some
// pointwise convolutions backward (their outputs above their dying inputs), the program says so,
// and the outputs equal the program's without overlap on every extension. The loader refuses
// the program when the mark is taken away (the output above its input in a forward run), put on
// an operator that cannot run backward, or when the output is moved below its input.
TEST(Compile, BackwardPointwiseRunsAreMarkedCheckedAndExact) {
  const ir::Graph graph = builder::kws_dscnn_like();
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    CompileOptions options;
    options.plan.cpu = cpu;
    options.plan.time_limit_ms = 100;
    options.plan.overlap = false;
    const Compiled apart = compile(graph, options);
    options.plan.overlap = true;
    const Compiled compiled = compile(graph, options);
    EXPECT_LT(compiled.planned.plan().arena_bytes, apart.planned.plan().arena_bytes);
    const auto* program = schema::GetProgram(compiled.program.data());
    std::vector<uint32_t> backward;
    for (uint32_t k = 0; k < program->operators()->size(); ++k) {
      const schema::Operator& op = *program->operators()->Get(k);
      if (!op.backward()) continue;
      backward.push_back(k);
      EXPECT_EQ(op.kind(), schema::OpKind::Conv2D);
      const auto* out = program->tensors()->Get(static_cast<uint32_t>(op.outputs()->Get(0)));
      const auto* in = program->tensors()->Get(static_cast<uint32_t>(op.inputs()->Get(0)));
      EXPECT_GT(out->offset(), in->offset());
      EXPECT_LT(out->offset(), in->offset() + in->size());  // they do share bytes
    }
    ASSERT_FALSE(backward.empty());
    const std::vector<uint8_t> input(program->tensors()->Get(
        static_cast<uint32_t>(program->inputs()->Get(0)))->size(), 0);
    std::vector<std::vector<uint8_t>> inputs = {input};
    for (size_t i = 0; i < inputs[0].size(); ++i) inputs[0][i] = static_cast<uint8_t>(i * 37 + 5);
    EXPECT_EQ(run_on_host(compiled.program, inputs).outputs,
              run_on_host(apart.program, inputs).outputs);
    auto refusal = [&](const std::function<void(schema::ProgramT&)>& change) {
      return tampered_refusal(*program, inputs, change);
    };
    using ::testing::HasSubstr;
    EXPECT_EQ(refusal([](schema::ProgramT&) {}), "");
    // The mark taken away: a forward run may not write above its input.
    EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.operators[backward[0]]->backward = false; }),
                HasSubstr("shares bytes"));
    // The first operator (the 10x4 convolution) cannot run backward.
    EXPECT_THAT(refusal([](schema::ProgramT& p) { p.operators[0]->backward = true; }),
                HasSubstr("runs backward"));
    // A kind that never runs backward (the depthwise convolution after the first).
    EXPECT_THAT(refusal([](schema::ProgramT& p) { p.operators[1]->backward = true; }),
                HasSubstr("cannot run backward"));
    // The backward operator's output 16 bytes closer to its input than its rule allows.
    EXPECT_THAT(refusal([&](schema::ProgramT& p) {
                  const schema::OperatorT& op = *p.operators[backward[0]];
                  schema::TensorT& out = *p.tensors[static_cast<size_t>(op.outputs[0])];
                  const schema::TensorT& in = *p.tensors[static_cast<size_t>(op.inputs[0])];
                  const kernels::ConvShape s{1, in.shape[1], in.shape[2], in.shape[3], 1, 1,
                                             in.shape[3], out.shape[1], out.shape[2],
                                             out.shape[3], 1, 1, 0, 0, 1, 1};
                  out.offset = in.offset +
                               static_cast<uint32_t>(kernels::conv_backward_overlap(s).lead) - 16;
                }),
                HasSubstr("shares bytes"));
  }
}

// The same chain with its depthwise convolutions in place (one channel plane at a time, the
// output exactly on its input): chosen where the arena shrinks (not on Helium, nor with
// --no-in-place), marked in the program, equal to the raster kernels' result, and checked by the
// loader (the mark taken away or put on a kind that cannot, the output moved off its input, the
// plane's scratch a byte short, and both directions at once are refused).
TEST(Compile, InPlaceDepthwiseRunsAreMarkedCheckedAndExact) {
  const ir::Graph graph = builder::kws_dscnn_like();
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    const bool helium = std::string(cpu) == "cortex-m55";
    CompileOptions options;
    options.plan.cpu = cpu;
    options.plan.time_limit_ms = 100;
    options.plan.in_place = false;
    const Compiled raster = compile(graph, options);
    options.plan.in_place = true;
    const Compiled compiled = compile(graph, options);
    const auto* program = schema::GetProgram(compiled.program.data());
    std::vector<uint32_t> in_place;
    for (uint32_t k = 0; k < program->operators()->size(); ++k) {
      const schema::Operator& op = *program->operators()->Get(k);
      if (!op.in_place()) continue;
      in_place.push_back(k);
      EXPECT_EQ(op.kind(), schema::OpKind::DepthwiseConv2D);
      ASSERT_NE(op.scratch(), nullptr);
      // The 25x5 plane with a row and a column of padding on each side.
      EXPECT_EQ(op.scratch()->size(), 27u * 7u);
    }
    if (helium) {
      EXPECT_TRUE(in_place.empty());
      EXPECT_EQ(compiled.planned.plan().arena_bytes, raster.planned.plan().arena_bytes);
      continue;
    }
    ASSERT_FALSE(in_place.empty());
    EXPECT_LT(compiled.planned.plan().arena_bytes, raster.planned.plan().arena_bytes);
    // At least one output sits exactly on its input.
    bool on_input = false;
    for (uint32_t k : in_place) {
      const schema::Operator& op = *program->operators()->Get(k);
      on_input |= program->tensors()->Get(static_cast<uint32_t>(op.outputs()->Get(0)))->offset() ==
                  program->tensors()->Get(static_cast<uint32_t>(op.inputs()->Get(0)))->offset();
    }
    EXPECT_TRUE(on_input);
    std::vector<std::vector<uint8_t>> inputs = {std::vector<uint8_t>(
        program->tensors()->Get(static_cast<uint32_t>(program->inputs()->Get(0)))->size())};
    for (size_t i = 0; i < inputs[0].size(); ++i) inputs[0][i] = static_cast<uint8_t>(i * 53 + 7);
    EXPECT_EQ(run_on_host(compiled.program, inputs).outputs,
              run_on_host(raster.program, inputs).outputs);
    auto refusal = [&](const std::function<void(schema::ProgramT&)>& change) {
      return tampered_refusal(*program, inputs, change);
    };
    using ::testing::HasSubstr;
    const size_t first = in_place[0];
    EXPECT_EQ(refusal([](schema::ProgramT&) {}), "");
    // The mark taken away: the raster kernel may not write on its input.
    EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.operators[first]->in_place = false; }),
                HasSubstr("shares bytes"));
    // A kind that never runs in place (the first operator, a convolution).
    EXPECT_THAT(refusal([](schema::ProgramT& p) { p.operators[0]->in_place = true; }),
                HasSubstr("cannot run in place"));
    EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.operators[first]->backward = true; }),
                HasSubstr("backward"));
    // The output 16 bytes off its input, either way (before it: an operator whose input does
    // not start the arena).
    size_t above_zero = first;
    for (uint32_t k : in_place) {
      const schema::Operator& op = *program->operators()->Get(k);
      if (program->tensors()->Get(static_cast<uint32_t>(op.inputs()->Get(0)))->offset() >= 16) {
        above_zero = k;
      }
    }
    for (const int32_t shift : {-16, 16}) {
      EXPECT_THAT(refusal([&](schema::ProgramT& p) {
                    const schema::OperatorT& op = *p.operators[shift < 0 ? above_zero : first];
                    schema::TensorT& out = *p.tensors[static_cast<size_t>(op.outputs[0])];
                    const schema::TensorT& in = *p.tensors[static_cast<size_t>(op.inputs[0])];
                    out.offset = static_cast<uint32_t>(static_cast<int64_t>(in.offset) + shift);
                  }),
                  HasSubstr("shares bytes"))
          << shift;
    }
    // The plane's scratch a byte short.
    EXPECT_THAT(refusal([&](schema::ProgramT& p) {
                  schema::Region& r = *p.operators[first]->scratch;
                  r = schema::Region(r.offset(), r.size() - 1);
                }),
                HasSubstr("scratch"));
  }
}

TEST(Compile, Conv2dX3ReportsItsMemory) {
  CompileOptions options;
  options.plan.cpu = "cortex-m55";
  const Compiled compiled = compile(builder::conv2d_x3(), options);
  const HostRun run = run_on_host(compiled.program);
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(run.outputs[0].size(), 8u * 8 * 8 * sizeof(float));
  EXPECT_EQ(run.status.arena_planned, compiled.planned.plan().arena_bytes);
  EXPECT_GE(run.status.arena_planned, compiled.planned.bound.bytes);
  EXPECT_GT(run.status.constant_data, 0u);
  EXPECT_GT(run.status.runtime_state, 0u);
  EXPECT_EQ(run.status.temp_allocator, 0u);
}

// Operator order: interleaved branches need a smaller arena when one runs to
// its end first. The search finds such an order, the program runs it (each step computes what
// the model's operator at that step computes, byte for byte), and the outputs do not change.
TEST(OperatorOrder, SearchedOrderNeedsLessAndTheProgramRunsItExactly) {
  const ir::Graph graph = builder::interleaved_branches();
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    CompileOptions options;
    options.plan.cpu = cpu;
    options.plan.order = PlanRequest::Order::kModel;
    const Compiled model = compile(graph, options);
    options.plan.order = PlanRequest::Order::kSearch;
    const Compiled searched = compile(graph, options);

    EXPECT_EQ(model.planned.order.kept, planner::OrderSummary::Kept::kAsked);
    EXPECT_EQ(model.planned.graph, graph);
    const planner::OrderSummary& order = searched.planned.order;
    EXPECT_EQ(order.kept, planner::OrderSummary::Kept::kSearched);
    EXPECT_TRUE(order.exhaustive);
    EXPECT_EQ(order.orders, 6u);
    EXPECT_TRUE(passes::is_topological_order(graph, order.order));
    ASSERT_NE(order.order, passes::model_order(graph));
    EXPECT_EQ(searched.planned.graph, passes::reordered(graph, order.order));
    EXPECT_EQ(order.model_arena, model.planned.plan().arena_bytes);
    EXPECT_EQ(order.arena, searched.planned.plan().arena_bytes);
    EXPECT_LT(searched.planned.plan().arena_bytes, model.planned.plan().arena_bytes);
    EXPECT_THAT(planner::order_sentence(order), ::testing::HasSubstr("searched 6 orders (all)"));

    HostProgram in_model_order(model.program), in_searched_order(searched.program);
    for (uint32_t seed : {1u, 2u, 3u}) {
      const std::vector<std::vector<uint8_t>> inputs = in_model_order.default_inputs(seed);
      const auto expected = in_model_order.run_layers(inputs);
      const auto layers = in_searched_order.run_layers(inputs);
      ASSERT_EQ(layers.size(), expected.size());
      for (size_t step = 0; step < layers.size(); ++step) {
        const auto& same = expected[static_cast<size_t>(order.order[step])];
        EXPECT_EQ(layers[step].op, same.op) << "step " << step;
        EXPECT_EQ(layers[step].bytes, same.bytes) << "step " << step;
      }
      EXPECT_EQ(in_searched_order.run(inputs).outputs, in_model_order.run(inputs).outputs);
    }
  }
}

// A chain has one order: the search is not even started, and the plan is the model order's.
TEST(OperatorOrder, ChainsCostNothing) {
  for (const builder::NamedModel& model :
       {builder::NamedModel{"conv_chain_4", builder::conv_chain(4)},
        builder::NamedModel{"kws_dscnn_like", builder::kws_dscnn_like()},
        builder::NamedModel{"ad_autoencoder_like", builder::ad_autoencoder_like()}}) {
    SCOPED_TRACE(model.name);
    PlanRequest request;
    request.cpu = "cortex-m4";
    request.node_limit = 20000;  // the same plan both times
    const PlannedGraph searched = plan_graph(model.graph, request);
    request.order = PlanRequest::Order::kModel;
    const PlannedGraph kept = plan_graph(model.graph, request);
    EXPECT_EQ(searched.order.kept, planner::OrderSummary::Kept::kOnlyOrder);
    EXPECT_EQ(searched.order.orders, 0u);
    EXPECT_EQ(searched.order.order, passes::model_order(model.graph));
    EXPECT_EQ(searched.graph, model.graph);
    EXPECT_EQ(searched.plan().offsets, kept.plan().offsets);
    EXPECT_EQ(searched.order.arena, kept.plan().arena_bytes);
    EXPECT_EQ(planner::order_sentence(searched.order),
              "operator order: model's order kept (the only order: no branches)");
  }
}

// The order search never gives a larger arena than the model's order, and on a tie keeps it.
TEST(OperatorOrder, NeverWorseThanTheModelsOrder) {
  for (const builder::NamedModel& model : builder::all_named_models()) {
    SCOPED_TRACE(model.name);
    PlanRequest request;
    request.cpu = "cortex-m4";
    request.node_limit = 20000;
    // Every operator in the order (a folded PAD has no step of its own: fold_pads_test.cc; nor the
    // QUANTIZE of a float input held quantized: quantized_inputs_test.cc).
    request.fold_pads = false;
    request.quantize_float_inputs = false;
    const PlannedGraph searched = plan_graph(model.graph, request);
    request.order = PlanRequest::Order::kModel;
    const PlannedGraph kept = plan_graph(model.graph, request);
    EXPECT_LE(searched.plan().arena_bytes, kept.plan().arena_bytes);
    EXPECT_EQ(searched.order.model_arena, kept.plan().arena_bytes);
    EXPECT_TRUE(passes::is_topological_order(model.graph, searched.order.order));
    if (searched.order.order != passes::model_order(model.graph)) {
      EXPECT_LT(searched.plan().arena_bytes, kept.plan().arena_bytes);
    }
  }
}

// The graph inputs, planned outside the arena, as the program records them.
std::vector<schema::Location> input_locations(const Compiled& compiled) {
  const schema::Program& p = *schema::GetProgram(compiled.program.data());
  std::vector<schema::Location> locations;
  for (const int32_t t : *p.inputs()) {
    locations.push_back(p.tensors()->Get(static_cast<flatbuffers::uoffset_t>(t))->location());
  }
  return locations;
}

TEST(Compile, InputsOutsideTheArenaLeaveItAndRunBitExact) {
  // Every builder model, on each extension: the program marks its inputs external, plans no
  // arena bytes for them and gives the output of the same model compiled with them inside.
  for (const builder::NamedModel& model : builder::all_named_models()) {
    for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
      SCOPED_TRACE(model.name + " " + cpu);
      CompileOptions options;
      options.plan.cpu = cpu;
      options.plan.time_limit_ms = 100;
      const Compiled inside = compile(model.graph, options);
      options.plan.inputs_outside_arena = true;
      const Compiled outside = compile(model.graph, options);
      EXPECT_EQ(outside.planned.memory.external_inputs, model.graph.inputs);
      for (const int32_t t : model.graph.inputs) {
        EXPECT_EQ(outside.planned.memory.tensor_buffer[static_cast<size_t>(t)], passes::kNoBuffer);
      }
      EXPECT_THAT(input_locations(outside), testing::Each(schema::Location::External));
      EXPECT_THAT(input_locations(inside), testing::Each(schema::Location::Arena));
      EXPECT_LE(outside.planned.plan().arena_bytes, inside.planned.plan().arena_bytes);
      const std::vector<std::vector<uint8_t>> inputs = HostProgram(inside.program).default_inputs();
      const HostRun a = run_on_host(inside.program, inputs);
      const HostRun b = run_on_host(outside.program, inputs);
      EXPECT_EQ(a.outputs, b.outputs);
      size_t input_bytes = 0;
      for (const int32_t t : model.graph.inputs) {
        input_bytes += static_cast<size_t>(model.graph.tensors[static_cast<size_t>(t)].num_bytes());
      }
      EXPECT_EQ(b.status.inputs_outside, input_bytes);
      EXPECT_EQ(a.status.inputs_outside, 0u);
    }
  }
}

TEST(OperatorOrder, OrderNamesAreTheOptionsValues) {
  EXPECT_EQ(order_from_string("model"), PlanRequest::Order::kModel);
  EXPECT_EQ(order_from_string("search"), PlanRequest::Order::kSearch);
  EXPECT_EQ(order_from_string("best"), std::nullopt);
}

TEST(Compile, InputsOutsideTheArenaSaveTheirBytesWhereTheInputIsAtThePeak) {
  // A large input (32x32x8, 8 KiB) and a pointwise convolution to 4 channels: the peak is the
  // input with that output. Outside the arena the input costs the arena exactly its bytes when
  // outputs stay apart from inputs, and some of them with overlap (the output may start over
  // the input's first bytes).
  builder::ModelBuilder b(5);
  const builder::TensorId x = b.add_input({1, 32, 32, 8}, ir::DataType::kInt8, 0.1f, 1);
  const builder::TensorId y =
      b.add_conv2d(x, 4, 1, 1, 1, ir::Padding::kSame, ir::Activation::kRelu);
  b.mark_output(b.add_average_pool(y, 32, 32, 32, ir::Padding::kValid));
  const ir::Graph graph = b.build();
  constexpr uint64_t kInputBytes = 32 * 32 * 8;
  for (const bool overlap : {false, true}) {
    SCOPED_TRACE(overlap ? "overlap" : "apart");
    PlanRequest request;
    request.cpu = "cortex-m0plus";
    request.overlap = overlap;
    const uint64_t inside = plan_graph(graph, request).plan().arena_bytes;
    request.inputs_outside_arena = true;
    const PlannedGraph outside = plan_graph(graph, request);
    EXPECT_EQ(outside.plan().arena_bytes, 32u * 32 * 4 + (overlap ? 0 : 16)) << inside;
    // Apart: 8,192 + 4,096 inside; outside, 4,096 and the pool's 16 bytes, which reused the
    // input's bytes before. With overlap the convolution's output already lies over the input
    // (8,192 + 16 inside), and the pool's over the convolution's: the input saves half as much.
    EXPECT_EQ(inside, overlap ? 8192u + 16 : 8192u + 4096);
    EXPECT_GE(inside - outside.plan().arena_bytes, overlap ? kInputBytes / 2 : kInputBytes - 16);
    ASSERT_EQ(outside.memory.outside_arena.size(), 1u);
    EXPECT_EQ(outside.memory.outside_arena[0].bytes, kInputBytes);
    // The report prices it apart from the arena.
    const planner::ReportContext context{"pointwise", outside.cpu.name, outside.cpu.extension,
                                         outside.memory.kernels, outside.order,
                                         outside.memory.outside_arena};
    const std::string text =
        planner::text_report(outside.memory.problem, outside.bound, outside.plans, context);
    EXPECT_THAT(text, testing::HasSubstr(": arena 4,"));
    EXPECT_THAT(text, testing::HasSubstr(" bytes + inputs outside the arena: input 8,192 bytes "
                                         "(caller's buffer)"));
  }
}

TEST(Compile, ReshapeOfAnInputOutsideTheArenaCopiesIt) {
  // A RESHAPE shares its input's bytes; the caller's buffer has none to share, so its output
  // gets a buffer of its own, and the program gives the same output.
  builder::ModelBuilder b(3);
  const builder::TensorId x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.1f, 2);
  const builder::TensorId flat = b.add_reshape(x, {1, 32});
  b.mark_output(b.add_fully_connected(flat, 10));
  const ir::Graph graph = b.build();
  CompileOptions options;
  const Compiled inside = compile(graph, options);
  options.plan.inputs_outside_arena = true;
  const Compiled outside = compile(graph, options);
  const auto in = static_cast<size_t>(graph.inputs[0]);
  const auto out = static_cast<size_t>(graph.operators[0].outputs[0]);
  EXPECT_EQ(inside.planned.memory.buffer_owner[out], static_cast<int32_t>(in));
  EXPECT_NE(outside.planned.memory.tensor_buffer[out], passes::kNoBuffer);
  EXPECT_EQ(outside.planned.memory.buffer_owner[out], static_cast<int32_t>(out));
  const std::vector<std::vector<uint8_t>> inputs = HostProgram(inside.program).default_inputs();
  EXPECT_EQ(run_on_host(outside.program, inputs).outputs,
            run_on_host(inside.program, inputs).outputs);
}

TEST(Compile, AnInputThatIsAnOutputCannotBeOutsideTheArena) {
  builder::ModelBuilder b(1);
  const builder::TensorId x = b.add_input({1, 8}, ir::DataType::kInt8, 0.1f, 0);
  b.mark_output(x);
  b.mark_output(b.add_logistic(x));
  const ir::Graph graph = b.build();
  CompileOptions options;
  EXPECT_NO_THROW(compile(graph, options));
  options.plan.inputs_outside_arena = true;
  EXPECT_THROW(compile(graph, options), InputError);
}

TEST(HostRun, DefaultInputIsXorshift32FromStateOne) {
  DefaultInput input;
  // s = 1: s ^= s << 13 -> 0x2001; s ^= s >> 17 -> 0x2001; s ^= s << 5 -> 0x42021.
  EXPECT_EQ(input.next(), 0x21);
}

TEST(HostRun, RejectsInputsOfTheWrongSize) {
  const Compiled compiled = compile(builder::kws_dscnn_like(), {});
  EXPECT_THROW(run_on_host(compiled.program, {{1, 2, 3}}), InputError);
}

// Row-streamed stages (PlanRequest::stream): where a stage gives a smaller arena the program
// holds it (its inner tensors as rings) and computes what the unstreamed program computes, on
// every CPU's kernels; otherwise nothing streams.
TEST(Compile, StreamedStagesComputeTheSameInLessArena) {
  int streamed = 0;
  for (const builder::NamedModel& model : builder::all_named_models()) {
    for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
      SCOPED_TRACE(model.name + " on " + cpu);
      CompileOptions options;
      options.plan.cpu = cpu;
      options.plan.time_limit_ms = 50;
      const Compiled whole = compile(model.graph, options);
      options.plan.stream = true;
      const Compiled compiled = compile(model.graph, options);
      const auto* program = schema::GetProgram(compiled.program.data());
      const PlannedGraph& planned = compiled.planned;
      if (planned.stages.empty()) {
        EXPECT_EQ(program->stages(), nullptr);
        EXPECT_EQ(planned.plan().arena_bytes, planned.unstreamed_arena);
      } else {
        ++streamed;
        EXPECT_LT(planned.plan().arena_bytes, planned.unstreamed_arena);
        ASSERT_FALSE(planned.stream_options.empty());
        ASSERT_NE(program->stages(), nullptr);
        ASSERT_EQ(program->stages()->size(), planned.stages.size());
        ASSERT_NE(program->stage_calls(), nullptr);
        ASSERT_EQ(program->stage_calls()->size(), planned.stages.size());
        uint32_t ring_tensors = 0;
        for (uint32_t k = 0; k < planned.stages.size(); ++k) {
          const passes::RowStage& stage = planned.stages[k];
          EXPECT_EQ(program->stages()->Get(k)->first(), static_cast<uint32_t>(stage.first));
          EXPECT_EQ(program->stages()->Get(k)->last(), static_cast<uint32_t>(stage.last));
          // Its calls: the schedule's, one entry per call.
          std::vector<uint16_t> entries;
          for (const passes::StageCall& call : stage.schedule) {
            program::stage_call_entries(call.op - stage.first, call.begin, call.end,
                                        [&](uint16_t e) { entries.push_back(e); });
          }
          const auto* calls = program->stage_calls()->Get(k)->calls();
          ASSERT_NE(calls, nullptr);
          EXPECT_EQ(std::vector<uint16_t>(calls->begin(), calls->end()), entries);
          EXPECT_EQ(entries.size(), stage.schedule.size());
          ring_tensors += static_cast<uint32_t>(stage.last - stage.first);
        }
        uint32_t rings = 0;
        for (const schema::Tensor* t : *program->tensors()) rings += t->ring_rows() != 0;
        EXPECT_EQ(rings, ring_tensors);
      }
      // Bytes as each input takes them (floats for a float input held quantized).
      const std::vector<std::vector<uint8_t>> inputs = HostProgram(whole.program).default_inputs(61);
      EXPECT_EQ(run_on_host(compiled.program, inputs).outputs,
                run_on_host(whole.program, inputs).outputs);
    }
  }
  EXPECT_GT(streamed, 3);
}

// Two wide pairs of convolutions apart (a HARD_SWISH between them has no row form), two peaks
// of one height: neither stage alone lowers the arena, so the first is taken for lowering the
// bytes live over its own steps, and the second then lowers the arena. The program runs both and
// computes the same as whole maps; the report prices the second round with the first taken.
TEST(Compile, SeveralStagesLowerPeaksApart) {
  builder::ModelBuilder b(9);
  builder::TensorId x = b.add_input({1, 32, 32, 4}, ir::DataType::kInt8, 0.05f, -3);
  x = b.add_conv2d(x, 32, 3, 3, 1, ir::Padding::kSame, ir::Activation::kRelu);
  x = b.add_conv2d(x, 4, 3, 3, 1, ir::Padding::kSame);
  x = b.add_hard_swish(x);
  x = b.add_conv2d(x, 32, 3, 3, 1, ir::Padding::kSame, ir::Activation::kRelu);
  b.mark_output(b.add_conv2d(x, 4, 3, 3, 1, ir::Padding::kSame));
  const ir::Graph graph = b.build();
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    CompileOptions options;
    options.plan.cpu = cpu;
    apply_optimize(Optimize::kTime, options.plan);
    const Compiled whole = compile(graph, options);
    apply_optimize(Optimize::kRam, options.plan);
    const Compiled streamed = compile(graph, options);
    const PlannedGraph& planned = streamed.planned;
    ASSERT_EQ(planned.stages.size(), 2u) << stream_sentence(planned);
    EXPECT_EQ(planned.stages[0].first, 0);
    EXPECT_EQ(planned.stages[0].last, 1);
    EXPECT_EQ(planned.stages[1].first, 3);
    EXPECT_EQ(planned.stages[1].last, 4);
    // Neither stage alone lowers the arena (the first round's best), both together do.
    ASSERT_FALSE(planned.stream_options.empty());
    EXPECT_EQ(planned.stream_options.front().round, 0);
    EXPECT_EQ(planned.stream_options.front().arena, planned.unstreamed_arena);
    EXPECT_LT(planned.plan().arena_bytes, planned.unstreamed_arena);
    EXPECT_LT(planned.plan().arena_bytes, whole.planned.plan().arena_bytes);
    EXPECT_TRUE(std::any_of(planned.stream_options.begin(), planned.stream_options.end(),
                            [](const PlannedGraph::StreamOption& o) { return o.round == 1; }));
    EXPECT_THAT(stream_sentence(planned),
                ::testing::AllOf(::testing::HasSubstr("2 stages: operators 0-1 ("),
                                 ::testing::HasSubstr("operators 3-4 ("),
                                 ::testing::HasSubstr("with 1 stage taken, operators 3-4: ")));
    const auto* program = schema::GetProgram(streamed.program.data());
    ASSERT_NE(program->stages(), nullptr);
    EXPECT_EQ(program->stages()->size(), 2u);
    for (const uint32_t seed : {1u, 61u}) {
      const std::vector<std::vector<uint8_t>> inputs = HostProgram(whole.program).default_inputs(seed);
      EXPECT_EQ(run_on_host(streamed.program, inputs).outputs,
                run_on_host(whole.program, inputs).outputs);
    }
  }
}

// Fully connected operators run from their prepared calls (Operator.call): the loader requires
// exactly the words the runtime derives, and nothing on operators whose form takes none.
TEST(Compile, PreparedCallsAreChecked) {
  CompileOptions options;
  options.plan.cpu = "cortex-m4";
  options.plan.time_limit_ms = 50;
  const Compiled compiled = compile(builder::kws_dscnn_like(), options);
  const auto* program = schema::GetProgram(compiled.program.data());
  size_t fc = 0, other = 0;
  bool found_fc = false, found_other = false;
  for (uint32_t k = 0; k < program->operators()->size(); ++k) {
    const schema::Operator& op = *program->operators()->Get(k);
    if (op.kind() == schema::OpKind::FullyConnected) {
      ASSERT_NE(op.call(), nullptr) << "operator " << k;
      if (!found_fc) fc = k;
      found_fc = true;
    } else {
      EXPECT_EQ(op.call(), nullptr) << "operator " << k;
      if (!found_other) other = k;
      found_other = true;
    }
  }
  ASSERT_TRUE(found_fc && found_other);
  std::vector<std::vector<uint8_t>> inputs = {std::vector<uint8_t>(
      program->tensors()->Get(static_cast<uint32_t>(program->inputs()->Get(0)))->size(), 7)};
  auto refusal = [&](const std::function<void(schema::ProgramT&)>& change) {
    return tampered_refusal(*program, inputs, change);
  };
  using ::testing::HasSubstr;
  EXPECT_EQ(refusal([](schema::ProgramT&) {}), "");
  EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.operators[fc]->call.clear(); }),
              HasSubstr("without its call words"));
  EXPECT_THAT(refusal([&](schema::ProgramT& p) {
                p.operators[other]->call = p.operators[fc]->call;
              }),
              HasSubstr("whose form takes none"));
  EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.operators[fc]->call.pop_back(); }),
              HasSubstr("call words (Operator.call) differ"));
  // Every word is checked: a parameter, a tensor's place.
  const size_t words = program->operators()->Get(static_cast<uint32_t>(fc))->call()->size();
  for (size_t w = 0; w < words; ++w) {
    EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.operators[fc]->call[w] ^= 4; }),
                HasSubstr("call words (Operator.call) differ"))
        << "word " << w;
  }
}

// The options of the streamed programs the loader's tests below tamper with.
CompileOptions streamed_m4() {
  CompileOptions options;
  options.plan.cpu = "cortex-m4";
  options.plan.time_limit_ms = 50;
  options.plan.stream = true;
  return options;
}

// The loader checks a streamed program: each change below is refused.
TEST(Compile, StreamedProgramsAreChecked) {
  const CompileOptions options = streamed_m4();
  const Compiled compiled = compile(builder::vww_mobilenet_like(), options);
  ASSERT_FALSE(compiled.planned.stages.empty());
  const auto* program = schema::GetProgram(compiled.program.data());
  std::vector<std::vector<uint8_t>> inputs = {std::vector<uint8_t>(
      program->tensors()->Get(static_cast<uint32_t>(program->inputs()->Get(0)))->size(), 3)};
  auto refusal = [&](const std::function<void(schema::ProgramT&)>& change) {
    return tampered_refusal(*program, inputs, change);
  };
  using ::testing::HasSubstr;
  const uint32_t first = program->stages()->Get(0)->first();
  const uint32_t last = program->stages()->Get(0)->last();
  // A member's output held in two rows or more, and a row of it.
  size_t ring = 0;
  for (uint32_t k = first; k < last && ring == 0; ++k) {
    const uint32_t t = static_cast<uint32_t>(program->operators()->Get(k)->outputs()->Get(0));
    if (program->tensors()->Get(t)->ring_rows() >= 2) ring = t;
  }
  ASSERT_NE(ring, 0u);
  const schema::Tensor& r = *program->tensors()->Get(static_cast<uint32_t>(ring));
  const uint32_t row = r.size() / r.ring_rows();
  EXPECT_EQ(refusal([](schema::ProgramT&) {}), "");
  // One row short of what the schedule holds.
  EXPECT_THAT(refusal([&](schema::ProgramT& p) {
                p.tensors[ring]->ring_rows -= 1;
                p.tensors[ring]->size -= row;
              }),
              HasSubstr("fewer rows"));
  // Rows and size that disagree.
  EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.tensors[ring]->ring_rows += 1; }),
              HasSubstr("size differs"));
  // The stage taken away, or cut short: its rings are nobody's.
  EXPECT_THAT(refusal([](schema::ProgramT& p) {
                p.stages.clear();
                p.stage_calls.clear();
              }),
              HasSubstr("outside any stage"));
  EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.stages[0] = schema::Stage(first, first); }),
              HasSubstr("out of order"));
  // A ring live for only part of its stage (refused as such, or for its reader).
  EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.tensors[ring]->last_step = first; }),
              HasSubstr("live"));
  // Calls that are not the schedule's: the runtime runs the entries as they are.
  EXPECT_THAT(refusal([](schema::ProgramT& p) { p.stage_calls.clear(); }),
              HasSubstr("one per stage"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) { p.stage_calls[0]->calls.clear(); }),
              HasSubstr("without its calls"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) {
                p.stage_calls.push_back(std::make_unique<schema::StageCallsT>(*p.stage_calls[0]));
              }),
              HasSubstr("one per stage"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) { p.stage_calls[0]->calls.pop_back(); }),
              HasSubstr("calls differ"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) {
                p.stage_calls[0]->calls.push_back(p.stage_calls[0]->calls.back());
              }),
              HasSubstr("calls differ"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) { p.stage_calls[0]->calls[0] += 1; }),
              HasSubstr("calls differ"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) { p.stage_calls[0]->calls[0] ^= 1u << 12; }),
              HasSubstr("calls differ"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) {
                std::vector<uint16_t>& calls = p.stage_calls[0]->calls;
                for (size_t i = 0; i + 1 < calls.size(); ++i) {
                  if (calls[i] >> 12 != calls[i + 1] >> 12) {
                    std::swap(calls[i], calls[i + 1]);
                    return;
                  }
                }
              }),
              HasSubstr("calls differ"));
  // Words that are not the operators' (the runtime reads them instead of the operators'
  // tables): missing, one short, one more, or one changed.
  EXPECT_THAT(refusal([](schema::ProgramT& p) { p.stage_calls[0]->args.clear(); }),
              HasSubstr("without its members' words"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) { p.stage_calls[0]->args.pop_back(); }),
              HasSubstr("words (StageCalls.args) differ"));
  EXPECT_THAT(refusal([](schema::ProgramT& p) { p.stage_calls[0]->args.push_back(0); }),
              HasSubstr("words (StageCalls.args) differ"));
  for (const size_t word : {size_t{0}, size_t{17}, size_t{30}}) {
    EXPECT_THAT(refusal([&](schema::ProgramT& p) { p.stage_calls[0]->args[word] += 1; }),
                HasSubstr("words (StageCalls.args) differ"))
        << "word " << word;
  }
  // An accumulating last member's sums one int32 short.
  {
    CompileOptions kws = options;
    const Compiled pooled = compile(builder::kws_dscnn_like(), kws);
    ASSERT_FALSE(pooled.planned.stages.empty());
    ASSERT_TRUE(pooled.planned.stages.front().accumulates);
    const auto* p = schema::GetProgram(pooled.program.data());
    const size_t pool = static_cast<size_t>(p->stages()->Get(0)->last());
    std::vector<std::vector<uint8_t>> in = {std::vector<uint8_t>(
        p->tensors()->Get(static_cast<uint32_t>(p->inputs()->Get(0)))->size(), 1)};
    EXPECT_EQ(tampered_refusal(*p, in, [](schema::ProgramT&) {}), "");
    EXPECT_THAT(tampered_refusal(*p, in,
                                 [&](schema::ProgramT& q) { q.operators[pool]->scratch->mutate_size(q.operators[pool]->scratch->size() - 4); }),
                HasSubstr("smaller than its sums"));
  }
  // The stage's output held as a ring.
  EXPECT_THAT(refusal([&](schema::ProgramT& p) {
                const auto out = static_cast<size_t>(p.operators[last]->outputs[0]);
                schema::TensorT& t = *p.tensors[out];
                t.size /= static_cast<uint32_t>(t.shape[1]);
                t.ring_rows = 1;
              }),
              AnyOf(HasSubstr("ring"), HasSubstr("shares bytes")));
}

// A convolution's words say whether every shift is negative (the mve kernel then skips its own
// look at every row): the shifts' own answer, and a program whose shifts change without its
// words is refused.
TEST(Compile, StageWordsSayWhetherEveryShiftIsNegative) {
  const Compiled compiled = compile(builder::kws_dscnn_like(), streamed_m4());
  ASSERT_FALSE(compiled.planned.stages.empty());
  const auto* program = schema::GetProgram(compiled.program.data());
  const uint32_t first = program->stages()->Get(0)->first();
  const uint32_t last = program->stages()->Get(0)->last();
  // The words of member `k`'s convolution in a packed program, and whether its shifts are all
  // negative, read from the constants.
  using Words = runtime::internal::WindowRowArgs<kernels::ConvShape>;
  const auto words_of = [](const schema::Program& p, uint32_t k) {
    int32_t words[runtime::internal::kMaxRowWords] = {};
    const auto* r = runtime::internal::any_row_form(schema::OpKind::Conv2D);
    EXPECT_TRUE(r->row_args(p, *p.operators()->Get(k), words));
    return runtime::internal::row_args_of<Words>(words);
  };
  const auto negative = [](const schema::Program& p, const Words& w) {
    for (int32_t c = 0; c < w.shape.output_c; ++c) {
      int32_t shift = 0;
      memcpy(&shift, p.constants()->data() + w.shifts + 4 * c, 4);
      if (shift >= 0) return false;
    }
    return true;
  };
  int32_t convolutions = 0, right = 0;
  for (uint32_t k = first; k <= last; ++k) {
    if (program->operators()->Get(k)->kind() != schema::OpKind::Conv2D) continue;
    const Words w = words_of(*program, k);
    EXPECT_EQ(w.right_shifts_only, negative(*program, w) ? 1 : 0) << "operator " << k;
    ++convolutions;
    right += w.right_shifts_only;
  }
  ASSERT_GT(convolutions, 0);
  ASSERT_GT(right, 0);  // the model has one to change
  // A shift of the first such convolution made positive: the words no longer the operator's.
  uint32_t changed = first;
  while (program->operators()->Get(changed)->kind() != schema::OpKind::Conv2D ||
         words_of(*program, changed).right_shifts_only == 0) {
    ++changed;
  }
  const int32_t at = words_of(*program, changed).shifts;
  schema::ProgramT copy;
  program->UnPackTo(&copy);
  const int32_t positive = 1;
  memcpy(copy.constants.data() + at, &positive, 4);
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(schema::Program::Pack(builder, &copy), schema::ProgramIdentifier());
  const emit::AlignedBuffer bytes({builder.GetBufferPointer(), builder.GetSize()});
  runtime::LoadDiagnostic diagnostic;
  EXPECT_FALSE(emit::load_program(bytes.span(), &diagnostic).ok());
  EXPECT_STREQ(diagnostic.reason, runtime::internal::kStageWordsDiffer);
  EXPECT_EQ(words_of(*schema::GetProgram(bytes.data()), changed).right_shifts_only, 0);
}

// The loader holds a stage's output over its input from outside to the lead its schedule
// allows, with the members' table in its workspace or (none, or too small) on its own stack:
// the same verdicts either way, at the lead and one alignment step past it.
TEST(Compile, StreamedOutputOverItsInputIsHeldToItsLead) {
  const Compiled compiled = compile(builder::vww_mobilenet_like(), streamed_m4());
  ASSERT_FALSE(compiled.planned.stages.empty());
  const passes::RowStage& stage = compiled.planned.stages.front();
  ASSERT_TRUE(stage.output_lead.has_value());
  const int64_t lead = *stage.output_lead;
  const auto in = static_cast<size_t>(compiled.tensor_index[static_cast<size_t>(stage.input)]);
  const auto* program = schema::GetProgram(compiled.program.data());
  const auto out = static_cast<size_t>(
      program->operators()->Get(static_cast<uint32_t>(stage.last))->outputs()->Get(0));
  // The input moved above everything else, the output `past` bytes below where the lead
  // allows (rounded down to the alignment).
  const auto placed = [&](int64_t past) {
    schema::ProgramT p;
    program->UnPackTo(&p);
    schema::TensorT& ti = *p.tensors[in];
    schema::TensorT& to = *p.tensors[out];
    const int64_t room = 2 * (int64_t{ti.size} + to.size + (lead < 0 ? -lead : lead)) + 64;
    const int64_t x = (p.arena_size + room + 15) / 16 * 16;
    ti.offset = static_cast<uint32_t>(x);
    to.offset = static_cast<uint32_t>((x - lead) / 16 * 16 + past);
    EXPECT_LT(to.offset, ti.offset + ti.size);  // they share bytes
    EXPECT_LT(ti.offset, to.offset + to.size);
    p.arena_size = static_cast<uint32_t>(x + room);
    emit::write_stage_words(p);  // the moved offsets
    flatbuffers::FlatBufferBuilder builder;
    builder.Finish(schema::Program::Pack(builder, &p), schema::ProgramIdentifier());
    return std::vector<uint8_t>(builder.GetBufferPointer(),
                                builder.GetBufferPointer() + builder.GetSize());
  };
  const auto verdicts = [](const std::vector<uint8_t>& bytes) {
    const emit::AlignedBuffer copy(bytes);
    std::vector<uint32_t> workspace(runtime::kLoadStackWorkspaceWords);
    std::vector<std::string> out;
    for (const size_t words : {workspace.size(), size_t{8}, size_t{0}}) {
      runtime::LoadDiagnostic diagnostic;
      const auto loaded = runtime::Program::load(copy.data(), copy.size(),
                                                 words != 0 ? workspace.data() : nullptr, words,
                                                 &diagnostic);
      out.push_back(loaded.ok() ? "" : diagnostic.reason);
    }
    return out;
  };
  const std::vector<std::string> at_lead = verdicts(placed(0));
  EXPECT_EQ(at_lead, std::vector<std::string>(3, ""));
  const std::vector<std::string> past_lead = verdicts(placed(16));
  EXPECT_THAT(past_lead[0], ::testing::HasSubstr("beyond what its schedule allows"));
  EXPECT_EQ(past_lead[1], past_lead[0]);
  EXPECT_EQ(past_lead[2], past_lead[0]);
}

// A streamed program (a stage, rings, a shared scratch, a streamed pool) with any byte of its
// metadata inverted either fails to load or loads and runs inside its exact arena (the sanitized
// build checks the bytes it touches).
TEST(Compile, StreamedProgramsSurviveEveryMetadataByteInverted) {
  CompileOptions options;
  options.plan.cpu = "cortex-m4";
  options.plan.time_limit_ms = 20;
  options.plan.stream = true;
  const Compiled compiled = compile(builder::kws_dscnn_like(), options);
  ASSERT_FALSE(compiled.planned.stages.empty());
  const std::vector<uint8_t>& bytes = compiled.program;
  const auto* program = schema::GetProgram(bytes.data());
  const size_t constants_begin = static_cast<size_t>(program->constants()->data() - bytes.data());
  const size_t constants_end = constants_begin + program->constants()->size();
  size_t rejected = 0, ran = 0;
  std::vector<uint8_t> damaged = bytes;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i >= constants_begin && i < constants_end) continue;  // weights: any value runs
    damaged[i] = static_cast<uint8_t>(~bytes[i]);
    emit::AlignedBuffer storage{std::span<const uint8_t>(damaged)};
    const auto loaded = runtime::Program::load(storage.data(), damaged.size());
    if (!loaded.ok()) {
      ++rejected;
    } else if (loaded->arena_size() <= (1u << 20)) {
      emit::AlignedBuffer arena(loaded->arena_size(), loaded->arena_alignment());
      auto executor = runtime::Executor::create(*loaded, arena.data(), arena.size());
      if (executor.ok()) {
        for (size_t k = 0; k < executor->num_inputs(); ++k) {
          const runtime::TensorView in = executor->input(k);
          if (in.data != nullptr) std::memset(in.data, 7, in.size);
        }
        const runtime::Error e = executor->run();
        EXPECT_TRUE(e == runtime::Error::kOk || e == runtime::Error::kUnsupported ||
                    e == runtime::Error::kInputNotBound)
            << "byte " << i << ": " << runtime::to_string(e);
        ++ran;
      }
    }
    damaged[i] = bytes[i];
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(ran, 0u);
}

// A float camera frame quantized where it lies, then convolutions: the presets. time streams
// nothing and takes no dearer kernel; ram takes the smallest arena, a stage after the QUANTIZE
// (a stage from operator 0 would keep the float frame alive through it); balanced takes it
// where the measured costs say it is cheap, and refuses it on a CPU without measurements. Every
// program computes the same outputs.
TEST(Compile, PresetsTradeArenaForEstimatedInstructions) {
  builder::ModelBuilder b(3);
  const builder::TensorId frame = b.add_input({1, 64, 64, 3});
  builder::TensorId x = b.add_quantize(frame, 0.02f, 0);
  x = b.add_conv2d(x, 16, 3, 3, 2);
  x = b.add_depthwise(x, 3, 3);
  x = b.add_conv2d(x, 24, 1, 1);
  x = b.add_depthwise(x, 3, 3, 2);
  b.mark_output(b.add_conv2d(x, 8, 1, 1));
  const ir::Graph graph = b.build();
  const uint64_t frame_bytes = 64 * 64 * 3 * 4, quantized_bytes = 64 * 64 * 3;
  const std::vector<std::vector<uint8_t>> inputs = {std::vector<uint8_t>(frame_bytes, 0)};
  // The frame in its own buffer from here on: in the arena it would be the peak however the
  // rest is planned.
  auto compiled = [&](const char* cpu, Optimize optimize, double budget = -1) {
    CompileOptions options;
    options.plan.cpu = cpu;
    options.plan.inputs_outside_arena = true;
    apply_optimize(optimize, options.plan);
    if (budget >= 0) options.plan.cost_budget = budget;
    return compile(graph, options);
  };
  // The QUANTIZE writes over its float input: the two never take their sum (the float input kept
  // in the arena; held quantized it is a quarter of the bytes).
  CompileOptions in_arena;
  in_arena.plan.cpu = "cortex-m4";
  in_arena.plan.quantize_float_inputs = false;
  EXPECT_EQ(compile(graph, in_arena).planned.plan().arena_bytes, frame_bytes);
  in_arena.plan.overlap = false;
  EXPECT_GE(compile(graph, in_arena).planned.plan().arena_bytes, frame_bytes + quantized_bytes);
  const Compiled time = compiled("cortex-m4", Optimize::kTime);
  const Compiled ram = compiled("cortex-m4", Optimize::kRam);
  const Compiled balanced = compiled("cortex-m4", Optimize::kBalanced);
  EXPECT_TRUE(time.planned.stages.empty());
  ASSERT_EQ(ram.planned.stages.size(), 1u);
  EXPECT_EQ(ram.planned.stages[0].first, 1);
  EXPECT_LT(ram.planned.plan().arena_bytes, time.planned.plan().arena_bytes);
  // The estimates come from the measured table: a whole inference, and the stage's calls.
  ASSERT_TRUE(balanced.planned.estimated_instructions.has_value());
  EXPECT_GT(*balanced.planned.estimated_instructions, 0);
  ASSERT_EQ(balanced.planned.stages.size(), 1u);
  ASSERT_TRUE(balanced.planned.extra_instructions.has_value());
  EXPECT_LE(*balanced.planned.extra_instructions,
            kBalancedBudget * *balanced.planned.estimated_instructions);
  // A budget the stage exceeds: refused, and the report says what it would have saved.
  const Compiled tight = compiled("cortex-m4", Optimize::kBalanced, 1e-6);
  EXPECT_TRUE(tight.planned.stages.empty());
  EXPECT_EQ(tight.planned.refused_arena, ram.planned.plan().arena_bytes);
  PlanRequest tight_request;
  tight_request.cost_budget = 1e-6;
  EXPECT_THAT(cost_sentence(tight.planned, tight_request), ::testing::HasSubstr("over the budget"));
  // No measurements for a scalar CPU: balanced takes nothing that costs, ram still streams.
  const Compiled m0 = compiled("cortex-m0plus", Optimize::kBalanced);
  EXPECT_TRUE(m0.planned.stages.empty());
  EXPECT_FALSE(m0.planned.estimated_instructions.has_value());
  EXPECT_FALSE(compiled("cortex-m0plus", Optimize::kRam).planned.stages.empty());
  const auto outputs = run_on_host(time.program, inputs).outputs;
  for (const Compiled* other : {&ram, &balanced, &tight, &m0}) {
    EXPECT_EQ(run_on_host(other->program, inputs).outputs, outputs);
  }
}

// A 1-D audio model (maps one pixel wide, windows along the height): a row call computes one
// pixel, so the mve kernels lose the weight loads they share across a row's pixels. The
// estimate charges that, and balanced leaves the model whole where ram streams it.
TEST(Compile, BalancedChargesRowsNarrowerThanTheKernelsBlocks) {
  builder::ModelBuilder b(5);
  builder::TensorId x = b.add_input({1, 30, 1, 40}, ir::DataType::kInt8, 0.05f, -3);
  x = b.add_depthwise(x, 3, 1, 1, ir::Padding::kValid);
  x = b.add_conv2d(x, 128, 1, 1, 1, ir::Padding::kValid, ir::Activation::kRelu);
  x = b.add_depthwise(x, 5, 1, 1, ir::Padding::kValid);
  x = b.add_conv2d(x, 128, 1, 1, 1, ir::Padding::kValid, ir::Activation::kRelu);
  b.mark_output(b.add_conv2d(x, 16, 1, 1));
  const ir::Graph graph = b.build();
  for (const char* cpu : {"cortex-m55", "cortex-m85"}) {
    CompileOptions options;
    options.plan.cpu = cpu;
    apply_optimize(Optimize::kRam, options.plan);
    const Compiled ram = compile(graph, options);
    ASSERT_FALSE(ram.planned.stages.empty()) << cpu;
    const passes::RowStage& stage = ram.planned.stages[0];
    const std::optional<double> extra =
        stage_extra(ram.planned.graph, stage, ram.planned.cpu.extension);
    const std::optional<double> call = target::row_call_cost(ram.planned.cpu.extension);
    ASSERT_TRUE(extra.has_value() && call.has_value()) << cpu;
    // More than the calls alone: the stage holds a convolution of one-pixel rows.
    EXPECT_GT(*extra, *call * static_cast<double>(stage.schedule.size()) * 2) << cpu;
    options.plan = {};
    options.plan.cpu = cpu;
    apply_optimize(Optimize::kBalanced, options.plan);
    const Compiled balanced = compile(graph, options);
    EXPECT_TRUE(balanced.planned.stages.empty()) << cpu;
    EXPECT_GT(balanced.planned.refused_arena, 0u) << cpu;
  }
}

}  // namespace
}  // namespace mote::pipeline
