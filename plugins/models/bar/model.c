/* host: particle and 1D P1 bar models with extrinsic cohesive fracture, and
 * the shard_system services (docs/theory.md §9, §8, §10). */
#include "model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader/plugin_calls.h"
#include "core/rng.h"
#include "shard/parallel.h"
#include "core/tridiag.h"
#include "strength.h"

/* ---- gaps, penalty and cohesive forces ------------------------------------- */

static shard_model *model_of(shard_system *sys) { return (shard_model *)sys; }

static void gaps_at(const shard_model *m, const double *u, double *g) {
  const shard_par T = shard_system_par(&m->sys);
  (void)T; /* unused without OpenMP */
  SHARD_PAR_FOR(T, m->ncon, i,
    double s = m->g0[i];
    for (int32_t e = m->h_rowptr[i]; e < m->h_rowptr[i + 1]; ++e) s += m->h_val[e] * u[m->h_col[e]];
    g[i] = s;
  );
}

static void sys_gaps(shard_system *sys, const double *u, double *out_g) { gaps_at(model_of(sys), u, out_g); }

/* penalty force / stiffness / energy of every constraint at u */
static void penalty_eval(shard_model *m, const double *u) {
  gaps_at(m, u, m->gap_scratch);
  shard_contact_law_force(m->force_law, m->force_law_self, m->ncon, m->gap_scratch, m->pen_f, m->pen_k, m->pen_e);
  m->pen_current = 1;
}

/* cohesive tractions (per unit area) of the active interfaces at u; commit
 * updates the history. Penalty runs: no cohesive traction for delta < 0. */
static void cohesive_eval(shard_model *m, const double *u, int commit) {
  const int32_t n = m->niface;
  const shard_par T = shard_system_par(&m->sys);
  (void)T;
  if (!n || !m->tsl) return;
  SHARD_PAR_FOR(T, n, i, m->if_delta[i] = u[m->if_twin[i]] - u[m->if_node[i]];);
  /* A trial (commit = 0) reads the history in place: the TSL contract
   * (shard/tsl.h, checked for every TSL by tests/unit/test_tsl_contract.c)
   * forbids it to write delta_max, so no copy of the history per call. */
  /* In threads: one sub-batch of consecutive interfaces each (the TSL
   * contract: an interface's results do not depend on the batch it is in,
   * and evaluate keeps no state in its const self) */
  const shard_par chunks = {T.threads, 1};
  const int32_t nb = T.threads > 1 && n >= T.grain ? T.threads : 1;
  (void)chunks;
  SHARD_PAR_FOR(chunks, nb, k,
    const int32_t i0 = (int32_t)((int64_t)n * k / nb), i1 = (int32_t)((int64_t)n * (k + 1) / nb);
    shard_tsl_batch b = {.n = i1 - i0, .sigma_c = m->if_sigma + i0, .delta_c = m->if_deltac + i0,
                         .delta = m->if_delta + i0, .delta_max = m->if_dmax + i0, .traction = m->if_t + i0,
                         .stiffness = m->if_k + i0, .reversible = m->if_rev + i0};
    if (i1 > i0) shard_tsl_evaluate(m->tsl, m->tsl_self, &b, commit);
  );
  if (m->tsl_zero_in_compression) {
    SHARD_PAR_FOR(T, n, i, if (m->if_delta[i] < 0) m->if_t[i] = 0, m->if_k[i] = 0, m->if_rev[i] = 0;);
  }
  m->coh_trial = !commit;
}

/* cohesive_eval(m, u, 0), skipped when the last evaluation was such a trial
 * and u gives bit for bit the same openings: an integrator asks for the force
 * and then the stiffness at the same predicted position (one TSL pass a step
 * instead of two). Any commit, insertion or restart clears coh_trial. */
static void cohesive_trial(shard_model *m, const double *u) {
  if (m->coh_trial) {
    int32_t i = 0;
    while (i < m->niface && u[m->if_twin[i]] - u[m->if_node[i]] == m->if_delta[i]) ++i;
    if (i == m->niface) return;
  }
  cohesive_eval(m, u, 0);
}

/* f = f_ext + the element forces, per DOF from its elements in element order:
 * the sums of the scatter loop, bit for bit, in any number of threads */
static void element_force_gather(const shard_model *m, const double *u, double *f, shard_par T) {
  const int32_t nd = m->ndof;
  const int32_t *restrict inc = m->el_inc, *restrict ea = m->el_a, *restrict eb = m->el_b;
  const double *restrict ek = m->el_k, *restrict fext = m->fext;
  SHARD_PAR_FOR(T, nd, d,
    double x = fext[d];
    for (int32_t k = 0; k < 2; ++k) {
      const int32_t c = inc[2 * d + k];
      if (c < 0) break;
      const int32_t e = c >> 1;
      const double s = ek[e] * (u[eb[e]] - u[ea[e]]);
      x = c & 1 ? x - s : x + s; /* el_b: f[b] -= s; el_a: f[a] += s */
    }
    f[d] = x;
  );
}

static int sys_force(shard_system *sys, double t, const double *u, double *f, shard_msg *msg) {
  shard_model *m = model_of(sys);
  (void)t, (void)msg;
  const shard_par T = shard_system_par(sys);
  /* the scatter loops below over interfaces and rows write disjoint DOFs when
   * no DOF is in two rows: then threads may share them */
  const shard_par Tc = m->dof_unique ? T : (shard_par){1, T.grain};
  (void)Tc;
  /* the gather in threads; one thread scatters over the elements (the same
   * sums, bit for bit, and 5x cheaper a DOF than the gather's branches and
   * indirections on a fragmenting 1000-element bar) */
  if (m->el_gather && shard_par_on(T, m->ndof)) {
    element_force_gather(m, u, f, T);
  } else {
    memcpy(f, m->fext, (size_t)m->ndof * sizeof *f);
    for (int32_t e = 0; e < m->nel; ++e) {
      const int32_t a = m->el_a[e], b = m->el_b[e];
      const double s = m->el_k[e] * (u[b] - u[a]);
      f[a] += s;
      f[b] -= s;
    }
  }
  if (m->niface && m->tsl) {
    cohesive_trial(m, u);
    const double A = m->scales.area;
    SHARD_PAR_FOR(Tc, m->niface, i,
      const double tf = m->if_t[i] * A; /* closes the crack */
      f[m->if_node[i]] += tf;
      f[m->if_twin[i]] -= tf;
    );
  }
  if (m->force_law) {
    penalty_eval(m, u);
    SHARD_PAR_FOR(Tc, m->ncon, i,
      const double p = m->pen_f[i];
      if (p == 0.0) continue;
      for (int32_t e = m->h_rowptr[i]; e < m->h_rowptr[i + 1]; ++e) f[m->h_col[e]] += m->h_val[e] * p;
    );
  }
  return SHARD_OK;
}

/* K += k h h^T on constraint row i */
static void add_row_spring(shard_model *m, int32_t i, double k) {
  const int32_t r = m->h_rowptr[i], nr = m->h_rowptr[i + 1] - r;
  const int32_t *p = m->con_pos + 4 * i;
  const double h0 = m->h_val[r], h1 = nr > 1 ? m->h_val[r + 1] : 0.0;
  m->k_val[p[0]] += k * h0 * h0;
  if (nr > 1) m->k_val[p[1]] += k * h0 * h1, m->k_val[p[2]] += k * h1 * h0, m->k_val[p[3]] += k * h1 * h1;
}

static int sys_stiffness(shard_system *sys, const double *u, const shard_csr **out_k, shard_msg *msg) {
  shard_model *m = model_of(sys);
  (void)msg;
  const int32_t nd = m->ndof;
  const shard_par T = shard_system_par(sys), Tc = m->dof_unique ? T : (shard_par){1, T.grain};
  (void)Tc;
  if (!m->k_base_ok) { /* the elements' stiffness, in element order, once per pattern */
    memset(m->k_base, 0, (size_t)m->k_rowptr[nd] * sizeof *m->k_base);
    for (int32_t e = 0; e < m->nel; ++e) {
      const int32_t *p = m->el_pos + 4 * e;
      const double k = m->el_k[e];
      m->k_base[p[0]] += k, m->k_base[p[1]] -= k, m->k_base[p[2]] -= k, m->k_base[p[3]] += k;
    }
    m->k_base_ok = 1;
  }
  memcpy(m->k_val, m->k_base, (size_t)m->k_rowptr[nd] * sizeof *m->k_val);
  /* a row's spring writes the K rows of its DOFs only: disjoint when no DOF is in two rows */
  if (m->niface && m->tsl) {
    cohesive_trial(m, u);
    SHARD_PAR_FOR(Tc, m->niface, i, if (m->if_k[i] != 0.0) add_row_spring(m, m->nwall + i, m->if_k[i] * m->scales.area););
  }
  if (m->force_law) {
    penalty_eval(m, u);
    SHARD_PAR_FOR(Tc, m->ncon, i, if (m->pen_k[i] != 0.0) add_row_spring(m, i, m->pen_k[i]););
  }
  m->k = (shard_csr){m->ndof, m->ndof, m->k_rowptr, m->k_col, m->k_val};
  *out_k = &m->k;
  return SHARD_OK;
}

static void sys_prescribe(shard_system *sys, double t, double *v, double *a) {
  shard_model *m = model_of(sys);
  (void)t;
  if (m->released) return;
  for (int32_t i = 0; i < m->n_presc; ++i) v[m->presc_dof[i]] = m->presc_v[i], a[m->presc_dof[i]] = 0.0;
}

static const shard_system_ops model_ops = {
    .force = sys_force,
    .stiffness = sys_stiffness,
    .gaps = sys_gaps,
    .prescribe = sys_prescribe,
};

/* ---- W' in closed form (model.h) ------------------------------------------- */

/* the most rows one row couples to */
#define W_REACH 32

