// CRC-32 (IEEE 802.3, as zlib's crc32 and `gzip -l` compute it) of a program's constants: the
// compiler records it (`mote compile --checksum`, Program.constants_crc32), Program::load checks
// it; an image built with MOTE_VERIFY crc checks its programs' bytes with it. Half-byte table:
// 64 bytes of flash, no heap, no static constructor.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mote::runtime {

/// The CRC-32 of size bytes at data (0 for none); given the CRC of the bytes before them as
/// `previous`, the CRC of both (as zlib's crc32(previous, data, size)).
inline uint32_t crc32(const uint8_t* data, size_t size, uint32_t previous = 0) {
  static constexpr uint32_t kNibble[16] = {
      0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
      0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
      0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};
  uint32_t crc = previous ^ 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    crc = (crc >> 4) ^ kNibble[crc & 0xFu];
    crc = (crc >> 4) ^ kNibble[crc & 0xFu];
  }
  return crc ^ 0xFFFFFFFFu;
}

/// The CRC-32 of size bytes at data but the skip_bytes at skip_at (skip_at + skip_bytes <= size):
/// how an image built with MOTE_VERIFY crc knows a program without its constants, on the host
/// (mote_program_ops) and on the device (Program::load) alike.
inline uint32_t crc32_skipping(const uint8_t* data, size_t size, size_t skip_at,
                               size_t skip_bytes) {
  const size_t rest = skip_at + skip_bytes;
  return crc32(data + rest, size - rest, crc32(data, skip_at));
}

}  // namespace mote::runtime
