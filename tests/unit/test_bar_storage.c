/* tests: the bar model's storage grows with its interfaces (model.c,
 * model_reserve): built for the interfaces present, grown by half (and 64) at
 * least inside insert(), never beyond every facet, the state kept through
 * each growth; its checkpoint sections keep the sizes of a model holding
 * every interface, and a fresh model reads one back (growing first). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case/case.h"
#include "cu_runner.h"
#include "core/diag.h"
#include "bar_build.h"
#include "loader/registry.h"

#define NEL 1000

static const char *const CASE_TEXT =
    "model: {type: bar, length: 1e-3, young: 370e9, density: 3900, elements: 1000, perturbation: 0.2,\n"
    "        origin: -5e-4, initial: {strain_rate: 1e5}}\n"
    "fracture: {plugin: camacho_ortiz, g_c: 50,\n"
    "           strength: {distribution: uniform, nominal: 262e6, min: 250e6, max: 270e6, seed: 3}}\n"
    "integrator: {plugin: nsn}\n"
    "contact: {impact: {plugin: newton_impact, restitution: 1}}\n"
    "lcp: {plugin: lemke}\n"
    "time: {end: 1e-8, dt: 1e-10}\n";

/* a uniform stretch, and `n` more facets (every 7th not yet split, from
 * `from`) made weaker than it: the next insert splits exactly those */
static void weaken(shard_model *m, int n, int *from) {
  for (int32_t j = 0; j < m->ndof; ++j) m->sys.u[j] = 1e-6 * m->X[j];
  m->sys.ndof = m->ndof;
  for (int k = 0; k < n; ++k, *from += 7) {
    while (m->facet_iface[*from % m->nfacet] >= 0) ++*from;
    m->facet_strength[*from % m->nfacet] = 0.0;
  }
}

/* every interface joins its node and a twin holding the node's state */
static void check_consistent(const shard_model *m) {
  int bad = 0;
  for (int32_t i = 0; i < m->niface; ++i) {
    const int32_t j = m->if_node[i], t = m->if_twin[i];
    bad += t != NEL + 1 + i || m->facet_iface[j - 1] != i || m->X[t] != m->X[j] || m->el_a[j] != t ||
           !(m->mass[t] > 0.0) || m->minv[t] != 1.0 / m->mass[t] || m->h_col[m->h_rowptr[m->nwall + i]] != j ||
           m->h_col[m->h_rowptr[m->nwall + i] + 1] != t || !(m->if_deltac[i] > 0.0);
  }
  CU_CHECK_MSG(bad == 0, "%d of %d interfaces inconsistent", bad, (int)m->niface);
  CU_ASSERT_PTR_EQUAL(m->sys.mass, m->mass);
  CU_ASSERT_PTR_EQUAL(m->sys.minv, m->minv);
  CU_ASSERT_PTR_EQUAL(m->sys.impulse, m->impulse);
  CU_ASSERT_EQUAL(m->sys.ndof, m->ndof);
  CU_ASSERT_EQUAL(m->sys.ncon, m->ncon);
}

static void test_bar_storage_starts_small_and_grows(void) {
  shard_model *m = shard_test_bar_from_text(CASE_TEXT);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(m->nfacet, NEL - 1);
  CU_ASSERT_EQUAL(m->ndof_max, NEL + 1 + NEL - 1); /* the limits stay those of every facet broken */
  CU_ASSERT_EQUAL(m->if_cap, 0);                   /* the storage, those of the interfaces present */
  CU_ASSERT_EQUAL(m->ndof_cap, NEL + 1);
  CU_ASSERT_EQUAL(m->ncon_cap, 0);
  /* rounds of 100 insertions: capacity 0 -> 100 -> 214 -> 385 -> 641 (up by half and 64, or to what is needed) */
  const int32_t caps[6] = {100, 214, 385, 641, 641, 999};
  int from = 1;
  for (int r = 0; r < 6; ++r) {
    const int n = r < 5 ? 100 : NEL - 1 - 500; /* the last round breaks every facet left */
    weaken(m, n, &from);
    const double *u_before = m->sys.u;
    int32_t first = -1;
    const int32_t got = shard_model_insert(m, &first);
    CU_CHECK_MSG(got == n, "round %d: %d insertions, %d expected", r, (int)got, n);
    CU_ASSERT_EQUAL(first, NEL + 1 + 100 * r);
    CU_CHECK_MSG(m->if_cap == caps[r], "round %d: capacity %d, expected %d", r, (int)m->if_cap, (int)caps[r]);
    CU_ASSERT_EQUAL(m->ndof_cap, NEL + 1 + m->if_cap);
    CU_ASSERT_EQUAL(m->ncon_cap, m->if_cap);
    CU_ASSERT(m->if_cap >= m->niface && m->if_cap <= m->nfacet);
    int same = 1; /* the stretch survives the moves */
    for (int32_t j = 0; j <= NEL; ++j) same &= m->sys.u[j] == 1e-6 * m->X[j];
    CU_CHECK_MSG(same, "round %d: u changed (storage %s)", r, u_before == m->sys.u ? "kept" : "moved");
    check_consistent(m);
  }
  CU_ASSERT_EQUAL(m->niface, NEL - 1);
  shard_model_destroy(m);
}