/* Row i (constraint rows[i]) of W' into col / val (room for `room`
 * entries), its length in *len. Reads the marks dj / dh of every active row
 * and writes nothing else: rows are independent. msg may be NULL (threads:
 * the caller computes a failing row again with a message). */
static int w_row(const shard_model *m, const int32_t *rows, int32_t i, double kcoef, int32_t *restrict col,
                 double *restrict val, int64_t room, int64_t *len, shard_msg *msg) {
  const int32_t *restrict hrp = m->h_rowptr, *restrict hcol = m->h_col, *restrict krp = m->k_rowptr,
                          *restrict kcol = m->k_col;
  const double *restrict hval = m->h_val, *restrict kval = m->k_val, *restrict minv = m->minv;
  const int32_t *restrict dj = m->w_dof_j;
  const double *restrict dh = m->w_dof_h;
  const int32_t r = rows[i];
  /* per H entry (DOF d, b = h M^-1_d) the mass product b h_sd, then per
   * entry K_dl of K's row the product -(kcoef b K_dl M^-1_l) h_sl, added
   * into W'(r, s) for the active row s holding DOF d (l): the products and
   * the order of the host's assembly, so the same sums bit for bit (and
   * the same zero tests: b = 0 or a K factor = 0 left out) */
  int32_t js[W_REACH], nj = 0, j0 = -1, j1 = -1, j2 = -1;
  double acc[W_REACH], a0 = 0.0, a1 = 0.0, a2 = 0.0;
  int any = 0;
  for (int32_t e = hrp[r]; e < hrp[r + 1]; ++e) {
    const int32_t d = hcol[e];
    const double b = hval[e] * minv[d];
    if (b == 0.0) continue;
    any = 1;
    const int32_t p1 = kcoef != 0.0 ? krp[d + 1] : krp[d];
    for (int32_t p = krp[d] - 1; p < p1; ++p) {
      const int32_t l = p < krp[d] ? d : kcol[p], j = dj[l];
      if (j < 0) continue;
      double x;
      if (p < krp[d]) {
        x = b * dh[l];
      } else {
        const double f = kcoef * b * kval[p] * minv[l];
        if (f == 0.0) continue;
        x = -f * dh[l];
      }
      /* the first three rows' sums in registers (a row of the bar
       * couples to itself and its two neighbours), the rest in acc */
      if (j == j0) {
        a0 += x;
      } else if (j == j1) {
        a1 += x;
      } else if (j == j2) {
        a2 += x;
      } else {
        int32_t q = nj < 3 ? nj : 3; /* not among the slots in use below 3 */
        while (q < nj && js[q] != j) ++q;
        if (q == nj) {
          if (nj == W_REACH)
            return msg ? shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "contact operator: row %d couples to more than %d rows",
                                       (int)r, W_REACH)
                       : SHARD_ERR_UNSUPPORTED;
          ++nj;
          if (q == 0) j0 = j;
          else if (q == 1) j1 = j;
          else if (q == 2) j2 = j;
          else js[q] = j, acc[q] = 0.0;
        }
        if (q == 0) a0 += x;
        else if (q == 1) a1 += x;
        else if (q == 2) a2 += x;
        else acc[q] += x;
      }
    }
  }
  js[0] = j0, acc[0] = a0, js[1] = j1, acc[1] = a1, js[2] = j2, acc[2] = a2;
  for (int32_t q = 1; q < nj; ++q) { /* columns ascending: a handful, insertion */
    const int32_t j = js[q];
    const double v = acc[q];
    int32_t u = q;
    while (u > 0 && js[u - 1] > j) js[u] = js[u - 1], acc[u] = acc[u - 1], --u;
    js[u] = j, acc[u] = v;
  }
  int64_t nnz = 0;
  for (int32_t q = 0; q < nj; ++q) {
    if (js[q] == i ? !any : acc[q] == 0.0) continue;
    if (nnz == room) return SHARD_ERR_INTERNAL; /* the caller says how many */
    col[nnz] = js[q], val[nnz++] = acc[q];
  }
  *len = nnz;
  return SHARD_OK;
}

/* w_row for a row that couples only to itself and the rows next to it in
 * `rows` (i - 1, i + 1): nearly every row of a bar, whose rows come in space
 * order. The same products, added in the same order into three sums in
 * registers (the entries of i - 1, i, i + 1), each product added to its sum
 * and +0.0 to the two others instead of a search among the slots or a branch
 * on the data; a product left out (no active row at l, or a zero factor)
 * adds +0.0 to all three. Adding +0.0 changes no sum: a sum that starts at
 * +0.0 never becomes -0.0 (round to nearest), and x + 0.0 = x for every
 * other x, NaN and infinities included. So the same row as w_row, bit for
 * bit. 0 when some coupling falls elsewhere or the room is short: the
 * caller runs w_row. */
static int w_row3(const shard_model *m, const int32_t *rows, int32_t i, double kcoef, int32_t *restrict col,
                  double *restrict val, int64_t room, int64_t *len) {
  const int32_t *restrict hrp = m->h_rowptr, *restrict hcol = m->h_col, *restrict krp = m->k_rowptr,
                          *restrict kcol = m->k_col;
  const double *restrict hval = m->h_val, *restrict kval = m->k_val, *restrict minv = m->minv;
  const int32_t *restrict dj = m->w_dof_j;
  const double *restrict dh = m->w_dof_h;
  const int32_t r = rows[i];
  if (room < 3) return 0;
  double a0 = 0.0, a1 = 0.0, a2 = 0.0;
  int any = 0;
  for (int32_t e = hrp[r]; e < hrp[r + 1]; ++e) {
    const int32_t d = hcol[e];
    const double b = hval[e] * minv[d];
    if (b == 0.0) continue;
    if (dj[d] != i) return 0; /* a row listed twice */
    any = 1;
    a1 += b * dh[d];
    if (kcoef == 0.0) continue;
    for (int32_t p = krp[d]; p < krp[d + 1]; ++p) {
      const int32_t l = kcol[p], j = dj[l];
      const double f = kcoef * b * kval[p] * minv[l];
      const int skip = j < 0 || f == 0.0;
      const uint32_t o = (uint32_t)(j - i + 1);
      if (!skip && o > 2u) return 0;
      const double x = skip ? 0.0 : -f * dh[l];
      a0 += o == 0u ? x : 0.0, a1 += o == 1u ? x : 0.0, a2 += o == 2u ? x : 0.0;
    }
  }
  int64_t nnz = 0;
  if (a0 != 0.0) col[nnz] = i - 1, val[nnz++] = a0;
  if (any) col[nnz] = i, val[nnz++] = a1;
  if (a2 != 0.0) col[nnz] = i + 1, val[nnz++] = a2;
  *len = nnz;
  return 1;
}

int shard_model_contact_operator(shard_model *m, const int32_t *rows, int32_t n, double kcoef, int32_t *w_rowptr,
                                 int32_t *w_col, double *w_val, int64_t cap, shard_msg *msg) {
  if (!m->dof_unique)
    return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "contact operator: a DOF is in two constraint rows");
  const int32_t *restrict hrp = m->h_rowptr, *restrict hcol = m->h_col;
  const double *restrict hval = m->h_val;
  /* per DOF of an active row: that row's local index and its H entry there */
  int32_t *restrict dj = m->w_dof_j;
  double *restrict dh = m->w_dof_h;
  for (int32_t i = 0; i < n; ++i) {
    if (rows[i] < 0 || rows[i] >= m->ncon) {
      for (int32_t u = 0; u < i; ++u)
        for (int32_t e = hrp[rows[u]]; e < hrp[rows[u] + 1]; ++e) dj[hcol[e]] = -1;
      return shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator: row %d of %d constraints", (int)rows[i],
                           (int)m->ncon);
    }
    for (int32_t e = hrp[rows[i]]; e < hrp[rows[i] + 1]; ++e) dj[hcol[e]] = i, dh[hcol[e]] = hval[e];
  }
  int st = SHARD_OK;
  w_rowptr[0] = 0;
  /* In threads: T chunks of consecutive rows, chunk k writing its rows
   * packed from entry i0 * S (S = the room per row), w_rowptr counting
   * within the chunk; then the chunks moved down into place in order and
   * w_rowptr offset. The same rows, the same entries, as one pass. A chunk
   * that fails (or overflows its room) leaves it to the one pass below,
   * which says why. */
  const shard_par P = shard_system_par(&m->sys), chunks = {P.threads, 1};
  const int32_t T = P.threads;
  const int64_t S = n > 0 ? (cap - 1) / n : 0;
  int done = 0;
  /* a row costs some hundred cycles: threads from a quarter of the grain */
  if (SHARD_HAVE_THREADS && T > 1 && n >= P.grain / 4 && S > 0) {
    int fail = 0;
    (void)chunks;
    SHARD_PAR_FOR_OR(chunks, T, k, fail,
      const int32_t i0 = (int32_t)((int64_t)n * k / T), i1 = (int32_t)((int64_t)n * (k + 1) / T);
      int64_t at = (int64_t)i0 * S, end = (int64_t)i1 * S;
      for (int32_t i = i0; i < i1 && !fail; ++i) {
        int64_t len = 0;
        if (!w_row3(m, rows, i, kcoef, w_col + at, w_val + at, end - at, &len))
          fail |= w_row(m, rows, i, kcoef, w_col + at, w_val + at, end - at, &len, NULL) != SHARD_OK;
        at += len;
        w_rowptr[i + 1] = (int32_t)(at - (int64_t)i0 * S);
      }
    );
    if (!fail) {
      int64_t base = 0;
      for (int32_t k = 0; k < T; ++k) {
        const int32_t i0 = (int32_t)((int64_t)n * k / T), i1 = (int32_t)((int64_t)n * (k + 1) / T);
        if (i1 == i0) continue;
        const int64_t cnt = w_rowptr[i1], from = (int64_t)i0 * S;
        if (from != base) {
          memmove(w_col + base, w_col + from, (size_t)cnt * sizeof *w_col);
          memmove(w_val + base, w_val + from, (size_t)cnt * sizeof *w_val);
        }
        for (int32_t i = i0; i < i1; ++i) w_rowptr[i + 1] = (int32_t)(w_rowptr[i + 1] + base);
        base += cnt;
      }
      done = 1;
    }
  }
  if (!done) {
    int64_t nnz = 0;
    for (int32_t i = 0; i < n && st == SHARD_OK; ++i) {
      int64_t len = 0;
      if (!w_row3(m, rows, i, kcoef, w_col + nnz, w_val + nnz, cap - nnz, &len))
        st = w_row(m, rows, i, kcoef, w_col + nnz, w_val + nnz, cap - nnz, &len, msg);
      if (st == SHARD_ERR_INTERNAL)
        st = shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact operator: more than %lld entries", (long long)cap);
      nnz += len;
      w_rowptr[i + 1] = (int32_t)nnz;
    }
  }
  for (int32_t i = 0; i < n; ++i)
    for (int32_t e = hrp[rows[i]]; e < hrp[rows[i] + 1]; ++e) dj[hcol[e]] = -1;
  return st;
}

