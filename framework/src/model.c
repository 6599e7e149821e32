/* host: particle and 1D P1 bar models, and the shard_system services. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* ---- system services ---------------------------------------------------- */

static shard_model *model_of(shard_system *sys) { return (shard_model *)sys; }

static void gaps_at(const shard_model *m, const double *u, double *g) {
  for (int32_t i = 0; i < m->ncon; ++i) {
    double s = m->g0[i];
    for (int32_t e = m->h_rowptr[i]; e < m->h_rowptr[i + 1]; ++e) s += m->h_val[e] * u[m->h_col[e]];
    g[i] = s;
  }
}

static void sys_gaps(shard_system *sys, const double *u, double *out_g) { gaps_at(model_of(sys), u, out_g); }

/* penalty force / stiffness / energy of every constraint at u */
static void penalty_eval(shard_model *m, const double *u) {
  gaps_at(m, u, m->gap_scratch);
  m->force_law->force(m->force_law_self, m->ncon, m->gap_scratch, m->pen_f, m->pen_k, m->pen_e);
}

static int sys_force(shard_system *sys, double t, const double *u, double *f, shard_msg *msg) {
  shard_model *m = model_of(sys);
  (void)t;
  memcpy(f, m->fext, (size_t)m->ndof * sizeof *f);
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t a = m->el_a[e], b = m->el_b[e];
    const double s = m->el_k[e] * (u[b] - u[a]);
    f[a] += s;
    f[b] -= s;
  }
  if (m->force_law) {
    penalty_eval(m, u);
    for (int32_t i = 0; i < m->ncon; ++i) {
      const double p = m->pen_f[i];
      if (p == 0.0) continue;
      for (int32_t e = m->h_rowptr[i]; e < m->h_rowptr[i + 1]; ++e) f[m->h_col[e]] += m->h_val[e] * p;
    }
  }
  return SHARD_OK;
}

static int sys_stiffness(shard_system *sys, const double *u, const shard_csr **out_k, shard_msg *msg) {
  shard_model *m = model_of(sys);
  memset(m->k_val, 0, (size_t)m->k_rowptr[m->ndof] * sizeof *m->k_val);
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t *p = m->el_pos + 4 * e;
    const double k = m->el_k[e];
    m->k_val[p[0]] += k, m->k_val[p[1]] -= k, m->k_val[p[2]] -= k, m->k_val[p[3]] += k;
  }
  if (m->force_law) {
    penalty_eval(m, u);
    for (int32_t i = 0; i < m->ncon; ++i) {
      const double k = m->pen_k[i];
      if (k == 0.0) continue;
      const int32_t r = m->h_rowptr[i], nr = m->h_rowptr[i + 1] - r;
      const int32_t *p = m->con_pos + 4 * i;
      const double h0 = m->h_val[r], h1 = nr > 1 ? m->h_val[r + 1] : 0.0;
      m->k_val[p[0]] += k * h0 * h0;
      if (nr > 1) m->k_val[p[1]] += k * h0 * h1, m->k_val[p[2]] += k * h1 * h0, m->k_val[p[3]] += k * h1 * h1;
    }
  }
  m->k = (shard_csr){m->ndof, m->ndof, m->k_rowptr, m->k_col, m->k_val};
  *out_k = &m->k;
  return SHARD_OK;
}

static int sys_contact_operator(shard_system *sys, const int32_t *rows, int32_t n, double kcoef,
                                const shard_csr **out_w, shard_msg *msg) {
  shard_model *m = model_of(sys);
  return shard_contact_operator(m->contact, &m->h, m->minv, &m->k, rows, n, kcoef, out_w, msg);
}

static int sys_lcp_solve(shard_system *sys, const shard_csr *w, const double *q, uint32_t flags, double *z,
                         shard_msg *msg) {
  shard_model *m = model_of(sys);
  return shard_contact_lcp_solve(m->contact, w, q, flags, z, &m->stats, msg);
}

static void sys_prescribe(shard_system *sys, double t, double *v, double *a) {
  (void)sys, (void)t, (void)v, (void)a; /* no prescribed DOFs in these models */
}

static const shard_system_ops model_ops = {
    .force = sys_force,
    .stiffness = sys_stiffness,
    .gaps = sys_gaps,
    .contact_operator = sys_contact_operator,
    .lcp_solve = sys_lcp_solve,
    .prescribe = sys_prescribe,
};

