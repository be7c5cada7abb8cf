#pragma once
// Arm semihosting: the firmware asks the debugger (here QEMU, run with
// -semihosting-config enable=on,target=native) to print, read and write host files, fetch the
// command line and exit with a status. Each call is a BKPT 0xAB trap; none keeps state in RAM.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace platform {

// Operation numbers of Arm's semihosting specification (v2).
enum class SemihostingOp : uint32_t {
  kOpen = 0x01,
  kClose = 0x02,
  kWriteC = 0x03,
  kWrite0 = 0x04,
  kWrite = 0x05,
  kRead = 0x06,
  kFileLength = 0x0C,
  kGetCommandLine = 0x15,
  kExit = 0x18,
  kExitExtended = 0x20,
};

/// Performs one semihosting call; `argument` is the operation's parameter block (or value).
inline uintptr_t semihosting_call(SemihostingOp op, const void* argument) {
  register uintptr_t r0 asm("r0") = static_cast<uintptr_t>(op);
  register const void* r1 asm("r1") = argument;
  asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

enum class FileMode : uint32_t {
  kReadBinary = 1,   // fopen "rb"
  kWriteText = 4,    // fopen "w"; for ":tt" it means standard output
  kWriteBinary = 5,  // fopen "wb"
};

/// Opens a host file (relative to QEMU's working directory); ":tt" is the console. Returns a
/// handle, or -1.
int32_t host_open(const char* path, FileMode mode);
/// Closes a handle from host_open; false on error.
bool host_close(int32_t handle);
/// Writes up to `size` bytes; returns how many were written.
size_t host_write(int32_t handle, const void* data, size_t size);
/// Reads up to `size` bytes; returns how many were read (fewer at the end of the file).
size_t host_read(int32_t handle, void* data, size_t size);
/// The length of an open file in bytes, or -1.
int32_t host_file_length(int32_t handle);
/// Copies the command line (QEMU's -append text) into `buffer` with a terminating NUL. Returns
/// its length, or 0 when there is none or it does not fit.
size_t command_line(char* buffer, size_t size);

/// Ends the program: QEMU exits with `status` (SYS_EXIT_EXTENDED, so every status survives).
[[noreturn]] void exit_program(int status);

}  // namespace platform
}  // namespace mote
