#pragma once
// A fake runtime for testing the firmware runner itself. Its "program" is text:
//   FAKE <size> <k>...
// one input and one output of <size> bytes (at most 64), and one operator per <k> (at most 8)
// that adds k to every byte; the first reads the input, the rest work in place on the output.
// Anything else is refused the way the runtime's verifier refuses a corrupt program.

#include <stddef.h>
#include <stdint.h>

#include "platform/console.h"
#include "runner/runner.h"

namespace mote {
namespace runner {

class Model {
 public:
  Status load(ConstBytes program, Bytes arena) {
    const uint8_t* p = program.data;
    const uint8_t* end = program.data + program.size;
    if (program.size < 4 || p[0] != 'F' || p[1] != 'A' || p[2] != 'K' || p[3] != 'E') {
      return {1, "invalid program (bad file identifier)"};
    }
    p += 4;
    uint32_t size = 0;
    if (!number(p, end, size) || size == 0 || size > 64) return {1, "invalid program (size)"};
    size_ = size;
    operators_ = 0;
    uint32_t k = 0;
    while (number(p, end, k)) {
      if (operators_ == kMaxOperators || k > 255) return {1, "invalid program (operators)"};
      adds_[operators_++] = static_cast<uint8_t>(k);
    }
    if (p != end) return {1, "invalid program (trailing bytes)"};
    // Input at offset 0, output at the next 16-byte boundary, as a plan would place them.
    const size_t output_offset = (size_ + 15) / 16 * 16;
    if (arena.size < output_offset + size_) return {2, "arena too small"};
    input_ = arena.data;
    output_ = arena.data + output_offset;
    return kOk;
  }

  size_t input_count() const { return 1; }
  Bytes input(size_t) { return {input_, size_}; }
  bool input_is_external(size_t) const { return false; }  // the toy format has no such input
  bool bind_input(size_t, const uint8_t*, size_t) { return false; }
  size_t input_float_count(size_t) const { return 0; }  // nor inputs written as floats
  bool write_input_float(size_t, const float*, size_t, size_t) { return false; }
  size_t output_count() const { return 1; }
  ConstBytes output(size_t) const { return {output_, size_}; }
  size_t operator_count() const { return operators_; }
  const char* operator_name(size_t) const { return "ADD_CONSTANT"; }

  void reset_state() {}  // the toy format keeps no state

  Status run() {
    for (size_t i = 0; i < operators_; ++i) {
      const Status status = run_operator(i);
      if (!status.ok()) return status;
    }
    return kOk;
  }

  Status run_operator(size_t i) {
    if (i >= operators_) return {3, "operator index out of range"};
    const uint8_t* from = i == 0 ? input_ : output_;
    for (size_t b = 0; b < size_; ++b) output_[b] = static_cast<uint8_t>(from[b] + adds_[i]);
    return kOk;
  }

  void print_memory_status() const {
    using platform::Line;
    Line().text("I mote: arena_planned: ").unsigned_number((size_ + 15) / 16 * 16 + size_).text(" bytes").end();
    Line().text("I mote: runtime_state: ").unsigned_number(sizeof(*this)).text(" bytes").end();
    Line().text("I mote: temp_allocator: 0 bytes").end();
  }

 private:
  static constexpr size_t kMaxOperators = 8;

  // Skips spaces, then reads a decimal number; false (and p unchanged) when there is none.
  static bool number(const uint8_t*& p, const uint8_t* end, uint32_t& value) {
    const uint8_t* q = p;
    while (q < end && *q == ' ') ++q;
    if (q == end || *q < '0' || *q > '9') return false;
    value = 0;
    while (q < end && *q >= '0' && *q <= '9' && value < 100000) value = value * 10 + (*q++ - '0');
    p = q;
    return true;
  }

  uint8_t* input_ = nullptr;
  uint8_t* output_ = nullptr;
  size_t size_ = 0;
  size_t operators_ = 0;
  uint8_t adds_[kMaxOperators] = {};
};

}  // namespace runner
}  // namespace mote
