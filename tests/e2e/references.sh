#!/usr/bin/env bash
# e2e: every reference resolves inside the repository. In every tracked text
# file (code, build files, scripts, tests, cases, docs, schemas):
#   - no citation of a document the repository does not hold: the words
#     SPEC or DESIGN (a specification or design note kept elsewhere), a
#     SPEC.md / DESIGN.md / STYLE.md that is not tracked, "issue N" (a tracker
#     entry, not part of a clone);
#   - a path to a Markdown file (docs/x.md, plugins/.../README.md, ...) names
#     a tracked file, relative to the top or to the citing file;
#   - FILE.md#anchor names a heading (GitHub's anchors) or an <a id> of FILE.md;
#   - FILE.md §N or "FILE.md section N" names a numbered heading "N." of
#     FILE.md, and a bare §N inside a numbered document (docs/theory.md,
#     docs/plugins.md) one of its own (the paper's sections are written
#     "paper §N" or "the paper's §N");
#   - a Markdown link [text](target) outside code blocks points at an
#     existing file or directory, and its #anchor at a heading of the target.
# Recorded run outputs (results/*/runs/) and binary files are data, not read.
#   bash references.sh <shard-exe> <source-dir> <build-dir>
set -euo pipefail
src=$(cd "$2" && pwd -P)

if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1 &&
  [ "$(cd "$(git -C "$src" rev-parse --show-toplevel)" && pwd -P)" = "$src" ]; then
  list() { git -C "$src" ls-files -z; }
else
  list() { (cd "$src" && find . -path ./.git -prune -o -path './build*' -prune -o -path ./out -prune -o \
    -type f -print0 | sed -z 's|^\./||'); }
fi

list | SRC="$src" perl -e '
use strict; use warnings; use utf8;
binmode STDOUT, ":encoding(UTF-8)";
my $fail = 0;
my @files = do { local $/ = "\0"; map { chomp; $_ } <STDIN> };
@files = grep { $_ ne "" && !m{^results/[^/]+/runs/} } @files;
my @checked = grep { $_ ne "tests/e2e/references.sh" } @files; # it names what it looks for
my %tracked = map { $_ => 1 } @files;
my %isdir;
for (@files) { my $d = $_; while ($d =~ s{/[^/]*$}{}) { $isdir{$d} = 1 } }

