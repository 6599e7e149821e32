/* tests: the bar model's own contact operator (shard_model_contact_operator,
 * the model's optional contact_operator slot) against the host's product
 * (contact/contact.c, kept and from scratch) on random active sets of a
 * damaged bar with interfaces at adjacent nodes and walls at both ends:
 * the same pattern and the same values bit for bit, with and without K;
 * a row out of range and too little room refused with a message; the
 * same in threads as in one. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bar_build.h"
#include "contact/contact.h"
#include "core/diag.h"
#include "cu_runner.h"
#include "loader/registry.h"

static const char *case_text = "name: bar_operator\n"
                               "model:\n"
                               "  type: bar\n"
                               "  length: 1e-3\n"
                               "  young: 370e9\n"
                               "  density: 3900\n"
                               "  elements: 40\n"
                               "  perturbation: 0.4\n"
                               "  seed: 3\n"
                               "  walls: {left: {gap: 0}, right: {gap: 1e-9}}\n"
                               "  initial: {velocity: -5.0}\n"
                               "fracture:\n"
                               "  plugin: camacho_ortiz\n"
                               "  g_c: 50\n"
                               "  insertion: false\n"
                               "  strength: {nominal: 262e6}\n"
                               "  initial: {count: 30, damage: 1e-3, seed: 5}\n"
                               "integrator: {plugin: nsn}\n"
                               "contact:\n"
                               "  impact: {plugin: newton_impact, restitution: 0}\n"
                               "lcp: {plugin: lemke}\n"
                               "time: {end: 1e-7, dt: 1e-11}\n";

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

typedef struct fixture {
  shard_registry *reg;
  shard_diag *diag;
  shard_case *c;
  shard_model *m;
  const shard_tsl_ops *tsl;
  void *tsl_self;
  char path[64];
} fixture;

static int fixture_open(fixture *fx) {
  memset(fx, 0, sizeof *fx);
  shard_msg msg = {{0}};
  snprintf(fx->path, sizeof fx->path, "/tmp/shard_bar_operator_XXXXXX");
  const int fd = mkstemp(fx->path);
  CU_ASSERT_FATAL(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(case_text, f);
  fclose(f);
  CU_ASSERT_FATAL(shard_registry_create(&fx->reg, &msg) == SHARD_OK);
  CU_ASSERT_FATAL(shard_registry_load_dir(fx->reg, SHARD_PLUGIN_DIR, &msg) == SHARD_OK);
  fx->diag = shard_diag_create();
  int st = shard_case_load(fx->path, NULL, 0, fx->reg, &fx->c, fx->diag);
  if (st == SHARD_OK) st = shard_model_build(fx->c, NULL, &fx->m, fx->diag, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "model: %.300s", msg.text);
  if (st != SHARD_OK) return 0;
  const shard_loaded_plugin *lp = NULL;
  shard_params params;
  CU_ASSERT_FATAL(shard_case_plugin(fx->c, "fracture", NULL, &lp, &params, fx->diag) == SHARD_OK);
  fx->tsl = lp->desc->ops;
  const shard_scales scales = shard_model_named_scales(fx->m);
  CU_ASSERT_FATAL(fx->tsl->create(&params, &scales, &fx->tsl_self, &msg) == SHARD_OK);
  st = shard_model_set_tsl(fx->m, fx->tsl, fx->tsl_self, 0, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "set_tsl: %.300s", msg.text);
  return st == SHARD_OK;
}

static void fixture_close(fixture *fx) {
  if (fx->tsl && fx->tsl_self) fx->tsl->destroy(fx->tsl_self);
  shard_model_destroy(fx->m);
  shard_case_destroy(fx->c);
  shard_diag_destroy(fx->diag);
  shard_registry_destroy(fx->reg);
  remove(fx->path);
}

/* W of the model into its own arrays, compared with the host's w: 1 when
 * the same rows, columns and bits */
