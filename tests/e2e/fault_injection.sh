#!/usr/bin/env bash
# Fault injection: bin/shard-fault (tests/fault: the same host and command
# line, linked with wrappers) fails the N-th allocation (SHARD_FAULT_ALLOC=N)
# or the N-th file write (SHARD_FAULT_WRITE=N) of its process. Swept over
# every N of a small fracture run, a restart from its checkpoint and a
# campaign of two runs, until N passes the last allocation or write; the
# allocations of a tri2d run with insertions (its storage grows with the
# cracks) and of a restart from its checkpoint (grown to the checkpoint's). Each
# injected failure must end with exit != 0 and a message saying what failed
# (out of memory / the file and the error); an allocation failure never
# exits 2 (bad input: out of memory is not the case's fault, it exits 1,
# the case loader's and the campaign loader's included); no crash, no sanitizer or leak
# report (the ASan build runs this too), and nothing that claims success: no
# summary.yaml with status ok, no campaign table saying ok. A failure the
# program recovers from completely (its outputs identical to a fault-free
# run's) is counted as absorbed.
#   FAULT_STRIDE=K (environment): try every K-th N only (default: 1, every
#   N; 5 in a sanitizer build, several times slower, which looks for leaks
#   and memory errors on the error paths).
#   FAULT_JOBS=J (environment): sweeps run at once (default: twice the CPUs).
set -uo pipefail
shard="$1" src=$(cd "$2" && pwd) build="$3"
fault="$build/bin/shard-fault"
[ -x "$fault" ] || { echo "FAIL: $fault is not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stride=${FAULT_STRIDE:-1}
if [ -z "${FAULT_STRIDE:-}" ] && nm "$fault" 2>/dev/null | grep '__asan_init' >/dev/null; then stride=5; fi
case="$src/tests/cases/fracture/expanding.yaml"
sets=(--set model.elements=40 --set time.checkpoint_every=60 --set output.every=40 --no-progress)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
# the model plugins linked with the same wrappers (tests/fault/CMakeLists.txt):
# the bar's allocations and writes are swept too
models="$build/lib/shard/fault-models"
[ -f "$models/bar.so" ] || { echo "FAIL: $models/bar.so is not built"; exit 1; }
export SHARD_PLUGIN_PATH="$models"

# fault-free references
"$fault" run "$case" -o "$tmp/ref" "${sets[@]}" >/dev/null 2>&1 || { echo "FAIL: reference run"; exit 1; }
grep -q "file: \"$models/bar.so\"" "$tmp/ref/provenance.yaml" ||
  { echo "FAIL: the reference run did not use the wrapped model plugin $models/bar.so"; exit 1; }
mkdir "$tmp/base"
cp "$tmp/ref/case.resolved.yaml" "$tmp/ref/checkpoint.bin" "$tmp/base/"
cp "$tmp/ref/history.csv" "$tmp/base/.history.csv.partial" # a restart keeps its bytes up to the checkpoint
cp -r "$tmp/base" "$tmp/ref_restart"
"$fault" run --restart "$tmp/ref_restart" --no-progress >/dev/null 2>&1 || { echo "FAIL: reference restart"; exit 1; }
# the tri2d block breaking on a wall (27 insertions by 3 us, a checkpoint at step 60)
tcase="$src/cases/examples/tri2d_wall_fragmentation.yaml"
tsets=(--set time.end=3e-6 --set time.checkpoint_every=60 --set output.every=40 --no-progress)
"$fault" run "$tcase" -o "$tmp/tref" "${tsets[@]}" >/dev/null 2>&1 || { echo "FAIL: reference tri2d run"; exit 1; }
grep -q "file: \"$models/tri2d.so\"" "$tmp/tref/provenance.yaml" ||
  { echo "FAIL: the reference tri2d run did not use the wrapped model plugin $models/tri2d.so"; exit 1; }
mkdir "$tmp/tbase"
cp "$tmp/tref/case.resolved.yaml" "$tmp/tref/checkpoint.bin" "$tmp/tbase/"
cp "$tmp/tref/history.csv" "$tmp/tbase/.history.csv.partial"
cp -r "$tmp/tbase" "$tmp/tref_restart"
"$fault" run --restart "$tmp/tref_restart" --no-progress >/dev/null 2>&1 || { echo "FAIL: reference tri2d restart"; exit 1; }
printf 'base: %s\nset: {model.elements: 20, time.checkpoint_every: 60, output.every: 40}\nsweep:\n  fracture.strength.seed: [1, 2]\n' \
  "$case" >"$tmp/c.yaml"
"$fault" campaign "$tmp/c.yaml" -o "$tmp/ref_campaign" -j 1 --no-progress >/dev/null 2>&1 || { echo "FAIL: reference campaign"; exit 1; }

strip_summary() { grep -vE '^\s+(total|setup|loop|per_step):' "$1"; }
# the outputs of a run directory are the fault-free ones
same_run() { # DIR REF
  for f in history.csv interfaces.csv fragments.csv case.resolved.yaml; do
    [ -e "$2/$f" ] || [ -e "$1/$f" ] || continue # (tri2d writes no interfaces.csv)
    cmp -s "$1/$f" "$2/$f" || return 1
  done
  diff -q <(strip_summary "$1/summary.yaml") <(strip_summary "$2/summary.yaml") >/dev/null
}
# campaign.csv without its wall-time and host columns
table() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = $i !~ /^(wall_time|cpu_time|host)/ }
  { s = ""; for (i = 1; i <= NF; i++) if (keep[i]) s = s $i ","; print s }' "$1"; }