/* ---- stiffness pattern: rebuilt in O(ndof + nel + ncon) after insertions ---- */

static int32_t row_find(const shard_model *m, int32_t r, int32_t c) {
  for (int32_t p = m->k_rowptr[r]; p < m->k_rowptr[r + 1]; ++p)
    if (m->k_col[p] == c) return p;
  return -1;
}

static int32_t con_min_dof(const shard_model *m, int32_t i) {
  int32_t d = m->h_col[m->h_rowptr[i]];
  for (int32_t r = m->h_rowptr[i] + 1; r < m->h_rowptr[i + 1]; ++r)
    if (m->h_col[r] < d) d = m->h_col[r];
  return d;
}

static void rebuild_pattern(shard_model *m) {
  const int32_t nd = m->ndof;
  int32_t *rp = m->k_rowptr;
  for (int32_t d = 0; d <= nd; ++d) rp[d] = 0;
  for (int32_t d = 0; d < nd; ++d) rp[d + 1] = 1;
  for (int32_t e = 0; e < m->nel; ++e) rp[m->el_a[e] + 1]++, rp[m->el_b[e] + 1]++;
  for (int32_t i = 0; i < m->ncon; ++i)
    if (m->h_rowptr[i + 1] - m->h_rowptr[i] > 1) rp[m->h_col[m->h_rowptr[i]] + 1]++, rp[m->h_col[m->h_rowptr[i] + 1] + 1]++;
  for (int32_t d = 0; d < nd; ++d) rp[d + 1] += rp[d];
  /* fill: use k_val as a cursor-free scratch through a second pass on lengths */
  int32_t *len = m->k_len;
  for (int32_t d = 0; d < nd; ++d) len[d] = 0, m->k_col[rp[d] + len[d]++] = d;
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t a = m->el_a[e], b = m->el_b[e];
    m->k_col[rp[a] + len[a]++] = b;
    m->k_col[rp[b] + len[b]++] = a;
  }
  for (int32_t i = 0; i < m->ncon; ++i) {
    const int32_t r = m->h_rowptr[i];
    if (m->h_rowptr[i + 1] - r > 1) {
      const int32_t a = m->h_col[r], b = m->h_col[r + 1];
      m->k_col[rp[a] + len[a]++] = b;
      m->k_col[rp[b] + len[b]++] = a;
    }
  }
  for (int32_t d = 0; d < nd; ++d) { /* rows hold a handful of entries: insertion sort */
    int32_t *c = m->k_col + rp[d];
    for (int32_t i = 1; i < len[d]; ++i) {
      int32_t x = c[i], j = i - 1;
      while (j >= 0 && c[j] > x) c[j + 1] = c[j], --j;
      c[j + 1] = x;
    }
  }
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t a = m->el_a[e], b = m->el_b[e];
    int32_t *q = m->el_pos + 4 * e;
    q[0] = row_find(m, a, a), q[1] = row_find(m, a, b), q[2] = row_find(m, b, a), q[3] = row_find(m, b, b);
  }
  for (int32_t i = 0; i < m->ncon; ++i) {
    const int32_t r = m->h_rowptr[i], nr = m->h_rowptr[i + 1] - r;
    const int32_t a = m->h_col[r], b = nr > 1 ? m->h_col[r + 1] : a;
    int32_t *q = m->con_pos + 4 * i;
    q[0] = row_find(m, a, a), q[1] = row_find(m, a, b), q[2] = row_find(m, b, a), q[3] = row_find(m, b, b);
  }
  /* constraints by their lowest DOF, a counting sort with k_len as the
   * counter: insertions append rows and twin DOFs in time order, this keeps
   * the integrators' scans in space order */
  for (int32_t d = 0; d <= nd; ++d) len[d] = 0;
  for (int32_t i = 0; i < m->ncon; ++i) len[con_min_dof(m, i) + 1]++;
  for (int32_t d = 0; d < nd; ++d) len[d + 1] += len[d];
  for (int32_t i = 0; i < m->ncon; ++i) m->con_order[len[con_min_dof(m, i)]++] = i;
  m->sys.con_order = m->con_order;
  /* per DOF its elements, ascending (the gathers of the force and the stiffness) */
  m->el_gather = m->nel <= INT32_MAX / 2;
  for (int32_t d = 0; d < 2 * nd; ++d) m->el_inc[d] = -1;
  for (int32_t e = 0; e < m->nel && m->el_gather; ++e)
    for (int32_t k = 0; k < 2; ++k) {
      int32_t *q = m->el_inc + 2 * (k ? m->el_b[e] : m->el_a[e]);
      if (q[0] < 0) q[0] = 2 * e + k;
      else if (q[1] < 0) q[1] = 2 * e + k;
      else m->el_gather = 0;
    }
  /* whether each DOF is in one constraint row at most (the closed-form W') */
  m->dof_unique = 1;
  for (int32_t d = 0; d < nd; ++d) len[d] = 0;
  for (int32_t e = 0; e < m->h_rowptr[m->ncon]; ++e)
    if (len[m->h_col[e]]++ > 0) m->dof_unique = 0;
  m->k = (shard_csr){nd, nd, m->k_rowptr, m->k_col, m->k_val};
  m->h = (shard_csr){m->ncon, nd, m->h_rowptr, m->h_col, m->h_val};
  m->k_base_ok = 0;
}

/* ---- construction ---------------------------------------------------------- */

#define ALLOC(ptr, n) (((ptr) = calloc((size_t)(n) + 1, sizeof *(ptr))) != NULL)

/* The arrays that grow with the interfaces, as (pointer, element size,
 * elements per unit, units: 0 per DOF, 1 per row, 2 per interface, 3 the
 * stiffness entries, 4 per DOF plus one) */
typedef struct grow_array {
  void **p;
  size_t size;
  int per, unit;
} grow_array;

static int grow_arrays(shard_model *m, grow_array *out) {
  int n = 0;
#define G_(ptr, per, unit) out[n++] = (grow_array){(void **)&(ptr), sizeof *(ptr), (per), (unit)}
  G_(m->X, 1, 0), G_(m->mass, 1, 0), G_(m->minv, 1, 0), G_(m->fext, 1, 0), G_(m->sys.u, 1, 0);
  G_(m->sys.v, 1, 0), G_(m->sys.a, 1, 0), G_(m->f_insert, 1, 0), G_(m->k_rowptr, 1, 4), G_(m->k_len, 1, 4);
  G_(m->h_rowptr, 1, 5), G_(m->h_col, 2, 1), G_(m->h_val, 2, 1), G_(m->g0, 1, 1), G_(m->pen_f, 1, 1);
  G_(m->pen_k, 1, 1), G_(m->pen_e, 1, 1), G_(m->gap_scratch, 1, 1), G_(m->restitution, 1, 1);
  G_(m->impulse, 1, 1), G_(m->con_order, 1, 1), G_(m->con_pos, 4, 1), G_(m->w_dof_j, 1, 0), G_(m->w_dof_h, 1, 0);
  G_(m->k_col, 1, 3), G_(m->k_val, 1, 3), G_(m->k_base, 1, 3), G_(m->el_inc, 2, 0);
  G_(m->if_node, 1, 2), G_(m->if_twin, 1, 2), G_(m->if_sigma, 1, 2), G_(m->if_deltac, 1, 2);
  G_(m->if_dmax, 1, 2), G_(m->if_delta, 1, 2), G_(m->if_t, 1, 2), G_(m->if_k, 1, 2), G_(m->if_rev, 1, 2);
  G_(m->if_delta_prev, 1, 2), G_(m->if_t_prev, 1, 2), G_(m->if_work, 1, 2), G_(m->if_step_max, 1, 2);
#undef G_
  return n;
}

/* elements of a growing array for if_cap interfaces */
static size_t grow_count(const shard_model *m, const grow_array *g, int32_t if_cap) {
  const size_t nn = (size_t)(m->ndof_max - m->nfacet), nw = (size_t)(m->ncon_max - m->nfacet), ni = (size_t)if_cap;
  size_t units = 0;
  switch (g->unit) {
  case 0: units = nn + ni; break;
  case 1: units = nw + ni; break;
  case 2: units = ni; break;
  case 3: units = (nn + ni) + 2 * (size_t)m->nel + 2 * (nw + ni); break;
  case 4: units = nn + ni + 1; break;
  default: units = nw + ni + 1; break;
  }
  return (size_t)g->per * units + 1; /* and a spare */
}

/* The pointers that alias the growing arrays, set again after realloc may
 * have moved them (whether the growth succeeded or not) */