/* ---- construction -------------------------------------------------------- */

typedef struct pair {
  int32_t r, c;
} pair;

static int pair_cmp(const void *x, const void *y) {
  const pair *a = x, *b = y;
  if (a->r != b->r) return a->r < b->r ? -1 : 1;
  return (a->c > b->c) - (a->c < b->c);
}

static int32_t k_pos(const shard_model *m, int32_t r, int32_t c) {
  int32_t lo = m->k_rowptr[r], hi = m->k_rowptr[r + 1] - 1;
  while (lo <= hi) {
    int32_t mid = (lo + hi) / 2;
    if (m->k_col[mid] == c) return mid;
    if (m->k_col[mid] < c) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* The stiffness pattern: elements and constraint couplings, sorted, unique. */
static int build_pattern(shard_model *m, shard_msg *msg) {
  const int32_t nd = m->ndof_max;
  size_t np = 4 * (size_t)m->nel + 4 * (size_t)m->ncon_max + (size_t)nd;
  pair *p = malloc(np * sizeof *p);
  if (!p) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  size_t k = 0;
  for (int32_t d = 0; d < nd; ++d) p[k++] = (pair){d, d};
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t a = m->el_a[e], b = m->el_b[e];
    p[k++] = (pair){a, b}, p[k++] = (pair){b, a};
  }
  for (int32_t i = 0; i < m->ncon_max; ++i) {
    const int32_t r = m->h_rowptr[i];
    if (m->h_rowptr[i + 1] - r > 1) {
      const int32_t a = m->h_col[r], b = m->h_col[r + 1];
      p[k++] = (pair){a, b}, p[k++] = (pair){b, a};
    }
  }
  qsort(p, k, sizeof *p, pair_cmp);
  size_t u = 0;
  for (size_t i = 0; i < k; ++i)
    if (u == 0 || p[i].r != p[u - 1].r || p[i].c != p[u - 1].c) p[u++] = p[i];
  m->k_rowptr = calloc((size_t)nd + 1, sizeof *m->k_rowptr);
  m->k_col = malloc(u * sizeof *m->k_col);
  m->k_val = calloc(u, sizeof *m->k_val);
  m->el_pos = malloc((4 * (size_t)m->nel + 1) * sizeof *m->el_pos);
  m->con_pos = malloc((4 * (size_t)m->ncon_max + 1) * sizeof *m->con_pos);
  if (!m->k_rowptr || !m->k_col || !m->k_val || !m->el_pos || !m->con_pos) {
    free(p);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < u; ++i) m->k_rowptr[p[i].r + 1]++, m->k_col[i] = p[i].c;
  for (int32_t d = 0; d < nd; ++d) m->k_rowptr[d + 1] += m->k_rowptr[d];
  free(p);
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t a = m->el_a[e], b = m->el_b[e];
    int32_t *q = m->el_pos + 4 * e;
    q[0] = k_pos(m, a, a), q[1] = k_pos(m, a, b), q[2] = k_pos(m, b, a), q[3] = k_pos(m, b, b);
  }
  for (int32_t i = 0; i < m->ncon_max; ++i) {
    const int32_t r = m->h_rowptr[i], nr = m->h_rowptr[i + 1] - r;
    const int32_t a = m->h_col[r], b = nr > 1 ? m->h_col[r + 1] : a;
    int32_t *q = m->con_pos + 4 * i;
    q[0] = k_pos(m, a, a), q[1] = k_pos(m, a, b), q[2] = k_pos(m, b, a), q[3] = k_pos(m, b, b);
  }
  m->k = (shard_csr){m->ndof, m->ndof, m->k_rowptr, m->k_col, m->k_val};
  return SHARD_OK;
}

