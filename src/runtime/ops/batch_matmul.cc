// BATCH_MATMUL: two int8 (or int16) operands (either may sit in the constants), ranks 2..5 with
// broadcast batch dimensions (the kernels' one shape rule), one per-tensor requantization; no
// scratch.

#include "mote/kernels/batch_matmul.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

// The kernel's parameters from the options and the operands' shapes; false when the shapes are
// not a batch matmul's.
bool params_of(const schema::BatchMatMulOptions& o, const Tensor& lhs, const Tensor& rhs,
               int32_t* output_dims, int32_t* output_rank, kernels::BatchMatMulParams* p) {
  if (rank(lhs) > static_cast<size_t>(kernels::kMaxBatchMatMulRank) ||
      rank(rhs) > static_cast<size_t>(kernels::kMaxBatchMatMulRank)) {
    return false;
  }
  *p = kernels::BatchMatMulParams{};
  if (!kernels::prepare_batch_matmul_shape(shape_data(lhs), static_cast<int32_t>(rank(lhs)),
                                           shape_data(rhs), static_cast<int32_t>(rank(rhs)),
                                           o.adj_x(), o.adj_y(), &p->shape, output_dims,
                                           output_rank)) {
    return false;
  }
  p->lhs_offset = o.lhs_offset();
  p->rhs_offset = o.rhs_offset();
  p->output_offset = o.output_offset();
  if (o.output_requant() != nullptr) {
    p->output_multiplier = o.output_requant()->multiplier();
    p->output_shift = o.output_requant()->shift();
  }
  p->act_min = o.activation_min();
  p->act_max = o.activation_max();
  return true;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::BatchMatMulOptions>();
  const Tensor &lhs = *c.in(0), &rhs = *c.in(1), &y = c.out();
  int32_t dims[kernels::kMaxBatchMatMulRank], out_rank = 0;
  kernels::BatchMatMulParams p;
  if (!params_of(o, lhs, rhs, dims, &out_rank, &p)) {
    return c.bad("operand shapes do not multiply (ranks 2..5, equal depths, broadcast batches)");
  }
  if (rank(y) != static_cast<size_t>(out_rank)) return c.bad("output shape inconsistent");
  for (int32_t i = 0; i < out_rank; ++i) {
    if (dim(y, static_cast<size_t>(i)) != dims[i]) return c.bad("output shape inconsistent");
  }
  if (c.int16()) {
    // int64 sums, requantized by the saturating 64-bit multiply: any depth fits.
    if (!kernels::batch_matmul_fits(p, true)) return c.bad("int16 zero point not 0 or bad clamp");
    return c.requant(o.output_requant(), 0);
  }
  MOTE_TRY(c.offsets_and_range(o.lhs_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
  if (!in_range(o.rhs_offset(), -127, 128)) return c.bad("zero point outside int8");
  // The same bound the compiler checked: depth * max|lhs + offset| * max|rhs + offset|.
  return c.requant(o.output_requant(), kernels::batch_matmul_accumulator_bound(p));
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::BatchMatMulOptions>();
  int32_t dims[kernels::kMaxBatchMatMulRank], out_rank = 0;
  kernels::BatchMatMulParams p;
  params_of(o, op.in(0), op.in(1), dims, &out_rank, &p);
  if (op.in(0).type() == DataType::Int16) {
    kernels::batch_matmul(p, op.in_data<int16_t>(0), op.in_data<int16_t>(1),
                          op.out_data<int16_t>());
  } else {
    kernels::batch_matmul(p, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  }
}

}  // namespace

extern const OpRegistration kBatchMatMulOp{
    takes(2, 2, schema::OpOptions::BatchMatMulOptions).int8(2).int16(2), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kBatchMatMulPlain{&invoke};

}  // namespace mote::runtime::internal
