/* tests: checkpoints — the container (checksum, sections), and a fuzz test:
 * a real checkpoint of a small fragmenting bar, mutated (bit flips,
 * truncations, extreme int32/int64 and float values planted in the header,
 * the section heads and the bodies; its partial history cut, NUL-filled,
 * altered), each continued with --restart in a child process under a time
 * limit. Never a crash, a hang or a sanitizer report; a mutant is refused
 * (exit 2, "corrupt (...)") or continues to the history of the uninterrupted
 * run. Mutants with the checksum recomputed reach the bounds checks behind
 * it: integer fields must still be refused or harmless, and a run that
 * continues from a changed float must still write a well-formed history. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/checkpoint.h"
#include "cu_runner.h"
#include "run_helpers.h"

#define MUTANT_TIMEOUT_S 60 /* per restart (a few tenths of a second under ASan) */

/* ---- the container ---- */

static void test_checkpoint_crc32(void) {
  CU_ASSERT_EQUAL(shard_crc32(0, "123456789", 9), 0xcbf43926u); /* the standard check value */
  const uint32_t a = shard_crc32(0, "1234", 4);
  CU_ASSERT_EQUAL(shard_crc32(a, "56789", 5), 0xcbf43926u);     /* continued */
  CU_ASSERT_EQUAL(shard_crc32(0, "", 0), 0u);
}

static size_t build_container(unsigned char **out) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  shard_ck_header h = {.step = 7, .hist_bytes = 100, .hist_rows = 3, .hist_crc = 0x1234, .nsections = 2};
  memset(h.run_hash, 'a', 64);
  shard_ck_put_header(f, &h);
  const int32_t ints[3] = {1, -2, 3};
  const double dbl[2] = {0.5, -1.5};
  shard_ck_put_section(f, "ints", SHARD_CK_I32, ints, 3);
  shard_ck_put_section(f, "dbl", SHARD_CK_F64, dbl, 2);
  fclose(f);
  shard_ck_seal((unsigned char *)buf, len);
  *out = (unsigned char *)buf;
  return len;
}

