// The dsp kernels' instance table (dsp/instance_tables.h): in the library, every instance; in a
// firmware image for a CPU with the DSP extension and without MVE, compiled with its selection
// header, only those its programs run. Empty elsewhere (an image compiles this file whatever its
// CPU).
#if defined(MOTE_KERNELS_WITH_DSP) ||                                                    \
    (defined(MOTE_OP_SELECTION_HEADER) && defined(__ARM_FEATURE_DSP) &&                  \
     !(defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)))

#include "dsp/instance_tables.h"

#if defined(MOTE_OP_SELECTION_HEADER)
#include MOTE_OP_SELECTION_HEADER
#endif
#if !defined(MOTE_SELECTED_GROUPED_CONV)
#define MOTE_SELECTED_GROUPED_CONV 1
#endif

namespace mote {
namespace kernels {
namespace dsp {

#if MOTE_SELECTED_GROUPED_CONV
extern const ConvInstanceTable kConvInstances{&conv_im2col_grouped};
#else
extern const ConvInstanceTable kConvInstances{nullptr};
#endif

}  // namespace dsp
}  // namespace kernels
}  // namespace mote

#endif
