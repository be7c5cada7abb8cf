#pragma once
// Text output to the host's standard output over semihosting, without stdio: a line is formatted
// in a small buffer on the caller's stack and written with one call. The only static RAM is the
// console's handle (4 bytes).

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace platform {

/// Writes bytes to the host's standard output.
void Write(const void* data, size_t size);
/// Writes a NUL-terminated string to the host's standard output.
void Print(const char* text);

/// Builds one line of output: `Line().Text("static_ram ").Unsigned(n).End();`. Writes when the
/// buffer fills, and at End().
class Line {
 public:
  Line() = default;
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;
  ~Line() { Flush(); }

  Line& Text(const char* text);
  Line& Char(char c);
  Line& Unsigned(uint64_t value);
  Line& Signed(int64_t value);
  /// `digits` lowercase hex digits (1 to 16), no prefix.
  Line& Hex(uint64_t value, int digits = 8);
  /// Two hex digits per byte, no separators.
  Line& HexBytes(const uint8_t* data, size_t size);
  /// Ends the line with '\n' and writes it.
  void End();

 private:
  void Flush();

  static constexpr size_t kCapacity = 96;
  char buffer_[kCapacity];
  size_t size_ = 0;
};

}  // namespace platform
}  // namespace mote