static int same_as_host(shard_model *m, const shard_csr *w, const int32_t *rows, int32_t n, double kcoef) {
  enum { CAP = 4096 };
  static int32_t rp[CAP + 1], col[CAP];
  static double val[CAP];
  shard_msg msg = {{0}};
  const int st = shard_model_contact_operator(m, rows, n, kcoef, rp, col, val, CAP, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "model operator: %.300s", msg.text);
  if (st != SHARD_OK) return 0;
  if (memcmp(rp, w->rowptr, (size_t)(n + 1) * sizeof *rp) != 0) return 0;
  const int32_t nnz = rp[n];
  return memcmp(col, w->colind, (size_t)nnz * sizeof *col) == 0 && memcmp(val, w->val, (size_t)nnz * sizeof *val) == 0;
}

static void test_bar_operator_matches_host(void) {
  fixture fx;
  if (!fixture_open(&fx)) {
    fixture_close(&fx);
    return;
  }
  shard_model *m = fx.m;
  shard_system *sys = &m->sys;
  CU_ASSERT_FATAL(m->niface == 30);
  CU_ASSERT_FATAL(m->ncon == 32); /* two walls and the interfaces, some at adjacent nodes */
  CU_ASSERT(m->dof_unique);
  /* a state with some interfaces opened (their cohesive springs differ) */
  uint32_t seed = 12345;
  for (int32_t d = 0; d < sys->ndof; ++d) sys->u[d] = 1e-3 * m->X[d] + 1e-10 * (double)(lcg(&seed) >> 20);
  shard_msg msg = {{0}};
  const shard_csr *k = NULL;
  CU_ASSERT_FATAL(sys->ops->stiffness(sys, sys->u, &k, &msg) == SHARD_OK);
  shard_contact *ck = NULL, *cd = NULL;
  CU_ASSERT_FATAL(shard_contact_create(&ck, sys->ndof_max, sys->ncon_max, 2, 24, &msg) == SHARD_OK);
  CU_ASSERT_FATAL(shard_contact_create(&cd, sys->ndof_max, sys->ncon_max, 2, 24, &msg) == SHARD_OK);
  shard_contact_set_reuse(cd, 0);
  int32_t rows[64];
  int bad = 0, nonzero_off = 0;
  for (int trial = 0; trial < 200; ++trial) {
    /* a random subset, in random order (the model maps rows to their local index) */
    int32_t n = 0;
    for (int32_t r = 0; r < m->ncon; ++r)
      if (lcg(&seed) >> 31 || trial % 10 == 0) rows[n++] = r;
    for (int32_t i = n - 1; i > 0; --i) {
      const int32_t j = (int32_t)((lcg(&seed) >> 8) % (uint32_t)(i + 1)), t = rows[i];
      rows[i] = rows[j], rows[j] = t;
    }
    if (trial % 3 == 0) /* space order, as the integrators ask */
      for (int32_t i = 1; i < n; ++i)
        for (int32_t j = i; j > 0 && rows[j - 1] > rows[j]; --j) {
          const int32_t t = rows[j];
          rows[j] = rows[j - 1], rows[j - 1] = t;
        }
    const double kcoef = trial % 4 == 3 ? 0.0 : 1e-24 * (1.0 + (double)(lcg(&seed) >> 16) / 65536.0);
    const shard_csr *wk = NULL, *wd = NULL;
    CU_ASSERT_FATAL(shard_contact_operator(ck, sys->h, sys->minv, k, rows, n, kcoef, &wk, &msg) == SHARD_OK);
    CU_ASSERT_FATAL(shard_contact_operator(cd, sys->h, sys->minv, k, rows, n, kcoef, &wd, &msg) == SHARD_OK);
    if (!same_as_host(m, wk, rows, n, kcoef) || !same_as_host(m, wd, rows, n, kcoef)) ++bad;
    for (int32_t i = 0; i < n; ++i)
      for (int32_t e = wk->rowptr[i]; e < wk->rowptr[i + 1]; ++e) nonzero_off += wk->colind[e] != i;
  }
  CU_CHECK_MSG(bad == 0, "%d of 200 active sets differ from the host's product", bad);
  CU_ASSERT(nonzero_off > 0); /* adjacent interfaces couple: the test sees off-diagonal entries */
  /* the model's local-index scratch is left clean: an empty set, then one row */
  const shard_csr *w1 = NULL;
  rows[0] = 5;
  CU_ASSERT_FATAL(shard_contact_operator(ck, sys->h, sys->minv, k, rows, 1, 1e-24, &w1, &msg) == SHARD_OK);
  CU_ASSERT(same_as_host(m, w1, rows, 1, 1e-24));
  for (int32_t d = 0; d < m->ndof_max; ++d) CU_ASSERT_EQUAL(m->w_dof_j[d], -1);
  shard_contact_destroy(ck);
  shard_contact_destroy(cd);
  fixture_close(&fx);
}

