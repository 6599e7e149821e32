/* shard — the model ABI: what the host asks of a mechanical model
 * (SHARD_KIND_MODEL plugins; docs/plugins.md, "Models").
 *
 * A model is built from its case section, resolved against its parameter
 * specs (shard_model_args), into a shard_system (shard/system.h: DOFs,
 * lumped mass, force, stiffness, constraint rows of any width and gaps; the
 * host adds the contact services, contact_operator and lcp_solve, and owns
 * sys->host). It answers everything the run needs that depends on what the
 * model is: its scales and stable step, its energies, its prescribed
 * motion, its fracture topology (insertion, fragments), its analytic
 * reference, its history columns, summary keys and extra output files
 * (shard/outputs.h), its field snapshots and its checkpoint state. The host
 * has no branch on the kind of model and reads no field of one.
 *
 * The descriptor (shard/plugin.h) of a model has kind SHARD_KIND_MODEL, its
 * case keys as `params` (the `model` section: model.type names the plugin)
 * and a `const shard_model_ops *` as ops. One .so may hold several models
 * sharing their code (plugins/models/bar: `particle` and `bar`). */
#ifndef SHARD_MODEL_H
#define SHARD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "shard/params.h"
#include "shard/contact_law.h"
#include "shard/outputs.h"
#include "shard/plugin.h"
#include "shard/system.h"
#include "shard/tsl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* shard_model_info.flags */
#define SHARD_MODEL_FRACTURE 0x1u  /* the case has cohesive fracture (a TSL is attached) */
#define SHARD_MODEL_INSERTION 0x2u /* new interfaces may be inserted during the run */

/* What the run needs to know of a model once it is built. */
typedef struct shard_model_info {
  const char *name;     /* "particle", "bar", "chain" */
  unsigned flags;       /* SHARD_MODEL_* */
  unsigned out_flags;   /* the `when` bits (shard/outputs.h) of the columns and keys this run writes */
  int32_t n_facets;     /* facets that may hold an interface (0 without fracture) */
  int32_t n_presc;      /* prescribed DOFs (0..2) */
  int32_t presc_dof[2]; /* which */
  const double *fext;   /* constant external force per DOF (ndof), or NULL when it is zero */
  int32_t w_row_degree; /* most rows of W = H M^-1 (M - c K) M^-1 H^T a constraint row couples with */
  int32_t dim;          /* DOFs per node, DOF d along axis d % dim (0 or 1: one axis; 2: x, y interleaved) */
  int32_t h_row_width;  /* most entries a constraint row of H has (0: 2) */
} shard_model_info;

/* Energies of the current state [J]. */
typedef struct shard_model_energy {
  double kinetic, elastic, penalty;
  double cohesive_reversible, cohesive_work; /* 0 without fracture */
} shard_model_energy;

/* Stable step estimates (docs/theory.md §8). */
typedef enum shard_model_step {
  SHARD_STEP_DEFAULT = 0, /* 2 / sqrt(lambda_max(M^-1 K_max)) */
  SHARD_STEP_PAPER,       /* the paper's formula */
  SHARD_STEP_BULK         /* h_min / c of the bulk alone */
} shard_model_step;

/* When prescribed motion ends (docs/theory.md §13). */
typedef struct shard_model_release_rule {
  int mode;    /* 0 never, 1 when the step's external work turns negative, 2 at `time`,
                  3 at the end of the step of the first insertion */
  double time; /* mode 2 */
} shard_model_release_rule;

/* What the run passes to the summary: its own measures the model's keys use. */
typedef struct shard_model_summary_in {
  double dt;
  double cohesive_work, cohesive_reversible; /* [J] */
  int64_t max_step_insertions;
  double max_step_insertions_time;
} shard_model_summary_in;

/* What the run passes to a history row: time, step, the gaps of the last
 * measure and the energies of the state. */
typedef struct shard_model_row_in {
  double t, dt;
  const double *gaps;
  const shard_model_energy *energy;
} shard_model_row_in;

/* The summary writer (summary.yaml's dotted keys; NAN is written `~`). */
typedef struct shard_summary_writer {
  void *ctx;
  void (*num)(void *ctx, const char *key, double x);   /* 17 significant digits */
  void (*integer)(void *ctx, const char *key, long long x);
  void (*word)(void *ctx, const char *key, const char *word);
} shard_summary_writer;

/* The model's outputs as data (shard/outputs.h): its history columns (after
 * the run's own, in this order), its summary keys (after the run's) and the
 * CSV files it writes; a field is written when its `when` bits are among the
 * run's flags (info.out_flags). when_words names the model's own bits
 * (SHARD_OUT_MODEL_BIT(k): when_words[k]) for the docs. */
