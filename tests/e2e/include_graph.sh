#!/usr/bin/env bash
# e2e: the #include graph of the host is a DAG. A module is a .c/.h pair of
# framework/src/DIR (the module DIR/X: the subsystem folder is part of its name,
# as in its #include "DIR/X.h") or framework/cli (a public header
# framework/include/shard/X.h is the module shard/X); module A depends on B
# when A.c or A.h includes B.h.
# The test fails on a cycle (A includes B's header and B, directly or through
# others, includes A's), and on a function declared in framework/src/X.h but
# defined elsewhere than framework/src/X.c (then the graph would hide a dependency: a header
# shared by several .c files can carry a cycle between them). It prints the
# number of modules, of edges and the depth of the graph (longest chain).
# Args: <shard-exe> <source-dir> <build-dir>.
set -euo pipefail
src="$2"
fw="$src/framework"
[ -d "$fw/src" ] || { echo "include_graph: no $fw/src" >&2; exit 1; }
bad=0

module() { # path -> module name
  case "$1" in
    "$fw"/include/shard/*) local b="${1##*/}"; echo "shard/${b%.*}" ;;
    "$fw"/src/*) local b="${1#"$fw"/src/}"; echo "${b%.*}" ;;
    *) local b="${1##*/}"; echo "${b%.*}" ;;
  esac
}

sources() { find "$fw/src" "$fw/cli" -name '*.[ch]' | sort; ls "$fw"/include/shard/*.h; }

# edges "A B", one per line, A != B
edges="$(
  for f in $(sources); do
    a="$(module "$f")"
    grep -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+\.h"' "$f" | sed -E 's/.*"([^"]+)\.h"/\1/' |
      while read -r inc; do
        b="$inc"
        [ "$b" != "$a" ] && echo "$a $b"
      done
  done | sort -u
)"
nodes="$(for f in $(sources); do module "$f"; done | sort -u)"

# Kahn's algorithm, leaves first (with the depth of each module)
result="$(printf '%s\n' "$edges" | awk -v nodes="$nodes" '
  BEGIN { n = split(nodes, N, "\n"); for (i = 1; i <= n; ++i) if (N[i] != "") { alive[N[i]] = 1; out[N[i]] = 0 } }
  NF == 2 { E[++m] = $1 SUBSEP $2; from[m] = $1; to[m] = $2; out[$1]++; alive[$1] = 1; alive[$2] = 1 }
  END {
    depth_max = 0
    do {
      changed = 0
      for (v in alive) if (alive[v] && out[v] == 0) {
        d = 0
        for (k = 1; k <= m; ++k) if (from[k] == v && depth[to[k]] + 1 > d) d = depth[to[k]] + 1
        depth[v] = d; if (d > depth_max) depth_max = d
        alive[v] = 0; changed = 1
        for (k = 1; k <= m; ++k) if (to[k] == v) out[from[k]]--
      }
    } while (changed)
    # then roots first: what remains lies on a cycle (or between two)
    do {
      changed = 0
      for (v in alive) if (alive[v]) {
        in_ = 0
        for (k = 1; k <= m; ++k) if (to[k] == v && alive[from[k]]) { in_ = 1; break }
        if (!in_) { alive[v] = 0; changed = 1 }
      }
    } while (changed)
    cyc = 0
    for (k = 1; k <= m; ++k) if (alive[from[k]] && alive[to[k]]) { print "cycle-edge " from[k] " -> " to[k]; cyc = 1 }
    nn = 0; for (v in alive) nn++
    print "stats " nn " " m " " depth_max " " cyc
  }')"
if printf '%s\n' "$result" | grep -q '^cycle-edge'; then
  echo "include_graph: the #include graph of framework/ has a cycle; edges among the modules on it:" >&2
  printf '%s\n' "$result" | sed -n 's/^cycle-edge /  /p' >&2
  bad=1
fi

# every function declared in framework/src/X.h is defined in X.c
for h in $(find "$fw/src" -name '*.h' | sort); do
  m="$(module "$h")"
  for fn in $(grep -E '^[a-z][^(;=]*[ *](shard_|yt_)[a-z_0-9]+\(' "$h" | grep -v '^static' |
              sed -E 's/^[^(]*[ *]((shard_|yt_)[a-z_0-9]+)\(.*/\1/' | sort -u); do
    if ! grep -qE "^[a-z][^;]*[ *]$fn\(" "$fw/src/$m.c" 2>/dev/null; then
      where="$(grep -rlE --include='*.c' "^[a-z][^;]*[ *]$fn\([^;]*$" "$fw/src" | sed "s|^$fw/src/||" | tr '\n' ' ' | sed 's/ $//')"
      echo "include_graph: $m.h declares $fn, defined in ${where:-no file} instead of $m.c" >&2
      bad=1
    fi
  done
done

read -r _ n_nodes n_edges depth _ < <(printf '%s\n' "$result" | grep '^stats ')
[ "$bad" = 0 ] && echo "include_graph: $n_nodes modules, $n_edges include edges, no cycle, depth $depth"
exit "$bad"
