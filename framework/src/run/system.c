/* host: the run's part of the system (see system.h). */
#include "run/system.h"

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
  if (r->model_w) { /* the model's own product; "not this time": the host's */
    const int st = shard_contact_operator_model(r->contact, r->model_w, r->model, rows, n, kcoef, out_w, msg);
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

void run_system_teardown(run *r) {
  shard_contact_destroy(r->contact);
  r->contact = NULL;
}
