#pragma once
// What the operator definitions in src/runtime/ops/ share: OpChecker, an operator's view at load
// time (arity, types, shapes, and the parameter ranges that keep the int8 arithmetic free of
// overflow: a tampered shift or bias must not make a kernel compute undefined behaviour), and
// Op, its view at run time (data pointers into the arena and the constant blob).

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "mote/kernels/broadcast.h"
#include "mote/kernels/common.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/integer.h"
#include "mote/kernels/rows.h"
#include "mote/kernels/scratch.h"
#include "runtime/internal.h"
#include "runtime/ops/registry.h"

namespace mote {
namespace runtime {
namespace internal {

// Every operator's file reads these.
using schema::DataType;
using schema::Tensor;

using kernels::kAccLimit;
// |x + input_offset| for int8 x and an offset in [-127, 128] (i.e. -zero_point).
inline constexpr int64_t kMaxCenteredInput = 255;

inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t abs64(int64_t a) { return a < 0 ? -a : a; }
inline bool in_range(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }
// Scans of per-channel constants the loader makes over every bias, kernel sum and requantization
// array (constant_scans.cc: one pass in 32-bit arithmetic, built for the vectoriser).
// The largest |v| of `count` int32 values at `p` (in the constant blob).
int64_t max_abs_i32(const uint8_t* p, int32_t count);
// The smallest of `count` int32 values at `a`, and the smallest and largest at `b`.
struct ChannelExtremes {
  int32_t min_a, min_b, max_b;
};
ChannelExtremes channel_extremes(const uint8_t* a, const uint8_t* b, int32_t count);

// MultiplyByQuantizedMultiplier(x, multiplier, shift) for |x| <= bound stays within `limit`.
bool requant_ok(int64_t bound, int32_t multiplier, int32_t shift, int64_t limit = kAccLimit);

// Why a requantization fails requant_ok: a negative multiplier is never written by a compiler
// (kInvalidProgram); a well-formed one whose shift or product the kernels' int32 arithmetic
// cannot take (extreme scales in the model) is kUnsupported, which the compiler reports as bad
// input rather than as its own bug.
inline Error requant_error(int32_t multiplier) {
  return multiplier < 0 ? Error::kInvalidProgram : Error::kUnsupported;
}

bool same_shape(const schema::Tensor& a, const schema::Tensor& b);

// Along one spatial axis: input `in`, output `out`, effective kernel `k`, stride, leading pad.
// Every window must touch the input (so average pooling never divides by zero) and the output
// must not extend past the last window that does.
bool window_ok(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad);

// Right-aligned broadcast of `a` and `b` to `o`.
bool broadcast_ok(const schema::Tensor& a, const schema::Tensor& b, const schema::Tensor& o);

inline const schema::Tensor& tensor_at(const schema::Program& program, int32_t index) {
  return *program.tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
}
inline const schema::Tensor& input_of(const schema::Program& program, const schema::Operator& op,
                                      size_t k) {
  return tensor_at(program, input_index(op, k));
}
inline const schema::Tensor& output_of(const schema::Program& program,
                                       const schema::Operator& op) {
  return tensor_at(program, output_index(op, 0));
}
// The forms of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED that run the portable direct loops
// on every extension: 16x8 (int16 input 0) and int4 weights (input 1). No scratch, no overlap, no
// backward or in-place runs, no row stages.
inline bool direct_loops(const schema::Program& program, const schema::Operator& op) {
  return input_of(program, op, 0).type() == DataType::Int16 ||
         (num_inputs(op) > 1 && input_index(op, 1) >= 0 &&
          input_of(program, op, 1).type() == DataType::Int4);
}
inline kernels::Extension extension_of(const schema::Program& program) {
  return static_cast<kernels::Extension>(program.target()->extension());
}

// ADD's and MUL's offsets and clamp (both inputs' offsets, the output's, the activation range).
template <typename Options>
Error check_binary_offsets(const OpChecker& c, const Options& o);

// The NHWC dimensions of an input `x` and output `y` that the spatial kernels' parameters share.
template <typename Params>
void set_nhwc_dims(Params& p, const schema::Tensor& x, const schema::Tensor& y) {
  const int32_t *xs = shape_data(x), *ys = shape_data(y);  // each read once
  p.batches = xs[0];
  p.input_h = xs[1];
  p.input_w = xs[2];
  p.channels = xs[3];
  p.output_h = ys[1];
  p.output_w = ys[2];
}

// Whether an int8 operator's options hold a lookup table (their `table`: 256 constant bytes,
// indexed by (uint8)x, kernels::lookup_table), which it then runs in place of its arithmetic.
inline bool has_lookup_table(const schema::Region* table) {
  return table != nullptr && table->size() != 0;
}

// An operator at load time, its tensors and constants already checked by the loader.
class OpChecker {
 public:
  OpChecker(const OpCheckContext& c, const schema::Operator& op) : c_(c), op_(op) {}

