#!/usr/bin/env bash
# Cost of a NSN step against an explicit-penalty step (docs/reproduction.md, "Cost"), measured in
# one run of this script on the damaged bar with an interface at EVERY internal
# node (adjacent interfaces: W' couples them), all in contact (zero openings,
# the bar pushed onto the wall), NSN's LCP solved by pgs to 1e-12 (or by the
# solver named in LCP: LCP=tridiag solves the chain blocks exactly), 10^2 .. 10^5
# interfaces. Each scheme at 0.5 and at 0.99 of its own stable step dt_c
# (NSN's from the bulk and cohesive stiffness, the explicit scheme's with the
# penalty springs too: about 2.3 times smaller here, so the same dt for both
# would run the explicit scheme unstable). The ratio is per step (the cost of
# one step of each) and, beside it, per simulated time (ratio x dt_pen/dt_nsn).
#
# Costs are CPU time (user + system of the process from wait4, microseconds),
# the loop's share: a run of S steps minus a run of STEPS0 steps of the same
# case, per step of the difference (setup and output cancel), with S = STEPS
# or more on the small bars (at least 4e6 DOF-steps, for resolution). The
# run's own loop wall time per step (summary.yaml) is printed beside it: on a
# loaded machine wall > CPU.
#
# The memory-bandwidth floor of the explicit step is measured here too: a
# STREAM-style triad a = b + s c over 3 x 64 MiB arrays (far beyond the
# caches), compiled with the build's C compiler, one thread like shard, best
# of 5, counted as 24 B per element (STREAM's convention, write-allocate not
# counted). floor = BYTES_PER_DOF / bandwidth, with BYTES_PER_DOF = 90 B the
# data an explicit step must move per DOF at least, each array touched once:
# the state u, v, a read and written (48 B), the inverse mass (8 B), per
# element (2 DOFs) its stiffness and two node indices (8 B/DOF), per
# interface (2 DOFs) its two nodes and the cohesive law's strength, critical
# opening and largest opening (16 B/DOF), and per constraint row its gap
# offset and H row, read by the penalty law (~10 B/DOF, rows cached between
# the two elements sharing a node). Override with BYTES_PER_DOF=...
#
# THREADS=N runs both schemes with `shard run --threads N` (default 1, the flag then left out): the
# CPU time then counts every thread, and the wall time per step beside it
# shows what the threads buy (docs/cases.md, "Threads").
#
# usage: scripts/bench_cost.sh [BUILD_DIR] [STEPS]
#   env: SIZES (default "100 1000 10000 100000"), FACTORS (default "0.5 0.99"), STEPS0 (default 20),
#        LCP (NSN's LCP solver plugin, default pgs; its tolerance stays 1e-12), THREADS (default 1)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
steps=${2:-400}
steps0=${STEPS0:-20}
sizes=${SIZES:-"100 1000 10000 100000"}
factors=${FACTORS:-"0.5 0.99"}
bytes=${BYTES_PER_DOF:-90}
lcp=${LCP:-pgs}
threads=${THREADS:-1}
shard="$build/bin/shard"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=$(awk -F= '/^CMAKE_C_COMPILER:/ {print $2}' "$build/CMakeCache.txt" 2>/dev/null || true)
cc=${cc:-cc}

# ---- helpers compiled with the build's compiler: triad, CPU time of a command
cat > "$tmp/triad.c" <<'TRIAD'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define N (1L << 23) /* 64 MiB per array */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(void) {
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
  if (!a || !b || !c) return 1;
  for (long i = 0; i < N; ++i) a[i] = 0.0, b[i] = 1.0 + (double)i * 1e-9, c[i] = 2.0 - (double)i * 1e-9;
  double best = 1e30, s = 3.0;
  for (int r = 0; r < 5; ++r) {
    const double t0 = now();
    for (long i = 0; i < N; ++i) a[i] = b[i] + s * c[i];
    const double dt = now() - t0;
    if (dt < best) best = dt;
    s += a[r] * 1e-30; /* the result is used */
  }
  printf("%.3f %.6g\n", 24.0 * N / best * 1e-9, a[N / 2]);
  return 0;
}
TRIAD
cat > "$tmp/cputime.c" <<'CPUTIME'
/* cputime OUT CMD...: run CMD, write its user + system CPU seconds to OUT */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  const pid_t pid = fork();
  if (pid == 0) {
    execv(argv[2], argv + 2);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) return 1;
  FILE *f = fopen(argv[1], "w");
  if (!f) return 1;
  fprintf(f, "%.6f\n", (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec));
  fclose(f);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
CPUTIME
"$cc" -O2 -o "$tmp/triad" "$tmp/triad.c"
"$cc" -O2 -o "$tmp/cputime" "$tmp/cputime.c"
bw=$("$tmp/triad" | awk '{print $1}')
floor=$(awk -v b="$bytes" -v bw="$bw" 'BEGIN {printf "%.2f", b / bw}')
echo "memory bandwidth (triad, 1 thread): $bw GB/s; explicit-step floor at $bytes B/DOF: $floor ns/DOF/step"
echo "NSN's LCP solver: $lcp; threads per run: $threads"

# CPU seconds (user + system) of one shard run, its output in $1
cpu_run() {
  local out=$1
  shift
  "$tmp/cputime" "$tmp/time" "$shard" "$@" -o "$out" >/dev/null
  cat "$tmp/time"
}

printf "%-7s %-10s %-8s %7s %12s %12s %8s %8s %8s %10s %8s %8s %8s %9s\n" dt/dt_c interfaces scheme steps "cpu_us/step" \
  "ns/DOF/step" ratio "per_time" "x floor" "wall_us" active blocks "lcp_it" "floor_ns"
for fac in $factors; do
  for n in $sizes; do
    ne=$((n + 1))
    st=$((4000000 / (2 * ne)))
    [ "$st" -gt "$steps" ] || st=$steps
    common=(--set model.elements=$ne --set fracture.initial.count=$n --set fracture.insertion=false
            --set model.perturbation=0.4 --set output.every=1000000000 --set output.events=false --no-progress)
    # --threads only when asked for: builds before 0.7.0 do not know it (the script compares builds)
    [ "$threads" = 1 ] || common+=(--threads "$threads")
    # each scheme's stable step
    "$shard" run "$root/cases/paper/damaged_bar.yaml" "${common[@]}" --set time.end=1e-15 -o "$tmp/probe" >/dev/null
    "$shard" run "$root/cases/paper/damaged_bar_penalty.yaml" "${common[@]}" --set time.end=1e-15 -o "$tmp/probep" >/dev/null
    dtn=$(awk -v f="$fac" '/^  dt_c:/ {printf "%.17g", f * $2}' "$tmp/probe/summary.yaml")
    dtp=$(awk -v f="$fac" '/^  dt_c:/ {printf "%.17g", f * $2}' "$tmp/probep/summary.yaml")
    span() { awk -v dt="$1" -v s="$2" 'BEGIN {printf "%.17g", dt * (s + 0.5)}'; }
    nsn=(run "$root/cases/paper/damaged_bar.yaml" "${common[@]}" --set time.dt=$dtn --set lcp.plugin=$lcp
         --set lcp.tolerance=1e-12)
    pen=(run "$root/cases/paper/damaged_bar_penalty.yaml" "${common[@]}" --set time.dt=$dtp --set time.energy_guard=1e12)
    cn=$(cpu_run "$tmp/nsn" "${nsn[@]}" --set time.end=$(span $dtn $st))
    cn0=$(cpu_run "$tmp/nsn0" "${nsn[@]}" --set time.end=$(span $dtn $steps0))
    cp=$(cpu_run "$tmp/pen" "${pen[@]}" --set time.end=$(span $dtp $st))
    cp0=$(cpu_run "$tmp/pen0" "${pen[@]}" --set time.end=$(span $dtp $steps0))
    sn=$(awk '/^steps:/ {print $2}' "$tmp/nsn/summary.yaml")
    sn0=$(awk '/^steps:/ {print $2}' "$tmp/nsn0/summary.yaml")
    sp=$(awk '/^steps:/ {print $2}' "$tmp/pen/summary.yaml")
    sp0=$(awk '/^steps:/ {print $2}' "$tmp/pen0/summary.yaml")
    # the run's own wall time per step (summary.yaml also has cpu_time.per_step)
    wall_per_step() { awk '/^[a-z]/ {w = /^wall_time:/} w && /^  per_step:/ {print $2}' "$1"; }
    wn=$(wall_per_step "$tmp/nsn/summary.yaml")
    wp=$(wall_per_step "$tmp/pen/summary.yaml")
    dofs=$((2 * ne))
    act=$(awk '/max_active:/ {print $2}' "$tmp/nsn/summary.yaml")
    blocks=$(awk -v s="$sn" '/^  blocks:/ {printf "%.0f", $2 / s}' "$tmp/nsn/summary.yaml")
    it=$(awk -v s="$sn" '/^  iterations:/ {printf "%.0f", $2 / s}' "$tmp/nsn/summary.yaml")
    awk -v f=$fac -v n=$n -v st=$sn -v cn=$cn -v cn0=$cn0 -v sn=$sn -v sn0=$sn0 -v cp=$cp -v cp0=$cp0 -v sp=$sp \
        -v sp0=$sp0 -v wn=$wn -v wp=$wp -v d=$dofs -v a=$act -v b=$blocks -v it=$it -v fl=$floor -v dtn=$dtn -v dtp=$dtp 'BEGIN {
      pn = (cn - cn0) / (sn - sn0); pe = (cp - cp0) / (sp - sp0);
      printf "%-7s %-10d %-8s %7d %12.2f %12.2f %8.2f %8.2f %8s %10.2f %8d %8d %8d %9s\n", f, n, "nsn", st, pn * 1e6,
             pn * 1e9 / d, pn / pe, pn / pe * dtp / dtn, "", wn * 1e6, a, b, it, "";
      printf "%-7s %-10d %-8s %7d %12.2f %12.2f %8s %8s %8.2f %10.2f %8s %8s %8s %9.2f\n", f, n, "penalty", sp, pe * 1e6,
             pe * 1e9 / d, "", "", pe * 1e9 / d / fl, wp * 1e6, "", "", "", fl }'
  done
done
