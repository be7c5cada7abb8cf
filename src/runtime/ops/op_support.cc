#include "runtime/ops/op_support.h"

namespace mote {
namespace runtime {
namespace internal {

using schema::DataType;
using schema::Location;
using schema::Tensor;

namespace {

// Strides and dilations above this are rejected (no model needs them; they would only feed
// overflow into size formulas).
using kernels::kMaxStride;

}  // namespace

bool requant_ok(int64_t bound, int32_t multiplier, int32_t shift, int64_t limit) {
  return kernels::requant_fits(bound, multiplier, shift, limit);
}

bool same_shape(const Tensor& a, const Tensor& b) {
  if (rank(a) != rank(b)) return false;
  for (size_t d = 0; d < rank(a); ++d) {
    if (dim(a, d) != dim(b, d)) return false;
  }
  return true;
}

bool row_constant_extents(const Tensor& t, int32_t* width, int32_t* channels) {
  const size_t n = rank(t);
  if (t.location() != Location::Constant || n > 4) return false;
  for (size_t i = 0; i + 2 < n; ++i) {
    if (dim(t, i) != 1) return false;
  }
  *width = n >= 2 ? dim(t, n - 2) : 1;
  *channels = n >= 1 ? dim(t, n - 1) : 1;
  return true;
}

bool elementwise_row_reach(const schema::Program& program, const schema::Operator& op, size_t k,
                           StageRowReach* reach) {
  const Tensor& y = output_of(program, op);
  if (k >= num_inputs(op) || y.type() != DataType::Int8 || rank(y) != 4 || dim(y, 0) != 1) {
    return false;
  }
  for (size_t j = 0; j < num_inputs(op); ++j) {
    if (input_index(op, j) < 0) return false;
    const Tensor& x = input_of(program, op, j);
    int32_t width = 0, channels = 0;
    const bool rows = x.location() != Location::Constant && same_shape(x, y);
    if (!rows && (j == k || !row_constant_extents(x, &width, &channels))) return false;
  }
  return stage_window_reach(1, 1, 0, 1, reach);
}

bool binary_rows(const schema::Program& program, const schema::Operator& op, BinaryRows* rows) {
  const Tensor& y = output_of(program, op);
  rows->width = dim(y, 2);
  rows->channels = dim(y, 3);
  RowInput* inputs[2] = {&rows->a, &rows->b};
  for (size_t j = 0; j < 2; ++j) {
    RowInput& in = *inputs[j];
    const int32_t index = input_index(op, j);
    if (index >= 0 && tensor_at(program, index).location() == Location::Constant) {
      in.rows = kRowConstant;
      if (!row_constant_extents(tensor_at(program, index), &in.width, &in.channels) ||
          !row_constant(program, op, j, &in.at)) {
        return false;
      }
      continue;
    }
    RowOperand o{};
    if (!row_operand(program, index, &o) || !same_shape(tensor_at(program, index), y)) {
      return false;
    }
    in = {o.at, o.rows, rows->width, rows->channels};
  }
  return row_operand(program, output_index(op, 0), &rows->output) && rows->output.at >= 0;
}

bool row_operand(const schema::Program& program, int32_t index, RowOperand* operand) {
  if (index < 0) return false;
  const Tensor& t = tensor_at(program, index);
  operand->rows = static_cast<int32_t>(t.ring_rows());
  if (t.ring_rows() > INT32_MAX) return false;
  switch (t.location()) {
    case Location::Arena:
      if (t.offset() > INT32_MAX) return false;
      operand->at = static_cast<int32_t>(t.offset());
      return true;
    case Location::External: {
      const int32_t slot = external_slot(program, index);
      operand->at = -1 - slot;
      return slot >= 0;
    }
    default: return false;
  }
}

bool call_operand(const schema::Program& program, int32_t index, int32_t* word) {
  *word = -1;
  if (index < 0) return true;
  const Tensor& t = tensor_at(program, index);
  uint32_t at = t.offset();
  int32_t place = kCallArena;
  if (t.location() == Location::Constant) {
    place = kCallConstant;
  } else if (t.location() == Location::External) {
    const int32_t slot = external_slot(program, index);
    if (slot < 0) return false;
    at = static_cast<uint32_t>(slot);
    place = kCallExternal;
  }
  if (at > (INT32_MAX >> 2)) return false;
  *word = static_cast<int32_t>(at << 2) | place;
  return true;
}

bool call_output(const schema::Program& program, int32_t index, int32_t* word) {
  return index >= 0 && tensor_at(program, index).location() == Location::Arena &&
         call_operand(program, index, word);
}

bool row_constant(const schema::Region* region, int32_t* at) {
  if (region == nullptr || region->size() == 0) {
    *at = -1;
    return true;
  }
  *at = static_cast<int32_t>(region->offset());
  return region->offset() <= INT32_MAX;
}

bool row_constant(const schema::Program& program, const schema::Operator& op, size_t k,
                  int32_t* at) {
  *at = -1;
  if (k >= num_inputs(op) || input_index(op, k) < 0) return true;
  const Tensor& t = input_of(program, op, k);
  *at = static_cast<int32_t>(t.offset());
  return t.location() == Location::Constant && t.offset() <= INT32_MAX;
}

bool row_scratch_words(const schema::Operator& op, int32_t* at, int32_t* size) {
  const schema::Region* r = op.scratch();
  *at = 0;
  *size = 0;
  if (r == nullptr || r->size() == 0) return true;
  *at = static_cast<int32_t>(r->offset());
  *size = static_cast<int32_t>(r->size());
  return r->offset() <= INT32_MAX && r->size() <= INT32_MAX;
}

bool window_ok(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  if (stride < 1 || stride > kMaxStride || k < 1 || pad < 0 || pad > k - 1) return false;
  const int64_t trailing = (out - 1) * stride + k - in - pad;
  return trailing > -stride && trailing <= k - 1;
}

bool broadcast_ok(const Tensor& a, const Tensor& b, const Tensor& o) {
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

kernels::OverlapRule elementwise_overlap(const schema::Program& program, const schema::Operator& op,
                                         size_t k) {
  const Tensor& x = input_of(program, op, k);
  const Tensor& y = output_of(program, op);
  const bool same = x.type() == schema::DataType::Int8 && y.type() == schema::DataType::Int8 &&
                    x.size() == y.size();
  return same ? kernels::kElementwiseOverlap : kernels::kNoOverlap;
}

Error OpChecker::bad(const char* reason, Error error) const {
  *c_.reason = reason;
  return error;
}

Error OpChecker::lookup_table(const schema::Region* table) const {
  if (table->size() != 256 || !constant_bytes(table->offset(), 256)) {
    return bad("lookup table must be 256 constant bytes");
  }
  return Error::kOk;
}

Error OpChecker::requant(const schema::Requant* r, int64_t bound, int64_t limit) const {
  if (r == nullptr) return bad("requantization missing");
  if (!requant_ok(bound, r->multiplier(), r->shift(), limit)) {
    return bad("multiplier or shift out of range", requant_error(r->multiplier()));
  }
  return Error::kOk;
}

Error OpChecker::signature(const OpSignature& s) const {
  const size_t n_out = num_outputs(op_);
  const size_t outputs = s.max_outputs > 1 && n_out >= 1 && n_out <= s.max_outputs ? n_out : 1;
  MOTE_TRY(shape_of_op(s.required_inputs, s.max_inputs, outputs, s.options));
  const bool int16 = s.int16_inputs > 0 && in(0) != nullptr && in(0)->type() == DataType::Int16;
  const bool int32 = s.int32_inputs > 0 && in(0) != nullptr && in(0)->type() == DataType::Int32;
  if (int32) {
    for (size_t k = 0; k < s.int32_inputs; ++k) {
      if (in(k) == nullptr || in(k)->type() != DataType::Int32 || in(k)->scale() != 0.0f) {
        return bad("inputs must be plain int32");
      }
    }
    for (size_t j = 0; j < outputs; ++j) {
      if (out(j).type() != DataType::Int32 || out(j).scale() != 0.0f) {
        return bad("output must be plain int32");
      }
    }
  }
  const bool int4 = c_.has_int4 && s.int4_weights && !int16 && in(1) != nullptr &&
                    in(1)->type() == DataType::Int4;
  for (size_t k = 0; c_.has_int4 && k < num_inputs(op_); ++k) {
    if (in(k) != nullptr && in(k)->type() == DataType::Int4 && !(int4 && k == 1)) {
      return bad("int4 only as the weights of a convolution or FULLY_CONNECTED on int8");
    }
  }
  for (size_t k = 0; !int32 && k < s.int8_inputs; ++k) {
    if (int4 && k == 1) continue;
    const DataType type = int16 && k < s.int16_inputs ? DataType::Int16 : DataType::Int8;
    if (in(k) == nullptr || in(k)->type() != type) {
      return bad(int16 ? "inputs must be int16 (weights int8)" : "inputs must be int8");
    }
  }
  for (size_t j = 0; !int32 && s.int8_inputs > 0 && j < outputs; ++j) {
    if (out(j).type() != (int16 ? DataType::Int16 : DataType::Int8)) {
      return bad(int16 ? "output must be int16" : "output must be int8");
    }
  }
  if (s.rank4 && (rank(*in(0)) != 4 || rank(out()) != 4)) {
    return bad("input and output must be 4-D (NHWC)");
  }
  // By shape: a stage member may read a whole map into a ring, or a ring into its stage's output.
  if (s.elementwise && shape_elements(*in(0)) != shape_elements(out())) {
    return bad("input and output sizes differ");
  }
  if (s.broadcast && !broadcast_ok(*in(0), *in(1), out())) {
    return bad("input shapes do not broadcast to the output shape");
  }
  return Error::kOk;
}

Error OpChecker::shape_of_op(size_t required_in, size_t max_in, size_t outputs,
                             schema::OpOptions options_type) const {
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

const Tensor* OpChecker::in(size_t k) const {
  if (k >= num_inputs(op_)) return nullptr;
  const int32_t i = input_index(op_, k);
  return i < 0 ? nullptr : &tensor_at(*c_.program, i);
}

bool OpChecker::int32_array(const schema::Region* region, int64_t count) const {
  return region != nullptr && region->size() == count * 4 && region->offset() % 4 == 0 &&
         constant_bytes(region->offset(), region->size());
}

Error OpChecker::bias(const Tensor* b, int32_t channels, int64_t* max_abs) const {
  *max_abs = 0;
  if (b == nullptr) return Error::kOk;
  if (b->type() == DataType::Int64 && int16()) {
    if (element_count(*b) != static_cast<size_t>(channels)) {
      return bad("bias must hold one value per output channel");
    }
    if (b->location() != Location::Constant) {
      return bad("bias must be constant", Error::kUnsupported);
    }
    for (int32_t k = 0; k < channels; ++k) {
      int64_t v;
      memcpy(&v, c_.constants + b->offset() + 8 * static_cast<size_t>(k), sizeof v);
      // |INT64_MIN| has no int64: held as INT64_MAX, which every bound refuses alike.
      *max_abs = max64(*max_abs, v == INT64_MIN ? INT64_MAX : abs64(v));
    }
    return Error::kOk;
  }
  if (b->type() != DataType::Int32 || element_count(*b) != static_cast<size_t>(channels)) {
    return bad("bias must be int32 with one value per output channel");
  }
  if (b->location() != Location::Constant) return bad("bias must be constant", Error::kUnsupported);
  *max_abs = max_abs_i32(c_.constants + b->offset(), channels);
  return Error::kOk;
}

Error OpChecker::per_channel(const schema::Region* multipliers, const schema::Region* shifts,
                             int32_t channels, int64_t acc_bound) const {
  if (!int32_array(multipliers, channels) || !int32_array(shifts, channels)) {
    return bad("multipliers and shifts must be constant int32 arrays, one per output channel");
  }
  // requant_ok holds for every channel exactly when it holds for the smallest multiplier with the
  // largest shift and for the smallest shift (its conditions are monotonic in each): one pass in
  // 32-bit arithmetic finds them, and only a failure looks for the channel to blame.
  const ChannelExtremes e = channel_extremes(c_.constants + multipliers->offset(),
                                              c_.constants + shifts->offset(), channels);
  if (channels == 0 || (requant_ok(acc_bound, e.min_a, e.max_b) &&
                        requant_ok(acc_bound, e.min_a, e.min_b))) {
    return Error::kOk;
  }
  for (int32_t k = 0; k < channels; ++k) {
    if (!requant_ok(acc_bound, int32_at(multipliers, k), int32_at(shifts, k))) {
      return bad("multiplier or shift out of range", requant_error(int32_at(multipliers, k)));
    }
  }
  return Error::kInternal;
}

Error OpChecker::offsets_and_range(int32_t input_offset, int32_t output_offset, int32_t act_min,
                                   int32_t act_max) const {
  if (int16()) {
    if (input_offset != 0 || output_offset != 0) return bad("int16 zero point not 0");
    if (!(act_min >= -32768 && act_min <= act_max && act_max <= 32767)) {
      return bad("activation range outside int16");
    }
    return Error::kOk;
  }
  if (!in_range(input_offset, -127, 128) || !in_range(output_offset, -128, 127)) {
    return bad("zero point outside int8");
  }
  if (!(act_min >= -128 && act_min <= act_max && act_max <= 127)) {
    return bad("activation range outside int8");
  }
  return Error::kOk;
}

Error OpChecker::strides(int32_t stride_h, int32_t stride_w, int32_t dilation_h,
                         int32_t dilation_w) const {
  if (stride_h < 1 || stride_w < 1 || dilation_h < 1 || dilation_w < 1) {
    return bad("stride or dilation not positive");
  }
  if (stride_h > kMaxStride || stride_w > kMaxStride || dilation_h > kMaxStride ||
      dilation_w > kMaxStride) {
    return bad("stride or dilation above 256", Error::kUnsupported);
  }
  return Error::kOk;
}

bool OpChecker::streamed() const { return row_streamed(*c_.program, c_.index); }

kernels::BroadcastShape broadcast_shape(const Tensor& a, const Tensor& b) {
  kernels::BroadcastShape shape{};
  kernels::prepare_broadcast_shape(shape_data(a), static_cast<int32_t>(rank(a)), shape_data(b),
                                   static_cast<int32_t>(rank(b)), &shape);
  return shape;
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
