// STRIDED_SLICE of an int8 tensor by constant begin, end and strides, with TFLite's five masks
// (begin, end, ellipsis, new axis, shrink axis) and negative strides, up to 5 dimensions. The
// compiler resolves the masks into a first index, a step and a count per input dimension (the
// program's SliceOptions); the runtime walks them with the strided-copy kernel.
#include "compiler/ops/strided_slice.h"

#include <algorithm>
#include <limits>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {

namespace {

bool bit(int32_t mask, size_t i) { return i < 31 && ((mask >> i) & 1) != 0; }

// TFLite's index rules for one input dimension of size `size` (StartForAxis, StopForAxis):
// masked ends take the whole range in the stride's direction, negative indices count from the
// end, and both are clamped to the dimension.
int64_t clamp_index(int64_t v, int64_t size, int64_t stride) {
  if (v < 0) v += size;
  return stride > 0 ? std::clamp<int64_t>(v, 0, size) : std::clamp<int64_t>(v, -1, size - 1);
}

}  // namespace

std::string resolve_strided_slice(const std::vector<int32_t>& input_shape,
                                  const std::vector<int32_t>& begin,
                                  const std::vector<int32_t>& end,
                                  const std::vector<int32_t>& strides,
                                  const ir::StridedSliceOptions& o, ResolvedSlice* out) {
  *out = ResolvedSlice{};
  const size_t rank = input_shape.size();
  const size_t n = begin.size();
  if (end.size() != n || strides.size() != n) {
    return "begin, end and strides hold " + std::to_string(begin.size()) + ", " +
           std::to_string(end.size()) + " and " + std::to_string(strides.size()) +
           " values; expected as many";
  }
  if (rank > kMaxSliceRank) {
    return "input has rank " + std::to_string(rank) + "; TFLite's kernel slices at most " +
           std::to_string(kMaxSliceRank) + " dimensions";
  }
  if (o.offset) return "offset (end relative to begin) is not supported";
  int ellipses = 0;
  size_t real = 0;  // entries that consume an input dimension
  for (size_t i = 0; i < n; ++i) {
    if (bit(o.ellipsis_mask, i)) {
      ++ellipses;
      if (bit(o.new_axis_mask, i) || bit(o.shrink_axis_mask, i)) {
        return "entry " + std::to_string(i) + " is an ellipsis and a new or shrunk axis";
      }
    } else if (bit(o.new_axis_mask, i)) {
      if (bit(o.shrink_axis_mask, i)) {
        return "entry " + std::to_string(i) + " is both a new axis and a shrunk axis";
      }
    } else {
      ++real;
    }
  }
  if (ellipses > 1) return "ellipsis_mask has more than one bit set";
  if (real > rank) {
    return std::to_string(real) + " slice entries for an input of rank " + std::to_string(rank);
  }
  // Without an ellipsis the dimensions after the last entry are taken whole (an ellipsis at the
  // end).
  const size_t expanded = rank - real;
  size_t d = 0;
  auto whole = [&]() {
    out->begin.push_back(0);
    out->stride.push_back(1);
    out->count.push_back(input_shape[d]);
    out->output_shape.push_back(input_shape[d]);
    ++d;
  };
  for (size_t i = 0; i < n; ++i) {
    if (bit(o.ellipsis_mask, i)) {
      for (size_t e = 0; e < expanded; ++e) whole();
      continue;
    }
    if (bit(o.new_axis_mask, i)) {
      out->output_shape.push_back(1);
      continue;
    }
    const int64_t size = input_shape[d];
    const int64_t stride = strides[i];
    if (stride == 0) return "strides[" + std::to_string(i) + "] is 0";
    const bool shrink = bit(o.shrink_axis_mask, i);
    int64_t start = bit(o.begin_mask, i) ? (stride > 0 ? std::numeric_limits<int32_t>::min()
                                                       : std::numeric_limits<int32_t>::max())
                                         : begin[i];
    if (shrink) {
      // One element at begin; the end does not matter. Out-of-range begins and reversed strides
      // would make TFLite's loop read nothing while the shape drops the dimension.
      if (stride < 0) return "shrink_axis entry " + std::to_string(i) + " has a negative stride";
      if (!bit(o.begin_mask, i) && (start < -size || start >= size)) {
        return "shrink_axis entry " + std::to_string(i) + " begin " + std::to_string(begin[i]) +
               " is outside dimension " + std::to_string(d) + " of size " + std::to_string(size);
      }
    }
    start = clamp_index(start, size, stride);
    int64_t count = 1;
    if (!shrink) {
      const int64_t stop = clamp_index(
          bit(o.end_mask, i) ? (stride > 0 ? std::numeric_limits<int32_t>::max()
                                           : std::numeric_limits<int32_t>::min())
                             : end[i],
          size, stride);
      const int64_t span = stride > 0 ? stop - start : start - stop;
      const int64_t step = stride > 0 ? stride : -stride;
      count = span > 0 ? (span + step - 1) / step : 0;
    }
    if (count == 0) {
      return "dimension " + std::to_string(d) + " of the slice is empty (empty outputs are not "
             "supported)";
    }
    out->begin.push_back(static_cast<int32_t>(start));
    out->stride.push_back(static_cast<int32_t>(stride));
    out->count.push_back(static_cast<int32_t>(count));
    if (!shrink) out->output_shape.push_back(static_cast<int32_t>(count));
    ++d;
  }
  if (ellipses == 0) {
    while (d < rank) whole();
  }
  return "";
}

