// The overlap rules the kernel variants share, from their read and write order (see
// mote/kernels/overlap.h). Each computes the smallest lead that keeps every write below every
// input byte still to be read: it walks the output pixels once, tracking the lowest input byte
// that any later pixel reads. Linear in output pixels, no memory.
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

// The lowest input byte (channel 0) of the window of output pixel q (batches flattened), or
// kNoRead when the window lies in the padding.
int64_t window_start(const WindowGeometry& g, int64_t q) {
  const int64_t per_image = int64_t{g.output_h} * g.output_w;
  const int64_t b = q / per_image;
  const int32_t y = static_cast<int32_t>((q % per_image) / g.output_w);
  const int32_t x = static_cast<int32_t>(q % g.output_w);
  const int32_t iy0 = y * g.stride_h - g.pad_h;
  const int32_t ix0 = x * g.stride_w - g.pad_w;
  const int32_t ky = first_inside(iy0, g.dilation_h, g.filter_h);
  const int32_t kx = first_inside(ix0, g.dilation_w, g.filter_w);
  if (ky >= end_inside(iy0, g.dilation_h, g.filter_h, g.input_h) ||
      kx >= end_inside(ix0, g.dilation_w, g.filter_w, g.input_w)) {
    return kNoRead;
  }
  const int64_t iy = iy0 + int64_t{ky} * g.dilation_h;
  const int64_t ix = ix0 + int64_t{kx} * g.dilation_w;
  return ((b * g.input_h + iy) * g.input_w + ix) * g.input_c;
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

}  // namespace

OverlapRule window_raster_overlap(const WindowGeometry& g) {
  if (!valid(g)) return kNoOverlap;
  const int64_t co = g.output_c;
  const int64_t m = g.output_c / g.input_c;
  const int64_t pixels = int64_t{g.batches} * g.output_h * g.output_w;
  int64_t lead = INT64_MIN;
  int64_t later = kNoRead;  // lowest input byte read by the pixels after q
  for (int64_t q = pixels - 1; q >= 0; --q) {
    const int64_t start = window_start(g, q);
    // Pixel q written whole: nothing below `later` is needed any more.
    if (later != kNoRead) lead = max64(lead, (q + 1) * co - later);
    // Channel k of pixel q written while channels above k (reading input channel (k + 1) / m
    // and up) are still to come; k = co - 2 is the tightest.
    if (start != kNoRead && co >= 2) lead = max64(lead, q * co + co - 1 - (start + (co - 1) / m));
    later = min64(later, start);
  }
  return finish(lead, int64_t{g.batches} * g.input_h * g.input_w * g.input_c);
}

OverlapRule window_group_overlap(const WindowGeometry& g, const PixelGroups& groups,
                                 int32_t channel_block) {
  if (!valid(g) || g.output_c != g.input_c || channel_block <= 0 || groups.size <= 0) {
    return kNoOverlap;
  }
  const int64_t co = g.output_c;
  const bool blocks_after = co > channel_block;  // a block written while later blocks are read
  int64_t lead = INT64_MIN;
  int64_t later = kNoRead;  // lowest input byte read by the groups after the current one
  // Groups walked backwards: the one holding column x starts at x0.
  for (int64_t row = int64_t{g.batches} * g.output_h - 1; row >= 0; --row) {
    for (int32_t x = g.output_w - 1; x >= 0;) {
      int32_t x0 = x;
      if (x >= groups.first && x <= groups.last) {
        x0 = groups.first + (x - groups.first) / groups.size * groups.size;
      }
      const int64_t q0 = row * g.output_w + x0;
      const int64_t n = x - x0 + 1;
      int64_t start = kNoRead;  // the group's lowest read
      for (int64_t k = 0; k < n; ++k) start = min64(start, window_start(g, q0 + k));
      // The group written whole: nothing below `later` is needed any more.
      if (later != kNoRead) lead = max64(lead, (q0 + n) * co - later);
      // A channel block c of the group's last pixel written while block c + 1 of its first
      // reading pixel is still to be read: (q0 + n - 1) * co + c + block <= start + c + block.
      if (start != kNoRead && blocks_after) lead = max64(lead, (q0 + n - 1) * co - start);
      later = min64(later, start);
      x = x0 - 1;
    }
  }
  return finish(lead, int64_t{g.batches} * g.input_h * g.input_w * g.input_c);
}

OverlapRule pointwise_block_overlap(const ConvShape& s, int32_t block, int32_t tail) {
  if (s.batches <= 0 || s.output_h <= 0 || s.output_w <= 0 || s.output_c <= 0 || s.input_c <= 0 ||
      block <= 0) {
    return kNoOverlap;
  }
  const int64_t ci = s.input_c, co = s.output_c;
  const int64_t pixels = int64_t{s.output_h} * s.output_w;
  const int64_t image = int64_t{s.input_h} * s.input_w * ci;
  int64_t lead = INT64_MIN;
  for (int64_t b = 0; b < s.batches; ++b) {
    for (int64_t p = 0; p < pixels; p += block) {
      const int64_t n = min64(block, pixels - p);
      const int64_t y = p / s.output_w, x = p % s.output_w;
      const int64_t first_read = b * image + (y * s.stride_h * s.input_w + x * s.stride_w) * ci;
      // Before the block's last read it has written all but its top `tail` bytes; the block's
      // own first input pixel is still needed then (and is the lowest byte still needed).
      const int64_t written = (b * pixels + p + n) * co - tail;
      lead = max64(lead, written - first_read);
    }
  }
  return finish(lead, int64_t{s.batches} * image);
}

OverlapRule im2col_block_overlap(const ConvShape& s, int32_t block) {
  if (s.filter_c != s.input_c || block <= 0) return kNoOverlap;  // grouped: read per group
  const WindowGeometry g = conv_geometry(s);
  if (!valid(g) || s.output_c <= 0) return kNoOverlap;
  const int64_t co = s.output_c;
  const int64_t per_image = int64_t{s.output_h} * s.output_w;
  int64_t lead = INT64_MIN;
  int64_t later = kNoRead;
  // Blocks restart at each image; walk them backwards, `later` the lowest byte the blocks after
  // the current one read.
  for (int64_t b = s.batches - 1; b >= 0; --b) {
    const int64_t last_block = (per_image - 1) / block * block;
    for (int64_t p = last_block; p >= 0; p -= block) {
      const int64_t n = min64(block, per_image - p);
      const int64_t end = (b * per_image + p + n) * co;
      if (later != kNoRead) lead = max64(lead, end - later);
      for (int64_t k = 0; k < n; ++k) later = min64(later, window_start(g, b * per_image + p + k));
    }
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
