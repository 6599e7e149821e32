#!/bin/bash
# e2e: `mpirun -n 2 shard campaign FILE` (rank r runs slice r+1, rank 0 merges)
# gives the table of the -j 2 run, in every column but wall time and host,
# and the same statistics.csv.
# Skipped (exit 0) only when this build has no MPI.
# usage: campaign_mpi.sh SHARD SOURCE_DIR BUILD_DIR
set -u
if ! grep -q "^SHARD_HAVE_MPI:INTERNAL=ON" "$3/CMakeCache.txt"; then
  echo "SKIP: this build has no MPI (libopenmpi-dev was not found when configuring); nothing to test"
  exit 0
fi
. "$2/tests/e2e/lib/campaign.sh"
command -v mpirun >/dev/null || fail "the build has MPI but mpirun is not on PATH"

cat > "$T/c.yaml" <<'YAML'
base: base.yaml
set: {integrator.crash_at: 3}
sweep:
  integrator.run: [0, 1, 2, 3, 4]
  time.dt: [1e-3, 5e-4]
statistics: {over: integrator.run, columns: [steps]}
YAML
"$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" -o "$T/j2" -j 2 --no-progress >/dev/null 2>&1
[ $? -eq 1 ] || fail "-j 2 run: expected exit 1 (two runs crash)"
out=$(mpirun --allow-run-as-root --oversubscribe -n 2 "$SHARD" --plugin-path "$PLUGINS" campaign "$T/c.yaml" \
  -o "$T/mpi" --no-progress 2>"$T/err")
cat "$T/err" | grep -v "^---\|^ *$" | head -20
echo "$out"
grep -q "campaign c: 10 runs on 2 ranks, 2 failed -> $T/mpi/campaign.csv" <<<"$out" || fail "MPI summary line"
[ -f "$T/mpi/campaign.slice-1-of-2.csv" ] && [ -f "$T/mpi/campaign.slice-2-of-2.csv" ] || fail "slice tables"
diff <(strip "$T/j2/campaign.csv") <(strip "$T/mpi/campaign.csv") || fail "MPI table differs from the -j 2 table"
grep -q "statistics over integrator.run -> $T/mpi/statistics.csv" <<<"$out" || fail "MPI statistics line"
[ "$(cat "$T/mpi/statistics.csv")" = "time.dt,n,failed,steps.mean,steps.std,steps.ci95,steps.min,steps.max
1e-3,4,1,10,0,0,10,10
5e-4,4,1,20,0,0,20,20" ] || fail "MPI statistics.csv: $(cat "$T/mpi/statistics.csv")"
cmp "$T/j2/statistics.csv" "$T/mpi/statistics.csv" || fail "MPI statistics.csv differs from the -j 2 one"
echo PASS