static void test_checkpoint_container(void) {
  unsigned char *b;
  const size_t len = build_container(&b);
  CU_ASSERT_EQUAL(len, SHARD_CK_HEADER + 32 + 16 + 32 + 16); /* 12 bytes of int32 padded to 16 */
  shard_ck_header h;
  shard_ck_reader rd;
  shard_msg msg = {{0}};
  uint32_t version = 0;
  CU_ASSERT_EQUAL_FATAL(shard_ck_open(b, len, &h, &rd, &version, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(h.step, 7);
  CU_ASSERT_EQUAL(h.hist_rows, 3);
  int32_t ints[3];
  double dbl[2];
  CU_ASSERT_EQUAL(shard_ck_get_section(&rd, "ints", SHARD_CK_I32, ints, 3, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(ints[1], -2);
  /* a wrong expectation names the section and the difference */
  shard_ck_reader rd2 = rd;
  CU_ASSERT_EQUAL(shard_ck_get_section(&rd2, "dbl", SHARD_CK_F64, dbl, 3, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "section 'dbl' has 2 entries, this case has 3") != NULL, "%s", msg.text);
  rd2 = rd;
  CU_ASSERT_EQUAL(shard_ck_get_section(&rd2, "other", SHARD_CK_F64, dbl, 2, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "section 'other' expected at byte 176, found 'dbl'") != NULL, "%s", msg.text);
  CU_ASSERT_EQUAL(shard_ck_get_section(&rd, "dbl", SHARD_CK_F64, dbl, 2, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(dbl[1], -1.5);
  CU_ASSERT_EQUAL(shard_ck_close(&rd, &msg), SHARD_OK);
  /* every single bit flipped anywhere is caught by the magic, version, length or checksum */
  int caught = 0;
  for (size_t i = 0; i < len * 8; ++i) {
    b[i / 8] ^= (unsigned char)(1u << (i % 8));
    caught += shard_ck_open(b, len, &h, &rd, &version, &msg) != SHARD_OK;
    b[i / 8] ^= (unsigned char)(1u << (i % 8));
  }
  CU_ASSERT_EQUAL(caught, (int)(len * 8));
  caught = 0;
  for (size_t n = 0; n < len; ++n) caught += shard_ck_open(b, n, &h, &rd, &version, &msg) != SHARD_OK;
  CU_ASSERT_EQUAL(caught, (int)len); /* every truncation too */
  /* earlier formats are named */
  memcpy(b, "SHARDCK3", 8);
  CU_ASSERT_EQUAL(shard_ck_open(b, len, &h, &rd, &version, &msg), SHARD_ERR_INPUT);
  CU_ASSERT_EQUAL(version, 3u);
  CU_CHECK_MSG(strstr(msg.text, "format 3") != NULL, "%s", msg.text);
  free(b);
}

/* ---- the fuzz test ---- */

static char fz_base[600];
static unsigned char *fz_ck, *fz_hist, *fz_case;
static size_t fz_ck_len, fz_hist_len, fz_case_len;
static int64_t fz_nsteps, fz_hist_prefix;

typedef struct section {
  char name[17];
  uint32_t type;
  uint64_t count;
  size_t head, data; /* offsets */
} section;
static section fz_sec[64];
static int fz_nsec;

typedef enum expect {
  REFUSE_OR_SAME, /* refused, or continues to the uninterrupted run's history */
  SANE            /* a state the file may legitimately hold: any clear outcome, a well-formed history */
} expect;

typedef struct tally {
  int tried, refused, same, differs, numeric, bad;
} tally;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return rng_state;
}

static int slurp(const char *path, unsigned char **out, size_t *len) {
  shard_msg msg;
  return shard_read_file(path, (size_t)1 << 30, out, len, &msg) == SHARD_OK;
}

static int spit(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  const int ok = fwrite(p, 1, n, f) == n;
  return (fclose(f) == 0) && ok;
}

/* the restart, as `shard run --restart DIR` does it (in a child) */
static int child_restart(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/case.resolved.yaml", dir);
  shard_diag *diag = shard_diag_create();
  shard_case *c = NULL;
  shard_msg msg = {{0}};
  int code = 2;
  if (shard_case_load(path, NULL, 0, rh_registry(), &c, diag) == SHARD_OK) {
    shard_run_options opt = {.out_dir = dir, .restart = 1};
    code = shard_run_case(c, rh_registry(), &opt, diag, &msg);
  }
  if (shard_diag_count(diag)) shard_diag_print(diag, stderr);
  if (code != 0) fprintf(stderr, "shard run: %s\n", msg.text);
  shard_case_destroy(c);
  shard_diag_destroy(diag);
  return code;
}

/* a history a finished run may write: text, rows of the header's width,
 * steps increasing; complete (last step nsteps) when `complete` */
static int history_sane(const unsigned char *h, size_t n, int complete, char *why, size_t nwhy) {
  if (n == 0 || h[n - 1] != '\n') return snprintf(why, nwhy, "does not end with a newline"), 0;
  if (memchr(h, 0, n)) return snprintf(why, nwhy, "holds a NUL byte"), 0;
  int width = -1;
  long long prev = -1, line = 0;
  for (size_t i = 0; i < n; ++line) {
    const unsigned char *e = memchr(h + i, '\n', n - i);
    int commas = 0;
    for (const unsigned char *p = h + i; p < e; ++p) commas += *p == ',';
    if (width < 0) width = commas;
    else {
      if (commas != width) return snprintf(why, nwhy, "line %lld has %d fields, the header %d", line + 1, commas + 1, width + 1), 0;
      const long long step = strtoll((const char *)h + i, NULL, 10);
      if (step <= prev) return snprintf(why, nwhy, "line %lld: step %lld after %lld", line + 1, step, prev), 0;
      prev = step;
    }
    i = (size_t)(e - h) + 1;
  }
  if (complete && prev != fz_nsteps) return snprintf(why, nwhy, "ends at step %lld of %lld", prev, (long long)fz_nsteps), 0;
  return 1;
}

static int exists_in(const char *dir, const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

/* Continue from the mutant (checkpoint ck, partial history hist; NULL: no
 * such file) and judge the outcome. */
static void try_mutant(tally *t, const char *label, const unsigned char *ck, size_t ck_len, const unsigned char *hist,
                       size_t hist_len, expect e) {
  char dir[700], p[1024];
  snprintf(dir, sizeof dir, "%s/m%d", rh_tmpdir, t->tried);
  t->tried++;
  mkdir(dir, 0777);
  snprintf(p, sizeof p, "%s/case.resolved.yaml", dir);
  int ok = spit(p, fz_case, fz_case_len);
  snprintf(p, sizeof p, "%s/checkpoint.bin", dir);
  if (ck) ok = ok && spit(p, ck, ck_len);
  snprintf(p, sizeof p, "%s/.history.csv.partial", dir);
  if (hist) ok = ok && spit(p, hist, hist_len);
  CU_ASSERT_FATAL(ok);
  fflush(NULL);
  const pid_t pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    snprintf(p, sizeof p, "%s/stderr", dir);
    const int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2), close(fd);
    alarm(MUTANT_TIMEOUT_S);
    _exit(child_restart(dir));
  }
  int ws = 0;
  waitpid(pid, &ws, 0);
  unsigned char *err = NULL, *out = NULL;
  size_t err_len = 0, out_len = 0;
  snprintf(p, sizeof p, "%s/stderr", dir);
  slurp(p, &err, &err_len);
  char *msg = err ? (char *)err : "";
  if (err) err[err_len] = '\0';
  char problem[600] = "";
  const int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
  if (WIFSIGNALED(ws)) {
    snprintf(problem, sizeof problem, "%s (signal %d)", WTERMSIG(ws) == SIGALRM ? "hang" : "crash", WTERMSIG(ws));
  } else if (strstr(msg, "Sanitizer") || strstr(msg, "runtime error")) {
    snprintf(problem, sizeof problem, "sanitizer report");
  } else if (code == 2) {
    t->refused++;
    if (!strstr(msg, "corrupt (") && !strstr(msg, "format ") && !strstr(msg, "belongs to another run") &&
        !strstr(msg, "partial history"))
      snprintf(problem, sizeof problem, "refused without saying it is corrupt");
    else if (exists_in(dir, "summary.yaml") || exists_in(dir, "history.csv"))
      snprintf(problem, sizeof problem, "refused, but wrote a summary or history");
  } else if (code == 0 || code == 3) {
    snprintf(p, sizeof p, "%s/history.csv", dir);
    char why[300] = "";
    if (!slurp(p, &out, &out_len)) {
      snprintf(problem, sizeof problem, "exit %d without history.csv", code);
    } else if (out_len == fz_hist_len && memcmp(out, fz_hist, out_len) == 0) {
      t->same++;
    } else if (e == REFUSE_OR_SAME && code == 0) {
      snprintf(problem, sizeof problem, "exit 0 with a history that differs from the uninterrupted run's");
    } else if (!history_sane(out, out_len, code == 0, why, sizeof why)) {
      snprintf(problem, sizeof problem, "exit %d with a malformed history: %s", code, why);
    } else {
      code == 0 ? t->differs++ : t->numeric++;
    }
    if (!problem[0] && e == REFUSE_OR_SAME && code == 3)
      snprintf(problem, sizeof problem, "numerical failure instead of a refusal");
  } else {
    snprintf(problem, sizeof problem, "exit %d", code);
  }
  if (problem[0]) {
    if (++t->bad <= 25) {
      fprintf(stderr, "  mutant %d (%s): %s\n    %.400s\n", t->tried - 1, label, problem, msg);
    }
    CU_FAIL("checkpoint mutant");
  }
  free(err), free(out);
  char cmd[800];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

/* recompute the checksum (keeping the length field as it is) */
static void reseal(unsigned char *b, size_t len) {
  if (len < SHARD_CK_HEADER) return;
  const uint32_t crc = shard_crc32(0, b + SHARD_CK_OFF_LENGTH, len - SHARD_CK_OFF_LENGTH);
  memcpy(b + SHARD_CK_OFF_CRC, &crc, 4);
}

static void plant(unsigned char *b, size_t off, int width, int64_t v) {
  if (width == 4) {
    const int32_t x = (int32_t)v;
    memcpy(b + off, &x, 4);
  } else {
    memcpy(b + off, &v, 8);
  }
}

/* Build the base: the uninterrupted run (checkpoint at step 150 of 299 kept
 * in its directory); its history serves as the partial history, of which a
 * restart keeps the bytes up to the checkpoint. */
static int fz_setup(void) {
  static int done = 0;
  if (done) return done > 0;
  done = -1;
  const char *sets[] = {"model.elements=100", "time.checkpoint_every=150"};
  char msg[512];
  if (rh_run("tests/cases/fracture/expanding", "ckfuzz", sets, 2, fz_base, sizeof fz_base, msg, sizeof msg) != 0) {
    fprintf(stderr, "base run: %s\n", msg);
    return 0;
  }
  char p[800];
  snprintf(p, sizeof p, "%s/checkpoint.bin", fz_base);
  if (!slurp(p, &fz_ck, &fz_ck_len)) return 0;
  snprintf(p, sizeof p, "%s/history.csv", fz_base);
  if (!slurp(p, &fz_hist, &fz_hist_len)) return 0;
  snprintf(p, sizeof p, "%s/case.resolved.yaml", fz_base);
  if (!slurp(p, &fz_case, &fz_case_len)) return 0;
  fz_nsteps = (int64_t)rh_summary(fz_base, "steps");
  shard_ck_header h;
  shard_ck_reader rd;
  shard_msg m;
  if (shard_ck_open(fz_ck, fz_ck_len, &h, &rd, NULL, &m) != SHARD_OK) return 0;
  fz_hist_prefix = h.hist_bytes;
  size_t pos = SHARD_CK_HEADER;
  for (uint32_t i = 0; i < h.nsections && i < 64; ++i) {
    section *s = &fz_sec[fz_nsec++];
    memcpy(s->name, fz_ck + pos, 16);
    s->name[16] = '\0';
    memcpy(&s->type, fz_ck + pos + 16, 4);
    memcpy(&s->count, fz_ck + pos + 24, 8);
    s->head = pos, s->data = pos + SHARD_CK_SECTION_HEAD;
    pos = s->data + (s->count * shard_ck_type_size(s->type) + 7) / 8 * 8;
  }
  done = pos == fz_ck_len && fz_nsteps > 150 && h.step == 150 ? 1 : -1;
  return done > 0;
}

static void report(const char *what, const tally *t) {
  printf("\n  %-46s %4d mutants: %4d refused, %4d same history, %3d other history, %3d numerical failure, %d bad\n",
         what, t->tried, t->refused, t->same, t->differs, t->numeric, t->bad);
}

static tally total;
static void add(const tally *t) {
  total.tried += t->tried, total.refused += t->refused, total.same += t->same, total.differs += t->differs;
  total.numeric += t->numeric, total.bad += t->bad;
}

static void test_checkpoint_fuzz_pristine(void) {
  CU_ASSERT_FATAL(fz_setup());
  tally t = {0};
  try_mutant(&t, "pristine", fz_ck, fz_ck_len, fz_hist, fz_hist_len, REFUSE_OR_SAME);
  CU_ASSERT_EQUAL(t.same, 1); /* the unmutated checkpoint continues to the same history */
  try_mutant(&t, "no partial history", fz_ck, fz_ck_len, NULL, 0, REFUSE_OR_SAME);
  CU_ASSERT_EQUAL(t.refused, 1);
  report("pristine, no partial history", &t);
  add(&t);
}

/* The checksum as written: every mutation must be refused. */
static void test_checkpoint_fuzz_raw(void) {
  CU_ASSERT_FATAL(fz_setup());
  tally t = {0};
  unsigned char *b = malloc(fz_ck_len + 64);
  char label[128];
  for (int i = 0; i < 200; ++i) { /* single bit flips, a quarter of them in the header */
    memcpy(b, fz_ck, fz_ck_len);
    const size_t bit = i % 4 == 0 ? rnd() % (SHARD_CK_HEADER * 8) : rnd() % (fz_ck_len * 8);
    b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    snprintf(label, sizeof label, "bit %zu flipped", bit);
    try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, REFUSE_OR_SAME);
  }
  for (int i = 0; i < 40; ++i) { /* a run of random bytes */
    memcpy(b, fz_ck, fz_ck_len);
    const size_t at = rnd() % fz_ck_len, n = 1 + rnd() % 16;
    for (size_t k = at; k < at + n && k < fz_ck_len; ++k) b[k] = (unsigned char)rnd();
    snprintf(label, sizeof label, "%zu random bytes at %zu", n, at);
    try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, REFUSE_OR_SAME);
  }
  const size_t cuts[] = {0, 1, 7, 8, 12, 16, 24, 88, 127, 128, 129, 159, 160, 161};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; ++i) {
    snprintf(label, sizeof label, "truncated to %zu bytes", cuts[i]);
    try_mutant(&t, label, fz_ck, cuts[i], fz_hist, fz_hist_len, REFUSE_OR_SAME);
  }
  for (int i = 0; i < 26; ++i) {
    const size_t n = i < 8 ? fz_ck_len - 1 - (size_t)i : rnd() % fz_ck_len;
    snprintf(label, sizeof label, "truncated to %zu bytes", n);
    try_mutant(&t, label, fz_ck, n, fz_hist, fz_hist_len, REFUSE_OR_SAME);
  }
  for (int i = 0; i < 6; ++i) { /* grown */
    memcpy(b, fz_ck, fz_ck_len);
    const size_t n = (size_t)(i + 1) * 8;
    for (size_t k = 0; k < n; ++k) b[fz_ck_len + k] = (unsigned char)(i ? rnd() : 0);
    snprintf(label, sizeof label, "%zu bytes appended", n);
    try_mutant(&t, label, b, fz_ck_len + n, fz_hist, fz_hist_len, REFUSE_OR_SAME);
  }
  free(b);
  report("checksum kept (bit flips, bytes, lengths)", &t);
  add(&t);
}

static const int64_t extremes[] = {0, 1, -1, INT32_MIN, INT32_MAX, (int64_t)INT32_MAX + 1, INT64_MIN, INT64_MAX,
                                   1000000000000ll, -1000000000000ll};
#define NEXTREMES (sizeof extremes / sizeof extremes[0])

/* Checksum recomputed: header fields and section heads planted with extreme
 * values. Every one must still be refused (or change nothing). */
static void test_checkpoint_fuzz_heads(void) {
  CU_ASSERT_FATAL(fz_setup());
  tally t = {0};
  unsigned char *b = malloc(fz_ck_len);
  char label[256];
  const struct {
    const char *name;
    size_t off;
    int width;
  } fields[] = {{"version", SHARD_CK_OFF_VERSION, 4}, {"length", SHARD_CK_OFF_LENGTH, 8},
                {"step", SHARD_CK_OFF_STEP, 8},       {"history bytes", SHARD_CK_OFF_HIST_BYTES, 8},
                {"history rows", SHARD_CK_OFF_HIST_ROWS, 8}, {"history crc", SHARD_CK_OFF_HIST_CRC, 4},
                {"sections", SHARD_CK_OFF_NSECTIONS, 4}};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; ++f) {
    int64_t orig = 0;
    memcpy(&orig, fz_ck + fields[f].off, (size_t)fields[f].width);
    const int64_t more[] = {orig + 1, orig - 1, 2 * orig};
    for (size_t v = 0; v < NEXTREMES + 3; ++v) {
      const int64_t x = v < NEXTREMES ? extremes[v] : more[v - NEXTREMES];
      memcpy(b, fz_ck, fz_ck_len);
      plant(b, fields[f].off, fields[f].width, x);
      reseal(b, fz_ck_len);
      snprintf(label, sizeof label, "header %s = %lld, resealed", fields[f].name, (long long)x);
      try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, REFUSE_OR_SAME);
    }
  }
  for (int s = 0; s < fz_nsec; ++s) {
    const section *sc = &fz_sec[s];
    const int64_t counts[] = {0, (int64_t)sc->count - 1, (int64_t)sc->count + 1, INT64_MAX, -1};
    for (size_t v = 0; v < sizeof counts / sizeof counts[0]; ++v) {
      memcpy(b, fz_ck, fz_ck_len);
      plant(b, sc->head + 24, 8, counts[v]);
      reseal(b, fz_ck_len);
      snprintf(label, sizeof label, "section %.16s count = %lld, resealed", sc->name, (long long)counts[v]);
      try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, REFUSE_OR_SAME);
    }
    const uint32_t types[] = {0, sc->type % 4 + 1, 0xffffffffu};
    for (size_t v = 0; v < 3; ++v) {
      memcpy(b, fz_ck, fz_ck_len);
      memcpy(b + sc->head + 16, &types[v], 4);
      reseal(b, fz_ck_len);
      snprintf(label, sizeof label, "section %.16s type = %u, resealed", sc->name, types[v]);
      try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, REFUSE_OR_SAME);
    }
    memcpy(b, fz_ck, fz_ck_len);
    b[sc->head] ^= 0x20;
    reseal(b, fz_ck_len);
    snprintf(label, sizeof label, "section %.16s renamed, resealed", sc->name);
    try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, REFUSE_OR_SAME);
  }
  for (int i = 0; i < 20; ++i) { /* truncated at a random point, length and checksum made to agree */
    const size_t n = SHARD_CK_HEADER + rnd() % (fz_ck_len - SHARD_CK_HEADER);
    memcpy(b, fz_ck, n);
    shard_ck_seal(b, n);
    snprintf(label, sizeof label, "truncated to %zu bytes, sealed", n);
    try_mutant(&t, label, b, n, fz_hist, fz_hist_len, REFUSE_OR_SAME);
  }
  free(b);
  report("checksum recomputed: header and section heads", &t);
  add(&t);
}