typedef struct shard_model_outputs {
  const shard_out_table *history;
  const shard_out_table *summary;
  const shard_out_table *const *files;
  size_t n_files;
  const char *const *when_words; /* SHARD_OUT_MODEL_BITS entries, NULL where unused; NULL: none */
  /* other files the model may write into the run directory (NULL-terminated;
   * NULL: none): the host removes them, with the files above, before a run
   * starts, so that an earlier run's cannot pass for this one's */
  const char *const *extra_files;
} shard_model_outputs;

/* Checkpoint section types */
typedef enum shard_model_ck_type {
  SHARD_MODEL_CK_I32 = 1,
  SHARD_MODEL_CK_I64 = 2,
  SHARD_MODEL_CK_F64 = 3,
  SHARD_MODEL_CK_BYTES = 4
} shard_model_ck_type;

/* Checkpoint sections, given by the run to ck_write and ck_read: `put` appends
 * a section (a shard_model_ck_type, count elements),
 * `get` reads the next one, which must have this name, type and count
 * (SHARD_ERR_INPUT with what differs in msg). */
typedef struct shard_model_ck_io {
  void *ctx;
  void (*put)(void *ctx, const char *name, uint32_t type, const void *data, uint64_t count);
  int (*get)(void *ctx, const char *name, uint32_t type, void *dst, uint64_t count, shard_msg *msg);
} shard_model_ck_io;

/* the most history columns a model may declare */
#define SHARD_MODEL_HISTORY_MAX 64

/* What a model is built from: its case section and the fracture section's
 * own keys, resolved against their specs (defaults in, expressions
 * evaluated, list values in `list`), and the case file for messages. */
typedef struct shard_model_args {
  const char *type;              /* model.type */
  const shard_params *params;    /* the model section's keys */
  const shard_params *fracture;  /* the fracture section's own keys, NULL without one */
  const char *case_path;
} shard_model_args;

/* Every slot is required except case_derived and the fields_* group (all
 * five or none); the registry refuses a model that lacks one. A model that
 * cannot take a law or a checkpoint says so from set_force_law / set_tsl /
 * ck_read with SHARD_ERR_INPUT. */
