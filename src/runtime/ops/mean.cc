// MEAN over any axes of an int8 input of rank <= kMaxMeanRank, TFLite's integer rule.

#include "mote/kernels/mean.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

// The program's axes: sorted, distinct, in range. Writes the reduced flags of the input's
// dimensions and returns false on a malformed list.
bool axes_ok(const flatbuffers::Vector<int32_t>* axes, size_t r, bool* reduced) {
  if (axes == nullptr || axes->size() > r) return false;
  for (size_t d = 0; d < r; ++d) reduced[d] = false;
  for (flatbuffers::uoffset_t k = 0; k < axes->size(); ++k) {
    const int32_t a = axes->Get(k);
    if (a < 0 || static_cast<size_t>(a) >= r || (k > 0 && a <= axes->Get(k - 1))) return false;
    reduced[a] = true;
  }
  return true;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::MeanOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  const size_t r = rank(x);
  if (r > static_cast<size_t>(kernels::kMaxMeanRank)) {
    return c.bad("input rank above 6", Error::kUnsupported);
  }
  bool reduced[kernels::kMaxMeanRank];
  if (!axes_ok(o.axes(), r, reduced)) return c.bad("axes not sorted, distinct and in range");
  // The output: the kept dimensions, and 1 for each reduced one with keep_dims.
  size_t out_d = 0;
  int64_t count = 1;
  for (size_t d = 0; d < r; ++d) {
    if (reduced[d]) count *= dim(x, d);
    if (reduced[d] && !o.keep_dims()) continue;
    const int32_t expected = reduced[d] ? 1 : dim(x, d);
    if (out_d >= rank(y) || dim(y, out_d) != expected) {
      return c.bad("output shape inconsistent with axes");
    }
    ++out_d;
  }
  if (out_d != rank(y)) return c.bad("output shape inconsistent with axes");
  if (o.formula() != schema::MeanFormula::Folded) {
    return c.bad("mean requantization of an older compiler (recompile the model)",
                 Error::kUnsupported);
  }
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
  // |sum(x) - input_zp * count| <= 255 * count, requantized.
  return c.requant(o.requant(), count * kMaxCenteredInput, kernels::kMaxMeanSum);
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::MeanOptions>();
  const Tensor& x = op.in(0);
  int32_t dims[kernels::kMaxMeanRank];
  int32_t axes[kernels::kMaxMeanRank];
  for (size_t d = 0; d < rank(x); ++d) dims[d] = dim(x, d);
  const flatbuffers::uoffset_t axis_count = o.axes()->size();
  for (flatbuffers::uoffset_t k = 0; k < axis_count; ++k) axes[k] = o.axes()->Get(k);
  const kernels::MeanParams p = kernels::prepare_mean(
      static_cast<int32_t>(rank(x)), dims, static_cast<int32_t>(axis_count), axes,
      -o.input_offset(), o.output_offset(), o.requant()->multiplier(), o.requant()->shift());
  kernels::mean(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kMeanOp{
    takes(1, 2, schema::OpOptions::MeanOptions).int8(1), &check, &invoke,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};

}  // namespace mote::runtime::internal
