#!/usr/bin/env bash
# Runs clang-tidy-14 with the project's .clang-tidy (LLVM naming, bugprone-*,
# performance-*) over every C++ source the build compiles (its
# compile_commands.json; the fuzzers' second builds of the IR and importer
# sources are left out, as are the tests' hand-written inputs) and fails if
# anything is found. The `tidy` target runs it on build/. Checks that are
# off, each with its reason, are listed in .clang-tidy.
#   utils/tidy.sh [BUILD_DIR] [-j N]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build jobs=$(nproc)
while [ $# -gt 0 ]; do
  case $1 in
    -j) jobs=${2:?}; shift ;;
    *) build=$1 ;;
  esac
  shift
done
db=$build/compile_commands.json
[ -f "$db" ] || { echo "tidy.sh: no $db (configure the build first: utils/build.sh)" >&2; exit 2; }
# The sources: the project's own, each once (the fuzzers compile lib/IR and
# lib/Import a second time with other flags).
mapfile -t files < <(python3 - "$db" <<'PY'
import json, os, sys
seen = set()
for e in json.load(open(sys.argv[1])):
    f = os.path.normpath(os.path.join(e["directory"], e["file"]))
    if "/fuzzers/" in e.get("output", "") or "/tools/fuzzers/" in e["directory"]:
        continue
    if f.startswith(os.getcwd() + "/") and "/test/" not in f:
        seen.add(f)
print("\n".join(sorted(seen)))
PY
)
echo "tidy.sh: ${#files[@]} files, $jobs at a time"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# run-clang-tidy prints each file's findings; -quiet drops the banner.
run-clang-tidy-14 -quiet -p "$build" -j "$jobs" \
  -header-filter="^$PWD/(include|lib|passes|tools)/" "${files[@]}" >"$out" 2>&1 || true
# run-clang-tidy-14 always asks for colour: strip it.
sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -E '^/.*: (warning|error): ' | sort -u >"$out.found" || true
n=$(wc -l <"$out.found")
cat "$out.found"
rm -f "$out.found"
echo "tidy.sh: $n finding(s)"
[ "$n" -eq 0 ]
