// FULLY_CONNECTED: int8 input of any shape read as [batches, depth], filter [out, depth] (int8 or
// packed int4), optional int32 bias; requantization per tensor (in the options) or per channel
// (constants).
// 16x8: int16 input and output, an int64 bias (or none: int64 sums) or an int32 one (int32 sums).

#include "mote/kernels/fully_connected.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::FullyConnectedOptions>();
  const Tensor &x = *c.in(0), &w = *c.in(1), &y = c.out();
  if (rank(w) != 2 || rank(y) < 1) return c.bad("filter must be [out, depth], output not scalar");
  const int32_t co = dim(w, 0), depth = dim(w, 1);
  const size_t count = element_count(x);
  if (count % static_cast<size_t>(depth) != 0) return c.bad("input size not a multiple of depth");
  const size_t batches = count / static_cast<size_t>(depth);
  if (dim(y, rank(y) - 1) != co || element_count(y) != batches * static_cast<size_t>(co)) {
    return c.bad("output shape inconsistent");
  }
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
  if (!in_range(o.filter_offset(), -127, 128)) return c.bad("filter zero point outside int8");
  int64_t bias_max = 0;
  MOTE_TRY(c.bias(c.in(2), co, &bias_max));
  const bool has_arrays = (o.multipliers() != nullptr && o.multipliers()->size() != 0) ||
                          (o.shifts() != nullptr && o.shifts()->size() != 0);
  if (c.int16()) {
    if (o.filter_offset() != 0) return c.bad("16x8 weights are symmetric (filter zero point 0)");
    // |input| <= 32768, |weight| <= 128; int64 sums (int64 bias or none) take any requantization.
    const int64_t products = int64_t{depth} * 32768 * 128;
    const bool int32_sums = c.in(2) != nullptr && c.in(2)->type() == DataType::Int32;
    if (int32_sums && bias_max + products > kAccLimit) {
      return c.bad("accumulator could overflow int32", Error::kUnsupported);
    }
    if (!int32_sums && bias_max > (int64_t{1} << 62) - products) {
      return c.bad("accumulator could overflow int64", Error::kUnsupported);
    }
    const int64_t bound = int32_sums ? bias_max + products : 0;
    return has_arrays ? c.per_channel(o.multipliers(), o.shifts(), co, bound)
                      : c.requant(o.output_requant(), bound);
  }
  // The kernel sums bias + (x + io) * w + fo * (x + io) in two parts; bound every partial sum.
  const int64_t weight_bound = 128 + abs64(o.filter_offset());
  int64_t acc_bound =
      bias_max + int64_t{depth} * (kMaxCenteredInput * 128 + 256 * abs64(o.filter_offset()));
  if (const schema::Region* sums = o.kernel_sums(); sums != nullptr && sums->size() != 0) {
    if (!c.int32_array(sums, co)) return c.bad("kernel sums must be one int32 per output channel");
    acc_bound = max64(acc_bound, c.max_abs_at(sums, co) + int64_t{depth} * 128 * weight_bound);
  }
  if (acc_bound > kAccLimit) return c.bad("accumulator could overflow int32", Error::kUnsupported);
  return has_arrays ? c.per_channel(o.multipliers(), o.shifts(), co, acc_bound)
                    : c.requant(o.output_requant(), acc_bound);
}

// The shape, the offsets and the activation range, which the kernel's parameters and the
// prepared call (FullyConnectedCall) both hold: from the options and the input and weights.
template <typename P>
void set_scalars(const schema::FullyConnectedOptions& o, const Tensor& x, const Tensor& w, P* p) {
  p->output_depth = dim(w, 0);
  p->input_depth = dim(w, 1);
  p->batches = static_cast<int32_t>(element_count(x) / static_cast<size_t>(p->input_depth));
  p->input_offset = o.input_offset();
  p->filter_offset = o.filter_offset();
  p->output_offset = o.output_offset();
  p->act_min = o.activation_min();
  p->act_max = o.activation_max();
}
// ... and from one to the other.
template <typename From, typename To>
void copy_scalars(const From& from, To* to) {
  to->output_depth = from.output_depth;
  to->input_depth = from.input_depth;
  to->batches = from.batches;
  to->input_offset = from.input_offset;
  to->filter_offset = from.filter_offset;
  to->output_offset = from.output_offset;
  to->act_min = from.act_min;
  to->act_max = from.act_max;
}

// The kernel's parameters from the options, then `run(params)`; per tensor, the requantization
// sits in the options table and the kernel takes pointers, to these locals.
template <typename Run>
void with_params(const Op& op, Run run) {
  const auto& o = op.options<schema::FullyConnectedOptions>();
  kernels::FullyConnectedParams p{};
  set_scalars(o, op.in(0), op.in(1), &p);
  int32_t multiplier = 0, shift = 0;
  p.per_channel = o.multipliers() != nullptr && o.multipliers()->size() != 0;
  if (p.per_channel) {
    p.output_multiplier = op.constant_i32(o.multipliers());
    p.output_shift = op.constant_i32(o.shifts());
  } else {
    multiplier = o.output_requant()->multiplier();
    shift = o.output_requant()->shift();
    p.output_multiplier = &multiplier;
    p.output_shift = &shift;
  }
  run(p);
}