static void model_alias(shard_model *m) {
  m->sys.mass = m->mass, m->sys.minv = m->minv, m->sys.impulse = m->impulse;
  m->sys.con_order = m->con_order;
  m->k = (shard_csr){m->ndof, m->ndof, m->k_rowptr, m->k_col, m->k_val};
  m->h = (shard_csr){m->ncon, m->ndof, m->h_rowptr, m->h_col, m->h_val};
}

/* Storage for `need` interfaces (and their DOFs and rows): the capacity grows
 * by half (and 64) at least, at most to every facet; the arrays keep their
 * values, the new elements zero. The hot path never comes here: insertions
 * run between steps. SHARD_ERR_NOMEM names what failed; the model stays
 * valid at its old capacity. */
static int model_reserve(shard_model *m, int32_t need, shard_msg *msg) {
  if (need <= m->if_cap) return SHARD_OK;
  int64_t cap = (int64_t)m->if_cap + m->if_cap / 2 + 64;
  if (cap < need) cap = need;
  if (cap > m->nfacet) cap = m->nfacet;
  if (need > cap)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "%d interfaces, more than the %d facets", (int)need, (int)m->nfacet);
  grow_array g[48];
  const int n = grow_arrays(m, g);
  for (int k = 0; k < n; ++k) {
    const size_t n0 = grow_count(m, &g[k], m->if_cap), n1 = grow_count(m, &g[k], (int32_t)cap);
    if (n1 <= n0) continue;
    void *q = realloc(*g[k].p, n1 * g[k].size);
    if (!q) { /* the arrays grown so far are merely larger (and may have moved): the old capacity still holds */
      model_alias(m);
      return shard_msg_set(msg, SHARD_ERR_NOMEM,
                           "out of memory growing the storage from %d to %d interfaces (%zu bytes for one array)",
                           (int)m->if_cap, (int)cap, n1 * g[k].size);
    }
    memset((char *)q + n0 * g[k].size, 0, (n1 - n0) * g[k].size);
    *g[k].p = q;
  }
  model_alias(m);
  m->if_cap = (int32_t)cap;
  for (int32_t d = m->ndof_cap; d < m->ndof_max - m->nfacet + m->if_cap; ++d) m->w_dof_j[d] = -1;
  m->ndof_cap = m->ndof_max - m->nfacet + m->if_cap;
  m->ncon_cap = m->ncon_max - m->nfacet + m->if_cap;
  return SHARD_OK;
}

#define ALLOC(ptr, n) (((ptr) = calloc((size_t)(n) + 1, sizeof *(ptr))) != NULL)

/* ndof_max = nn + nfacet DOFs and ncon_max = nwall + nfacet rows at most; the
 * storage is allocated for no interface and grows with them (model_reserve) */
static int alloc_model(shard_model *m, int32_t ndof_max, int32_t ncon_max, int32_t nel, int32_t nfacet, shard_msg *msg) {
  m->ndof_max = ndof_max, m->ncon_max = ncon_max, m->nel = nel, m->nfacet = nfacet;
  m->if_cap = 0, m->ndof_cap = ndof_max - nfacet, m->ncon_cap = ncon_max - nfacet;
  grow_array g[48];
  const int n = grow_arrays(m, g);
  int ok = 1;
  for (int k = 0; k < n && ok; ++k) ok = (*g[k].p = calloc(grow_count(m, &g[k], 0), g[k].size)) != NULL;
  ok = ok && ALLOC(m->el_a, nel) && ALLOC(m->el_b, nel) && ALLOC(m->el_k, nel) && ALLOC(m->el_h, nel) &&
       ALLOC(m->el_pos, 4 * (int64_t)nel) && ALLOC(m->facet_strength, nfacet) && ALLOC(m->facet_iface, nfacet);
  if (!ok) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %d DOFs", (int)m->ndof_cap);
  for (int32_t f = 0; f < nfacet; ++f) m->facet_iface[f] = -1;
  for (int32_t d = 0; d < m->ndof_cap; ++d) m->w_dof_j[d] = -1; /* no active row holds it */
  return SHARD_OK;
}

/* append constraint row with one or two entries */
static int32_t add_constraint(shard_model *m, int32_t d0, double h0, int32_t d1, double h1, double g0) {
  const int32_t i = m->ncon++, r = m->h_rowptr[i];
  m->pen_current = 0;
  m->h_col[r] = d0, m->h_val[r] = h0;
  int32_t n = 1;
  if (d1 >= 0) m->h_col[r + 1] = d1, m->h_val[r + 1] = h1, n = 2;
  m->h_rowptr[i + 1] = r + n;
  m->g0[i] = g0;
  return i;
}

static int build_particle(shard_model *m, const shard_params *p, shard_msg *msg) {
  const double mass = shard_params_real(p, "mass"), u0 = shard_params_real(p, "position");
  const double v0 = shard_params_real(p, "velocity"), grav = shard_params_real(p, "gravity");
  const double floor_x = shard_params_real(p, "floor");
  int st = SHARD_OK;
  if (m->fr.specs)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: a particle cannot fracture: remove the 'fracture' section",
                         m->path);
  if (u0 < floor_x)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.position %g is below the floor %g", m->path, u0,
                         floor_x);
  if ((st = alloc_model(m, 1, 1, 0, 0, msg)) != SHARD_OK) return st;
  m->ndof = 1;
  m->mass[0] = mass, m->minv[0] = 1.0 / mass, m->fext[0] = -mass * grav;
  m->sys.u[0] = u0, m->sys.v[0] = v0;
  m->floor = add_constraint(m, 0, 1.0, -1, 0.0, -floor_x);
  m->nwall = 1;
  m->scales.mass_min = mass;
  return SHARD_OK;
}

/* The initial velocity of every bar DOF from its elements (see init_v_* in
 * model.h): a DOF whose elements all lie left of the split moves at v_left,
 * one whose elements all lie right is at rest, one with both takes the
 * mass-weighted mean, so that the total momentum is v_left rho A times the
 * length of the left elements exactly. Called when the model is built and
 * again after the initial interfaces, whose twins then each take the velocity
 * of their own side. Prescribed DOFs keep their prescribed velocity. */
static int initial_velocity(shard_model *m, shard_msg *msg) {
  const int32_t n = m->ndof;
  double *ml = calloc((size_t)n, sizeof *ml), *mr = calloc((size_t)n, sizeof *mr);
  if (!ml || !mr) {
    free(ml), free(mr);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t a = m->el_a[e], b = m->el_b[e];
    const double half = 0.5 * m->el_h[e]; /* rho A cancels in the ratio */
    double *side = 0.5 * (m->X[a] + m->X[b]) < m->init_v_split ? ml : mr;
    side[a] += half, side[b] += half;
  }
  for (int32_t j = 0; j < n; ++j) {
    const double vj = mr[j] == 0.0 ? m->init_v_left : ml[j] == 0.0 ? 0.0 : m->init_v_left * (ml[j] / (ml[j] + mr[j]));
    m->sys.v[j] = vj + m->init_rate * (m->X[j] - m->init_xmid);
  }
  for (int32_t i = 0; i < m->n_presc; ++i) m->sys.v[m->presc_dof[i]] = m->presc_v[i];
  free(ml), free(mr);
  return SHARD_OK;
}

/* a key's value, or `absent` when the case does not give it */
static double real_or(const shard_params *p, const char *key, double absent) {
  return shard_params_has(p, key) ? shard_params_real(p, key) : absent;
}

static int build_bar(shard_model *m, const shard_params *p, shard_msg *msg) {
  const double L = shard_params_real(p, "length"), A = shard_params_real(p, "area");
  const double E = shard_params_real(p, "young"), rho = shard_params_real(p, "density");
  const double X0 = shard_params_real(p, "origin"), pert = shard_params_real(p, "perturbation");
  const double v0 = shard_params_real(p, "initial.velocity"), rate = shard_params_real(p, "initial.strain_rate");
  const double eps = shard_params_real(p, "initial.strain");
  const long long ne = shard_params_int(p, "elements"), seed = shard_params_int(p, "seed");
  const double vsplit = real_or(p, "initial.velocity_left_of", INFINITY);
  const double gl = real_or(p, "walls.left.gap", -1), gr = real_or(p, "walls.right.gap", -1);
  const double vl = real_or(p, "loading.left_velocity", NAN), vr = real_or(p, "loading.right_velocity", NAN);
  int st = SHARD_OK;
  const int32_t nn = (int32_t)ne + 1;
  const int frac = m->fr.specs != NULL;
  const int32_t nfacet = frac ? nn - 2 : 0;
  const int32_t nwall = (gl >= 0) + (gr >= 0);
  if ((st = alloc_model(m, nn + nfacet, nwall + nfacet, (int32_t)ne, nfacet, msg)) != SHARD_OK) return st;
  m->ndof = nn;
  m->fracture = frac;
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
    m->sys.u[j] = eps * (m->X[j] - xmid);
  }
  m->init_v_left = v0, m->init_v_split = vsplit, m->init_rate = rate, m->init_xmid = xmid;
  if ((st = initial_velocity(m, msg)) != SHARD_OK) return st;
  m->wall_left = m->wall_right = -1;
  if (gl >= 0) m->wall_left = add_constraint(m, 0, 1.0, -1, 0.0, gl);
  if (gr >= 0) m->wall_right = add_constraint(m, nn - 1, -1.0, -1, 0.0, gr);
  m->nwall = m->ncon;
  if (!isnan(vl)) m->presc_dof[m->n_presc] = 0, m->presc_v[m->n_presc++] = vl;
  if (!isnan(vr)) m->presc_dof[m->n_presc] = nn - 1, m->presc_v[m->n_presc++] = vr;
  for (int32_t i = 0; i < m->n_presc; ++i) {
    const int32_t d = m->presc_dof[i];
    m->presc_minv[i] = m->minv[d];
    m->minv[d] = 0.0;
    m->sys.v[d] = m->presc_v[i];
  }
  /* docs/theory.md §8: the walls act after the release. Before it a wall on a driven
   * end could only oppose the drive, an infinite mass that no impulse moves
   * (its W' is 0, the LCP infeasible): the row keeps its place with a zero
   * coefficient, so the wall reads its initial gap and stays open until
   * shard_model_release gives the coefficient back. */
  for (int32_t i = 0; i < m->nwall; ++i)
    for (int32_t k = 0; k < m->n_presc; ++k)
      if (m->h_col[m->h_rowptr[i]] == m->presc_dof[k])
        m->wall_h[i] = m->h_val[m->h_rowptr[i]], m->h_val[m->h_rowptr[i]] = 0.0;
  m->scales = (shard_model_scales){.young = E, .density = rho, .area = A, .h_mean = h, .h_min = hmin, .length = L};
  double mmin = INFINITY;
  for (int32_t j = 0; j < nn; ++j) mmin = fmin(mmin, m->mass[j]);
  m->scales.mass_min = mmin;
  if (frac) {
    m->g_c = shard_params_real(&m->fr, "g_c");
    m->insertion = shard_params_bool(&m->fr, "insertion");
    const char *ia = shard_params_string(p, "insertion_acceleration");
    m->insert_copy_a = ia && strcmp(ia, "copied") == 0;
    if ((st = shard_strength_draw(&m->fr, m->path, m->X, nn, m->facet_strength, msg)) != SHARD_OK)
      return st;
  }
  return SHARD_OK;
}

