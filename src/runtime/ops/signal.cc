// TFLM's signal operators (mote/kernels/signal.h): plain integer tensors, SignalOptions. The
// loader trusts no field: every shift and count the kernels use is range-checked here, every
// index table is read from the constants and checked against the tensors it indexes, and the
// spectral subtraction's noise estimate must be a state tensor (reset with the executor).

#include "mote/kernels/signal.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

// A plain 1-D tensor of `type` (no quantization).
bool plain_vector(const Tensor* t, DataType type) {
  return t != nullptr && t->type() == type && rank(*t) == 1 && t->scale() == 0.0f;
}
bool plain(const Tensor& t, DataType type) { return t.type() == type && t.scale() == 0.0f; }
int64_t count(const Tensor& t) { return static_cast<int64_t>(element_count(t)); }

// --- SignalWindow ---------------------------------------------------------------------------

Error check_window(const OpChecker& c) {
  const auto& o = c.options<schema::SignalOptions>();
  const Tensor &x = *c.in(0), &w = *c.in(1), &y = c.out();
  if (!in_range(o.shift(), 0, 31)) return c.bad("window shift outside [0, 31]");
  if (!plain(x, DataType::Int16) || !plain_vector(&w, DataType::Int16) ||
      !plain(y, DataType::Int16)) {
    return c.bad("input, window and output must be plain int16 (the window 1-D)");
  }
  if (rank(x) < 1 || x.size() != y.size() || count(x) % count(w) != 0) {
    return c.bad("output differs from the input, or the input is not whole windows");
  }
  return Error::kOk;
}
void invoke_window(const Op& op) {
  kernels::signal_window(op.in_data<int16_t>(0), op.in_data<int16_t>(1),
                         static_cast<int32_t>(element_count(op.in(0))),
                         static_cast<int32_t>(element_count(op.in(1))),
                         op.options<schema::SignalOptions>().shift(), op.out_data<int16_t>());
}

// --- SignalFftAutoScale ---------------------------------------------------------------------

Error check_fft_auto_scale(const OpChecker& c) {
  if (num_outputs(c.op()) != 2) return c.bad("expects two outputs");
  const Tensor &x = *c.in(0), &y = c.out(0), &bits = c.out(1);
  if (!plain_vector(&x, DataType::Int16) || !plain_vector(&y, DataType::Int16) ||
      x.size() != y.size()) {
    return c.bad("input and output must be plain int16 vectors of one size");
  }
  if (!plain(bits, DataType::Int32) || rank(bits) != 0) {
    return c.bad("output 1 must be a plain int32 scalar");
  }
  return Error::kOk;
}
void invoke_fft_auto_scale(const Op& op) {
  *op.out_data<int32_t>(1) = kernels::signal_fft_auto_scale(
      op.in_data<int16_t>(0), static_cast<int32_t>(element_count(op.in(0))),
      op.out_data<int16_t>(0));
}

// --- SignalRfft -----------------------------------------------------------------------------

