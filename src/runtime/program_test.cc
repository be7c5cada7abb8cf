// Program::load: every rule of the format, one defect at a time.

#include "mote/runtime/program.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "runtime/testing/test_programs.h"

namespace mote::runtime {
namespace {

using testing::conv_add_program;
using testing::load;
using testing::pack_unchecked;
using Where = LoadDiagnostic::Where;

struct Outcome {
  Error error;
  LoadDiagnostic diagnostic;
};

Outcome load_modified(const std::function<void(schema::ProgramT&)>& modify) {
  schema::ProgramT program = conv_add_program();
  program.version = kFormatVersion;
  modify(program);
  const auto loaded = load(pack_unchecked(program));
  return {loaded.program.error(), loaded.diagnostic};
}

schema::ConvOptionsT& conv_options(schema::ProgramT& p) {
  return *p.operators[0]->options.AsConvOptions();
}
schema::AddOptionsT& add_options(schema::ProgramT& p) {
  return *p.operators[1]->options.AsAddOptions();
}

TEST(ProgramTest, LoadsTheReferenceProgram) {
  const auto loaded = load(emit::emit_program(conv_add_program()));
  ASSERT_TRUE(loaded.program.ok()) << loaded.diagnostic.reason;
  const Program& p = *loaded.program;
  EXPECT_EQ(p.num_tensors(), 7u);
  EXPECT_EQ(p.num_operators(), 3u);
  EXPECT_EQ(p.num_inputs(), 1u);
  EXPECT_EQ(p.num_outputs(), 1u);
  EXPECT_EQ(p.arena_size(), 288u);
  EXPECT_EQ(p.arena_alignment(), 16u);
  EXPECT_EQ(p.extension(), Extension::kScalar);
  EXPECT_EQ(p.size(), loaded.bytes.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.constants()) % 16, 0u);
  EXPECT_GT(p.constants_size(), 0u);
  EXPECT_EQ(p.data(), loaded.bytes.data());
}

TEST(ProgramTest, RejectsNullAndMisalignedBytes) {
  EXPECT_EQ(Program::load(nullptr, 100).error(), Error::kInvalidArgument);
  const auto bytes = emit::emit_program(conv_add_program());
  emit::AlignedBuffer shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  EXPECT_EQ(Program::load(shifted.data() + 1, bytes.size()).error(), Error::kProgramMisaligned);
}

TEST(ProgramTest, RejectsOtherFileIdentifierAndGarbage) {
  auto bytes = emit::emit_program(conv_add_program());
  bytes[4] = 'X';  // the identifier "MOTE" sits at bytes 4..7
  EXPECT_EQ(load(bytes).program.error(), Error::kInvalidProgram);
  std::vector<uint8_t> zeros(256, 0);
  EXPECT_EQ(load(zeros).program.error(), Error::kInvalidProgram);
  EXPECT_EQ(load(std::vector<uint8_t>{}).program.error(), Error::kInvalidProgram);
}

TEST(ProgramTest, RejectsOtherVersions) {
  for (const uint32_t version : {0u, kFormatVersion + 1}) {
    const auto r = load_modified([&](auto& p) { p.version = version; });
    EXPECT_EQ(r.error, Error::kUnsupportedVersion);
  }
}

TEST(ProgramTest, RejectsBadHeaderFields) {
  EXPECT_EQ(load_modified([](auto& p) { p.target.reset(); }).error, Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.target->extension = static_cast<schema::Extension>(9); })
                .error,
            Error::kInvalidProgram);
  for (const uint32_t alignment : {0u, 8u, 24u, 8192u}) {
    EXPECT_EQ(load_modified([&](auto& p) { p.arena_alignment = alignment; }).error,
              Error::kInvalidProgram)
        << alignment;
  }
}