int shard_model_create(const shard_model_args *a, shard_model **out, shard_msg *msg) {
  *out = NULL;
  shard_model *m = calloc(1, sizeof *m);
  if (!m) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  m->wall_left = m->wall_right = m->floor = -1;
  m->path = a->case_path;
  if (a->fracture) m->fr = *a->fracture;
  int st;
  if (a->type && strcmp(a->type, "particle") == 0) m->kind = SHARD_MODEL_PARTICLE, st = build_particle(m, a->params, msg);
  else if (a->type && strcmp(a->type, "bar") == 0) m->kind = SHARD_MODEL_BAR, st = build_bar(m, a->params, msg);
  else st = shard_msg_set(msg, SHARD_ERR_INPUT, "unknown model type '%s'", a->type ? a->type : "(none)");
  if (st != SHARD_OK) {
    shard_model_destroy(m);
    return st;
  }
  rebuild_pattern(m);
  shard_system *s = &m->sys;
  s->struct_size = sizeof *s;
  s->ndof = m->ndof, s->ndof_max = m->ndof_max, s->ncon = m->ncon, s->ncon_max = m->ncon_max;
  s->mass = m->mass, s->minv = m->minv, s->h = &m->h, s->restitution = m->restitution, s->impulse = m->impulse;
  s->stats = &m->stats, s->ops = &model_ops;
  *out = m;
  return SHARD_OK;
}

void shard_model_destroy(shard_model *m) {
  if (!m) return;
  grow_array g[48];
  const int n = grow_arrays(m, g); /* the growing arrays, then the rest */
  for (int k = 0; k < n; ++k) free(*g[k].p);
  void *rest[] = {m->sys.aux, m->el_a, m->el_b, m->el_k, m->el_h, m->el_pos, m->facet_strength, m->facet_iface};
  for (size_t i = 0; i < sizeof rest / sizeof rest[0]; ++i) free(rest[i]);
  free(m);
}

static int model_scale(const void *ctx, const char *name, double *out) {
  const shard_model_scales *s = ctx;
  const struct {
    const char *name;
    double value;
  } named[] = {{"young", s->young},   {"density", s->density},   {"area", s->area},    {"h_mean", s->h_mean},
               {"h_min", s->h_min}, {"mass_min", s->mass_min}, {"length", s->length}};
  for (size_t i = 0; name && i < sizeof named / sizeof named[0]; ++i)
    if (strcmp(name, named[i].name) == 0) {
      if (named[i].value == 0.0) return 0; /* the model has no such scale */
      *out = named[i].value;
      return 1;
    }
  return 0;
}

shard_scales shard_model_scales_named(const shard_model_scales *s) {
  return (shard_scales){.struct_size = sizeof(shard_scales), .ctx = s, .get = model_scale};
}

shard_scales shard_model_named_scales(const shard_model *m) { return shard_model_scales_named(&m->scales); }

void shard_model_set_force_law(shard_model *m, const shard_contact_law_ops *ops, void *self) {
  m->force_law = ops;
  m->force_law_self = self;
  m->pen_current = 0;
}

/* ---- insertion (docs/theory.md §8) --------------------------------------------------- */

/* Split internal node j (facet j-1): the twin takes element j and half of its
 * mass; both copies keep u, v, a and the integrator's aux vectors (a is set
 * again after the step's insertions: insertion_acceleration). The caller
 * reserved the storage (model_reserve). */
static int32_t split_node(shard_model *m, int32_t j, double sigma_eff, double damage) {
  shard_system *s = &m->sys;
  const int32_t t = m->ndof++;
  const double A = m->scales.area, rho = m->scales.density;
  const double ml = 0.5 * rho * A * m->el_h[j - 1], mr = 0.5 * rho * A * m->el_h[j];
  m->X[t] = m->X[j];
  m->mass[j] = ml, m->mass[t] = mr;
  m->minv[j] = 1.0 / ml, m->minv[t] = 1.0 / mr;
  s->u[t] = s->u[j], s->v[t] = s->v[j], s->a[t] = s->a[j];
  for (uint32_t k = 0; k < s->n_aux; ++k) s->aux[(size_t)k * m->ndof_max + t] = s->aux[(size_t)k * m->ndof_max + j];
  m->el_a[j] = t;
  const int32_t i = m->niface++;
  add_constraint(m, j, -1.0, t, 1.0, 0.0);
  m->if_node[i] = j, m->if_twin[i] = t;
  m->if_sigma[i] = sigma_eff;
  m->if_deltac[i] = 2.0 * m->g_c / sigma_eff;
  m->if_dmax[i] = damage * m->if_deltac[i];
  m->if_delta_prev[i] = 0.0;
  m->if_work[i] = 0.0;
  m->if_step_max[i] = 0.0;
  m->facet_iface[j - 1] = i;
  m->insertions++;
  return t;
}

static void finish_insertions(shard_model *m) {
  rebuild_pattern(m);
  m->sys.ndof = m->ndof, m->sys.ncon = m->ncon;
  /* tractions of the new state become the trapezoid's left values */
  if (m->tsl) {
    cohesive_eval(m, m->sys.u, 0);
    for (int32_t i = 0; i < m->niface; ++i) {
      if (m->if_delta_prev[i] == 0.0 && m->if_work[i] == 0.0) m->if_t_prev[i] = m->if_t[i];
    }
  }
}

/* After the insertions of a step, under a scheme of the Newmark form (NSN,
 * explicit Newmark: the step's stats say so), a = M^-1 f(u) with the new
 * topology on every DOF of finite mass (docs/theory.md §8). A twin and its
 * source kept the whole node's force over the whole node's mass; each one's
 * element force plus the new interface's traction (sigma_c at once for an
 * extrinsic law) over its half of the mass is something else, and the next
 * step would start from M a_n != f(u_n), against the identity that makes
 * H = E - dt^2/8 a^T M a a conserved quantity. Every DOF, not only the
 * copies: NSN's linearised a of a contact step matches f(u) only in sum.
 * The host books the change of H as energy.insertion_offset. CD-Lagrange's
 * a, the difference of its staggered velocities, is kept. A driven end
 * (minv 0) keeps its imposed a. */
static void insertion_acceleration(shard_model *m) {
  shard_system *s = &m->sys;
  shard_msg fmsg;
  sys_force(s, s->t, s->u, m->f_insert, &fmsg); /* cannot fail */
  for (int32_t d = 0; d < m->ndof; ++d)
    if (m->minv[d] != 0.0) s->a[d] = m->minv[d] * m->f_insert[d];
}

int32_t shard_model_insert(shard_model *m, int32_t *first_dof) {
  *first_dof = m->ndof;
  if (!m->fracture || !m->insertion) return 0;
  /* the facets to split first (a split leaves the other facets' stresses as
   * they were), the storage grown for them, then the splits */
  int32_t n = 0;
  for (int32_t f = 0; f < m->nfacet; ++f) n += m->facet_iface[f] < 0 && shard_model_facet_stress(m, f) > m->facet_strength[f];
  if (!n) return 0;
  shard_msg msg = {{0}};
  if (model_reserve(m, m->niface + n, &msg) != SHARD_OK) return -1; /* nothing inserted */
  for (int32_t f = 0; f < m->nfacet; ++f) {
    if (m->facet_iface[f] >= 0) continue;
    const double sf = shard_model_facet_stress(m, f);
    if (sf > m->facet_strength[f]) split_node(m, f + 1, sf, 0.0);
  }
  finish_insertions(m);
  if (!m->insert_copy_a && m->stats.energy_form == SHARD_ENERGY_NEWMARK) insertion_acceleration(m);
  return n;
}

