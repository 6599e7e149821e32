#!/usr/bin/env bash
# Every public header under framework/include/shard/ compiles on its own as
# C++ (C++11 and C++17, -Wall -Wextra -Wpedantic -Werror), and a plugin entry
# point defined in C++ links against C code calling it (the headers' extern "C"
# guards). Args: <c++ compiler> <c compiler> <source-dir> <work-dir>.
set -euo pipefail
cxx="$1" cc="$2" src="$3" work="$4"
inc="$src/framework/include"
fail() { echo "cxx_headers: FAIL: $*" >&2; exit 1; }
mkdir -p "$work"
n=0
for h in "$inc"/shard/*.h; do
  tu="$work/$(basename "$h" .h).cpp" # the header alone in a translation unit
  printf '#include "shard/%s"\n' "$(basename "$h")" >"$tu"
  for std in c++11 c++17; do
    "$cxx" -std="$std" -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$inc" "$tu" ||
      fail "$h does not compile as $std"
  done
  n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no header found under $inc/shard"
"$cxx" -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$src/tests/cxx/probe.cpp" -o "$work/probe.o" ||
  fail "probe.cpp"
"$cc" -std=c11 -Wall -Wextra -Werror -I"$inc" -c "$src/tests/cxx/entry_check.c" -o "$work/entry_check.o" ||
  fail "entry_check.c"
"$cxx" "$work/probe.o" "$work/entry_check.o" -lm -o "$work/probe" ||
  fail "link: the C++ definition of shard_plugin_entry is not the C function (extern \"C\" missing?)"
"$work/probe" || fail "probe exited $?"
echo "cxx_headers: $n headers compile as C++11 and C++17; C++ entry point has C linkage: OK"
