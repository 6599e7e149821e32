#!/usr/bin/env bash
# The 2D triangle model with a cohesive crack (cases/examples/tri2d_crack_pull.yaml
# on a finer mesh), killed with SIGKILL after its first checkpoint and
# continued with `shard run --restart DIR`, ends bit for bit like the
# uninterrupted run (history.csv and summary, wall times aside): the
# cohesive points' history, committed openings, tractions and work are in
# the checkpoint. The same with insertion (no crack given, facets breaking
# during the run; its checkpoint also holds the vertex copies, the rows and
# the facets' states), killed after some facets broke.
set -euo pipefail
shard="$1" src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/e2e/lib/kill.sh"
case="$src/cases/examples/tri2d_crack_pull.yaml"
check() { # name, sets...
  local name=$1
  shift
  restart_matches "$case" "$name" "$@"
  echo "tri2d $name restart: bit-for-bit identical ($(grep -m1 '^steps:' "$tmp/full_$name/summary.yaml"))"
}
check crack --set model.mesh.nx=40 --set model.mesh.ny=40 --set time.checkpoint_every=300 --no-progress
grep -q '^  broken: 40$' "$tmp/full_crack/summary.yaml" || { echo "FAIL: the crack did not break"; exit 1; }
for integ in nsn cd_lagrange; do
  check "insertion_$integ" --set model.mesh.nx=24 --set model.mesh.ny=12 --set model.crack.from=null \
    --set model.crack.to=null --set fracture.insertion=true --set fracture.strength.distribution=uniform \
    --set fracture.strength.min=40e6 --set fracture.strength.max=60e6 --set fracture.cap.alpha=1 \
    --set integrator.plugin=$integ --set time.checkpoint_every=400 --no-progress
  n=$(grep -m1 '^  insertions:' "$tmp/full_insertion_$integ/summary.yaml" | awk '{print $2}')
  [ "${n:-0}" -gt 0 ] || { echo "FAIL: insertion_$integ: no facet broke"; exit 1; }
done