int shard_model_set_tsl(shard_model *m, const shard_tsl_ops *ops, void *self, int zero_in_compression,
                        shard_msg *msg) {
  m->tsl = ops;
  m->tsl_self = self;
  m->tsl_zero_in_compression = zero_in_compression;
  m->tsl_kmax = shard_tsl_max_stiffness(ops, self) * m->scales.area;
  const shard_params *fr = &m->fr;
  const long long count = shard_params_int(fr, "initial.count"), seed = shard_params_int(fr, "initial.seed");
  int st = SHARD_OK;
  if (count > m->nfacet)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.initial.count = %lld exceeds the %d internal nodes",
                         m->path, count, (int)m->nfacet);
  /* nominal strength for the initial interfaces */
  const double nominal = shard_params_real(fr, "strength.nominal");
  /* listed interfaces: initial.position (nearest internal node), then
   * initial.node, each with its damage (one value for all, or one each) */
  const int cap = m->nfacet > 0 ? (int)m->nfacet : 1;
  const shard_param_value *lists[3] = {shard_params_find(fr, "initial.position"), shard_params_find(fr, "initial.node"),
                                       shard_params_find(fr, "initial.damage")};
  static const char *const list_key[3] = {"position", "node", "damage"};
  int nl[3];
  for (int k = 0; k < 3; ++k) {
    nl[k] = lists[k] ? (int)lists[k]->n_list : 0;
    if (nl[k] > (k == 2 ? 2 * cap : cap))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.initial.%s has %d values, at most %d are accepted",
                           m->path, list_key[k], nl[k], k == 2 ? 2 * cap : cap);
  }
  const double *pos = nl[0] ? lists[0]->list : NULL, *nodes = nl[1] ? lists[1]->list : NULL;
  const double *dmg = nl[2] ? lists[2]->list : NULL;
  const int npos = nl[0], nnode = nl[1], ndmg = nl[2];
  int32_t *listed = malloc(2 * (size_t)cap * sizeof *listed);
  if (!listed) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  int n_listed = 0;
  if (npos + nnode > 0 && m->nfacet < 1)
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.initial: the bar has no internal node", m->path);
  for (int k = 0; st == SHARD_OK && k < npos; ++k) {
    int32_t best = 0;
    double bd = INFINITY;
    for (int32_t f = 0; f < m->nfacet; ++f)
      if (fabs(m->X[f + 1] - pos[k]) < bd) bd = fabs(m->X[f + 1] - pos[k]), best = f;
    listed[n_listed++] = best + 1;
  }
  for (int k = 0; st == SHARD_OK && k < nnode; ++k) {
    if (!(nodes[k] >= 1 && nodes[k] <= m->nfacet))
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "%s: fracture.initial.node %.0f is not an internal node (1 .. %d)",
                         m->path, nodes[k], (int)m->nfacet);
    else
      listed[n_listed++] = (int32_t)nodes[k];
  }
  for (int a = 0; st == SHARD_OK && a < n_listed; ++a)
    for (int b = a + 1; st == SHARD_OK && b < n_listed; ++b)
      if (listed[a] == listed[b])
        st = shard_msg_set(msg, SHARD_ERR_INPUT,
                           "%s: fracture.initial: interfaces %d and %d of initial.position / initial.node are both on "
                           "node %d (X = %g m)",
                           m->path, a + 1, b + 1, (int)listed[a], m->X[listed[a]]);
  if (st == SHARD_OK && ndmg != 1 && ndmg != n_listed)
    st = shard_msg_set(msg, SHARD_ERR_INPUT,
                       "%s: fracture.initial.damage has %d values for %d listed interfaces (give one value for all, "
                       "or one per interface of initial.position then initial.node)",
                       m->path, ndmg, n_listed);
  if (st == SHARD_OK && ndmg > 1 && count > 0)
    st = shard_msg_set(msg, SHARD_ERR_INPUT,
                       "%s: fracture.initial.damage is a list, but the %lld interfaces of initial.count need one value: "
                       "give a single damage",
                       m->path, count);
  int32_t n = 0;
  if (st == SHARD_OK) st = model_reserve(m, m->niface + n_listed, msg);
  for (int k = 0; st == SHARD_OK && k < n_listed; ++k) split_node(m, listed[k], nominal, dmg[ndmg == 1 ? 0 : k]), ++n;
  const double damage = ndmg ? dmg[0] : 0.0;
  free(listed);
  if (st != SHARD_OK) return st;
  if (count > 0) {
    /* draw `count` distinct facets: partial Fisher-Yates over the facet list */
    int32_t *idx = malloc((size_t)m->nfacet * sizeof *idx);
    if (!idx) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
    for (int32_t f = 0; f < m->nfacet; ++f) idx[f] = f;
    shard_rng rng;
    shard_rng_seed(&rng, (uint64_t)seed);
    for (int32_t k = 0; k < (int32_t)count; ++k) {
      const int32_t r = k + (int32_t)(shard_rng_uniform(&rng) * (double)(m->nfacet - k));
      const int32_t tmp = idx[k];
      idx[k] = idx[r], idx[r] = tmp;
    }
    /* insert in node order so that the numbering is reproducible and readable */
    char *chosen = calloc((size_t)m->nfacet + 1, 1);
    if (!chosen) {
      free(idx);
      return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
    }
    for (int32_t k = 0; k < (int32_t)count; ++k) chosen[idx[k]] = 1;
    if ((st = model_reserve(m, m->niface + (int32_t)count, msg)) != SHARD_OK) {
      free(chosen), free(idx);
      return st;
    }
    for (int32_t f = 0; f < m->nfacet; ++f)
      if (chosen[f] && m->facet_iface[f] < 0) split_node(m, f + 1, nominal, damage), ++n;
    free(chosen);
    free(idx);
  }
  if (n) {
    finish_insertions(m);
    /* each twin of an initial interface moves with its own side */
    if ((st = initial_velocity(m, msg)) != SHARD_OK) return st;
  }
  for (int32_t i = 0; i < m->niface; ++i) m->if_t_prev[i] = m->if_t[i], m->if_delta_prev[i] = m->if_delta[i];
  m->insertions = 0; /* count only insertions during the run */
  return SHARD_OK;
}

void shard_model_commit(shard_model *m) {
  if (!m->niface || !m->tsl) return;
  cohesive_eval(m, m->sys.u, 1);
  const shard_par T = shard_system_par(&m->sys);
  (void)T;
  SHARD_PAR_FOR(T, m->niface, i,
    const double dd = m->if_delta[i] - m->if_delta_prev[i];
    m->if_work[i] += 0.5 * dd * (m->if_t[i] + m->if_t_prev[i]);
    if (fabs(dd) / m->if_deltac[i] > m->if_step_max[i]) m->if_step_max[i] = fabs(dd) / m->if_deltac[i];
    m->if_delta_prev[i] = m->if_delta[i];
    m->if_t_prev[i] = m->if_t[i];
  );
}

void shard_model_cohesive_energy(const shard_model *m, double *rev, double *work) {
  double r = 0, w = 0;
  for (int32_t i = 0; i < m->niface; ++i) r += m->if_rev[i], w += m->if_work[i];
  *rev = r * m->scales.area;
  *work = w * m->scales.area;
}

int32_t shard_model_broken(const shard_model *m) {
  int32_t n = 0;
  for (int32_t i = 0; i < m->niface; ++i) n += m->if_dmax[i] >= m->if_deltac[i];
  return n;
}

int32_t shard_model_fragments(const shard_model *m, const double *v, shard_fragment *out, int32_t n_max) {
  if (m->kind != SHARD_MODEL_BAR) return 1;
  const double rhoA = m->scales.density * m->scales.area;
  int32_t nf = 0;
  shard_fragment cur = {0};
  cur.x_left = m->X[0];
  for (int32_t e = 0; e < m->nel; ++e) {
    if (e == 0 || m->el_a[e] != m->el_b[e - 1]) cur.momentum += m->mass[m->el_a[e]] * v[m->el_a[e]];
    cur.momentum += m->mass[m->el_b[e]] * v[m->el_b[e]];
    cur.mass += rhoA * m->el_h[e];
    const int last = e == m->nel - 1;
    const int32_t i = last ? -1 : (e < m->nfacet ? m->facet_iface[e] : -1);
    const int broken = i >= 0 && m->if_dmax[i] >= m->if_deltac[i];
    if (broken || last) {
      cur.size = cur.mass / rhoA;
      cur.x_right = m->X[e + 1];
      if (out && nf < n_max) out[nf] = cur;
      ++nf;
      cur = (shard_fragment){.x_left = m->X[e + 1]};
    }
  }
  return nf;
}

/* ---- prescribed ends ----------------------------------------------------------- */

void shard_model_reactions(shard_model *m, const double *u, double out[2]) {
  for (int32_t i = 0; i < m->n_presc; ++i) {
    const int32_t d = m->presc_dof[i];
    double f = m->fext[d];
    const int32_t e = d == 0 ? 0 : m->nel - 1; /* end nodes belong to one element */
    const double s = m->el_k[e] * (u[m->el_b[e]] - u[m->el_a[e]]);
    f += m->el_a[e] == d ? s : -s;
    out[i] = -f; /* the force the drive applies */
  }
}

void shard_model_release(shard_model *m) {
  if (m->released) return;
  m->released = 1;
  m->pen_current = 0; /* the walls' coefficients come back */
  for (int32_t i = 0; i < m->n_presc; ++i) m->minv[m->presc_dof[i]] = m->presc_minv[i];
  for (int32_t i = 0; i < m->nwall; ++i)
    if (m->wall_h[i] != 0.0) m->h_val[m->h_rowptr[i]] = m->wall_h[i];
}

/* ---- stable step (docs/theory.md §8) ------------------------------------------------------ */

