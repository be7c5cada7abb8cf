// int16 LOGISTIC and TANH: TFLite's reference int16 kernels (see activation16.h).

#include "mote/kernels/activation16.h"

#include <math.h>

namespace mote {
namespace kernels {
namespace {

// sigmoid(i / 24) for i in [0, 256) in 0.16 fixed point, the grid TFLite's int16 Logistic and
// Tanh interpolate linearly (tanh(x) = 2 sigmoid(2x) - 1). Entry i < 255 is
// round(s(i) - ((s(i) + s(i + 1)) / 2 - s(i + 1/2)) / 2) with s(t) = 65536 sigmoid(t / 24): the
// sample lowered by half of the interpolation's error at the midpoint, so that the error is spread
// over the interval; entry 255 is 65535, the top. LstmTest.SigmoidTableIsItsRule recomputes it.
constexpr uint16_t kSigmoidTable[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
    41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
    48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
    54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
    58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
    61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
    63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
    64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
    64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
    65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
    65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
    65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
    65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
    65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
    65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
    65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
    65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

int32_t scaled(const Activation16Params& p, int16_t x) {
  const int32_t round = p.left_shift > 0 ? 1 << (p.left_shift - 1) : 0;
  return (int32_t{x} * p.multiplier + round) >> p.left_shift;
}

}  // namespace

bool prepare_activation16(float input_scale, bool tanh, Activation16Params* params) {
  // CheckedLog2: log2 by natural logs in float, rounded; a power of two within 1e-3.
  const float log2 = logf(input_scale) * (1.0f / logf(2.0f));
  const float rounded = roundf(log2);
  const bool power_of_two = fabsf(log2 - rounded) < 1e-3f;
  const int32_t pot_shift = 12 + static_cast<int32_t>(rounded);
  if (power_of_two && (pot_shift == 0 || (tanh && pot_shift == 1))) {
    *params = Activation16Params{3 << pot_shift, 0};
    return true;
  }
  double multiplier = static_cast<double>(input_scale) * 4096.0 * 3.0;
  int32_t shift = 0;
  while (multiplier <= 32767.0 / 2.0 && shift <= 30) {
    ++shift;
    multiplier *= 2.0;
  }
  if (!(multiplier <= 32767.0)) return false;
  *params = Activation16Params{static_cast<int32_t>(multiplier), shift};
  return true;
}

uint16_t sigmoid_table16(int32_t i) { return kSigmoidTable[i]; }

int16_t logistic16_scaled(int32_t v) {
  const uint32_t a = static_cast<uint32_t>(v < 0 ? -v : v);
  const uint32_t index = a >> 9;
  uint32_t r = 0x7FFFu << 10;  // saturated
  if (index < 255) {
    const uint32_t lo = kSigmoidTable[index], hi = kSigmoidTable[index + 1];
    r = (lo << 9) + (a & 0x1FFu) * (hi - lo);
  }
  r = v >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
  return static_cast<int16_t>(r >> 10);
}

int16_t tanh16_scaled(int32_t v) {
  const uint32_t a = static_cast<uint32_t>(v < 0 ? -v : v);
  const uint32_t index = a >> 8;
  int32_t r = static_cast<int32_t>(0xFFFFu << 8);  // saturated
  if (index < 255) {
    const uint32_t lo = kSigmoidTable[index], hi = kSigmoidTable[index + 1];
    r = static_cast<int32_t>((lo << 8) + (a & 0xFFu) * (hi - lo));
  }
  r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
  return static_cast<int16_t>(r >> 8);  // arithmetic shift, as the reference's int32
}

void logistic(const Activation16Params& params, const int16_t* input, int16_t* output,
              size_t count) {
  const Activation16Params p = params;  // a local copy: output stores could alias params
  for (size_t i = 0; i < count; ++i) output[i] = logistic16_scaled(scaled(p, input[i]));
}

void tanh(const Activation16Params& params, const int16_t* input, int16_t* output, size_t count) {
  const Activation16Params p = params;
  for (size_t i = 0; i < count; ++i) output[i] = tanh16_scaled(scaled(p, input[i]));
}

}  // namespace kernels
}  // namespace mote
