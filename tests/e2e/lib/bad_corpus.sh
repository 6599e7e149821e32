# Sourced by the e2e scripts that run the bad-input corpus, with WORK set:
# copies tests/cases/bad/ to WORK/tests/cases/bad (so that paths read
# tests/cases/bad/NAME.yaml) and makes there the inputs that cannot be
# committed, a FIFO and a 17 MiB file. Sets bad to that folder.
#   stage_bad_corpus SOURCE_DIR WORK
stage_bad_corpus() {
  mkdir -p "$2/tests/cases"
  cp -a "$1/tests/cases/bad" "$2/tests/cases/bad"
  bad="$2/tests/cases/bad"
  mkfifo "$bad/fifo.yaml"
  truncate -s 17M "$bad/huge.yaml"
}