double shard_model_dt_default(const shard_model *m, double max_spring) {
  /* Exact lambda_max of M^-1/2 K_max M^-1/2 (docs/theory.md §8), K_max = bulk + every
   * added spring at its largest stiffness. In 1D the model is a chain: with
   * fracture every facet that is or may become an interface is split into its
   * two copies (half masses) joined by the largest cohesive/penalty spring, so
   * K_max is tridiagonal in chain order and lambda_max follows from Sturm
   * bisection to round-off, starting from the Gershgorin bound. An uncapped
   * law has no largest stiffness: its existing interfaces enter with their
   * current secant k(d) (new ones start on the softening branch). */
  if (m->kind == SHARD_MODEL_PARTICLE) return max_spring > 0 ? 2.0 / sqrt(max_spring / m->mass[0]) : INFINITY;
  const int32_t nn = m->nel + 1;
  double *d = calloc(2 * (size_t)nn + 2, sizeof *d), *e = calloc(2 * (size_t)nn + 2, sizeof *e);
  double *ms = calloc(2 * (size_t)nn + 2, sizeof *ms);
  if (!d || !e || !ms) {
    free(d), free(e), free(ms);
    return NAN;
  }
  const double rhoA = m->scales.density * m->scales.area;
  const double kc_all = max_spring + (isfinite(m->tsl_kmax) ? m->tsl_kmax : 0.0);
  /* chain: copies in order; copy index of node j's left and right copies */
  int32_t n = 0;
  for (int32_t j = 0; j < nn; ++j) {
    const double hl = j > 0 ? m->el_h[j - 1] : 0.0, hr = j < nn - 1 ? m->el_h[j] : 0.0;
    const int split = j > 0 && j < nn - 1 && m->fracture && (m->insertion || m->facet_iface[j - 1] >= 0);
    const double kel = j > 0 ? m->el_k[j - 1] : 0.0;
    if (split) {
      double kc = kc_all;
      const int32_t iface = m->facet_iface[j - 1];
      if (!isfinite(m->tsl_kmax) && iface >= 0) { /* uncapped law: the interface's current secant */
        const double dmg = m->if_dmax[iface] / m->if_deltac[iface];
        if (dmg > 0 && dmg < 1) kc += m->if_sigma[iface] * (1 - dmg) / (dmg * m->if_deltac[iface]) * m->scales.area;
      }
      ms[n] = 0.5 * rhoA * hl, ms[n + 1] = 0.5 * rhoA * hr;
      /* element j-1 ends on the left copy, the facet spring joins the copies */
      d[n] += kel + kc, d[n + 1] += kc + (j < nn - 1 ? m->el_k[j] : 0.0);
      if (n > 0) e[n - 1] = -kel;
      e[n] = -kc;
      n += 2;
    } else {
      ms[n] = m->kind == SHARD_MODEL_BAR ? 0.5 * rhoA * (hl + hr) : m->mass[j];
      d[n] += kel + (j < nn - 1 ? m->el_k[j] : 0.0);
      if (n > 0) e[n - 1] = -kel;
      n += 1;
    }
  }
  if (max_spring > 0) { /* walls */
    if (m->wall_left >= 0) d[0] += max_spring;
    if (m->wall_right >= 0) d[n - 1] += max_spring;
  }
  const double hi = shard_chain_lambda_max(d, e, ms, n);
  free(d), free(e), free(ms);
  return hi > 0 ? 2.0 / sqrt(hi) : INFINITY;
}

double shard_model_dt_bulk(const shard_model *m) {
  if (m->kind != SHARD_MODEL_BAR) return INFINITY;
  const double c = sqrt(m->scales.young / m->scales.density);
  return m->scales.h_min / c;
}

double shard_model_dt_paper(const shard_model *m, double max_spring) {
  const double dtb = shard_model_dt_bulk(m);
  const double kadd = max_spring + (m->fracture && isfinite(m->tsl_kmax) ? m->tsl_kmax : 0.0);
  if (kadd <= 0) return dtb;
  const double mmin = m->kind == SHARD_MODEL_BAR ? m->scales.density * m->scales.area * m->scales.h_min / 2
                                                 : m->scales.mass_min;
  const double dta = 2.0 * sqrt(mmin / kadd);
  if (!isfinite(dtb)) return dta;
  return 1.0 / sqrt(1.0 / (dtb * dtb) + 1.0 / (dta * dta));
}

/* ---- energies and measures ------------------------------------------------------ */

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

void shard_model_measure(shard_model *m, const double *u, double *gaps) {
  /* The integrator's last force() was at this very state (it says so, for
   * this step) and the rows have not changed since: its gaps and the force
   * law's state are this state's. */
  if (m->force_law && m->pen_current && m->sys.force_at_commit) {
    memcpy(gaps, m->gap_scratch, (size_t)m->ncon * sizeof(double));
    return;
  }
  gaps_at(m, u, gaps);
  if (m->force_law) shard_contact_law_force(m->force_law, m->force_law_self, m->ncon, gaps, m->pen_f, m->pen_k, m->pen_e);
  m->pen_current = 0; /* pen_* are now the measure's, gap_scratch the last force's */
}

double shard_model_penalty_energy(const shard_model *m) {
  if (!m->force_law) return 0.0;
  double s = 0;
  for (int32_t i = 0; i < m->ncon; ++i) s += m->pen_e[i];
  return s;
}