TEST(ProgramTest, RejectsTensorsOutsideTheArenaOrBlob) {
  auto r = load_modified([](auto& p) { p.tensors[3]->offset = 200; });  // y: 100 bytes
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kTensor);
  EXPECT_EQ(r.diagnostic.index, 3u);
  r = load_modified([](auto& p) { p.arena_size = 128; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = load_modified([](auto& p) { p.tensors[1]->offset = 0xFFFFFFF0u; });  // w: a constant
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = load_modified([](auto& p) { p.tensors[1]->offset = 8; });  // constants stay 16-aligned
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = load_modified([](auto& p) { p.tensors[0]->offset = 0xFFFFFFFFu; });  // offset + size wraps
  EXPECT_EQ(r.error, Error::kInvalidProgram);
}

TEST(ProgramTest, RejectsShapesThatDisagreeWithSizes) {
  EXPECT_EQ(load_modified([](auto& p) { p.tensors[0]->size = 49; }).error, Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.tensors[0]->shape[1] = 0; }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.tensors[0]->shape[1] = -5; }).error,
            Error::kInvalidProgram);
  // Element count overflow: 65536^3 wraps to 0 in 32 bits.
  EXPECT_EQ(load_modified([](auto& p) { p.tensors[0]->shape = {65536, 65536, 65536}; }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.tensors[0]->shape = {1, 1, 1, 1, 1, 1, 50}; }).error,
            Error::kUnsupported);
  EXPECT_EQ(load_modified([](auto& p) {
              p.tensors[0]->type = static_cast<schema::DataType>(42);
            }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.tensors[0]->scale = -1.0f; }).error,
            Error::kInvalidProgram);
}

TEST(ProgramTest, RejectsTensorsAboveTwoGigabytes) {
  // Kernels index with int32 (pixels = output_h * output_w, rows of a softmax): a tensor of
  // 2^31 bytes or more would overflow them, though its element count fits 32 bits.
  auto with_big_tensor = [](std::vector<int32_t> shape, uint32_t bytes) {
    return load_modified([&](auto& p) {
      auto t = std::make_unique<schema::TensorT>();
      t->type = schema::DataType::Int8;
      t->shape = shape;
      t->size = bytes;
      t->offset = 288;
      p.arena_size = 288 + bytes + 16 - bytes % 16;
      p.tensors.push_back(std::move(t));
    });
  };
  auto r = with_big_tensor({46341, 46341}, 46341u * 46341u);
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kTensor);
  EXPECT_EQ(r.diagnostic.index, 7u);
  r = with_big_tensor({2, 1 << 30}, 1u << 31);
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = with_big_tensor({INT32_MAX}, INT32_MAX);
  EXPECT_EQ(r.error, Error::kOk) << r.diagnostic.reason;
}

