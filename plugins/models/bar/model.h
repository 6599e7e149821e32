/* model plugin `bar` (and `particle`): the engine behind shard_system (docs/theory.md §9).
 *
 * One representation serves the particle and the 1D P1 bar: DOFs with a
 * lumped mass and a constant external force, linear springs between DOF
 * pairs (bar elements), and constraint rows H with gaps g = g0 + H u (walls,
 * floor; later crack interfaces). Everything is preallocated for ndof_max and
 * ncon_max at build time; the stiffness has a fixed sparsity pattern. */
#ifndef SHARD_BAR_MODEL_H
#define SHARD_BAR_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "shard/model.h"
#include "shard/contact_law.h"
#include "shard/plugin.h"
#include "shard/system.h"
#include "shard/tsl.h"

/* The model's scales, zero where it has none (a particle has only mass_min);
 * plugins see them by name through shard_model_named_scales. */
typedef struct shard_model_scales {
  double young;    /* E [Pa] */
  double density;  /* rho [kg/m^3] */
  double area;     /* A [m^2] */
  double h_mean;   /* mean element length [m] */
  double h_min;    /* smallest element length [m] */
  double mass_min; /* smallest nodal mass [kg] */
  double length;   /* model length [m] */
} shard_model_scales;

typedef enum shard_model_kind { SHARD_MODEL_PARTICLE = 1, SHARD_MODEL_BAR = 2 } shard_model_kind;

typedef struct shard_model {
  shard_system sys; /* first member: a shard_system* is a shard_model* */
  shard_model_kind kind;
  shard_model_scales scales;
  int32_t ndof, ndof_max, ncon, ncon_max;
  /* Storage grows with the interfaces (model_reserve, between steps): the
   * per-interface arrays hold if_cap interfaces, the per-DOF ones nn + if_cap
   * DOFs (ndof_cap), the per-row ones nwall + if_cap rows (ncon_cap); each
   * array has one spare element, zero like everything past the used part. */
  int32_t if_cap, ndof_cap, ncon_cap;

  /* per DOF */
  double *X;     /* reference position (bar), 0 for the particle */
  double *mass;
  double *minv;
  double *fext;  /* constant external force (gravity) */

  /* bar elements: springs k_e = EA/h_e between DOFs el_a[e] and el_b[e] */
  int32_t nel;
  int32_t *el_a, *el_b;
  double *el_k, *el_h;

  /* constraint rows (at most 2 entries each): H CSR + g0 */
  int32_t *h_rowptr, *h_col;
  double *h_val;
  double *g0;
  shard_csr h;
  int32_t wall_left, wall_right, floor; /* constraint index or -1 */

  /* stiffness K: fixed pattern, value positions of each element / constraint block */
  int32_t *k_rowptr, *k_col, *k_len;
  int32_t *con_order; /* sys.con_order: constraints by lowest DOF */
  double *k_val;
  /* the elements' part of k_val (el_k never changes): formed once per
   * pattern (k_base_ok cleared by rebuild_pattern), then copied each call */
  double *k_base;
  int k_base_ok;
  shard_csr k;
  int32_t *el_pos;  /* 4 per element: (a,a) (a,b) (b,a) (b,b) */
  /* per DOF its elements (2 slots): 2e when it is el_a[e], 2e + 1 when
   * el_b[e], ascending, -1 unused; el_gather = every DOF in two elements at
   * most. The force is then formed per DOF from
   * its elements in element order (the sums of the loop over the elements,
   * bit for bit), which threads can share (shard/parallel.h) */
  int32_t *el_inc;
  int el_gather;
  int32_t *con_pos; /* 4 per constraint: same with its two DOFs (or 1 used) */
  /* W' in closed form (shard_model_contact_operator): whether no DOF is in
   * two rows; per DOF the local index of the active row that has it (-1
   * between calls) and that row's H entry there */
  int dof_unique;
  int32_t *w_dof_j;
  double *w_dof_h;

  /* extrinsic cohesive fracture (docs/theory.md §8): candidate facets at internal nodes */
  shard_params fr;            /* the fracture section's keys (specs NULL without one; storage: the case) */
  const char *path;           /* the case file, for messages */
  int fracture;               /* the case has a fracture section */
  int insertion;              /* new insertions allowed */
  double g_c;                 /* fracture energy [J/m^2] */
  int32_t nfacet;             /* internal nodes 1..nn-2 -> facet j-1 */
  double *facet_strength;     /* per facet */
  int32_t *facet_iface;       /* interface index or -1 */
  int32_t nwall;              /* constraint rows before the interfaces */
  int32_t niface;             /* active interfaces (rows nwall .. nwall+niface-1) */
  int32_t *if_node, *if_twin; /* left copy (original node) and twin DOF */
  double *if_sigma, *if_deltac, *if_dmax, *if_delta, *if_t, *if_k, *if_rev;
  double *if_delta_prev, *if_t_prev, *if_work;
  double *if_step_max; /* largest |delta_{n+1} - delta_n| / delta_c so far */
  const shard_tsl_ops *tsl;
  void *tsl_self;
  double tsl_kmax;            /* largest cohesive stiffness [N/m] (inf: uncapped) */
  int tsl_zero_in_compression; /* penalty contact: no cohesive traction for delta < 0 */
  int coh_trial;               /* if_* hold a trial evaluation (no commit since) at openings if_delta */
  int64_t insertions;
  int insert_copy_a;           /* model.insertion_acceleration = copied: the copies keep their source's a */
  double *f_insert;            /* per DOF: the force after an insertion (grown with the DOFs) */

  /* prescribed DOFs (loading) */
  int32_t n_presc;
  int32_t presc_dof[2];
  double presc_v[2];
  double presc_minv[2];
  int released;
  double wall_h[2]; /* coefficient of wall row i while it waits for the release (0: never held) */

  /* the initial velocity field (bar): v = v_left on the elements whose midpoint
   * lies left of v_split (all of them when v_split = +inf), 0 on the others,
   * plus strain_rate (X - x_mid); a DOF between both kinds takes the
   * mass-weighted mean of its elements */
  double init_v_left, init_v_split, init_rate, init_xmid;

  /* force-law contact (penalty), NULL for impact laws */
  const shard_contact_law_ops *force_law;
  void *force_law_self;
  double *pen_f, *pen_k, *pen_e, *gap_scratch; /* per constraint */
  int pen_current; /* gap_scratch and pen_* hold the last force()/stiffness() evaluation, with the rows of now */

  /* impact law restitution per constraint */
  double *restitution;
  double *impulse;
  shard_step_stats stats;

} shard_model;