double shard_model_contact_force(const shard_model *m, int32_t i, double dt) {
  return m->impulse[i] / dt + (m->force_law ? m->pen_f[i] : 0.0);
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

/* ---- checkpoints ---------------------------------------------------------------- */

typedef struct ck_array {
  const char *name;
  shard_model_ck_type type;
  void *p;
  uint64_t count; /* elements */
} ck_array;

/* Every mutable array of the model, for ndof DOFs, ncon rows and ni
 * interfaces (and one spare element each, zero): what the state holds,
 * whatever the capacity the run grew to. */
static int ck_arrays(shard_model *m, int64_t ndof, int64_t ncon, int64_t ni, ck_array *out) {
  const uint64_t nd = (uint64_t)ndof + 1, nc = (uint64_t)ncon + 1, nf = (uint64_t)m->nfacet + 1,
                 ne = (uint64_t)m->nel + 1, nif = (uint64_t)ni + 1;
  const shard_model_ck_type D = SHARD_MODEL_CK_F64, I = SHARD_MODEL_CK_I32;
  int n = 0;
  out[n++] = (ck_array){"X", D, m->X, nd};
  out[n++] = (ck_array){"mass", D, m->mass, nd};
  out[n++] = (ck_array){"minv", D, m->minv, nd};
  out[n++] = (ck_array){"u", D, m->sys.u, nd};
  out[n++] = (ck_array){"v", D, m->sys.v, nd};
  out[n++] = (ck_array){"a", D, m->sys.a, nd};
  out[n++] = (ck_array){"el_a", I, m->el_a, ne};
  out[n++] = (ck_array){"h_rowptr", I, m->h_rowptr, nc + 1};
  out[n++] = (ck_array){"h_col", I, m->h_col, 2 * (uint64_t)ncon + 1};
  out[n++] = (ck_array){"h_val", D, m->h_val, 2 * (uint64_t)ncon + 1};
  out[n++] = (ck_array){"g0", D, m->g0, nc};
  out[n++] = (ck_array){"impulse", D, m->impulse, nc}; /* the LCP warm start */
  out[n++] = (ck_array){"facet_iface", I, m->facet_iface, nf};
  out[n++] = (ck_array){"if_node", I, m->if_node, nif};
  out[n++] = (ck_array){"if_twin", I, m->if_twin, nif};
  struct {
    const char *name;
    double *p;
  } dbl[] = {{"if_sigma", m->if_sigma},   {"if_deltac", m->if_deltac},         {"if_dmax", m->if_dmax},
             {"if_delta", m->if_delta},   {"if_t", m->if_t},                   {"if_k", m->if_k},
             {"if_rev", m->if_rev},       {"if_delta_prev", m->if_delta_prev}, {"if_t_prev", m->if_t_prev},
             {"if_work", m->if_work},     {"if_step_max", m->if_step_max}};
  for (size_t i = 0; i < sizeof dbl / sizeof dbl[0]; ++i) out[n++] = (ck_array){dbl[i].name, D, dbl[i].p, nif};
  if (m->sys.n_aux) out[n++] = (ck_array){"aux", D, m->sys.aux, (uint64_t)m->sys.n_aux * (uint64_t)m->ndof_max};
  return n;
}

enum { CK_NDOF, CK_NCON, CK_NIFACE, CK_RELEASED, CK_INSERTIONS, CK_NSCALARS };

uint32_t shard_model_checkpoint_sections(shard_model *m) {
  ck_array a[32];
  return 1u + (uint32_t)ck_arrays(m, m->ndof, m->ncon, m->niface, a);
}

static size_t ck_type_size(uint32_t type) {
  return type == SHARD_MODEL_CK_F64 || type == SHARD_MODEL_CK_I64 ? 8 : type == SHARD_MODEL_CK_I32 ? 4 : 1;
}

/* The sections keep the counts of a model that holds every interface (the
 * checkpoint of a run does not depend on how far its storage grew): an
 * array whose storage is shorter goes through `scratch`, zero-padded (at
 * most the largest section, allocated for the write or read only). */
static void *ck_scratch(const ck_array *full, int n) {
  size_t most = 0;
  for (int k = 0; k < n; ++k)
    if (full[k].count * ck_type_size(full[k].type) > most) most = full[k].count * ck_type_size(full[k].type);
  return malloc(most + 8);
}

void shard_model_checkpoint_write(shard_model *m, const shard_model_ck_io *io) {
  ck_array full[32], have[32];
  const int n = ck_arrays(m, m->ndof_max, m->ncon_max, m->nfacet, full);
  ck_arrays(m, m->ndof_cap, m->ncon_cap, m->if_cap, have);
  int short_of = 0;
  for (int i = 0; i < n; ++i) short_of |= have[i].count < full[i].count;
  unsigned char *scratch = short_of ? ck_scratch(full, n) : NULL;
  /* Out of memory for the scratch: the sections keep their sizes (the
   * host's size of a checkpoint holds), their data read from the stiffness
   * values (longer than any section), and the interface count says -1, so
   * that a restart refuses this checkpoint as corrupt instead of taking it. */
  const int poisoned = short_of && !scratch;
  const int64_t sc[CK_NSCALARS] = {m->ndof, m->ncon, poisoned ? -1 : m->niface, m->released, m->insertions};
  io->put(io->ctx, "model", SHARD_MODEL_CK_I64, sc, CK_NSCALARS);
  for (int i = 0; i < n; ++i) {
    const size_t z = ck_type_size(full[i].type);
    if (have[i].count >= full[i].count) {
      io->put(io->ctx, full[i].name, full[i].type, full[i].p, full[i].count);
    } else if (poisoned) {
      /* k_val holds ndof_cap + 2 nel + 2 ncon_cap + 1 values, more than any section of a bar */
      const size_t kcap = (size_t)m->ndof_cap + 2 * (size_t)m->nel + 2 * (size_t)m->ncon_cap + 1;
      const int fits = full[i].count * z <= kcap * sizeof(double);
      io->put(io->ctx, full[i].name, full[i].type, fits ? (const void *)m->k_val : have[i].p,
              fits ? full[i].count : have[i].count);
    } else {
      memcpy(scratch, have[i].p, have[i].count * z);
      memset(scratch + have[i].count * z, 0, (full[i].count - have[i].count) * z);
      io->put(io->ctx, full[i].name, full[i].type, scratch, full[i].count);
    }
  }
  free(scratch);
}

#define CK_BAD(...) shard_msg_set(msg, SHARD_ERR_INPUT, __VA_ARGS__)

/* The state read back is one this model can be in: counts within the case's
 * sizes, every index in range, the interfaces, their twin DOFs, constraint
 * rows and split elements consistent with each other (the restored pattern
 * is rebuilt from them), every number finite. */
static int ck_validate(const shard_model *m, const int64_t *sc, int32_t niface0, const int32_t *wall_col,
                       const ck_array *a, int na, shard_msg *msg) {
  const int32_t nn = m->kind == SHARD_MODEL_BAR ? m->nel + 1 : 1;
  if (sc[CK_NIFACE] < niface0 || sc[CK_NIFACE] > m->nfacet)
    return CK_BAD("%lld interfaces, this case has %d to %d", (long long)sc[CK_NIFACE], (int)niface0, (int)m->nfacet);
  const int32_t ni = (int32_t)sc[CK_NIFACE];
  if (!m->insertion && ni != niface0)
    return CK_BAD("%d interfaces in a case without insertions and %d initial ones", (int)ni, (int)niface0);
  if (sc[CK_NDOF] != (int64_t)nn + ni)
    return CK_BAD("%lld DOFs, %d nodes and %d interfaces make %d", (long long)sc[CK_NDOF], (int)nn, (int)ni,
                  (int)(nn + ni));
  if (sc[CK_NCON] != (int64_t)m->nwall + ni)
    return CK_BAD("%lld constraints, %d walls and %d interfaces make %d", (long long)sc[CK_NCON], (int)m->nwall,
                  (int)ni, (int)(m->nwall + ni));
  if (sc[CK_RELEASED] != 0 && (sc[CK_RELEASED] != 1 || m->n_presc == 0))
    return CK_BAD("released flag %lld (%s)", (long long)sc[CK_RELEASED],
                  m->n_presc ? "0 or 1 expected" : "the case drives no end");
  if (sc[CK_INSERTIONS] != (int64_t)ni - niface0)
    return CK_BAD("%lld insertions, %d interfaces beyond the %d initial ones", (long long)sc[CK_INSERTIONS],
                  (int)(ni - niface0), (int)niface0);
  for (int k = 0; k < na; ++k)
    if (a[k].type == SHARD_MODEL_CK_F64) {
      const double *p = a[k].p;
      for (uint64_t i = 0; i < a[k].count; ++i)
        if (!isfinite(p[i])) return CK_BAD("%s[%llu] is not finite", a[k].name, (unsigned long long)i);
    }
  const int32_t nc = m->nwall + ni;
  if (m->h_rowptr[0] != 0) return CK_BAD("h_rowptr[0] = %d", (int)m->h_rowptr[0]);
  for (int32_t i = 0; i < nc; ++i) {
    const int64_t len = (int64_t)m->h_rowptr[i + 1] - m->h_rowptr[i];
    if (len < 1 || len > 2)
      return CK_BAD("constraint row %d: h_rowptr %d..%d", (int)i, (int)m->h_rowptr[i], (int)m->h_rowptr[i + 1]);
  }
  for (int32_t i = 0; i < m->nwall; ++i)
    if (m->h_rowptr[i + 1] - m->h_rowptr[i] != 1 || m->h_col[m->h_rowptr[i]] != wall_col[i])
      return CK_BAD("wall row %d differs from the case's", (int)i);
  for (int32_t f = 0; f < m->nfacet; ++f)
    if (m->facet_iface[f] < -1 || m->facet_iface[f] >= ni)
      return CK_BAD("facet_iface[%d] = %d outside -1..%d", (int)f, (int)m->facet_iface[f], (int)ni - 1);
  for (int32_t i = 0; i < ni; ++i) {
    const int32_t j = m->if_node[i], t = m->if_twin[i], r = m->h_rowptr[m->nwall + i];
    if (j < 1 || j > nn - 2) return CK_BAD("if_node[%d] = %d outside the internal nodes 1..%d", (int)i, (int)j, (int)nn - 2);
    if (t != nn + i) return CK_BAD("if_twin[%d] = %d, expected %d", (int)i, (int)t, (int)(nn + i));
    if (m->facet_iface[j - 1] != i) return CK_BAD("interface %d and facet %d disagree", (int)i, (int)j - 1);
    if (m->h_rowptr[m->nwall + i + 1] - r != 2 || m->h_col[r] != j || m->h_col[r + 1] != t || m->h_val[r] != -1.0 ||
        m->h_val[r + 1] != 1.0)
      return CK_BAD("constraint row of interface %d does not join DOFs %d and %d", (int)i, (int)j, (int)t);
  }
  int32_t used = 0;
  for (int32_t f = 0; f < m->nfacet; ++f) used += m->facet_iface[f] >= 0;
  if (used != ni) return CK_BAD("%d facets hold an interface, %d interfaces", (int)used, (int)ni);
  for (int32_t e = 0; e < m->nel; ++e) {
    const int32_t i = e >= 1 && e - 1 < m->nfacet ? m->facet_iface[e - 1] : -1;
    const int32_t want = i >= 0 ? m->if_twin[i] : e;
    if (m->el_a[e] != want) return CK_BAD("el_a[%d] = %d, expected %d", (int)e, (int)m->el_a[e], (int)want);
  }
  return SHARD_OK;
}

int shard_model_checkpoint_read(shard_model *m, const shard_model_ck_io *io, shard_msg *msg) {
  ck_array a[32];
  int64_t sc[CK_NSCALARS];
  int st = io->get(io->ctx, "model", SHARD_MODEL_CK_I64, sc, CK_NSCALARS, msg);
  const int32_t niface0 = m->niface;
  int32_t wall_col[4] = {0};
  for (int32_t i = 0; i < m->nwall && i < 4; ++i) wall_col[i] = m->h_col[m->h_rowptr[i]];
  /* the sizes first (the arrays are read for them, into storage grown to hold them) */
  if (st == SHARD_OK && (sc[CK_NIFACE] < niface0 || sc[CK_NIFACE] > m->nfacet))
    st = CK_BAD("%lld interfaces, this case has %d to %d", (long long)sc[CK_NIFACE], (int)niface0, (int)m->nfacet);
  if (st == SHARD_OK && (sc[CK_NDOF] != m->ndof_max - m->nfacet + sc[CK_NIFACE] ||
                         sc[CK_NCON] != m->ncon_max - m->nfacet + sc[CK_NIFACE]))
    st = CK_BAD("%lld DOFs and %lld constraints for %lld interfaces", (long long)sc[CK_NDOF], (long long)sc[CK_NCON],
                (long long)sc[CK_NIFACE]);
  if (st == SHARD_OK) st = model_reserve(m, (int32_t)sc[CK_NIFACE], msg);
  ck_array full[32];
  const int n = st == SHARD_OK ? ck_arrays(m, m->ndof_max, m->ncon_max, m->nfacet, full) : 0;
  ck_arrays(m, m->ndof_cap, m->ncon_cap, m->if_cap, a);
  unsigned char *scratch = NULL;
  for (int i = 0; i < n && st == SHARD_OK; ++i) {
    if (a[i].count >= full[i].count) {
      st = io->get(io->ctx, full[i].name, full[i].type, full[i].p, full[i].count, msg);
      continue;
    }
    if (!scratch && !(scratch = ck_scratch(full, n))) {
      st = shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory reading section '%s'", full[i].name);
      break;
    }
    if ((st = io->get(io->ctx, full[i].name, full[i].type, scratch, full[i].count, msg)) != SHARD_OK) break;
    const size_t z = ck_type_size(full[i].type);
    memcpy(a[i].p, scratch, a[i].count * z);
    for (size_t b = a[i].count * z; b < full[i].count * z; ++b) /* past the state's interfaces: as written, zero */
      if (scratch[b]) {
        st = CK_BAD("%s[%llu] lies past the %lld interfaces of the state and is not zero", full[i].name,
                    (unsigned long long)(b / z), (long long)sc[CK_NIFACE]);
        break;
      }
  }
  free(scratch);
  if (st == SHARD_OK) st = ck_validate(m, sc, niface0, wall_col, a, n, msg);
  if (st != SHARD_OK) return st; /* the model is left inconsistent: the caller destroys it */
  m->ndof = (int32_t)sc[CK_NDOF], m->ncon = (int32_t)sc[CK_NCON], m->niface = (int32_t)sc[CK_NIFACE];
  m->pen_current = 0;
  m->released = (int)sc[CK_RELEASED], m->insertions = sc[CK_INSERTIONS];
  m->coh_trial = 0;
  rebuild_pattern(m);
  m->sys.ndof = m->ndof, m->sys.ncon = m->ncon;
  return SHARD_OK;
}
