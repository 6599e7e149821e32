#!/usr/bin/env bash
# e2e: `shard run --threads N` gives the same results, bit for bit, as one
# thread. Four cases, each run with --threads 1, 2 and 3 (more threads than
# this machine may have cores) and --thread-grain 8 so that the threaded
# loops run on these small bars (the default grain would keep them serial):
#   damaged_bar           NSN, 1000 cohesive interfaces in contact (W', LCP)
#   free_ring_case        NSN, insertions (the arrays grow between steps)
#   damaged_bar_penalty   explicit Newmark, penalty contact in the interfaces
#   free_ring_penalty_case explicit Newmark with insertions
# history.csv, fragments.csv and interfaces.csv `cmp`-equal, and every
# energy.* key of summary.yaml; summary.yaml's `threads` says what the run
# had. In a build without OpenMP, --threads 2 warns once on stderr that the
# build has no threads and runs in one (threads: 1); with OpenMP it must
# not warn. Bad values (--threads -1, abc, 2x, --thread-grain 0, and
# shard campaign --threads-per-run abc) exit 2 with a message naming the option.
#   bash threads.sh <shard-exe> <source-dir> <build-dir>
set -euo pipefail
shard="$1" src="$2" build="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
omp=0
grep -q '^OpenMP_C_FLAGS:STRING=.' "$build/CMakeCache.txt" 2>/dev/null && ! grep -q '^SHARD_OPENMP:BOOL=OFF' "$build/CMakeCache.txt" && omp=1

run() { # NAME CASE THREADS END
  local name=$1 case=$2 t=$3 end=$4
  "$shard" run "$src/cases/paper/$case.yaml" --no-progress --set time.end="$end" --threads "$t" --thread-grain 8 \
    -o "$tmp/$name.$t" >/dev/null 2>"$tmp/$name.$t.err" || { cat "$tmp/$name.$t.err"; fail "$name --threads $t"; }
}

check() { # NAME CASE END
  local name=$1 case=$2 end=$3
  for t in 1 2 3; do run "$name" "$case" $t "$end"; done
  for t in 2 3; do
    for f in history.csv fragments.csv interfaces.csv; do
      [ -f "$tmp/$name.1/$f" ] || fail "$name: no $f"
      cmp -s "$tmp/$name.1/$f" "$tmp/$name.$t/$f" || fail "$name: $f differs between --threads 1 and --threads $t"
    done
    e1=$(awk '/^[a-z]/ {sec = $1} sec == "energy:" || /^energy\./' "$tmp/$name.1/summary.yaml")
    et=$(awk '/^[a-z]/ {sec = $1} sec == "energy:" || /^energy\./' "$tmp/$name.$t/summary.yaml")
    [ -n "$e1" ] || fail "$name: no energies in summary.yaml"
    [ "$e1" = "$et" ] || fail "$name: summary energies differ between --threads 1 and --threads $t"
    got=$(awk '$1 == "threads:" {print $2}' "$tmp/$name.$t/summary.yaml")
    if grep -q "has no threads" "$tmp/$name.$t.err"; then
      [ $omp = 0 ] || fail "$name: a build with OpenMP warns that it has no threads"
      [ "$(grep -c "has no threads" "$tmp/$name.$t.err")" = 1 ] || fail "$name: the warning is not given once"
      [ "$got" = 1 ] || fail "$name: a build without threads records threads: $got"
    else
      [ $omp = 1 ] || fail "$name: a build without OpenMP ran --threads $t without a warning"
      [ "$got" = "$t" ] || fail "$name: summary.yaml has threads: $got for --threads $t"
    fi
  done
  [ "$(awk '$1 == "threads:" {print $2}' "$tmp/$name.1/summary.yaml")" = 1 ] || fail "$name: threads of --threads 1"
  echo "threads: $name: the same with 1, 2 and 3 threads ($(awk '$1 == "steps:" {print $2}' "$tmp/$name.1/summary.yaml") steps)"
}

