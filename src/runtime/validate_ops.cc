// Per-operator rules of the program format: arity, types, shapes consistent with the operator's
// parameters, constant references inside the blob, scratch regions at least what the kernel
// needs, and parameter ranges that keep the int8 arithmetic free of overflow (a tampered shift or
// bias must not make a kernel compute undefined behaviour).

#include <stdint.h>

#include "mote/kernels/pad.h"
#include "mote/kernels/scratch.h"
#include "runtime/internal.h"

namespace mote {
namespace runtime {
namespace internal {
namespace {

using schema::DataType;
using schema::Location;
using schema::OpKind;
using schema::Tensor;

// Largest |accumulator| a kernel may reach before requantization, leaving room to add an
// output offset without overflowing int32.
constexpr int64_t kAccLimit = INT32_MAX - 256;
// |x + input_offset| for int8 x and an offset in [-127, 128] (i.e. -zero_point).
constexpr int64_t kMaxCenteredInput = 255;

// Strides and dilations above this are rejected (no model needs them; they would only feed
// overflow into size formulas).
constexpr int64_t kMaxStride = 256;
constexpr size_t kMaxPadRank = kernels::kMaxPadRank;

int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
int64_t abs64(int64_t a) { return a < 0 ? -a : a; }

bool in_range(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

// MultiplyByQuantizedMultiplier(x, multiplier, shift) for |x| <= bound stays within `limit`.
bool requant_ok(int64_t bound, int32_t multiplier, int32_t shift, int64_t limit = kAccLimit) {
  if (multiplier < 0 || shift < -31 || shift > 30 || bound > limit) return false;
  return shift <= 0 || (bound << shift) <= limit;
}

// Why a requantization fails requant_ok: a negative multiplier is never written by a compiler
// (kInvalidProgram); a well-formed one whose shift or product the kernels' int32 arithmetic
// cannot take (extreme scales in the model) is kUnsupported, which the compiler reports as bad
// input rather than as its own bug.
Error requant_error(int32_t multiplier) {
  return multiplier < 0 ? Error::kInvalidProgram : Error::kUnsupported;
}

class OpChecker {
 public:
  OpChecker(const OpCheckContext& c, const schema::Operator& op) : c_(c), op_(op) {}

  Error run() {
    MOTE_TRY(check_kind());
    // The scratch region the plan gave this operator must hold what the kernel needs.
    const size_t planned = op_.scratch() != nullptr ? op_.scratch()->size() : 0;
    if (planned < required_scratch_bytes(*c_.program, op_)) {
      return bad("scratch region smaller than the kernel needs", Error::kScratchTooSmall);
    }
    return Error::kOk;
  }

 private:
  Error check_kind() {
    switch (op_.kind()) {
      case OpKind::Conv2D: return conv();
      case OpKind::DepthwiseConv2D: return depthwise_conv();
      case OpKind::FullyConnected: return fully_connected();
      case OpKind::AveragePool2D:
      case OpKind::MaxPool2D: return pool();
      case OpKind::Add:
      case OpKind::Sub: return add();  // the same parameters and bounds
      case OpKind::Mul: return mul();
      case OpKind::Softmax: return softmax();
      case OpKind::Reshape: return reshape();
      case OpKind::Quantize: return quantize();
      case OpKind::Dequantize: return dequantize();
      case OpKind::Pad: return pad();
      case OpKind::Mean: return mean();
      case OpKind::Concatenation: return concatenation();
      case OpKind::Transpose: return transpose();
      case OpKind::Logistic: return logistic();
      case OpKind::ResizeNearestNeighbor: return resize_nearest();
      case OpKind::HardSwish: return hard_swish();
      case OpKind::LeakyRelu: return leaky_relu();
      case OpKind::TransposeConv: return transpose_conv();
      case OpKind::Minimum:
      case OpKind::Maximum: return min_max();
    }
    return bad("unknown operator kind");
  }

  Error bad(const char* reason, Error error = Error::kInvalidProgram) {
    *c_.reason = reason;
    return error;
  }

  // Arity and options. `max_in` counts optional trailing inputs, which may be -1 (absent) only at
  // positions >= `required_in`.
  Error shape_of_op(size_t required_in, size_t max_in, size_t outputs,
                    schema::OpOptions options_type) {
    const size_t n_in = num_inputs(op_);
    if (n_in < required_in || n_in > max_in || num_outputs(op_) != outputs) {
      return bad("wrong number of inputs or outputs");
    }
    for (size_t k = 0; k < required_in; ++k) {
      if (input_index(op_, k) == -1) return bad("required input absent");
    }
    if (op_.options_type() != options_type) return bad("options of the wrong kind");
    if (options_type != schema::OpOptions::NONE && op_.options() == nullptr) {
      return bad("options missing");
    }
    return Error::kOk;
  }

  const Tensor& tensor(int32_t index) const {
    return *c_.program->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  }
  const Tensor* in(size_t k) const {
    if (k >= num_inputs(op_)) return nullptr;
    const int32_t i = input_index(op_, k);
    return i < 0 ? nullptr : &tensor(i);
  }
  const Tensor& out(size_t k = 0) const { return tensor(output_index(op_, k)); }

  static bool same_shape(const Tensor& a, const Tensor& b) {
    if (rank(a) != rank(b)) return false;
    for (size_t d = 0; d < rank(a); ++d) {
      if (dim(a, d) != dim(b, d)) return false;
    }
    return true;
  }
  static bool is(const Tensor& t, DataType type, size_t r) {
    return t.type() == type && rank(t) == r;
  }

  // A constant array of `count` int32 values.
  bool int32_array(const schema::Region* region, int64_t count) const {
    return region != nullptr && region->size() == count * 4 && region->offset() % 4 == 0 &&
           uint64_t{region->offset()} + region->size() <= c_.constants_size;
  }
  int32_t int32_at(const schema::Region* region, int64_t k) const {
    return load_i32(c_.constants + region->offset() + 4 * k);
  }

  // Bias: absent, or a constant int32 tensor of `channels` values. Returns max |bias| in `max_abs`.
  Error bias(const Tensor* b, int32_t channels, int64_t* max_abs) {
    *max_abs = 0;
    if (b == nullptr) return Error::kOk;
    if (b->type() != DataType::Int32 || element_count(*b) != static_cast<size_t>(channels)) {
      return bad("bias must be int32 with one value per output channel");
    }
    if (b->location() != Location::Constant) return bad("bias must be constant", Error::kUnsupported);
    for (int32_t k = 0; k < channels; ++k) {
      *max_abs = max64(*max_abs, abs64(load_i32(c_.constants + b->offset() + 4 * k)));
    }
    return Error::kOk;
  }

  // Per-channel requantization arrays, checked against the accumulator bound.
  Error per_channel(const schema::Region* multipliers, const schema::Region* shifts,
                    int32_t channels, int64_t acc_bound) {
    if (!int32_array(multipliers, channels) || !int32_array(shifts, channels)) {
      return bad("multipliers and shifts must be constant int32 arrays, one per output channel");
    }
    for (int32_t k = 0; k < channels; ++k) {
      if (!requant_ok(acc_bound, int32_at(multipliers, k), int32_at(shifts, k))) {
        return bad("multiplier or shift out of range", requant_error(int32_at(multipliers, k)));
      }
    }
    return Error::kOk;
  }

  Error offsets_and_range(int32_t input_offset, int32_t output_offset, int32_t act_min,
                          int32_t act_max) {
    if (!in_range(input_offset, -127, 128) || !in_range(output_offset, -128, 127)) {
      return bad("zero point outside int8");
    }
    if (!(act_min >= -128 && act_min <= act_max && act_max <= 127)) {
      return bad("activation range outside int8");
    }
    return Error::kOk;
  }

  // Along one spatial axis: input `in`, output `out`, effective kernel `k`, stride, leading pad.
  // Every window must touch the input (so average pooling never divides by zero) and the output
  // must not extend past the last window that does.
  static bool window_ok(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
    if (stride < 1 || stride > kMaxStride || k < 1 || pad < 0 || pad > k - 1) return false;
    const int64_t trailing = (out - 1) * stride + k - in - pad;
    return trailing > -stride && trailing <= k - 1;
  }

  // Strides and dilations: positive (else there is no window), and at most kMaxStride, beyond
  // which they are well-formed but unsupported (a model may have one: TFLite allows any stride,
  // so the compiler reports it as bad input).
  Error strides(int32_t stride_h, int32_t stride_w, int32_t dilation_h = 1,
                int32_t dilation_w = 1) {
    if (stride_h < 1 || stride_w < 1 || dilation_h < 1 || dilation_w < 1) {
      return bad("stride or dilation not positive");
    }
    if (stride_h > kMaxStride || stride_w > kMaxStride || dilation_h > kMaxStride ||
        dilation_w > kMaxStride) {
      return bad("stride or dilation above 256", Error::kUnsupported);
    }
    return Error::kOk;
  }

  // Right-aligned broadcast of `a` and `b` to `o`.
  static bool broadcast_ok(const Tensor& a, const Tensor& b, const Tensor& o) {
    const size_t r = rank(o);
    if (rank(a) > r || rank(b) > r) return false;
    for (size_t d = 0; d < r; ++d) {
      const int32_t od = dim(o, d);
      const int32_t ad = d + rank(a) >= r ? dim(a, d + rank(a) - r) : 1;
      const int32_t bd = d + rank(b) >= r ? dim(b, d + rank(b) - r) : 1;
      if ((ad != od && ad != 1) || (bd != od && bd != 1)) return false;
      if (od != (ad > bd ? ad : bd)) return false;
    }
    return true;
  }

  Error conv() {
    MOTE_TRY(shape_of_op(2, 3, 1, schema::OpOptions::ConvOptions));
    const auto& o = *op_.options_as_ConvOptions();
    const Tensor& x = *in(0);
    const Tensor& w = *in(1);
    const Tensor& y = out();
    if (!is(x, DataType::Int8, 4) || !is(w, DataType::Int8, 4) || !is(y, DataType::Int8, 4)) {
      return bad("input, filter and output must be int8 NHWC");
    }
    const int32_t ci = dim(x, 3), co = dim(w, 0), cf = dim(w, 3);
    if (dim(y, 0) != dim(x, 0) || dim(y, 3) != co) return bad("output shape inconsistent");
    if (ci % cf != 0 || co % (ci / cf) != 0) return bad("channels inconsistent with groups");
    MOTE_TRY(strides(o.stride_h(), o.stride_w(), o.dilation_h(), o.dilation_w()));
    const int64_t kh_eff = (int64_t{dim(w, 1)} - 1) * o.dilation_h() + 1;
    const int64_t kw_eff = (int64_t{dim(w, 2)} - 1) * o.dilation_w() + 1;
    if (!window_ok(dim(x, 1), dim(y, 1), kh_eff, o.stride_h(), o.pad_h()) ||
        !window_ok(dim(x, 2), dim(y, 2), kw_eff, o.stride_w(), o.pad_w())) {
      return bad("output size inconsistent with input, filter, stride and padding");
    }
    MOTE_TRY(offsets_and_range(o.input_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
    int64_t bias_max = 0;
    MOTE_TRY(bias(in(2), co, &bias_max));
    const int64_t taps = int64_t{dim(w, 1)} * dim(w, 2) * cf;
    int64_t acc_bound = bias_max + taps * kMaxCenteredInput * 128;
    if (const schema::Region* sums = o.kernel_sums(); sums != nullptr && sums->size() != 0) {
      if (!int32_array(sums, co)) return bad("kernel sums must be one int32 per output channel");
      for (int32_t k = 0; k < co; ++k) {
        acc_bound = max64(acc_bound, abs64(int32_at(sums, k)) + taps * 128 * 128);
      }
    }
    if (acc_bound > kAccLimit) return bad("accumulator could overflow int32", Error::kUnsupported);
    MOTE_TRY(per_channel(o.multipliers(), o.shifts(), co, acc_bound));
    return Error::kOk;
  }

  Error depthwise_conv() {
    MOTE_TRY(shape_of_op(2, 3, 1, schema::OpOptions::DepthwiseConvOptions));
    const auto& o = *op_.options_as_DepthwiseConvOptions();
    const Tensor& x = *in(0);
    const Tensor& w = *in(1);
    const Tensor& y = out();
    if (!is(x, DataType::Int8, 4) || !is(w, DataType::Int8, 4) || !is(y, DataType::Int8, 4)) {
      return bad("input, filter and output must be int8 NHWC");
    }
    const int32_t ci = dim(x, 3), co = dim(w, 3);
    if (dim(w, 0) != 1 || o.depth_multiplier() < 1 ||
        int64_t{ci} * o.depth_multiplier() != co) {
      return bad("filter channels differ from input channels times depth multiplier");
    }
    if (dim(y, 0) != dim(x, 0) || dim(y, 3) != co) return bad("output shape inconsistent");
    MOTE_TRY(strides(o.stride_h(), o.stride_w(), o.dilation_h(), o.dilation_w()));
    const int64_t kh_eff = (int64_t{dim(w, 1)} - 1) * o.dilation_h() + 1;
    const int64_t kw_eff = (int64_t{dim(w, 2)} - 1) * o.dilation_w() + 1;
    if (!window_ok(dim(x, 1), dim(y, 1), kh_eff, o.stride_h(), o.pad_h()) ||
        !window_ok(dim(x, 2), dim(y, 2), kw_eff, o.stride_w(), o.pad_w())) {
      return bad("output size inconsistent with input, filter, stride and padding");
    }
    MOTE_TRY(offsets_and_range(o.input_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
    int64_t bias_max = 0;
    MOTE_TRY(bias(in(2), co, &bias_max));
    const int64_t acc_bound =
        bias_max + int64_t{dim(w, 1)} * dim(w, 2) * kMaxCenteredInput * 128;
    if (acc_bound > kAccLimit) return bad("accumulator could overflow int32", Error::kUnsupported);
    MOTE_TRY(per_channel(o.multipliers(), o.shifts(), co, acc_bound));
    return Error::kOk;
  }

  Error fully_connected() {
    MOTE_TRY(shape_of_op(2, 3, 1, schema::OpOptions::FullyConnectedOptions));
    const auto& o = *op_.options_as_FullyConnectedOptions();
    const Tensor& x = *in(0);
    const Tensor& w = *in(1);
    const Tensor& y = out();
    if (x.type() != DataType::Int8 || !is(w, DataType::Int8, 2) || y.type() != DataType::Int8 ||
        rank(y) < 1) {
      return bad("input, filter [out, depth] and output must be int8");
    }
    const int32_t co = dim(w, 0), depth = dim(w, 1);
    const size_t count = element_count(x);
    if (count % static_cast<size_t>(depth) != 0) return bad("input size not a multiple of depth");
    const size_t batches = count / static_cast<size_t>(depth);
    if (dim(y, rank(y) - 1) != co || element_count(y) != batches * static_cast<size_t>(co)) {
      return bad("output shape inconsistent");
    }
    MOTE_TRY(offsets_and_range(o.input_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
    if (!in_range(o.filter_offset(), -127, 128)) return bad("filter zero point outside int8");
    int64_t bias_max = 0;
    MOTE_TRY(bias(in(2), co, &bias_max));
    // The kernel sums bias + (x + io) * w + fo * (x + io) in two parts; bound every partial sum.
    const int64_t weight_bound = 128 + abs64(o.filter_offset());
    int64_t acc_bound =
        bias_max + int64_t{depth} * (kMaxCenteredInput * 128 + 256 * abs64(o.filter_offset()));
    if (const schema::Region* sums = o.kernel_sums(); sums != nullptr && sums->size() != 0) {
      if (!int32_array(sums, co)) return bad("kernel sums must be one int32 per output channel");
      for (int32_t k = 0; k < co; ++k) {
        acc_bound = max64(acc_bound, abs64(int32_at(sums, k)) + int64_t{depth} * 128 * weight_bound);
      }
    }
    if (acc_bound > kAccLimit) return bad("accumulator could overflow int32", Error::kUnsupported);
    const bool has_arrays = (o.multipliers() != nullptr && o.multipliers()->size() != 0) ||
                            (o.shifts() != nullptr && o.shifts()->size() != 0);
    if (has_arrays) {
      MOTE_TRY(per_channel(o.multipliers(), o.shifts(), co, acc_bound));
    } else {
      const schema::Requant* r = o.output_requant();
      if (r == nullptr) return bad("output multiplier and shift missing");
      if (!requant_ok(acc_bound, r->multiplier(), r->shift())) {
        return bad("output multiplier or shift out of range", requant_error(r->multiplier()));
      }
    }
    return Error::kOk;
  }

  Error pool() {
    MOTE_TRY(shape_of_op(1, 1, 1, schema::OpOptions::PoolOptions));
    const auto& o = *op_.options_as_PoolOptions();
    const Tensor& x = *in(0);
    const Tensor& y = out();
    if (!is(x, DataType::Int8, 4) || !is(y, DataType::Int8, 4)) {
      return bad("input and output must be int8 NHWC");
    }
    if (dim(y, 0) != dim(x, 0) || dim(y, 3) != dim(x, 3)) return bad("output shape inconsistent");
    MOTE_TRY(strides(o.stride_h(), o.stride_w()));
    if (!window_ok(dim(x, 1), dim(y, 1), o.filter_h(), o.stride_h(), o.pad_h()) ||
        !window_ok(dim(x, 2), dim(y, 2), o.filter_w(), o.stride_w(), o.pad_w())) {
      return bad("output size inconsistent with input, filter, stride and padding");
    }
    MOTE_TRY(offsets_and_range(0, 0, o.activation_min(), o.activation_max()));
    if (int64_t{o.filter_h()} * o.filter_w() * 128 > kAccLimit) {
      return bad("pooling window too large", Error::kUnsupported);
    }
    return Error::kOk;
  }

  Error add() {
    MOTE_TRY(shape_of_op(2, 2, 1, schema::OpOptions::AddOptions));
    const auto& o = *op_.options_as_AddOptions();
    const Tensor &a = *in(0), &b = *in(1), &y = out();
    if (a.type() != DataType::Int8 || b.type() != DataType::Int8 || y.type() != DataType::Int8) {
      return bad("inputs and output must be int8");
    }
    if (!broadcast_ok(a, b, y)) return bad("input shapes do not broadcast to the output shape");
    MOTE_TRY(offsets_and_range(o.input1_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
    if (!in_range(o.input2_offset(), -127, 128)) return bad("zero point outside int8");
    if (!in_range(o.left_shift(), 0, 22)) return bad("left shift out of range");
    const schema::Requant *r1 = o.input1_requant(), *r2 = o.input2_requant(),
                          *ro = o.output_requant();
    if (r1 == nullptr || r2 == nullptr || ro == nullptr) return bad("requantization missing");
    // Each rescaled input stays within 2^30 so that their sum fits int32.
    const int64_t shifted = kMaxCenteredInput << o.left_shift();
    const int64_t half = (int64_t{1} << 30) - 128;
    if (!requant_ok(shifted, r1->multiplier(), r1->shift(), half)) {
      return bad("input multiplier or shift out of range", requant_error(r1->multiplier()));
    }
    if (!requant_ok(shifted, r2->multiplier(), r2->shift(), half)) {
      return bad("input multiplier or shift out of range", requant_error(r2->multiplier()));
    }
    const int64_t b1 = r1->shift() > 0 ? shifted << r1->shift() : shifted;
    const int64_t b2 = r2->shift() > 0 ? shifted << r2->shift() : shifted;
    if (!requant_ok(b1 + b2, ro->multiplier(), ro->shift())) {
      return bad("output multiplier or shift out of range", requant_error(ro->multiplier()));
    }
    return Error::kOk;
  }

  Error mul() {
    MOTE_TRY(shape_of_op(2, 2, 1, schema::OpOptions::MulOptions));
    const auto& o = *op_.options_as_MulOptions();
    const Tensor &a = *in(0), &b = *in(1), &y = out();
    if (a.type() != DataType::Int8 || b.type() != DataType::Int8 || y.type() != DataType::Int8) {
      return bad("inputs and output must be int8");
    }
    if (!broadcast_ok(a, b, y)) return bad("input shapes do not broadcast to the output shape");
    MOTE_TRY(offsets_and_range(o.input1_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
    if (!in_range(o.input2_offset(), -127, 128)) return bad("zero point outside int8");
    const schema::Requant* r = o.output_requant();
    if (r == nullptr) return bad("output multiplier and shift missing");
    if (!requant_ok(kMaxCenteredInput * kMaxCenteredInput, r->multiplier(), r->shift())) {
      return bad("output multiplier or shift out of range", requant_error(r->multiplier()));
    }
    return Error::kOk;
  }

  Error min_max() {
    MOTE_TRY(shape_of_op(2, 2, 1, schema::OpOptions::NONE));
    const Tensor &a = *in(0), &b = *in(1), &y = out();
    if (a.type() != DataType::Int8 || b.type() != DataType::Int8 || y.type() != DataType::Int8) {
      return bad("inputs and output must be int8");
    }
    if (!broadcast_ok(a, b, y)) return bad("input shapes do not broadcast to the output shape");
    return Error::kOk;
  }

  Error softmax() {
    MOTE_TRY(shape_of_op(1, 1, 1, schema::OpOptions::SoftmaxOptions));
    const auto& o = *op_.options_as_SoftmaxOptions();
    const Tensor &x = *in(0), &y = out();
    if (x.type() != DataType::Int8 || (y.type() != DataType::Int8 && y.type() != DataType::Int16)) {
      return bad("input must be int8 and output int8 or int16");
    }
    if (!same_shape(x, y) || rank(x) < 1) return bad("output shape differs from input");
    // Fixed-point exp sums over a row carry 12 integer bits: 4096 ones would overflow.
    if (dim(x, rank(x) - 1) >= 4096) return bad("softmax row of 4096 or more", Error::kUnsupported);
    if (o.diff_min() > 0 || o.input_multiplier() < 0 || !in_range(o.input_left_shift(), 0, 31)) {
      return bad("softmax parameters out of range");
    }
    const int64_t largest_diff = min64(kMaxCenteredInput, -int64_t{o.diff_min()});
    if ((largest_diff << o.input_left_shift()) > INT32_MAX) {
      return bad("softmax parameters out of range");
    }
    return Error::kOk;
  }

  Error reshape() {
    MOTE_TRY(shape_of_op(1, 2, 1, schema::OpOptions::NONE));
    const Tensor &x = *in(0), &y = out();
    if (x.type() != y.type() || x.size() != y.size()) return bad("reshape changes type or size");
    return Error::kOk;
  }

  Error quantize() {
    MOTE_TRY(shape_of_op(1, 1, 1, schema::OpOptions::QuantizeOptions));
    const auto& o = *op_.options_as_QuantizeOptions();
    const Tensor &x = *in(0), &y = out();
    if (element_count(x) != element_count(y)) return bad("element counts differ");
    if (x.type() == DataType::Float32 && y.type() == DataType::Int8) {
      if (!(y.scale() > 0.0f) || !in_range(y.zero_point(), -128, 127)) {
        return bad("output scale or zero point out of range");
      }
      return Error::kOk;
    }
    if (x.type() == DataType::Int8 && y.type() == DataType::Int8) {
      MOTE_TRY(offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
      const schema::Requant* r = o.requant();
      if (r == nullptr) return bad("requantization missing");
      if (!requant_ok(kMaxCenteredInput, r->multiplier(), r->shift())) {
        return bad("requantization out of range", requant_error(r->multiplier()));
      }
      return Error::kOk;
    }
    return bad("quantize supports float32 -> int8 and int8 -> int8", Error::kUnsupported);
  }

  Error dequantize() {
    MOTE_TRY(shape_of_op(1, 1, 1, schema::OpOptions::NONE));
    const Tensor &x = *in(0), &y = out();
    if (element_count(x) != element_count(y)) return bad("element counts differ");
    if (x.type() != DataType::Int8 || y.type() != DataType::Float32) {
      return bad("dequantize supports int8 -> float32", Error::kUnsupported);
    }
    if (!in_range(x.zero_point(), -128, 127)) return bad("input zero point outside int8");
    return Error::kOk;
  }

  Error pad() {
    MOTE_TRY(shape_of_op(1, 2, 1, schema::OpOptions::PadOptions));
    const auto& o = *op_.options_as_PadOptions();
    const Tensor &x = *in(0), &y = out();
    if (x.type() != DataType::Int8 || y.type() != DataType::Int8) {
      return bad("input and output must be int8");
    }
    const size_t r = rank(x);
    if (r < 1 || r > kMaxPadRank) return bad("pad supports ranks 1 to 5", Error::kUnsupported);
    if (rank(y) != r || o.before() == nullptr || o.after() == nullptr ||
        o.before()->size() != r || o.after()->size() != r) {
      return bad("paddings must have one entry per dimension");
    }
    for (size_t d = 0; d < r; ++d) {
      const auto k = static_cast<flatbuffers::uoffset_t>(d);
      const int32_t before = o.before()->Get(k), after = o.after()->Get(k);
      if (before < 0 || after < 0 || int64_t{dim(x, d)} + before + after != dim(y, d)) {
        return bad("output shape differs from input plus paddings");
      }
    }
    if (!in_range(o.pad_value(), -128, 127)) return bad("pad value outside int8");
    return Error::kOk;
  }

  Error mean() {
    MOTE_TRY(shape_of_op(1, 2, 1, schema::OpOptions::MeanOptions));
    const auto& o = *op_.options_as_MeanOptions();
    const Tensor &x = *in(0), &y = out();
    if (!is(x, DataType::Int8, 4) || y.type() != DataType::Int8) {
      return bad("input must be int8 NHWC and output int8");
    }
    const auto* axes = o.axes();
    if (axes == nullptr || axes->size() != 2 ||
        !((axes->Get(0) == 1 && axes->Get(1) == 2) || (axes->Get(0) == 2 && axes->Get(1) == 1))) {
      return bad("mean supports axes [1, 2] only", Error::kUnsupported);
    }
    const bool shape_ok =
        o.keep_dims() ? (rank(y) == 4 && dim(y, 0) == dim(x, 0) && dim(y, 1) == 1 &&
                         dim(y, 2) == 1 && dim(y, 3) == dim(x, 3))
                      : (rank(y) == 2 && dim(y, 0) == dim(x, 0) && dim(y, 1) == dim(x, 3));
    if (!shape_ok) return bad("output shape inconsistent with axes");
    if (o.formula() != schema::MeanFormula::TfLite && o.formula() != schema::MeanFormula::Tflm) {
      return bad("unknown mean formula");
    }
    MOTE_TRY(offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
    const int64_t count = int64_t{dim(x, 1)} * dim(x, 2);
    // The sum over the window, then (kTfLite) a rounding division that adds count / 2.
    const int64_t bound = count * (kMaxCenteredInput + 1);
    const schema::Requant* rq = o.requant();
    if (rq == nullptr) return bad("requantization missing");
    if (!requant_ok(bound, rq->multiplier(), rq->shift())) {
      return bad("requantization out of range", requant_error(rq->multiplier()));
    }
    return Error::kOk;
  }

  Error concatenation() {
    const size_t n = num_inputs(op_);
    MOTE_TRY(shape_of_op(n < 1 ? 1 : n, n, 1, schema::OpOptions::ConcatenationOptions));
    if (n > kMaxConcatenationInputs) {
      return bad("more than 16 concatenation inputs", Error::kUnsupported);
    }
    const auto& o = *op_.options_as_ConcatenationOptions();
    const Tensor& y = out();
    const size_t r = rank(y);
    if (y.type() != DataType::Int8) return bad("output must be int8");
    if (o.axis() < 0 || static_cast<size_t>(o.axis()) >= r) return bad("axis out of range");
    const size_t axis = static_cast<size_t>(o.axis());
    if (o.requant() != nullptr && o.requant()->size() != n) {
      return bad("requantization must have one entry per input");
    }
    if (o.requant() != nullptr && !in_range(y.zero_point(), -128, 127)) {
      return bad("output zero point outside int8");
    }
    int64_t total = 0;
    for (size_t k = 0; k < n; ++k) {
      const Tensor& x = *in(k);
      if (x.type() != y.type() || rank(x) != r) return bad("inputs differ in type or rank");
      for (size_t d = 0; d < r; ++d) {
        if (d != axis && dim(x, d) != dim(y, d)) return bad("inputs differ off the axis");
      }
      total += dim(x, axis);
      if (o.requant() != nullptr) {
        const schema::ConcatRequant& q = *o.requant()->Get(static_cast<flatbuffers::uoffset_t>(k));
        if (q.requantize() && !in_range(q.input_offset(), -127, 128)) {
          return bad("input zero point outside int8");
        }
        if (q.requantize() &&
            !requant_ok(kMaxCenteredInput, q.requant().multiplier(), q.requant().shift())) {
          return bad("input requantization out of range", requant_error(q.requant().multiplier()));
        }
      }
    }
    if (total != dim(y, axis)) return bad("output size along the axis differs from the inputs'");
    return Error::kOk;
  }

  Error transpose() {
    MOTE_TRY(shape_of_op(1, 2, 1, schema::OpOptions::TransposeOptions));
    const auto& o = *op_.options_as_TransposeOptions();
    const Tensor &x = *in(0), &y = out();
    const size_t r = rank(x);
    if (x.type() != DataType::Int8 || y.type() != DataType::Int8 || rank(y) != r || r < 1) {
      return bad("input and output must be int8 of the same rank");
    }
    if (o.perm() == nullptr || o.perm()->size() != r) return bad("permutation size differs");
    uint32_t seen = 0;
    for (uint32_t d = 0; d < r; ++d) {
      const int32_t p = o.perm()->Get(d);
      if (p < 0 || static_cast<size_t>(p) >= r || (seen & (1u << p)) != 0) {
        return bad("not a permutation");
      }
      seen |= 1u << p;
      if (dim(y, d) != dim(x, static_cast<size_t>(p))) return bad("output shape inconsistent");
    }
    return Error::kOk;
  }

  Error logistic() {
    MOTE_TRY(shape_of_op(1, 1, 1, schema::OpOptions::LogisticOptions));
    const auto& o = *op_.options_as_LogisticOptions();
    const Tensor &x = *in(0), &y = out();
    if (x.type() != DataType::Int8 || y.type() != DataType::Int8 ||
        element_count(x) != element_count(y)) {
      return bad("input and output must be int8 of the same size");
    }
    if (const schema::Region* table = o.table(); table != nullptr && table->size() != 0) {
      if (table->size() != 256 || uint64_t{table->offset()} + 256 > c_.constants_size) {
        return bad("logistic table must be 256 constant bytes");
      }
      return Error::kOk;
    }
    const int32_t shift = o.input_left_shift();
    if (!in_range(o.input_zero_point(), -128, 127) || o.input_range_radius() < 0 ||
        o.input_multiplier() < 0 || !in_range(shift, -31, 30) ||
        (min64(kMaxCenteredInput, o.input_range_radius()) << (shift > 0 ? shift : 0)) >
            INT32_MAX) {
      return bad("logistic parameters out of range");
    }
    return Error::kOk;
  }

  Error hard_swish() {
    MOTE_TRY(shape_of_op(1, 1, 1, schema::OpOptions::HardSwishOptions));
    const auto& o = *op_.options_as_HardSwishOptions();
    const Tensor &x = *in(0), &y = out();
    if (x.type() != DataType::Int8 || y.type() != DataType::Int8 ||
        element_count(x) != element_count(y)) {
      return bad("input and output must be int8 of the same size");
    }
    if (!in_range(o.input_zero_point(), -128, 127) || !in_range(o.output_zero_point(), -128, 127) ||
        !in_range(o.reluish_multiplier_exponent(), -30, 30) ||
        !in_range(o.output_multiplier_exponent(), -30, 0)) {
      return bad("hard swish parameters out of range");
    }
    return Error::kOk;
  }

  Error leaky_relu() {
    MOTE_TRY(shape_of_op(1, 1, 1, schema::OpOptions::LeakyReluOptions));
    const auto& o = *op_.options_as_LeakyReluOptions();
    const Tensor &x = *in(0), &y = out();
    if (x.type() != DataType::Int8 || y.type() != DataType::Int8 ||
        element_count(x) != element_count(y)) {
      return bad("input and output must be int8 of the same size");
    }
    MOTE_TRY(offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
    const schema::Requant *identity = o.identity_requant(), *alpha = o.alpha_requant();
    if (identity == nullptr || alpha == nullptr) return bad("requantization missing");
    if (!requant_ok(kMaxCenteredInput, identity->multiplier(), identity->shift())) {
      return bad("multiplier or shift out of range", requant_error(identity->multiplier()));
    }
    if (!requant_ok(kMaxCenteredInput, alpha->multiplier(), alpha->shift())) {
      return bad("alpha multiplier or shift out of range", requant_error(alpha->multiplier()));
    }
    return Error::kOk;
  }

  Error resize_nearest() {
    MOTE_TRY(shape_of_op(1, 2, 1, schema::OpOptions::ResizeNearestNeighborOptions));
    const Tensor &x = *in(0), &y = out();
    if (!is(x, DataType::Int8, 4) || !is(y, DataType::Int8, 4)) {
      return bad("input and output must be int8 NHWC");
    }
    if (dim(y, 0) != dim(x, 0) || dim(y, 3) != dim(x, 3)) return bad("output shape inconsistent");
    return Error::kOk;
  }

  Error transpose_conv() {
    MOTE_TRY(shape_of_op(2, 3, 1, schema::OpOptions::TransposeConvOptions));
    const auto& o = *op_.options_as_TransposeConvOptions();
    const Tensor& x = *in(0);
    const Tensor& w = *in(1);
    const Tensor& y = out();
    if (!is(x, DataType::Int8, 4) || !is(w, DataType::Int8, 4) || !is(y, DataType::Int8, 4)) {
      return bad("input, filter and output must be int8 NHWC");
    }
    const int32_t ci = dim(x, 3), co = dim(w, 0);
    if (dim(w, 3) != ci || dim(y, 0) != dim(x, 0) || dim(y, 3) != co) {
      return bad("shapes inconsistent");
    }
    const int32_t kh = dim(w, 1), kw = dim(w, 2);
    MOTE_TRY(strides(o.stride_h(), o.stride_w()));
    if (o.pad_h() < 0 || o.pad_w() < 0 ||
        o.pad_h() > kh - 1 || o.pad_w() > kw - 1 ||
        int64_t{dim(y, 1)} > int64_t{dim(x, 1)} * o.stride_h() + kh ||
        int64_t{dim(y, 2)} > int64_t{dim(x, 2)} * o.stride_w() + kw) {
      return bad("output size inconsistent with input, filter, stride and padding");
    }
    MOTE_TRY(offsets_and_range(o.input_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
    int64_t bias_max = 0;
    MOTE_TRY(bias(in(2), co, &bias_max));
    const int64_t acc_bound = bias_max + int64_t{kh} * kw * ci * kMaxCenteredInput * 128;
    if (acc_bound > kAccLimit) return bad("accumulator could overflow int32", Error::kUnsupported);
    MOTE_TRY(per_channel(o.multipliers(), o.shifts(), co, acc_bound));
    return Error::kOk;
  }

  const OpCheckContext& c_;
  const schema::Operator& op_;
};

}  // namespace

size_t required_scratch_bytes(const schema::Program& program, const schema::Operator& op) {
  const auto extension = static_cast<kernels::Extension>(program.target()->extension());
  auto tensor = [&](int32_t index) -> const Tensor& {
    return *program.tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  };
  const Tensor& y = tensor(output_index(op, 0));
  switch (op.kind()) {
    case OpKind::Conv2D: {
      const auto& o = *op.options_as_ConvOptions();
      const Tensor &x = tensor(input_index(op, 0)), &w = tensor(input_index(op, 1));
      const kernels::ConvShape shape{dim(x, 0), dim(x, 1), dim(x, 2), dim(x, 3),
                                     dim(w, 1), dim(w, 2), dim(w, 3),
                                     dim(y, 1), dim(y, 2), dim(y, 3),
                                     o.stride_h(), o.stride_w(), o.pad_h(), o.pad_w(),
                                     o.dilation_h(), o.dilation_w()};
      return kernels::conv_scratch_bytes(shape, extension);
    }
    case OpKind::DepthwiseConv2D: {
      const auto& o = *op.options_as_DepthwiseConvOptions();
      const Tensor &x = tensor(input_index(op, 0)), &w = tensor(input_index(op, 1));
      const kernels::DepthwiseShape shape{dim(x, 0), dim(x, 1), dim(x, 2), dim(x, 3),
                                          dim(w, 1), dim(w, 2),
                                          dim(y, 1), dim(y, 2), dim(y, 3),
                                          o.stride_h(), o.stride_w(), o.pad_h(), o.pad_w(),
                                          o.dilation_h(), o.dilation_w()};
      return kernels::depthwise_conv_scratch_bytes(shape, extension);
    }
    case OpKind::FullyConnected: {
      const Tensor& w = tensor(input_index(op, 1));
      return kernels::fully_connected_scratch_bytes(dim(w, 0), extension);
    }
    case OpKind::AveragePool2D:
      return kernels::average_pool_scratch_bytes(dim(y, 3), extension);
    case OpKind::TransposeConv: {
      const auto& o = *op.options_as_TransposeConvOptions();
      const Tensor &x = tensor(input_index(op, 0)), &w = tensor(input_index(op, 1));
      const kernels::TransposeConvShape shape{dim(x, 0), dim(x, 1), dim(x, 2), dim(x, 3),
                                              dim(w, 1), dim(w, 2),
                                              dim(y, 1), dim(y, 2), dim(y, 3),
                                              o.stride_h(), o.stride_w(), o.pad_h(), o.pad_w()};
      return kernels::transpose_conv_scratch_bytes(shape, extension).total();
    }
    default:
      return 0;
  }
}

Error validate_operator(const OpCheckContext& context, const schema::Operator& op) {
  return OpChecker(context, op).run();
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
