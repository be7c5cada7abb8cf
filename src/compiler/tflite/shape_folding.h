#pragma once
// Subgraphs that only compute shapes. Converters often emit SHAPE -> STRIDED_SLICE -> PACK ->
// RESHAPE for a Flatten or a Reshape whose batch size TensorFlow did not know: at run time they
// compute a constant, since every shape is static here. The reader evaluates such operators on
// int32 values (SHAPE of any tensor; STRIDED_SLICE, PACK, CONCATENATION and GATHER of int32
// constants) and makes their outputs constants, so that their consumers see constant inputs.
// Each function returns nullopt for a case it does not evaluate; the operator then stays in the
// graph and is judged like any other.

#include <cstdint>
#include <optional>
#include <vector>

namespace mote::tflite {

struct Int32Value {
  std::vector<int32_t> shape;   // {} for a scalar
  std::vector<int32_t> values;  // row-major, as many as the shape holds
};

// TFLite's StridedSliceOptions.
struct StridedSliceMasks {
  int32_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
  bool offset = false;
};

// A rank-1 input with rank-1 begin, end and strides of one element each (no ellipsis or new
// axis, no offset): TensorFlow's rules for negative indices, clamping and negative strides.
std::optional<Int32Value> fold_strided_slice(const Int32Value& input, const Int32Value& begin,
                                             const Int32Value& end, const Int32Value& strides,
                                             const StridedSliceMasks& masks);

// Scalars or rank-1 values of one shape, stacked along axis 0 (or -1 for scalars).
std::optional<Int32Value> fold_pack(const std::vector<Int32Value>& inputs, int32_t axis);

// Rank-1 values joined along axis 0 (or -1).
std::optional<Int32Value> fold_concatenation(const std::vector<Int32Value>& inputs, int32_t axis);

// Elements of a rank-1 `params` picked by `indices` (any shape; axis 0, batch_dims 0). An index
// out of range gives nullopt.
std::optional<Int32Value> fold_gather(const Int32Value& params, const Int32Value& indices,
                                      int32_t axis, int32_t batch_dims);

}  // namespace mote::tflite