check damaged_bar damaged_bar 2e-8
check free_ring free_ring_case 1e-8
check damaged_bar_penalty damaged_bar_penalty 5e-9
check free_ring_penalty free_ring_penalty_case 1e-8
# the fragmentation cases fragment and insert within these spans
ins=$(awk '$1 == "insertions:" {print $2}' "$tmp/free_ring.1/summary.yaml")
[ "${ins:-0}" -gt 100 ] || fail "free_ring_case: $ins insertions, expected some hundreds"
ins=$(awk '$1 == "insertions:" {print $2}' "$tmp/free_ring_penalty.1/summary.yaml")
[ "${ins:-0}" -gt 100 ] || fail "free_ring_penalty_case: $ins insertions, expected some hundreds"

# Threads spinning at exit (OMP_WAIT_POLICY=active) while the plugins are
# closed: the OpenMP runtime must stay loaded under them (it crashed with
# SIGSEGV in the runtime's thread loop when it was unloaded with the plugins)
for k in 1 2 3; do
  set +e
  OMP_WAIT_POLICY=active "$shard" run "$src/cases/paper/damaged_bar.yaml" --no-progress --set time.end=2e-9 \
    --threads 2 --thread-grain 8 -o "$tmp/active" >/dev/null 2>"$tmp/active.err"
  rc=$?
  set -e
  [ $rc = 0 ] || fail "OMP_WAIT_POLICY=active --threads 2: exit $rc $(cat "$tmp/active.err")"
done

# bad values: exit 2, nothing run, the option named
case="$(cd "$src" && pwd)/cases/paper/ball_e1.yaml"
for v in -1 abc 2x ""; do
  set +e
  "$shard" run "$case" --no-progress --threads "$v" -o "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
  rc=$?
  set -e
  [ $rc = 2 ] || fail "--threads '$v': exit $rc, expected 2"
  grep -q -- "--threads takes a number of threads >= 1, or 0 or auto for the cores, got '$v'" "$tmp/bad.err" ||
    fail "--threads '$v': $(cat "$tmp/bad.err")"
  [ ! -e "$tmp/bad/summary.yaml" ] || fail "--threads '$v' ran"
done
set +e
"$shard" run "$case" --no-progress --thread-grain 0 -o "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
rc=$?
set -e
[ $rc = 2 ] && grep -q -- "--thread-grain takes a number of loop iterations >= 1, got '0'" "$tmp/bad.err" ||
  fail "--thread-grain 0: exit $rc, $(cat "$tmp/bad.err")"
# 0 and auto: the cores
"$shard" run "$case" --no-progress --set time.end=0.01 --threads auto -o "$tmp/auto" >/dev/null 2>"$tmp/auto.err" ||
  fail "--threads auto: $(cat "$tmp/auto.err")"
want=$(getconf _NPROCESSORS_ONLN)
[ $omp = 1 ] || want=1
[ "$(awk '$1 == "threads:" {print $2}' "$tmp/auto/summary.yaml")" = "$want" ] || fail "--threads auto: not $want threads"
cat > "$tmp/camp.yaml" <<EOF
name: t
base: $case
sweep:
  time.end: [0.01]
EOF
set +e
"$shard" campaign "$tmp/camp.yaml" --no-progress --threads-per-run abc -o "$tmp/camp" >/dev/null 2>"$tmp/camp.err"
rc=$?
set -e
[ $rc = 2 ] && grep -q -- "--threads-per-run takes a number of threads >= 1, or 0 or auto for the cores, got 'abc'" \
  "$tmp/camp.err" || fail "campaign --threads-per-run abc: exit $rc, $(cat "$tmp/camp.err")"
# a campaign passes its runs the threads (and records them)
"$shard" campaign "$tmp/camp.yaml" --no-progress --threads-per-run 2 -o "$tmp/camp" >/dev/null 2>"$tmp/camp.err" ||
  fail "campaign --threads-per-run 2: $(cat "$tmp/camp.err")"
want=2
[ $omp = 1 ] || want=1
got=$(awk '$1 == "threads:" {print $2}' "$tmp"/camp/runs/*/summary.yaml)
[ "$got" = "$want" ] || fail "campaign --threads-per-run 2: the run has threads: $got, expected $want"
echo "threads: bad values refused, auto = $(getconf _NPROCESSORS_ONLN) cores, campaigns pass --threads-per-run"
