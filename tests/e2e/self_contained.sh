#!/usr/bin/env bash
# e2e: the repository stands alone. No tracked file (build, test, script,
# code or doc) may refer to a path outside the repository:
#   - a relative path that starts by going up ("..") and names nothing of the
#     repository, neither from the file's own directory nor from any other
#     directory of the repository (examples in docs are written for a case
#     file's place, commands for the top);
#   - a path built on a variable that names the top or the file's directory
#     (PROJECT_SOURCE_DIR, CMAKE_CURRENT_SOURCE_DIR, $src, dirname "$0", ...)
#     that goes up out of the repository;
#   - an absolute path into a workstation rather than the system: under /work,
#     /root or /mnt, under the directory that holds this clone (whatever it
#     is), or under /home outside Markdown (docs may show example output);
#   - a symbolic link whose target lies outside the repository.
# Recorded run outputs (results/*/runs/) and binary files are data, not
# references, and are not read; neither is the hostile-input corpus
# (tests/cases/bad/), nor a line marked "hostile input": paths there are
# inputs the tools must refuse, not references.
#   bash self_contained.sh <shard-exe> <source-dir> <build-dir>
set -euo pipefail
src=$(cd "$2" && pwd -P)
parent=$(dirname "$src")
# a clone directly in a system directory (/tmp/shard, /opt/shard) says nothing
case "$parent" in /var/tmp | /usr/*) parent=/ ;; /*/*) ;; *) parent=/ ;; esac

if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1 &&
  [ "$(cd "$(git -C "$src" rev-parse --show-toplevel)" && pwd -P)" = "$src" ]; then
  list() { git -C "$src" ls-files -z; }
else # an exported copy without .git: every file but build trees and outputs
  list() { (cd "$src" && find . -path ./.git -prune -o -path './build*' -prune -o -path ./out -prune -o \
    \( -type f -o -type l \) -print0 | sed -z 's|^\./||'); }
fi

list | SRC="$src" PARENT="$parent" perl -e '
use strict; use warnings;
my ($fail, $n) = (0, 0);
# "base/rel" normalised, relative to the top, with a trailing "/"; -1 outside
sub climb {
  my ($base, $rel) = @_;
  my @s = grep { length } split m{/}, $base;
  for my $c (split m{/}, $rel) {
    next if $c eq "." || $c eq "";
    if ($c eq "..") { return -1 unless @s; pop @s } else { push @s, $c }
  }
  return join("/", @s) . "/";
}
sub bad {
  my ($f, $ln, $what, $line) = @_;
  $line =~ s/^\s+|\s+$//g;
  print "FAIL: $f:$ln: $what\n", ($line eq "" ? "" : "    " . substr($line, 0, 160) . "\n");
  $fail = 1;
}
my @files = do { local $/ = "\0"; map { chomp; $_ } <STDIN> };
@files = grep { $_ ne "" && !m{^results/[^/]+/runs/} && !m{^tests/cases/bad/} } @files;
my %dirs = ("" => 1);
for (@files) { my $d = $_; while ($d =~ s{/[^/]*$}{}) { $dirs{$d} = 1 } }
my @dirs = sort keys %dirs;
my $rootvar = qr{\$\{?(?:PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|SHARD_SOURCE_DIR|src|SRC|root|ROOT|top|repo)\}?|\bSHARD_SOURCE_DIR\s*"};
my $herevar = qr{\$\{?(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}?|\$\(\s*dirname\s+"?\$(?:0|\{BASH_SOURCE\[0\]\})"?\s*\)|\$\{BASH_SOURCE%/\*\}};

for my $f (@files) {
  my $p = "$ENV{SRC}/$f";
  my $dir = ($f =~ m{^(.*)/[^/]*$}) ? $1 : "";
  if (-l $p) {
    my $t = readlink $p;
    bad($f, 0, "symbolic link to $t, outside the repository", "") if $t =~ m{^/} || climb($dir, $t) eq -1;
    next;
  }
  next unless -f $p && -s $p < 4_000_000 && !-B $p;
  open my $fh, "<", $p or next;
  my $md = $f =~ /\.md$/;
  while (my $line = <$fh>) {
    next if $line =~ /\bhostile input\b/;
    # relative paths starting with ../ (not $ORIGIN/../lib, not a/../b): they
    # must name something of the repository from the file`s own directory or,
    # for an example written for another place (a case file shown in a doc),
    # from some directory of the repository
    while ($line =~ m{(?<![\w.\$\}\)/-])((?:\.\./)+[\w.\-/]*)}g) {
      my $rel = $1;
      my $ok = 0;
      for my $d ($dir, @dirs) {
        my $t = climb($d, $rel);
        next if $t eq -1;
        $t =~ s{/$}{};
        if ($t ne "" && -e "$ENV{SRC}/$t") { $ok = 1; last }
      }
      bad($f, $., "\"$rel\" names nothing in the repository, from $f or any directory of it", $line) unless $ok;
    }
    # paths from a variable that names the top or the file`s directory
    while ($line =~ m{($rootvar|$herevar)"?((?:/\.\.)+)(?=[/"\s\x27)]|$)}g) {
      my ($var, $up) = ($1, $2);
      my $base = ($var =~ /CURRENT|dirname|BASH_SOURCE/) ? $dir : "";
      (my $rel = $up) =~ s{^/}{};
      bad($f, $., "\"$var$up\" climbs out of the repository", $line) if climb($base, $rel) eq -1;
    }
    # absolute paths into a workstation
    while ($line =~ m{(?<![\w.\-~])(/(?:work|root|mnt)/[\w.\-/]*)}g) { bad($f, $., "absolute path $1", $line) }
    bad($f, $., "absolute path of the directory holding this clone ($ENV{PARENT})", $line)
      if length($ENV{PARENT}) > 1 && index($line, "$ENV{PARENT}/") >= 0;
    if (!$md) { while ($line =~ m{(?<![\w.\-~])(/home/\w[\w.\-/]*)}g) { bad($f, $., "absolute path $1", $line) } }
  }
  close $fh;
  ++$n;
}
print "self_contained: $n files read, ",
  ($fail ? "references outside the repository found" : "every path stays inside the repository"), "\n";
exit $fail;
'
