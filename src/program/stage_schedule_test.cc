// The schedule's closed forms of a window's first and last input row against the row kernels'
// window_input_rows (the definition the kernels and the loader's ring checks rest on) and of an
// upsampling member's against the nearest-neighbour kernel's rule and of a bilinear member's
// against TFLite's bilinear rule, and the entries a program writes its calls as.

#include "program/stage_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mote/kernels/resize_bilinear.h"
#include "mote/kernels/resize_nearest_neighbor.h"

namespace mote::program {
namespace {

TEST(StageSchedule, WindowRowsMatchTheRowKernels) {
  int checked = 0, empty = 0;
  for (int16_t filter = 1; filter <= 6; ++filter) {
    for (int16_t stride = 1; stride <= 3; ++stride) {
      for (int16_t pad = 0; pad <= 7; ++pad) {
        for (int16_t dilation = 1; dilation <= 4; ++dilation) {
          for (int32_t rows = 1; rows <= 12; ++rows) {
            const StageRowReach r{filter, stride, pad, dilation, 0, 0, 0};
            for (int32_t y = 0; y <= 16; ++y) {
              const kernels::RowRange w =
                  kernels::window_input_rows(rows, filter, stride, pad, dilation, y, y + 1);
              const bool inside = w.count() > 0;
              ASSERT_EQ(stage_first_read(r, y, rows), inside ? w.first : kNoRow)
                  << "filter " << filter << " stride " << stride << " pad " << pad
                  << " dilation " << dilation << " rows " << rows << " y " << y;
              ASSERT_EQ(stage_last_read(r, y, rows), inside ? w.end - 1 : -1)
                  << "filter " << filter << " stride " << stride << " pad " << pad
                  << " dilation " << dilation << " rows " << rows << " y " << y;
              ++checked;
              empty += inside ? 0 : 1;
            }
          }
        }
      }
    }
  }
  // Windows in the padding above, below and between dilated taps were all among them.
  EXPECT_GT(empty, 1000);
  EXPECT_EQ(checked, 6 * 3 * 8 * 4 * 12 * 17);
}

// An upsampling reach reads for output row y the input row TFLite's nearest-neighbour rule
// reads for an integer factor without align_corners (half-pixel centres or not): y / factor.
TEST(StageSchedule, UpsampledRowsMatchTheNearestNeighbourRule) {
  int checked = 0;
  for (int32_t factor = 2; factor <= 5; ++factor) {
    StageRowReach r{};
    ASSERT_TRUE(stage_upsample_reach(factor, &r));
    for (int32_t rows = 1; rows <= 40; ++rows) {
      for (const bool half_pixel : {false, true}) {
        for (int32_t y = 0; y < rows * factor; ++y) {
          const int32_t in_y =
              kernels::nearest_neighbor_index(y, rows, rows * factor, false, half_pixel);
          ASSERT_EQ(stage_first_read(r, y, rows), in_y) << factor << " " << rows << " " << y;
          ASSERT_EQ(stage_last_read(r, y, rows), in_y) << factor << " " << rows << " " << y;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 2 * (2 + 3 + 4 + 5) * (40 * 41 / 2));
  StageRowReach r{};
  EXPECT_FALSE(stage_upsample_reach(1, &r));
  EXPECT_FALSE(stage_upsample_reach(128, &r));
}

// A bilinear reach reads for output row y exactly the two input rows TFLite's
// ResizeBilinearInteger reads (written here from its definition, in int64): the floor and the
// ceiling of y * scale (+ scale / 2 - 512 with half-pixel centres), in 1/1024 rows, clamped;
// every flag, upsampling by integer and other factors, downsampling.
TEST(StageSchedule, BilinearRowsMatchTflitesRule) {
  int checked = 0;
  for (int32_t in = 1; in <= 24; ++in) {
    for (int32_t out = 1; out <= 60; ++out) {
      for (const int option : {0, 1, 2}) {  // none, align_corners, half_pixel_centers
        const bool align = option == 1, half = option == 2;
        const int64_t scale = align && out > 1 ? (1024 * int64_t{in - 1} + (out - 1) / 2) / (out - 1)
                                               : (1024 * int64_t{in} + out / 2) / out;
        const kernels::ResizeBilinearParams p =
            kernels::prepare_resize_bilinear(1, in, 1, 1, out, 1, align, half);
        ASSERT_EQ(p.scale_h_10, scale);
        StageRowReach r{};
        ASSERT_TRUE(stage_bilinear_reach(p.scale_h_10, half, &r));
        for (int32_t y = 0; y < out; ++y) {
          const int64_t pos = half ? y * scale + scale / 2 - 512 : y * scale;
          const int64_t lower = std::min<int64_t>(std::max<int64_t>(pos / 1024, 0), in - 1);
          const int64_t upper = std::min<int64_t>((pos + 1023) / 1024, in - 1);
          ASSERT_EQ(stage_first_read(r, y, in), lower) << in << " -> " << out << " " << option;
          ASSERT_EQ(stage_last_read(r, y, in), upper) << in << " -> " << out << " " << option;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 24 * 3 * (60 * 61 / 2));
  StageRowReach r{};
  EXPECT_TRUE(stage_bilinear_reach(0, false, &r));  // one input row for all
  EXPECT_FALSE(stage_bilinear_reach(-1, false, &r));
  EXPECT_FALSE(stage_bilinear_reach(32768, true, &r));
}

// A bilinear x2 member after a pointwise one holds two rows of its input in the ring, with
// half-pixel centres or not: output row 2j + 1 reads rows j and j + 1 (j - 1 and j for row 2j
// with half-pixel centres), never three.
TEST(StageSchedule, BilinearUpsamplingHoldsTwoRows) {
  for (const bool half : {false, true}) {
    StageRowReach bilinear{};
    ASSERT_TRUE(stage_bilinear_reach(512, half, &bilinear));
    const StageRowReach pointwise{1, 1, 0, 1, 0, 0, 0};
    const StageRead reads[2] = {{10, -1, 8, pointwise}, {11, 0, 8, bilinear}};
    const StageMember members[2] = {{11, 8, 1, &reads[0]}, {12, 16, 1, &reads[1]}};
    struct Rows : StageReplay {
      int32_t rows[2] = {};
      void call(int32_t m, int32_t begin, int32_t end) {
        EXPECT_EQ(begin, rows[m]) << "member " << m;
        rows[m] = end;
      }
    } replay;
    replay.members = members;
    replay.n = 2;
    StageSchedule<Rows>(members, 2, replay).run();
    EXPECT_EQ(replay.held[0], 2) << half;
    EXPECT_EQ(replay.rows[0], 8);
    EXPECT_EQ(replay.rows[1], 16);
  }
}

// A call is one entry, a run longer than twelve bits of rows several; member and rows read back.
TEST(StageSchedule, CallEntriesSplitLongRuns) {
  const auto entries = [](int32_t m, int32_t begin, int32_t end) {
    std::vector<uint16_t> out;
    stage_call_entries(m, begin, end, [&](uint16_t e) { out.push_back(e); });
    return out;
  };
  EXPECT_EQ(entries(0, 5, 6), std::vector<uint16_t>{1});
  EXPECT_EQ(entries(15, 0, 2), std::vector<uint16_t>{0xF002});
  EXPECT_EQ(entries(3, 0, 10000),
            (std::vector<uint16_t>{0x3FFF, 0x3FFF, static_cast<uint16_t>(0x3000 | 1810)}));
  EXPECT_EQ(entries(2, 7, 7), std::vector<uint16_t>{});
  int32_t rows = 0;
  for (uint16_t e : entries(9, 100, 20000)) {
    EXPECT_EQ(stage_call_member(e), 9);
    EXPECT_GT(stage_call_rows(e), 0);
    rows += stage_call_rows(e);
  }
  EXPECT_EQ(rows, 19900);
}

// A replay's ring sizes and lead: a 3x3 conv, a 3x3 stride-2 conv and a 1x1 over an 8-row input
// (tensor 10), so each ring is read by one later member only and the input by the first. The
// replay asks who reads each tensor once; the figures are those of asking every member.
TEST(StageSchedule, ReplayFindsRingRowsAndLead) {
  const StageRowReach conv3{3, 1, 1, 1, 0, 0, 0}, conv3s2{3, 2, 1, 1, 0, 0, 0},
      pointwise{1, 1, 0, 1, 0, 0, 0};
  const StageRead reads[3] = {{10, -1, 8, conv3}, {11, 0, 8, conv3s2}, {12, 1, 4, pointwise}};
  const StageMember members[3] = {{11, 8, 1, &reads[0]}, {12, 4, 1, &reads[1]},
                                  {13, 4, 1, &reads[2]}};
  StageReplay replay;
  replay.members = members;
  replay.n = 3;
  replay.outside = 10;
  replay.outside_row_bytes = 16;
  replay.outside_bytes = 8 * 16;
  replay.output_row_bytes = 4;
  StageSchedule<StageReplay>(members, 3, replay).run();
  EXPECT_EQ(replay.held[0], 3);
  EXPECT_EQ(replay.held[1], 1);
  EXPECT_EQ(replay.output_lead(), -12);
}

// A member reading four rings (a CONCATENATION of four branches), two of them read by another
// member's 3x3 window as well: each of those rings holds the three rows the window still needs
// when the row below is written, the others one row; every member computes each row once.
TEST(StageSchedule, FourReadsOfOneMemberAndRingsOfTwoReaders) {
  const StageRowReach conv3{3, 1, 1, 1, 0, 0, 0}, pointwise{1, 1, 0, 1, 0, 0, 0};
  const StageRead reads[8] = {
      {10, -1, 8, pointwise},                                               // 0: 1x1 of the input
      {10, -1, 8, conv3},                                                   // 1: 3x3 of the input
      {11, 0, 8, conv3},                                                    // 2: 3x3 of 0
      {12, 1, 8, conv3},                                                    // 3: 3x3 of 1
      {11, 0, 8, pointwise}, {12, 1, 8, pointwise}, {13, 2, 8, pointwise},  // 4: join 0-3
      {14, 3, 8, pointwise}};
  const StageMember members[5] = {{11, 8, 1, &reads[0]}, {12, 8, 1, &reads[1]},
                                  {13, 8, 1, &reads[2]}, {14, 8, 1, &reads[3]},
                                  {15, 8, 4, &reads[4]}};
  static_assert(kMaxStageReads >= 4, "a member reads four");
  struct Rows : StageReplay {
    int32_t rows[5] = {};
    void call(int32_t m, int32_t begin, int32_t end) {
      EXPECT_EQ(begin, rows[m]) << "member " << m;
      rows[m] = end;
    }
  } replay;
  replay.members = members;
  replay.n = 5;
  StageSchedule<Rows>(members, 5, replay).run();
  EXPECT_EQ(std::vector<int32_t>(replay.held, replay.held + 4), (std::vector<int32_t>{3, 3, 1, 1}));
  EXPECT_EQ(std::vector<int32_t>(replay.rows, replay.rows + 5),
            (std::vector<int32_t>{8, 8, 8, 8, 8}));
}

}  // namespace
}  // namespace mote::program
