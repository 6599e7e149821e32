#!/usr/bin/env bash
# Install the Debian packages shard needs (only those missing). Debian 12.
set -euo pipefail
pkgs=(cmake make gcc clang pkg-config libyaml-dev zlib1g-dev libcunit1-dev liblapack-dev libblas-dev gnuplot-nox git libopenmpi-dev openmpi-bin
      libomp-dev # OpenMP for clang (shard run --threads; gcc has libgomp)
      libsiconos-numerics-dev # the optional siconos LCP solver plugin
      python3-numpy python3-pandas python3-matplotlib python3-yaml) # the Python analysis package (python/shard)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
