#!/usr/bin/env bash
# Hostile inputs are refused while they are read, not after: a YAML file
# nested 40,000 deep and a 16 MiB flat list must be refused with the usual
# limit messages within a small CPU-time budget and a small memory footprint,
# and a Matrix Market file declaring a huge matrix must be refused before
# anything of its size is allocated.
#   bash input_limits.sh <shard-exe> <source-dir> <build-dir>
set -u
shard=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# deep: "a: [[[[...]]]]", 40,000 levels
{ printf 'a: '; head -c 40000 /dev/zero | tr '\0' '['; head -c 40000 /dev/zero | tr '\0' ']'; echo; } >"$work/deep.yaml"
# flat: one list of about 8.4 million items, just under the 16 MiB file limit
{ printf 'a: ['; head -c $((8 * 1024 * 1024 - 8)) /dev/zero | tr '\0' '\n' | sed 's/^/1,/' | tr -d '\n'; echo '1]'; } >"$work/flat.yaml"
size=$(stat -c %s "$work/flat.yaml")
[ "$size" -gt $((16 * 1024 * 1024 - 64)) ] && [ "$size" -le $((16 * 1024 * 1024)) ] || {
  echo "FAIL: flat.yaml is $size bytes, expected just under 16 MiB"
  fail=1
}

# address-space cap (a safety net; sanitizer builds reserve terabytes of shadow
# memory, so they run without it and rely on the RSS check)
vlimit=524288
ldd "$shard" 2>/dev/null | grep -q 'libasan' && vlimit=unlimited

have_time=0
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 && have_time=1

# run NAME EXPECTED-FIRST-ERROR-LINE: 5 s of CPU at most (ulimit -t kills
# past it), 512 MB of address space at most (see vlimit); peak RSS within
# 16 MB of what validating a small good case takes.
base_kb=0
if [ "$have_time" -eq 1 ]; then
  base_kb=$(cd "$src" && /usr/bin/time -f %M "$shard" validate cases/paper/ball_e1.yaml 2>&1 >/dev/null | tail -1)
fi
run() {
  local name=$1 expected=$2 out rc first
  out=$(cd "$work" && (ulimit -t 5 -v $vlimit; if [ "$have_time" -eq 1 ]; then
    /usr/bin/time -f 'maxrss_kb=%M cpu=%U+%S' timeout 30 "$shard" validate "$name.yaml"
  else timeout 30 "$shard" validate "$name.yaml"; fi) 2>&1)
  rc=$?
  first=$(printf '%s\n' "$out" | grep -m1 ': error: ')
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit status $rc, expected 2 (killed past the CPU budget, or out of memory?)"
    printf '%s\n' "$out" | head -5 | sed 's/^/    /'
    fail=1
  elif [ "$first" != "$expected" ]; then
    echo "FAIL $name: expected '$expected'"
    echo "    got '$first'"
    fail=1
  fi
  if [ "$have_time" -eq 1 ]; then
    local rss
    rss=$(printf '%s\n' "$out" | sed -n 's/^maxrss_kb=\([0-9]*\).*/\1/p')
    echo "$name: $(printf '%s\n' "$out" | grep -m1 '^maxrss_kb=') (small case: ${base_kb} KB)"
    if [ -z "$rss" ] || [ "$rss" -gt $((base_kb + 16384)) ]; then
      echo "FAIL $name: peak RSS ${rss:-?} KB, more than 16 MB above a small case's ${base_kb} KB"
      fail=1
    fi
  fi
}
run deep "deep.yaml:1:68: error: nesting too deep (more than 64 levels)"
run flat "flat.yaml:1:19999: error: document too large (more than 10000 nodes)"

# Matrix Market: a 60-byte file declaring 2e9 x 2e9 with one entry
printf '%%%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1\n' >"$work/huge.mtx"
printf '%%%%MatrixMarket matrix array real general\n1 1\n1\n' >"$work/q.mtx"
out=$(cd "$work" && (ulimit -t 5 -v $vlimit; timeout 30 "$shard" lcp --solver pgs huge.mtx q.mtx) 2>&1)
rc=$?
if [ "$rc" -ne 2 ] || ! printf '%s\n' "$out" | grep -q 'huge.mtx:2:.*2000000000'; then
  echo "FAIL huge.mtx: exit $rc, expected 2 and a message naming the file, line 2 and the declared size"
  printf '%s\n' "$out" | head -5 | sed 's/^/    /'
  fail=1
fi

[ "$fail" -eq 0 ] && echo "input_limits: deep and flat YAML and a huge declared matrix refused early"
exit "$fail"
