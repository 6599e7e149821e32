#!/usr/bin/env bash
# scripts/campaign_times.sh: per-run times, their sum and the -j N wall time
# of runs started in index order, on tables written here (two tables pooled,
# a failed run left out, a run listed twice refused).
# usage: campaign_times.sh SHARD SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$(cd "$2" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ct="$src/scripts/campaign_times.sh"
printf 'index,status,wall_time.total\n0,ok,10\n1,ok,1\n3,ok,1\n' > "$T/a.csv"
printf 'status,index,wall_time.total\nok,2,1\nok,4,10\nfailed,5,99\n' > "$T/b.csv"
# index order 10, 1, 1, 1, 10 on two slots: 10 | 1+1+1+10 = 13
out=$("$ct" "$T/a.csv" "$T/b.csv") || fail "pooled: $out"
grep -qx "runs ok: 5 (1 not ok, left out)" <<<"$out" && grep -qx "per run: min 1 s, median 1 s, max 10 s" <<<"$out" &&
  grep -qx "sum: 23 s = 0.01 core-hours" <<<"$out" && grep -qx "with -j 2, in index order: 13 s = 0.00 h" <<<"$out" ||
  fail "pooled says: $out"
out=$("$ct" -j 1 "$T/a.csv" "$T/b.csv") || fail "-j 1: $out"
grep -qx "with -j 1, in index order: 23 s = 0.01 h" <<<"$out" || fail "-j 1 says: $out"
out=$("$ct" -j 5 "$T/a.csv" "$T/b.csv") || fail "-j 5: $out"
grep -qx "with -j 5, in index order: 10 s = 0.00 h" <<<"$out" || fail "-j 5 says: $out"
out=$("$ct" "$T/a.csv" "$T/a.csv" 2>&1) && fail "a run listed twice was accepted: $out"
grep -q "run 0 appears twice" <<<"$out" || fail "twice says: $out"
out=$("$ct" -j 0 "$T/a.csv" 2>&1) && fail "-j 0 accepted"
grep -q "positive integer" <<<"$out" || fail "-j 0 says: $out"
printf 'index,steps\n0,5\n' > "$T/c.csv"
out=$("$ct" "$T/c.csv" 2>&1) && fail "a table without times accepted"
grep -q "needs the columns" <<<"$out" || fail "no times says: $out"
echo PASS
