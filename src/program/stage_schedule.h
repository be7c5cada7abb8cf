#pragma once
// The schedule of a row-streamed stage (schema Stage): the last member's output rows one at a
// time, each member computing its rows one at a time, right after the input rows its window
// needs, so that every row is computed once and as late as a reader needs it. One definition for
// the compiler (which sizes the rings with it and writes its calls into the program) and the
// loader (which replays it to check those calls, each ring and the stage output's overlap with
// its input); the executor only reads the calls.
// Embeddable C++17: no heap, no recursion.

#include <stdint.h>

#include "mote/kernels/resize_bilinear.h"
#include "mote/kernels/rows.h"

namespace mote {
namespace program {

inline constexpr int32_t kMaxStageMembers = 16;
// Activation inputs of one member (ADD: two; CONCATENATION: an Inception block's or a YOLO
// neck's four branches) and of a whole stage (two a member on average). A stage's reads sit in
// one array beside its members (StageMember.reads), so members of four cost the loader's table
// no more than members of two would: 832 bytes on a 32-bit CPU for 16 members and 32 reads
// (inline room for four each would take 1,408, more than load's own workspace).
inline constexpr int32_t kMaxStageReads = 4;
inline constexpr int32_t kMaxStageTableReads = 2 * kMaxStageMembers;
inline constexpr int32_t kNoRow = INT32_MAX;

// Output row y of a member reads rows y * stride - pad + k * dilation (k < filter) of an input,
// those inside it. An accumulating member (a streamed global average pool, always a stage's
// last) takes its input one row at a time into sums and writes its output once, after the last
// row: its rows are its input's ({1, 1, 0, 1}), its output whole at the end. An upsampling
// member (a nearest-neighbour resize by an integer factor k) reads for its row y what a window
// reads for row y / k: with the window {1, 1, 0, 1}, input row y / k alone. A bilinear member
// (RESIZE_BILINEAR, TFLite's integer rule) reads for its row y the rows the kernel reads, the
// floor and the ceiling of its source position (kernels::bilinear_source of its source step,
// `stride` in 1/1024 rows, clamped to the input): every flag and scale, one definition.
// The numbers of a stage are int16 (stage_window_reach and stage_rows_fit check): the loader
// holds a table of up to kMaxStageMembers members and kMaxStageTableReads reads while it checks
// a stage, 20 bytes a read instead of 32.
struct StageRowReach {
  int16_t filter, stride, pad, dilation;
  int8_t accumulate;
  int8_t upsample;  // k >= 2, or 0: none
  int8_t bilinear;  // kBilinearRows or kBilinearHalfPixelRows (source step `stride`), or 0: none
};
inline constexpr int8_t kBilinearRows = 1;
inline constexpr int8_t kBilinearHalfPixelRows = 2;  // with half-pixel centres

// Whether a height fits a stage's int16 row numbers.
inline bool stage_rows_fit(int32_t rows) { return rows > 0 && rows <= INT16_MAX; }

// A window member's reach (row_reach of the window operators): false when a number does not fit
// int16 or the filter has more rows than a row kernel's window table holds.
inline bool stage_window_reach(int32_t filter, int32_t stride, int32_t pad, int32_t dilation,
                               StageRowReach* reach) {
  if (filter <= 0 || filter > kernels::kMaxRowWindowRows || stride <= 0 || stride > INT16_MAX ||
      pad < 0 || pad > INT16_MAX || dilation <= 0 || dilation > INT16_MAX) {
    return false;
  }
  *reach = {static_cast<int16_t>(filter), static_cast<int16_t>(stride),
            static_cast<int16_t>(pad), static_cast<int16_t>(dilation), 0, 0, 0};
  return true;
}

// An accumulating member's reach: its input's rows one at a time.
inline constexpr StageRowReach kStageAccumulate = {1, 1, 0, 1, 1, 0, 0};

// An upsampling member's reach (row_reach of RESIZE_NEAREST_NEIGHBOR): output row y reads input
// row y / factor. False for a factor outside [2, 127].
inline bool stage_upsample_reach(int32_t factor, StageRowReach* reach) {
  if (factor < 2 || factor > INT8_MAX) return false;
  *reach = {1, 1, 0, 1, 0, static_cast<int8_t>(factor), 0};
  return true;
}

// A bilinear member's reach (row_reach of RESIZE_BILINEAR): output row y reads the input rows
// bilinear_source(y, step, half_pixel_centers) names. False for a step outside [0, 32767] (a
// downsampling by 32 or more), which int16 row numbers times the step could overflow.
inline bool stage_bilinear_reach(int32_t step, bool half_pixel_centers, StageRowReach* reach) {
  if (step < 0 || step > INT16_MAX) return false;
  *reach = {1, static_cast<int16_t>(step), 0, 1, 0, 0,
            half_pixel_centers ? kBilinearHalfPixelRows : kBilinearRows};
  return true;
}

struct StageRead {
  int32_t tensor;
  int16_t maker;  // the member that makes it, or -1: from outside the stage
  int16_t rows;   // the input's height
  StageRowReach reach;
};

static_assert(sizeof(StageRead) == 20, "a read of the loader's table costs 20 bytes");

struct StageMember {
  int32_t output;  // tensor
  int16_t height;  // output rows
  int16_t num_reads;       // at most kMaxStageReads
  const StageRead* reads;  // num_reads of them, in the array of the stage's reads
};

// The first and last input rows output row y reads, or kNoRow and -1 when its window lies in
// the padding: the row kernels' window_input_rows for one row (stage_schedule_test.cc checks
// they agree), in closed form because the schedule asks at every row of every member it runs.
// Row y's taps are rows iy0 + k * dilation, k < filter, iy0 = y * stride - pad (int32: the
// numbers are int16); an upsampling member's row y taps as row y / upsample; a bilinear member's
// taps are the kernel's own (y * stride < 2^30: both int16).
inline int32_t stage_first_read(const StageRowReach& r, int32_t y, int32_t rows) {
  if (r.bilinear != 0) {
    return kernels::bilinear_source(y, r.stride, r.bilinear == kBilinearHalfPixelRows, rows).lower;
  }
  if (r.upsample > 1) y /= r.upsample;
  const int32_t iy0 = y * r.stride - r.pad;
  // The first tap at or below row 0.
  const int32_t first = iy0 >= 0 ? iy0 : iy0 + (-iy0 + r.dilation - 1) / r.dilation * r.dilation;
  return first < rows && first <= iy0 + (r.filter - 1) * r.dilation ? first : kNoRow;
}
inline int32_t stage_last_read(const StageRowReach& r, int32_t y, int32_t rows) {
  if (r.bilinear != 0) {
    return kernels::bilinear_source(y, r.stride, r.bilinear == kBilinearHalfPixelRows, rows).upper;
  }
  if (r.upsample > 1) y /= r.upsample;
  const int32_t iy0 = y * r.stride - r.pad;
  if (iy0 >= rows) return -1;
  int32_t last = iy0 + (r.filter - 1) * r.dilation;
  // The last tap inside the input.
  if (last >= rows) last = iy0 + (rows - 1 - iy0) / r.dilation * r.dilation;
  return last >= 0 ? last : -1;
}

// The lowest row of `tensor` that a member will still read (the window of its next output
// row), or kNoRow when none will. `done`: the rows each member has computed.
// `readers`: a bit per member that may read it (stage_readers); the others are skipped.
inline int32_t stage_lowest_needed(const StageMember* members, int32_t n, const int32_t* done,
                                   int32_t tensor, uint32_t readers = 0xFFFFu) {
  int32_t low = kNoRow;
  for (uint32_t bits = readers & ((1u << n) - 1u); bits != 0; bits &= bits - 1u) {
    const int32_t m = __builtin_ctz(bits);
    if (done[m] >= members[m].height) continue;
    for (int32_t i = 0; i < members[m].num_reads; ++i) {
      const StageRead& r = members[m].reads[i];
      if (r.tensor != tensor) continue;
      // A window in the padding reads nothing; a later one may.
      for (int32_t y = done[m]; y < members[m].height; ++y) {
        const int32_t first = stage_first_read(r.reach, y, r.rows);
        if (first != kNoRow) {
          if (first < low) low = first;
          break;
        }
      }
    }
  }
  return low;
}

// A bit per member that reads `tensor` (stage_lowest_needed looks at those alone: a replay asks
// it at every row it computes).
inline uint32_t stage_readers(const StageMember* members, int32_t n, int32_t tensor) {
  uint32_t readers = 0;
  for (int32_t m = 0; m < n; ++m) {
    for (int32_t i = 0; i < members[m].num_reads; ++i) {
      if (members[m].reads[i].tensor == tensor) readers |= 1u << m;
    }
  }
  return readers;
}

// The stage's one input from outside (read by some member, made by none) when its output may
// be written over it: one such tensor, which the last member does not read. Else -1.
inline int32_t stage_outside_input(const StageMember* members, int32_t n) {
  int32_t outside = -1;
  for (int32_t m = 0; m < n; ++m) {
    for (int32_t i = 0; i < members[m].num_reads; ++i) {
      const StageRead& r = members[m].reads[i];
      if (r.maker >= 0) continue;
      if (m + 1 == n || (outside >= 0 && outside != r.tensor)) return -1;
      outside = r.tensor;
    }
  }
  return outside;
}

// Runs the schedule of members[0, n) (makers before readers; member n - 1 the stage's last).
// The visitor gets
//   void row(int32_t m, int32_t y, const int32_t* done): member m is about to compute row y
//     (`done` still says what each member has computed before it);
//   void call(int32_t m, int32_t begin, int32_t end): run member m's rows [begin, end), the
//     rows of one member that no other member's row separates.
// Rows that no reader needs (below the last window of every reader) are never computed.
template <typename Visitor>
class StageSchedule {
 public:
  StageSchedule(const StageMember* members, int32_t n, Visitor& visitor)
      : members_(members), n_(n), visitor_(visitor) {
    for (int32_t m = 0; m < kMaxStageMembers; ++m) done_[m] = 0;
  }

