// TFLM's signal operators (signal/micro/kernels at 90b983c): the audio front end of micro_speech
// as custom operators whose options are a FlexBuffers map. Each definition reads and checks its
// options (every value TFLM would misuse, an out-of-range shift, an index past a tensor, is
// refused naming the option), its plain integer tensors (no quantization), and lowers to
// SignalOptions; the kernels are mote/kernels/signal.h.
#include <cmath>
#include <cstring>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/signal.h"

namespace mote::ops {
namespace {

using ir::SignalOptions;

constexpr int32_t kCustom = builtin(tfl::BuiltinOperator::CUSTOM);
constexpr int64_t kInt32Max = INT32_MAX;
// Channels of the filter bank and after it: TFLM's filter bank indexes its tables with int16.
constexpr int64_t kMaxChannels = 32767;

// The map's entries as TFLM's FlexbufferWrapper reads them (by name here, by sorted position
// there: the same entries).
std::vector<uint8_t> write_map(const std::vector<std::pair<const char*, int64_t>>& entries,
                               const char* bool_key = nullptr, bool bool_value = false) {
  flexbuffers::Builder b;
  b.Map([&] {
    for (const auto& [key, value] : entries) b.Int(key, value);
    if (bool_key != nullptr) b.Bool(bool_key, bool_value);
  });
  b.Finish();
  return b.GetBuffer();
}

void write_nothing(const ir::Operator&, tfl::BuiltinOptionsUnion&) {}

const SignalOptions& options_of(const ir::Operator& op) { return std::get<SignalOptions>(op.options); }

void lower_options(LowerContext& ctx, schema::OperatorT& out) {
  const SignalOptions& o = options_of(ctx.op());
  schema::SignalOptionsT s;
  s.shift = o.shift;
  s.fft_length = o.fft_length;
  s.start_index = o.start_index;
  s.end_index = o.end_index;
  s.num_channels = o.num_channels;
  s.smoothing = o.smoothing;
  s.one_minus_smoothing = o.one_minus_smoothing;
  s.alternate_smoothing = o.alternate_smoothing;
  s.alternate_one_minus_smoothing = o.alternate_one_minus_smoothing;
  s.min_signal_remaining = o.min_signal_remaining;
  s.smoothing_bits = o.smoothing_bits;
  s.spectral_subtraction_bits = o.spectral_subtraction_bits;
  s.clamping = o.clamping;
  s.snr_shift = o.snr_shift;
  s.input_correction_bits = o.input_correction_bits;
  s.output_scale = o.output_scale;
  out.options.Set(std::move(s));
}

int64_t count_of(const ir::Tensor& t) { return t.num_elements(); }

void expect_count(Checker& c, size_t k, int64_t count) {
  const ir::Tensor& t = c.operand(k);
  if (count_of(t) != count) {
    c.fail(c.label(k) + " has shape " + ir::shape_string(t.shape) + ", expected " +
           std::to_string(count) + " elements");
  }
}

// --- SignalWindow ---------------------------------------------------------------------------

ir::Options read_window(const TfliteOptions& t) {
  SignalOptions o;
  o.shift = static_cast<int32_t>(t.custom_int(t.custom_map(), "shift", 0, 31));
  return o;
}
std::vector<uint8_t> write_window(const ir::Operator& op) {
  return write_map({{"shift", options_of(op).shift}});
}
void check_window(Checker& c) {
  const SignalOptions& o = c.options<SignalOptions>();
  if (o.shift < 0 || o.shift > 31) c.fail("option shift " + std::to_string(o.shift) + " out of [0, 31]");
  const ir::Tensor& x = c.plain(0, DataType::kInt16);
  if (x.shape.empty()) c.fail(c.in_label(0) + " is a scalar; expected at least one dimension");
  const ir::Tensor& w = c.plain_vector(1, DataType::kInt16);
  if (!w.is_constant) c.fail(c.in_label(1) + " (the window) must be a constant");
  c.plain(Checker::kOutput, DataType::kInt16);
  c.expect_output_shape(x.shape);
  if (count_of(x) % count_of(w) != 0) {
    c.fail(c.in_label(0) + " holds " + std::to_string(count_of(x)) +
           " samples, not a multiple of the window's " + std::to_string(count_of(w)));
  }
}

// --- SignalFftAutoScale ---------------------------------------------------------------------

ir::Options read_fft_auto_scale(const TfliteOptions& t) {
  t.custom_map();  // TFLM reads nothing from it
  return SignalOptions{};
}
std::vector<uint8_t> write_empty_map(const ir::Operator&) { return write_map({}); }
void check_fft_auto_scale(Checker& c) {
  const ir::Tensor& x = c.plain_vector(0, DataType::kInt16);
  c.plain(Checker::kOutput, DataType::kInt16);
  c.expect_output_shape(x.shape);
  c.expect_type(Checker::kOutput, DataType::kInt16);
  const ir::Tensor& bits = c.out_at(1);
  if (bits.type != DataType::kInt32 || !bits.shape.empty() || !bits.quantization.empty()) {
    c.fail(c.out_label(1) + " (the shift) must be a plain int32 scalar");
  }
}

// --- SignalRfft -----------------------------------------------------------------------------

constexpr int64_t kTensorInt16 = 7;  // TFLite's TensorType INT16

ir::Options read_rfft(const TfliteOptions& t) {
  const flexbuffers::Map m = t.custom_map();
  const int64_t type = t.custom_int(m, "T", INT32_MIN, INT32_MAX);
  if (type != kTensorInt16) {
    t.fail("option T = " + std::to_string(type) +
           ": Mote runs the int16 RFFT only (TFLM's INT32 and FLOAT32 forms are not supported)");
  }
  SignalOptions o;
  o.fft_length = static_cast<int32_t>(t.custom_int(m, "fft_length", INT32_MIN, INT32_MAX));
  if (!kernels::rfft_length_ok(o.fft_length)) {
    t.fail("option fft_length = " + std::to_string(o.fft_length) +
           " is not a power of two in [4, " + std::to_string(kernels::kMaxRfftLength) + "]");
  }
  return o;
}
std::vector<uint8_t> write_rfft(const ir::Operator& op) {
  return write_map({{"T", kTensorInt16}, {"fft_length", options_of(op).fft_length}});
}
void check_rfft(Checker& c) {
  const SignalOptions& o = c.options<SignalOptions>();
  if (!kernels::rfft_length_ok(o.fft_length)) {
    c.fail("option fft_length " + std::to_string(o.fft_length) + " is not a power of two in [4, " +
           std::to_string(kernels::kMaxRfftLength) + "]");
  }
  const ir::Tensor& x = c.plain(0, DataType::kInt16);
  const ir::Tensor& y = c.plain(Checker::kOutput, DataType::kInt16);
  if (x.shape.empty() || y.shape.size() != x.shape.size()) {
    c.fail(c.out_label() + " has shape " + ir::shape_string(y.shape) + ", expected the rank of " +
           c.in_label(0) + " " + ir::shape_string(x.shape) + " (at least 1)");
  }
  if (x.shape.back() > o.fft_length) {
    c.fail(c.in_label(0) + " rows of " + std::to_string(x.shape.back()) +
           " samples are longer than fft_length " + std::to_string(o.fft_length));
  }
  std::vector<int32_t> want = x.shape;
  want.back() = o.fft_length + 2;
  c.expect_output_shape(want);
}
uint64_t rfft_scratch(const ir::Graph&, const ir::Operator& op, kernels::Extension) {
  return kernels::signal_rfft_scratch_bytes(options_of(op).fft_length);
}
// kissfft's twiddles as its fixed-point build computes them: floor(0.5 + 32767 * cos(phase)),
// in double, the phases of kiss_fft_alloc and kiss_fftr_alloc.
std::vector<int16_t> rfft_twiddles(int32_t fft_length) {
  const int32_t n = fft_length / 2;
  std::vector<int16_t> t;
  t.reserve(kernels::signal_rfft_twiddle_count(fft_length));
  auto add = [&](double phase) {
    t.push_back(static_cast<int16_t>(std::floor(0.5 + 32767 * std::cos(phase))));
    t.push_back(static_cast<int16_t>(std::floor(0.5 + 32767 * std::sin(phase))));
  };
  const double pi = 3.141592653589793238462643383279502884197169399375105820974944;
  for (int32_t i = 0; i < n; ++i) add(-2 * pi * i / n);
  for (int32_t i = 0; i < n / 2; ++i) add(-3.14159265358979323846264338327 * ((double)(i + 1) / n + .5));
  return t;
}
void lower_rfft(LowerContext& ctx, schema::OperatorT& out) {
  lower_options(ctx, out);
  const std::vector<int16_t> tw = rfft_twiddles(options_of(ctx.op()).fft_length);
  out.options.AsSignalOptions()->twiddles =
      std::make_unique<schema::Region>(ctx.constants().add_array(tw));
}

// --- SignalEnergy ---------------------------------------------------------------------------

ir::Options read_energy(const TfliteOptions& t) {
  const flexbuffers::Map m = t.custom_map();
  SignalOptions o;
  o.start_index = static_cast<int32_t>(t.custom_int(m, "start_index", 0, kInt32Max));
  o.end_index = static_cast<int32_t>(t.custom_int(m, "end_index", 0, kInt32Max));
  return o;
}
std::vector<uint8_t> write_energy(const ir::Operator& op) {
  return write_map({{"end_index", options_of(op).end_index},
                    {"start_index", options_of(op).start_index}});
}
void check_energy(Checker& c) {
  const SignalOptions& o = c.options<SignalOptions>();
  const ir::Tensor& x = c.plain_vector(0, DataType::kInt16);
  const ir::Tensor& y = c.plain_vector(Checker::kOutput, DataType::kUInt32);
  if (count_of(x) != 2 * count_of(y)) {
    c.fail(c.in_label(0) + " holds " + std::to_string(count_of(x)) +
           " int16, expected twice the output's " + std::to_string(count_of(y)) +
           " (a real and an imaginary part each)");
  }
  if (o.start_index < 0 || o.start_index > o.end_index || o.end_index > count_of(y)) {
    c.fail("options start_index " + std::to_string(o.start_index) + " and end_index " +
           std::to_string(o.end_index) + " are not a range inside the " +
           std::to_string(count_of(y)) + " bins");
  }
}

// --- SignalFilterBank -----------------------------------------------------------------------

ir::Options read_filter_bank(const TfliteOptions& t) {
  SignalOptions o;
  o.num_channels =
      static_cast<int32_t>(t.custom_int(t.custom_map(), "num_channels", 1, kMaxChannels));
  return o;
}
std::vector<uint8_t> write_filter_bank(const ir::Operator& op) {
  return write_map({{"num_channels", options_of(op).num_channels}});
}
std::vector<int16_t> int16_values(const ir::Tensor& t) {
  std::vector<int16_t> v(static_cast<size_t>(count_of(t)));
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * sizeof(int16_t));
  return v;
}
void check_filter_bank(Checker& c) {
  const SignalOptions& o = c.options<SignalOptions>();
  if (o.num_channels < 1 || o.num_channels > kMaxChannels) {
    c.fail("option num_channels " + std::to_string(o.num_channels) + " out of [1, " +
           std::to_string(kMaxChannels) + "]");
  }
  const ir::Tensor& x = c.plain_vector(0, DataType::kUInt32);
  const char* names[] = {"", "weights", "unweights", "channel frequency starts",
                         "channel weight starts", "channel widths"};
  for (size_t k = 1; k < 6; ++k) {
    c.plain_vector(k, DataType::kInt16);
    if (!c.in(k).is_constant) c.fail(c.in_label(k) + " (" + names[k] + ") must be a constant");
  }
  if (count_of(c.in(2)) != count_of(c.in(1))) {
    c.fail(c.in_label(2) + " (unweights) holds " + std::to_string(count_of(c.in(2))) +
           " values, the weights " + std::to_string(count_of(c.in(1))));
  }
  for (size_t k = 3; k < 6; ++k) {
    if (count_of(c.in(k)) < int64_t{o.num_channels} + 1) {
      c.fail(c.in_label(k) + " (" + names[k] + ") holds " + std::to_string(count_of(c.in(k))) +
             " values, fewer than num_channels + 1 = " + std::to_string(o.num_channels + 1));
    }
  }
  c.plain_vector(Checker::kOutput, DataType::kUInt64);
  expect_count(c, Checker::kOutput, o.num_channels);
  const std::vector<int16_t> w = int16_values(c.in(1)), f = int16_values(c.in(3)),
                             s = int16_values(c.in(4)), n = int16_values(c.in(5));
  kernels::FilterBankParams p{o.num_channels, w.data(), w.data(), f.data(), s.data(), n.data()};
  if (!kernels::filter_bank_indices_ok(p, static_cast<int32_t>(count_of(x)),
                                       static_cast<int32_t>(w.size()))) {
    c.fail("the channel tables (inputs 3, 4, 5) read outside " + c.in_label(0) + " (" +
           std::to_string(count_of(x)) + " bins) or the " + std::to_string(w.size()) +
           " weights (a negative start or width, or start + width past the end)");
  }
}

// --- SignalFilterBankSquareRoot -------------------------------------------------------------

void check_square_root(Checker& c) {
  const ir::Tensor& x = c.plain_vector(0, DataType::kUInt64);
  const ir::Tensor& bits = c.plain(1, DataType::kInt32);
  if (!bits.shape.empty()) c.fail(c.in_label(1) + " (the shift) must be an int32 scalar");
  c.plain_vector(Checker::kOutput, DataType::kUInt32);
  expect_count(c, Checker::kOutput, count_of(x));
}

// --- SignalFilterBankSpectralSubtraction ----------------------------------------------------

constexpr int8_t kNoiseState[] = {1};

ir::Options read_spectral_subtraction(const TfliteOptions& t) {
  const flexbuffers::Map m = t.custom_map();
  SignalOptions o;
  // TFLM narrows each to int32 and stores it in a uint32: both ranges read the same bits.
  auto word = [&](const char* key) {
    return static_cast<uint32_t>(t.custom_int(m, key, INT32_MIN, UINT32_MAX));
  };
  o.alternate_one_minus_smoothing = word("alternate_one_minus_smoothing");
  o.alternate_smoothing = word("alternate_smoothing");
  o.clamping = t.custom_int(m, "clamping", 0, 1) != 0;
  o.min_signal_remaining = word("min_signal_remaining");
  o.num_channels = static_cast<int32_t>(t.custom_int(m, "num_channels", 1, kMaxChannels));
  o.one_minus_smoothing = word("one_minus_smoothing");
  o.smoothing = word("smoothing");
  o.smoothing_bits = static_cast<int32_t>(t.custom_int(m, "smoothing_bits", 0, 31));
  o.spectral_subtraction_bits =
      static_cast<int32_t>(t.custom_int(m, "spectral_subtraction_bits", 0, 63));
  return o;
}
std::vector<uint8_t> write_spectral_subtraction(const ir::Operator& op) {
  const SignalOptions& o = options_of(op);
  return write_map({{"alternate_one_minus_smoothing", o.alternate_one_minus_smoothing},
                    {"alternate_smoothing", o.alternate_smoothing},
                    {"min_signal_remaining", o.min_signal_remaining},
                    {"num_channels", o.num_channels},
                    {"one_minus_smoothing", o.one_minus_smoothing},
                    {"smoothing", o.smoothing},
                    {"smoothing_bits", o.smoothing_bits},
                    {"spectral_subtraction_bits", o.spectral_subtraction_bits}},
                   "clamping", o.clamping);
}
// TFLM keeps the noise estimate in the operator's persistent memory and zeroes it in Reset:
// Mote's state tensor.
std::vector<ir::Tensor> noise_state(const ir::Operator& op) {
  ir::Tensor t;
  t.name = "noise_estimate_state";
  t.type = ir::DataType::kUInt32;
  t.shape = {std::max<int32_t>(options_of(op).num_channels, 1)};
  t.is_variable = true;
  return {t};
}
void check_spectral_subtraction(Checker& c) {
  const SignalOptions& o = c.options<SignalOptions>();
  if (o.num_channels < 1 || o.num_channels > kMaxChannels) {
    c.fail("option num_channels " + std::to_string(o.num_channels) + " out of [1, " +
           std::to_string(kMaxChannels) + "]");
  }
  if (o.smoothing_bits < 0 || o.smoothing_bits > 31) {
    c.fail("option smoothing_bits " + std::to_string(o.smoothing_bits) + " out of [0, 31]");
  }
  if (o.spectral_subtraction_bits < 0 || o.spectral_subtraction_bits > 63) {
    c.fail("option spectral_subtraction_bits " + std::to_string(o.spectral_subtraction_bits) +
           " out of [0, 63]");
  }
  c.plain_vector(0, DataType::kUInt32);
  expect_count(c, 0, o.num_channels);
  c.plain_vector(1, DataType::kUInt32);
  expect_count(c, 1, o.num_channels);
  for (size_t j = 0; j < 2; ++j) {
    const ir::Tensor& y = c.out_at(j);
    if (y.type != DataType::kUInt32 || y.shape.size() != 1 || !y.quantization.empty() ||
        count_of(y) != o.num_channels) {
      c.fail(c.out_label(j) + " must be a plain uint32 [" + std::to_string(o.num_channels) + "]");
    }
  }
}

// --- SignalPCAN -----------------------------------------------------------------------------

ir::Options read_pcan(const TfliteOptions& t) {
  SignalOptions o;
  o.snr_shift = static_cast<int32_t>(t.custom_int(t.custom_map(), "snr_shift", 0, 63));
  return o;
}
std::vector<uint8_t> write_pcan(const ir::Operator& op) {
  return write_map({{"snr_shift", options_of(op).snr_shift}});
}
void check_pcan(Checker& c) {
  const SignalOptions& o = c.options<SignalOptions>();
  if (o.snr_shift < 0 || o.snr_shift > 63) {
    c.fail("option snr_shift " + std::to_string(o.snr_shift) + " out of [0, 63]");
  }
  const ir::Tensor& x = c.plain_vector(0, DataType::kUInt32);
  c.plain_vector(1, DataType::kUInt32);
  expect_count(c, 1, count_of(x));
  const ir::Tensor& lut = c.plain_vector(2, DataType::kInt16);
  if (!lut.is_constant) c.fail(c.in_label(2) + " (the gain table) must be a constant");
  if (count_of(lut) < kernels::kPcanLutSize) {
    c.fail(c.in_label(2) + " (the gain table) holds " + std::to_string(count_of(lut)) +
           " values; TFLM's PCAN reads up to " + std::to_string(kernels::kPcanLutSize));
  }
  c.plain_vector(Checker::kOutput, DataType::kUInt32);
  expect_count(c, Checker::kOutput, count_of(x));
}

// --- SignalFilterBankLog --------------------------------------------------------------------

ir::Options read_log(const TfliteOptions& t) {
  const flexbuffers::Map m = t.custom_map();
  SignalOptions o;
  o.input_correction_bits = static_cast<int32_t>(t.custom_int(m, "input_correction_bits", 0, 31));
  o.output_scale = static_cast<int32_t>(t.custom_int(m, "output_scale", 0, kInt32Max));
  return o;
}
std::vector<uint8_t> write_log(const ir::Operator& op) {
  return write_map({{"input_correction_bits", options_of(op).input_correction_bits},
                    {"output_scale", options_of(op).output_scale}});
}
void check_log(Checker& c) {
  const SignalOptions& o = c.options<SignalOptions>();
  if (o.input_correction_bits < 0 || o.input_correction_bits > 31) {
    c.fail("option input_correction_bits " + std::to_string(o.input_correction_bits) +
           " out of [0, 31]");
  }
  if (o.output_scale < 0) c.fail("option output_scale " + std::to_string(o.output_scale) + " is negative");
  const ir::Tensor& x = c.plain_vector(0, DataType::kUInt32);
  c.plain_vector(Checker::kOutput, DataType::kInt16);
  expect_count(c, Checker::kOutput, count_of(x));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const SignalOptions& o = options_of(op);
  auto add = [&](const char* key, int64_t value) {
    d.add(std::string(key) + " " + std::to_string(value));
    d.json[key] = value;
  };
  switch (op.type) {
    case ir::OpType::kSignalWindow: add("shift", o.shift); break;
    case ir::OpType::kSignalRfft: add("fft_length", o.fft_length); break;
    case ir::OpType::kSignalEnergy:
      add("start_index", o.start_index);
      add("end_index", o.end_index);
      break;
    case ir::OpType::kSignalFilterBank: add("num_channels", o.num_channels); break;
    case ir::OpType::kSignalFilterBankSpectralSubtraction:
      add("num_channels", o.num_channels);
      add("smoothing_bits", o.smoothing_bits);
      add("spectral_subtraction_bits", o.spectral_subtraction_bits);
      d.add("state " + std::to_string(g.tensors[op.inputs[1]].num_bytes()) + " B");
      break;
    case ir::OpType::kSignalPcan: add("snr_shift", o.snr_shift); break;
    case ir::OpType::kSignalFilterBankLog:
      add("input_correction_bits", o.input_correction_bits);
      add("output_scale", o.output_scale);
      break;
    default: break;
  }
}

constexpr OpDef signal_op(const char* name, ir::Options (*read)(const TfliteOptions&),
                          std::vector<uint8_t> (*write)(const ir::Operator&),
                          void (*check)(Checker&), size_t inputs, size_t outputs = 1) {
  return OpDef{.builtin_code = kCustom, .custom_code = name, .write_custom = write,
               .read_options = read, .write_options = write_nothing,
               .inputs = {inputs, inputs}, .outputs = {outputs, outputs}, .check = check,
               .lower = lower_options, .describe = describe};
}

}  // namespace

