// QUANTIZE (float32 -> int8 / int16, and int8 / int16 -> int8 / int16 / int32, int32 -> int8 /
// int16, uint8 -> int8, int8 -> uint8 requantization) and DEQUANTIZE (int8 / int16 -> float32).
// Both run in place: quantize front to back, dequantize back to front. An int8 -> int8
// requantization also runs by rows in a stage.

#include "mote/kernels/quantize.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check_quantize(const OpChecker& c) {
  const auto& o = c.options<schema::QuantizeOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  if (x.type() == DataType::Float32 &&
      (y.type() == DataType::Int8 || y.type() == DataType::Int16)) {
    const bool int16 = y.type() == DataType::Int16;
    if (!(y.scale() > 0.0f) ||
        !in_range(y.zero_point(), int16 ? -32768 : -128, int16 ? 32767 : 127)) {
      return c.bad("output scale or zero point out of range");
    }
    return Error::kOk;
  }
  if (x.type() == DataType::Int8 && y.type() == DataType::Int8) {
    MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
    return c.requant(o.requant(), kMaxCenteredInput);
  }
  const bool u8_in = x.type() == DataType::UInt8 && y.type() == DataType::Int8;
  const bool u8_out = x.type() == DataType::Int8 && y.type() == DataType::UInt8;
  if (u8_in || u8_out) {
    // Each zero point in its own type's range: |x - zero point| stays within 255 either way.
    const bool in_ok = u8_in ? in_range(o.input_offset(), -255, 0)
                             : in_range(o.input_offset(), -127, 128);
    const bool out_ok = u8_out ? in_range(o.output_offset(), 0, 255)
                               : in_range(o.output_offset(), -128, 127);
    if (!in_ok || !out_ok) return c.bad("zero point outside the tensor's type");
    return c.requant(o.requant(), kMaxCenteredInput);
  }
  const bool int16_in = x.type() == DataType::Int16, int16_out = y.type() == DataType::Int16;
  if ((int16_in || int16_out) && (x.type() == DataType::Int8 || int16_in) &&
      (y.type() == DataType::Int8 || int16_out)) {
    // Between int8 and int16 (16x8 models): an int16 output's zero point is 0, an int16
    // input's any int16 value.
    if (!in_range(o.input_offset(), int16_in ? -32767 : -127, int16_in ? 32768 : 128)) {
      return c.bad("input zero point out of range");
    }
    if (o.output_offset() != 0 && (int16_out || !in_range(o.output_offset(), -128, 127))) {
      return c.bad("output zero point out of range");
    }
    return c.requant(o.requant(), int16_in ? 65535 : kMaxCenteredInput);
  }
  if (x.type() == DataType::Int32 && (y.type() == DataType::Int8 || int16_out)) {
    // From int32: any input zero point (the kernel saturates the difference to int32).
    if (!in_range(o.output_offset(), int16_out ? -32768 : -128, int16_out ? 32767 : 127)) {
      return c.bad("output zero point out of range");
    }
    // Any int32 value, with a right shift: the result stays within 2^30, room for the offset.
    if (o.requant() == nullptr || o.requant()->shift() > -1) {
      return c.bad("an int32 input needs a scale ratio below 1/2", Error::kUnsupported);
    }
    return c.requant(o.requant(), INT32_MAX, INT32_MAX);
  }
  if ((x.type() == DataType::Int8 || int16_in) && y.type() == DataType::Int32) {
    // Into int32 (a raw result): any output zero point; the sum is taken in 64 bits.
    if (!in_range(o.input_offset(), int16_in ? -32767 : -127, int16_in ? 32768 : 128)) {
      return c.bad("input zero point out of range");
    }
    return c.requant(o.requant(), int16_in ? 65535 : kMaxCenteredInput);
  }
  return c.bad("quantize supports float32 -> int8 / int16, int8 / int16 -> int8 / int16 / int32, "
               "int32 -> int8 / int16, uint8 -> int8 and int8 -> uint8",
               Error::kUnsupported);
}

// A requantization's parameters (every input but float32).
kernels::RequantizeParams requantize_params(const schema::QuantizeOptions& o) {
  kernels::RequantizeParams p{};
  p.input_zero_point = -o.input_offset();
  p.output_zero_point = o.output_offset();
  p.multiplier = o.requant()->multiplier();
  p.shift = o.requant()->shift();
  return p;
}