Error check_rfft(const OpChecker& c) {
  const auto& o = c.options<schema::SignalOptions>();
  const int32_t n = o.fft_length();
  if (!kernels::rfft_length_ok(n)) return c.bad("fft_length not a power of two in [4, 4096]");
  const Tensor &x = *c.in(0), &y = c.out();
  const size_t r = rank(x);
  if (!plain(x, DataType::Int16) || !plain(y, DataType::Int16) || r < 1 || rank(y) != r) {
    return c.bad("input and output must be plain int16 of one rank");
  }
  for (size_t d = 0; d + 1 < r; ++d) {
    if (dim(x, d) != dim(y, d)) return c.bad("input and output rows differ");
  }
  if (dim(x, r - 1) > n || int64_t{dim(y, r - 1)} != int64_t{n} + 2) {
    return c.bad("rows longer than fft_length, or output rows not fft_length + 2");
  }
  const schema::Region* tw = o.twiddles();
  const uint64_t want = kernels::signal_rfft_twiddle_count(n) * sizeof(int16_t);
  if (tw == nullptr || tw->size() != want || tw->offset() % 4 != 0 ||
      !c.constant_bytes(tw->offset(), tw->size())) {
    return c.bad("twiddle table missing, misplaced or of the wrong size");
  }
  return Error::kOk;
}
size_t rfft_scratch(const schema::Program&, const schema::Operator& op) {
  const auto* o = op.options_as_SignalOptions();
  return o != nullptr && kernels::rfft_length_ok(o->fft_length())
             ? kernels::signal_rfft_scratch_bytes(o->fft_length())
             : 0;
}
void invoke_rfft(const Op& op) {
  const auto& o = op.options<schema::SignalOptions>();
  const Tensor &x = op.in(0), &y = op.out();
  const size_t r = rank(x);
  kernels::RfftParams p{};
  p.fft_length = o.fft_length();
  p.input_length = dim(x, r - 1);
  p.batches = static_cast<int32_t>(element_count(x) / static_cast<size_t>(p.input_length));
  p.output_stride = dim(y, r - 1) / 2;
  const auto* twiddles =
      reinterpret_cast<const int16_t*>(op.constants() + o.twiddles()->offset());
  kernels::signal_rfft(p, twiddles, op.in_data<int16_t>(0), op.out_data<int16_t>(),
                       op.scratch().data);
}

// --- SignalEnergy ---------------------------------------------------------------------------

Error check_energy(const OpChecker& c) {
  const auto& o = c.options<schema::SignalOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  if (!plain_vector(&x, DataType::Int16) || !plain_vector(&y, DataType::UInt32) ||
      count(x) != 2 * count(y)) {
    return c.bad("input must be plain int16 [2 N], output plain uint32 [N]");
  }
  if (o.start_index() < 0 || o.start_index() > o.end_index() || o.end_index() > count(y)) {
    return c.bad("start_index and end_index not a range inside the output");
  }
  return Error::kOk;
}
void invoke_energy(const Op& op) {
  const auto& o = op.options<schema::SignalOptions>();
  kernels::signal_energy(op.in_data<int16_t>(0), o.start_index(), o.end_index(),
                         static_cast<int32_t>(element_count(op.out())), op.out_data<uint32_t>());
}

// --- SignalFilterBank -----------------------------------------------------------------------

constexpr int32_t kMaxChannels = 32767;

Error check_filter_bank(const OpChecker& c) {
  const auto& o = c.options<schema::SignalOptions>();
  const int32_t channels = o.num_channels();
  if (!in_range(channels, 1, kMaxChannels)) return c.bad("num_channels outside [1, 32767]");
  const Tensor &x = *c.in(0), &y = c.out();
  if (!plain_vector(&x, DataType::UInt32) || !plain_vector(&y, DataType::UInt64) ||
      count(y) != channels) {
    return c.bad("input must be plain uint32, output plain uint64 [num_channels]");
  }
  for (size_t k = 1; k < 6; ++k) {
    const Tensor* t = c.in(k);
    if (!plain_vector(t, DataType::Int16) || t->location() != schema::Location::Constant) {
      return c.bad("weights and channel tables must be plain int16 constants");
    }
    if (k >= 3 && count(*t) < int64_t{channels} + 1) {
      return c.bad("channel tables shorter than num_channels + 1");
    }
  }
  if (c.in(2)->size() != c.in(1)->size()) return c.bad("weights and unweights differ in size");
  if (count(x) > INT32_MAX || count(*c.in(1)) > INT32_MAX) return c.bad("tensors too large");
  // The tables index the input and the weights: every index is read and checked here.
  kernels::FilterBankParams p{};
  p.num_channels = channels;
  p.frequency_starts = reinterpret_cast<const int16_t*>(c.constant_data(*c.in(3)));
  p.weight_starts = reinterpret_cast<const int16_t*>(c.constant_data(*c.in(4)));
  p.widths = reinterpret_cast<const int16_t*>(c.constant_data(*c.in(5)));
  if (!kernels::filter_bank_indices_ok(p, static_cast<int32_t>(count(x)),
                                       static_cast<int32_t>(count(*c.in(1))))) {
    return c.bad("a channel reads outside the input or the weights");
  }
  return Error::kOk;
}
void invoke_filter_bank(const Op& op) {
  kernels::FilterBankParams p{};
  p.num_channels = op.options<schema::SignalOptions>().num_channels();
  p.weights = op.in_data<int16_t>(1);
  p.unweights = op.in_data<int16_t>(2);
  p.frequency_starts = op.in_data<int16_t>(3);
  p.weight_starts = op.in_data<int16_t>(4);
  p.widths = op.in_data<int16_t>(5);
  kernels::signal_filter_bank(p, op.in_data<uint32_t>(0), op.out_data<uint64_t>());
}