  void run() {
    if (n_ <= 0 || n_ > kMaxStageMembers) return;
    for (int32_t y = 1; y <= members_[n_ - 1].height; ++y) compute(n_ - 1, y);
    flush();
  }

 private:
  // Member m's rows up to `rows`, each right after the input rows its window needs: an
  // explicit stack of (member, rows) instead of recursion, at most kMaxStageMembers deep (a
  // member waits only on makers before it).
  void compute(int32_t m0, int32_t rows0) {
    int32_t wait_m[kMaxStageMembers], wait_rows[kMaxStageMembers];
    int32_t depth = 0;
    wait_m[depth] = m0;
    wait_rows[depth++] = rows0;
    while (depth > 0) {
      const int32_t m = wait_m[depth - 1];
      const StageMember& me = members_[m];
      const int32_t rows = wait_rows[depth - 1] < me.height ? wait_rows[depth - 1] : me.height;
      if (done_[m] >= rows) {
        --depth;
        continue;
      }
      const int32_t y = done_[m];
      bool waits = false;
      for (int32_t i = 0; i < me.num_reads && !waits; ++i) {
        const StageRead& r = me.reads[i];
        if (r.maker < 0 || r.maker >= m) continue;
        int32_t need = stage_last_read(r.reach, y, r.rows) + 1;
        if (need > members_[r.maker].height) need = members_[r.maker].height;
        if (done_[r.maker] < need && depth < kMaxStageMembers) {
          wait_m[depth] = r.maker;
          wait_rows[depth++] = need;
          waits = true;
        }
      }
      if (waits) continue;
      visitor_.row(m, y, done_);
      if (pending_ == m && pending_end_ == y) {
        pending_end_ = y + 1;
      } else {
        flush();
        pending_ = m;
        pending_begin_ = y;
        pending_end_ = y + 1;
      }
      done_[m] = y + 1;
    }
  }