/* Checksum recomputed: integer entries of the model (counts, indices,
 * pattern) planted with extreme and off-by-one values. Refused, or the entry
 * is one the restart never reads (then the history is the same). */
static void test_checkpoint_fuzz_indices(void) {
  CU_ASSERT_FATAL(fz_setup());
  tally t = {0};
  unsigned char *b = malloc(fz_ck_len);
  char label[256];
  for (int s = 0; s < fz_nsec; ++s) {
    const section *sc = &fz_sec[s];
    if (sc->type != SHARD_CK_I32 && sc->type != SHARD_CK_I64) continue;
    const int w = sc->type == SHARD_CK_I32 ? 4 : 8;
    const uint64_t n = sc->count;
    const uint64_t at[] = {0, 1, n / 3, n / 2, n - 2, n - 1};
    for (size_t a = 0; a < sizeof at / sizeof at[0]; ++a) {
      const size_t off = sc->data + (size_t)at[a] * (size_t)w;
      int64_t orig = 0;
      if (w == 4) {
        int32_t o;
        memcpy(&o, fz_ck + off, 4);
        orig = o;
      } else {
        memcpy(&orig, fz_ck + off, 8);
      }
      const int64_t vals[] = {INT32_MIN, -2, -1, 0, INT32_MAX, INT64_MIN, INT64_MAX, orig + 1, orig - 1, 101, 199};
      for (size_t v = 0; v < sizeof vals / sizeof vals[0]; ++v) {
        if (w == 4 && (vals[v] == INT64_MIN || vals[v] == INT64_MAX)) continue;
        memcpy(b, fz_ck, fz_ck_len);
        plant(b, off, w, vals[v]);
        reseal(b, fz_ck_len);
        snprintf(label, sizeof label, "%.16s[%llu] = %lld (was %lld), resealed", sc->name, (unsigned long long)at[a],
                 (long long)vals[v], (long long)orig);
        try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, REFUSE_OR_SAME);
      }
    }
  }
  free(b);
  report("checksum recomputed: integer entries", &t);
  add(&t);
}