extern const OpDef signal_window =
    signal_op("SignalWindow", read_window, write_window, check_window, 2);
extern const OpDef signal_fft_auto_scale = signal_op(
    "SignalFftAutoScale", read_fft_auto_scale, write_empty_map, check_fft_auto_scale, 1, 2);
extern const OpDef signal_rfft = [] {
  OpDef d = signal_op("SignalRfft", read_rfft, write_rfft, check_rfft, 1);
  d.scratch_bytes = rfft_scratch;
  d.lower = lower_rfft;
  return d;
}();
extern const OpDef signal_energy =
    signal_op("SignalEnergy", read_energy, write_energy, check_energy, 1);
extern const OpDef signal_filter_bank =
    signal_op("SignalFilterBank", read_filter_bank, write_filter_bank, check_filter_bank, 6);
extern const OpDef signal_filter_bank_square_root =
    signal_op("SignalFilterBankSquareRoot", read_fft_auto_scale, write_empty_map,
              check_square_root, 2);
extern const OpDef signal_filter_bank_spectral_subtraction = [] {
  OpDef d = signal_op("SignalFilterBankSpectralSubtraction", read_spectral_subtraction,
                      write_spectral_subtraction, check_spectral_subtraction, 2, 2);
  d.internal_state = noise_state;
  d.state_inputs = kNoiseState;
  return d;
}();
extern const OpDef signal_pcan = signal_op("SignalPCAN", read_pcan, write_pcan, check_pcan, 3);
extern const OpDef signal_filter_bank_log =
    signal_op("SignalFilterBankLog", read_log, write_log, check_log, 1);

}  // namespace mote::ops
