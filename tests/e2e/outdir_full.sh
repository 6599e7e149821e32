#!/usr/bin/env bash
# e2e: a write that fails stops the run at once (exit 1) with the step, the
# time, the file and the system's error; nothing claims success. Two routes:
#   - a full disk (ENOSPC): a 64 KiB tmpfs, when this user may mount one
#     (root in CI); said plainly when it may not;
#   - a file size limit (ulimit -f with SIGXFSZ ignored: EFBIG), which needs
#     no privilege and always runs.
# usage: outdir_full.sh SHARD SOURCE_DIR BUILD_DIR
set -uo pipefail
shard=$1 src=$(cd "$2" && pwd)
T=$(mktemp -d)
mounted=0
trap '[ "$mounted" -eq 1 ] && umount "$T/full"; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ball="$src/cases/paper/ball_e08.yaml"
# 50000 steps, a history row each: several MB, far beyond both limits
long=(--set time.dt=1e-4 --no-progress)

# DIR CODE ERRFILE REASON: the run stopped early with the file and the reason named
check_stopped() {
  local dir=$1 code=$2 err=$3 reason=$4
  [ "$code" -eq 1 ] || fail "exit $code on '$reason', expected 1: $(cat "$err")"
  grep -Eq "^shard run: step ([0-9]+) \(t = [0-9.e+-]+ s\): cannot write '$dir/\.history\.csv\.partial': $reason$" "$err" ||
    fail "message does not name the step, the file and '$reason': $(cat "$err")"
  local step
  step=$(sed -nE 's/^shard run: step ([0-9]+) .*/\1/p' "$err")
  [ "$step" -lt 5000 ] || fail "the run went on to step $step after the first failed write"
  [ ! -e "$dir/history.csv" ] || fail "a history that could not be written was published"
  if [ -e "$dir/summary.yaml" ]; then
    grep -qx 'status: failed' "$dir/summary.yaml" || fail "summary after a failed write: $(head -2 "$dir/summary.yaml")"
    grep -qF "$reason" "$dir/summary.yaml" || fail "the summary does not give the reason"
  fi
}

# 1. the file size limit (any user)
code=0
(trap '' XFSZ; ulimit -f 40; exec "$shard" run "$ball" -o "$T/big" "${long[@]}") >/dev/null 2>"$T/err1" || code=$?
check_stopped "$T/big" "$code" "$T/err1" "File too large"
grep -qx 'status: failed' "$T/big/summary.yaml" || fail "no failed summary under the size limit (it fits there)"

# ... and a checkpoint larger than the limit stops the run at its step, the summary saying why
code=0
(trap '' XFSZ; ulimit -f 40; exec "$shard" run "$src/tests/cases/fracture/expanding.yaml" -o "$T/ck" \
  --set model.elements=2000 --set time.checkpoint_every=400 --no-progress) >/dev/null 2>"$T/err3" || code=$?
[ "$code" -eq 1 ] || fail "a failed checkpoint write exited $code: $(cat "$T/err3")"
grep -qE "^shard run: step 400 \(t = [0-9.e+-]+ s\): checkpoint: cannot write '$T/ck/checkpoint\.bin': File too large$" "$T/err3" ||
  fail "checkpoint message: $(cat "$T/err3")"
grep -qx 'status: failed' "$T/ck/summary.yaml" || fail "summary after a failed checkpoint"
[ -z "$(find "$T/ck" -name '.*.tmp.*')" ] || fail "a temporary of the failed write was left: $(ls -A "$T/ck")"

# 2. a full disk
mkdir "$T/full"
if mount -t tmpfs -o size=64k tmpfs "$T/full" 2>"$T/mount.err"; then
  mounted=1
  code=0
  "$shard" run "$ball" -o "$T/full/o" "${long[@]}" >/dev/null 2>"$T/err2" || code=$?
  check_stopped "$T/full/o" "$code" "$T/err2" "No space left on device"
  full="full disk (tmpfs) and file size limit"
else
  echo "outdir_full: full-disk route skipped: cannot mount a tmpfs here ($(cat "$T/mount.err")); the size-limit route ran"
  full="file size limit only"
fi
echo "outdir_full: stopped at the first failed write with step, file and reason ($full)"
