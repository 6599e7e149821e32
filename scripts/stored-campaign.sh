#!/usr/bin/env bash
# A campaign that outlives the machine it runs on: its results live in the
# repository (results/NAME/), the build that computes them is pinned to one
# commit, and each machine (a session, a batch job, a night) continues it.
#
#   scripts/stored-campaign.sh new STORE CAMPAIGN.yaml [COMMIT [A-B]]   # pin (default HEAD), runs A..B
#   scripts/stored-campaign.sh run STORE [-j N]    # build the pin if needed, restore, run --resume
#   scripts/stored-campaign.sh save STORE          # copy what the work directory holds into STORE
#   scripts/stored-campaign.sh stop STORE          # stop its running campaign cleanly, then save
#   scripts/stored-campaign.sh status STORE        # runs done / to continue / to start
#
# STORE/pin holds `commit: C`, `campaign: cases/paper/X.yaml` and, when the
# store holds part of a campaign, `runs: A-B` (shard campaign --runs). The pinned
# commit is checked out as a worktree and built there (RelWithDebInfo, no
# tests); binaries are reproducible (CMakeLists.txt), so every machine with
# Debian 12's toolchain gets plugins with the same bytes, hence the same run
# hashes: finished runs are reused (their run.key is the base case's text and
# the --set list) and a run stopped with a checkpoint continues from it, bit
# for bit. STORE/runs/NNNN keeps of each run its small files (run.key,
# result.yaml, summary.yaml, case.resolved.yaml, provenance.yaml,
# fragment_sizes.csv, fragments.csv, stdout/stderr) and, gzipped, its history and, while
# unfinished, its checkpoint; STORE also keeps the campaign's tables.
# `stop` sends SIGTERM to the campaign `run` started (its pid is in the work
# directory): each run ends its step and writes a checkpoint there, so the
# save that follows loses no step. End a session (a batch job's time limit)
# with it. `run` refuses to start a second campaign on a store whose
# campaign runs on this machine.
# SHARD_PIN_ROOT (default /var/tmp/shard-pin) holds the pinned builds,
# SHARD_WORK_ROOT (default /var/tmp/shard-work) the work directories.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
pin_root=${SHARD_PIN_ROOT:-/var/tmp/shard-pin}
work_root=${SHARD_WORK_ROOT:-/var/tmp/shard-work}

