#include "mote/kernels/pooling.h"

#include "pool_internal.h"
#include "row_window.h"

namespace mote {
namespace kernels {
namespace {

using internal::average_of;
using internal::fill_empty_average;
using internal::for_each_window;
using internal::max32;
using internal::min32;

// TFLite's ComputeOutSize and ComputePaddingWithOffset (dilation 1).
void pool_geometry(int32_t in, int32_t filter, int32_t stride, bool same, int32_t* out,
                   int32_t* pad) {
  // In 64 bits: a hostile filter or stride near int32's top must not overflow (the checks that
  // refuse such shapes may come later).
  const int64_t o =
      same ? (int64_t{in} + stride - 1) / stride : (int64_t{in} + stride - filter) / stride;
  const int64_t total = (o - 1) * stride + filter - in;
  *out = static_cast<int32_t>(o);
  *pad = total > 0 ? static_cast<int32_t>(total / 2) : 0;
}

// for_each_window for row calls: output rows [y_begin, y_end) of one image, each output row's
// window rows looked up once in a RowTable. Calls body(window, fy0, fy1, fx0, fx1, in_x0,
// out) or empty(out). The whole-tensor kernels keep for_each_window (shared with dsp).
template <typename Body, typename Empty>
void for_each_window_rows(const PoolParams& p, internal::RowTable& rows, const internal::OutputRows& out_rows,
                          int32_t y_begin, int32_t y_end, const Body& body, const Empty& empty) {
  for (int32_t oy = y_begin; oy < y_end; ++oy) {
    const int32_t in_y0 = oy * p.stride_h - p.pad_h;
    const int32_t fy0 = max32(0, -in_y0);
    const int32_t fy1 = min32(p.filter_h, p.input_h - in_y0);
    const internal::RowTable::Window window = rows.window(oy, in_y0, 1, fy0, fy1);
    int8_t* out = out_rows.row(oy);
    for (int32_t ox = 0; ox < p.output_w; ++ox, out += p.channels) {
      const int32_t in_x0 = ox * p.stride_w - p.pad_w;
      const int32_t fx0 = max32(0, -in_x0);
      const int32_t fx1 = min32(p.filter_w, p.input_w - in_x0);
      if (fy1 > fy0 && fx1 > fx0) {
        body(window, fy0, fy1, fx0, fx1, in_x0, out);
      } else {
        empty(out);
      }
    }
  }
}

// Runs for_each_window_rows on the input's rows: a ring or the whole map.
template <typename Body, typename Empty>
void pool_rows(const PoolParams& p, const int8_t* input, RowRing input_ring, int8_t* output,
               RowRing output_ring, int32_t y_begin, int32_t y_end, const Body& body,
               const Empty& empty) {
  const ptrdiff_t in_row = static_cast<ptrdiff_t>(p.input_w) * p.channels;
  const internal::OutputRows out_rows{output, static_cast<ptrdiff_t>(p.output_w) * p.channels,
                                      output_ring.rows};
  internal::RowTable rows(input, in_row, input_ring.rows);
  for_each_window_rows(p, rows, out_rows, y_begin, y_end, body, empty);
}

bool pool_row_call_ok(const PoolParams& p, RowRing input_ring, RowRing output_ring,
                      int32_t y_begin, int32_t y_end) {
  return p.stride_h > 0 && p.stride_w > 0 && p.channels > 0 &&
         internal::row_call_ok(p.batches, p.input_h, p.output_h, p.filter_h, p.stride_h, p.pad_h,
                               1, input_ring, output_ring, y_begin, y_end);
}

}  // namespace

PoolParams prepare_pool(int32_t batches, int32_t input_h, int32_t input_w, int32_t channels,
                        int32_t filter_h, int32_t filter_w, int32_t stride_h, int32_t stride_w,
                        bool same_padding, int32_t act_min, int32_t act_max) {
  PoolParams p{};
  p.batches = batches;
  p.input_h = input_h;
  p.input_w = input_w;
  p.channels = channels;
  p.filter_h = filter_h;
  p.filter_w = filter_w;
  p.stride_h = stride_h;
  p.stride_w = stride_w;
  pool_geometry(input_h, filter_h, stride_h, same_padding, &p.output_h, &p.pad_h);
  pool_geometry(input_w, filter_w, stride_w, same_padding, &p.output_w, &p.pad_w);
  p.act_min = act_min;
  p.act_max = act_max;
  return p;
}

void portable_average_pool(const PoolParams& p, const int8_t* input, int8_t* output,
                           Scratch scratch) {
  (void)scratch;
  const int32_t row = p.input_w * p.channels;
  const int32_t image = p.input_h * row;
  for_each_window(p, output, [&](int32_t b, int32_t fy0, int32_t fy1, int32_t fx0, int32_t fx1,
                                 int32_t in_y0, int32_t in_x0, int8_t* out) {
    const int32_t count = (fy1 - fy0) * (fx1 - fx0);
    const int8_t* base = input + b * image + (in_y0 + fy0) * row + (in_x0 + fx0) * p.channels;
    for (int32_t c = 0; c < p.channels; ++c) {
      int32_t sum = 0;
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        const int8_t* src = src_row;
        for (int32_t fx = fx0; fx < fx1; ++fx, src += p.channels) sum += *src;
      }
      out[c] = average_of(sum, count, p);
    }
  }, [&](int8_t* out) { fill_empty_average(p, out); });
}

void portable_max_pool(const PoolParams& p, const int8_t* input, int8_t* output) {
  const int32_t row = p.input_w * p.channels;
  const int32_t image = p.input_h * row;
  for_each_window(p, output, [&](int32_t b, int32_t fy0, int32_t fy1, int32_t fx0, int32_t fx1,
                                 int32_t in_y0, int32_t in_x0, int8_t* out) {
    const int8_t* base = input + b * image + (in_y0 + fy0) * row + (in_x0 + fx0) * p.channels;
    for (int32_t c = 0; c < p.channels; ++c) {
      int32_t best = -128;
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        const int8_t* src = src_row;
        for (int32_t fx = fx0; fx < fx1; ++fx, src += p.channels) best = max32(best, *src);
      }
      best = max32(best, p.act_min);
      best = min32(best, p.act_max);
      out[c] = static_cast<int8_t>(best);
    }
  }, [&](int8_t* out) {
    const int8_t value = static_cast<int8_t>(min32(max32(-128, p.act_min), p.act_max));
    for (int32_t c = 0; c < p.channels; ++c) out[c] = value;
  });
}