TEST(ProgramTest, RejectsIndicesOutOfRange) {
  auto r = load_modified([](auto& p) { p.inputs[0] = 7; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kInput);
  r = load_modified([](auto& p) { p.outputs[0] = -1; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kOutput);
  r = load_modified([](auto& p) { p.operators[1]->inputs[1] = 1000; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kOperator);
  EXPECT_EQ(r.diagnostic.index, 1u);
  r = load_modified([](auto& p) { p.operators[1]->outputs[0] = -1; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = load_modified([](auto& p) { p.operators[0]->inputs[0] = -1; });  // input is required
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = load_modified([](auto& p) { p.tensors[6]->alias = 99; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = load_modified([](auto& p) { p.tensors[6]->alias = 6; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = load_modified([](auto& p) { p.tensors[6]->alias = 1; });  // a constant
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  // An alias starts where its target starts.
  r = load_modified([](auto& p) {
    p.arena_size = 304;
    p.tensors[6]->offset = 192;
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
}

TEST(ProgramTest, RejectsWrongArityAndOptions) {
  EXPECT_EQ(load_modified([](auto& p) { p.operators[1]->inputs.push_back(3); }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.operators[0]->inputs.resize(1); }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.operators[0]->outputs.push_back(3); }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.operators[1]->options.Reset(); }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.operators[2]->kind = schema::OpKind::Softmax; }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) {
              p.operators[2]->kind = static_cast<schema::OpKind>(200);
            }).error,
            Error::kInvalidProgram);
}

TEST(ProgramTest, RejectsOutputsOutsideTheArena) {
  // Operator 1 writing into the constant `c` (tensor 4), which has the same shape class.
  const auto r = load_modified([](auto& p) {
    p.tensors[4]->shape = {1, 5, 5, 4};
    p.tensors[4]->size = 100;
    p.operators[1]->outputs[0] = 4;
  });
  EXPECT_NE(r.error, Error::kOk);
}

TEST(ProgramTest, ChecksTheInputsWrittenAsFloats) {
  // conv_add's input 0 is int8 with a scale in the arena: floats can be quantized into it.
  const auto ok = load_modified([](auto& p) { p.float_inputs = {true}; });
  EXPECT_EQ(ok.error, Error::kOk) << ok.diagnostic.reason;
  auto r = load_modified([](auto& p) { p.float_inputs = {true, false}; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_STREQ(r.diagnostic.reason, "float_inputs lists more inputs than the program has");
  // No scale to quantize with, or outside the arena (the caller's buffer is never written).
  r = load_modified([](auto& p) {
    p.float_inputs = {true};
    p.tensors[0]->scale = 0.0f;
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kInput);
  r = load_modified([](auto& p) {
    p.float_inputs = {true};
    testing::make_input_external(p);
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kInput);
}

TEST(ProgramTest, AcceptsAnExternalGraphInputOnly) {
  using testing::make_input_external;
  const auto ok = load_modified([](auto& p) { make_input_external(p); });
  EXPECT_EQ(ok.error, Error::kOk) << ok.diagnostic.reason;
  // An intermediate (y) or an output (out, and z which it aliases) has no caller to bind it.
  for (const uint32_t t : {3u, 5u, 6u}) {
    const auto r = load_modified([t](auto& p) {
      p.tensors[t]->location = schema::Location::External;
      p.tensors[t]->offset = 0;
      p.tensors[t]->first_step = 0;
      p.tensors[t]->last_step = 0;
      p.tensors[t]->alias = -1;
    });
    EXPECT_EQ(r.error, Error::kInvalidProgram) << t;
  }
  // A weight, marked external.
  auto r = load_modified([](auto& p) {
    p.tensors[1]->location = schema::Location::External;
    p.tensors[1]->offset = 0;
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kTensor);
  EXPECT_EQ(r.diagnostic.index, 1u);
  EXPECT_STREQ(r.diagnostic.reason, "external tensor that is not one of the first 4 graph inputs");
  // Nothing to place: offset and steps stay 0, no alias.
  r = load_modified([](auto& p) {
    make_input_external(p);
    p.tensors[0]->offset = 16;
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_STREQ(r.diagnostic.reason, "external tensor with an offset or steps");
  r = load_modified([](auto& p) {
    make_input_external(p);
    p.tensors[0]->last_step = 1;
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  r = load_modified([](auto& p) {
    make_input_external(p);
    p.tensors[0]->alias = 3;
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  // Nothing may alias it (a RESHAPE of the caller's buffer copies it).
  r = load_modified([](auto& p) {
    make_input_external(p);
    p.tensors[3]->alias = 0;
    p.tensors[3]->offset = 0;
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  // Listed twice, it would need two slots.
  r = load_modified([](auto& p) {
    make_input_external(p);
    p.inputs = {0, 0};
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kInput);
  EXPECT_EQ(r.diagnostic.index, 1u);
  // The Executor keeps kMaxExternalInputs pointers: a fifth input outside the arena is
  // well-formed but unsupported.
  r = load_modified([](auto& p) {
    make_input_external(p);
    p.inputs = {3, 3, 3, 3, 0};
  });
  EXPECT_EQ(r.error, Error::kUnsupported);
  EXPECT_EQ(r.diagnostic.where, Where::kInput);
  EXPECT_EQ(r.diagnostic.index, 4u);
  // An unknown location is refused as before.
  r = load_modified([](auto& p) { p.tensors[0]->location = static_cast<schema::Location>(3); });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_STREQ(r.diagnostic.reason, "unknown location");
}

TEST(ProgramTest, RejectsInconsistentConvolutionShapes) {
  EXPECT_EQ(load_modified([](auto& p) { conv_options(p).stride_h = 2; }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { conv_options(p).pad_w = 3; }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { conv_options(p).dilation_h = 0; }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { p.tensors[2]->shape = {3}; p.tensors[2]->size = 12; }).error,
            Error::kInvalidProgram);  // bias count differs from output channels
}

TEST(ProgramTest, RejectsBadPerChannelArrays) {
  EXPECT_EQ(load_modified([](auto& p) { conv_options(p).multipliers->mutate_size(12); }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { conv_options(p).shifts->mutate_offset(1u << 20); }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { conv_options(p).multipliers.reset(); }).error,
            Error::kInvalidProgram);
  // A shift of 40 (read from the constant blob) would be an undefined shift in the kernel: a
  // parameter the kernels cannot take. A negative multiplier is no compiler's output at all.
  auto r = load_modified([](auto& p) {
    const uint32_t at = conv_options(p).shifts->offset();
    const int32_t forty = 40;
    std::memcpy(p.constants.data() + at, &forty, 4);
  });
  EXPECT_EQ(r.error, Error::kUnsupported);
  r = load_modified([](auto& p) {
    const uint32_t at = conv_options(p).multipliers->offset();
    const int32_t negative = -(1 << 30);
    std::memcpy(p.constants.data() + at, &negative, 4);
  });
  EXPECT_EQ(r.error, Error::kInvalidProgram);
}

TEST(ProgramTest, RejectsParametersThatCouldOverflow) {
  EXPECT_EQ(load_modified([](auto& p) { conv_options(p).input_offset = 1 << 20; }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { add_options(p).left_shift = 31; }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { add_options(p).input1_requant->mutate_shift(20); }).error,
            Error::kUnsupported);
  EXPECT_EQ(load_modified([](auto& p) { add_options(p).output_requant->mutate_multiplier(-1); })
                .error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { add_options(p).output_requant.reset(); }).error,
            Error::kInvalidProgram);
  EXPECT_EQ(load_modified([](auto& p) { add_options(p).activation_min = 100; add_options(p).activation_max = 0; })
                .error,
            Error::kInvalidProgram);
  // A bias near INT32_MAX could overflow the accumulator.
  const auto r = load_modified([](auto& p) {
    const uint32_t at = p.tensors[2]->offset;
    const int32_t big = 0x7FFFFF00;
    std::memcpy(p.constants.data() + at, &big, 4);
  });
  EXPECT_EQ(r.error, Error::kUnsupported);
}

TEST(ProgramTest, ChecksScratchAgainstTheKernelsNeed) {
  // The portable convolution uses two int16 columns of its 18 taps: 72 bytes (80 planned).
  auto r = load_modified([](auto& p) { p.operators[0]->scratch->mutate_size(71); });
  EXPECT_EQ(r.error, Error::kScratchTooSmall);
  EXPECT_EQ(r.diagnostic.where, Where::kOperator);
  EXPECT_EQ(r.diagnostic.index, 0u);
  r = load_modified([](auto& p) { p.operators[0]->scratch.reset(); });
  EXPECT_EQ(r.error, Error::kScratchTooSmall);
  r = load_modified([](auto& p) { p.operators[0]->scratch->mutate_size(72); });
  EXPECT_EQ(r.error, Error::kOk);
  // An MVE program runs the same portable kernel: 80 bytes are enough there too (CMSIS-NN's
  // Helium kernel would want 128).
  r = load_modified([](auto& p) { p.target->extension = schema::Extension::Mve; });
  EXPECT_EQ(r.error, Error::kOk);
  r = load_modified([](auto& p) { p.operators[0]->scratch->mutate_offset(212); });
  EXPECT_EQ(r.error, Error::kInvalidProgram);  // 212 + 80 > 288
  r = load_modified([](auto& p) { p.operators[0]->scratch->mutate_offset(178); });
  EXPECT_EQ(r.error, Error::kInvalidProgram);  // not 4-byte aligned
}

TEST(ProgramTest, RejectsPlansWhereLiveBuffersOverlap) {
  // y (live at steps 0-1) moved onto x (live at step 0).
  auto r = load_modified([](auto& p) { p.tensors[3]->offset = 16; });
  EXPECT_EQ(r.error, Error::kInvalidPlan);
  EXPECT_EQ(r.diagnostic.where, Where::kTensor);
  // The conv scratch (step 0) moved onto y.
  r = load_modified([](auto& p) { p.operators[0]->scratch->mutate_offset(96); });
  EXPECT_EQ(r.error, Error::kInvalidPlan);
  EXPECT_EQ(r.diagnostic.where, Where::kOperator);
  // Lifetimes that do not cover the uses: z claims to die before the reshape reads it.
  r = load_modified([](auto& p) { p.tensors[5]->last_step = 1; });
  EXPECT_EQ(r.error, Error::kInvalidPlan);
  // Without the alias, the reshape's output overlaps its live input.
  r = load_modified([](auto& p) { p.tensors[6]->alias = -1; });
  EXPECT_EQ(r.error, Error::kInvalidPlan);
  // Graph inputs live from step 0, outputs to the last step.
  r = load_modified([](auto& p) { p.tensors[0]->first_step = 1; });
  EXPECT_NE(r.error, Error::kOk);
  r = load_modified([](auto& p) { p.tensors[6]->last_step = 1; });
  EXPECT_NE(r.error, Error::kOk);
  r = load_modified([](auto& p) { p.tensors[0]->last_step = 3; });
  EXPECT_EQ(r.error, Error::kInvalidProgram);  // past the last step
}

TEST(ProgramTest, RejectsOutputsOnTheirInputsUnlessTheKernelRunsInPlace) {
  // The conv's output y made an alias of its input x, on x's bytes: the overlap rule lets
  // aliases share bytes, but the conv kernel reads its input after writing output rows.
  auto r = load_modified([](auto& p) {
    p.tensors[3]->offset = 0;
    p.tensors[3]->alias = 0;
  });
  EXPECT_EQ(r.error, Error::kInvalidPlan);
  EXPECT_EQ(r.diagnostic.where, Where::kOperator);
  EXPECT_EQ(r.diagnostic.index, 0u);
  // The add's output z (and the reshape's output aliasing it) on the add's input y: an
  // elementwise kernel runs in place from the same start...
  auto add_onto_y = [](uint32_t offset) {
    return load_modified([offset](auto& p) {
      p.tensors[5]->offset = offset;
      p.tensors[5]->alias = 3;
      p.tensors[6]->offset = offset;
      p.tensors[6]->alias = 3;
    });
  };
  r = add_onto_y(64);
  EXPECT_EQ(r.error, Error::kOk) << r.diagnostic.reason;
  // ...but not from a later start: as an alias that is malformed (an alias starts at its
  // target), and as a plain buffer it overlaps a live input.
  r = add_onto_y(80);
  EXPECT_EQ(r.error, Error::kInvalidProgram);
  EXPECT_EQ(r.diagnostic.where, Where::kTensor);
  r = load_modified([](auto& p) {
    p.tensors[5]->offset = 80;
    p.tensors[6]->offset = 80;
    p.tensors[6]->alias = 5;
  });
  EXPECT_EQ(r.error, Error::kInvalidPlan) << r.diagnostic.reason;
}

// A plan may put an operator's output over an input that dies there only where the kernel this
// library runs declares it (OpRegistration::overlap, mote/kernels/overlap.h): ADD's elementwise
// rule (the output at or before its input), the convolution's (never from after its input).
TEST(ProgramTest, AcceptsOnlyTheOverlapsTheKernelsDeclare) {
  // z (ADD's output, 100 bytes) starting 16 bytes before y (its dying input, at 64): declared.
  auto r = load_modified([](auto& p) {
    p.tensors[5]->offset = 48;
    p.tensors[6]->offset = 48;
  });
  EXPECT_EQ(r.error, Error::kOk) << r.diagnostic.reason;
  // In place: declared too.
  r = load_modified([](auto& p) {
    p.tensors[5]->offset = 64;
    p.tensors[6]->offset = 64;
  });
  EXPECT_EQ(r.error, Error::kOk) << r.diagnostic.reason;
  // 16 bytes after y's start: element i would be written before input element i + 16 is read.
  r = load_modified([](auto& p) {
    p.tensors[5]->offset = 80;
    p.tensors[6]->offset = 80;
  });
  EXPECT_EQ(r.error, Error::kInvalidPlan);
  // y (the convolution's output) over x from after x's start: no rule allows it.
  r = load_modified([](auto& p) { p.tensors[3]->offset = 16; });
  EXPECT_EQ(r.error, Error::kInvalidPlan);
}

TEST(ProgramTest, AcceptsOverlapOfBuffersThatAreNeverLiveTogether) {
  // The reference plan already puts z (steps 1-2) on the conv scratch (step 0). z onto y
  // (steps 0-1) from a later start must fail (ADD's rule lets its output start at or before
  // its input, see AcceptsOnlyTheOverlapsTheKernelsDeclare); z onto x (step 0) but clear of y
  // is fine.
  const auto r = load_modified([](auto& p) {
    p.tensors[5]->offset = 80;
    p.tensors[6]->offset = 80;
  });
  EXPECT_EQ(r.error, Error::kInvalidPlan);
  const auto ok = load_modified([](auto& p) {
    p.tensors[3]->offset = 112;  // y, then the scratch, above x; z onto x
    p.operators[0]->scratch->mutate_offset(224);
    p.arena_size = 304;
    p.tensors[5]->offset = 0;
    p.tensors[6]->offset = 0;
  });
  EXPECT_EQ(ok.error, Error::kOk) << ok.diagnostic.reason;
}

}  // namespace
}  // namespace mote::runtime