// --- SignalFilterBankSquareRoot -------------------------------------------------------------

Error check_square_root(const OpChecker& c) {
  const Tensor &x = *c.in(0), &bits = *c.in(1), &y = c.out();
  if (!plain_vector(&x, DataType::UInt64) || !plain_vector(&y, DataType::UInt32) ||
      count(x) != count(y)) {
    return c.bad("input must be plain uint64 [N], output plain uint32 [N]");
  }
  if (!plain(bits, DataType::Int32) || rank(bits) != 0) {
    return c.bad("input 1 must be a plain int32 scalar");
  }
  return Error::kOk;
}
void invoke_square_root(const Op& op) {
  kernels::signal_filter_bank_square_root(op.in_data<uint64_t>(0),
                                          static_cast<int32_t>(element_count(op.in(0))),
                                          *op.in_data<int32_t>(1), op.out_data<uint32_t>());
}

// --- SignalFilterBankSpectralSubtraction ----------------------------------------------------

constexpr size_t kNoiseState = 1;

Error check_spectral_subtraction(const OpChecker& c) {
  const auto& o = c.options<schema::SignalOptions>();
  const int32_t channels = o.num_channels();
  if (!in_range(channels, 1, kMaxChannels)) return c.bad("num_channels outside [1, 32767]");
  if (!in_range(o.smoothing_bits(), 0, 31) || !in_range(o.spectral_subtraction_bits(), 0, 63)) {
    return c.bad("smoothing_bits outside [0, 31] or spectral_subtraction_bits outside [0, 63]");
  }
  if (num_outputs(c.op()) != 2) return c.bad("expects two outputs");
  const Tensor* state = c.in(kNoiseState);
  if (state == nullptr || !state->state()) return c.bad("input 1 must be a state tensor");
  const Tensor* tensors[] = {c.in(0), state, &c.out(0), &c.out(1)};
  for (const Tensor* t : tensors) {
    if (!plain_vector(t, DataType::UInt32) || count(*t) != channels) {
      return c.bad("input, state and outputs must be plain uint32 [num_channels]");
    }
  }
  return Error::kOk;
}
void invoke_spectral_subtraction(const Op& op) {
  const auto& o = op.options<schema::SignalOptions>();
  kernels::SpectralSubtractionParams p{};
  p.num_channels = o.num_channels();
  p.smoothing = o.smoothing();
  p.one_minus_smoothing = o.one_minus_smoothing();
  p.alternate_smoothing = o.alternate_smoothing();
  p.alternate_one_minus_smoothing = o.alternate_one_minus_smoothing();
  p.min_signal_remaining = o.min_signal_remaining();
  p.smoothing_bits = o.smoothing_bits();
  p.spectral_subtraction_bits = o.spectral_subtraction_bits();
  p.clamping = o.clamping();
  uint32_t* noise = op.state_data<uint32_t>(kNoiseState);
  kernels::signal_spectral_subtraction(p, op.in_data<uint32_t>(0), op.out_data<uint32_t>(0),
                                       noise);
  // TFLM's second output is a copy of the estimate it keeps.
  uint32_t* copy = op.out_data<uint32_t>(1);
  for (int32_t i = 0; i < p.num_channels; ++i) copy[i] = noise[i];
}

// --- SignalPCAN -----------------------------------------------------------------------------

