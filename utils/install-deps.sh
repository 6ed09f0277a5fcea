#!/usr/bin/env bash
# Installs what Daydream needs to build and test on Debian 12, from Debian's
# own packages only. Used by the README's commands and by .ci/run.
set -euo pipefail

packages=(
  cmake ninja-build python3
  clang-14 llvm-14-dev llvm-14-tools   # compiler (libFuzzer), LLVM Support, lit/FileCheck
  libclang-rt-14-dev                   # ASan/UBSan/libFuzzer runtimes (only recommended by clang-14)
  libflatbuffers-dev flatbuffers-compiler
  libgtest-dev
  libsqlite3-dev                       # the Nsight Systems importer
  libsimdjson-dev                      # the Kineto importer (zlib1g-dev below gunzips)
  zlib1g-dev libxml2-dev libedit-dev libncurses-dev libffi-dev  # wanted by LLVMConfig.cmake
  bsdutils                             # `script`, for the terminal tests
  time                                 # /usr/bin/time, for utils/bench-import.sh
  librsvg2-bin                         # rsvg-convert: the tests render dd-sim -plot's SVG
  python3-torch python3-torchvision    # the training suite (utils/suite) runs on the CPU in the tests
  pyflakes3                            # the tests lint the Python scripts
  pybind11-dev python3-dev             # the Python module (python/)
  python3-numpy python3-pytest         # Graph.tasks() arrays; the Python tests
  clang-format-14                      # the tests check the C++ is formatted (utils/format.sh)
  clang-tidy-14                        # the tidy target (utils/tidy.sh; CI runs it, the tests do not)
  libopenmpi-dev openmpi-bin           # mpirun -np P dd-sim (docs/Distributed.md) and its tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
