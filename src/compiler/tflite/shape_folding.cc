#include "compiler/tflite/shape_folding.h"

#include <algorithm>

namespace mote::tflite {
namespace {

bool is_scalar_or_vector(const Int32Value& v) { return v.shape.size() <= 1; }

bool is_one_element_vector(const Int32Value& v) {
  return v.shape.size() == 1 && v.shape[0] == 1 && v.values.size() == 1;
}

}  // namespace

std::optional<Int32Value> fold_strided_slice(const Int32Value& input, const Int32Value& begin,
                                             const Int32Value& end, const Int32Value& strides,
                                             const StridedSliceMasks& masks) {
  if (input.shape.size() != 1 || !is_one_element_vector(begin) || !is_one_element_vector(end) ||
      !is_one_element_vector(strides)) {
    return std::nullopt;
  }
  if (masks.ellipsis != 0 || masks.new_axis != 0 || masks.offset) return std::nullopt;
  const int64_t n = input.shape[0];
  const int64_t stride = strides.values[0];
  const bool shrink = (masks.shrink_axis & 1) != 0;
  if (stride == 0 || (shrink && stride < 0)) return std::nullopt;
  // Negative indices count from the end; then clamp to [0, n] going forward, [-1, n - 1] back.
  auto clamp = [&](int64_t i) {
    if (i < 0) i += n;
    return stride > 0 ? std::clamp<int64_t>(i, 0, n) : std::clamp<int64_t>(i, -1, n - 1);
  };
  const int64_t start = (masks.begin & 1) != 0 ? (stride > 0 ? 0 : n - 1) : clamp(begin.values[0]);
  int64_t stop;
  if (shrink) {
    if (start >= n) return std::nullopt;  // TensorFlow reports an out-of-range index
    stop = start + 1;
  } else {
    stop = (masks.end & 1) != 0 ? (stride > 0 ? n : -1) : clamp(end.values[0]);
  }
  Int32Value out;
  for (int64_t i = start; stride > 0 ? i < stop : i > stop; i += stride) {
    out.values.push_back(input.values[static_cast<size_t>(i)]);
  }
  if (!shrink) out.shape = {static_cast<int32_t>(out.values.size())};
  return out;
}

std::optional<Int32Value> fold_pack(const std::vector<Int32Value>& inputs, int32_t axis) {
  if (inputs.empty()) return std::nullopt;
  const Int32Value& first = inputs[0];
  if (!is_scalar_or_vector(first)) return std::nullopt;
  // Axis 0 stacks rows; for scalars axis -1 is the same axis.
  if (!(axis == 0 || (first.shape.empty() && axis == -1))) return std::nullopt;
  Int32Value out;
  out.shape = {static_cast<int32_t>(inputs.size())};
  out.shape.insert(out.shape.end(), first.shape.begin(), first.shape.end());
  for (const Int32Value& v : inputs) {
    if (v.shape != first.shape) return std::nullopt;
    out.values.insert(out.values.end(), v.values.begin(), v.values.end());
  }
  return out;
}

std::optional<Int32Value> fold_concatenation(const std::vector<Int32Value>& inputs, int32_t axis) {
  if (inputs.empty() || (axis != 0 && axis != -1)) return std::nullopt;
  Int32Value out;
  for (const Int32Value& v : inputs) {
    if (v.shape.size() != 1) return std::nullopt;
    out.values.insert(out.values.end(), v.values.begin(), v.values.end());
  }
  out.shape = {static_cast<int32_t>(out.values.size())};
  return out;
}

std::optional<Int32Value> fold_gather(const Int32Value& params, const Int32Value& indices,
                                      int32_t axis, int32_t batch_dims) {
  if (params.shape.size() != 1 || (axis != 0 && axis != -1) || batch_dims != 0) {
    return std::nullopt;
  }
  Int32Value out;
  out.shape = indices.shape;
  for (int32_t i : indices.values) {
    if (i < 0 || i >= params.shape[0]) return std::nullopt;
    out.values.push_back(params.values[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace mote::tflite
