#include "mote/kernels/transpose.h"

#include <stddef.h>
#include <string.h>

namespace mote {
namespace kernels {

TransposeParams prepare_transpose(int32_t rank, const int32_t* input_dims, const int32_t* perm) {
  // Keep the input dimensions larger than 1, renumbered.
  int32_t new_index[kMaxTransposeRank];
  int32_t dims[kMaxTransposeRank];
  int32_t kept = 0;
  for (int32_t i = 0; i < rank; ++i) {
    new_index[i] = -1;
    if (input_dims[i] != 1) {
      new_index[i] = kept;
      dims[kept++] = input_dims[i];
    }
  }
  int32_t order[kMaxTransposeRank];  // output order of the kept input dimensions
  int32_t n = 0;
  for (int32_t i = 0; i < rank; ++i) {
    if (new_index[perm[i]] >= 0) order[n++] = new_index[perm[i]];
  }
  // Merge runs where input dimension k is followed by k+1 in the output order.
  int32_t group_of[kMaxTransposeRank];  // input dim -> merged group (numbered in input order)
  int32_t group_size[kMaxTransposeRank];
  int32_t groups = 0;
  for (int32_t k = 0; k < n; ++k) {
    bool follows = false;
    if (k > 0) {
      for (int32_t j = 1; j < n; ++j) {
        if (order[j] == k && order[j - 1] == k - 1) follows = true;
      }
    }
    if (follows) {
      group_of[k] = groups - 1;
      group_size[groups - 1] *= dims[k];
    } else {
      group_of[k] = groups;
      group_size[groups++] = dims[k];
    }
  }
  TransposeParams p{};
  if (groups == 0) {  // every dimension is 1: a single element
    p.rank = 1;
    p.input_dims[0] = 1;
    p.perm[0] = 0;
    return p;
  }
  p.rank = groups;
  for (int32_t g = 0; g < groups; ++g) p.input_dims[g] = group_size[g];
  int32_t m = 0;
  for (int32_t j = 0; j < n; ++j) {
    if (j == 0 || group_of[order[j]] != group_of[order[j - 1]]) p.perm[m++] = group_of[order[j]];
  }
  return p;
}

void transpose(const TransposeParams& params, const int8_t* input, int8_t* output) {
  const int32_t rank = params.rank;
  if (rank <= 0) {
    output[0] = input[0];
    return;
  }
  ptrdiff_t in_stride[kMaxTransposeRank];
  ptrdiff_t acc = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    in_stride[d] = acc;
    acc *= params.input_dims[d];
  }
  if (acc == 0) return;
  // Output dimension i walks input dimension perm[i].
  int32_t size[kMaxTransposeRank];
  ptrdiff_t stride[kMaxTransposeRank];
  for (int32_t i = 0; i < rank; ++i) {
    size[i] = params.input_dims[params.perm[i]];
    stride[i] = in_stride[params.perm[i]];
  }
  const int32_t inner = size[rank - 1];
  const ptrdiff_t inner_stride = stride[rank - 1];
  int32_t index[kMaxTransposeRank] = {};
  ptrdiff_t offset = 0;
  for (;;) {
    const int8_t* src = input + offset;
    if (inner_stride == 1) {
      memcpy(output, src, static_cast<size_t>(inner));
    } else {
      for (int32_t i = 0; i < inner; ++i) output[i] = src[i * inner_stride];
    }
    output += inner;
    int32_t d = rank - 2;
    for (; d >= 0; --d) {
      offset += stride[d];
      if (++index[d] < size[d]) break;
      offset -= stride[d] * size[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace kernels
}  // namespace mote