  void flush() {
    if (pending_ >= 0) visitor_.call(pending_, pending_begin_, pending_end_);
    pending_ = -1;
  }

  const StageMember* members_;
  int32_t n_;
  Visitor& visitor_;
  int32_t done_[kMaxStageMembers];
  int32_t pending_ = -1, pending_begin_ = 0, pending_end_ = 0;
};

// A call of the schedule as the program writes it (Program.stage_calls): one uint16 per run of
// at most kStageCallRowsMax rows, the member in the top four bits; `emit` gets each entry.
// One definition for the compiler, which writes them, and the loader, which requires them.
inline constexpr int32_t kStageCallRowsMax = 0xFFF;
static_assert(kMaxStageMembers <= 16, "a member fits four bits");
template <typename Emit>
void stage_call_entries(int32_t m, int32_t begin, int32_t end, const Emit& emit) {
  for (int32_t y = begin; y < end; y += kStageCallRowsMax) {
    const int32_t rows = end - y < kStageCallRowsMax ? end - y : kStageCallRowsMax;
    emit(static_cast<uint16_t>((m << 12) | rows));
  }
}
inline int32_t stage_call_member(uint16_t entry) { return entry >> 12; }
inline int32_t stage_call_rows(uint16_t entry) { return entry & kStageCallRowsMax; }

// What a replay of the schedule finds (the loader checks a program with it, the compiler sizes
// a stage with it): the rows each member's output ring must hold (the most rows a write finds
// still needed, the row written included), and the lead by which the last member's output may
// start before `outside` (a tensor from outside the stage; the forward rule of
// mote/kernels/overlap.h: each output row is written whole while the rows of `outside` below
// the lowest one still to be read are dead).
struct StageReplay {
  const StageMember* members;
  int32_t n;
  int32_t outside = -1;             // tensor, or -1
  int64_t outside_row_bytes = 0;
  int64_t outside_bytes = 0;
  int64_t output_row_bytes = 0;
  int32_t held[kMaxStageMembers] = {};
  int64_t lead = INT64_MIN;
  // Who reads each member's output (slot m) and `outside` (the last slot), found at the first
  // row that asks.
  uint32_t readers_of[kMaxStageMembers + 1] = {};
  uint32_t readers_known = 0;  // a bit per slot

