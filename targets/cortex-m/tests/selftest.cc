// Firmware self-test: start-up initialised .data and zeroed .bss, the FPU (and DSP or MVE)
// instructions run, the command line arrives, host files can be written and read back over
// semihosting, the arena region is usable, stack painting measures a frame of known size, and
// static RAM comes from the linker's symbols. Exits 0 only if every check holds.
//   selftest.elf <scratch file path> alpha beta,gamma

#include <stddef.h>
#include <stdint.h>

#include "platform/board.h"
#include "platform/console.h"
#include "platform/semihosting.h"

#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#endif
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

namespace {

using mote::platform::Line;

// .data: start-up must copy these from their load image; .bss: start-up must zero it. volatile
// keeps the compiler from folding them into constants.
volatile uint32_t g_initialised = 0x12345678u;
volatile char g_greeting[8] = "hello";
volatile uint32_t g_zeroed[32];

struct Checks {
  int failed = 0;
  void Expect(bool ok, const char* what) {
    Line().Text(ok ? "  ok   " : "  FAIL ").Text(what).End();
    if (!ok) ++failed;
  }
};

template <typename Char>
bool StartsWith(const Char* text, const char* prefix) {
  while (*prefix != '\0') {
    if (*text++ != *prefix++) return false;
  }
  return true;
}

// Finds `word` as a whole space-separated word of `line`.
bool HasWord(const char* line, const char* word) {
  for (const char* p = line; *p != '\0'; ++p) {
    if ((p == line || p[-1] == ' ') && StartsWith(p, word)) {
      size_t n = 0;
      while (word[n] != '\0') ++n;
      if (p[n] == ' ' || p[n] == '\0') return true;
    }
  }
  return false;
}

// A frame of a known size: 1 KiB of locals the compiler cannot drop.
__attribute__((noinline)) uint32_t UseStack(uint32_t seed) {
  volatile uint8_t buffer[1024];
  for (size_t i = 0; i < sizeof(buffer); ++i) buffer[i] = static_cast<uint8_t>(seed + i);
  uint32_t sum = 0;
  for (size_t i = 0; i < sizeof(buffer); i += 64) sum += buffer[i];
  return sum;
}

void CheckArithmetic(Checks& checks) {
  volatile float a = 1.5f;
  volatile float b = 2.25f;
  checks.Expect(a * b == 3.375f, "float multiply");
#if defined(__ARM_FEATURE_DSP)
  // SMLAD: 3*5 + (-2)*7 + 100.
  const uint32_t x = (static_cast<uint32_t>(static_cast<uint16_t>(-2)) << 16) | 3u;
  const uint32_t y = (7u << 16) | 5u;
  volatile int32_t acc = 100;
  checks.Expect(__smlad(x, y, acc) == 101, "DSP SMLAD");
#endif
#if defined(__ARM_FEATURE_MVE)
  alignas(16) static const int8_t kBytes[16] = {1, -2, 3, -4, 5, -6, 7, -8,
                                                9, -10, 11, -12, 13, -14, 15, 100};
  const int8x16_t v = vldrbq_s8(kBytes);
  checks.Expect(vaddvq_s8(v) == 108, "MVE VLDRB + VADDV");
#endif
}

void CheckHostFile(Checks& checks, const char* path) {
  using namespace mote::platform;
  uint8_t data[300];
  for (size_t i = 0; i < sizeof(data); ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
  int32_t handle = HostOpen(path, FileMode::kWriteBinary);
  checks.Expect(handle >= 0, "host file opened for writing");
  if (handle < 0) return;
  checks.Expect(HostWrite(handle, data, sizeof(data)) == sizeof(data), "host file written");
  checks.Expect(HostClose(handle), "host file closed");

  handle = HostOpen(path, FileMode::kReadBinary);
  checks.Expect(handle >= 0, "host file opened for reading");
  if (handle < 0) return;
  checks.Expect(HostFileLength(handle) == static_cast<int32_t>(sizeof(data)), "host file length");
  uint8_t back[320];
  const size_t read = HostRead(handle, back, sizeof(back));
  bool same = read == sizeof(data);
  for (size_t i = 0; same && i < read; ++i) same = back[i] == data[i];
  checks.Expect(same, "host file read back");
  HostClose(handle);
  checks.Expect(HostOpen("/nonexistent/mote/file", FileMode::kReadBinary) == -1,
                "missing host file reported");
}

}  // namespace

int main() {
  using namespace mote::platform;
  Line().Text("selftest on ").Text(BoardName()).Text(" (").Text(CpuName()).Text(")").End();
  Checks checks;

  checks.Expect(g_initialised == 0x12345678u && StartsWith(g_greeting, "hello"), ".data copied");
  bool zero = true;
  for (uint32_t word : g_zeroed) zero = zero && word == 0;
  checks.Expect(zero, ".bss zeroed");
  g_zeroed[31] = g_initialised;  // keep both in RAM

  CheckArithmetic(checks);

  char command_line[128];
  const size_t length = CommandLine(command_line, sizeof(command_line));
  Line().Text("command line: ").Text(length > 0 ? command_line : "(none)").End();
  checks.Expect(HasWord(command_line, "alpha") && HasWord(command_line, "beta,gamma"),
                "command line arguments");
  // The first argument after the image name is a scratch file path.
  const char* path = command_line;
  while (*path != '\0' && *path != ' ') ++path;
  while (*path == ' ') ++path;
  char* end = const_cast<char*>(path);
  while (*end != '\0' && *end != ' ') ++end;
  *end = '\0';
  CheckHostFile(checks, path);

  const MemoryRegion arena = ArenaRegion();
  Line().Text("arena region: 0x").Hex(reinterpret_cast<uintptr_t>(arena.data)).Text(" ").Unsigned(arena.size).Text(" bytes").End();
  bool arena_ok = arena.size >= (1u << 20) && reinterpret_cast<uintptr_t>(arena.data) % 16 == 0;
  if (arena_ok) {
    volatile uint8_t* bytes = arena.data;
    for (size_t i = 0; i < 4096; ++i) bytes[i] = static_cast<uint8_t>(i ^ 0x5A);
    bytes[arena.size - 1] = 0xA5;
    for (size_t i = 0; i < 4096; ++i) arena_ok = arena_ok && bytes[i] == static_cast<uint8_t>(i ^ 0x5A);
    arena_ok = arena_ok && bytes[arena.size - 1] == 0xA5;
  }
  checks.Expect(arena_ok, "arena region readable and writable, first and last byte");

  PaintStack();
  const size_t before = StackPeakBytes();
  const uint32_t sum = UseStack(g_initialised);
  const size_t peak = StackPeakBytes();
  Line().Text("stack_peak ").Unsigned(peak).Text(" (before the 1 KiB frame: ").Unsigned(before).Text(", stack size ").Unsigned(StackSizeBytes()).Text(")").End();
  checks.Expect(sum != 0 && peak >= before + 1024 && peak <= before + 1024 + 128,
                "stack paint measures a 1 KiB frame");
  checks.Expect(!StackGuardHit(), "stack guard word intact");

  const size_t static_ram = StaticRamBytes();
  Line().Text("static_ram ").Unsigned(static_ram).End();
  // This image's own .data + .bss: its globals and the console's handle, give or take alignment.
  const size_t mine = sizeof(g_initialised) + sizeof(g_greeting) + sizeof(g_zeroed) + 4;
  checks.Expect(static_ram >= mine && static_ram <= mine + 16, "static RAM from linker symbols");

  Line().Text(checks.failed == 0 ? "selftest: ok" : "selftest: FAILED").End();
  return checks.failed == 0 ? 0 : 1;
}
