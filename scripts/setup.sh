#!/usr/bin/env bash
# Set up shard on a fresh Debian 12 machine: install the missing packages,
# configure and build (build/), install the `shard` command on the PATH, then
# run the headline case (NSN bouncing ball).
#
#   scripts/setup.sh [--no-run] [--no-install] [--prefix DIR]
#
# The install prefix is /usr/local when run as root, ~/.local otherwise
# (Debian puts ~/.local/bin on the PATH at login once it exists), or --prefix
# DIR / $SHARD_PREFIX. The installed shard finds its plugins relative to
# itself (DIR/lib/shard/plugins), and the Python analysis package `shard`
# (python/shard, docs/analysis.md) into DIR/lib/python3/dist-packages (put
# it on PYTHONPATH, as the script prints, unless python3 already reads it). --no-install leaves shard in build/bin only;
# --no-run skips the demo run.
set -euo pipefail
cd "$(dirname "$0")/.."
run=1 install=1
prefix="${SHARD_PREFIX:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --no-run) run=0 ;;
    --no-install) install=0 ;;
    --prefix) prefix="$2"; shift ;;
    --prefix=*) prefix="${1#--prefix=}" ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$prefix" ]; then
  if [ "$(id -u)" -eq 0 ]; then prefix=/usr/local; else prefix="$HOME/.local"; fi
fi

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"

shard=build/bin/shard
if [ "$install" -eq 1 ]; then
  cmake --install build --prefix "$prefix" >/dev/null
  shard="$prefix/bin/shard"
  echo "installed: $shard (plugins in $prefix/lib/shard/plugins; Python package in $prefix/lib/python3/dist-packages/shard);"
  echo "after a rebuild, install again with"
  echo "  cmake --install build --prefix $prefix"
  case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH; add it (export PATH=\"$prefix/bin:\$PATH\")," \
            "log in again, or call $shard" ;;
  esac
  pydir="$prefix/lib/python3/dist-packages"
  if ! PYTHONPATH= /usr/bin/python3 -c "import sys; sys.exit('$pydir' not in sys.path)" 2>/dev/null; then
    echo "note: for 'import shard' in Debian's python3, export PYTHONPATH=\"$pydir\${PYTHONPATH:+:\$PYTHONPATH}\""
  fi
fi
if [ "$run" -eq 1 ]; then
  "$shard" run cases/paper/ball_e08.yaml -o out/ball_e08
  echo "summary:"; cat out/ball_e08/summary.yaml
fi