/* W' = H_R M^-1 (M - kcoef K) M^-1 H_R^T on the constraint rows
 * rows[0..n) (local order), with the K of the last stiffness() call, into
 * w_rowptr (n + 1), w_col and w_val (room for cap entries): per row its
 * columns ascending, the exact zeros off the diagonal left out, the
 * diagonal left out only when the row reaches no mass (every M^-1 entry
 * zero), as the host's product does. Each DOF being in one row at most, the
 * row holding a DOF is known without a search: a row costs its H entries
 * times their K rows, with no symbolic product, and adds the host's
 * products in the host's order (the same bits). SHARD_ERR_UNSUPPORTED (msg
 * set) when a DOF is in two rows or a row couples to more rows than it
 * handles; SHARD_ERR_INTERNAL for a row out of range or more than cap
 * entries. O(active rows), allocates nothing. */
int shard_model_contact_operator(shard_model *m, const int32_t *rows, int32_t n, double kcoef, int32_t *w_rowptr,
                                 int32_t *w_col, double *w_val, int64_t cap, shard_msg *msg);

/* Build from the resolved keys of the case's model and fracture sections
 * (shard/model.h). */
int shard_model_create(const shard_model_args *a, shard_model **out, shard_msg *msg);
void shard_model_destroy(shard_model *m);

/* The scales plugins are created with (shard/plugin.h): the names of
 * docs/plugins.md, a scale the model lacks (zero) answered as absent. Valid
 * while m lives. */
shard_scales shard_model_named_scales(const shard_model *m);
/* The same view of a scales struct alone (valid while *s lives). */
shard_scales shard_model_scales_named(const shard_model_scales *s);

/* Attach the traction-separation law; zero_in_compression: penalty runs
 * (Akantu's rule: no cohesive traction for delta < 0). Creates the initial
 * interfaces of the case (fracture.initial.*). */
int shard_model_set_tsl(shard_model *m, const shard_tsl_ops *ops, void *self, int zero_in_compression,
                        shard_msg *msg);