Error check_pcan(const OpChecker& c) {
  const auto& o = c.options<schema::SignalOptions>();
  if (!in_range(o.snr_shift(), 0, 63)) return c.bad("snr_shift outside [0, 63]");
  const Tensor &x = *c.in(0), &noise = *c.in(1), &lut = *c.in(2), &y = c.out();
  if (!plain_vector(&x, DataType::UInt32) || !plain_vector(&noise, DataType::UInt32) ||
      !plain_vector(&y, DataType::UInt32) || count(noise) != count(x) || count(y) != count(x)) {
    return c.bad("input, noise estimate and output must be plain uint32 of one size");
  }
  if (!plain_vector(&lut, DataType::Int16) || count(lut) < kernels::kPcanLutSize) {
    return c.bad("gain table must be plain int16 of at least 125 entries");
  }
  return Error::kOk;
}
void invoke_pcan(const Op& op) {
  kernels::signal_pcan(op.in_data<uint32_t>(0), op.in_data<uint32_t>(1), op.in_data<int16_t>(2),
                       op.options<schema::SignalOptions>().snr_shift(),
                       static_cast<int32_t>(element_count(op.in(0))), op.out_data<uint32_t>());
}

// --- SignalFilterBankLog --------------------------------------------------------------------

Error check_log(const OpChecker& c) {
  const auto& o = c.options<schema::SignalOptions>();
  if (!in_range(o.input_correction_bits(), 0, 31) || o.output_scale() < 0) {
    return c.bad("input_correction_bits outside [0, 31] or output_scale negative");
  }
  const Tensor &x = *c.in(0), &y = c.out();
  if (!plain_vector(&x, DataType::UInt32) || !plain_vector(&y, DataType::Int16) ||
      count(x) != count(y)) {
    return c.bad("input must be plain uint32 [N], output plain int16 [N]");
  }
  return Error::kOk;
}
void invoke_log(const Op& op) {
  const auto& o = op.options<schema::SignalOptions>();
  kernels::signal_filter_bank_log(op.in_data<uint32_t>(0),
                                  static_cast<int32_t>(element_count(op.in(0))),
                                  o.output_scale(), o.input_correction_bits(),
                                  op.out_data<int16_t>());
}

constexpr OpSignature signal(uint8_t inputs, uint8_t outputs = 1) {
  return takes(inputs, inputs, schema::OpOptions::SignalOptions).outputs(outputs);
}

}  // namespace

extern const OpRegistration kSignalWindowOp{signal(2), &check_window, nullptr, false, nullptr};
extern const OpForm kSignalWindowPlain{&invoke_window};
extern const OpRegistration kSignalFftAutoScaleOp{signal(1, 2), &check_fft_auto_scale, nullptr,
                                                  false, nullptr};
extern const OpForm kSignalFftAutoScalePlain{&invoke_fft_auto_scale};
extern const OpRegistration kSignalRfftOp{signal(1), &check_rfft, &rfft_scratch, false, nullptr};
extern const OpForm kSignalRfftPlain{&invoke_rfft};
extern const OpRegistration kSignalEnergyOp{signal(1), &check_energy, nullptr, false, nullptr};
extern const OpForm kSignalEnergyPlain{&invoke_energy};
extern const OpRegistration kSignalFilterBankOp{signal(6), &check_filter_bank, nullptr, false,
                                                nullptr};
extern const OpForm kSignalFilterBankPlain{&invoke_filter_bank};
extern const OpRegistration kSignalFilterBankSquareRootOp{signal(2), &check_square_root, nullptr,
                                                          false, nullptr};
extern const OpForm kSignalFilterBankSquareRootPlain{&invoke_square_root};
extern const OpRegistration kSignalFilterBankSpectralSubtractionOp{
    signal(2, 2), &check_spectral_subtraction, nullptr, false, nullptr};
extern const OpForm kSignalFilterBankSpectralSubtractionPlain{&invoke_spectral_subtraction};
extern const OpRegistration kSignalPcanOp{signal(3), &check_pcan, nullptr, false, nullptr};
extern const OpForm kSignalPcanPlain{&invoke_pcan};
extern const OpRegistration kSignalFilterBankLogOp{signal(1), &check_log, nullptr, false, nullptr};
extern const OpForm kSignalFilterBankLogPlain{&invoke_log};

}  // namespace mote::runtime::internal
