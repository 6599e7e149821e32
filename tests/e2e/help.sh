#!/usr/bin/env bash
# e2e: every command and subcommand prints its usage with --help, with -h and
# with `shard help CMD`: on standard output, nothing on standard error, exit 0,
# the same text all three ways, naming the command. The commands are read
# from `shard help` itself, so a new command without help fails here.
# Args: <shard-exe> <source-dir> <build-dir>.
set -uo pipefail
shard="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# shard [-h|--help|help]: the list of commands on stdout, exit 0
for a in -h --help help; do
  "$shard" $a >"$tmp/top.$a" 2>"$tmp/top.$a.err"; rc=$?
  [ "$rc" -eq 0 ] || bad "shard $a exits $rc"
  [ -s "$tmp/top.$a.err" ] && bad "shard $a writes to stderr: $(head -n2 "$tmp/top.$a.err")"
  grep -q '^usage: shard' "$tmp/top.$a" || bad "shard $a prints no usage line"
done
cmp -s "$tmp/top.-h" "$tmp/top.help" || bad "shard -h and shard help differ"
# no command: the same list, on stderr, as bad input
"$shard" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || bad "shard without a command exits $rc, expected 2"

# "  shard campaign merge OUT_DIR ..." -> "campaign merge": the leading
# lower-case words after "shard"
mapfile -t cmds < <(sed -n 's/^  shard //p' "$tmp/top.help" |
  awk '{ c = ""; for (i = 1; i <= NF && $i ~ /^[a-z][a-z_-]*$/; ++i) c = c (c == "" ? "" : " ") $i; print c }' | sort -u)
[ "${#cmds[@]}" -ge 8 ] || bad "shard help lists ${#cmds[@]} commands: ${cmds[*]}"
for c in "${cmds[@]}"; do
  [ -n "$c" ] || { bad "an empty command in shard help"; continue; }
  # shellcheck disable=SC2086
  set -- $c
  tag=${c// /_}
  for form in "--help" "-h" "help"; do
    if [ "$form" = help ]; then "$shard" help "$@" >"$tmp/$tag.$form" 2>"$tmp/$tag.$form.err"; rc=$?
    else "$shard" "$@" "$form" >"$tmp/$tag.$form" 2>"$tmp/$tag.$form.err"; rc=$?; fi
    what="shard $c $form"; [ "$form" = help ] && what="shard help $c"
    [ "$rc" -eq 0 ] || bad "$what exits $rc: $(head -n2 "$tmp/$tag.$form.err")"
    [ -s "$tmp/$tag.$form.err" ] && bad "$what writes to stderr: $(head -n2 "$tmp/$tag.$form.err")"
    head -n1 "$tmp/$tag.$form" | grep -q "^usage: shard .*\b$c\b" || bad "$what: first line is not a usage line of '$c': $(head -n1 "$tmp/$tag.$form")"
  done
  cmp -s "$tmp/$tag.--help" "$tmp/$tag.-h" || bad "shard $c: --help and -h differ"
  cmp -s "$tmp/$tag.--help" "$tmp/$tag.help" || bad "shard $c --help and shard help $c differ"
  echo "help: shard $c"
done

# --help wins wherever it stands (after a case file, after other options)
"$shard" run cases/none.yaml -o "$tmp/x" --help >"$tmp/late" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q '^usage: shard run' "$tmp/late" || bad "shard run CASE -o DIR --help exits $rc"
[ -e "$tmp/x" ] && bad "shard run ... --help created its output directory"
# an unknown command in help is bad input, named
"$shard" help no_such_command >/dev/null 2>"$tmp/unk"; rc=$?
[ "$rc" -eq 2 ] && grep -q "unknown command 'no_such_command'" "$tmp/unk" || bad "shard help no_such_command exits $rc: $(cat "$tmp/unk")"
[ "$fail" -eq 0 ] && echo "help: ${#cmds[@]} commands answer --help, -h and shard help"
exit "$fail"
