#!/usr/bin/env bash
# scripts/bench_numpy.py on a short run: the NumPy NSN step follows shard's
# history of the damaged bar (contact-node u and v, kinetic energy, active
# sets) within the script's tolerances, and both costs are printed.
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
out=$("$py" "$src/scripts/bench_numpy.py" --shard "$shard" --check 60 --steps 20) ||
  { echo "FAIL: bench_numpy.py exited $?"; echo "$out"; exit 1; }
echo "$out"
grep -Eq "^NumPy, W' assembled by element \(bincount\): over 61 steps against shard's history: .*: agree$" <<<"$out" ||
  { echo "FAIL: the NumPy step does not agree with shard"; exit 1; }
grep -Eq "^CPU per step over 21 steps: shard [0-9.]+ us" <<<"$out" || { echo "FAIL: no shard cost"; exit 1; }
grep -Eq "^  NumPy, W' assembled by element \(bincount\): [0-9.]+ us, [0-9.]+ x shard" <<<"$out" ||
  { echo "FAIL: no NumPy cost"; exit 1; }
echo "bench_numpy: the NumPy step agrees with shard"
