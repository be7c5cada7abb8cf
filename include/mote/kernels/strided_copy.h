#pragma once
// int8 strided copy, up to 6 dimensions: the one kernel of the data-movement operators
// (STRIDED_SLICE, SLICE, SPLIT, SPLIT_V, PACK, UNPACK, DEPTH_TO_SPACE, SPACE_TO_DEPTH). Each of
// them is a walk over an index grid that reads the input and writes the output at strides of
// their own. Embeddable C++17, no scratch.

#include <stdint.h>

namespace mote {
namespace kernels {

constexpr int kMaxStridedCopyRank = 6;

// For every index (i0, .., i[rank-1]) of the grid `dims` (row-major, the last fastest):
//   output[sum_d i_d * output_strides[d]] = input[sum_d i_d * input_strides[d]]
// where `input` and `output` point at the grid's first element. Strides count elements and may
// be negative (a reversed STRIDED_SLICE); dims are >= 1.
struct StridedCopyParams {
  int32_t rank;  // 1 .. kMaxStridedCopyRank
  int32_t dims[kMaxStridedCopyRank];
  int32_t input_strides[kMaxStridedCopyRank];
  int32_t output_strides[kMaxStridedCopyRank];
};

// Host-callable: drops dimensions of size 1 and merges neighbours that are contiguous in both
// input and output (d+1's extent times its stride equals d's stride on both sides), so the
// kernel copies the longest runs it can. The result copies the same elements.
StridedCopyParams simplify_strided_copy(const StridedCopyParams& params);

// The lowest and highest element offsets the copy touches on one side (input or output).
void strided_copy_extent(const StridedCopyParams& params, bool input, int64_t* lowest,
                         int64_t* highest);

// Works with any params (simplified or not); the touched ranges must not overlap.
void strided_copy(const StridedCopyParams& params, const int8_t* input, int8_t* output);
// The same on int16 elements (16x8 models); strides still count elements.
void strided_copy(const StridedCopyParams& params, const int16_t* input, int16_t* output);
// The same on int32 elements (plain integers: TFLM's int32 STRIDED_SLICE).
void strided_copy(const StridedCopyParams& params, const int32_t* input, int32_t* output);

}  // namespace kernels
}  // namespace mote
