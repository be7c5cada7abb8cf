// The overlap rules the kernel variants share, from their read and write order (see
// mote/kernels/overlap.h). Each computes the smallest lead that keeps every write below every
// input byte still to be read, as a walk over the output pixels from the last would (tracking
// the lowest input byte that any later pixel reads), but in closed form: linear in output rows
// and columns, not in pixels, no memory. The runtime's load check computes them for every
// overlap a plan declares (overlap_test.cc holds the walks and checks they agree).
#include "mote/kernels/overlap.h"

#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "portable/conv_internal.h"

namespace mote {
namespace kernels {
namespace internal {
namespace {

constexpr int64_t kNoRead = INT64_MAX;

int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// The first input row (or column) that output row (or column) `i` of a window reads, or -1 when
// the window lies in the padding.
int64_t first_read(int32_t i, int32_t stride, int32_t pad, int32_t dilation, int32_t filter,
                   int32_t input) {
  const int32_t i0 = i * stride - pad;
  const int32_t k = first_inside(i0, dilation, filter);
  if (k >= end_inside(i0, dilation, filter, input)) return -1;
  return i0 + int64_t{k} * dilation;
}

bool valid(const WindowGeometry& g) {
  return g.batches > 0 && g.input_h > 0 && g.input_w > 0 && g.input_c > 0 && g.output_h > 0 &&
         g.output_w > 0 && g.output_c >= g.input_c && g.output_c % g.input_c == 0 &&
         g.filter_h > 0 && g.filter_w > 0 && g.stride_h > 0 && g.stride_w > 0 &&
         g.dilation_h > 0 && g.dilation_w > 0;
}

// No write ever meets a later read: any start inside the input (or before it) works.
OverlapRule finish(int64_t lead, int64_t input_bytes) {
  return {true, max64(lead, -input_bytes)};
}

WindowGeometry conv_geometry(const ConvShape& s) {
  return {s.batches,  s.input_h,  s.input_w,  s.input_c,  s.output_h,   s.output_w,
          s.input_c,  s.filter_h, s.filter_w, s.stride_h, s.stride_w,   s.pad_h,
          s.pad_w,    s.dilation_h, s.dilation_w};
}

// A sum of two maxima, each kNone when taken over nothing.
constexpr int64_t kNone = INT64_MIN;
int64_t plus(int64_t a, int64_t b) { return a == kNone || b == kNone ? kNone : a + b; }

// Every rule below is a maximum, over the output pixels q whose window reads something, of
//     q * co - window_start(q)   (plus a term of the pixel's block)
// where window_start(q) is the lowest input byte of q's window (channel 0 of its first tap).
// For q = row * output_w + x (row = b * output_h + y) that is a row part plus a column part:
//     row * output_w * co - (b * input_h + iy) * input_w * input_c  +  x * co - ix * input_c
// (iy, ix the window's first rows and columns inside), and a pixel reads something exactly when
// its row and its column do: so the maximum over pixels is the row parts' plus the columns', in
// O(rows + columns) instead of a walk over every pixel. `all` is the maximum over every row (or
// column, or group of columns) that reads something, `rest` the same without the first one.
struct Maxima {
  int64_t all = kNone;
  int64_t rest = kNone;
  void add(int64_t value, bool first) {
    all = max64(all, value);
    if (!first) rest = max64(rest, value);
  }
};

// The row parts of every row (batches included) whose windows read something.
Maxima row_parts(const WindowGeometry& g, int64_t co) {
  Maxima rows;
  const int64_t row_bytes = int64_t{g.input_w} * g.input_c;
  for (int32_t y = 0; y < g.output_h; ++y) {
    const int64_t iy = first_read(y, g.stride_h, g.pad_h, g.dilation_h, g.filter_h, g.input_h);
    if (iy < 0) continue;
    for (int64_t b = 0; b < g.batches; ++b) {
      const int64_t row = b * g.output_h + y;
      rows.add(row * g.output_w * co - (b * g.input_h + iy) * row_bytes, row == 0);
    }
  }
  return rows;
}

// The column part of column x, or kNone when its windows lie in the padding.
int64_t column_part(const WindowGeometry& g, int64_t co, int32_t x) {
  const int64_t ix = first_read(x, g.stride_w, g.pad_w, g.dilation_w, g.filter_w, g.input_w);
  return ix < 0 ? kNone : x * co - ix * g.input_c;
}

// The maximum over the pixels that read something but the first pixel of all, of row part plus
// column part (`rows` and `columns` with `rest` leaving out the first row and first column).
int64_t all_but_first(const Maxima& rows, const Maxima& columns) {
  return max64(plus(rows.rest, columns.all), plus(rows.all, columns.rest));
}

}  // namespace

// Walking the pixels from the last: pixel q written whole leaves nothing below the lowest read
// of the pixels after it needed, lead >= (q + 1) * co - window_start(q') for every q' > q, the
// largest at q = q' - 1; and channel k of pixel q is written while channels above k (reading
// input channel (k + 1) / m and up) are still to come, k = co - 2 the tightest.
OverlapRule window_raster_overlap(const WindowGeometry& g) {
  if (!valid(g)) return kNoOverlap;
  const int64_t co = g.output_c;
  const int64_t m = g.output_c / g.input_c;
  const Maxima rows = row_parts(g, co);
  Maxima columns;
  for (int32_t x = 0; x < g.output_w; ++x) {
    const int64_t part = column_part(g, co, x);
    if (part != kNone) columns.add(part, x == 0);
  }
  int64_t lead = all_but_first(rows, columns);
  const int64_t any = plus(rows.all, columns.all);
  if (any != kNone && co >= 2) lead = max64(lead, any + co - 1 - (co - 1) / m);
  return finish(lead, int64_t{g.batches} * g.input_h * g.input_w * g.input_c);
}

// The same walk over groups of pixels (a group reads from its lowest window start and is
// written whole): lead >= q0 * co - start for every group but the first (q0 its first pixel,
// the previous group ending there), and with blocks after, (q0 + n - 1) * co - start for every
// group. A group's column part: x0 * co - (its lowest first column) * input_c.
OverlapRule window_group_overlap(const WindowGeometry& g, const PixelGroups& groups,
                                 int32_t channel_block) {
  if (!valid(g) || g.output_c != g.input_c || channel_block <= 0 || groups.size <= 0) {
    return kNoOverlap;
  }
  const int64_t co = g.output_c;
  const bool blocks_after = co > channel_block;  // a block written while later blocks are read
  const Maxima rows = row_parts(g, co);
  Maxima starts;                 // x0 * co - lowest start
  int64_t ends = kNone;          // (x0 + n - 1) * co - lowest start
  for (int32_t x0 = 0; x0 < g.output_w;) {
    int32_t x1 = x0;  // the group's last column
    if (x0 >= groups.first && x0 <= groups.last) {
      x1 = static_cast<int32_t>(min64(int64_t{x0} + groups.size - 1, groups.last));
    }
    int64_t low = kNoRead;  // the lowest first column read
    for (int32_t x = x0; x <= x1; ++x) {
      const int64_t ix = first_read(x, g.stride_w, g.pad_w, g.dilation_w, g.filter_w, g.input_w);
      if (ix >= 0) low = min64(low, ix);
    }
    if (low != kNoRead) {
      const int64_t part = int64_t{x0} * co - low * g.input_c;
      starts.add(part, x0 == 0);
      ends = max64(ends, part + int64_t{x1 - x0} * co);
    }
    x0 = x1 + 1;
  }
  int64_t lead = all_but_first(rows, starts);
  if (blocks_after) lead = max64(lead, plus(rows.all, ends));
  return finish(lead, int64_t{g.batches} * g.input_h * g.input_w * g.input_c);
}

// Blocks of `block` pixels (restarting at each image): before the block's last read it has
// written all but its top `tail` bytes, and the block's own first input pixel is still needed
// then (the lowest byte still needed): lead >= (b * pixels + p + n) * co - tail - first_read for
// every block [p, p + n) of image b. The batch term and the in-image term part: the first is
// largest at the first or the last image; the second, for the block starts of one row (every
// block-th column from the first), is linear in the column but for the last block (n shorter),
// so the first, the last and the one before the last of each row decide.
OverlapRule pointwise_block_overlap(const ConvShape& s, int32_t block, int32_t tail) {
  if (s.batches <= 0 || s.output_h <= 0 || s.output_w <= 0 || s.output_c <= 0 || s.input_c <= 0 ||
      block <= 0) {
    return kNoOverlap;
  }
  const int64_t ci = s.input_c, co = s.output_c;
  const int64_t pixels = int64_t{s.output_h} * s.output_w;
  const int64_t image = int64_t{s.input_h} * s.input_w * ci;
  const int64_t per_batch = pixels * co - image;
  const int64_t batch_term = per_batch > 0 ? (s.batches - 1) * per_batch : 0;
  // The block at column x of row y.
  const auto at = [&](int64_t y, int64_t x) {
    const int64_t p = y * s.output_w + x;
    const int64_t n = min64(block, pixels - p);
    const int64_t first_read = (y * s.stride_h * s.input_w + x * s.stride_w) * ci;
    return (p + n) * co - tail - first_read;
  };
  int64_t lead = INT64_MIN;
  const int32_t row_shift = s.output_w % block;  // (y * output_w) % block from row to row
  int32_t before = 0;                            // (y * output_w) % block
  for (int64_t y = 0; y < s.output_h; ++y) {
    const int32_t first = before == 0 ? 0 : block - before;
    if (first < s.output_w) {
      const int32_t last = first + (s.output_w - 1 - first) / block * block;
      lead = max64(lead, max64(at(y, first), at(y, last)));
      if (last - block >= first) lead = max64(lead, at(y, last - block));
    }
    before += row_shift;
    if (before >= block) before -= block;
  }
  return finish(lead + batch_term, int64_t{s.batches} * image);
}

// Blocks of `block` output pixels (restarting at each image) whose columns are gathered before
// any of the block's outputs is written: walking the blocks from the last, a block written whole
// leaves nothing below the lowest read of the blocks after it needed, so lead >= B * co -
// window_start(q) for every pixel q outside the first block, B the first pixel of q's block
// (the previous block ends there): q * co - window_start(q) (row part plus column part) less
// (q's place in its block) * co. That place is (y * output_w + x) % block: rows are taken in
// classes of (y * output_w) % block, and for each class the best column (place included).
// The rows of the first image that hold the first block's pixels go pixel by pixel.
OverlapRule im2col_block_overlap(const ConvShape& s, int32_t block) {
  if (s.filter_c != s.input_c || block <= 0) return kNoOverlap;  // grouped: read per group
  const WindowGeometry g = conv_geometry(s);
  if (!valid(g) || s.output_c <= 0) return kNoOverlap;
  const int64_t co = s.output_c;
  const int64_t row_bytes = int64_t{s.input_w} * s.input_c;
  // Rows y of image 0 with y * output_w < block hold pixels of the first block.
  const int64_t pixel_rows = min64(s.output_h, (int64_t{block} - 1) / s.output_w + 1);
  int64_t lead = INT64_MIN;
  for (int64_t y = 0; y < pixel_rows; ++y) {
    const int64_t iy = first_read(static_cast<int32_t>(y), g.stride_h, g.pad_h, g.dilation_h,
                                  g.filter_h, g.input_h);
    if (iy < 0) continue;
    const int64_t row_part = y * s.output_w * co - iy * row_bytes;
    for (int32_t x = 0; x < s.output_w; ++x) {
      const int64_t p = y * s.output_w + x;
      const int64_t part = column_part(g, co, x);
      if (p < block || part == kNone) continue;
      lead = max64(lead, row_part + part - static_cast<int32_t>(p) % block * co);
    }
  }
  const int32_t row_shift = s.output_w % block;  // (y * output_w) % block from row to row
  for (int32_t place = 0; place < block; ++place) {
    // The rows of this class, but the pixel rows of image 0.
    int64_t best_row = kNone;
    int32_t row_place = 0;  // (y * output_w) % block
    for (int64_t y = 0; y < s.output_h; ++y) {
      const int64_t iy = row_place == place ? first_read(static_cast<int32_t>(y), g.stride_h,
                                                         g.pad_h, g.dilation_h, g.filter_h,
                                                         g.input_h)
                                            : -1;
      for (int64_t b = y < pixel_rows ? 1 : 0; iy >= 0 && b < s.batches; ++b) {
        const int64_t row = b * s.output_h + y;
        best_row = max64(best_row, row * s.output_w * co - (b * s.input_h + iy) * row_bytes);
      }
      row_place += row_shift;
      if (row_place >= block) row_place -= block;
    }
    if (best_row == kNone) continue;
    int64_t best_column = kNone;
    int32_t column_place = place;  // (place + x) % block
    for (int32_t x = 0; x < s.output_w; ++x) {
      const int64_t part = column_part(g, co, x);
      if (part != kNone) best_column = max64(best_column, part - column_place * co);
      if (++column_place == block) column_place = 0;
    }
    lead = max64(lead, plus(best_row, best_column));
  }
  return finish(lead, int64_t{s.batches} * s.input_h * s.input_w * s.input_c);
}

// CONV_2D: 1x1 in blocks of two pixels, two channels of both per step (dot_2x2), the last
// channel pair (or odd channel) written after the last read: at least the top byte; else im2col
// with two columns gathered first (the planned scratch holds two; grouped convolutions gather
// per group and get no rule).
OverlapRule portable_conv_overlap(const ConvShape& s) {
  if (portable_conv_scratch_bytes(s) == 0) return pointwise_block_overlap(s, 2, 1);
  return im2col_block_overlap(s, 2);
}

// DEPTHWISE_CONV_2D: one output pixel at a time, channels in blocks whose taps are all read
// before the block is written.
OverlapRule portable_depthwise_conv_overlap(const DepthwiseShape& s) {
  return window_raster_overlap({s.batches, s.input_h, s.input_w, s.input_c, s.output_h,
                                s.output_w, s.output_c, s.filter_h, s.filter_w, s.stride_h,
                                s.stride_w, s.pad_h, s.pad_w, s.dilation_h, s.dilation_w});
}

// AVERAGE_POOL_2D and MAX_POOL_2D: one output pixel at a time, one channel after another, each
// after reading its window (for_each_window).
OverlapRule portable_pool_overlap(const PoolParams& p) {
  return window_raster_overlap({p.batches, p.input_h, p.input_w, p.channels, p.output_h,
                                p.output_w, p.channels, p.filter_h, p.filter_w, p.stride_h,
                                p.stride_w, p.pad_h, p.pad_w, 1, 1});
}

}  // namespace internal

// Chunks [p, p + n) of pixels run from the last to the first, each apart from its own input:
// when chunk p runs, the input still to be read is [0, (p + n) * ci) and the output written so
// far [p * co, pixels * co) (from the output's start). The chunk's output must start at or above
// the end of its input: output_offset + p * co >= input_offset + (p + n) * ci, for every chunk
// (which also keeps every earlier write above every later read). Linear in p for chunks of one
// size: in each run of equal chunks the first, the last full one and a shorter last one decide.
OverlapRule conv_backward_overlap(const ConvShape& s) {
  if (!conv_runs_backward(s)) return kNoOverlap;
  const int64_t pixels = int64_t{s.batches} * s.output_h * s.output_w;
  const BackwardChunks chunks = conv_backward_chunks(s);
  const int64_t ci = s.input_c, co = s.output_c;
  const auto need = [&](int64_t p, int64_t n) { return (p + n) * ci - p * co; };
  int64_t lead = INT64_MIN;
  // Chunks of `size` pixels from `begin` up to `end`.
  const auto run = [&](int64_t begin, int64_t end, int64_t size) {
    if (end <= begin) return;
    const int64_t full = (end - begin) / size;
    if (full > 0) {
      lead = internal::max64(lead, need(begin, size));
      lead = internal::max64(lead, need(begin + (full - 1) * size, size));
    }
    if ((end - begin) % size != 0) lead = internal::max64(lead, need(begin + full * size, (end - begin) % size));
  };
  const int64_t split = internal::min64(chunks.split, pixels);
  run(0, split, kBackwardFirstChunk);
  run(split, pixels, chunks.block);
  OverlapRule rule{true, lead};
  rule.backward = true;
  return rule;
}

OverlapRule depthwise_conv_in_place_overlap(const DepthwiseShape& s) {
  if (!depthwise_conv_runs_in_place(s)) return kNoOverlap;
  OverlapRule rule{true, 0};
  rule.exact = true;
  return rule;
}

}  // namespace kernels
}  // namespace mote
