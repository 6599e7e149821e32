/* host: the run's part of the system (see system.h). */
#include "run/system.h"

#include <stdlib.h>
#include <string.h>

#include "loader/plugin_calls.h"

/* the model's stiffness, its K kept for the contact operator */
static int run_stiffness(shard_system *sys, const double *u, const shard_csr **out_k, shard_msg *msg) {
  run *r = sys->host;
  const int st = r->model_sys_ops->stiffness(sys, u, out_k, msg);
  if (st == SHARD_OK) r->k_last = *out_k;
  return st;
}

static int run_contact_operator(shard_system *sys, const int32_t *rows, int32_t n, double kcoef,
                                const shard_csr **out_w, shard_msg *msg) {
  run *r = sys->host;
  if (kcoef != 0.0 && !r->k_last)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "contact_operator with kcoef = %g before any stiffness() call", kcoef);
  if (r->mops->contact_operator) { /* the model's own product; "not this time": the host's */
    const int st = shard_contact_operator_model(r->contact, r->mops->contact_operator, r->model, rows, n, kcoef, out_w, msg);
    if (st != SHARD_ERR_UNSUPPORTED) return st;
    msg->text[0] = '\0';
  }
  static const shard_csr no_k = {0, 0, NULL, NULL, NULL};
  return shard_contact_operator(r->contact, sys->h, sys->minv, r->k_last ? r->k_last : &no_k, rows, n, kcoef, out_w,
                                msg);
}

static int run_lcp_solve(shard_system *sys, const shard_csr *w, const double *q, uint32_t flags, double *z,
                         shard_msg *msg) {
  run *r = sys->host;
  return shard_contact_lcp_solve(r->contact, w, q, flags, z, sys->stats, msg);
}

int run_system_setup(run *r, shard_msg *msg) {
  shard_system *sys = r->sys;
  /* storage for the rows present now plus headroom; the loop reserves more
   * between steps as the model inserts rows */
  const int st = shard_contact_create_rows(&r->contact, sys->ndof_max, sys->ncon_max > 0 ? sys->ncon_max : 1,
                                           sys->ncon, r->info.h_row_width,
                                           r->info.w_row_degree > 0 ? r->info.w_row_degree : 1, msg);
  if (st != SHARD_OK) return st;
  r->model_sys_ops = sys->ops;
  r->sys_ops = *sys->ops;
  r->sys_ops.stiffness = run_stiffness;
  r->sys_ops.contact_operator = run_contact_operator;
  r->sys_ops.lcp_solve = run_lcp_solve;
  sys->ops = &r->sys_ops;
  sys->host = r;
  return SHARD_OK;
}

/* the next capacity for `need` items: up by half (and 64) at least, at most max */
static int32_t grown_cap(int32_t cap, int32_t need, int32_t max) {
  int64_t c = (int64_t)cap + cap / 2 + 64;
  if (c < need) c = need;
  return c > max ? max : (int32_t)c;
}

/* *p from n0 to n1 elements (and a spare), the new ones zero; 0 out of memory (*p as it was) */
static int grow_doubles(double **p, int32_t n0, int32_t n1) {
  double *q = realloc(*p, ((size_t)n1 + 1) * sizeof(double));
  if (!q) return 0;
  memset(q + n0 + 1, 0, (size_t)(n1 - n0) * sizeof(double));
  *p = q;
  return 1;
}

int run_state_reserve(run *r, shard_msg *msg) {
  shard_system *sys = r->sys;
  if (sys->ncon > r->rest_cap) {
    const int32_t c0 = r->rest_cap, nc = grown_cap(c0, sys->ncon, sys->ncon_max);
    if (!grow_doubles(&r->restitution, c0, nc) ||
        (r->kin_vn && (!grow_doubles(&r->kin_vn, c0, nc) || !grow_doubles(&r->kin_gap, c0, nc)))) {
      sys->restitution = r->restitution;
      return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory growing the restitutions from %d to %d constraint rows",
                           (int)c0, (int)nc);
    }
    sys->restitution = r->restitution;
    if (r->kin_vn && r->impact.self) { /* the new rows' e, from zero kinematics as the set-up gave rows not there yet */
      const shard_impact_kinematics k = {.struct_size = sizeof k, .n = nc - c0, .v_n = r->kin_vn + c0,
                                         .gap = r->kin_gap + c0};
      shard_contact_law_restitution(shard_contact_law_ops_of(r->impact.lp->desc), r->impact.self, &k,
                                    r->restitution + c0);
    }
    r->rest_cap = nc;
  }
  if (sys->ndof > r->state_ndof_cap) {
    const int32_t nd = grown_cap(r->state_ndof_cap, sys->ndof, sys->ndof_max);
    if (!grow_doubles(&r->u_prev, r->state_ndof_cap, nd) || !grow_doubles(&r->v_prev, r->state_ndof_cap, nd))
      return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory growing the previous state from %d to %d DOFs",
                           (int)r->state_ndof_cap, (int)nd);
    r->state_ndof_cap = nd;
  }
  if (sys->ncon > r->state_ncon_cap) {
    const int32_t nc = grown_cap(r->state_ncon_cap, sys->ncon, sys->ncon_max);
    if (!grow_doubles(&r->gap, r->state_ncon_cap, nc))
      return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory growing the gaps from %d to %d constraint rows",
                           (int)r->state_ncon_cap, (int)nc);
    r->state_ncon_cap = nc;
  }
  return SHARD_OK;
}

int run_system_reserve(run *r, shard_msg *msg) {
  const shard_system *sys = r->sys;
  int sst = shard_contact_reserve(r->contact, sys->ncon, msg);
  if (sst == SHARD_OK) sst = run_state_reserve(r, msg);
  if (sst != SHARD_OK) return sst;
  if (!shard_integrator_has_reserve(r->iops) || (sys->ndof <= r->integ_ndof_cap && sys->ncon <= r->integ_ncon_cap))
    return SHARD_OK;
  const int32_t nd = sys->ndof > r->integ_ndof_cap ? grown_cap(r->integ_ndof_cap, sys->ndof, sys->ndof_max)
                                                   : r->integ_ndof_cap;
  const int32_t nc = sys->ncon > r->integ_ncon_cap ? grown_cap(r->integ_ncon_cap, sys->ncon, sys->ncon_max)
                                                   : r->integ_ncon_cap;
  const int st = shard_integrator_reserve(r->iops, r->integ.self, sys, nd, nc, msg);
  if (st != SHARD_OK) {
    shard_msg_prepend(msg, "integrator '%s': growing its storage from %d to %d DOFs and %d to %d constraint rows",
                      r->integ.lp->desc->name, (int)r->integ_ndof_cap, (int)nd, (int)r->integ_ncon_cap, (int)nc);
    return st;
  }
  r->integ_ndof_cap = nd, r->integ_ncon_cap = nc;
  return SHARD_OK;
}

void run_system_teardown(run *r) {
  shard_contact_destroy(r->contact);
  r->contact = NULL;
}