static void test_bar_operator_refusals(void) {
  fixture fx;
  if (!fixture_open(&fx)) {
    fixture_close(&fx);
    return;
  }
  shard_model *m = fx.m;
  shard_msg msg = {{0}};
  const shard_csr *k = NULL;
  CU_ASSERT_FATAL(m->sys.ops->stiffness(&m->sys, m->sys.u, &k, &msg) == SHARD_OK);
  int32_t rp[8], col[4];
  double val[4];
  int32_t rows[3] = {0, m->ncon, 1};
  int st = shard_model_contact_operator(m, rows, 3, 1e-24, rp, col, val, 4, &msg);
  CU_CHECK_MSG(st == SHARD_ERR_INTERNAL && strstr(msg.text, "row 32 of 32"), "rc %d: %.300s", st, msg.text);
  for (int32_t d = 0; d < m->ndof_max; ++d) CU_ASSERT_EQUAL(m->w_dof_j[d], -1);
  /* every row: more entries than the 4 of room, refused, nothing written past it */
  int32_t all[64];
  for (int32_t r = 0; r < m->ncon; ++r) all[r] = r;
  int32_t rp2[65];
  col[3] = -7, val[3] = -7.0;
  msg.text[0] = '\0';
  st = shard_model_contact_operator(m, all, 4, 1e-24, rp2, col, val, 3, &msg);
  CU_CHECK_MSG(st == SHARD_ERR_INTERNAL && strstr(msg.text, "more than 3 entries"), "rc %d: %.300s", st, msg.text);
  CU_ASSERT_EQUAL(col[3], -7);
  for (int32_t d = 0; d < m->ndof_max; ++d) CU_ASSERT_EQUAL(m->w_dof_j[d], -1);
  fixture_close(&fx);
}

/* In threads (sys.threads 2 and 3, grain 1: the chunked path on these few
 * rows, chunks packed and moved into place): the same status, message and
 * operator, bit for bit, as one thread, for rows in order and shuffled,
 * with and without K, with room enough, room a chunk overflows (the one
 * pass then decides) and too little room. */
static void test_bar_operator_threads(void) {
  fixture fx;
  if (!fixture_open(&fx)) {
    fixture_close(&fx);
    return;
  }
  shard_model *m = fx.m;
  shard_system *sys = &m->sys;
  uint32_t seed = 777;
  for (int32_t d = 0; d < sys->ndof; ++d) sys->u[d] = 1e-3 * m->X[d] + 1e-10 * (double)(lcg(&seed) >> 20);
  shard_msg msg = {{0}};
  const shard_csr *k = NULL;
  CU_ASSERT_FATAL(sys->ops->stiffness(sys, sys->u, &k, &msg) == SHARD_OK);
  enum { CAP = 4096 };
  static int32_t rp1[CAP + 1], c1[CAP], rpt[CAP + 1], ct[CAP];
  static double v1[CAP], vt[CAP];
  const int32_t n = m->ncon;
  int32_t rows[64];
  int compared = 0, refused = 0;
  for (int order = 0; order < 2; ++order) {
    for (int32_t r = 0; r < n; ++r) rows[r] = r;
    if (order)
      for (int32_t i = n - 1; i > 0; --i) {
        const int32_t j = (int32_t)((lcg(&seed) >> 8) % (uint32_t)(i + 1)), t = rows[i];
        rows[i] = rows[j], rows[j] = t;
      }
    const int64_t caps[] = {CAP, 2 * (int64_t)n + 1, (int64_t)n + 8, (int64_t)n};
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ++ci)
      for (int kk = 0; kk < 2; ++kk) {
        const double kcoef = kk ? 1e-24 : 0.0;
        shard_msg m1 = {{0}};
        sys->threads = 1, sys->thread_grain = 0;
        const int st1 = shard_model_contact_operator(m, rows, n, kcoef, rp1, c1, v1, caps[ci], &m1);
        refused += st1 != SHARD_OK;
        for (int32_t t = 2; t <= 3; ++t) {
          shard_msg mt = {{0}};
          sys->threads = t, sys->thread_grain = 1;
          const int stt = shard_model_contact_operator(m, rows, n, kcoef, rpt, ct, vt, caps[ci], &mt);
          CU_CHECK_MSG(stt == st1 && strcmp(mt.text, m1.text) == 0,
                       "cap %lld, %d threads: rc %d '%.200s', one thread rc %d '%.200s'", (long long)caps[ci], (int)t,
                       stt, mt.text, st1, m1.text);
          if (stt != SHARD_OK || st1 != SHARD_OK) continue;
          const int same = memcmp(rp1, rpt, (size_t)(n + 1) * sizeof *rp1) == 0 &&
                           memcmp(c1, ct, (size_t)rp1[n] * sizeof *c1) == 0 &&
                           memcmp(v1, vt, (size_t)rp1[n] * sizeof *v1) == 0;
          CU_CHECK_MSG(same, "cap %lld, %d threads, order %d: W' differs from one thread's", (long long)caps[ci],
                       (int)t, order);
          ++compared;
        }
      }
  }
  sys->threads = 1, sys->thread_grain = 0;
  CU_ASSERT(compared >= 8); /* room enough: compared in both orders, both kcoef, 2 and 3 threads */
  CU_ASSERT(refused > 0);   /* too little room: refused alike */
  for (int32_t d = 0; d < m->ndof_max; ++d) CU_ASSERT_EQUAL(m->w_dof_j[d], -1);
  fixture_close(&fx);
}

