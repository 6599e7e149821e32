#!/usr/bin/env bash
# The cost of a campaign from its table(s), however many machines and
# sessions computed it: per-run wall times (summary.yaml's wall_time.total,
# which adds up the pieces of a run continued from checkpoints; else the
# loop time), their sum in core-hours, and the wall time the campaign takes
# on one machine with -j N, its runs started in index order as
# `shard campaign -j N` does (each on the first free slot).
# usage: scripts/campaign_times.sh [-j N] CAMPAIGN.csv [CAMPAIGN.csv...]
#   -j N   slots (default 2); tables are pooled, runs ordered by their index
set -euo pipefail
jobs=2
if [ "${1:-}" = -j ]; then
  [ $# -ge 2 ] || { echo "usage: $0 [-j N] CAMPAIGN.csv..." >&2; exit 2; }
  jobs=$2
  shift 2
fi
[ $# -ge 1 ] || { echo "usage: $0 [-j N] CAMPAIGN.csv..." >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "$0: -j needs a positive integer, got '$jobs'" >&2; exit 2; }

awk -F, -v jobs="$jobs" '
  FNR == 1 { delete c; for (i = 1; i <= NF; ++i) c[$i] = i
             col = ("wall_time.total" in c) ? "wall_time.total" : (("wall_time.loop" in c) ? "wall_time.loop" : "")
             if (col == "" || !("index" in c)) { print FILENAME ": needs the columns index and wall_time.total (or wall_time.loop)" > "/dev/stderr"; bad = 1; exit 2 }
             next }
  { st = ("status" in c) ? $c["status"] : "ok"
    if (st != "ok") { ++notok; next }
    t = $c[col] + 0; idx = $c["index"] + 0
    if (idx in seen) { print FILENAME ": run " idx " appears twice" > "/dev/stderr"; bad = 1; exit 2 }
    seen[idx] = 1; time[idx] = t; ++n; sum += t; order[n] = idx }
  END {
    if (bad) exit 2
    if (n == 0) { print "no run with status ok" > "/dev/stderr"; exit 1 }
    # runs in index order (insertion sort: tables are small)
    for (i = 2; i <= n; ++i) { x = order[i]; for (j = i - 1; j >= 1 && order[j] > x; --j) order[j + 1] = order[j]; order[j + 1] = x }
    for (i = 1; i <= n; ++i) v[i] = time[order[i]]
    for (i = 2; i <= n; ++i) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; --j) v[j + 1] = v[j]; v[j + 1] = x }
    med = n % 2 ? v[(n + 1) / 2] : 0.5 * (v[n / 2] + v[n / 2 + 1])
    # list scheduling in index order on `jobs` slots
    for (s = 1; s <= jobs; ++s) free_at[s] = 0
    for (i = 1; i <= n; ++i) {
      best = 1; for (s = 2; s <= jobs; ++s) if (free_at[s] < free_at[best]) best = s
      free_at[best] += time[order[i]]
    }
    span = 0; for (s = 1; s <= jobs; ++s) if (free_at[s] > span) span = free_at[s]
    printf "runs ok: %d%s\n", n, notok ? sprintf(" (%d not ok, left out)", notok) : ""
    printf "per run: min %.0f s, median %.0f s, max %.0f s\n", v[1], med, v[n]
    printf "sum: %.0f s = %.2f core-hours\n", sum, sum / 3600
    printf "with -j %d, in index order: %.0f s = %.2f h\n", jobs, span, span / 3600
  }' "$@"
