#include "platform/semihosting.h"

namespace mote {
namespace platform {
namespace {

// ADP_Stopped_ApplicationExit: the reason code of a normal program exit.
constexpr uint32_t kApplicationExit = 0x20026;

size_t string_length(const char* text) {
  size_t n = 0;
  while (text[n] != '\0') ++n;
  return n;
}

}  // namespace

int32_t host_open(const char* path, FileMode mode) {
  const uintptr_t block[3] = {reinterpret_cast<uintptr_t>(path), static_cast<uintptr_t>(mode),
                              string_length(path)};
  return static_cast<int32_t>(semihosting_call(SemihostingOp::kOpen, block));
}

bool host_close(int32_t handle) {
  const uintptr_t block[1] = {static_cast<uintptr_t>(handle)};
  return semihosting_call(SemihostingOp::kClose, block) == 0;
}

size_t host_write(int32_t handle, const void* data, size_t size) {
  const uintptr_t block[3] = {static_cast<uintptr_t>(handle), reinterpret_cast<uintptr_t>(data),
                              size};
  // The call returns the number of bytes NOT written.
  const uintptr_t left = semihosting_call(SemihostingOp::kWrite, block);
  return left <= size ? size - left : 0;
}

size_t host_read(int32_t handle, void* data, size_t size) {
  const uintptr_t block[3] = {static_cast<uintptr_t>(handle), reinterpret_cast<uintptr_t>(data),
                              size};
  // The call returns the number of bytes NOT read.
  const uintptr_t left = semihosting_call(SemihostingOp::kRead, block);
  return left <= size ? size - left : 0;
}

int32_t host_file_length(int32_t handle) {
  const uintptr_t block[1] = {static_cast<uintptr_t>(handle)};
  return static_cast<int32_t>(semihosting_call(SemihostingOp::kFileLength, block));
}

size_t command_line(char* buffer, size_t size) {
  if (size == 0) return 0;
  // In: buffer and its size; out: the same block holds the length written.
  uintptr_t block[2] = {reinterpret_cast<uintptr_t>(buffer), size};
  if (semihosting_call(SemihostingOp::kGetCommandLine, block) != 0) {
    buffer[0] = '\0';
    return 0;
  }
  return block[1] < size ? block[1] : 0;
}

void exit_program(int status) {
  const uintptr_t block[2] = {kApplicationExit, static_cast<uintptr_t>(status)};
  semihosting_call(SemihostingOp::kExitExtended, block);
  // Only reached without a semihosting host: stop here.
  for (;;) {
  }
}

}  // namespace platform
}  // namespace mote
