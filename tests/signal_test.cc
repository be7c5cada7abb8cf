// TFLM's signal operators against hostile programs and models: the loader refuses every field
// the kernels would misuse (a shift past its type, an index table that reads outside, a length
// the FFT cannot take, a state that is not one), and the reader refuses every option value TFLM
// would misuse, naming the operator and the option, on the builder's audio front end
// (builder::audio_frontend).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <flatbuffers/flexbuffers.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/tflite/reader.h"
#include "compiler/tflite/tflite_subset_generated.h"
#include "mote/schema/mote_generated.h"

namespace mote {
namespace {

using ::testing::HasSubstr;
namespace fb = tflite::fb;

std::vector<uint8_t> program_of(const ir::Graph& g) {
  pipeline::CompileOptions options;
  options.plan.cpu = "cortex-m4";
  return pipeline::compile(g, options).program;
}

// The loader's reason for the program with `edit` applied, or "" when it loads.
std::string refusal(const std::vector<uint8_t>& bytes,
                    const std::function<void(schema::ProgramT&)>& edit) {
  schema::ProgramT p;
  schema::GetProgram(bytes.data())->UnPackTo(&p);
  edit(p);
  try {
    emit::emit_program(std::move(p));
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

// The first operator of `kind`.
schema::OperatorT& first(schema::ProgramT& p, schema::OpKind kind) {
  for (auto& op : p.operators) {
    if (op->kind == kind) return *op;
  }
  throw std::runtime_error("no such operator");
}
schema::SignalOptionsT& signal(schema::ProgramT& p, schema::OpKind kind) {
  return *first(p, kind).options.AsSignalOptions();
}

TEST(SignalLoadCheck, RefusesFieldsTheKernelsWouldMisuse) {
  const std::vector<uint8_t> bytes = program_of(builder::audio_frontend());
  using K = schema::OpKind;
  EXPECT_EQ(refusal(bytes, [](schema::ProgramT&) {}), "");
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalWindow).shift = 32; }),
              HasSubstr("window shift outside [0, 31]"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalWindow).shift = -1; }),
              HasSubstr("window shift"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalRfft).fft_length = 48; }),
              HasSubstr("fft_length not a power of two"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalRfft).fft_length = 1 << 30; }),
              HasSubstr("fft_length not a power of two"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalRfft).twiddles->mutate_size(8); }),
              HasSubstr("twiddle table"));
  EXPECT_THAT(refusal(bytes,
                      [](auto& p) {
                        signal(p, K::SignalRfft).twiddles->mutate_offset(
                            static_cast<uint32_t>(p.constants.size()));
                      }),
              HasSubstr("twiddle table"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalEnergy).end_index = 34; }),
              HasSubstr("start_index and end_index"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalEnergy).start_index = -1; }),
              HasSubstr("start_index and end_index"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalFilterBank).num_channels = 5; }),
              HasSubstr("num_channels"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalFilterBank).num_channels = -4; }),
              HasSubstr("num_channels outside"));
  // A channel width in the constants made to read past the input.
  EXPECT_THAT(refusal(bytes,
                      [](auto& p) {
                        const schema::OperatorT& bank = first(p, K::SignalFilterBank);
                        const schema::TensorT& widths = *p.tensors[bank.inputs[5]];
                        const int16_t wide = 30000;
                        std::memcpy(p.constants.data() + widths.offset + 2, &wide, 2);
                      }),
              HasSubstr("a channel reads outside the input or the weights"));
  EXPECT_THAT(refusal(bytes,
                      [](auto& p) {
                        const schema::OperatorT& bank = first(p, K::SignalFilterBank);
                        const schema::TensorT& starts = *p.tensors[bank.inputs[3]];
                        const int16_t negative = -3;
                        std::memcpy(p.constants.data() + starts.offset, &negative, 2);
                      }),
              HasSubstr("a channel reads outside"));
  EXPECT_THAT(
      refusal(bytes,
              [](auto& p) {
                signal(p, K::SignalFilterBankSpectralSubtraction).smoothing_bits = 32;
              }),
      HasSubstr("smoothing_bits outside [0, 31]"));
  EXPECT_THAT(refusal(bytes,
                      [](auto& p) {
                        signal(p, K::SignalFilterBankSpectralSubtraction)
                            .spectral_subtraction_bits = 64;
                      }),
              HasSubstr("spectral_subtraction_bits outside [0, 63]"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { signal(p, K::SignalPcan).snr_shift = 64; }),
              HasSubstr("snr_shift outside [0, 63]"));
  EXPECT_THAT(
      refusal(bytes, [](auto& p) { signal(p, K::SignalFilterBankLog).input_correction_bits = 32; }),
      HasSubstr("input_correction_bits outside [0, 31]"));
  // A gain table shorter than PCAN reads.
  EXPECT_THAT(refusal(bytes,
                      [](auto& p) {
                        schema::TensorT& lut = *p.tensors[first(p, K::SignalPcan).inputs[2]];
                        lut.shape = {100};
                        lut.size = 200;
                      }),
              HasSubstr("gain table"));
  // The noise estimate must be a state; an arena tensor that is not one is refused.
  EXPECT_THAT(refusal(bytes,
                      [](auto& p) {
                        const schema::OperatorT& s =
                            first(p, K::SignalFilterBankSpectralSubtraction);
                        p.tensors[s.inputs[1]]->state = false;
                      }),
              HasSubstr("state"));
  // An empty clamp on the int32 DIV; a quantized operand where TFLM's int32 arithmetic is plain.
  EXPECT_THAT(refusal(bytes,
                      [](auto& p) {
                        auto& o = *first(p, K::Div).options.AsMulOptions();
                        o.activation_min = 5;
                        o.activation_max = 4;
                      }),
              HasSubstr("activation range empty"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { p.tensors[first(p, K::Mul).outputs[0]]->scale = 0.5f; }),
              HasSubstr("plain int32"));
  EXPECT_THAT(refusal(bytes, [](auto& p) { p.tensors[first(p, K::Cast).outputs[0]]->scale = 0.5f; }),
              HasSubstr("plain int8, int16, int32 or uint32"));
}