/* Checksum recomputed: floats (non-finite ones must be refused) and the run
 * section's raw bytes, and random bit flips: a clear outcome each, a
 * well-formed history when the run goes on. */
static void test_checkpoint_fuzz_values(void) {
  CU_ASSERT_FATAL(fz_setup());
  tally t = {0};
  unsigned char *b = malloc(fz_ck_len);
  char label[256];
  for (int s = 0; s < fz_nsec; ++s) {
    const section *sc = &fz_sec[s];
    if (sc->type != SHARD_CK_F64) continue;
    const double vals[] = {NAN, INFINITY, -INFINITY, 1e308, -1e308, 0.0, 4.9e-324};
    for (size_t v = 0; v < sizeof vals / sizeof vals[0]; ++v) {
      const uint64_t at = v == 0 ? 0 : rnd() % sc->count;
      memcpy(b, fz_ck, fz_ck_len);
      memcpy(b + sc->data + 8 * at, &vals[v], 8);
      reseal(b, fz_ck_len);
      snprintf(label, sizeof label, "%.16s[%llu] = %g, resealed", sc->name, (unsigned long long)at, vals[v]);
      try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, isfinite(vals[v]) ? SANE : REFUSE_OR_SAME);
    }
  }
  for (int s = 0; s < fz_nsec; ++s) {
    const section *sc = &fz_sec[s];
    if (sc->type != SHARD_CK_BYTES) continue;
    for (uint64_t off = 0; off + 8 <= sc->count; off += 8) {
      const int64_t vals[] = {INT64_MIN, -1, INT32_MAX};
      const int64_t x = vals[(off / 8) % 3];
      memcpy(b, fz_ck, fz_ck_len);
      plant(b, sc->data + off, 8, x);
      reseal(b, fz_ck_len);
      snprintf(label, sizeof label, "run section bytes %llu..%llu = %lld, resealed", (unsigned long long)off,
               (unsigned long long)off + 7, (long long)x);
      try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, SANE);
    }
  }
  for (int i = 0; i < 100; ++i) {
    memcpy(b, fz_ck, fz_ck_len);
    const size_t bit = SHARD_CK_HEADER * 8 + rnd() % ((fz_ck_len - SHARD_CK_HEADER) * 8);
    b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    reseal(b, fz_ck_len);
    snprintf(label, sizeof label, "bit %zu flipped, resealed", bit);
    try_mutant(&t, label, b, fz_ck_len, fz_hist, fz_hist_len, SANE);
  }
  free(b);
  report("checksum recomputed: floats, run bytes, bit flips", &t);
  add(&t);
}

