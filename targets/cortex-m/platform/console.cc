#include "platform/console.h"

#include "platform/semihosting.h"

namespace mote {
namespace platform {
namespace {

// Handle of ":tt" opened for writing (QEMU maps it to its stdout) plus one; 0 until first use.
// SYS_WRITE0 would need no handle but goes to QEMU's stderr.
int32_t g_stdout_plus_one = 0;

int32_t StdoutHandle() {
  if (g_stdout_plus_one == 0) {
    g_stdout_plus_one = HostOpen(":tt", FileMode::kWriteText) + 1;
  }
  return g_stdout_plus_one - 1;
}

}  // namespace

void Write(const void* data, size_t size) {
  const int32_t handle = StdoutHandle();
  if (handle >= 0) {
    HostWrite(handle, data, size);
    return;
  }
  const char* bytes = static_cast<const char*>(data);
  for (size_t i = 0; i < size; ++i) SemihostingCall(SemihostingOp::kWriteC, &bytes[i]);
}

void Print(const char* text) {
  size_t n = 0;
  while (text[n] != '\0') ++n;
  Write(text, n);
}

Line& Line::Char(char c) {
  if (size_ == kCapacity) Flush();
  buffer_[size_++] = c;
  return *this;
}

Line& Line::Text(const char* text) {
  while (*text != '\0') Char(*text++);
  return *this;
}

Line& Line::Unsigned(uint64_t value) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) Char(digits[--n]);
  return *this;
}

Line& Line::Signed(int64_t value) {
  if (value < 0) {
    Char('-');
    // Negate in unsigned arithmetic so INT64_MIN works.
    return Unsigned(~static_cast<uint64_t>(value) + 1);
  }
  return Unsigned(static_cast<uint64_t>(value));
}

Line& Line::Hex(uint64_t value, int digits) {
  if (digits < 1) digits = 1;
  if (digits > 16) digits = 16;
  for (int i = digits - 1; i >= 0; --i) Char("0123456789abcdef"[(value >> (4 * i)) & 0xF]);
  return *this;
}

Line& Line::HexBytes(const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; ++i) Hex(data[i], 2);
  return *this;
}

void Line::End() {
  Char('\n');
  Flush();
}

void Line::Flush() {
  if (size_ > 0) Write(buffer_, size_);
  size_ = 0;
}

}  // namespace platform
}  // namespace mote
