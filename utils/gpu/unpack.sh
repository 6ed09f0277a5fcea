#!/usr/bin/env bash
# Unpacks what utils/gpu/lease.sh packed: joins lease.tar.xz.partN, extracts
# the archive into DIR (DIR/lease/{machine.txt,lease.log,suite,validate})
# and gzips the traces back to the names run.py and validate.sh gave them.
#   utils/gpu/unpack.sh FROM DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: utils/gpu/unpack.sh FROM DIR" >&2; exit 2; }
from=$1 dir=$2
if [ -f "$from/lease.tar.xz" ]; then
  archive=("$from/lease.tar.xz")
else
  mapfile -t archive < <(find "$from" -maxdepth 1 -name 'lease.tar.xz.part*' | sort -V)
  [ ${#archive[@]} -gt 0 ] || { echo "unpack.sh: no lease.tar.xz(.partN) in $from" >&2; exit 1; }
fi
mkdir -p "$dir"
cat "${archive[@]}" | xz -dc | tar -C "$dir" -xf -
find "$dir/lease" \( -name '*.trace.json' -o -name '*.ddrec' \) -exec gzip -9 {} +
echo "unpack.sh: $dir/lease"