void invoke_quantize(const Op& op) {
  const Tensor &x = op.in(0), &y = op.out();
  const size_t count = element_count(y);
  if (x.type() == DataType::Float32) {
    const kernels::QuantizeParams q{y.scale(), y.zero_point()};
    if (y.type() == DataType::Int16) {
      kernels::quantize(q, op.in_data<float>(0), op.out_data<int16_t>(), count);
    } else {
      kernels::quantize(q, op.in_data<float>(0), op.out_data<int8_t>(), count);
    }
    return;
  }
  const kernels::RequantizeParams p = requantize_params(op.options<schema::QuantizeOptions>());
  const bool int16_in = x.type() == DataType::Int16, int16_out = y.type() == DataType::Int16;
  if (x.type() == DataType::Int32) {
    if (int16_out) {
      kernels::requantize(p, op.in_data<int32_t>(0), op.out_data<int16_t>(), count);
    } else {
      kernels::requantize(p, op.in_data<int32_t>(0), op.out_data<int8_t>(), count);
    }
  } else if (y.type() == DataType::Int32) {
    if (int16_in) {
      kernels::requantize(p, op.in_data<int16_t>(0), op.out_data<int32_t>(), count);
    } else {
      kernels::requantize(p, op.in_data<int8_t>(0), op.out_data<int32_t>(), count);
    }
  } else if (int16_in && int16_out) {
    kernels::requantize(p, op.in_data<int16_t>(0), op.out_data<int16_t>(), count);
  } else if (int16_in) {
    kernels::requantize(p, op.in_data<int16_t>(0), op.out_data<int8_t>(), count);
  } else if (int16_out) {
    kernels::requantize(p, op.in_data<int8_t>(0), op.out_data<int16_t>(), count);
  } else if (x.type() == DataType::UInt8) {
    kernels::requantize(p, op.in_data<uint8_t>(0), op.out_data<int8_t>(), count);
  } else if (y.type() == DataType::UInt8) {
    kernels::requantize(p, op.in_data<int8_t>(0), op.out_data<uint8_t>(), count);
  } else {
    kernels::requantize(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), count);
  }
}

// Inside a row-streamed stage: int8 -> int8 of an input of the output's shape, row y for row y
// (the elementwise kinds' reach); float, uint8, int16 and int32 stay whole.
bool quantize_row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
                        StageRowReach* reach) {
  return input_of(p, op, 0).type() == DataType::Int8 && elementwise_row_reach(p, op, k, reach);
}

// The row-call words: each row width = W * C elements on the kernel the whole map runs.
struct QuantizeRowArgs {
  kernels::RequantizeParams params;
  int32_t width;
  RowOperand input, output;
};

bool quantize_row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  QuantizeRowArgs r{};
  r.params = requantize_params(*op.options_as_QuantizeOptions());
  const Tensor& y = output_of(p, op);
  r.width = dim(y, 2) * dim(y, 3);
  if (!row_operand(p, input_index(op, 0), &r.input) ||
      !row_operand(p, output_index(op, 0), &r.output) || r.output.at < 0) {
    return false;
  }
  return write_row_args(r, words);
}

void invoke_quantize_rows(const OpEnv& env, const int32_t* words, int32_t y_begin,
                          int32_t y_end) {
  const QuantizeRowArgs& r = row_args_of<QuantizeRowArgs>(words);
  for (int32_t y = y_begin; y < y_end; ++y) {
    kernels::requantize(r.params, row_of(row_input(env, r.input), r.input.rows, y, r.width),
                        row_of(row_output(env, r.output), r.output.rows, y, r.width),
                        static_cast<size_t>(r.width));
  }
}

Error check_dequantize(const OpChecker& c) {
  const Tensor &x = *c.in(0), &y = c.out();
  const bool int16 = x.type() == DataType::Int16;
  if ((x.type() != DataType::Int8 && !int16) || y.type() != DataType::Float32) {
    return c.bad("dequantize supports int8 / int16 -> float32", Error::kUnsupported);
  }
  if (!in_range(x.zero_point(), int16 ? -32768 : -128, int16 ? 32767 : 127)) {
    return c.bad("input zero point outside its type");
  }
  return Error::kOk;
}

void invoke_dequantize(const Op& op) {
  const Tensor& x = op.in(0);
  const kernels::DequantizeParams p{x.scale(), x.zero_point()};
  if (x.type() == DataType::Int16) {
    kernels::dequantize(p, op.in_data<int16_t>(0), op.out_data<float>(), element_count(x));
  } else {
    kernels::dequantize(p, op.in_data<int8_t>(0), op.out_data<float>(), element_count(x));
  }
}

// Every conversion runs front to back, element by element: the output may start on its input
// where its elements are no larger (as many elements, checked by one_to_one).
kernels::OverlapRule quantize_overlap(const schema::Program& program, const schema::Operator& op,
                                      size_t k) {
  const Tensor& x = input_of(program, op, k);
  const Tensor& y = output_of(program, op);
  if (element_count(x) != element_count(y)) return kernels::kNoOverlap;
  return kernels::narrowing_elementwise_overlap(element_size(x.type()), element_size(y.type()));
}

}  // namespace

extern const OpRegistration kQuantizeOp{
    takes(1, 1, schema::OpOptions::QuantizeOptions).one_to_one(), &check_quantize,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &quantize_overlap};
extern const OpForm kQuantizePlain{&invoke_quantize};
extern const OpRowForm kQuantizeRows{&quantize_row_reach, &quantize_row_args,
                                     kRowWords<QuantizeRowArgs>, &invoke_quantize_rows};
extern const OpRegistration kDequantizeOp{
    takes(1, 1, schema::OpOptions::NONE).one_to_one(), &check_dequantize,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kDequantizePlain{&invoke_dequantize};

}  // namespace mote::runtime::internal