std::string resolve_slice(const std::vector<int32_t>& input_shape,
                          const std::vector<int32_t>& begin, const std::vector<int32_t>& size,
                          ResolvedSlice* out) {
  *out = ResolvedSlice{};
  const size_t rank = input_shape.size();
  if (rank > kMaxSliceRank) {
    return "input has rank " + std::to_string(rank) + "; TFLite's kernel slices at most " +
           std::to_string(kMaxSliceRank) + " dimensions";
  }
  if (begin.size() != rank || size.size() != rank) {
    return "begin and size hold " + std::to_string(begin.size()) + " and " +
           std::to_string(size.size()) + " values; expected " + std::to_string(rank) +
           " (the input's rank)";
  }
  for (size_t d = 0; d < rank; ++d) {
    const int64_t dim = input_shape[d];
    const int64_t b = begin[d];
    const int64_t s = size[d] == -1 ? dim - b : size[d];
    if (b < 0 || b > dim || s < 0 || b + s > dim) {
      return "begin " + std::to_string(begin[d]) + " and size " + std::to_string(size[d]) +
             " of dimension " + std::to_string(d) + " do not fit its size " + std::to_string(dim);
    }
    if (s == 0) {
      return "dimension " + std::to_string(d) + " of the slice is empty (empty outputs are not "
             "supported)";
    }
    out->begin.push_back(static_cast<int32_t>(b));
    out->stride.push_back(1);
    out->count.push_back(static_cast<int32_t>(s));
    out->output_shape.push_back(static_cast<int32_t>(s));
  }
  return "";
}

std::vector<int32_t> constant_vector(Checker& c, size_t k, const char* what) {
  const Tensor& t = c.in(k);
  if (t.type != DataType::kInt32 && t.type != DataType::kInt64) {
    c.fail(c.in_label(k) + " (" + what + ") has type " + std::string(to_string(t.type)) +
           ", expected int32 or int64");
  }
  if (!t.is_constant) c.fail(c.in_label(k) + " (" + what + ") must be a constant");
  if (t.shape.size() != 1) {
    c.fail(c.in_label(k) + " (" + what + ") has shape " + shape_string(t.shape) +
           ", expected 1-D");
  }
  return int_values(t);
}

namespace {

ir::Options read(const TfliteOptions& t) {
  const auto* o = t.table<tfl::StridedSliceOptions>(tfl::BuiltinOptions::StridedSliceOptions, false);
  ir::StridedSliceOptions r;
  if (o != nullptr) {
    r.begin_mask = o->begin_mask();
    r.end_mask = o->end_mask();
    r.ellipsis_mask = o->ellipsis_mask();
    r.new_axis_mask = o->new_axis_mask();
    r.shrink_axis_mask = o->shrink_axis_mask();
    r.offset = o->offset();
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::StridedSliceOptions>(op.options);
  tfl::StridedSliceOptionsT t;
  t.begin_mask = o.begin_mask;
  t.end_mask = o.end_mask;
  t.ellipsis_mask = o.ellipsis_mask;
  t.new_axis_mask = o.new_axis_mask;
  t.shrink_axis_mask = o.shrink_axis_mask;
  t.offset = o.offset;
  out.Set(std::move(t));
}

ResolvedSlice resolved(Checker& c) {
  const bool plain = c.plain_move();
  const DataType type = plain ? c.out().type : c.activation_type();
  const Tensor& input = plain ? c.plain(0, type) : c.data_input(0, type);
  ResolvedSlice r;
  const std::string why = resolve_strided_slice(
      input.shape, constant_vector(c, 1, "begin"), constant_vector(c, 2, "end"),
      constant_vector(c, 3, "strides"), c.options<ir::StridedSliceOptions>(), &r);
  if (!why.empty()) c.fail(why);
  return r;
}

void check(Checker& c) {
  const ResolvedSlice r = resolved(c);
  if (c.plain_move()) {  // plain int16 or int32 (TFLM's STRIDED_SLICE takes any type)
    c.expect_output_shape(r.output_shape);
    return;
  }
  c.data_output(c.activation_type());
  c.expect_output_shape(r.output_shape);
  c.expect_same_quantization(0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  ResolvedSlice r;
  resolve_strided_slice(ctx.in(0).shape, int_values(ctx.in(1)), int_values(ctx.in(2)),
                        int_values(ctx.in(3)),
                        std::get<ir::StridedSliceOptions>(ctx.op().options), &r);
  schema::SliceOptionsT s;
  s.begin = r.begin;
  s.stride = r.stride;
  s.count = r.count;
  out.options.Set(std::move(s));
}

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::StridedSliceOptions>(op.options);
  d.add("begin_mask " + std::to_string(o.begin_mask) + " end_mask " + std::to_string(o.end_mask) +
        " ellipsis_mask " + std::to_string(o.ellipsis_mask) + " new_axis_mask " +
        std::to_string(o.new_axis_mask) + " shrink_axis_mask " +
        std::to_string(o.shrink_axis_mask));
  d.json["begin_mask"] = o.begin_mask;
  d.json["end_mask"] = o.end_mask;
  d.json["ellipsis_mask"] = o.ellipsis_mask;
  d.json["new_axis_mask"] = o.new_axis_mask;
  d.json["shrink_axis_mask"] = o.shrink_axis_mask;
}

constexpr int8_t kProgramInputs[] = {0};  // begin, end and strides are options

}  // namespace

extern const OpDef strided_slice{.builtin_code = builtin(tfl::BuiltinOperator::STRIDED_SLICE),
                                 .read_options = read, .write_options = write, .inputs = {4, 4},
                                 .check = check, .lower = lower, .program_inputs = kProgramInputs,
                                 .int16_activations = true, .describe = describe};

}  // namespace mote::ops