same_campaign() { # DIR REF: the same table and the same runs
  diff -q <(table "$1/campaign.csv") <(table "$2/campaign.csv") >/dev/null || return 1
  for r in "$2"/runs/*; do same_run "$1/runs/${r##*/}" "$r" || return 1; done
}

# sweep SCENARIO ALLOC|WRITE: N = 1, 1+stride, ... until the N-th point is
# not reached. Its own directory $tmp/SCENARIO_KIND holds the run (x), its
# output (out, err), and at the end its report line and its count of bad
# points (the sweeps run side by side, below).
sweep() {
  local scen=$1 kind=$2 n=1 tried=0 clean=0 absorbed=0 nbad=0 last=0
  local var=SHARD_FAULT_$kind w="$tmp/${1}_$2" dir="$tmp/${1}_$2/x" ref code
  mkdir -p "$w"
  while :; do
    rm -rf "$dir"
    case $scen in
    run) ref="$tmp/ref"
      env "$var=$n" "$fault" run "$case" -o "$dir" "${sets[@]}" >"$w/out" 2>"$w/err"; code=$? ;;
    restart) ref="$tmp/ref_restart"
      cp -r "$tmp/base" "$dir"
      env "$var=$n" "$fault" run --restart "$dir" --no-progress >"$w/out" 2>"$w/err"; code=$? ;;
    campaign) ref="$tmp/ref_campaign"
      env "$var=$n" "$fault" campaign "$tmp/c.yaml" -o "$dir" -j 1 --no-progress >"$w/out" 2>"$w/err"; code=$? ;;
    tri2d) ref="$tmp/tref"
      env "$var=$n" "$fault" run "$tcase" -o "$dir" "${tsets[@]}" >"$w/out" 2>"$w/err"; code=$? ;;
    tri2d_restart) ref="$tmp/tref_restart"
      cp -r "$tmp/tbase" "$dir"
      env "$var=$n" "$fault" run --restart "$dir" --no-progress >"$w/out" 2>"$w/err"; code=$? ;;
    esac
    if ! grep -q '^shard-fault: ' "$w/err"; then # past the last point: a normal, successful run
      [ "$code" -eq 0 ] || { echo "FAIL: $scen $kind=$n: no fault injected, exit $code"; cat "$w/err"; nbad=$((nbad + 1)); }
      break
    fi
    tried=$((tried + 1)) last=$n
    local why=""
    local msg
    msg=$(grep -v '^shard-fault: ' "$w/err")
    if grep -qE 'Sanitizer|runtime error' "$w/err"; then
      why="sanitizer report"
    elif [ "$code" -ge 128 ]; then
      why="killed by signal $((code - 128))"
    elif [ "$code" -eq 0 ]; then
      if { [ "$scen" = campaign ] && same_campaign "$dir" "$ref"; } || { [ "$scen" != campaign ] && same_run "$dir" "$ref"; }; then
        absorbed=$((absorbed + 1))
        echo "  absorbed: $scen $kind=$n ($(grep -m1 '^shard-fault: ' "$w/err" | sed 's/.*(\(.*\)).*/\1/'))"
      else
        why="exit 0 after the injected failure, outputs differ from a fault-free run"
      fi
    elif [ -z "$msg" ]; then
      why="exit $code without a message"
    elif [ "$kind" = ALLOC ] && [ "$code" -eq 2 ]; then
      why="exit 2 (bad input) after an allocation failure: out of memory exits 1"
    elif [ "$kind" = ALLOC ] && ! grep -qiE 'out of memory|cannot allocate memory' <<<"$msg"; then
      why="exit $code, the message does not say out of memory"
    elif [ "$kind" = WRITE ] && ! grep -qiE 'no space left on device|cannot (write|create|remove|open|rename|continue)' <<<"$msg"; then
      why="exit $code, the message names no failed write"
    elif [ "$scen" != campaign ] && grep -qx 'status: ok' "$dir/summary.yaml" 2>/dev/null; then
      why="exit $code, but summary.yaml says status: ok"
    elif [ "$scen" = campaign ] && [ -f "$dir/campaign.csv" ] && [ "$(cut -d, -f3 "$dir/campaign.csv" | grep -c '^ok$')" -eq 2 ] &&
      ! same_campaign "$dir" "$ref"; then
      why="exit $code, but campaign.csv says every run ok"
    else
      clean=$((clean + 1))
    fi
    if [ -n "$why" ]; then
      nbad=$((nbad + 1))
      [ "$nbad" -le 10 ] && { echo "BAD: $scen $kind=$n: $why"; sed 's/^/    /' "$w/err" | head -8; }
    fi
    n=$((n + stride))
  done
  printf '%-8s %-5s N = 1..%-4d %4d tried: %4d clean errors, %2d absorbed, %d bad\n' "$scen" "$kind" "$last" "$tried" \
    "$clean" "$absorbed" "$nbad" >"$w/report"
  echo "$nbad" >"$w/nbad"
}

