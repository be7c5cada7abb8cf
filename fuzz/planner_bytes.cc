#include "fuzz/planner_bytes.h"

#include <algorithm>
#include <bit>
#include <string>

namespace mote::fuzz {
namespace {

uint64_t scaled(uint8_t lo, uint8_t hi, uint8_t exponent) {
  return uint64_t{static_cast<uint64_t>(lo) | (static_cast<uint64_t>(hi) << 8)} << (exponent % 64);
}

// mantissa << exponent, as close to `value` as 16 bits allow (rounded down).
void put_scaled(uint64_t value, std::vector<uint8_t>& out) {
  uint8_t exponent = 0;
  while ((value >> exponent) > 0xFFFF) ++exponent;
  const uint64_t mantissa = value >> exponent;
  out.push_back(static_cast<uint8_t>(mantissa));
  out.push_back(static_cast<uint8_t>(mantissa >> 8));
  out.push_back(exponent);
}

}  // namespace

DecodedProblem decode_problem(const uint8_t* data, size_t size) {
  DecodedProblem d;
  if (size < kHeaderBytes) return d;
  const int32_t steps = int32_t{data[0]} + 1;
  d.problem.num_steps = steps;
  d.node_limit = uint64_t{data[1]} * 16 + 1;
  const size_t count = std::min(kMaxBuffers, (size - kHeaderBytes) / kBufferBytes);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* r = data + kHeaderBytes + i * kBufferBytes;
    planner::Buffer b;
    b.name = std::to_string(i);  // (not "b" + ...: gcc 12 warns falsely about that)
    b.name.insert(b.name.begin(), 'b');
    b.kind = static_cast<planner::BufferKind>(r[0] & 3);
    b.alignment = uint32_t{1} << ((r[0] >> 2) & 15);
    b.first_step = r[1] % steps;
    b.last_step = std::min(steps - 1, b.first_step + r[2]);
    b.size = scaled(r[3], r[4], r[5]);
    if ((r[0] & 0x40) != 0) b.fixed_offset = scaled(r[6], r[7], r[8]) & ~uint64_t{b.alignment - 1};
    d.problem.buffers.push_back(std::move(b));
  }
  return d;
}

std::vector<uint8_t> encode_problem(const planner::Problem& problem, uint64_t node_limit) {
  std::vector<uint8_t> out;
  const int32_t steps = std::clamp(problem.num_steps, 1, 256);
  out.push_back(static_cast<uint8_t>(steps - 1));
  out.push_back(static_cast<uint8_t>(std::min<uint64_t>(node_limit / 16, 255)));
  for (const planner::Buffer& b : problem.buffers) {
    if (out.size() >= kHeaderBytes + kMaxBuffers * kBufferBytes) break;
    if (b.first_step >= steps) continue;
    const auto align_log2 = static_cast<uint8_t>(std::min(std::countr_zero(b.alignment), 15));
    out.push_back(static_cast<uint8_t>(static_cast<uint8_t>(b.kind) | (align_log2 << 2) |
                                       (b.fixed_offset ? 0x40 : 0)));
    out.push_back(static_cast<uint8_t>(b.first_step));
    out.push_back(static_cast<uint8_t>(std::min(b.last_step - b.first_step, 255)));
    put_scaled(b.size, out);
    put_scaled(b.fixed_offset.value_or(0), out);
  }
  return out;
}

}  // namespace mote::fuzz
