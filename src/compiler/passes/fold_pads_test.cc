// PAD folded into its reader, end to end: builder models with an explicit PAD before each window
// operator (the asymmetric 0-before/1-after PADs of Keras's ZeroPadding2D and PyTorch exports
// before stride-2 layers, symmetric PADs before VALID windows, a PAD before a SAME window),
// compiled for a scalar, a DSP and an MVE CPU, streamed and not, run on the host and compared
// with the same model compiled with every PAD run as written; the PADs that must stay (an average
// pool, a max pool whose padding could win, two readers, a graph output, channels) stay.

#include "compiler/passes/fold_pads.h"

#include <gtest/gtest.h>

#include <functional>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "mote/schema/mote_generated.h"

namespace mote::passes {
namespace {

using builder::ModelBuilder;
using builder::TensorId;
using ir::Activation;
using ir::Padding;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

using Build = std::function<TensorId(ModelBuilder&, TensorId)>;

// One int8 input of `shape` (zero point `zero_point`), the operators `build` adds, its result the
// graph output.
ir::Graph model(const std::vector<int32_t>& shape, const Build& build, int32_t zero_point = -7) {
  ModelBuilder b(5);
  const TensorId x = b.add_input(shape, ir::DataType::kInt8, 0.05f, zero_point);
  b.mark_output(build(b, x));
  return b.build();
}

pipeline::Compiled compile(const ir::Graph& g, const char* cpu, bool fold, bool stream = false) {
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  options.plan.fold_pads = fold;
  options.plan.stream = stream;
  return pipeline::compile(g, options);
}

std::vector<uint8_t> run(const pipeline::Compiled& c) {
  return pipeline::run_on_host(c.program).outputs.at(0);
}

int count_pads(const std::vector<uint8_t>& program) {
  int pads = 0;
  for (const schema::Operator* op : *schema::GetProgram(program.data())->operators()) {
    pads += op->kind() == schema::OpKind::Pad;
  }
  return pads;
}

// `folded` of the graph's PADs fold; every CPU, streamed and not, gives the bytes of the program
// that runs every PAD; a folded program holds that many PADs fewer.
void expect_folds(const ir::Graph& g, int folded) {
  EXPECT_EQ(fold_pads(g).folded, folded);
  const pipeline::Compiled reference = compile(g, "cortex-m0plus", false);
  const std::vector<uint8_t> expected = run(reference);
  for (const char* cpu : kCpus) {
    for (const bool stream : {false, true}) {
      const pipeline::Compiled c = compile(g, cpu, true, stream);
      EXPECT_EQ(c.planned.folded_pads, folded) << cpu;
      EXPECT_EQ(count_pads(c.program), count_pads(reference.program) - folded) << cpu;
      EXPECT_EQ(run(c), expected) << cpu << (stream ? " streamed" : "");
    }
  }
}

TEST(FoldPads, ConvolutionAfterAsymmetricPad) {
  // Keras's ZeroPadding2D(((0, 1), (0, 1))) before a 3x3 stride-2 VALID convolution.
  expect_folds(model({1, 10, 12, 3}, [](ModelBuilder& b, TensorId x) {
    return b.add_conv2d(b.add_pad(x, {{0, 0}, {0, 1}, {0, 1}, {0, 0}}), 8, 3, 3, 2, Padding::kValid,
                        Activation::kRelu6);
  }), 1);
  // PyTorch's padding=1 before the same convolution; then a PAD before a SAME one (both add).
  expect_folds(model({1, 9, 11, 4}, [](ModelBuilder& b, TensorId x) {
    const TensorId y = b.add_conv2d(b.add_pad(x, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}), 6, 3, 3, 2,
                                    Padding::kValid, Activation::kRelu);
    return b.add_conv2d(b.add_pad(y, {{0, 0}, {1, 0}, {0, 1}, {0, 0}}), 5, 3, 3, 1, Padding::kSame);
  }), 2);
}

TEST(FoldPads, DepthwiseAfterPad) {
  struct Case {
    int32_t k, stride, before, after;
  };
  for (const Case c : {Case{3, 1, 1, 1}, Case{3, 2, 0, 1}, Case{3, 2, 1, 1}, Case{5, 1, 2, 2},
                       Case{5, 2, 1, 2}, Case{7, 1, 3, 3}, Case{7, 2, 2, 3}}) {
    SCOPED_TRACE(std::to_string(c.k) + "x" + std::to_string(c.k) + " stride " +
                 std::to_string(c.stride) + " pad " + std::to_string(c.before) + "," +
                 std::to_string(c.after));
    expect_folds(model({1, 13, 14, 6}, [&](ModelBuilder& b, TensorId x) {
      const TensorId p = b.add_pad(x, {{0, 0}, {c.before, c.after}, {c.before, c.after}, {0, 0}});
      return b.add_depthwise(p, c.k, c.k, c.stride, Padding::kValid, Activation::kRelu6);
    }), 1);
  }
}

TEST(FoldPads, MaxPoolWherePaddingCannotWin) {
  // After a ReLU, every value is at least the zero point the PAD writes.
  expect_folds(model({1, 12, 12, 3}, [](ModelBuilder& b, TensorId x) {
    const TensorId y = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame, Activation::kRelu);
    return b.add_max_pool(b.add_pad(y, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}), 3, 3, 2);
  }), 1);
  // A zero point of -128: the PAD writes the lowest value.
  expect_folds(model({1, 11, 11, 4}, [](ModelBuilder& b, TensorId x) {
    return b.add_max_pool(b.add_pad(x, {{0, 0}, {0, 1}, {0, 1}, {0, 0}}), 2, 2, 2);
  }, -128), 1);
}