# The eight sweeps side by side, FAULT_JOBS at a time, the longest first
# (about 2300 and 2100 write points for a restart and a run, 900 allocations
# of a campaign, each of those starting its two runs; a few hundred for the
# others); each prints into its own log, shown in order afterwards. The same
# points as one after the other, in a fraction of the wall time: a point is
# a process start, some file writes and their fsync, mostly waiting (0.1 s
# of wall time for 0.015 s of CPU), so the default is twice the CPUs.
ncpu=$(nproc 2>/dev/null || echo 1)
jobs_max=${FAULT_JOBS:-$((2 * ncpu))}
[ "$jobs_max" -ge 1 ] 2>/dev/null || jobs_max=1
for sk in "restart WRITE" "run WRITE" "campaign ALLOC" "tri2d ALLOC" "restart ALLOC" "tri2d_restart ALLOC" "run ALLOC" \
  "campaign WRITE"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  sweep $sk >"$tmp/${sk// /_}.log" 2>&1 &
done
wait
bad=0
sweeps=(run_ALLOC run_WRITE restart_ALLOC restart_WRITE campaign_ALLOC campaign_WRITE tri2d_ALLOC tri2d_restart_ALLOC)
for sk in "${sweeps[@]}"; do
  cat "$tmp/$sk.log"
  [ -f "$tmp/$sk/nbad" ] || { echo "FAIL: the $sk sweep did not finish"; bad=$((bad + 1)); continue; }
  bad=$((bad + $(cat "$tmp/$sk/nbad")))
done
for sk in "${sweeps[@]}"; do cat "$tmp/$sk/report" 2>/dev/null; done
[ "$bad" -eq 0 ] || { echo "FAIL: $bad injected failures ended badly"; exit 1; }
echo "fault injection: PASS"
