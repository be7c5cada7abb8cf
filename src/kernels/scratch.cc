// The variants a library is built with, and the scratch of the operators that have no variant
// table yet (their portable kernels need none). The tables: conv.cc, depthwise_conv.cc,
// fully_connected.cc.
#include "mote/kernels/scratch.h"


namespace mote {
namespace kernels {

const char* to_string(Extension extension) {
  switch (extension) {
    case Extension::kScalar: return "scalar";
    case Extension::kDsp: return "dsp";
    case Extension::kMve: return "mve";
  }
  return "unknown";
}

const char* to_string(Variant variant) {
  switch (variant) {
    case Variant::kPortable: return "portable";
    case Variant::kDsp: return "dsp";
    case Variant::kMve: return "mve";
    case Variant::kTesting: return "testing";
  }
  return "unknown";
}

Variant extension_variant(Extension extension) {
  switch (extension) {
    case Extension::kScalar: return Variant::kPortable;
    case Extension::kDsp: return Variant::kDsp;
    case Extension::kMve: return Variant::kMve;
  }
  return Variant::kPortable;
}

// MOTE_KERNELS_WITH_<FOLDER>: set by mote_add_kernels_library(VARIANTS ...).
bool variant_built(Variant variant) {
  switch (variant) {
    case Variant::kPortable: return true;
#if defined(MOTE_KERNELS_WITH_DSP)
    case Variant::kDsp: return true;
#endif
#if defined(MOTE_KERNELS_WITH_MVE)
    case Variant::kMve: return true;
#endif
#if defined(MOTE_KERNELS_WITH_TESTING)
    case Variant::kTesting: return true;
#endif
    default: return false;
  }
}

// The portable average pool and transpose-conv kernels need none.
size_t average_pool_scratch_bytes(int32_t channels, Extension extension) { return 0; }
TransposeConvScratch transpose_conv_scratch_bytes(const TransposeConvShape& shape,
                                                  Extension extension) {
  return {0, 0};
}

// DSP builds hold dsp/ kernels (conv, depthwise, fully connected, average pool), Helium builds
// mve/ kernels (conv, depthwise, fully connected, average and max pool, add); the rest is portable.
const char* kernel_variant(Extension extension) {
  switch (extension) {
    case Extension::kDsp: return "dsp";
    case Extension::kMve: return "mve";
    default: return "portable";
  }
}

}  // namespace kernels
}  // namespace mote