// The model with operator `index`'s custom options replaced by `options`; the reader's message.
std::string read_error(size_t index, const std::vector<uint8_t>& options) {
  auto model = builder::to_tflite_object(builder::audio_frontend());
  model->subgraphs[0]->operators[index]->custom_options = options;
  try {
    tflite::read_model(builder::pack_model(*model, {}));
    return "accepted";
  } catch (const InputError& e) {
    return e.what();
  }
}

std::vector<uint8_t> map_of(const std::vector<std::pair<const char*, int64_t>>& entries) {
  flexbuffers::Builder b;
  b.Map([&] {
    for (const auto& [key, value] : entries) b.Int(key, value);
  });
  b.Finish();
  return b.GetBuffer();
}

TEST(SignalReader, RefusesHostileOptionsNamingThem) {
  const ir::Graph g = builder::audio_frontend();
  // The operators' positions in the builder's graph.
  auto index_of = [&](ir::OpType type) {
    for (size_t i = 0; i < g.operators.size(); ++i) {
      if (g.operators[i].type == type) return i;
    }
    return g.operators.size();
  };
  const size_t window = index_of(ir::OpType::kSignalWindow);
  const size_t rfft = index_of(ir::OpType::kSignalRfft);
  const size_t bank = index_of(ir::OpType::kSignalFilterBank);
  const size_t pcan = index_of(ir::OpType::kSignalPcan);
  EXPECT_EQ(read_error(window, map_of({{"shift", 12}})), "accepted");
  EXPECT_THAT(read_error(window, map_of({{"shift", 40}})),
              HasSubstr("(CUSTOM 'SignalWindow'): option shift = 40 out of range [0, 31]"));
  EXPECT_THAT(read_error(window, map_of({{"shift", -1}})), HasSubstr("option shift = -1"));
  EXPECT_THAT(read_error(window, map_of({{"shift", int64_t{1} << 40}})),
              HasSubstr("option shift = 1099511627776 out of range"));
  EXPECT_THAT(read_error(window, map_of({})), HasSubstr("option shift missing"));
  EXPECT_THAT(read_error(window, {}), HasSubstr("custom options missing"));
  EXPECT_THAT(read_error(window, {1, 2, 3, 4, 5}), HasSubstr("not a valid FlexBuffer"));
  EXPECT_THAT(read_error(rfft, map_of({{"T", 7}, {"fft_length", 0}})),
              HasSubstr("option fft_length = 0 is not a power of two in [4, 4096]"));
  EXPECT_THAT(read_error(rfft, map_of({{"T", 7}, {"fft_length", 500}})),
              HasSubstr("option fft_length = 500"));
  EXPECT_THAT(read_error(rfft, map_of({{"T", 1}, {"fft_length", 64}})),
              HasSubstr("option T = 1: Mote runs the int16 RFFT only"));
  EXPECT_THAT(read_error(bank, map_of({{"num_channels", 0}})),
              HasSubstr("option num_channels = 0 out of range"));
  EXPECT_THAT(read_error(bank, map_of({{"num_channels", int64_t{1} << 33}})),
              HasSubstr("option num_channels"));
  EXPECT_THAT(read_error(pcan, map_of({{"snr_shift", 64}})),
              HasSubstr("option snr_shift = 64 out of range [0, 63]"));
  // Options that read well but do not fit the tensors: refused by the operator's check.
  EXPECT_THAT(read_error(bank, map_of({{"num_channels", 3}})),
              HasSubstr("SignalFilterBank"));
  // A custom operator Mote does not have, and one of TFLM's signal operators it lacks.
  auto unknown = builder::to_tflite_object(g);
  unknown->operator_codes[0]->custom_code = "SignalFramer";
  try {
    tflite::read_model(builder::pack_model(*unknown, {}));
    ADD_FAILURE() << "SignalFramer was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("TFLM's signal operator SignalFramer, which Mote does not have"));
  }
}

}  // namespace
}  // namespace mote