static int alloc_dofs(shard_model *m, int32_t ndof_max, int32_t ncon_max, int32_t nel, shard_msg *msg) {
  m->ndof_max = ndof_max, m->ncon_max = ncon_max, m->nel = nel;
  const size_t nd = (size_t)ndof_max, nc = (size_t)ncon_max + 1, ne = (size_t)nel + 1;
  m->X = calloc(nd, sizeof(double));
  m->mass = calloc(nd, sizeof(double));
  m->minv = calloc(nd, sizeof(double));
  m->fext = calloc(nd, sizeof(double));
  m->sys.u = calloc(nd, sizeof(double));
  m->sys.v = calloc(nd, sizeof(double));
  m->sys.a = calloc(nd, sizeof(double));
  m->el_a = calloc(ne, sizeof(int32_t));
  m->el_b = calloc(ne, sizeof(int32_t));
  m->el_k = calloc(ne, sizeof(double));
  m->el_h = calloc(ne, sizeof(double));
  m->h_rowptr = calloc(nc, sizeof(int32_t));
  m->h_col = calloc(2 * nc, sizeof(int32_t));
  m->h_val = calloc(2 * nc, sizeof(double));
  m->g0 = calloc(nc, sizeof(double));
  m->pen_f = calloc(nc, sizeof(double));
  m->pen_k = calloc(nc, sizeof(double));
  m->pen_e = calloc(nc, sizeof(double));
  m->gap_scratch = calloc(nc, sizeof(double));
  m->restitution = calloc(nc, sizeof(double));
  m->impulse = calloc(nc, sizeof(double));
  if (!m->X || !m->mass || !m->minv || !m->fext || !m->sys.u || !m->sys.v || !m->sys.a || !m->el_a || !m->el_b ||
      !m->el_k || !m->el_h || !m->h_rowptr || !m->h_col || !m->h_val || !m->g0 || !m->pen_f || !m->pen_k ||
      !m->pen_e || !m->gap_scratch || !m->restitution || !m->impulse)
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %d DOFs", (int)ndof_max);
  return SHARD_OK;
}

/* append constraint row with one or two entries */
static void add_constraint(shard_model *m, int32_t d0, double h0, int32_t d1, double h1, double g0) {
  const int32_t i = m->ncon++, r = m->h_rowptr[i];
  m->h_col[r] = d0, m->h_val[r] = h0;
  int32_t n = 1;
  if (d1 >= 0) m->h_col[r + 1] = d1, m->h_val[r + 1] = h1, n = 2;
  m->h_rowptr[i + 1] = r + n;
  m->g0[i] = g0;
}

#define CASE_REAL(path, var)                                                      \
  do {                                                                            \
    if (shard_case_real(c, path, scope, &(var), diag) != SHARD_OK) st = SHARD_ERR_INPUT; \
  } while (0)

static int build_particle(shard_model *m, const shard_case *c, const shard_scope *scope, shard_diag *diag,
                          shard_msg *msg) {
  double mass = 1, u0 = 0, v0 = 0, grav = 0, floor_x = 0;
  int st = SHARD_OK;
  CASE_REAL("model.mass", mass);
  CASE_REAL("model.position", u0);
  CASE_REAL("model.velocity", v0);
  CASE_REAL("model.gravity", grav);
  CASE_REAL("model.floor", floor_x);
  if (st != SHARD_OK) return shard_msg_set(msg, st, "invalid particle model");
  if ((st = alloc_dofs(m, 1, 1, 0, msg)) != SHARD_OK) return st;
  m->ndof = 1;
  m->mass[0] = mass, m->minv[0] = 1.0 / mass, m->fext[0] = -mass * grav;
  m->sys.u[0] = u0, m->sys.v[0] = v0;
  add_constraint(m, 0, 1.0, -1, 0.0, -floor_x);
  m->floor = 0;
  m->scales.mass_min = mass;
  if (u0 < floor_x) return shard_msg_set(msg, SHARD_ERR_INPUT, "model.position %g is below the floor %g", u0, floor_x);
  return SHARD_OK;
}