/* the host's side of the slot: a model's W written into the contact
 * storage and handed out; its refusal passed back untouched (the caller
 * then forms W itself); more rows than reserved refused before the model
 * is called */
static int fill_calls;
static int fill_diag(void *model, const int32_t *rows, int32_t n, double kcoef, int32_t *w_rowptr, int32_t *w_col,
                     double *w_val, int64_t cap, shard_msg *msg) {
  (void)rows, (void)kcoef;
  ++fill_calls;
  if (model) return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "not this time");
  if (n > cap) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "room");
  w_rowptr[0] = 0;
  for (int32_t i = 0; i < n; ++i) w_col[i] = i, w_val[i] = 2.0 + i, w_rowptr[i + 1] = i + 1;
  return SHARD_OK;
}

static void test_bar_operator_host_slot(void) {
  shard_msg msg = {{0}};
  shard_contact *c = NULL;
  CU_ASSERT_FATAL(shard_contact_create(&c, 8, 4, 2, 3, &msg) == SHARD_OK);
  const int32_t rows[5] = {0, 1, 2, 3, 3};
  const shard_csr *w = NULL;
  fill_calls = 0;
  CU_ASSERT_EQUAL(shard_contact_operator_model(c, fill_diag, NULL, rows, 3, 0.5, &w, &msg), SHARD_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_EQUAL(w->nrows, 3);
  CU_ASSERT_EQUAL(w->ncols, 3);
  CU_ASSERT_EQUAL(w->rowptr[3], 3);
  CU_ASSERT_EQUAL(w->val[2], 4.0);
  const shard_csr *w2 = NULL;
  int dummy = 0;
  CU_ASSERT_EQUAL(shard_contact_operator_model(c, fill_diag, &dummy, rows, 3, 0.5, &w2, &msg), SHARD_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NULL(w2);
  CU_ASSERT_STRING_EQUAL(msg.text, "not this time");
  CU_ASSERT_EQUAL(fill_calls, 2);
  CU_ASSERT_EQUAL(shard_contact_operator_model(c, fill_diag, NULL, rows, 5, 0.5, &w2, &msg), SHARD_ERR_INTERNAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg.text, "exceed the storage"));
  CU_ASSERT_EQUAL(fill_calls, 2);
  shard_contact_destroy(c);
}

static const cu_test_def tests[] = {
    {"test_bar_operator_host_slot", test_bar_operator_host_slot},
    {"test_bar_operator_matches_host", test_bar_operator_matches_host},
    {"test_bar_operator_refusals", test_bar_operator_refusals},
    {"test_bar_operator_threads", test_bar_operator_threads},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "bar_operator", tests); }
