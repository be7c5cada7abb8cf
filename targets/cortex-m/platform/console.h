#pragma once
// Text output to the host's standard output over semihosting, without stdio: a line is formatted
// in a small buffer on the caller's stack and written with one call. The only static RAM is the
// console's handle (4 bytes).

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace platform {

/// Writes bytes to the host's standard output.
void write(const void* data, size_t size);
/// Writes a NUL-terminated string to the host's standard output.
void print(const char* text);

/// Builds one line of output: `Line().text("static_ram ").unsigned_number(n).end();`. Writes when the
/// buffer fills, and at end().
class Line {
 public:
  Line() = default;
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;
  ~Line() { flush(); }

  Line& text(const char* text);
  Line& character(char c);
  Line& unsigned_number(uint64_t value);
  Line& signed_number(int64_t value);
  /// `digits` lowercase hex digits (1 to 16), no prefix.
  Line& hex(uint64_t value, int digits = 8);
  /// Two hex digits per byte, no separators.
  Line& hex_bytes(const uint8_t* data, size_t size);
  /// Ends the line with '\n' and writes it.
  void end();

 private:
  void flush();

  static constexpr size_t kCapacity = 96;
  char buffer_[kCapacity];
  size_t size_ = 0;
};

}  // namespace platform
}  // namespace mote
