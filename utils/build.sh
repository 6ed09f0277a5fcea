#!/usr/bin/env bash
# Configures (once) and builds Daydream in build/ with Clang, so that the
# libFuzzer targets are built too. Extra arguments go to the build step.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
fi
cmake --build build "$@"
