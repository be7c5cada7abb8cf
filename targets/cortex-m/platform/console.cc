#include "platform/console.h"
#include "platform/console_c.h"

#include "mote/runtime/decimal.h"
#include "platform/semihosting.h"

namespace mote {
namespace platform {
namespace {

// Handle of ":tt" opened for writing (QEMU maps it to its stdout) plus one; 0 until first use.
// SYS_WRITE0 would need no handle but goes to QEMU's stderr.
int32_t g_stdout_plus_one = 0;

int32_t stdout_handle() {
  if (g_stdout_plus_one == 0) {
    g_stdout_plus_one = host_open(":tt", FileMode::kWriteText) + 1;
  }
  return g_stdout_plus_one - 1;
}

}  // namespace

void write(const void* data, size_t size) {
  const int32_t handle = stdout_handle();
  if (handle >= 0) {
    host_write(handle, data, size);
    return;
  }
  const char* bytes = static_cast<const char*>(data);
  for (size_t i = 0; i < size; ++i) semihosting_call(SemihostingOp::kWriteC, &bytes[i]);
}

void print(const char* text) {
  size_t n = 0;
  while (text[n] != '\0') ++n;
  write(text, n);
}

Line& Line::character(char c) {
  if (size_ == kCapacity) flush();
  buffer_[size_++] = c;
  return *this;
}

Line& Line::text(const char* text) {
  while (*text != '\0') character(*text++);
  return *this;
}

Line& Line::unsigned_number(uint64_t value) {
  char digits[kMaxDecimalDigits];
  const size_t n = decimal_digits(value, digits);
  for (size_t i = 0; i < n; ++i) character(digits[i]);
  return *this;
}

Line& Line::signed_number(int64_t value) {
  if (value < 0) {
    character('-');
    // Negate in unsigned arithmetic so INT64_MIN works.
    return unsigned_number(~static_cast<uint64_t>(value) + 1);
  }
  return unsigned_number(static_cast<uint64_t>(value));
}

Line& Line::hex(uint64_t value, int digits) {
  if (digits < 1) digits = 1;
  if (digits > 16) digits = 16;
  for (int i = digits - 1; i >= 0; --i) character("0123456789abcdef"[(value >> (4 * i)) & 0xF]);
  return *this;
}

Line& Line::hex_bytes(const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; ++i) hex(data[i], 2);
  return *this;
}

void Line::end() {
  character('\n');
  flush();
}

void Line::flush() {
  if (size_ > 0) write(buffer_, size_);
  size_ = 0;
}

}  // namespace platform
}  // namespace mote

extern "C" void mote_console_write(const void* data, size_t size) {
  mote::platform::write(data, size);
}

extern "C" void mote_console_print(const char* text) { mote::platform::print(text); }
