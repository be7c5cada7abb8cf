#pragma once
// int8 TRANSPOSE, up to 6 dimensions. Embeddable C++17.

#include <stdint.h>

namespace mote {
namespace kernels {

constexpr int kMaxTransposeRank = 6;

// output dims[i] = input_dims[perm[i]].
struct TransposeParams {
  int32_t rank;  // 1 .. kMaxTransposeRank
  int32_t input_dims[kMaxTransposeRank];
  int32_t perm[kMaxTransposeRank];
};

// Host-callable: drops dimensions of size 1 and merges input dimensions that stay adjacent and in
// order in the output, so the kernel walks as few dimensions as possible. `perm` must be a
// permutation of 0..rank-1 (rank <= 6).
TransposeParams prepare_transpose(int32_t rank, const int32_t* input_dims, const int32_t* perm);

// Works with any valid params (simplified by prepare_transpose or not). No scratch.
void transpose(const TransposeParams& params, const int8_t* input, int8_t* output);

}  // namespace kernels
}  // namespace mote
