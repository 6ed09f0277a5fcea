#!/usr/bin/env bash
# Configures (once) and builds Daydream in build/ with Clang, so that the
# libFuzzer targets are built too. Arguments go to the build step; bare
# target names are accepted too: utils/build.sh dd-opt SimTests.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
fi
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  set -- --target "$@"
fi
cmake --build build "$@"
