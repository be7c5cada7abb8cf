#pragma once
// Runtime status codes, Result<T> and the MOTE_TRY macros. Embeddable C++17: no heap, no
// exceptions; everything here is constexpr or inline.

#include <stdint.h>

#include <type_traits>

namespace mote {
namespace runtime {

/// What went wrong. Values are stable (they may be stored or printed as numbers) and grouped:
/// 0x0_ general, 0x1_ the program, 0x2_ memory the caller provides, 0x3_ arguments and support.
enum class Error : uint8_t {
  kOk = 0x00,
  kInternal = 0x01,  // a broken runtime invariant; never caused by input

  kInvalidProgram = 0x10,      // the bytes are not a well-formed, consistent Mote program
  kUnsupportedVersion = 0x11,  // a Mote program of another format version
  kProgramMisaligned = 0x12,   // program bytes not 16-byte aligned (constants are read in place)
  kInvalidPlan = 0x13,         // the memory plan lets two live buffers share bytes
  kCorruptConstants = 0x14,    // the constants differ from the CRC-32 compiled in (--checksum)

  kArenaTooSmall = 0x20,     // the arena is smaller than the program's planned arena
  kArenaMisaligned = 0x21,   // the arena does not have the program's arena alignment
  kScratchTooSmall = 0x22,   // debug checks: a planned scratch region is below the kernel's need
  kInputNotBound = 0x23,     // run() before bind_input() gave an input outside the arena its buffer

  kInvalidArgument = 0x30,  // a null pointer or an index out of range from the caller
  kUnsupported = 0x31,      // valid program, but an operator or parameter this build cannot run
};

/// A short fixed description ("invalid program"), for logs. Never null.
constexpr const char* to_string(Error error) {
  switch (error) {
    case Error::kOk: return "ok";
    case Error::kInternal: return "internal error";
    case Error::kInvalidProgram: return "invalid program";
    case Error::kUnsupportedVersion: return "unsupported program version";
    case Error::kProgramMisaligned: return "program not 16-byte aligned";
    case Error::kInvalidPlan: return "invalid memory plan";
    case Error::kCorruptConstants: return "constants corrupted (CRC-32 mismatch)";
    case Error::kArenaTooSmall: return "arena too small";
    case Error::kArenaMisaligned: return "arena misaligned";
    case Error::kScratchTooSmall: return "scratch region too small";
    case Error::kInputNotBound: return "input outside the arena not bound";
    case Error::kInvalidArgument: return "invalid argument";
    case Error::kUnsupported: return "unsupported";
  }
  return "unknown error";
}

/// A value or an Error, never both. Small (a union plus a flag) and only for trivially copyable
/// values, so it costs no code to copy or destroy. Building one from Error::kOk gives kInternal,
/// so ok() and error() always agree.
template <typename T>
class [[nodiscard]] Result {
  static_assert(std::is_trivially_copyable<T>::value, "Result holds trivially copyable values");
  static_assert(std::is_trivially_destructible<T>::value, "Result holds trivially copyable values");

 public:
  constexpr Result(const T& value) : value_(value), ok_(true) {}  // NOLINT: implicit by design
  constexpr Result(Error error)                                    // NOLINT: implicit by design
      : error_(error == Error::kOk ? Error::kInternal : error), ok_(false) {}

  constexpr bool ok() const { return ok_; }
  constexpr Error error() const { return ok_ ? Error::kOk : error_; }

  // Calling these on an error is a contract violation (it traps).
  T& value() {
    if (!ok_) __builtin_trap();
    return value_;
  }
  const T& value() const {
    if (!ok_) __builtin_trap();
    return value_;
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }

 private:
  union {
    T value_;
    Error error_;
  };
  bool ok_;
};

}  // namespace runtime
}  // namespace mote

/// Returns the Error from the enclosing function when `expr` (an Error) is not kOk.
#define MOTE_TRY(expr)                                                          \
  do {                                                                          \
    if (const ::mote::runtime::Error mote_internal_error = (expr);              \
        mote_internal_error != ::mote::runtime::Error::kOk) {                   \
      return mote_internal_error;                                               \
    }                                                                           \
  } while (0)

/// `MOTE_TRY_ASSIGN(x, f());`: assigns the value of the Result `f()` to the lvalue `x`, or returns
/// its Error from the enclosing function. One statement (if-with-initializer), so it is safe as the
/// body of an unbraced if, else or loop; for that reason it cannot declare `x` (a declaration
/// there does not compile): declare it first.
#define MOTE_TRY_ASSIGN(lhs, expr)                                        \
  if (auto mote_internal_result = (expr); !mote_internal_result.ok())     \
    return mote_internal_result.error();                                  \
  else                                                                    \
    (lhs) = mote_internal_result.value()