  const schema::Operator& op() const { return op_; }
  const schema::Program& program() const { return *c_.program; }

  // Records `reason` for the load diagnostic and returns `error`.
  Error bad(const char* reason, Error error = Error::kInvalidProgram) const;

  // What every operator's signature says (OpRegistration::signature), before its own check.
  Error signature(const OpSignature& s) const;
  // Arity and options, for an operator whose arity depends on its options (CONCATENATION).
  // `max_in` counts optional trailing inputs, which may be -1 (absent) only at positions >=
  // `required_in`.
  Error shape_of_op(size_t required_in, size_t max_in, size_t outputs,
                    schema::OpOptions options_type) const;
  // The options table, of the type the signature checked.
  template <typename T>
  const T& options() const {
    return *op_.template options_as<T>();
  }

  // Input `k`, or null when absent.
  const schema::Tensor* in(size_t k) const;
  const schema::Tensor& out(size_t k = 0) const {
    return tensor_at(*c_.program, output_index(op_, k));
  }

  // A constant array of `count` int32 values.
  bool int32_array(const schema::Region* region, int64_t count) const;
  int32_t int32_at(const schema::Region* region, int64_t k) const {
    return load_i32(c_.constants + region->offset() + 4 * k);
  }
  // The largest |v| of a region of `count` int32 (int32_array checked it).
  int64_t max_abs_at(const schema::Region* region, int32_t count) const {
    return max_abs_i32(c_.constants + region->offset(), count);
  }
  // Value `k` of a constant int32 tensor (in the constant blob, checked by the loader).
  int32_t constant_i32(const schema::Tensor& t, size_t k) const {
    return load_i32(c_.constants + t.offset() + 4 * k);
  }
  // The bytes of a constant tensor (its place checked by the loader).
  const uint8_t* constant_data(const schema::Tensor& t) const { return c_.constants + t.offset(); }
  // `size` constant bytes at `offset`.
  bool constant_bytes(uint32_t offset, uint32_t size) const {
    return uint64_t{offset} + size <= c_.constants_size;
  }

