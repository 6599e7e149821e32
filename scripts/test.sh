#!/usr/bin/env bash
# Run the whole test suite: set up and build if needed, then ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-run --no-install
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
