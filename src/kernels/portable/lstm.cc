#include "mote/kernels/lstm.h"

#include "mote/kernels/quantization.h"

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

inline int16_t sat16(int32_t v) {
  return static_cast<int16_t>(v < -32768 ? -32768 : (v > 32767 ? 32767 : v));
}

// Both fully connected layers of one gate for output unit `o`, summed and saturated (Q3.12).
int16_t gate_pre_activation(const LstmParams& p, const LstmGateParams& g, int32_t o,
                            const int8_t* x, const int8_t* h) {
  const int8_t* wi = g.input_weights + static_cast<size_t>(o) * p.input_size;
  int32_t acc = g.bias != nullptr ? g.bias[o] : 0;
  for (int32_t k = 0; k < p.input_size; ++k) acc += wi[k] * (x[k] + p.input_offset);
  const int16_t from_input =
      sat16(multiply_by_quantized_multiplier(acc, g.input_multiplier, g.input_shift));
  const int8_t* wh = g.hidden_weights + static_cast<size_t>(o) * p.hidden_size;
  int32_t rec = 0;
  for (int32_t k = 0; k < p.hidden_size; ++k) rec += wh[k] * (h[k] - p.hidden_zero_point);
  const int16_t from_hidden =
      sat16(multiply_by_quantized_multiplier(rec, g.hidden_multiplier, g.hidden_shift));
  return sat16(int32_t{from_input} + from_hidden);
}

int64_t max_abs_bias(const LstmGateParams& g, int32_t n) {
  int64_t m = 0;
  if (g.bias == nullptr) return 0;
  for (int32_t i = 0; i < n; ++i) {
    const int64_t v = g.bias[i] < 0 ? -int64_t{g.bias[i]} : g.bias[i];
    m = v > m ? v : m;
  }
  return m;
}

}  // namespace

uint16_t lstm_sigmoid_table(int32_t i) { return kSigmoidTable[i]; }

int16_t lstm_logistic16(int16_t x) {
  const int32_t v = int32_t{x} * 3;
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

int16_t lstm_tanh16(int16_t x, int32_t input_left_shift) {
  const int32_t s = input_left_shift;
  const int32_t v = s >= 0 ? int32_t{x} * (3 << s) : (int32_t{x} * 3 + (1 << (-s - 1))) >> -s;
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

void lstm_reset_state(const LstmParams& p, int8_t* hidden_state, int16_t* cell_state) {
  const size_t n = static_cast<size_t>(p.batch_size) * static_cast<size_t>(p.hidden_size);
  for (size_t i = 0; i < n; ++i) {
    hidden_state[i] = static_cast<int8_t>(p.hidden_zero_point);
    cell_state[i] = 0;
  }
}

size_t lstm_scratch_bytes(const LstmParams& p) {
  return p.hidden_size > 0 ? static_cast<size_t>(kLstmGates) * p.hidden_size * sizeof(int16_t) : 0;
}

bool lstm_params_ok(const LstmParams& p) {
  if (p.batch_size < 1 || p.time_steps < 1 || p.input_size < 1 || p.hidden_size < 1) return false;
  if (p.input_offset < -127 || p.input_offset > 128) return false;
  if (p.hidden_zero_point < -128 || p.hidden_zero_point > 127) return false;
  if (p.cell_clip < 0 || p.cell_clip > 32767) return false;
  const int64_t cell_tanh_shift = int64_t{15} + p.cell_scale_power - 3;
  if (cell_tanh_shift < -31 || cell_tanh_shift > 14) return false;
  constexpr int64_t kLimit = 2147483647;
  for (const LstmGateParams& g : p.gates) {
    if (g.input_weights == nullptr || g.hidden_weights == nullptr) return false;
    const int64_t input_bound = max_abs_bias(g, p.hidden_size) + int64_t{p.input_size} * 255 * 128;
    const int64_t hidden_bound = int64_t{p.hidden_size} * 255 * 128;
    if (!requant_fits(input_bound, g.input_multiplier, g.input_shift, kLimit) ||
        !requant_fits(hidden_bound, g.hidden_multiplier, g.hidden_shift, kLimit)) {
      return false;
    }
  }
  // Products of two Q0.15 / Q3.12 int16 values: |x| <= 2^30.
  constexpr int64_t kProduct = int64_t{1} << 30;
  return requant_fits(kProduct, p.forget_to_cell_multiplier, p.forget_to_cell_shift, kLimit) &&
         requant_fits(kProduct, p.input_to_cell_multiplier, p.input_to_cell_shift, kLimit) &&
         requant_fits(kProduct, p.output_multiplier, p.output_shift, kLimit);
}

void lstm(const LstmParams& p, const int8_t* input, int8_t* hidden_state, int16_t* cell_state,
          int8_t* output, Scratch scratch) {
  const int32_t n = p.hidden_size;
  int16_t* gate[kLstmGates];
  for (int32_t k = 0; k < kLstmGates; ++k) {
    gate[k] = reinterpret_cast<int16_t*>(scratch.data) + static_cast<size_t>(k) * n;
  }
  const int32_t cell_tanh_shift = 15 + p.cell_scale_power - 3;
  for (int32_t t = 0; t < p.time_steps; ++t) {
    for (int32_t b = 0; b < p.batch_size; ++b) {
      const size_t row = p.time_major ? static_cast<size_t>(t) * p.batch_size + b
                                      : static_cast<size_t>(b) * p.time_steps + t;
      const int8_t* x = input + row * p.input_size;
      int8_t* h = hidden_state + static_cast<size_t>(b) * n;
      int16_t* c = cell_state + static_cast<size_t>(b) * n;
      // Every gate reads the previous hidden state, so all of them first.
      for (int32_t g = 0; g < kLstmGates; ++g) {
        for (int32_t o = 0; o < n; ++o) {
          const int16_t pre = gate_pre_activation(p, p.gates[g], o, x, h);
          gate[g][o] = g == kLstmCellGate ? lstm_tanh16(pre, 0) : lstm_logistic16(pre);
        }
      }
      int8_t* y = output + row * n;
      for (int32_t o = 0; o < n; ++o) {
        int32_t cell = sat16(multiply_by_quantized_multiplier(
            int32_t{gate[kLstmForgetGate][o]} * c[o], p.forget_to_cell_multiplier,
            p.forget_to_cell_shift));
        const int16_t update = sat16(multiply_by_quantized_multiplier(
            int32_t{gate[kLstmInputGate][o]} * gate[kLstmCellGate][o], p.input_to_cell_multiplier,
            p.input_to_cell_shift));
        cell = sat16(cell + update);
        if (p.cell_clip > 0) {
          cell = cell < -p.cell_clip ? -p.cell_clip : (cell > p.cell_clip ? p.cell_clip : cell);
        }
        c[o] = static_cast<int16_t>(cell);
        const int16_t squashed = lstm_tanh16(static_cast<int16_t>(cell), cell_tanh_shift);
        int32_t v = multiply_by_quantized_multiplier(
            int32_t{squashed} * gate[kLstmOutputGate][o], p.output_multiplier, p.output_shift);
        v += p.hidden_zero_point;
        v = v < -128 ? -128 : (v > 127 ? 127 : v);
        h[o] = static_cast<int8_t>(v);
        y[o] = static_cast<int8_t>(v);
      }
    }
  }
}

}  // namespace kernels
}  // namespace mote