  // Whether input 0 is int16 (a 16x8 operator; the signature checked the other operands).
  bool int16() const { return in(0) != nullptr && in(0)->type() == DataType::Int16; }
  // Whether input 0 is a plain int32 (TFLM's int32 arithmetic; the signature checked the rest).
  bool int32() const { return in(0) != nullptr && in(0)->type() == DataType::Int32; }
  // Int4 weights (input 1), packed.
  bool int4() const { return in(1) != nullptr && in(1)->type() == DataType::Int4; }
  // Bias: absent, or a constant int32 tensor of `channels` values (int64 too, for a 16x8
  // operator). Returns max |bias| in `max_abs`.
  Error bias(const schema::Tensor* b, int32_t channels, int64_t* max_abs) const;
  // A lookup table that is present (has_lookup_table): 256 bytes inside the constant blob.
  Error lookup_table(const schema::Region* table) const;
  // A requantization, present, that takes any |x| <= `bound` within `limit`.
  Error requant(const schema::Requant* r, int64_t bound, int64_t limit = kAccLimit) const;
  // Per-channel requantization arrays, checked against the accumulator bound.
  Error per_channel(const schema::Region* multipliers, const schema::Region* shifts,
                    int32_t channels, int64_t acc_bound) const;
  // int8 offsets and clamp; for a 16x8 operator, zero offsets and an int16 clamp.
  Error offsets_and_range(int32_t input_offset, int32_t output_offset, int32_t act_min,
                          int32_t act_max) const;
  // Strides and dilations: positive (else there is no window), and at most 256, beyond which
  // they are well-formed but unsupported (a model may have one: TFLite allows any stride, so the
  // compiler reports it as bad input).
  Error strides(int32_t stride_h, int32_t stride_w, int32_t dilation_h = 1,
                int32_t dilation_w = 1) const;
  // An operator the program does not mark portable_kernel runs this image's extension kernel
  // alone (its Plain and Rows forms): refused where `takes()`, asked only then, says that kernel
  // does not take its shape.
  template <typename Takes>
  Error extension_takes(Takes takes) const {
    if (op_.portable_kernel() || takes()) return Error::kOk;
    return bad("the program runs it on this CPU's extension kernel, which does not take its "
               "shape: compile the model again with --target set to this CPU",
               Error::kUnsupported);
  }
  // An operator on the extension kernel (not marked portable_kernel) whose specialised code this
  // image links: `linked()`, asked only then, says so (false only in a firmware image built for
  // other programs, which links only its own programs' instances of a kernel).
  template <typename Linked>
  Error extension_linked(Linked linked) const {
    if (op_.portable_kernel() || linked()) return Error::kOk;
    return bad("its kernel's code for this shape is not built into this image: rebuild the "
               "image with this program (mote_add_model)",
               Error::kUnsupported);
  }
  // The int32 values at `region` (int32_array checked it: aligned, in the constants).
  const int32_t* int32_data(const schema::Region* region) const {
    return reinterpret_cast<const int32_t*>(c_.constants + region->offset());
  }
  // Whether the operator is a member of a row-streamed stage.
  bool streamed() const;

 private:
  const OpCheckContext& c_;
  const schema::Operator& op_;
};

// An operator at run time: typed access to its tensors and constants.
class Op {
 public:
  Op(const OpEnv& env, const schema::Operator& op) : env_(env), op_(op) {}

  // The options table, of the type the load-time signature checked.
  template <typename T>
  const T& options() const {
    return *op_.template options_as<T>();
  }

  const schema::Tensor& in(size_t k) const { return input_of(*env_.program, op_, k); }
  const schema::Tensor& out(size_t k = 0) const {
    return tensor_at(*env_.program, output_index(op_, k));
  }
  bool has_in(size_t k) const { return k < num_inputs(op_) && input_index(op_, k) >= 0; }

  template <typename T>
  const T* in_data(size_t k) const {
    return reinterpret_cast<const T*>(bytes(input_index(op_, k)));
  }
  template <typename T>
  T* out_data(size_t k = 0) const {
    return reinterpret_cast<T*>(env_.arena + out(k).offset());
  }
  // A state input (its operator's check verified it is a state: arena bytes the operator
  // updates, kept between runs).
  template <typename T>
  T* state_data(size_t k) const {
    return reinterpret_cast<T*>(env_.arena + in(k).offset());
  }
  // Optional input (bias): null when absent.
  template <typename T>
  const T* optional_in_data(size_t k) const {
    return has_in(k) ? in_data<T>(k) : nullptr;
  }
  // An int8 lookup table (has_lookup_table) in the constant blob, or null when absent.
  const int8_t* lookup_table(const schema::Region* table) const {
    if (!has_lookup_table(table)) return nullptr;
    return reinterpret_cast<const int8_t*>(env_.constants + table->offset());
  }
  // An int32 array in the constant blob.
  const int32_t* constant_i32(const schema::Region* region) const {
    return region != nullptr && region->size() != 0
               ? reinterpret_cast<const int32_t*>(env_.constants + region->offset())
               : nullptr;
  }
  kernels::Scratch scratch() const {
    const schema::Region* r = op_.scratch();
    if (r == nullptr || r->size() == 0) return kernels::Scratch{nullptr, 0};
    return kernels::Scratch{reinterpret_cast<int8_t*>(env_.arena + r->offset()), r->size()};
  }
  const uint8_t* constants() const { return env_.constants; }
  const schema::Program& program() const { return *env_.program; }
  const schema::Operator& op() const { return op_; }

