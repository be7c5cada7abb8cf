// AVERAGE_POOL_2D and MAX_POOL_2D: int8 (or int16) NHWC input and output, a window per channel.

#include "mote/kernels/pooling.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::PoolOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  if (dim(y, 0) != dim(x, 0) || dim(y, 3) != dim(x, 3)) return c.bad("output shape inconsistent");
  MOTE_TRY(c.strides(o.stride_h(), o.stride_w()));
  if (!window_ok(dim(x, 1), dim(y, 1), o.filter_h(), o.stride_h(), o.pad_h()) ||
      !window_ok(dim(x, 2), dim(y, 2), o.filter_w(), o.stride_w(), o.pad_w())) {
    return c.bad("output size inconsistent with input, filter, stride and padding");
  }
  MOTE_TRY(c.offsets_and_range(0, 0, o.activation_min(), o.activation_max()));
  // The window's area (two positive int32: within int64) times the largest element in int32.
  const int64_t area = int64_t{o.filter_h()} * o.filter_w();
  if (area > kAccLimit / (c.int16() ? 32768 : 128)) {
    return c.bad("pooling window too large", Error::kUnsupported);
  }
  return Error::kOk;
}

kernels::PoolParams pool_params(const schema::Program& program, const schema::Operator& op) {
  const auto& o = *op.options_as_PoolOptions();
  const Tensor &x = input_of(program, op, 0), &y = output_of(program, op);
  kernels::PoolParams p{};
  set_nhwc_dims(p, x, y);
  p.filter_h = o.filter_h();
  p.filter_w = o.filter_w();
  p.stride_h = o.stride_h();
  p.stride_w = o.stride_w();
  p.pad_h = o.pad_h();
  p.pad_w = o.pad_w();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  return p;
}

kernels::PoolParams pool_params(const Op& op) { return pool_params(op.program(), op.op()); }

bool int16(const schema::Program& p, const schema::Operator& op) {
  return input_of(p, op, 0).type() == DataType::Int16;
}

Error average_check(const OpChecker& c) {
  MOTE_TRY(check(c));
  if (c.int16()) return Error::kOk;
  return c.extension_takes(
      [&] { return kernels::average_pool_extension_takes(pool_params(c.program(), c.op())); });
}

// int16: the direct loops, no overlap.
kernels::OverlapRule average_overlap(const schema::Program& p, const schema::Operator& op,
                                     size_t) {
  if (int16(p, op)) return kernels::kNoOverlap;
  return kernels::built_average_pool_overlap(pool_params(p, op));
}

kernels::OverlapRule max_overlap(const schema::Program& p, const schema::Operator& op, size_t) {
  if (int16(p, op)) return kernels::kNoOverlap;
  return kernels::built_max_pool_overlap(pool_params(p, op));
}

// Plain runs the extension's kernel alone; portable (Operator.portable_kernel) the portable one.
template <auto kKernel>
void invoke_average(const Op& op) {
  kKernel(pool_params(op), op.in_data<int8_t>(0), op.out_data<int8_t>(), op.scratch());
}
void invoke_average_16(const Op& op) {
  kernels::average_pool(pool_params(op), op.in_data<int16_t>(0), op.out_data<int16_t>());
}

void invoke_max(const Op& op) {
  kernels::max_pool(pool_params(op), op.in_data<int8_t>(0), op.out_data<int8_t>());
}
void invoke_max_16(const Op& op) {
  kernels::max_pool(pool_params(op), op.in_data<int16_t>(0), op.out_data<int16_t>());
}

// Inside a row-streamed stage: the window's rows of a batch-1 input.
bool row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
               StageRowReach* reach) {
  const kernels::PoolParams params = pool_params(p, op);
  return k == 0 && !int16(p, op) && params.batches == 1 &&
         stage_window_reach(params.filter_h, params.stride_h, params.pad_h, 1, reach);
}