/* The partial history: cut before the checkpoint's bytes, NUL-filled (as a
 * file system leaves a file after a crash), altered, or longer (rows of
 * steps after the checkpoint: dropped, the normal case after a kill). */
static void test_checkpoint_fuzz_history(void) {
  CU_ASSERT_FATAL(fz_setup());
  tally t = {0};
  unsigned char *h = malloc(fz_hist_len + 64);
  char label[256];
  const size_t P = (size_t)fz_hist_prefix;
  const size_t cuts[] = {0, 1, P / 2, P - 2, P - 1, P, P + 1, P + 100, fz_hist_len - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; ++i) {
    snprintf(label, sizeof label, "partial history cut to %zu bytes (checkpoint: %zu)", cuts[i], P);
    try_mutant(&t, label, fz_ck, fz_ck_len, fz_hist, cuts[i], REFUSE_OR_SAME);
  }
  for (int i = 0; i < 12; ++i) { /* NUL bytes: a stretch, or the whole tail of the prefix */
    memcpy(h, fz_hist, fz_hist_len);
    const size_t at = i < 4 ? P - 1 - (size_t)i * 100 : rnd() % P, n = i < 4 ? P - at : 1 + rnd() % 64;
    memset(h + at, 0, at + n > fz_hist_len ? fz_hist_len - at : n);
    snprintf(label, sizeof label, "partial history: %zu NUL bytes at %zu", n, at);
    try_mutant(&t, label, fz_ck, fz_ck_len, h, fz_hist_len, REFUSE_OR_SAME);
  }
  for (int i = 0; i < 14; ++i) { /* one byte changed, before or after the checkpoint's bytes */
    memcpy(h, fz_hist, fz_hist_len);
    const size_t at = i < 10 ? rnd() % P : P + rnd() % (fz_hist_len - P);
    h[at] = h[at] == '7' ? '8' : '7';
    snprintf(label, sizeof label, "partial history: byte %zu changed", at);
    try_mutant(&t, label, fz_ck, fz_ck_len, h, fz_hist_len, REFUSE_OR_SAME);
  }
  memcpy(h, fz_hist, P); /* a row removed and one duplicated: same length */
  {
    const unsigned char *nl = memchr(fz_hist, '\n', P);
    const size_t first = (size_t)(nl - fz_hist) + 1;
    const unsigned char *nl2 = memchr(fz_hist + first, '\n', P - first);
    const size_t row = (size_t)(nl2 - fz_hist) + 1 - first;
    memcpy(h + first, fz_hist + first + row, P - first - row);
    memcpy(h + P - row, fz_hist + P - row, row);
    try_mutant(&t, "partial history: a row moved", fz_ck, fz_ck_len, h, P, REFUSE_OR_SAME);
  }
  free(h);
  report("partial history", &t);
  add(&t);
}

