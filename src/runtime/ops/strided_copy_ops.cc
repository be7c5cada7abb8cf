#include "runtime/ops/strided_copy_ops.h"

namespace mote::runtime::internal {

namespace {
constexpr int64_t kMaxIndex = 0x7fffffff;
}  // namespace

Error check_slice(const OpChecker& c) {
  const auto& o = c.options<schema::SliceOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  const size_t r = rank(x);
  if (r < 1 || r > static_cast<size_t>(kernels::kMaxStridedCopyRank)) {
    return c.bad("input rank must be 1 to 6", Error::kUnsupported);
  }
  if (o.begin() == nullptr || o.stride() == nullptr || o.count() == nullptr ||
      o.begin()->size() != r || o.stride()->size() != r || o.count()->size() != r) {
    return c.bad("slice needs a begin, stride and count per input dimension");
  }
  int64_t total = 1;
  for (flatbuffers::uoffset_t d = 0; d < r; ++d) {
    const int64_t size = dim(x, d), b = o.begin()->Get(d), s = o.stride()->Get(d),
                  n = o.count()->Get(d);
    if (s == 0 || n < 1 || b < 0 || b >= size) return c.bad("slice begin, stride or count invalid");
    const int64_t last = b + (n - 1) * s;
    if (last < 0 || last >= size) return c.bad("slice reads outside the input");
    if ((s < 0 ? -s : s) * row_major_stride(x, d) > kMaxIndex) {
      return c.bad("slice stride too large", Error::kUnsupported);
    }
    total *= n;
  }
  if (total != static_cast<int64_t>(element_count(y))) {
    return c.bad("output size differs from the slice's");
  }
  return Error::kOk;
}

namespace {

template <typename T>
void slice(const Op& op) {
  const auto& o = op.options<schema::SliceOptions>();
  const Tensor& x = op.in(0);
  const size_t r = rank(x);
  kernels::StridedCopyParams p{};
  p.rank = static_cast<int32_t>(r);
  int64_t first = 0, out_stride = 1;
  for (size_t i = r; i-- > 0;) {
    const auto d = static_cast<flatbuffers::uoffset_t>(i);
    const int64_t in_stride = row_major_stride(x, i);
    first += o.begin()->Get(d) * in_stride;
    p.dims[i] = o.count()->Get(d);
    p.input_strides[i] = static_cast<int32_t>(o.stride()->Get(d) * in_stride);
    p.output_strides[i] = static_cast<int32_t>(out_stride);
    out_stride *= o.count()->Get(d);
  }
  kernels::strided_copy(kernels::simplify_strided_copy(p), op.in_data<T>(0) + first,
                        op.out_data<T>());
}

}  // namespace

void invoke_slice(const Op& op) {
  if (op.in(0).type() == DataType::Int32) {
    slice<int32_t>(op);
  } else if (op.in(0).type() == DataType::Int16) {
    slice<int16_t>(op);
  } else {
    slice<int8_t>(op);
  }
}

Error check_parts(const OpChecker& c, bool keeps_axis) {
  const auto& o = c.options<schema::SplitOptions>();
  const Tensor& x = *c.in(0);
  const size_t r = rank(x);
  if (o.axis() < 0 || static_cast<size_t>(o.axis()) >= r) return c.bad("axis out of range");
  const size_t axis = static_cast<size_t>(o.axis());
  const size_t n = num_outputs(c.op());
  int64_t total = 0;
  for (size_t j = 0; j < n; ++j) {
    const Tensor& y = c.out(j);
    if (rank(y) != (keeps_axis ? r : r - 1)) return c.bad("output rank differs from the input's");
    for (size_t d = 0, e = 0; d < r; ++d) {
      if (d == axis) {
        if (keeps_axis) total += dim(y, e++);
        continue;
      }
      if (dim(y, e++) != dim(x, d)) return c.bad("output shape differs off the axis");
    }
    if (!keeps_axis) ++total;
  }
  if (total != dim(x, axis)) return c.bad("outputs do not cover the input along the axis");
  return Error::kOk;
}

void invoke_parts(const Op& op, bool keeps_axis) {
  const Tensor& x = op.in(0);
  const size_t axis = static_cast<size_t>(op.options<schema::SplitOptions>().axis());
  const int64_t elements = row_major_stride(x, axis);
  const int64_t outer = static_cast<int64_t>(element_count(x)) / (elements * dim(x, axis));
  // Bytes moved whole: an int16 element is two.
  const int64_t inner = elements * static_cast<int64_t>(element_size(x.type()));
  const int8_t* input = op.in_data<int8_t>(0);
  int64_t at = 0;  // index along the axis of the next part
  for (size_t j = 0; j < num_outputs(op.op()); ++j) {
    const int64_t part = keeps_axis ? dim(op.out(j), axis) : 1;
    copy_rows(input + at * inner, op.out_data<int8_t>(j), outer, part * inner, dim(x, axis) * inner,
              part * inner);
    at += part;
  }
}

}  // namespace mote::runtime::internal
