#!/usr/bin/env bash
# Set up shard on a fresh Debian 12 machine: install the missing packages,
# configure and build (build/), then run the headline case (NSN bouncing ball)
# unless --no-run is given.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
if [ "${1:-}" != "--no-run" ]; then
  build/bin/shard run cases/paper/ball_e08.yaml -o out/ball_e08
  echo "summary:"; cat out/ball_e08/summary.yaml
fi
