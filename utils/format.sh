#!/usr/bin/env bash
# Formats every C++ file of the project with clang-format-14 and the
# project's .clang-format (LLVM style); with --check, changes nothing and
# fails, naming each place, if any file is not formatted. The `format`
# target runs it; test/Utils/format.test runs the check.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=(-i)
if [ "${1:-}" = --check ]; then
  mode=(--dry-run -Werror)
fi
find examples include lib passes test tools unittests \
  \( -name '*.cpp' -o -name '*.h' \) -type f -print0 |
  sort -z | xargs -0 clang-format-14 "${mode[@]}"
