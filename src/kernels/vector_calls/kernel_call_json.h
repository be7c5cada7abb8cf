#pragma once
// Reference-vector sets (shared/vectors/<op>/<set>.json) as kernel calls (kernel_call.h): the
// host's vector test runs them, and mote_write_vector_calls writes them for the firmware's. Host
// test code only.

#include <stdint.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "kernels/vector_calls/kernel_call.h"

namespace mote::kernels::testing {

// The sets' "op" values that kernel calls carry.
inline constexpr const char* kCallOps[] = {
    "conv",     "depthwise_conv",     "fully_connected",     "avgpool",  "maxpool",
    "add",      "mul",                "conv_s16",            "conv_int4", "depthwise_conv_s16",
    "depthwise_conv_int4", "fully_connected_s16", "fully_connected_int4"};

// The set's call, encoded; 4-byte words so that decode_call can read it in place. Throws
// std::runtime_error for a set it cannot read.
std::vector<uint32_t> encode_call(const nlohmann::json& set);

}  // namespace mote::kernels::testing
