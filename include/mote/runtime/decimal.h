#pragma once
// Decimal digits of an unsigned number without printf (the runtime's memory status, the
// firmware's console and runner). Embeddable C++17, header only.

#include <stddef.h>
#include <stdint.h>

namespace mote {

// Longest decimal uint64_t: 18446744073709551615.
inline constexpr size_t kMaxDecimalDigits = 20;

// Writes the digits of `value`, most significant first, to `out` (no terminator); returns how many.
inline size_t decimal_digits(uint64_t value, char (&out)[kMaxDecimalDigits]) {
  char reversed[kMaxDecimalDigits];
  size_t n = 0;
  do {
    reversed[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (size_t i = 0; i < n; ++i) out[i] = reversed[n - 1 - i];
  return n;
}

}  // namespace mote