TEST(FoldPads, PadsThatStay) {
  // A max pool over values below the PAD's (its padding could win), an average pool (TFLite's
  // counts only its input's pixels), a PAD read twice, a PAD as graph output, channel padding,
  // padding beyond the window.
  expect_folds(model({1, 11, 11, 4}, [](ModelBuilder& b, TensorId x) {
    return b.add_max_pool(b.add_pad(x, {{0, 0}, {0, 1}, {0, 1}, {0, 0}}), 2, 2, 2);
  }), 0);
  expect_folds(model({1, 10, 10, 4}, [](ModelBuilder& b, TensorId x) {
    return b.add_average_pool(b.add_pad(x, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}), 3, 3, 1);
  }), 0);
  expect_folds(model({1, 10, 10, 4}, [](ModelBuilder& b, TensorId x) {
    const TensorId p = b.add_pad(x, {{0, 0}, {1, 1}, {1, 1}, {0, 0}});
    return b.add_add(b.add_depthwise(p, 3, 3, 1, Padding::kValid),
                     b.add_depthwise(p, 3, 3, 1, Padding::kValid));
  }), 0);
  expect_folds(model({1, 6, 6, 2}, [](ModelBuilder& b, TensorId x) {
    return b.add_pad(b.add_depthwise(x, 3, 3), {{0, 0}, {1, 1}, {1, 1}, {0, 0}});
  }), 0);
  expect_folds(model({1, 8, 8, 3}, [](ModelBuilder& b, TensorId x) {
    return b.add_conv2d(b.add_pad(x, {{0, 0}, {0, 0}, {0, 0}, {0, 1}}), 4, 3, 3, 1, Padding::kSame);
  }), 0);
  expect_folds(model({1, 8, 8, 3}, [](ModelBuilder& b, TensorId x) {
    return b.add_depthwise(b.add_pad(x, {{0, 0}, {3, 3}, {1, 1}, {0, 0}}), 3, 3, 1,
                           Padding::kValid);
  }), 0);
}

// The builder's model of them all (the firmware runs it too): the average pool's PAD stays.
TEST(FoldPads, ExplicitPadsModel) { expect_folds(builder::explicit_pads(), 6); }

// The padded copy needs no arena: on a chain whose peak is a PAD's input and output together,
// the plan is smaller by the padded tensor.
TEST(FoldPads, PlanIsSmallerWithoutThePaddedCopy) {
  const ir::Graph g = model({1, 40, 40, 8}, [](ModelBuilder& b, TensorId x) {
    const TensorId p = b.add_pad(x, {{0, 0}, {0, 1}, {0, 1}, {0, 0}});
    return b.add_depthwise(p, 3, 3, 2, Padding::kValid, Activation::kRelu6);
  });
  for (const char* cpu : kCpus) {
    const uint64_t folded = compile(g, cpu, true).planned.plan().arena_bytes;
    const uint64_t written = compile(g, cpu, false).planned.plan().arena_bytes;
    EXPECT_LT(folded, written) << cpu;
    EXPECT_LE(folded, 40u * 40 * 8 + 20 * 20 * 8 + 64) << cpu;
  }
}

// Steps keep naming the model's operators: the folded PAD's index is skipped.
TEST(FoldPads, ModelIndicesSkipTheFoldedPad) {
  const ir::Graph g = model({1, 8, 8, 3}, [](ModelBuilder& b, TensorId x) {
    const TensorId y = b.add_conv2d(x, 4, 1, 1);
    return b.add_conv2d(b.add_pad(y, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}), 4, 3, 3, 1,
                        Padding::kValid);
  });
  const FoldedPads f = fold_pads(g);
  EXPECT_EQ(f.graph.operators.size(), g.operators.size() - 1);
  EXPECT_EQ(f.model_index, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(std::get<ir::Conv2DOptions>(f.graph.operators[1].options).folded,
            (ir::FoldedPad{1, 1, 1, 1}));
}

}  // namespace
}  // namespace mote::passes
