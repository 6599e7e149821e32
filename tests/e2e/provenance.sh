#!/usr/bin/env bash
# e2e: provenance.yaml names the commit the build was made from (regenerated
# at every build by cmake/shard_commit.cmake, not frozen at configure time):
# `git rev-parse --short=12 HEAD`, "-dirty" when tracked files differ from it,
# "unknown" outside a git checkout. Args: <shard-exe> <source-dir> <build-dir>.
set -euo pipefail
shard="$1" src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$shard" run "$src/cases/paper/ball_e1.yaml" -o "$tmp/run" --set time.end=0.1 --no-progress >/dev/null
got=$(sed -n 's/^shard_commit: "\(.*\)"$/\1/p' "$tmp/run/provenance.yaml")
if want=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null); then
  [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] || want="$want-dirty"
else
  want=unknown
fi
if [ "$got" != "$want" ]; then
  echo "provenance: shard_commit is '$got', the source tree is at '$want' (rebuild after changing the tree)" >&2
  exit 1
fi
echo "provenance: shard_commit $got"