typedef struct shard_model_ops {
  const shard_model_outputs *outputs;
  /* Build; *out_sys: the model's system (integrators see only it). Bad
   * input: SHARD_ERR_INPUT naming the key in msg. */
  int (*create)(const shard_model_args *args, void **out_self, shard_system **out_sys, shard_msg *msg);
  void (*destroy)(void *self); /* accepts NULL */
  void (*info)(const void *self, shard_model_info *out);
  /* Scales handed to the plugins at create time, by name (shard/plugin.h;
   * valid while the model lives). */
  shard_scales (*scales)(const void *self);
  /* Derived names of case expressions the model knows (c, h_mean, h_min,
   * t_b, mass_total): 1 when the model has the name, its value (possibly
   * not finite: the caller checks) in *out; 0 for a name it does not know.
   * `why` explains into buf why the value v of a derived name (its own or
   * the run's stable steps dt_c, dt_bulk, ...) is not a finite positive
   * number. */
  int (*derived)(const void *self, const char *name, double *out);
  /* Names the model derives from its case keys before it is built (the
   * fragmentation scales of docs/theory.md §13: sigma_c, g_c, s0, t0, eps0,
   * s_grady, s_bar), for expressions in the case itself: 1 with *out, 0 when
   * this case has none. `number` reads a key of the case by path
   * ("model.young", "fracture.g_c"): 1 with its value, 0 when absent. */
  int (*case_derived)(const char *name, int (*number)(void *ctx, const char *path, double *out), void *ctx,
                      double *out);
  void (*why)(const void *self, const char *name, double v, char *buf, size_t n);

  /* Laws: a force law (penalty) enters force() and stiffness(); a TSL makes
   * the model fracture and creates the case's initial interfaces. */
  void (*set_force_law)(void *self, const shard_contact_law_ops *ops, void *law);
  /* ops: the host's copy of the law's table, at the host's size (its
   * optional appended slots, such as shear_weight, NULL when the plugin's
   * ops_size does not cover them); valid while the run lives. */
  int (*set_tsl)(void *self, const shard_tsl_ops *ops, void *tsl, int zero_in_compression, shard_msg *msg);
  /* The release rule of the prescribed motion (from its keys). */
  void (*release_rule)(const void *self, shard_model_release_rule *out);

  /* Stable step [s] (INFINITY when nothing limits it, NAN out of memory);
   * max_spring: the largest stiffness [N/m] a constraint spring may take. */
  double (*stable_step)(const void *self, shard_model_step which, double max_spring);

  /* After each step: commit the cohesive history; insert interfaces
   * (returns how many, *first_dof the first new DOF; a model may grow its
   * storage here, between steps, rather than hold every interface's from the
   * start: -1 when it ran out of memory doing so, nothing inserted, and the
   * host stops the run with what it computed); gaps at u into `gaps`
   * (and the force law's state for the measures below). commit changes
   * neither the state u, v, a nor the masses: the host reads a^T M a of the
   * step's state before it, for H's jump at an insertion. */
  void (*commit)(void *self);
  int32_t (*insert)(void *self, int32_t *first_dof);
  void (*measure)(void *self, const double *u, double *gaps);
  void (*energy)(const void *self, shard_model_energy *out);
  /* Reactions [N] of the prescribed DOFs at u (order of info.presc_dof);
   * release the prescribed DOFs; whether they are released. */
  void (*reactions)(void *self, const double *u, double out[2]);
  void (*release)(void *self);
  int (*released)(const void *self);
  /* Fully broken interfaces (fragments = broken + 1 in 1D); 0 without fracture. */
  int32_t (*broken)(const void *self);

  /* Analytic reference: set up from reference.type (NULL/"auto": the
   * model's default; "none"; or a named one, refused when it does not fit)
   * with the impact law's restitution e (0 without one, NAN when it depends
   * on the velocity); per step, the error sums at time t. info.out_flags
   * then includes its columns. */
  int (*reference_setup)(void *self, const char *type, double e, double dt, shard_msg *msg);
  void (*reference_step)(void *self, double t);

  /* Outputs. history: the model's columns of a history row into x (in the
   * order of outputs->history; NAN = empty) at time t with the gaps of the
   * last measure;
   * summary: the model's keys; files: its extra files (fragments,
   * interfaces) into dir, written atomically. */
  void (*history)(void *self, const shard_model_row_in *in, double *x);
  int (*summary)(void *self, const shard_model_summary_in *in, const shard_summary_writer *w);
  int (*files)(void *self, const char *dir, unsigned out_flags, shard_msg *msg);

  /* Field snapshots (ParaView) and the space-time picture; NULL ops when
   * the model has none. open: fields every `interval` (> 0) and/or the
   * space-time record; write / record at t; finish at the end (renders);
   * note: a remark for the summary or NULL. */
  int (*fields_open)(void *self, const char *dir, int fields, int spacetime, shard_msg *msg);
  int (*fields_write)(void *self, double t, shard_msg *msg);
  void (*spacetime_record)(void *self, double t);
  int (*fields_finish)(void *self, shard_msg *msg);
  const char *(*fields_note)(const void *self);

  /* Checkpoints: the model's mutable state as sections of the checkpoint
   * container; read checks every count, index and number against the model
   * as built from the case and refuses (SHARD_ERR_INPUT, what in msg) a
   * state it cannot be in. */
  uint32_t (*ck_sections)(void *self);
  void (*ck_write)(void *self, const shard_model_ck_io *io);
  int (*ck_read)(void *self, const shard_model_ck_io *io, int64_t step, double dt, shard_msg *msg);

  /* Stress probes (output.probes; appended after ck_read, so the host reads
   * them only from an ops table whose ops_size holds them): all three or
   * none (NULL: the model has no probes). open: the probe file in dir for
   * every `stride`-th facet (0, stride, 2 stride, ... of info.n_facets),
   * allocating all it needs; write: one sample of every probed facet at t
   * (allocates nothing); close: publish the file (done != 0: the run went
   * to its end or stopped normally) or remove it, and free. close(NULL-ish
   * state) after a failed open is fine. */
  int (*probe_open)(void *self, const char *dir, int32_t stride, shard_msg *msg);
  int (*probe_write)(void *self, double t, shard_msg *msg);
  int (*probe_close)(void *self, int done, shard_msg *msg);

  /* The contact operator W' = H_R M^-1 (M - kcoef K) M^-1 H_R^T offered by
   * a model that knows its structure (optional, appended after probe_close:
   * the host reads it only from an ops table whose ops_size holds it, and
   * otherwise, or when it is NULL, forms W' itself from H, M^-1 and K).
   * rows[0..n): the active constraint rows, in the order of W's rows and
   * columns; K: the model's last stiffness() (kcoef 0: none). Writes
   * w_rowptr[0..n] and, per row, its columns ascending in w_col and values
   * in w_val (room for cap entries), leaving out exact zeros off the
   * diagonal and the diagonal only when the row reaches no mass. Equal to
   * the host's product at least to round-off (the bar's: bit for bit).
   * SHARD_ERR_UNSUPPORTED (msg set):
   * not this time, the host's product serves; any other failure stops the
   * step. Allocates nothing. */
  int (*contact_operator)(void *self, const int32_t *rows, int32_t n, double kcoef, int32_t *w_rowptr,
                          int32_t *w_col, double *w_val, int64_t cap, shard_msg *msg);
} shard_model_ops;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif
