#!/usr/bin/env bash
# Scaling benchmark of the LCP solvers on contact chains (not a timed test).
#
#   scripts/bench_lcp.sh [--shard PATH/TO/shard] [--solvers "pgs mprgp tridiag lemke"]
#                        [--sizes "100 1000 10000 100000"] [--no-wprime]
#
# 1. `shard lcp --bench tridiag` on tridiagonal problems shaped like the 1D
#    contact operator W′ of docs/theory.md §2 near the stable step (diagonal
#    1.02, off-diagonals -0.49, q = 0.5 sin(2πi/64) + U(-0.5, 0.5):
#    alternating compressive and separating zones, about 60 % of the contacts
#    active), cold start each repeat: n, iterations, mean and minimum time
#    per solve and minimum time / n (the minimum is robust to a loaded
#    machine). Linear-time solvers show a flat min/n column. The number of
#    repeats shrinks with n so that the whole run stays within minutes
#    (lemke, dense and O(n²) per pivot: 3 repeats from n = 1000, refused
#    above its dense_max).
# 2. Unless --no-wprime: W′ of the damaged bar (cases/paper/damaged_bar.yaml
#    with an interface at every internal node, all in contact, 0.99 Δt_c; the
#    set-up of scripts/bench_cost.sh), n interfaces, written by the run's
#    lcp.dump_every at step 2 and solved with `shard lcp` (fastest of 3).
# 3. The ratios of tridiag's time to pgs's (tolerance 1e-12) and lemke's.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shard="${SHARD:-$root/build/bin/shard}"
solvers="pgs mprgp tridiag lemke"
sizes="100 1000 10000 100000"
wprime=1
while [ $# -gt 0 ]; do
  case "$1" in
    --shard) shard="$2"; shift ;;
    --solvers) solvers="$2"; shift ;;
    --sizes) sizes="$2"; shift ;;
    --no-wprime) wprime=0 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_lcp: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -x "$shard" ]; then
  echo "bench_lcp: no shard executable at '$shard' (build first, or pass --shard)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A tchain twp

echo "## chain problems (shard lcp --bench tridiag)"
printf '%-8s %8s %8s %11s %14s %14s %14s %10s\n' solver n active iterations mean/solve[s] min/solve[s] min/n[s] residual
for s in $solvers; do
  for n in $sizes; do
    repeat=$(( 2000000 / n ))
    [ "$repeat" -lt 3 ] && repeat=3
    [ "$repeat" -gt 200 ] && repeat=200
    [ "$s" = lemke ] && [ "$n" -ge 1000 ] && repeat=3
    if ! line="$("$shard" lcp --solver "$s" --bench tridiag --n "$n" --repeat "$repeat" 2>"$tmp/err")"; then
      printf '%-8s %8s  refused: %s\n' "$s" "$n" "$(head -c 100 "$tmp/err")"
      continue
    fi
    field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
    tmin="$(field time_min)"
    tchain[$s/$n]=$tmin
    printf '%-8s %8s %8s %11s %14.4e %14.4e %14.4e %10s\n' "$s" "$n" "$(field active)" "$(field iterations)" \
      "$(field time_per_solve)" "$tmin" "$(awk -v t="$tmin" -v n="$n" 'BEGIN { print t / n }')" "$(field residual)"
  done
done

if [ "$wprime" = 1 ]; then
  echo
  echo "## W′ of the damaged bar (one block of n + 1 contacts, 0.99 dt_c; shard lcp, fastest of 3)"
  printf '%-8s %8s %11s %14s %10s\n' solver n iterations min/solve[s] residual
  for n in $sizes; do
    ne=$((n + 1))
    rm -rf "$tmp/wp"
    "$shard" run "$root/cases/paper/damaged_bar.yaml" --set model.elements=$ne --set fracture.initial.count=$n \
      --set fracture.insertion=false --set model.perturbation=0.4 --set output.every=1000000 \
      --set output.events=false --set time.dt='0.99 * dt_c' --set time.end='2.5 * dt_c' --set lcp.dump_every=2 \
      --no-progress -o "$tmp/wp" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    m=$(ls -S "$tmp"/wp/lcp_step2_block*.M.mtx | head -n 1) # the largest block
    for s in $solvers; do
      best="" its="" res="" why=""
      for r in 1 2 3; do
        if ! out="$("$shard" lcp --solver "$s" "$m" "${m%.M.mtx}.q.mtx" --quiet 2>"$tmp/err")"; then
          why="$(head -c 100 "$tmp/err")"
          break
        fi
        t=$(awk '/^time:/ {print $2}' <<<"$out")
        its=$(awk '/^iterations:/ {print $2}' <<<"$out")
        res=$(awk '/^residual:/ {print $2}' <<<"$out")
        best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
        [ "$s" = lemke ] && [ "$n" -ge 1000 ] && break # one O(n^3) solve is enough
      done
      if [ -n "$why" ]; then
        printf '%-8s %8s  refused: %s\n' "$s" "$n" "$why"
        continue
      fi
      twp[$s/$n]=$best
      printf '%-8s %8s %11s %14.4e %10s\n' "$s" "$n" "$its" "$best" "$res"
    done
  done
fi

echo
echo "## ratios: time of tridiag / time of the other solver (below 1: tridiag faster)"
printf '%-8s %-8s %14s %14s\n' n against chain "W′ bar"
for n in $sizes; do
  for o in pgs lemke; do
    ratio() { # table name
      local -n tab=$1
      local a="${tab[tridiag/$n]:-}" b="${tab[$o/$n]:-}"
      if [ -n "$a" ] && [ -n "$b" ]; then awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3g", a / b }'; else printf -- '-'; fi
    }
    printf '%-8s %-8s %14s %14s\n' "$n" "$o" "$(ratio tchain)" "$(ratio twp)"
  done
done