static int build_bar(shard_model *m, const shard_case *c, const shard_scope *scope, shard_diag *diag,
                     shard_msg *msg) {
  double L = 0, A = 1, E = 0, rho = 0, X0 = 0, pert = 0, v0 = 0, rate = 0, gl = -1, gr = -1;
  long long ne = 0, seed = 1;
  int st = SHARD_OK;
  CASE_REAL("model.length", L);
  CASE_REAL("model.area", A);
  CASE_REAL("model.young", E);
  CASE_REAL("model.density", rho);
  CASE_REAL("model.origin", X0);
  CASE_REAL("model.perturbation", pert);
  CASE_REAL("model.initial.velocity", v0);
  CASE_REAL("model.initial.strain_rate", rate);
  if (shard_case_int(c, "model.elements", scope, &ne, diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (shard_case_int(c, "model.seed", scope, &seed, diag) != SHARD_OK) st = SHARD_ERR_INPUT;
  if (shard_case_has(c, "model.walls.left.gap")) CASE_REAL("model.walls.left.gap", gl);
  if (shard_case_has(c, "model.walls.right.gap")) CASE_REAL("model.walls.right.gap", gr);
  if (st != SHARD_OK) return shard_msg_set(msg, st, "invalid bar model");
  const int32_t nn = (int32_t)ne + 1;
  const int32_t ncon = (gl >= 0) + (gr >= 0);
  if ((st = alloc_dofs(m, nn, ncon, (int32_t)ne, msg)) != SHARD_OK) return st;
  m->ndof = nn;
  const double h = L / (double)ne;
  shard_rng rng;
  shard_rng_seed(&rng, (uint64_t)seed);
  for (int32_t j = 0; j < nn; ++j) {
    double x = X0 + h * j;
    if (j > 0 && j < nn - 1 && pert > 0) x += shard_rng_range(&rng, -pert * h, pert * h);
    m->X[j] = x;
  }
  m->X[nn - 1] = X0 + L;
  double hmin = INFINITY;
  for (int32_t e = 0; e < (int32_t)ne; ++e) {
    const double he = m->X[e + 1] - m->X[e];
    m->el_a[e] = e, m->el_b[e] = e + 1, m->el_h[e] = he, m->el_k[e] = E * A / he;
    m->mass[e] += 0.5 * rho * A * he, m->mass[e + 1] += 0.5 * rho * A * he;
    if (he < hmin) hmin = he;
  }
  const double xmid = X0 + 0.5 * L;
  for (int32_t j = 0; j < nn; ++j) {
    m->minv[j] = 1.0 / m->mass[j];
    m->sys.v[j] = v0 + rate * (m->X[j] - xmid);
  }
  m->wall_left = m->wall_right = -1;
  if (gl >= 0) m->wall_left = m->ncon, add_constraint(m, 0, 1.0, -1, 0.0, gl);
  if (gr >= 0) m->wall_right = m->ncon, add_constraint(m, nn - 1, -1.0, -1, 0.0, gr);
  m->scales = (shard_model_scales){.struct_size = sizeof(shard_model_scales), .young = E, .density = rho, .area = A,
                                   .h_mean = h, .h_min = hmin, .length = L};
  double mmin = INFINITY;
  for (int32_t j = 0; j < nn; ++j) mmin = fmin(mmin, m->mass[j]);
  m->scales.mass_min = mmin;
  return SHARD_OK;
}

int shard_model_build(const shard_case *c, const shard_scope *scope, shard_model **out, shard_diag *diag,
                      shard_msg *msg) {
  *out = NULL;
  shard_model *m = calloc(1, sizeof *m);
  if (!m) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  m->wall_left = m->wall_right = m->floor = -1;
  m->scales.struct_size = sizeof m->scales;
  const char *type = shard_case_string(c, "model.type");
  int st;
  if (type && strcmp(type, "particle") == 0) m->kind = SHARD_MODEL_PARTICLE, st = build_particle(m, c, scope, diag, msg);
  else if (type && strcmp(type, "bar") == 0) m->kind = SHARD_MODEL_BAR, st = build_bar(m, c, scope, diag, msg);
  else st = shard_msg_set(msg, SHARD_ERR_INPUT, "unknown model type '%s'", type ? type : "(none)");
  m->h = (shard_csr){m->ncon, m->ndof_max, m->h_rowptr, m->h_col, m->h_val};
  if (st == SHARD_OK) st = build_pattern(m, msg);
  if (st == SHARD_OK) st = shard_contact_create(&m->contact, &m->h, &m->k, m->ncon_max, msg);
  if (st != SHARD_OK) {
    shard_model_destroy(m);
    return st;
  }
  m->h.ncols = m->ndof;
  shard_system *s = &m->sys;
  s->struct_size = sizeof *s;
  s->ndof = m->ndof, s->ndof_max = m->ndof_max, s->ncon = m->ncon, s->ncon_max = m->ncon_max;
  s->mass = m->mass, s->minv = m->minv, s->h = &m->h, s->restitution = m->restitution, s->impulse = m->impulse;
  s->stats = &m->stats, s->host = m, s->ops = &model_ops;
  *out = m;
  return SHARD_OK;
}

void shard_model_destroy(shard_model *m) {
  if (!m) return;
  shard_contact_destroy(m->contact);
  free(m->X), free(m->mass), free(m->minv), free(m->fext), free(m->sys.u), free(m->sys.v), free(m->sys.a);
  free(m->sys.aux), free(m->el_a), free(m->el_b), free(m->el_k), free(m->el_h), free(m->h_rowptr), free(m->h_col);
  free(m->h_val), free(m->g0), free(m->pen_f), free(m->pen_k), free(m->pen_e), free(m->gap_scratch);
  free(m->restitution), free(m->impulse), free(m->k_rowptr), free(m->k_col), free(m->k_val), free(m->el_pos);
  free(m->con_pos);
  free(m);
}

void shard_model_set_force_law(shard_model *m, const shard_contact_law_ops *ops, void *self) {
  m->force_law = ops;
  m->force_law_self = self;
}

/* ---- stable step (SPEC §3.4) --------------------------------------------- */

double shard_model_dt_default(const shard_model *m, double max_spring) {
  /* Gershgorin bound of lambda_max(M^-1/2 K_max M^-1/2), K_max = bulk + every
   * constraint spring at its largest stiffness. */
  double *row = calloc((size_t)m->ndof + 1, sizeof *row);
  if (!row) return NAN;
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t a = m->el_a[e], b = m->el_b[e];
    const double k = m->el_k[e], cross = k / sqrt(m->mass[a] * m->mass[b]);
    row[a] += k / m->mass[a] + cross;
    row[b] += k / m->mass[b] + cross;
  }
  if (max_spring > 0)
    for (int32_t i = 0; i < m->ncon; ++i)
      for (int32_t e = m->h_rowptr[i]; e < m->h_rowptr[i + 1]; ++e)
        for (int32_t f = m->h_rowptr[i]; f < m->h_rowptr[i + 1]; ++f) {
          const int32_t a = m->h_col[e], b = m->h_col[f];
          row[a] += fabs(m->h_val[e] * m->h_val[f]) * max_spring / sqrt(m->mass[a] * m->mass[b]);
        }
  double lmax = 0;
  for (int32_t d = 0; d < m->ndof; ++d) lmax = fmax(lmax, row[d]);
  free(row);
  return lmax > 0 ? 2.0 / sqrt(lmax) : INFINITY;
}

double shard_model_dt_bulk(const shard_model *m) {
  if (m->kind != SHARD_MODEL_BAR) return INFINITY;
  const double c = sqrt(m->scales.young / m->scales.density);
  return m->scales.h_min / c;
}

double shard_model_dt_paper(const shard_model *m, double max_spring) {
  const double dtb = shard_model_dt_bulk(m);
  if (max_spring <= 0) return dtb;
  const double mmin = m->kind == SHARD_MODEL_BAR ? m->scales.density * m->scales.area * m->scales.h_min / 2
                                                 : m->scales.mass_min;
  const double dta = 2.0 * sqrt(mmin / max_spring);
  return 1.0 / sqrt(1.0 / (dtb * dtb) + 1.0 / (dta * dta));
}

/* ---- energies and measures ------------------------------------------------ */

double shard_model_kinetic(const shard_model *m, const double *v) {
  double s = 0;
  for (int32_t d = 0; d < m->ndof; ++d) s += m->mass[d] * v[d] * v[d];
  return 0.5 * s;
}

double shard_model_elastic(const shard_model *m, const double *u) {
  double s = 0;
  for (int32_t e = 0; e < m->nel; ++e) {
    const double du = u[m->el_b[e]] - u[m->el_a[e]];
    s += m->el_k[e] * du * du;
  }
  return 0.5 * s;
}

double shard_model_penalty_energy(shard_model *m, const double *u) {
  if (!m->force_law) return 0.0;
  penalty_eval(m, u);
  double s = 0;
  for (int32_t i = 0; i < m->ncon; ++i) s += m->pen_e[i];
  return s;
}

double shard_model_contact_force(shard_model *m, int32_t i, double dt, const double *u) {
  double f = m->impulse[i] / dt;
  if (m->force_law) {
    penalty_eval(m, u);
    f += m->pen_f[i];
  }
  return f;
}

double shard_model_momentum(const shard_model *m, const double *v) {
  double s = 0;
  for (int32_t d = 0; d < m->ndof; ++d) s += m->mass[d] * v[d];
  return s;
}

double shard_model_total_mass(const shard_model *m) {
  double s = 0;
  for (int32_t d = 0; d < m->ndof; ++d) s += m->mass[d];
  return s;
}
