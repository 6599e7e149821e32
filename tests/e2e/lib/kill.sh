# Sourced by the e2e scripts that stop a run the hard way.
# kill_after_checkpoint DIR COMMAND...: start COMMAND in a session of its own
# and SIGKILL the whole session (a campaign, a wrapper script and their runs)
# once DIR holds a checkpoint. The kill must land while the run is going: a
# checkpoint there and its history still partial (a run that ended has
# published history.csv, and may be killed before it writes its summary).
# The watcher polls, and on a loaded machine it can come late: a plain
# `... run ... -o DIR` into a directory of its own is then started again from
# nothing (3 tries); otherwise, or after that, the test fails (make the run
# longer).
kill_after_checkpoint() {
  local dir=$1; shift
  local tries=1 t
  case " $* " in *" run "*" -o $dir "*) [ -L "$dir" ] || tries=3 ;; esac
  for ((t = 1; t <= tries; ++t)); do
    [ "$t" -eq 1 ] || rm -rf "$dir"
    setsid "$@" >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 1 12000); do
      [ -f "$dir/checkpoint.bin" ] && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.01
    done
    kill -9 -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    [ -f "$dir/checkpoint.bin" ] && [ -f "$dir/.history.csv.partial" ] && [ ! -f "$dir/summary.yaml" ] && return 0
  done
  echo "FAIL: $dir was not killed after a checkpoint while it ran ($tries tries)"
  exit 1
}

# signal_after_rows SIG FILE COMMAND...: start COMMAND, send it SIG once FILE
# (a partial history) holds 20 kB, and set `status` to COMMAND's exit status;
# fails the test when COMMAND ended before it could be signalled.
signal_after_rows() {
  local sig=$1 file=$2; shift 2
  "$@" >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 12000); do
    [ -f "$file" ] && [ "$(stat -c %s "$file" 2>/dev/null || echo 0)" -ge 20000 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: '$*' ended before it could be signalled; make it longer"; exit 1; }
  kill "-$sig" "$pid"
  status=0
  wait "$pid" || status=$?
}

# restart_matches CASE NAME ARGS...: run CASE (`shard run CASE ARGS`) whole
# into $tmp/full_NAME and again into $tmp/killed_NAME, killed there after a
# checkpoint and continued with `shard run --restart`; fails the test unless
# the two histories are the same byte for byte and the two summaries the same
# but for wall times and the restart count, which must be 1. Uses the
# caller's $shard and $tmp.
restart_matches() {
  local case=$1 name=$2; shift 2
  local full="$tmp/full_$name" killed="$tmp/killed_$name"
  "$shard" run "$case" -o "$full" "$@" >/dev/null
  kill_after_checkpoint "$killed" "$shard" run "$case" -o "$killed" "$@"
  "$shard" run --restart "$killed" --no-progress >/dev/null
  cmp "$full/history.csv" "$killed/history.csv" || { echo "FAIL: $name: history.csv differs after restart"; exit 1; }
  local strip='^(\s+(total|setup|loop|per_step)|restarts):'
  diff <(grep -vE "$strip" "$full/summary.yaml") <(grep -vE "$strip" "$killed/summary.yaml") ||
    { echo "FAIL: $name: summary differs after restart"; exit 1; }
  grep -qx 'restarts: 1' "$killed/summary.yaml" || { echo "FAIL: $name: no restart counted"; exit 1; }
}