/* A run stopped after its first step (a checkpoint there), continued and
 * stopped again after one more step (a checkpoint written after a restart,
 * its history checksum continued), then continued to the end: the history
 * of the uninterrupted run. */
static void test_checkpoint_restart_twice(void) {
  CU_ASSERT_FATAL(fz_setup());
  char dir[700], path[1024];
  snprintf(dir, sizeof dir, "%s/twice", rh_tmpdir);
  snprintf(path, sizeof path, "%.900s/tests/cases/fracture/expanding.yaml", SHARD_SOURCE_DIR);
  const char *sets[] = {"model.elements=100", "time.checkpoint_every=150"};
  volatile sig_atomic_t stop = 1;
  for (int attempt = 0; attempt < 3; ++attempt) {
    shard_diag *diag = shard_diag_create();
    shard_case *c = NULL;
    shard_msg msg = {{0}};
    int64_t from = -1;
    char resolved[1024];
    snprintf(resolved, sizeof resolved, "%s/case.resolved.yaml", dir);
    const int ok = shard_case_load(attempt ? resolved : path, attempt ? NULL : sets, attempt ? 0 : 2, rh_registry(), &c,
                                   diag) == SHARD_OK;
    CU_ASSERT_FATAL(ok);
    shard_run_options opt = {.out_dir = dir, .restart = attempt > 0, .continued_from = &from,
                             .stop = attempt < 2 ? &stop : NULL};
    const int code = shard_run_case(c, rh_registry(), &opt, diag, &msg);
    CU_CHECK_MSG(code == (attempt < 2 ? SHARD_RUN_STOPPED : 0), "attempt %d: exit %d: %.900s", attempt, code, msg.text);
    if (attempt > 0) CU_ASSERT_EQUAL(from, attempt); /* stopped after steps 1, then 2 */
    shard_case_destroy(c);
    shard_diag_destroy(diag);
  }
  unsigned char *h = NULL;
  size_t n = 0;
  snprintf(path, sizeof path, "%.700s/history.csv", dir);
  CU_ASSERT_FATAL(slurp(path, &h, &n));
  CU_ASSERT(n == fz_hist_len && memcmp(h, fz_hist, n) == 0);
  CU_ASSERT_EQUAL(rh_summary(dir, "restarts"), 2);
  free(h);
}

static void test_checkpoint_fuzz_total(void) {
  report("total", &total);
  CU_ASSERT(total.tried >= 500);
  CU_ASSERT_EQUAL(total.bad, 0);
  rh_cleanup();
}

static const cu_test_def tests[] = {
    {"test_checkpoint_crc32", test_checkpoint_crc32},
    {"test_checkpoint_container", test_checkpoint_container},
    {"test_checkpoint_fuzz_pristine", test_checkpoint_fuzz_pristine},
    {"test_checkpoint_fuzz_raw", test_checkpoint_fuzz_raw},
    {"test_checkpoint_fuzz_heads", test_checkpoint_fuzz_heads},
    {"test_checkpoint_fuzz_indices", test_checkpoint_fuzz_indices},
    {"test_checkpoint_fuzz_values", test_checkpoint_fuzz_values},
    {"test_checkpoint_fuzz_history", test_checkpoint_fuzz_history},
    {"test_checkpoint_restart_twice", test_checkpoint_restart_twice},
    {"test_checkpoint_fuzz_total", test_checkpoint_fuzz_total},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "checkpoint", tests); }