  uint32_t readers(int32_t slot, int32_t tensor) {
    if ((readers_known >> slot & 1u) == 0) {
      readers_of[slot] = stage_readers(members, n, tensor);
      readers_known |= 1u << slot;
    }
    return readers_of[slot];
  }
  void row(int32_t m, int32_t y, const int32_t* done) {
    if (m + 1 < n) {
      const int32_t output = members[m].output;
      const int32_t low = stage_lowest_needed(members, n, done, output, readers(m, output));
      const int32_t need = low == kNoRow || low > y ? 1 : y - low + 1;
      if (need > held[m]) held[m] = need;
    } else if (outside >= 0) {
      const int32_t low =
          stage_lowest_needed(members, n, done, outside, readers(kMaxStageMembers, outside));
      const int64_t dead = low == kNoRow ? outside_bytes : low * outside_row_bytes;
      const bool once = members[m].num_reads > 0 && members[m].reads[0].reach.accumulate != 0;
      const int64_t written = once ? (y + 1 == members[m].height ? output_row_bytes : 0)
                                   : (int64_t{y} + 1) * output_row_bytes;
      if (written - dead > lead) lead = written - dead;
    }
  }
  void call(int32_t, int32_t, int32_t) {}
  // The lead after run(): an output that never meets a live byte of `outside` may start
  // anywhere inside it.
  int64_t output_lead() const { return lead > -outside_bytes ? lead : -outside_bytes; }
};

}  // namespace program
}  // namespace mote