die() { echo "stored-campaign: $*" >&2; exit 2; }
usage() { sed -n '6,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
field() { sed -n "s/^$2: *//p" "$1/pin" | head -n1; }

load() {
  store=$1
  [ -f "$store/pin" ] || die "$store/pin: no such file (create it with: $0 new $store CAMPAIGN.yaml)"
  commit=$(field "$store" commit)
  campaign=$(field "$store" campaign)
  [ -n "$commit" ] && [ -n "$campaign" ] || die "$store/pin: needs 'commit:' and 'campaign:'"
  runs=$(field "$store" runs)
  select=()
  if [ -n "$runs" ]; then select=(--runs "$runs"); fi
  name=$(basename "$store")
  src="$pin_root/$commit/src"
  prefix="$pin_root/$commit/install"
  work="$work_root/$name"
}

build_pin() {
  if [ -x "$prefix/bin/shard" ]; then return; fi
  command -v cmake >/dev/null && command -v git >/dev/null ||
    die "building the pin needs git, cmake and shard's libraries: run scripts/install-deps.sh first"
  mkdir -p "$pin_root/$commit"
  if [ ! -d "$src" ]; then
    git -C "$repo" worktree add --detach "$src" "$commit" >/dev/null
  fi
  cmake -S "$src" -B "$pin_root/$commit/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARD_TESTS=OFF >/dev/null
  cmake --build "$pin_root/$commit/build" -j"$(nproc)" >/dev/null
  cmake --install "$pin_root/$commit/build" --prefix "$prefix" >/dev/null
}

# copy run directories from $1 to $2; $3 = pack (gzip the large files) or unpack
copy_runs() {
  local from=$1 to=$2 how=$3 d n
  [ -d "$from/runs" ] || return 0
  for d in "$from"/runs/*/; do
    n=$(basename "$d")
    # a restore never overwrites a run this machine already has (it may be newer)
    if [ "$how" = unpack ] && [ -d "$to/runs/$n" ]; then continue; fi
    mkdir -p "$to/runs/$n"
    for f in run.key result.yaml summary.yaml case.resolved.yaml provenance.yaml fragment_sizes.csv fragments.csv stdout.txt stderr.txt; do
      if [ -f "$d/$f" ]; then cp -p "$d/$f" "$to/runs/$n/$f"; else rm -f "$to/runs/$n/$f"; fi
    done
    for f in history.csv .history.csv.partial checkpoint.bin; do
      if [ "$how" = pack ]; then
        # a run that ended (summary written) needs no checkpoint to go on
        if [ -f "$d/$f" ] && { [ "$f" = history.csv ] || [ ! -f "$d/summary.yaml" ]; }; then gzip -9 -n -c "$d/$f" > "$to/runs/$n/$f.gz.tmp" && mv "$to/runs/$n/$f.gz.tmp" "$to/runs/$n/$f.gz"
        else rm -f "$to/runs/$n/$f.gz"; fi
      else
        if [ -f "$d/$f.gz" ]; then gzip -d -c "$d/$f.gz" > "$to/runs/$n/$f.tmp" && mv "$to/runs/$n/$f.tmp" "$to/runs/$n/$f"
        else rm -f "$to/runs/$n/$f"; fi
      fi
    done
  done
}

# the pid of the campaign `run` started on this store's work directory, if it
# still runs (its command line names the work directory: not a reused pid)
running_pid() {
  local pid
  pid=$(cat "$work/.campaign.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | grep -qxF "$work"; then echo "$pid"; fi
}

# copy the work directory into the store and count its runs
save() {
  [ -d "$work" ] || die "$work: no work directory to save (run it first)"
  copy_runs "$work" "$store" pack
  for f in campaign.csv statistics.csv fragment_sizes.csv; do
    if [ -f "$work/$f" ]; then cp -p "$work/$f" "$store/$f"; fi
  done
  ok=0 other=0 ck=0
  for d in "$store"/runs/*/; do
    [ -d "$d" ] || continue
    if [ -f "$d/result.yaml" ]; then
      # a run stopped with the campaign (status: interrupted) has not failed: it goes on
      if grep -qx 'status: ok' "$d/result.yaml"; then ok=$((ok + 1))
      elif ! grep -qx 'status: interrupted' "$d/result.yaml"; then other=$((other + 1)); fi
    fi
    if [ -f "$d/checkpoint.bin.gz" ]; then ck=$((ck + 1)); fi
  done
  echo "$store: $ok runs ok, $other failed, $ck to continue from a checkpoint; $(du -sh "$store" | cut -f1) in the store"
}

[ $# -ge 2 ] || usage
cmd=$1
shift
case $cmd in
  new)
    [ $# -ge 2 ] || usage
    store=$1 yaml=$2 c=${3:-HEAD} range=${4:-}
    [ ! -e "$store/pin" ] || die "$store/pin exists"
    full=$(git -C "$repo" rev-parse --verify "$c^{commit}") || die "$c: not a commit"
    git -C "$repo" cat-file -e "$full:$yaml" 2>/dev/null || die "$yaml: not in commit $full"
    mkdir -p "$store"
    printf 'commit: %s\ncampaign: %s\n' "$full" "$yaml" > "$store/pin"
    if [ -n "$range" ]; then printf 'runs: %s\n' "$range" >> "$store/pin"; fi
    echo "$store/pin: $yaml${range:+ runs $range} at $full"
    ;;
  run)
    load "$1"
    shift
    pid=$(running_pid)
    [ -z "$pid" ] || die "$store: its campaign already runs here (pid $pid); stop it first"
    build_pin
    mkdir -p "$work"
    copy_runs "$store" "$work" unpack
    echo $$ > "$work/.campaign.pid" # exec keeps the pid: stop finds the campaign by it
    exec "$prefix/bin/shard" campaign "$src/$campaign" -o "$work" "${select[@]}" --resume --no-progress "$@"
    ;;
  save)
    load "$1"
    save
    ;;
  stop)
    load "$1"
    pid=$(running_pid)
    if [ -n "$pid" ]; then
      kill -TERM "$pid"
      # alive: a command line (a zombie, an exited child of the caller, has none)
      alive() { [ -n "$(tr -d '\0' < "/proc/$pid/cmdline" 2>/dev/null)" ]; }
      for _ in $(seq 1 3000); do alive || break; sleep 0.1; done
      ! alive || die "campaign $pid still running 300 s after SIGTERM; nothing saved"
      echo "$store: campaign $pid stopped"
    else
      echo "$store: no campaign of this store runs on this machine"
    fi
    rm -f "$work/.campaign.pid"
    save
    ;;
  status)
    load "$1"
    build_pin
    mkdir -p "$work"
    copy_runs "$store" "$work" unpack
    "$prefix/bin/shard" campaign "$src/$campaign" -o "$work" "${select[@]}" --resume --dry-run | grep '^#'
    ;;
  *) usage ;;
esac
