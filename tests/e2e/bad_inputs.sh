#!/usr/bin/env bash
# Every malformed case in tests/cases/bad/ must be refused by `shard validate`
# and `shard run` with exit status 2 (never 0, never a signal, never a hang),
# and the first error line must be exactly NAME.expected.
#   bash bad_inputs.sh <shard-exe> <source-dir> <build-dir>
# The corpus is copied to a scratch tree (so paths read tests/cases/bad/NAME.yaml)
# where the inputs that cannot be committed are made: a FIFO and a huge file.
set -u
shard=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$src/tests/e2e/lib/bad_corpus.sh"
stage_bad_corpus "$src" "$work"

fail=0 n=0
check() { # name, command words...
  local name=$1 cmd=$2
  shift 2
  local out rc first expected
  out=$(cd "$work" && timeout 10 "$shard" "$cmd" "tests/cases/bad/$name.yaml" "$@" 2>&1)
  rc=$?
  expected=$(cat "$bad/$name.expected")
  first=$(printf '%s\n' "$out" | grep -m1 ': error: ')
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name ($cmd): exit status $rc, expected 2"
    printf '%s\n' "$out" | head -5 | sed 's/^/    /'
    fail=1
  elif [ "$first" != "$expected" ]; then
    echo "FAIL $name ($cmd): first error line differs"
    echo "    expected: $expected"
    echo "    got:      $first"
    fail=1
  fi
}

for exp in "$bad"/*.expected; do
  name=$(basename "$exp" .expected)
  if [ ! -e "$bad/$name.yaml" ] && [ ! -L "$bad/$name.yaml" ]; then
    echo "FAIL $name: $name.expected has no $name.yaml"
    fail=1
    continue
  fi
  n=$((n + 1))
  check "$name" validate
  check "$name" run -o "$work/out-$name"
done
for f in "$bad"/*.yaml; do
  name=$(basename "$f" .yaml)
  [ -e "$bad/$name.expected" ] || { echo "FAIL $name: no $name.expected"; fail=1; }
done
[ "$n" -ge 30 ] || { echo "FAIL: only $n bad inputs (at least 30 expected)"; fail=1; }
[ "$fail" -eq 0 ] && echo "bad_inputs: $n files, each refused by validate and run with the expected first error"
exit "$fail"
