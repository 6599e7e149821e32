/* host: the state of one `shard run`, shared by the files of run/ (run.c the
 * set-up and the run, loop.c the time loop, energy.c, history.c, summary.c,
 * restart.c, provenance.c). Not a public header. */
#ifndef SHARD_RUN_STATE_H
#define SHARD_RUN_STATE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "case/case.h"
#include "contact/contact.h"
#include "io/checkpoint.h"
#include "io/fsio.h"
#include "io/outputs.h"
#include "loader/plugin_calls.h"
#include "shard/model.h"
#include "run/options.h"
#include "shard/contact_law.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"
#include "shard/tsl.h"


/* ---- files ---------------------------------------------------------------- */

/* a clock's time in s; NAN when the clock is unavailable */
static inline double clock_s(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) return NAN;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* CPU time (user + system) of this process so far, s */
static inline double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* ---- the run context -------------------------------------------------------- */

typedef struct plugin_inst {
  const shard_loaded_plugin *lp;
  shard_params params;
  void *self;
} plugin_inst;

typedef struct run {
  const shard_case *c;
  const shard_registry *reg;
  const shard_run_options *opt;
  shard_diag *diag;
  const shard_model_ops *mops; /* the model (shard/model.h): &mops_host */
  shard_model_ops mops_host;   /* the plugin model_pi.lp's table widened to the host's size */
  void *model;
  shard_system *sys;           /* its system */
  shard_model_info info;       /* what it is (refreshed after the reference is set up) */
  double *restitution;         /* impact laws: e per constraint (sys->restitution) */
  /* the contact services of the system (run/system.c): the model's system
   * ops with contact_operator and lcp_solve (and stiffness, to keep the last
   * K) supplied by the run; sys->host is the run */
  shard_contact *contact;
  shard_system_ops sys_ops;
  const shard_system_ops *model_sys_ops;
  const shard_csr *k_last;
  int model_ready;
  int scope_depth;

  plugin_inst model_pi; /* the model's plugin (lp only: the model is r->model) */
  plugin_inst integ, impact, force, lcp, fallback, tsl;
  plugin_inst *created[6]; /* instances in the order of creation, destroyed in reverse */
  int n_created;
  const shard_integrator_ops *iops; /* &iops_host */
  shard_integrator_ops iops_host;    /* the integrator's table widened to the host's size */
  /* the DOFs and rows the integrator's storage holds (run_system_reserve;
   * ndof_max / ncon_max for an integrator without reserve) */
  int32_t integ_ndof_cap, integ_ncon_cap;
  /* the DOFs u_prev, v_prev and the rows gap hold (run_system_reserve) */
  int32_t state_ndof_cap, state_ncon_cap;
  int32_t rest_cap; /* the rows restitution (and kin_vn, kin_gap) hold (run_state_reserve) */
  shard_tsl_ops tsl_ops; /* the law's table widened to the host's size (slots past its ops_size NULL) */
  /* a velocity-dependent impact law (SHARD_CAP_VELOCITY_DEPENDENT), called
   * before every step with the kinematics in kin_vn, kin_gap (ncon_max each);
   * NULL for a constant law, called once at set-up */
  const shard_contact_law_ops *impact_vd;
  double *kin_vn, *kin_gap;

  double T, dt, dt_c, dt_bulk, dt_c_default, dt_c_paper, max_spring, energy_guard;
  double guard_swing; /* 1/(1 - (dt/dt_c_default)^2): how far E may exceed 𝓗 in a stable run (Newmark forms) */
  double max_drift;   /* time.max_balance_drift */
  int beyond_stable;  /* a conditionally stable integrator at dt > dt_c_default (time.allow_unstable) */
  int64_t nsteps, every;
  double interval;

  /* previous state for increments */
  double *u_prev, *v_prev, *gap;
  int fext_any; /* a body force: the external work needs every DOF's du (else only the driven ones') */
  int impulses; /* impact-law integrator: its impulses' work needs v_prev (force-law ones publish none) */

  /* energies */
  double E0, W_ext, W_abs, C_dis, H0, B0, drift_max, energy_max;
  double kinetic, elastic, penalty, H, drift, coh_rev, coh_work, release_offset, release_time;
  double D_num, E_init, G0;   /* numerical dissipation (MJ), initial E and G for the balance origin */
  int32_t energy_form;        /* the integrator's SHARD_ENERGY_* (from its first step) */
  double reac[2];            /* reactions of the prescribed DOFs at the previous step */
  int release_mode;          /* 0 never, 1 external work, 2 time, 3 first insertion */
  int64_t release_step;
  double dw_last;

  /* contact statistics */
  int64_t lcp_iterations, lcp_blocks, lcp_fallbacks, contact_steps;
  int32_t max_active, prev_active, max_block;
  double lcp_res_max, max_penetration, max_penetration_step;

  int64_t rows;
  int64_t ck_step; /* the step of the checkpoint this block is part of (a second copy of the header's) */
  double next_out;
  double stop_next, stop_last_g, stop_time; /* stopping rule: next check, dissipation at the last check */
  int stop_quiet;                           /* checks in a row below 1e-3 */
  double wall_loop_done; /* loop wall time up to the last checkpoint, over every attempt */
  int64_t restarts;      /* times the run was continued from a checkpoint */
  int64_t max_inserted;  /* most facets inserted in one step (all at once: nucleation not resolved in time) */
  double max_inserted_time;
  double insert_offset;  /* jumps of the algorithmic energy at insertions (the model's new a), carried by the balance */
  int aMa_known;         /* aMa_value is a^T M a of the current a (the loop measured it, no insertion since) */
  double aMa_value;
  /* ---- end of the checkpointed block (plain data from E0 to here) ---- */

  FILE *hist;
  char hist_tmp[4096];
  uint32_t hist_crc;    /* CRC-32 of the history's first hist_crc_len bytes (for the checkpoints) */
  int64_t hist_crc_len;
  double wall_setup, wall_loop;
  double cpu_loop; /* CPU time of this attempt's loop (user + system) */
  double loop_t0, wall_loop_prior; /* this attempt's loop start; loop time of earlier attempts */
  int continuing;                   /* --restart, or --resume with a checkpoint of this run */
  int64_t k_start, checkpoint_every;
  int fields_on;         /* the model writes field snapshots / the space-time record */
  double fields_interval, fields_next;
  int spacetime;
  int probes;                                  /* output.probes given: the model writes probes.csv */
  double probe_from, probe_to, probe_interval; /* the window [s] and the time between samples */
  double probe_next;                           /* time of the next sample: probe_from + probe_k probe_interval */
  int64_t probe_k;
  int32_t probe_stride;
  int probe_open; /* the model's probe file is open */
  double stop_interval; /* > 0: dissipation_settled stopping rule */
  char run_hash[65];
  int stopped; /* stopped on request (opt->stop) after the last step */
} run;

#define RUN_CK_BEGIN offsetof(run, E0)
#define RUN_CK_END offsetof(run, hist)

/* ---- checkpoints (docs/cases.md#checkpoints---restart-and---resume) -------------------------------------------------------------------
 * DIR/checkpoint.bin, written atomically, in the container of checkpoint.h:
 * run hash, step, the length, row count and CRC-32 of the partial history it
 * continues, then the model's arrays and the run's accumulators as sections.
 * A restart rebuilds the run from DIR/case.resolved.yaml exactly as the
 * first time, checks the checkpoint against it (checksum, then every count,
 * index and flag) and the partial history against the checkpoint, then
 * overwrites the state: the continuation is bit for bit the uninterrupted
 * run. Anything that does not check out is refused: "checkpoint FILE:
 * corrupt (what)", exit 2. */
#define HIST_PARTIAL ".history.csv.partial" /* the history until the run ends (then history.csv) */

#endif
