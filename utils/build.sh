#!/usr/bin/env bash
# Configures (once) and builds Daydream in build/ with Clang, so that the
# libFuzzer targets are built too. Arguments go to the build step; bare
# target names are accepted too: utils/build.sh dd-opt SimTests.
# DAYDREAM_BUILD_DIR picks another build folder (default build/), so that
# several checkouts' or helpers' builds do not share one.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${DAYDREAM_BUILD_DIR:-build}
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
fi
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  set -- --target "$@"
fi
cmake --build "$dir" "$@"