/* ---- checkpoint through an in-memory section list ---- */

typedef struct section {
  char name[32];
  uint32_t type;
  uint64_t count;
  unsigned char *data;
} section;

typedef struct store {
  section s[64];
  int n, next;
} store;

static size_t type_size(uint32_t t) { return t == SHARD_MODEL_CK_I32 ? 4 : t == SHARD_MODEL_CK_BYTES ? 1 : 8; }

static void st_put(void *ctx, const char *name, uint32_t type, const void *data, uint64_t count) {
  store *st = ctx;
  section *s = &st->s[st->n++];
  snprintf(s->name, sizeof s->name, "%s", name);
  s->type = type, s->count = count;
  s->data = malloc(count * type_size(type) + 1);
  memcpy(s->data, data, count * type_size(type));
}

static int st_get(void *ctx, const char *name, uint32_t type, void *dst, uint64_t count, shard_msg *msg) {
  store *st = ctx;
  const section *s = &st->s[st->next++];
  if (strcmp(s->name, name) || s->type != type || s->count != count)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "section %s: %s %llu", name, s->name, (unsigned long long)s->count);
  memcpy(dst, s->data, count * type_size(type));
  return SHARD_OK;
}

static const section *find(const store *st, const char *name) {
  for (int i = 0; i < st->n; ++i)
    if (strcmp(st->s[i].name, name) == 0) return &st->s[i];
  return NULL;
}

static void test_bar_storage_checkpoint_round_trip(void) {
  shard_model *a = shard_test_bar_from_text(CASE_TEXT), *b = shard_test_bar_from_text(CASE_TEXT);
  CU_ASSERT_FATAL(a && b);
  int from = 3;
  weaken(a, 150, &from);
  int32_t first;
  CU_ASSERT_EQUAL_FATAL(shard_model_insert(a, &first), 150);
  CU_ASSERT_EQUAL(a->if_cap, 150);
  store st = {0};
  shard_model_checkpoint_write(a, &(shard_model_ck_io){&st, st_put, st_get});
  CU_ASSERT_EQUAL(st.n, (int)shard_model_checkpoint_sections(a));
  /* the sections have the sizes of every interface: the same whatever the capacity */
  const section *u = find(&st, "u"), *sig = find(&st, "if_sigma"), *hc = find(&st, "h_col");
  CU_ASSERT_FATAL(u && sig && hc);
  CU_ASSERT_EQUAL(u->count, (uint64_t)a->ndof_max + 1);
  CU_ASSERT_EQUAL(sig->count, (uint64_t)a->nfacet + 1);
  CU_ASSERT_EQUAL(hc->count, 2 * (uint64_t)a->ncon_max + 1);
  int zero = 1; /* past the interfaces: zero */
  for (uint64_t i = (uint64_t)a->ndof; i < u->count; ++i) zero &= ((const double *)u->data)[i] == 0.0;
  CU_ASSERT(zero);
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(b->if_cap, 0);
  const int rc = shard_model_checkpoint_read(b, &(shard_model_ck_io){&st, st_put, st_get}, &msg);
  CU_CHECK_MSG(rc == SHARD_OK, "read back: %.300s", msg.text);
  CU_ASSERT_EQUAL(b->niface, 150);
  CU_ASSERT(b->if_cap >= 150 && b->if_cap < b->nfacet);
  CU_ASSERT_EQUAL(b->ndof, a->ndof);
  CU_ASSERT(!memcmp(a->sys.u, b->sys.u, (size_t)a->ndof * sizeof(double)));
  CU_ASSERT(!memcmp(a->mass, b->mass, (size_t)a->ndof * sizeof(double)));
  CU_ASSERT(!memcmp(a->if_sigma, b->if_sigma, 150 * sizeof(double)));
  CU_ASSERT(!memcmp(a->h_col, b->h_col, 2 * (size_t)a->ncon * sizeof(int32_t)));
  check_consistent(b);
  /* a value past the state's interfaces is refused, not taken */
  shard_model *c = shard_test_bar_from_text(CASE_TEXT);
  CU_ASSERT_FATAL(c != NULL);
  ((double *)find(&st, "if_sigma")->data)[a->nfacet - 1] = 1.0;
  st.next = 0;
  msg.text[0] = '\0';
  CU_ASSERT_EQUAL(shard_model_checkpoint_read(c, &(shard_model_ck_io){&st, st_put, st_get}, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "if_sigma[998] lies past the 150 interfaces") != NULL, "message: %.300s", msg.text);
  for (int i = 0; i < st.n; ++i) free(st.s[i].data);
  shard_model_destroy(a), shard_model_destroy(b), shard_model_destroy(c);
}

static const cu_test_def tests[] = {
    {"test_bar_storage_starts_small_and_grows", test_bar_storage_starts_small_and_grows},
    {"test_bar_storage_checkpoint_round_trip", test_bar_storage_checkpoint_round_trip},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "bar_storage", tests); }
