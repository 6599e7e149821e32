#!/usr/bin/env bash
# e2e: one version number. project(shard VERSION x.y.z) in CMakeLists.txt is
# the only place it is written; `shard --version`, provenance.yaml, the
# pkg-config file and the CMake package version file of the build must report
# it, and CITATION.cff and the newest release of CHANGELOG.md must name it.
# Args: <shard-exe> <source-dir> <build-dir>.
set -euo pipefail
shard="$1" src="$2" build="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # what got
  if [ "$2" = "$want" ]; then echo "version: $1 $2"; else echo "FAIL: $1 says '$2', CMakeLists.txt says '$want'"; fail=1; fi
}
want=$(sed -n 's/^project(shard VERSION \([0-9][0-9.]*\)[ )].*/\1/p' "$src/CMakeLists.txt")
[ -n "$want" ] || { echo "FAIL: no project(shard VERSION x.y.z ...) line in CMakeLists.txt"; exit 1; }
check "CMake cache (CMAKE_PROJECT_VERSION)" "$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")"
check "shard --version" "$("$shard" --version | sed -n 's/^shard \([^ ]*\)$/\1/p')"
"$shard" run "$src/cases/paper/ball_e1.yaml" -o "$tmp/run" --set time.end=0.05 --no-progress >/dev/null
check "provenance.yaml shard_version" "$(sed -n 's/^shard_version: "\(.*\)"$/\1/p' "$tmp/run/provenance.yaml")"
check "shard.pc Version" "$(sed -n 's/^Version: //p' "$build/shard.pc")"
if command -v pkg-config >/dev/null; then
  check "pkg-config --modversion shard" "$(PKG_CONFIG_PATH="$build" pkg-config --modversion shard)"
fi
check "shardConfigVersion.cmake" "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/shardConfigVersion.cmake")"
check "CITATION.cff version" "$(sed -n 's/^version: *"\{0,1\}\([^" ]*\)"\{0,1\} *$/\1/p' "$src/CITATION.cff")"
check "CHANGELOG.md newest release" "$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' "$src/CHANGELOG.md" | head -n1)"
exit "$fail"