 private:
  const uint8_t* bytes(int32_t index) const { return bytes(tensor_at(*env_.program, index), index); }
  const uint8_t* bytes(const schema::Tensor& t, int32_t index) const {
    switch (t.location()) {
      case schema::Location::Arena: return env_.arena + t.offset();
      case schema::Location::External:
        // Loaded, so a graph input with a slot; the Executor checked it is bound.
        return env_.external[external_slot(*env_.program, index)];
      default: return env_.constants + t.offset();
    }
  }

  const OpEnv& env_;
  const schema::Operator& op_;
};

// Prepared words (a row call's, an operator call's): `Args` is a struct of int32 fields only,
// laid out the same on every target (the compiler writes it on the host, the device reads it).
template <typename Args>
inline constexpr uint8_t kWords = static_cast<uint8_t>(sizeof(Args) / sizeof(int32_t));
template <size_t kMax, typename Args>
bool write_words(const Args& args, int32_t* words) {
  static_assert(sizeof(Args) % sizeof(int32_t) == 0 && alignof(Args) == alignof(int32_t) &&
                    kWords<Args> <= kMax,
                "prepared words are int32 fields");
  memcpy(words, &args, sizeof(Args));
  return true;
}

// Prepared calls (OpRegistration::call_args): a tensor as one word, its offset in the arena or the
// constant blob, or its external slot, times four plus where it is; -1 for an absent optional
// input (index -1). False where the offset does not fit, or for an output outside the arena.
enum CallPlace : int32_t { kCallArena = 0, kCallConstant = 1, kCallExternal = 2 };
bool call_operand(const schema::Program& program, int32_t index, int32_t* word);
bool call_output(const schema::Program& program, int32_t index, int32_t* word);
// At run time: the bytes an operand word names (null: absent), an output's.
inline const uint8_t* call_bytes(const OpEnv& env, int32_t word) {
  if (word < 0) return nullptr;
  const uint32_t at = static_cast<uint32_t>(word) >> 2;
  switch (word & 3) {
    case kCallArena: return env.arena + at;
    case kCallConstant: return env.constants + at;
    default: return env.external[at];
  }
}
template <typename T>
inline const T* call_input(const OpEnv& env, int32_t word) {
  return reinterpret_cast<const T*>(call_bytes(env, word));
}
template <typename T>
inline T* call_output_data(const OpEnv& env, int32_t word) {
  return reinterpret_cast<T*>(env.arena + (static_cast<uint32_t>(word) >> 2));
}
// A kind's call words, as its row-call words (write_words below).
template <typename Args>
inline constexpr uint8_t kCallWords = kWords<Args>;
template <typename Args>
bool write_call_args(const Args& args, int32_t* words) {
  return write_words<kMaxCallWords>(args, words);
}

// Row-streamed stages, prepared (OpRowForm::row_args): a tensor as a row call's words. `at`:
// its arena offset, or -1 - its external slot (a graph input outside the arena, read only);
// `rows`: the ring it is held as (Tensor.ring_rows, 0: whole).
struct RowOperand {
  int32_t at;
  int32_t rows;
};

// Tensor `index` as an operand; false where a stage cannot hold it (a constant, or not
// addressable in int32).
bool row_operand(const schema::Program& program, int32_t index, RowOperand* operand);

// A constant's offset in the constant blob as a word (-1: absent region or tensor), false when it
// does not fit one.
bool row_constant(const schema::Region* region, int32_t* at);
bool row_constant(const schema::Program& program, const schema::Operator& op, size_t k,
                  int32_t* at);

// A kind's row-call words.
template <typename Args>
inline constexpr uint8_t kRowWords = kWords<Args>;
template <typename Args>
bool write_row_args(const Args& args, int32_t* words) {
  return write_words<kMaxRowWords>(args, words);
}
// The words in place: the program's int32 vector (4-byte aligned).
template <typename Args>
inline const Args& row_args_of(const int32_t* words) {
  return *reinterpret_cast<const Args*>(words);
}

// At run time: an input's bytes, an output's, a constant (null: -1), the scratch.
inline const int8_t* row_input(const OpEnv& env, RowOperand o) {
  return reinterpret_cast<const int8_t*>(o.at >= 0 ? env.arena + o.at : env.external[-1 - o.at]);
}
inline int8_t* row_output(const OpEnv& env, RowOperand o) {
  return reinterpret_cast<int8_t*>(env.arena + o.at);
}
template <typename T>
inline const T* row_constant_data(const OpEnv& env, int32_t at) {
  return at >= 0 ? reinterpret_cast<const T*>(env.constants + at) : nullptr;
}
inline kernels::Scratch row_scratch(const OpEnv& env, int32_t at, int32_t size) {
  return size > 0 ? kernels::Scratch{reinterpret_cast<int8_t*>(env.arena + at),
                                     static_cast<size_t>(size)}
                  : kernels::Scratch{nullptr, 0};
}
// An operator's scratch region as words (offset, size), false when they do not fit.
bool row_scratch_words(const schema::Operator& op, int32_t* at, int32_t* size);

// Row y of a [1, H, W, C] map of `width` = W * C elements per row, held whole or as a ring.
template <typename T>
inline T* row_of(T* base, int32_t ring_rows, int32_t y, int32_t width) {
  return base + static_cast<ptrdiff_t>(kernels::ring_slot(ring_rows, y)) * width;
}

// A constant of rank <= 4 that does not vary along H (nor batch) of a [1, H, W, C] map: its
// extents along W and C, right-aligned (1 where it is broadcast; the operator's broadcast check
// says the others are the map's). Every row of the map reads all of it (PRELU's alpha, an
// elementwise operator's constant operand). False for anything else.
bool row_constant_extents(const Tensor& t, int32_t* width, int32_t* channels);

// An input of an elementwise row call: an activation of the output's shape, row y for row y
// (`at` and `rows` as RowOperand's), or a constant that does not vary along H, read whole by
// every row at a fixed address (`rows` kRowConstant, `at` its offset in the constant blob); its
// extents along W and C (the row's, or 1 where a constant is broadcast).
inline constexpr int32_t kRowConstant = -1;
struct RowInput {
  int32_t at, rows;
  int32_t width, channels;
};

// A binary elementwise kind in a stage (ADD, MUL, MAXIMUM, MINIMUM: each input an activation of
// the output's shape or a constant that does not vary along H): its operands as row-call words,
// each row a [W, C] map.
struct BinaryRows {
  int32_t width, channels;  // the output's W and C
  RowInput a, b;
  RowOperand output;
};
bool binary_rows(const schema::Program& program, const schema::Operator& op, BinaryRows* rows);

// Rows [y_begin, y_end) of `r`: kernel(shape, a, b, output) on each row, its inputs broadcast as
// the whole map broadcasts them (a constant's W or C of 1 repeated along the row), so the kernel
// computes each element from the same two values as on the whole map.
template <typename Kernel>
void for_binary_rows(const OpEnv& env, const BinaryRows& r, int32_t y_begin, int32_t y_end,
                     const Kernel& kernel) {
  kernels::BroadcastShape row{};
  const int32_t a_dims[2] = {r.a.width, r.a.channels};
  const int32_t b_dims[2] = {r.b.width, r.b.channels};
  kernels::prepare_broadcast_shape(a_dims, 2, b_dims, 2, &row);  // (checked at load)
  const int32_t width = r.width * r.channels;
  const auto input = [&](const RowInput& in, int32_t y) -> const int8_t* {
    if (in.rows == kRowConstant) return row_constant_data<int8_t>(env, in.at);
    return row_of(row_input(env, RowOperand{in.at, in.rows}), in.rows, y, width);
  };
  for (int32_t y = y_begin; y < y_end; ++y) {
    kernel(row, input(r.a, y), input(r.b, y),
           row_of(row_output(env, r.output), r.output.rows, y, width));
  }
}

// ADD's and MUL's row-call words: the kind's parameters, then its BinaryRows.
template <typename Params>
struct BinaryRowArgs {
  Params params;
  BinaryRows rows;
};
template <typename Params>
bool binary_row_args(const schema::Program& program, const schema::Operator& op,
                     const Params& params, int32_t* words) {
  BinaryRowArgs<Params> r{};
  r.params = params;
  return binary_rows(program, op, &r.rows) && write_row_args(r, words);
}
// Rows [y_begin, y_end) through the kind's int8 kernel, the one its whole map runs.
template <typename Params, void (*kKernel)(const Params&, const kernels::BroadcastShape&,
                                           const int8_t*, const int8_t*, int8_t*)>
void invoke_binary_rows(const OpEnv& env, const int32_t* words, int32_t y_begin, int32_t y_end) {
  const BinaryRowArgs<Params>& r = row_args_of<BinaryRowArgs<Params>>(words);
  for_binary_rows(env, r.rows, y_begin, y_end,
                  [&](const kernels::BroadcastShape& row, const int8_t* a, const int8_t* b,
                      int8_t* out) { kKernel(r.params, row, a, b, out); });
}

// `row_reach` of the elementwise kinds (ADD, MUL, MAXIMUM, MINIMUM, LOGISTIC, QUANTIZE): an int8
// [1, H, W, C] output, input `k` an activation of its shape and every other input one too or a
// constant that does not vary along H (row_constant_extents); row y of input `k` for row y of the
// output (the compiler's ops::elementwise_rows).
bool elementwise_row_reach(const schema::Program& program, const schema::Operator& op, size_t k,
                           StageRowReach* reach);

// The broadcast of an elementwise operator's two inputs (checked at load: ranks <= 6 and
// compatible dimensions).
kernels::BroadcastShape broadcast_shape(const schema::Tensor& a, const schema::Tensor& b);

// The plain int32 form of a binary arithmetic kind (ADD, MUL, DIV, MINIMUM, MAXIMUM): the clamp
// of `Options` (null for the kinds without options: none), then the kernel.
template <typename Options>
Error check_int32_clamp(const OpChecker& c, const Options& o) {
  if (o.activation_min() > o.activation_max()) return c.bad("activation range empty");
  return Error::kOk;
}
template <kernels::IntegerOp kOp, typename Options>
void invoke_int32(const Op& op) {
  int32_t lo = INT32_MIN, hi = INT32_MAX;
  if constexpr (!std::is_void_v<Options>) {
    const Options& o = op.options<Options>();
    lo = o.activation_min();
    hi = o.activation_max();
  }
  kernels::integer_binary(kOp, broadcast_shape(op.in(0), op.in(1)), op.in_data<int32_t>(0),
                          op.in_data<int32_t>(1), op.out_data<int32_t>(), lo, hi);
}

template <typename Options>
Error check_binary_offsets(const OpChecker& c, const Options& o) {
  MOTE_TRY(c.offsets_and_range(o.input1_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
  if (c.int16() ? o.input2_offset() != 0 : !in_range(o.input2_offset(), -127, 128)) {
    return c.bad(c.int16() ? "int16 zero point not 0" : "zero point outside int8");
  }
  return Error::kOk;
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
