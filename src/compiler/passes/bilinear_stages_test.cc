// RESIZE_BILINEAR (the upsampling of FPN and segmentation heads) in row-streamed stages, end to
// end: a top-down merge (a map pooled, upsampled x2 and added to its lateral map) and an
// upsampling by 1.5 joined to a lateral map, for each of TFLite's flag choices (neither,
// align_corners, half_pixel_centers), compiled for a scalar, a DSP and an MVE CPU, streamed and
// not, run on the host and compared; the loader refuses a RESIZE_BILINEAR member's words changed;
// what cannot stream (a batch of two, a source step beyond the schedule's int16) stays out.

#include <gtest/gtest.h>

#include "compiler/builder/model_builder.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/row_stages.h"
#include "compiler/passes/stage_members_testing.h"
#include "mote/schema/mote_generated.h"

namespace mote::passes {
namespace {

using builder::ModelBuilder;
using builder::TensorId;
using ir::Activation;
using ir::OpType;
using ir::Padding;
using testing::reach_of;

struct Flags {
  bool align_corners, half_pixel_centers;
};
constexpr Flags kFlags[] = {{false, false}, {true, false}, {false, true}};

std::string name(const Flags& f) {
  return f.align_corners ? "align_corners" : f.half_pixel_centers ? "half_pixel_centers" : "none";
}

// conv 3x3 stride 2 -> conv 3x3 -> (max pool 2x2 -> RESIZE_BILINEAR x2) -> ADD with the conv's
// map -> conv 3x3: an FPN top-down path merged with its lateral map, the upsampled rows and the
// lateral map both held as rings. With align_corners the step is 11/23 of a row, not a half.
ir::Graph top_down_add(const Flags& f) {
  ModelBuilder b(47);
  const TensorId x = b.add_input({1, 48, 40, 8}, ir::DataType::kInt8, 0.02f, 3);
  const TensorId c = b.add_conv2d(x, 16, 3, 3, 2, Padding::kSame, Activation::kRelu);
  const TensorId fine = b.add_conv2d(c, 16, 3, 3, 1, Padding::kSame, Activation::kRelu);
  const TensorId up = b.add_resize_bilinear(b.add_max_pool(fine, 2, 2, 2), 24, 20,
                                            f.align_corners, f.half_pixel_centers);
  b.mark_output(b.add_conv2d(b.add_add(up, fine), 16, 3, 3));
  return b.build();
}

// conv 3x3 (24 rows, 32 channels) -> max pool 3x3 stride 3 (8 rows) -> RESIZE_BILINEAR to 12 rows
// (x1.5, the width 6 -> 9) -> CONCATENATION with a max pool 2x2 stride 2 of the conv (12 rows) ->
// conv 3x3: a non-integer scale, whose output rows read input rows in an uneven pattern.
ir::Graph upsample_by_one_and_a_half(const Flags& f) {
  ModelBuilder b(53);
  const TensorId x = b.add_input({1, 24, 18, 4}, ir::DataType::kInt8, 0.02f, -4);
  const TensorId c = b.add_conv2d(x, 32, 3, 3, 1, Padding::kSame, Activation::kRelu);
  const TensorId lateral = b.add_max_pool(c, 2, 2, 2);
  const TensorId up = b.add_resize_bilinear(b.add_max_pool(c, 3, 3, 3), 12, 9, f.align_corners,
                                            f.half_pixel_centers);
  b.mark_output(b.add_conv2d(b.add_concatenation({up, lateral}, 3), 8, 3, 3));
  return b.build();
}

TEST(BilinearStages, TopDownAddStreamsInLessArenaAndComputesTheSame) {
  for (const Flags& f : kFlags) {
    SCOPED_TRACE(name(f));
    testing::expect_streams_the_same(top_down_add(f),
                                     {{OpType::kResizeBilinear, 1}, {OpType::kAdd, 1}});
  }
}

TEST(BilinearStages, UpsamplingByOneAndAHalfStreamsInLessArenaAndComputesTheSame) {
  for (const Flags& f : kFlags) {
    SCOPED_TRACE(name(f));
    testing::expect_streams_the_same(upsample_by_one_and_a_half(f),
                                     {{OpType::kResizeBilinear, 1}, {OpType::kConcatenation, 1}});
  }
}

// The runtime reads a RESIZE_BILINEAR member's sizes, steps, rule and rings from its words: each
// changed is refused.
TEST(BilinearStages, BilinearMembersWordsAreChecked) {
  for (const Flags& f : kFlags) {
    SCOPED_TRACE(name(f));
    EXPECT_EQ(testing::expect_member_words_checked(top_down_add(f),
                                                   {schema::OpKind::ResizeBilinear}),
              1);
    EXPECT_EQ(testing::expect_member_words_checked(upsample_by_one_and_a_half(f),
                                                   {schema::OpKind::ResizeBilinear}),
              1);
  }
}

// The reach is the kernel's source step along H (TFLite's 10-bit fixed point) with the
// half-pixel rule: x2 is 512, 8 -> 12 is 683, align_corners 12 -> 24 is 490 and 8 -> 12 is
// 652.
TEST(BilinearStages, ReachIsTheKernelsSourceStep) {
  const auto step = [](const ir::Graph& g) {
    for (size_t k = 0; k < g.operators.size(); ++k) {
      if (g.operators[k].type != OpType::kResizeBilinear) continue;
      const std::optional<ops::RowReach> r = reach_of(g, k);
      EXPECT_TRUE(r.has_value() && r->bilinear_step.has_value());
      if (!r || !r->bilinear_step) return -1;
      EXPECT_EQ(r->upsample, 0);
      EXPECT_EQ(r->half_pixel_centers,
                std::get<ir::ResizeNearestNeighborOptions>(g.operators[k].options)
                    .half_pixel_centers);
      return *r->bilinear_step;
    }
    return -2;
  };
  EXPECT_EQ(step(top_down_add({false, false})), 512);
  EXPECT_EQ(step(top_down_add({false, true})), 512);
  EXPECT_EQ(step(top_down_add({true, false})), 490);
  EXPECT_EQ(step(upsample_by_one_and_a_half({false, false})), 683);
  EXPECT_EQ(step(upsample_by_one_and_a_half({true, false})), 652);
}

// A batch of two has no rows of one image to stream; a source step of 32 rows or more (40 rows
// down to 1) does not fit the schedule's int16 numbers. A downsampling by 2 and a resize of W
// alone do stream.
TEST(BilinearStages, WhatCannotStreamStaysOut) {
  ModelBuilder b(5);
  const TensorId x = b.add_input({1, 40, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);               // op 0
  const TensorId one = b.add_resize_bilinear(c, 1, 10);                          // op 1
  const TensorId corners = b.add_resize_bilinear(c, 1, 10, true);                // op 2
  const TensorId down = b.add_resize_bilinear(c, 20, 10, false, true);           // op 3
  const TensorId wide = b.add_resize_bilinear(b.add_conv2d(down, 8, 1, 1), 20, 15);  // ops 4, 5
  b.mark_output(one);
  b.mark_output(corners);
  b.mark_output(wide);
  ModelBuilder batched(7);
  const TensorId bx = batched.add_input({2, 12, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  batched.mark_output(
      batched.add_resize_bilinear(batched.add_conv2d(bx, 8, 3, 3, 1, Padding::kSame), 24, 20));
  const ir::Graph g = b.build(), two = batched.build();
  EXPECT_FALSE(reach_of(g, 1).has_value());  // step 40 * 1024
  EXPECT_FALSE(reach_of(g, 2).has_value());  // align_corners to one row: 40 * 1024 as well
  ASSERT_TRUE(reach_of(g, 3).has_value());   // 40 -> 20
  EXPECT_EQ(reach_of(g, 3)->bilinear_step, 2048);
  ASSERT_TRUE(reach_of(g, 5).has_value());   // 20 -> 20: row y for row y
  EXPECT_EQ(reach_of(g, 5)->bilinear_step, 1024);
  EXPECT_FALSE(row_stage(g, 0, 1).has_value());
  EXPECT_TRUE(row_stage(g, 4, 5).has_value());
  EXPECT_FALSE(reach_of(two, 1).has_value());
  EXPECT_FALSE(row_stage(two, 0, 1).has_value());
}

}  // namespace
}  // namespace mote::passes