// A global average pool streams: its input rows summed as they come (the sums in its scratch),
// its output written after the last.
bool average_row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
                       StageRowReach* reach) {
  if (k == 0 && !int16(p, op) && kernels::global_average_pool_streams(pool_params(p, op))) {
    *reach = kStageAccumulate;
    return true;
  }
  return row_reach(p, op, k, reach);
}

// Inside a row-streamed stage: a pool's row-call words (OpRowForm::row_args). global: a
// global average pool whose sums stream (kernels::global_average_pool_streams).
struct PoolRowArgs {
  kernels::PoolParams params;
  RowOperand input, output;
  int32_t scratch, scratch_size;  // arena offset and bytes (size 0: none)
  int32_t global;
};

bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  PoolRowArgs a{};
  a.params = pool_params(p, op);
  a.global = kernels::global_average_pool_streams(a.params) ? 1 : 0;
  if (!row_operand(p, input_index(op, 0), &a.input) ||
      !row_operand(p, output_index(op, 0), &a.output) || a.output.at < 0 ||
      !row_scratch_words(op, &a.scratch, &a.scratch_size)) {
    return false;
  }
  return write_row_args(a, words);
}

void invoke_average_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const PoolRowArgs& a = row_args_of<PoolRowArgs>(words);
  const kernels::Scratch scratch = row_scratch(env, a.scratch, a.scratch_size);
  if (a.global != 0) {
    // Input rows [y_begin, y_end) into the sums; the output after the last. (A global pool
    // counts the rows of its input, which row_reach set as its height.)
    int32_t* sums = reinterpret_cast<int32_t*>(scratch.data);
    kernels::global_average_pool_accumulate(a.params, row_input(env, a.input),
                                            kernels::RowRing{a.input.rows}, y_begin, y_end, sums);
    if (y_end == a.params.input_h) {
      kernels::global_average_pool_finish(a.params, sums, row_output(env, a.output));
    }
    return;
  }
  kernels::average_pool_rows(a.params, row_input(env, a.input), kernels::RowRing{a.input.rows},
                             row_output(env, a.output), kernels::RowRing{a.output.rows}, y_begin,
                             y_end, scratch);
}

void invoke_max_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const PoolRowArgs& a = row_args_of<PoolRowArgs>(words);
  kernels::max_pool_rows(a.params, row_input(env, a.input), kernels::RowRing{a.input.rows},
                         row_output(env, a.output), kernels::RowRing{a.output.rows}, y_begin,
                         y_end);
}

size_t average_scratch(const schema::Program& p, const schema::Operator& op) {
  if (int16(p, op)) return 0;
  return kernels::average_pool_scratch_bytes(dim(output_of(p, op), 3), extension_of(p));
}

}  // namespace

extern const OpRegistration kAveragePool2DOp{
    takes(1, 1, schema::OpOptions::PoolOptions).int8(1).int16(1).nhwc(), &average_check,
    &average_scratch, /*runs_in_place=*/false, &average_overlap};
extern const OpForm kAveragePool2DPlain{&invoke_average<&kernels::average_pool_extension>};
extern const OpForm kAveragePool2DPortable{&invoke_average<&kernels::portable_average_pool>};
extern const OpForm kAveragePool2DInt16{&invoke_average_16};
extern const OpRowForm kAveragePool2DRows{&average_row_reach, &row_args, kRowWords<PoolRowArgs>,
                                          &invoke_average_rows};
extern const OpRegistration kMaxPool2DOp{
    takes(1, 1, schema::OpOptions::PoolOptions).int8(1).int16(1).nhwc(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, &max_overlap};
extern const OpForm kMaxPool2DPlain{&invoke_max};
extern const OpForm kMaxPool2DInt16{&invoke_max_16};
extern const OpRowForm kMaxPool2DRows{&row_reach, &row_args, kRowWords<PoolRowArgs>,
                                      &invoke_max_rows};

}  // namespace mote::runtime::internal