void portable_average_pool_rows(const PoolParams& params, const int8_t* input, RowRing input_ring,
                                int8_t* output, RowRing output_ring, int32_t y_begin,
                                int32_t y_end, Scratch scratch) {
  (void)scratch;
  const PoolParams p = params;  // a local copy: output stores (int8) could alias params
  if (!pool_row_call_ok(p, input_ring, output_ring, y_begin, y_end)) return;
  pool_rows(p, input, input_ring, output, output_ring, y_begin, y_end,
            [&](const auto& window, int32_t fy0, int32_t fy1, int32_t fx0, int32_t fx1,
                int32_t in_x0, int8_t* out) {
              const int32_t count = (fy1 - fy0) * (fx1 - fx0);
              const ptrdiff_t col = static_cast<ptrdiff_t>(in_x0 + fx0) * p.channels;
              for (int32_t c = 0; c < p.channels; ++c) {
                int32_t sum = 0;
                for (int32_t fy = fy0; fy < fy1; ++fy) {
                  const int8_t* src = window.row(fy) + col + c;
                  for (int32_t fx = fx0; fx < fx1; ++fx, src += p.channels) sum += *src;
                }
                out[c] = average_of(sum, count, p);
              }
            },
            [&](int8_t* out) { fill_empty_average(p, out); });
}

void portable_max_pool_rows(const PoolParams& params, const int8_t* input, RowRing input_ring,
                            int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end) {
  const PoolParams p = params;  // a local copy: output stores (int8) could alias params
  if (!pool_row_call_ok(p, input_ring, output_ring, y_begin, y_end)) return;
  pool_rows(p, input, input_ring, output, output_ring, y_begin, y_end,
            [&](const auto& window, int32_t fy0, int32_t fy1, int32_t fx0, int32_t fx1,
                int32_t in_x0, int8_t* out) {
              const ptrdiff_t col = static_cast<ptrdiff_t>(in_x0 + fx0) * p.channels;
              for (int32_t c = 0; c < p.channels; ++c) {
                int32_t best = -128;
                for (int32_t fy = fy0; fy < fy1; ++fy) {
                  const int8_t* src = window.row(fy) + col + c;
                  for (int32_t fx = fx0; fx < fx1; ++fx, src += p.channels) best = max32(best, *src);
                }
                best = max32(best, p.act_min);
                best = min32(best, p.act_max);
                out[c] = static_cast<int8_t>(best);
              }
            },
            [&](int8_t* out) {
              const int8_t value = static_cast<int8_t>(min32(max32(-128, p.act_min), p.act_max));
              for (int32_t c = 0; c < p.channels; ++c) out[c] = value;
            });
}

bool global_average_pool_streams(const PoolParams& p) {
  return p.batches == 1 && p.input_h > 0 && p.input_w > 0 && p.channels > 0 &&
         p.filter_h == p.input_h && p.filter_w == p.input_w && p.pad_h == 0 && p.pad_w == 0 &&
         p.output_h == 1 && p.output_w == 1 &&
         int64_t{p.input_h} * p.input_w <= (int64_t{1} << 23);  // |sum| <= 2^30
}

void portable_global_average_pool_accumulate(const PoolParams& params, const int8_t* input,
                                             RowRing input_ring, int32_t y_begin, int32_t y_end,
                                             int32_t* sums) {
  const PoolParams p = params;  // a local copy: the sums (int32) could alias params
  if (!internal::accumulate_call_ok(p, sums, input_ring, y_begin, y_end)) return;
  const int32_t channels = p.channels;
  const ptrdiff_t row_bytes = static_cast<ptrdiff_t>(p.input_w) * channels;
  if (y_begin == 0) {
    for (int32_t c = 0; c < channels; ++c) sums[c] = 0;
  }
  for (int32_t y = y_begin; y < y_end; ++y) {
    const int8_t* src =
        input + static_cast<ptrdiff_t>(input_ring.slot(y)) * row_bytes;
    for (int32_t x = 0; x < p.input_w; ++x, src += channels) {
      for (int32_t c = 0; c < channels; ++c) sums[c] += src[c];
    }
  }
}

void global_average_pool_finish(const PoolParams& params, const int32_t* sums, int8_t* output) {
  const PoolParams p = params;  // a local copy: output stores (int8) could alias params
  if (!global_average_pool_streams(p) || sums == nullptr) return;
  // The whole window is inside the input: AVERAGE_POOL_2D's count is input_h * input_w.
  const int32_t count = p.input_h * p.input_w;
  for (int32_t c = 0; c < p.channels; ++c) output[c] = average_of(sums[c], count, p);
}

}  // namespace kernels
}  // namespace mote
