#pragma once
// The memory-planning problem: buffers with a size, an alignment and a lifetime in steps. The
// planner knows nothing about operators; the compiler's bridge (or a CSV file) builds a Problem.

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace mote::planner {

// Alignment of every buffer unless told otherwise (MVE loads want 16; see FACTS.md section 1).
inline constexpr uint32_t kDefaultAlignment = 16;
// Most steps a problem may have: the lower bound and reports keep a few words per step.
inline constexpr int32_t kMaxSteps = 1 << 20;

// What a buffer holds. Every algorithm treats all kinds alike; a state (a variable tensor,
// whose bytes persist from one run to the next) must live at every step and take part in no
// overlap (validate), and the verifier lets nothing share its bytes whatever the lifetimes.
enum class BufferKind : uint8_t { kInput, kOutput, kActivation, kScratch, kState };

// "input", "output", "activation", "scratch", "state"
std::string_view to_string(BufferKind kind);
std::optional<BufferKind> buffer_kind_from_string(std::string_view text);

struct Buffer {
  std::string name;
  BufferKind kind = BufferKind::kActivation;
  uint64_t size = 0;                       // bytes; 0 is allowed and occupies nothing
  uint32_t alignment = kDefaultAlignment;  // a power of two; offsets are multiples of it
  int32_t first_step = 0;                  // inclusive
  int32_t last_step = 0;                   // inclusive
  std::optional<uint64_t> fixed_offset;    // placed here by every algorithm

  bool operator==(const Buffer&) const = default;
};

// Buffer `output` may share bytes with buffer `input` when
//     offset(output) + lead <= offset(input)
// (the output starts at least `lead` bytes before the input; a negative lead lets it start
// -lead bytes after): the kernel of the operator at the step where `input` dies and `output` is
// born reads every input byte before writing over it (mote/kernels/overlap.h). When the
// operator may also run backward (from its last output byte to its first), `back_lead` says
// that it may share bytes when
//     offset(output) >= offset(input) + back_lead
// too (the compiler then records that it runs backward). An `exact` overlap (a kernel run in
// place through its own scratch) shares bytes only at
//     offset(output) == offset(input)
// (lead and back_lead unused). Placements without shared bytes are always allowed; no other pair
// may share a byte.
struct Overlap {
  size_t output = 0;
  size_t input = 0;
  int64_t lead = 0;
  std::optional<int64_t> back_lead;
  bool exact = false;

  bool operator==(const Overlap&) const = default;
};

// Step k is operator k; every buffer lives within [0, num_steps).
struct Problem {
  std::vector<Buffer> buffers;
  int32_t num_steps = 0;
  std::vector<Overlap> overlaps;  // at most one per (output, input) pair

  bool operator==(const Problem&) const = default;
};

// Throws mote::InputError naming the first bad buffer ("buffer 3 'conv1/out': ...") when a
// lifetime is empty or outside [0, num_steps), an alignment is not a power of two, a fixed offset
// is misaligned, sizes and offsets add up to more than 2^62 bytes, or two fixed buffers that
// live together overlap (no plan could exist); and for more than kMaxSteps steps.
void validate(const Problem& problem);

// Bytes a planner reserves for a buffer: its size rounded up to its alignment.
uint64_t aligned_size(const Buffer& buffer);
// The arena's alignment: the largest buffer alignment (1 for an empty problem). Arena sizes are
// multiples of it.
uint32_t arena_alignment(const Problem& problem);
bool lifetimes_overlap(const Buffer& a, const Buffer& b);

// The offsets of buffer x that a placed buffer y (at y_offset, live with x) leaves free are
// x <= below and x >= above: below = y - size(x), above = y + size(y) with aligned sizes, or
// closer where the problem lets one overlap the other. Built once per problem.
class OverlapIndex {
 public:
  explicit OverlapIndex(const Problem& problem);
  bool empty() const { return leads_.empty(); }
  // The lead if `output` may overlap `input`, and the backward one if it may run backward.
  std::optional<int64_t> lead(size_t output, size_t input) const;
  std::optional<int64_t> back_lead(size_t output, size_t input) const;
  // Whether `output` may share bytes with `input` only at the input's own offset.
  bool exact(size_t output, size_t input) const;
  // Whether `output` at output_offset may share bytes with `input` at input_offset (a declared
  // overlap, forward or backward, holds).
  bool allows(size_t output, size_t input, uint64_t output_offset, uint64_t input_offset) const;
  // Free offsets of x next to y at y_offset: x <= below or x >= above. An exact overlap's one
  // shared offset is not among them (chain-fit places such pairs together).
  struct Bounds {
    int64_t below, above;
  };
  Bounds bounds(size_t x, size_t y, uint64_t y_offset) const;

 private:
  const Problem& problem_;
  struct Entry {
    size_t input;
    int64_t lead;
    std::optional<int64_t> back_lead;
    bool exact;
  };
  const Entry* find(size_t output, size_t input) const;
  std::vector<std::vector<Entry>> leads_;  // per output
};
// The problem without its overlaps (every plan of it is one of the problem's).
Problem without_overlaps(const Problem& problem);
// Rounds value up to a multiple of alignment, a power of two.
inline uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace mote::planner
