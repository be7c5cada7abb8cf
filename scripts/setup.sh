#!/usr/bin/env bash
# Installs every dependency from Debian's packages and builds Mote (Release) into build/.
# Run as root or as a user with sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-dev                     # sanitizers and libFuzzer
  libflatbuffers-dev flatbuffers-compiler   # .tflite reading and the .mote format
  libgtest-dev libgmock-dev googletest      # tests
  libbenchmark-dev valgrind                 # benchmarks and instruction counts
  ccache                                    # a clean clone reuses earlier builds' objects
  libcli11-dev nlohmann-json3-dev           # command line and JSON
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib  # Cortex-M firmware
  qemu-system-arm                           # running that firmware
  libonnx-dev libprotobuf-dev               # .onnx reading (ONNX's protobuf schema, checker)
  python3-onnx python3-numpy python3-torch  # ONNX test models (QDQ graphs, PyTorch exports)
)
# Node.js and npm run ONNX Runtime, the ONNX tests' reference: Debian's, unless a Node.js with
# its own npm is installed already (a second npm package would conflict with it).
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# ONNX Runtime's Node.js package (CPU build inside; its install script would fetch GPU binaries).
if [ ! -d build/onnxruntime/node_modules/onnxruntime-node ]; then
  npm install --ignore-scripts --no-audit --no-fund --prefix build/onnxruntime onnxruntime-node
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
echo "setup: done. Run ./scripts/test.sh next."