sub bad {
  my ($f, $ln, $what) = @_;
  print "FAIL: $f:$ln: $what\n";
  $fail = 1;
}
sub norm { # "a/b/../c" -> "a/c"; undef outside the repository
  my @s;
  for my $c (split m{/}, $_[0]) {
    next if $c eq "." || $c eq "";
    if ($c eq "..") { return undef unless @s; pop @s } else { push @s, $c }
  }
  return join "/", @s;
}
sub lines_of {
  my ($f) = @_;
  my $p = "$ENV{SRC}/$f";
  return () unless -f $p && !-l $p && -s $p < 4_000_000 && !-B $p;
  open my $fh, "<:encoding(UTF-8)", $p or return ();
  my @l = <$fh>;
  close $fh;
  return @l;
}
my (%anchors, %numbered);
sub anchors_of { # GitHub heading anchors, explicit <a id>, numbered headings
  my ($f) = @_;
  return if $anchors{$f};
  my (%a, %n, %seen);
  my $fence = 0;
  for (lines_of($f)) {
    if (/^\s*(```|~~~)/) { $fence = !$fence; next }
    next if $fence;
    while (/<a\s+(?:id|name)="([^"]+)"/g) { $a{$1} = 1 }
    next unless /^(#{1,6})\s+(.*?)\s*#*\s*$/;
    my $t = $2;
    $n{$1} = 1 if $t =~ /^(\d+)\.\s/;
    $t =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;
    my $s = lc $t;
    $s =~ s/[^\p{L}\p{N}\p{Mn} _-]//g;
    $s =~ s/ /-/g;
    my $k = $s;
    $k = $s . "-" . $seen{$s} if $seen{$s};
    $seen{$s}++;
    $a{$k} = 1;
  }
  $anchors{$f} = \%a;
  $numbered{$f} = \%n;
}
sub resolve_md { # a cited .md path: from the top, else from the citing file
  my ($f, $path) = @_;
  my $dir = ($f =~ m{^(.*)/[^/]*$}) ? $1 : "";
  for my $cand ($path, "$dir/$path") {
    my $n = norm($cand);
    return $n if defined $n && $tracked{$n};
  }
  return undef;
}

my $numbered_docs = qr{^docs/(?:theory|plugins)\.md$};
for my $f (@checked) {
  my @lines = lines_of($f) or next;
  my $md = $f =~ /\.md$/;
  my $dir = ($f =~ m{^(.*)/[^/]*$}) ? $1 : "";
  my $fence = 0;
  my $ln = 0;
  for my $line (@lines) {
    ++$ln;
    my $in_fence = $fence;
    if ($md && $line =~ /^\s*(```|~~~)/) { $fence = !$fence; $in_fence = 1 }
    # 1. documents that are not in the repository
    while ($line =~ /\b(SPEC|DESIGN)\b(?![_-])/g) { bad($f, $ln, "cites $1, a document outside the repository") }
    while ($line =~ /\b((?:SPEC|DESIGN|STYLE)(?:-\w+)?\.md)\b/g) {
      bad($f, $ln, "cites $1, not in the repository") unless grep { m{(^|/)\Q$1\E$} } @files;
    }
    while ($line =~ /\b([Ii]ssues?\s*#?\d+)/g) { bad($f, $ln, "cites \"$1\", a tracker entry outside the repository") }
    # 2. paths to Markdown files
    while ($line =~ m{(?<![\w./<*\$-])((?:\.\./|\./)*(?:[\w.-]+/)*[\w.-]+\.md)\b(?![\w/])}g) {
      my $p = $1;
      next if $p =~ m{^(?:SPEC|DESIGN|STYLE)} || $p =~ /^\.md$/;
      bad($f, $ln, "names $p, which is not a file of the repository") unless defined resolve_md($f, $p);
    }
    # 3. FILE.md#anchor
    while ($line =~ m{(?<![\w./<*\$-])((?:\.\./|\./)*(?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)}g) {
      my ($p, $a) = ($1, $2);
      my $t = resolve_md($f, $p) // next;
      anchors_of($t);
      bad($f, $ln, "$p#$a: no such heading or anchor in $t") unless $anchors{$t}{$a};
    }
    # 4. FILE.md §N / FILE.md section N
    while ($line =~ m{((?:[\w.-]+/)*[\w.-]+\.md)`?\)?,?\s+(?:§\s*|section\s+)(\d+)}g) {
      my ($p, $n) = ($1, $2);
      my $t = resolve_md($f, $p) // next;
      anchors_of($t);
      bad($f, $ln, "$p section $n: $t has no numbered heading \"$n.\"") unless $numbered{$t}{$n};
    }
    if ($f =~ $numbered_docs) {
      anchors_of($f);
      while ($line =~ /(\S*\s*\S*\s*)§\s*(\d+)/g) {
        my ($before, $n) = ($1, $2);
        next if $before =~ /paper(?:\x27s|’s)?\s*$|\.md`?\s*$|Appendix\s*$/;
        bad($f, $ln, "§$n: no numbered heading \"$n.\" in this document") unless $numbered{$f}{$n};
      }
    }
    # 5. Markdown links
    next unless $md && !$in_fence;
    (my $text = $line) =~ s/`[^`]*`//g;
    while ($text =~ /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g) {
      my $target = $1;
      next if $target =~ m{^(?:[a-z][a-z0-9+.-]*:|//)}i;
      my ($path, $a) = $target =~ /^([^#]*)(?:#(.*))?$/;
      my $t = $path eq "" ? $f : norm($dir eq "" ? $path : "$dir/$path");
      if (!defined $t) { bad($f, $ln, "link $target leaves the repository"); next }
      $t =~ s{/$}{};
      if (!$tracked{$t} && !$isdir{$t}) { bad($f, $ln, "link $target: no such file or directory"); next }
      if (defined $a && $a ne "") {
        if ($t !~ /\.md$/) { bad($f, $ln, "link $target: an anchor into a file that is not Markdown"); next }
        anchors_of($t);
        bad($f, $ln, "link $target: no heading or anchor \"$a\" in $t") unless $anchors{$t}{$a};
      }
    }
  }
}
print "references: ", scalar(@files), " files, ",
  ($fail ? "dangling references found" : "every reference resolves inside the repository"), "\n";
exit $fail;
'