// The int8 forms' prepared call (Operator.call): FullyConnectedParams without pointers, and
// where the tensors and the constant arrays sit.
struct FullyConnectedCall {
  int32_t batches, input_depth, output_depth;
  int32_t input_offset, filter_offset, output_offset, act_min, act_max;
  int32_t multiplier, shift;                 // per tensor (multipliers -1), else 0
  int32_t multipliers, shifts, kernel_sums;  // offsets in the constant blob, -1: absent
  int32_t input, filter, bias, output;       // call_operand words
};

bool call_args(const schema::Program& program, const schema::Operator& op, int32_t* words) {
  const auto& o = *op.options_as<schema::FullyConnectedOptions>();
  FullyConnectedCall c;
  set_scalars(o, input_of(program, op, 0), input_of(program, op, 1), &c);
  if (!row_constant(o.multipliers(), &c.multipliers) || !row_constant(o.shifts(), &c.shifts) ||
      !row_constant(o.kernel_sums(), &c.kernel_sums)) {
    return false;
  }
  const schema::Requant* r = c.multipliers < 0 ? o.output_requant() : nullptr;
  c.multiplier = r != nullptr ? r->multiplier() : 0;
  c.shift = r != nullptr ? r->shift() : 0;
  return call_operand(program, input_index(op, 0), &c.input) &&
         call_operand(program, input_index(op, 1), &c.filter) &&
         call_operand(program, num_inputs(op) > 2 ? input_index(op, 2) : -1, &c.bias) &&
         call_output(program, output_index(op, 0), &c.output) && write_call_args(c, words);
}

// Plain runs the extension's kernel alone (every extension takes every shape); portable
// (Operator.portable_kernel, a CPU without extension) the portable one.
template <auto kKernel>
void invoke_call(const OpEnv& env, const int32_t* words) {
  const auto& c = *reinterpret_cast<const FullyConnectedCall*>(words);
  kernels::FullyConnectedParams p;
  copy_scalars(c, &p);
  // Per tensor, the kernel reads the multiplier and shift in the words themselves.
  p.per_channel = c.multipliers >= 0;
  p.output_multiplier =
      p.per_channel ? row_constant_data<int32_t>(env, c.multipliers) : &c.multiplier;
  p.output_shift = p.per_channel ? row_constant_data<int32_t>(env, c.shifts) : &c.shift;
  p.kernel_sums = row_constant_data<int32_t>(env, c.kernel_sums);
  kKernel(p, call_input<int8_t>(env, c.input), call_input<int8_t>(env, c.filter),
          call_input<int32_t>(env, c.bias), call_output_data<int8_t>(env, c.output));
}

void invoke_16x8(const Op& op) {
  with_params(op, [&](const kernels::FullyConnectedParams& p) {
    if (op.has_in(2) && op.in(2).type() == DataType::Int32) {
      kernels::fully_connected_16x8(p, op.in_data<int16_t>(0), op.in_data<int8_t>(1),
                                    op.in_data<int32_t>(2), op.out_data<int16_t>());
    } else {
      kernels::fully_connected_16x8(p, op.in_data<int16_t>(0), op.in_data<int8_t>(1),
                                    op.optional_in_data<int64_t>(2), op.out_data<int16_t>());
    }
  });
}

void invoke_int4(const Op& op) {
  with_params(op, [&](const kernels::FullyConnectedParams& p) {
    kernels::fully_connected_int4(p, op.in_data<int8_t>(0), op.in_data<uint8_t>(1),
                                  op.optional_in_data<int32_t>(2), op.out_data<int8_t>());
  });
}

size_t required_scratch(const schema::Program& p, const schema::Operator& op) {
  if (direct_loops(p, op)) return 0;
  return kernels::built_fully_connected_scratch_bytes(dim(input_of(p, op, 1), 0));
}

}  // namespace

extern const OpRegistration kFullyConnectedOp{
    takes(2, 3, schema::OpOptions::FullyConnectedOptions).int8(2).int16(1).int4(), &check,
    &required_scratch, /*runs_in_place=*/false, /*overlap=*/nullptr, &call_args,
    kCallWords<FullyConnectedCall>};
extern const OpForm kFullyConnectedPlain{nullptr,
                                         &invoke_call<&kernels::fully_connected_extension>};
extern const OpForm kFullyConnectedPortable{nullptr,
                                            &invoke_call<&kernels::portable_fully_connected>};
extern const OpForm kFullyConnectedInt16{&invoke_16x8};
extern const OpForm kFullyConnectedInt4{&invoke_int4};

}  // namespace mote::runtime::internal