/* After a step: evaluate the cohesive law at u with commit (history), and
 * accumulate the cohesive work by trapezoids. */
void shard_model_commit(shard_model *m);
/* Insert interfaces on facets whose stress exceeds their strength
 * (docs/theory.md §8); returns how many, *first_dof = first new DOF. O(ndof) when any. */
int32_t shard_model_insert(shard_model *m, int32_t *first_dof);
/* Cohesive energies [J]: reversible, work, dissipation (work - reversible). */
void shard_model_cohesive_energy(const shard_model *m, double *rev, double *work);
/* Fragments (docs/theory.md §8): maximal runs of elements not separated by a fully
 * broken interface; count = 1 + #{d = 1}. Fills up to n_max (out may be
 * NULL) and returns the count. */
typedef struct shard_fragment {
  double x_left, x_right; /* reference extent */
  double size;            /* mass / (rho A) */
  double mass, momentum;
} shard_fragment;
int32_t shard_model_fragments(const shard_model *m, const double *v, shard_fragment *out, int32_t n_max);
int32_t shard_model_broken(const shard_model *m);
/* Reaction forces R = -(f_ext - f_int) on the prescribed DOFs at u, in the
 * order of presc_dof (for the external work, docs/theory.md §12). */
void shard_model_reactions(shard_model *m, const double *u, double out[2]);
/* Release the prescribed DOFs (free expansion). */
void shard_model_release(shard_model *m);

/* Checkpoints: every mutable array and counter of the model as sections of
 * the checkpoint container (checkpoint.h); the run hash guards the case.
 * Reading checks every count, index and number against the model as built
 * from the case and refuses (SHARD_ERR_INPUT, what in msg) a state it cannot
 * be in; the model is then unusable (destroy it). */
uint32_t shard_model_checkpoint_sections(shard_model *m);
void shard_model_checkpoint_write(shard_model *m, const shard_model_ck_io *io);
int shard_model_checkpoint_read(shard_model *m, const shard_model_ck_io *io, shard_msg *msg);

/* Attach the force law (penalty) so that force()/stiffness() include it. */
void shard_model_set_force_law(shard_model *m, const shard_contact_law_ops *ops, void *self);

/* Stable step estimates (docs/theory.md §8). max_spring: the largest stiffness [N/m]
 * a constraint spring may take (penalty), 0 if none. */
double shard_model_dt_default(const shard_model *m, double max_spring);
double shard_model_dt_paper(const shard_model *m, double max_spring);
double shard_model_dt_bulk(const shard_model *m);

/* Energies of the current state (docs/theory.md §12). */
double shard_model_kinetic(const shard_model *m, const double *v);
double shard_model_elastic(const shard_model *m, const double *u);
/* Gaps of every constraint at u (into gaps) and, with a force law, its
 * forces and energies: the measures below read these. Once per step. */
void shard_model_measure(shard_model *m, const double *u, double *gaps);
double shard_model_penalty_energy(const shard_model *m);
/* Contact force [N] of constraint i in the last step: impulse/dt + penalty
 * force at the last shard_model_measure. */
double shard_model_contact_force(const shard_model *m, int32_t i, double dt);
double shard_model_momentum(const shard_model *m, const double *v);
double shard_model_total_mass(const shard_model *m);

/* Facet f (interior node f + 1, between elements f and f + 1): its normal
 * stress, the mean of the two element stresses E (u_b - u_a) / h_e beside it
 * (what the insertion criterion compares with its strength), and its damage
 * min(delta_max / delta_c, 1), 0 without an interface. */
static inline double shard_model_facet_stress(const shard_model *m, int32_t f) {
  const double E = m->scales.young, *u = m->sys.u;
  const int32_t el = f, er = f + 1;
  const double sl = E * (u[m->el_b[el]] - u[m->el_a[el]]) / m->el_h[el];
  const double sr = E * (u[m->el_b[er]] - u[m->el_a[er]]) / m->el_h[er];
  return 0.5 * (sl + sr);
}

static inline double shard_model_facet_damage(const shard_model *m, int32_t f) {
  const int32_t i = m->facet_iface[f];
  if (i < 0) return 0.0;
  if (m->if_dmax[i] >= m->if_deltac[i]) return 1.0;
  return m->if_dmax[i] / m->if_deltac[i];
}

#endif
