/* model plugin `tri2d`: linear elastic P1 triangles in the plane behind the
 * model ABI (shard/model.h).
 *
 * A structured rectangle of nx x ny cells or an annulus of nr x ntheta cells,
 * each cell split in two triangles with alternating diagonals, a disk of nr
 * rings of triangles around a centre fan, interior nodes optionally moved at
 * random, or the triangles of a Gmsh file; plane
 * strain or plane stress, small strain, lumped mass rho t A / 3 per vertex.
 * Node i carries DOFs 2i (x) and 2i+1 (y). K is constant: its CSR pattern and
 * values are built once; the force -K u is assembled element by element
 * (strain, stress, B^T sigma). Rigid walls are half-planes, one constraint
 * row of two entries (the wall's normal) per boundary node facing them:
 * impact laws go through the host's LCP path, a penalty law through force()
 * and stiffness(), each row weighted by its node's tributary boundary length.
 * A crack given in the case (model.crack) splits the vertices on it into
 * copies, with one contact row of four entries per facet end across it and,
 * with a fracture section, a cohesive point there under the TSL; with
 * fracture.insertion, facets break during the run and the vertices split
 * the same way; every copy on a crack gets a row on each wall (docs/theory.md,
 * "Two-dimensional model"). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/rng.h"
#include "io/fsio.h"
#include "io/outputs.h"
#include "loader/plugin_calls.h"
#include "shard/model.h"

/* ---- the keys of its case section ---- */

#define R SHARD_PARAM_REAL
#define I SHARD_PARAM_INT
#define C SHARD_PARAM_CHOICE
#define REQ SHARD_PARAM_REQUIRED
#define POS SHARD_PARAM_MIN_EXCLUSIVE

static const shard_param_spec tri2d_specs[] = {
    {"plane", C, "stress", 0, 0, "", 0, "stress|strain",
     "plane stress (thin plate of the given thickness) or plane strain (thickness: a slice, usually 1 m)"},
    {"young", R, 0, 0, SHARD_INF, "Pa", REQ | POS, 0, "Young's modulus E"},
    {"poisson", R, "0", 0, 0.5, "1", SHARD_PARAM_MAX_EXCLUSIVE, 0, "Poisson's ratio nu, in [0, 0.5)"},
    {"density", R, 0, 0, SHARD_INF, "kg/m^3", REQ | POS, 0, "mass density rho"},
    {"thickness", R, "1", 0, SHARD_INF, "m", POS, 0, "out-of-plane thickness t (plane strain: the slice, 1 m)"},
    {"mesh.shape", C, "rectangle", 0, 0, "", 0, "rectangle|annulus|disk|file",
     "built-in mesh: rectangle (from the origin), annulus or disk (centred on the origin); file: mesh.file"},
    {"mesh.file", SHARD_PARAM_STRING, 0, 0, 0, "", 0, 0,
     "file: a Gmsh mesh (.msh, ASCII format 2.2 or 4.1; its 3-node triangles, z ignored), relative to the case file"},
    {"mesh.width", R, 0, 0, SHARD_INF, "m", POS, 0, "rectangle: extent along x, from x = 0"},
    {"mesh.height", R, 0, 0, SHARD_INF, "m", POS, 0, "rectangle: extent along y, from y = 0"},
    {"mesh.nx", I, 0, 1, 1e6, "", 0, 0, "rectangle: cells along x (each cell is two triangles)"},
    {"mesh.ny", I, 0, 1, 1e6, "", 0, 0, "rectangle: cells along y"},
    {"mesh.inner_radius", R, 0, 0, SHARD_INF, "m", POS, 0, "annulus: inner radius"},
    {"mesh.outer_radius", R, 0, 0, SHARD_INF, "m", POS, 0, "annulus: outer radius"},
    {"mesh.radius", R, 0, 0, SHARD_INF, "m", POS, 0, "disk: radius"},
    {"mesh.nr", I, 0, 1, 1e6, "", 0, 0,
     "annulus: cells across the radius; disk: rings of triangles from the centre (at least 2; ring i has 6 i nodes)"},
    {"mesh.ntheta", I, 0, 6, 1e7, "", 0, 0, "annulus: cells around (each cell is two triangles)"},
    {"mesh.perturbation", R, "0", 0, 0.3, "1", 0, 0,
     "interior nodes moved at random by up to this fraction of the cell size along each axis (annulus: radius "
     "and arc; disk: by a vector of up to this fraction of the ring spacing)"},
    {"mesh.seed", I, "1", 0, 9.007199254740992e15, "", 0, 0, "seed of the node perturbation"},
    {"initial.velocity", R, 0, -SHARD_INF, SHARD_INF, "m/s", SHARD_PARAM_LIST, 0,
     "uniform initial velocity [vx, vy] (absent: at rest)"},
    {"initial.strain_rate", R, "0", -SHARD_INF, SHARD_INF, "1/s", 0, 0,
     "added radial initial velocity rate * (X - centre of the mesh's bounding box)"},
    {"initial.region", R, 0, -SHARD_INF, SHARD_INF, "m", SHARD_PARAM_LIST, 0,
     "box [xmin, ymin, xmax, ymax]: the initial velocity is given to the vertices (copies) of the triangles whose "
     "centroid lies in it, the others start at rest (absent: every vertex)"},
    {"crack.from", R, 0, -SHARD_INF, SHARD_INF, "m", SHARD_PARAM_LIST, 0,
     "a crack present at t = 0: one end [x, y] of a straight segment (with crack.to); the interior mesh edges "
     "lying on it are broken (traction-free, contact rows across them)"},
    {"crack.to", R, 0, -SHARD_INF, SHARD_INF, "m", SHARD_PARAM_LIST, 0, "the other end [x, y] of the crack segment"},
    {"walls.left.gap", R, 0, 0, SHARD_INF, "m", 0, 0, "rigid wall x = xmin - gap facing +x (absent: no wall)"},
    {"walls.right.gap", R, 0, 0, SHARD_INF, "m", 0, 0, "rigid wall x = xmax + gap facing -x (absent: no wall)"},
    {"walls.bottom.gap", R, 0, 0, SHARD_INF, "m", 0, 0, "rigid wall y = ymin - gap facing +y (absent: no wall)"},
    {"walls.top.gap", R, 0, 0, SHARD_INF, "m", 0, 0, "rigid wall y = ymax + gap facing -y (absent: no wall)"},
    {"walls.oblique.point", R, 0, -SHARD_INF, SHARD_INF, "m", SHARD_PARAM_LIST, 0,
     "oblique rigid wall: a point [x, y] of its line (with walls.oblique.normal)"},
    {"walls.oblique.normal", R, 0, -SHARD_INF, SHARD_INF, "1", SHARD_PARAM_LIST, 0,
     "oblique rigid wall: its normal [nx, ny], pointing into the side the body stays on (normalised)"},
};

#undef R
#undef I
#undef C
#undef REQ
#undef POS

/* ---- output tables ------------------------------------------------------------------ */

enum { W_LEFT, W_RIGHT, W_BOTTOM, W_TOP, W_OBLIQUE, W_N };
static const char *const wall_name[W_N] = {"left", "right", "bottom", "top", "oblique"};

enum { C_PX, C_PY, C_XMEAN, C_YMEAN, C_VXMEAN, C_VYMEAN, C_F0, C_FCRACK = C_F0 + W_N, C_N };
static const shard_out_field tri2d_history_fields[] = {
    {"momentum_x", SHARD_OUT_NUMBER, "kg m/s", 0, "%.15g", "total linear momentum along x"},
    {"momentum_y", SHARD_OUT_NUMBER, "kg m/s", 0, "%.15g", "total linear momentum along y"},
    {"x_mean", SHARD_OUT_NUMBER, "m", 0, "%.15g", "x of the centre of mass (current positions)"},
    {"y_mean", SHARD_OUT_NUMBER, "m", 0, "%.15g", "y of the centre of mass (current positions)"},
    {"vx_mean", SHARD_OUT_NUMBER, "m/s", 0, "%.15g", "x velocity of the centre of mass"},
    {"vy_mean", SHARD_OUT_NUMBER, "m/s", 0, "%.15g", "y velocity of the centre of mass"},
    {"force_left", SHARD_OUT_NUMBER, "N", 0, "%.15g",
     "normal force of the left wall on the body (impulses / dt or penalty forces; empty without that wall)"},
    {"force_right", SHARD_OUT_NUMBER, "N", 0, "%.15g", "normal force of the right wall (empty without it)"},
    {"force_bottom", SHARD_OUT_NUMBER, "N", 0, "%.15g", "normal force of the bottom wall (empty without it)"},
    {"force_top", SHARD_OUT_NUMBER, "N", 0, "%.15g", "normal force of the top wall (empty without it)"},
    {"force_oblique", SHARD_OUT_NUMBER, "N", 0, "%.15g", "normal force of the oblique wall (empty without it)"},
    {"force_crack", SHARD_OUT_NUMBER, "N", 0, "%.15g",
     "sum of the normal contact forces across the crack's facet ends (impulses / dt or penalty forces; empty "
     "without a crack)"},
};
static const shard_out_table tri2d_history_table = {
    "history.csv", "time history: the model's columns",
    "After the run's columns: the momentum components, the centre of mass and its velocity, the wall forces, the "
    "contact force across a crack.",
    tri2d_history_fields, sizeof tri2d_history_fields / sizeof tri2d_history_fields[0], 0};
static const shard_out_field tri2d_summary_fields[] = {
    {"momentum_x", SHARD_OUT_NUMBER, "kg m/s", 0, NULL, "total momentum along x at the end"},
    {"momentum_y", SHARD_OUT_NUMBER, "kg m/s", 0, NULL, "total momentum along y at the end"},
    {"tri2d.vx_mean", SHARD_OUT_NUMBER, "m/s", 0, NULL, "x velocity of the centre of mass at the end"},
    {"tri2d.vy_mean", SHARD_OUT_NUMBER, "m/s", 0, NULL, "y velocity of the centre of mass at the end"},
    {"tri2d.nodes", SHARD_OUT_INTEGER, "", 0, NULL, "mesh vertices"},
    {"tri2d.elements", SHARD_OUT_INTEGER, "", 0, NULL, "mesh triangles"},
    {"tri2d.fragments", SHARD_OUT_INTEGER, "", 0, NULL,
     "fragments: sets of triangles connected through edges that are not broken (a crack's facet without a fracture "
     "section, or with every openable end fully damaged, is broken); 1 for an uncracked mesh (~: out of memory)"},
    {"fracture.interfaces", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL,
     "cohesive points: the crack's facet ends whose two sides hold different copies"},
    {"fracture.broken", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL,
     "crack facets whose every openable end is fully broken"},
    {"fracture.fragments", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL, "fragments N_f (as tri2d.fragments)"},
    {"fracture.mean_fragment_size", SHARD_OUT_NUMBER, "m", SHARD_OUT_FRACTURE, NULL,
     "mean of the fragments' equivalent sizes (fragments.csv `size`: arc length on an annulus, else sqrt(area))"},
    {"fracture.fragment_size.std", SHARD_OUT_NUMBER, "m", SHARD_OUT_FRACTURE, NULL,
     "standard deviation of the sizes (n - 1; 0 for one fragment)"},
    {"fracture.fragment_size.min", SHARD_OUT_NUMBER, "m", SHARD_OUT_FRACTURE, NULL, "smallest fragment size"},
    {"fracture.fragment_size.max", SHARD_OUT_NUMBER, "m", SHARD_OUT_FRACTURE, NULL, "largest fragment size"},
    {"fracture.insertions", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL, "facets broken during the run"},
    {"fracture.dissipation", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, NULL,
     "fracture dissipation G: cohesive work - reversible"},
    {"fracture.cohesive_work", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, NULL,
     "work done on the cohesive points (trapezoid rule on both opening components)"},
    {"fracture.reversible", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, NULL, "recoverable cohesive energy at the end"},
};
static const shard_out_table tri2d_summary_table = {
    "summary.yaml", "summary of a run: the model's keys",
    "After the run's keys: the momentum components (the run's one-axis `momentum` is empty for this model), the "
    "centre-of-mass velocity and the mesh size.",
    tri2d_summary_fields, sizeof tri2d_summary_fields / sizeof tri2d_summary_fields[0], 0};
static const shard_out_field tri2d_fragments_fields[] = {
    {"fragment", SHARD_OUT_INTEGER, "", 0, NULL,
     "fragment number from 0, in the order of each fragment's first triangle (the cell data `fragment` of the "
     "snapshots)"},
    {"triangles", SHARD_OUT_INTEGER, "", 0, NULL, "triangles of the fragment"},
    {"area", SHARD_OUT_NUMBER, "m^2", 0, NULL, "reference area A (the sum of its triangles')"},
    {"mass", SHARD_OUT_NUMBER, "kg", 0, NULL, "mass rho t A"},
    {"size", SHARD_OUT_NUMBER, "m", 0, NULL,
     "equivalent size: on an annulus the arc length arc_angle (ri + ro) / 2, on other meshes sqrt(area)"},
    {"sqrt_area", SHARD_OUT_NUMBER, "m", 0, NULL, "sqrt(area)"},
    {"arc_angle", SHARD_OUT_NUMBER, "rad", 0, NULL,
     "annulus: the angle its vertices span (2 pi less the largest gap between their reference angles; 2 pi for a "
     "single fragment); empty on other meshes"},
    {"x", SHARD_OUT_NUMBER, "m", 0, NULL, "x of the centre of mass (current positions)"},
    {"y", SHARD_OUT_NUMBER, "m", 0, NULL, "y of the centre of mass (current positions)"},
    {"vx", SHARD_OUT_NUMBER, "m/s", 0, NULL, "x velocity of the centre of mass (momentum / mass)"},
    {"vy", SHARD_OUT_NUMBER, "m/s", 0, NULL, "y velocity of the centre of mass"},
};
static const shard_out_table tri2d_fragments_table = {
    "fragments.csv", "fragments at the end of the run",
    "One row per fragment of the final state (triangles joined through unbroken facets, as tri2d.fragments).",
    tri2d_fragments_fields, sizeof tri2d_fragments_fields / sizeof tri2d_fragments_fields[0], SHARD_OUT_FRACTURE};
static const shard_out_table *const tri2d_files_tables[] = {&tri2d_fragments_table};
static const char *const tri2d_extra_files[] = {"fields.pvd", NULL};
static const shard_model_outputs tri2d_outputs = {&tri2d_history_table, &tri2d_summary_table, tri2d_files_tables, 1,
                                                  NULL, tri2d_extra_files};

/* ---- the model -------------------------------------------------------------------------- */

typedef struct tri2d {
  shard_system sys;
  int32_t nn, ne, ndof;  /* nodes, triangles, 2 nn */
  double *X;             /* reference positions, 2 nn */
  double *mass, *minv;   /* per DOF */
  int32_t *tri;          /* 3 ne, counter-clockwise */
  double *geo;           /* per element: a1 a2 a3 d1 d2 d3 (shape function gradients), area */
  double D[3][3];        /* plane stress or strain */
  double young, nu, rho, thick, cp;
  int plane_strain;
  double xmin, xmax, ymin, ymax, cell_dx, cell_dy;
  double ring_r;          /* annulus: mean radius (ri + ro) / 2; 0 for other meshes */
  double *bshare;         /* annulus and file meshes: per node, half its boundary edges' length (0 inside) */
  /* K: constant CSR (k_base), copied to k_val with the penalty springs added */
  int32_t *k_rowptr, *k_col;
  double *k_base, *k_val;
  int32_t *nblock;       /* per node: positions of its 2x2 diagonal block (4) */
  shard_csr kcsr;
  /* walls and their rows */
  int has_wall[W_N];
  double wn[W_N][2], woff[W_N];
  /* rows: the walls' at set-up first (row_c[2r] = -1, row_c[2r+1] = the node,
   * 2 entries), then crack facet ends (row_c = c-, c+, 4 entries: -n at c-,
   * +n at c+) and the wall rows of the copies on a crack, appended as they
   * come (row_wall: the wall, -1 for a crack row) */
  int32_t ncon, nwall_rows, *row_c, *row_wall, *h_rowptr, *h_col, row_degree;
  /* the crack rows in their order: row_pt[r] = the crack row's number (its
   * cohesive point), -1 for a wall row; crack_row[i] = its row */
  int32_t ncrack_rows, *row_pt, *crack_row;
  /* walls with a crack: per copy, a bit per wall it has a row on; per
   * corner edge, its facet (-1 on the outer boundary); per copy, its
   * boundary share (scratch); with insertion, the wall springs' bound per
   * mass of the stable step; how many walls */
  unsigned char *wall_mask;
  int32_t *edge_fac;
  double *wshare, wall_spm;
  int nwalls;
  double *h_val, *g0, *row_w; /* row_w: tributary boundary length / h_mean (penalty weight) */
  shard_csr h;
  const shard_contact_law_ops *force_law;
  void *force_law_self;
  double *pen_f, *pen_k, *pen_e, *gap;
  double *impulse;
  shard_step_stats stats;
  /* broken facets (pre-broken cracks): elements e- and e+ (n_f outward of e-),
   * the places of the facet's vertices a, b in them (a -> b counter-clockwise
   * in e-), n_f, l_f */
  int32_t nfac, nbroken, nn_max, *bf_em, *bf_ep, *bf_loc; /* bf_loc: local index of a, b in e-, then in e+ */
  int32_t *bf_row;     /* per facet end: its crack row, -1 while none */
  char *bf_state;      /* 1: broken */
  double *bf_n, *bf_len, *bf_sc, *bf_strength; /* bf_sc: the effective stress it broke at; its drawn strength */
  int32_t *pt_fac;     /* per cohesive point: its facet */
  int64_t insertions;  /* facets broken during the run */
  int insert_failed;   /* an insertion ran out of memory: insert_msg says where */
  shard_msg insert_msg;
  double *sig_el;      /* insertion: the elements' stresses (3 per element) */
  double *sshare; /* rectangle with a crack: per node and side, half its boundary edges on that side */
  /* cohesive fracture: the fracture section, the law, and one cohesive point
   * per crack row (point i is row crack_row[i]: its copies c-, c+) with the
   * weight w = t l_f / 2, normal n_f, strength, critical opening, history,
   * openings (normal, tangential), tractions, secants, reversible energy,
   * the last committed openings and tractions and the work [J/m^2] */
  shard_params fr;
  int fracture, insertion, tsl_zic;
  double g_c, tsl_kmax, coh_per_mass, d0;
  const shard_tsl_ops *tsl;
  void *tsl_self;
  double tsl_ibeta2; /* 1/beta^2, beta the law's weight of sliding (shear_weight): the insertion criterion's */
  /* cohesive points, the storage's room for them (grown by insert), and
   * the most there can be (both ends of every facet) */
  int32_t npt, npt_cap, npt_max;
  /* Storage grows with the cracks (grow_copies, grow_rows, grow_points,
   * between steps): the per-copy arrays hold nn_cap copies (at most nn_max),
   * the per-row arrays ncon_cap rows (at most ncon_room) */
  int32_t nn_cap, ncon_cap, ncon_room;
  double *coh; /* one block: the arrays below */
  double *pt_w, *pt_n, *pt_sc, *pt_dc, *pt_dmax, *pt_dmax_s, *pt_dn, *pt_dt, *pt_tn, *pt_tt, *pt_kn, *pt_kt, *pt_rev,
      *pt_dn0, *pt_dt0, *pt_tn0, *pt_tt0, *pt_work;
  double spring_per_mass; /* max over nodes of the sum of its rows' weights over its mass [1/kg] */
  double h_min, h_mean, mass_min, mass_total, lambda_el; /* lambda_el: max element eigenvalue of M_e^-1 K_e */
  /* snapshots */
  char *dir, *vbuf, *pbuf; /* run directory; snapshot and collection text */
  int32_t *flab;           /* the snapshot's fragment number per triangle, then the union-find's room (2 ne) */
  struct edge_corner *fkey; /* the union-find's edges (3 ne) */
  size_t vcap;
  double *times;
  int32_t n_times, cap_times;
  int fields;
} tri2d;

static tri2d *tri_of(shard_system *sys) { return (tri2d *)sys; }
static int32_t kfind(const tri2d *m, int32_t r, int32_t c);

/* strain and stress of element e at u (Voigt: xx, yy, 2xy / xx, yy, xy) */
static void element_stress(const tri2d *m, int32_t e, const double *u, double eps[3], double sig[3]) {
  const double *g = m->geo + 7 * e;
  const int32_t *n = m->tri + 3 * e;
  eps[0] = eps[1] = eps[2] = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double ux = u[2 * n[k]], uy = u[2 * n[k] + 1];
    eps[0] += g[k] * ux, eps[1] += g[3 + k] * uy, eps[2] += g[3 + k] * ux + g[k] * uy;
  }
  for (int i = 0; i < 3; ++i) sig[i] = m->D[i][0] * eps[0] + m->D[i][1] * eps[1] + m->D[i][2] * eps[2];
}

/* the gaps of the system's rows (sys.ncon: an insertion that failed part-way
 * may have added rows the host was never given room for) */
static void gaps_at(const tri2d *m, const double *u, double *g) {
  for (int32_t r = 0; r < m->sys.ncon; ++r) {
    double x = m->g0[r];
    for (int32_t q = m->h_rowptr[r]; q < m->h_rowptr[r + 1]; ++q) x += m->h_val[q] * u[m->h_col[q]];
    g[r] = x;
  }
}

/* the force law at u: per row, the law's force, stiffness and energy times the row's weight */
static void penalty_at(tri2d *m, const double *u) {
  gaps_at(m, u, m->gap);
  shard_contact_law_force(m->force_law, m->force_law_self, m->ncon, m->gap, m->pen_f, m->pen_k, m->pen_e);
  for (int32_t r = 0; r < m->ncon; ++r) m->pen_f[r] *= m->row_w[r], m->pen_k[r] *= m->row_w[r], m->pen_e[r] *= m->row_w[r];
}

/* the cohesive points at u: openings in the facet frame (n_f, tau_f =
 * (-n_y, n_x)) of c+ relative to c-, the law's tractions and secants (per
 * unit area); commit updates the history. In compression the normal
 * traction and secant are zero (the contact rows hold the faces apart), under
 * an impact law and under a penalty alike; the tangential part stays the
 * law's. Zeroing it too under a penalty (zero_in_compression, the 1D rule)
 * switched a stretched tangential spring off at each closing and on again
 * at each reopening, at the sliding accumulated meanwhile: energy that no
 * work had stored, given back to the body (docs/theory.md §14). */
static void cohesive_eval(tri2d *m, const double *u, int commit) {
  const int32_t n = m->npt;
  if (!n || !m->tsl) return;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t r = m->crack_row[i], cm = m->row_c[2 * r], cp = m->row_c[2 * r + 1];
    const double dx = u[2 * cp] - u[2 * cm], dy = u[2 * cp + 1] - u[2 * cm + 1];
    const double nx = m->pt_n[2 * i], ny = m->pt_n[2 * i + 1];
    m->pt_dn[i] = nx * dx + ny * dy, m->pt_dt[i] = -ny * dx + nx * dy;
  }
  double *dmax = m->pt_dmax;
  if (!commit) {
    memcpy(m->pt_dmax_s, m->pt_dmax, (size_t)n * sizeof(double));
    dmax = m->pt_dmax_s;
  }
  const shard_tsl_batch b = {.n = n, .sigma_c = m->pt_sc, .delta_c = m->pt_dc, .delta = m->pt_dn, .delta_max = dmax,
                             .traction = m->pt_tn, .stiffness = m->pt_kn, .reversible = m->pt_rev,
                             .delta_t = m->pt_dt, .traction_t = m->pt_tt, .stiffness_t = m->pt_kt};
  shard_tsl_evaluate(m->tsl, m->tsl_self, &b, commit);
  for (int32_t i = 0; i < n; ++i)
    if (m->pt_dn[i] < 0) m->pt_tn[i] = 0.0, m->pt_kn[i] = 0.0;
}

static int sys_force(shard_system *sys, double t, const double *u, double *f, shard_msg *msg) {
  tri2d *m = tri_of(sys);
  (void)t;
  if (m->insert_failed) return shard_msg_set(msg, SHARD_ERR_NOMEM, "insertion: %s", m->insert_msg.text);
  memset(f, 0, (size_t)m->ndof * sizeof *f);
  for (int32_t e = 0; e < m->ne; ++e) {
    double eps[3], s[3];
    element_stress(m, e, u, eps, s);
    const double *g = m->geo + 7 * e, ta = m->thick * g[6];
    const int32_t *n = m->tri + 3 * e;
    for (int k = 0; k < 3; ++k) {
      f[2 * n[k]] -= ta * (g[k] * s[0] + g[3 + k] * s[2]);
      f[2 * n[k] + 1] -= ta * (g[3 + k] * s[1] + g[k] * s[2]);
    }
  }
  if (m->force_law) {
    penalty_at(m, u);
    for (int32_t r = 0; r < m->ncon; ++r)
      for (int32_t q = m->h_rowptr[r]; q < m->h_rowptr[r + 1]; ++q) f[m->h_col[q]] += m->h_val[q] * m->pen_f[r];
  }
  if (m->tsl && m->npt) { /* w T on c-, -w T on c+ (T pulls the faces together when they open) */
    cohesive_eval(m, u, 0);
    for (int32_t i = 0; i < m->npt; ++i) {
      const int32_t r = m->crack_row[i], cm = m->row_c[2 * r], cp = m->row_c[2 * r + 1];
      const double nx = m->pt_n[2 * i], ny = m->pt_n[2 * i + 1], w = m->pt_w[i];
      const double tx = w * (m->pt_tn[i] * nx - m->pt_tt[i] * ny), ty = w * (m->pt_tn[i] * ny + m->pt_tt[i] * nx);
      f[2 * cm] += tx, f[2 * cm + 1] += ty, f[2 * cp] -= tx, f[2 * cp + 1] -= ty;
    }
  }
  return SHARD_OK;
}

static int sys_stiffness(shard_system *sys, const double *u, const shard_csr **out_k, shard_msg *msg) {
  tri2d *m = tri_of(sys);
  (void)msg;
  memcpy(m->k_val, m->k_base, (size_t)m->k_rowptr[m->ndof] * sizeof *m->k_val);
  if (m->force_law) {
    penalty_at(m, u);
    for (int32_t r = 0; r < m->ncon; ++r) {
      if (m->row_pt[r] >= 0) continue;
      const int32_t *b = m->nblock + 4 * m->row_c[2 * r + 1];
      const double nx = m->h_val[m->h_rowptr[r]], ny = m->h_val[m->h_rowptr[r] + 1], k = m->pen_k[r];
      m->k_val[b[0]] += k * nx * nx, m->k_val[b[1]] += k * nx * ny;
      m->k_val[b[2]] += k * ny * nx, m->k_val[b[3]] += k * ny * ny;
    }
    /* crack rows: k h h^T over the DOFs of c- and c+ (their coupling is in the pattern) */
    for (int32_t i = 0; i < m->ncrack_rows; ++i) {
      const int32_t r = m->crack_row[i];
      const double k = m->pen_k[r];
      if (k == 0.0) continue;
      for (int32_t p = m->h_rowptr[r]; p < m->h_rowptr[r + 1]; ++p)
        for (int32_t q = m->h_rowptr[r]; q < m->h_rowptr[r + 1]; ++q)
          m->k_val[kfind(m, m->h_col[p], m->h_col[q])] += k * m->h_val[p] * m->h_val[q];
    }
  }
  if (m->tsl && m->npt) { /* w [[C, -C], [-C, C]] on (c-, c+), C = k_n n n^T + k_t tau tau^T */
    cohesive_eval(m, u, 0);
    for (int32_t i = 0; i < m->npt; ++i) {
      const int32_t r = m->crack_row[i], c[2] = {m->row_c[2 * r], m->row_c[2 * r + 1]};
      const double nx = m->pt_n[2 * i], ny = m->pt_n[2 * i + 1], kn = m->pt_kn[i], kt = m->pt_kt[i], w = m->pt_w[i];
      if (kn == 0.0 && kt == 0.0) continue;
      const double C[2][2] = {{w * (kn * nx * nx + kt * ny * ny), w * (kn - kt) * nx * ny},
                              {w * (kn - kt) * nx * ny, w * (kn * ny * ny + kt * nx * nx)}};
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          const double sg = a == b ? 1.0 : -1.0;
          for (int p = 0; p < 2; ++p)
            for (int q = 0; q < 2; ++q) m->k_val[kfind(m, 2 * c[a] + p, 2 * c[b] + q)] += sg * C[p][q];
        }
    }
  }
  *out_k = &m->kcsr;
  return SHARD_OK;
}

static void sys_gaps(shard_system *sys, const double *u, double *out_g) { gaps_at(tri_of(sys), u, out_g); }

static void sys_prescribe(shard_system *sys, double t, double *v, double *a) { (void)sys, (void)t, (void)v, (void)a; }

static const shard_system_ops tri2d_system_ops = {
    .force = sys_force,
    .stiffness = sys_stiffness,
    .gaps = sys_gaps,
    .prescribe = sys_prescribe,
};

static void tri2d_destroy(void *self) {
  tri2d *m = self;
  if (!m) return;
  free(m->X), free(m->bshare), free(m->mass), free(m->minv), free(m->tri), free(m->geo);
  free(m->sys.u), free(m->sys.v), free(m->sys.a), free(m->sys.aux);
  free(m->k_rowptr), free(m->k_col), free(m->k_base), free(m->k_val), free(m->nblock);
  free(m->row_c), free(m->row_wall), free(m->bf_em), free(m->bf_ep), free(m->bf_loc), free(m->bf_n),
      free(m->bf_len), free(m->sshare), free(m->coh);
  free(m->bf_row), free(m->bf_state), free(m->bf_sc), free(m->bf_strength), free(m->pt_fac), free(m->sig_el);
  free(m->h_rowptr), free(m->h_col), free(m->h_val), free(m->g0), free(m->row_w);
  free(m->row_pt), free(m->crack_row), free(m->wall_mask), free(m->edge_fac), free(m->wshare);
  free(m->pen_f), free(m->pen_k), free(m->pen_e), free(m->gap), free(m->impulse);
  free(m->dir), free(m->vbuf), free(m->pbuf), free(m->times), free(m->flab), free(m->fkey);
  free(m);
}

/* largest eigenvalue of a symmetric 3x3 matrix (closed form, trigonometric) */
static double sym3_lambda_max(const double a[3][3]) {
  const double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
  const double q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
  if (p1 == 0.0) return fmax(a[0][0], fmax(a[1][1], a[2][2]));
  const double p2 = (a[0][0] - q) * (a[0][0] - q) + (a[1][1] - q) * (a[1][1] - q) + (a[2][2] - q) * (a[2][2] - q) +
                    2.0 * p1;
  const double p = sqrt(p2 / 6.0);
  double b[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = (a[i][j] - (i == j ? q : 0.0)) / p;
  double r = (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
              b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0])) /
             2.0;
  r = fmax(-1.0, fmin(1.0, r));
  return q + 2.0 * p * cos(acos(r) / 3.0);
}

/* lambda_max(M_e^-1 K_e) = (3 / rho) lambda_max(D G), G = B B^T, through the
 * symmetric L^T G L with D = L L^T (Cholesky) */
static double element_lambda(const tri2d *m, int32_t e) {
  const double *g = m->geo + 7 * e;
  double saa = 0, sdd = 0, sad = 0;
  for (int k = 0; k < 3; ++k) saa += g[k] * g[k], sdd += g[3 + k] * g[3 + k], sad += g[k] * g[3 + k];
  const double G[3][3] = {{saa, 0, sad}, {0, sdd, sad}, {sad, sad, saa + sdd}};
  double L[3][3] = {{0}};
  L[0][0] = sqrt(m->D[0][0]);
  L[1][0] = m->D[1][0] / L[0][0];
  L[1][1] = sqrt(m->D[1][1] - L[1][0] * L[1][0]);
  L[2][2] = sqrt(m->D[2][2]); /* D[2][0] = D[2][1] = 0 */
  double GL[3][3], S[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      GL[i][j] = 0;
      for (int k = 0; k < 3; ++k) GL[i][j] += G[i][k] * L[k][j];
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      S[i][j] = 0;
      for (int k = 0; k < 3; ++k) S[i][j] += L[k][i] * GL[k][j];
    }
  return 3.0 / m->rho * sym3_lambda_max(S);
}

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* position of column c in CSR row r (present by construction) */
static int32_t kfind(const tri2d *m, int32_t r, int32_t c) {
  int32_t lo = m->k_rowptr[r], hi = m->k_rowptr[r + 1] - 1;
  while (lo < hi) {
    const int32_t mid = (lo + hi) / 2;
    if (m->k_col[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

#define NOMEM(what) shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %s", what)

/* the K pattern from the node adjacency, the element positions, K's values */
static int build_stiffness(tri2d *m, shard_msg *msg) {
  const int32_t nn = m->nn, ne = m->ne;
  int32_t *cnt = calloc((size_t)nn + 1, sizeof *cnt), *adj = NULL, *deg = NULL;
  if (!cnt) return NOMEM("the stiffness pattern");
  for (int32_t e = 0; e < ne; ++e)
    for (int k = 0; k < 3; ++k) cnt[m->tri[3 * e + k] + 1] += 2;
  for (int32_t i = 0; i < m->ncrack_rows; ++i)
    cnt[m->row_c[2 * m->crack_row[i]] + 1]++, cnt[m->row_c[2 * m->crack_row[i] + 1] + 1]++;
  for (int32_t i = 0; i < nn; ++i) cnt[i + 1] += cnt[i] + 1; /* room: the node itself + 2 per element */
  adj = malloc((size_t)cnt[nn] * sizeof *adj), deg = calloc((size_t)nn, sizeof *deg);
  if (!adj || !deg) {
    free(cnt), free(adj), free(deg);
    return NOMEM("the stiffness pattern");
  }
  for (int32_t i = 0; i < nn; ++i) adj[cnt[i] + deg[i]++] = i;
  for (int32_t e = 0; e < ne; ++e)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const int32_t i = m->tri[3 * e + a], j = m->tri[3 * e + b];
        int found = 0;
        for (int32_t q = 0; q < deg[i] && !found; ++q) found = adj[cnt[i] + q] == j;
        if (!found) adj[cnt[i] + deg[i]++] = j;
      }
  /* the two copies of a crack row are coupled by its penalty spring */
  for (int32_t p = 0; p < m->ncrack_rows; ++p)
    for (int s = 0; s < 2; ++s) {
      const int32_t r = m->crack_row[p], i = m->row_c[2 * r + s], j = m->row_c[2 * r + 1 - s];
      int found = 0;
      for (int32_t q = 0; q < deg[i] && !found; ++q) found = adj[cnt[i] + q] == j;
      if (!found) adj[cnt[i] + deg[i]++] = j;
    }
  int64_t nnz = 0;
  for (int32_t i = 0; i < nn; ++i) {
    qsort(adj + cnt[i], (size_t)deg[i], sizeof *adj, cmp_i32);
    nnz += 4 * (int64_t)deg[i];
  }
  if (nnz > INT32_MAX) {
    free(cnt), free(adj), free(deg);
    return shard_msg_set(msg, SHARD_ERR_INPUT, "the mesh is too large: K would have %lld entries", (long long)nnz);
  }
  m->k_rowptr = malloc(((size_t)m->ndof + 1) * sizeof *m->k_rowptr);
  m->k_col = malloc((size_t)nnz * sizeof *m->k_col);
  m->k_base = calloc((size_t)nnz, sizeof *m->k_base), m->k_val = calloc((size_t)nnz, sizeof *m->k_val);
  m->nblock = malloc((size_t)nn * 4 * sizeof *m->nblock);
  if (!m->k_rowptr || !m->k_col || !m->k_base || !m->k_val || !m->nblock) {
    free(cnt), free(adj), free(deg);
    return NOMEM("the stiffness matrix");
  }
  int32_t q = 0;
  for (int32_t i = 0; i < nn; ++i)
    for (int d = 0; d < 2; ++d) {
      m->k_rowptr[2 * i + d] = q;
      for (int32_t k = 0; k < deg[i]; ++k) m->k_col[q++] = 2 * adj[cnt[i] + k], m->k_col[q++] = 2 * adj[cnt[i] + k] + 1;
    }
  m->k_rowptr[m->ndof] = q;
  /* row degree of W: rows at nodes of a node's neighbourhood (itself included) */
  int32_t *rows_at = calloc((size_t)nn, sizeof *rows_at);
  if (!rows_at) {
    free(cnt), free(adj), free(deg);
    return NOMEM("the contact pattern");
  }
  for (int32_t r = 0; r < m->ncon; ++r)
    for (int c = 0; c < 2; ++c)
      if (m->row_c[2 * r + c] >= 0) rows_at[m->row_c[2 * r + c]]++;
  if (m->insertion && !m->row_degree) {
    /* set once, before any insertion (the host reads it at set-up): each
     * facet end may get a row, on the copies its two sides hold; a row at
     * a vertex couples with the rows of its neighbourhood, whichever way
     * the vertex splits later */
    int32_t worst = 1;
    for (size_t c = 0; m->nwalls && c < 3 * (size_t)m->ne; ++c) rows_at[m->tri[c]] += m->nwalls; /* every corner a copy on every wall */
    for (int32_t f = 0; f < m->nfac; ++f)
      for (int k = 0; k < 2; ++k) {
        const int32_t cm = m->tri[3 * m->bf_em[f] + m->bf_loc[4 * f + k]];
        const int32_t cp = m->tri[3 * m->bf_ep[f] + m->bf_loc[4 * f + 2 + k]];
        rows_at[cm]++;
        if (cp != cm) rows_at[cp]++;
      }
    for (int32_t i = 0; i < nn; ++i) {
      int32_t s = 0;
      for (int32_t k = 0; k < deg[i]; ++k) s += rows_at[adj[cnt[i] + k]];
      if (2 * s > worst) worst = 2 * s;
    }
    m->row_degree = worst;
    free(rows_at), free(cnt), free(adj), free(deg);
    goto blocks;
  }
  if (m->insertion) {
    free(rows_at), free(cnt), free(adj), free(deg);
    goto blocks;
  }
  m->row_degree = 1;
  for (int32_t r = 0; r < m->ncon; ++r) {
    int32_t s = 0;
    for (int c = 0; c < 2; ++c) {
      const int32_t i = m->row_c[2 * r + c];
      for (int32_t k = 0; i >= 0 && k < deg[i]; ++k) s += rows_at[adj[cnt[i] + k]];
    }
    if (s > m->row_degree) m->row_degree = s;
  }
  free(rows_at), free(cnt), free(adj), free(deg);
blocks:
  for (int32_t i = 0; i < nn; ++i) {
    m->nblock[4 * i + 0] = kfind(m, 2 * i, 2 * i), m->nblock[4 * i + 1] = kfind(m, 2 * i, 2 * i + 1);
    m->nblock[4 * i + 2] = kfind(m, 2 * i + 1, 2 * i), m->nblock[4 * i + 3] = kfind(m, 2 * i + 1, 2 * i + 1);
  }
  /* K_e = t A B^T D B */
  for (int32_t e = 0; e < ne; ++e) {
    const double *g = m->geo + 7 * e;
    double B[3][6] = {{0}};
    for (int k = 0; k < 3; ++k) {
      B[0][2 * k] = g[k], B[1][2 * k + 1] = g[3 + k];
      B[2][2 * k] = g[3 + k], B[2][2 * k + 1] = g[k];
    }
    double DB[3][6];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 6; ++j) DB[i][j] = m->D[i][0] * B[0][j] + m->D[i][1] * B[1][j] + m->D[i][2] * B[2][j];
    const double ta = m->thick * g[6];
    double ke[6][6];
    for (int p = 0; p < 6; ++p) /* the upper triangle, mirrored: K exactly symmetric */
      for (int c = p; c < 6; ++c) ke[p][c] = ke[c][p] = ta * (B[0][p] * DB[0][c] + B[1][p] * DB[1][c] + B[2][p] * DB[2][c]);
    for (int p = 0; p < 6; ++p)
      for (int c = 0; c < 6; ++c) {
        const int32_t row = 2 * m->tri[3 * e + p / 2] + p % 2, col = 2 * m->tri[3 * e + c / 2] + c % 2;
        m->k_base[kfind(m, row, col)] += ke[p][c];
      }
  }
  memcpy(m->k_val, m->k_base, (size_t)nnz * sizeof *m->k_val);
  m->kcsr = (shard_csr){m->ndof, m->ndof, m->k_rowptr, m->k_col, m->k_val};
  return SHARD_OK;
}

/* the keys a mesh shape requires, all given: SHARD_OK, or the first missing one named */
static int need_keys(const shard_params *pp, const char *const need[4], const char *shape, const char *path,
                     shard_msg *msg) {
  for (int k = 0; k < 4; ++k)
    if (!shard_params_has(pp, need[k]))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.%s is required with mesh.shape: %s", path, need[k], shape);
  return SHARD_OK;
}

/* the rectangle: nodes row by row, two triangles per cell, diagonals alternating */
static int build_rectangle(tri2d *m, const shard_params *pp, const char *path, shard_msg *msg) {
  static const char *const need[] = {"mesh.width", "mesh.height", "mesh.nx", "mesh.ny"};
  if (need_keys(pp, need, "rectangle", path, msg) != SHARD_OK) return SHARD_ERR_INPUT;
  const double w = shard_params_real(pp, "mesh.width"), h = shard_params_real(pp, "mesh.height");
  const long long nx = shard_params_int(pp, "mesh.nx"), ny = shard_params_int(pp, "mesh.ny");
  if ((nx + 1) * (ny + 1) > 10000000LL)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh: %lld x %lld cells is more than 10^7 nodes", path, nx,
                         ny);
  m->nn = (int32_t)((nx + 1) * (ny + 1)), m->ne = (int32_t)(2 * nx * ny), m->ndof = 2 * m->nn;
  if (!(m->X = malloc((size_t)m->ndof * sizeof *m->X)) || !(m->tri = malloc((size_t)m->ne * 3 * sizeof *m->tri)))
    return NOMEM("the mesh");
  const double dx = w / (double)nx, dy = h / (double)ny;
  const double amp = shard_params_real(pp, "mesh.perturbation");
  shard_rng rng;
  shard_rng_seed(&rng, (uint64_t)shard_params_int(pp, "mesh.seed"));
  for (long long j = 0; j <= ny; ++j)
    for (long long i = 0; i <= nx; ++i) {
      const int32_t n = (int32_t)(j * (nx + 1) + i);
      m->X[2 * n] = i == nx ? w : (double)i * dx, m->X[2 * n + 1] = j == ny ? h : (double)j * dy;
      if (amp > 0 && i > 0 && i < nx && j > 0 && j < ny) {
        m->X[2 * n] += shard_rng_range(&rng, -amp, amp) * dx;
        m->X[2 * n + 1] += shard_rng_range(&rng, -amp, amp) * dy;
      }
    }
  int32_t e = 0;
  for (long long j = 0; j < ny; ++j)
    for (long long i = 0; i < nx; ++i) {
      const int32_t a = (int32_t)(j * (nx + 1) + i), b = a + 1, c = a + (int32_t)nx + 1, d = c + 1; /* a b bottom */
      int32_t *t = m->tri + 3 * e;
      if ((i + j) % 2 == 0) { /* diagonal a-d */
        t[0] = a, t[1] = b, t[2] = d, t[3] = a, t[4] = d, t[5] = c;
      } else { /* diagonal b-c */
        t[0] = a, t[1] = b, t[2] = c, t[3] = b, t[4] = d, t[5] = c;
      }
      e += 2;
    }
  m->xmin = 0, m->xmax = w, m->ymin = 0, m->ymax = h, m->cell_dx = dx, m->cell_dy = dy;
  return SHARD_OK;
}

/* the annulus: ring i (0 inner .. nr outer) of ntheta nodes at angles 2 pi j /
 * ntheta; each cell two triangles, diagonals alternating */
static int build_annulus(tri2d *m, const shard_params *pp, const char *path, shard_msg *msg) {
  static const char *const need[] = {"mesh.inner_radius", "mesh.outer_radius", "mesh.nr", "mesh.ntheta"};
  if (need_keys(pp, need, "annulus", path, msg) != SHARD_OK) return SHARD_ERR_INPUT;
  const double ri = shard_params_real(pp, "mesh.inner_radius"), ro = shard_params_real(pp, "mesh.outer_radius");
  const long long nr = shard_params_int(pp, "mesh.nr"), nt = shard_params_int(pp, "mesh.ntheta");
  if (!(ro > ri))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh.outer_radius %g is not above inner_radius %g", path, ro,
                         ri);
  if ((nr + 1) * nt > 10000000LL)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh: %lld x %lld cells is more than 10^7 nodes", path, nr,
                         nt);
  m->nn = (int32_t)((nr + 1) * nt), m->ne = (int32_t)(2 * nr * nt), m->ndof = 2 * m->nn;
  if (!(m->X = malloc((size_t)m->ndof * sizeof *m->X)) || !(m->tri = malloc((size_t)m->ne * 3 * sizeof *m->tri)))
    return NOMEM("the mesh");
  const double dr = (ro - ri) / (double)nr, dth = 2.0 * 3.14159265358979323846 / (double)nt;
  const double amp = shard_params_real(pp, "mesh.perturbation");
  shard_rng rng;
  shard_rng_seed(&rng, (uint64_t)shard_params_int(pp, "mesh.seed"));
  for (long long i = 0; i <= nr; ++i)
    for (long long j = 0; j < nt; ++j) {
      const int32_t n = (int32_t)(i * nt + j);
      double r = i == nr ? ro : ri + (double)i * dr, th = (double)j * dth;
      if (amp > 0 && i > 0 && i < nr) {
        r += shard_rng_range(&rng, -amp, amp) * dr;
        th += shard_rng_range(&rng, -amp, amp) * dth;
      }
      m->X[2 * n] = r * cos(th), m->X[2 * n + 1] = r * sin(th);
    }
  int32_t e = 0;
  for (long long i = 0; i < nr; ++i)
    for (long long j = 0; j < nt; ++j) {
      const long long j1 = (j + 1) % nt;
      const int32_t a = (int32_t)(i * nt + j), b = (int32_t)(i * nt + j1), c = (int32_t)((i + 1) * nt + j),
                    d = (int32_t)((i + 1) * nt + j1); /* a b inner, c d outer; a -> c -> d -> b counter-clockwise */
      int32_t *t = m->tri + 3 * e;
      if ((i + j) % 2 == 0) {
        t[0] = a, t[1] = c, t[2] = d, t[3] = a, t[4] = d, t[5] = b;
      } else {
        t[0] = a, t[1] = c, t[2] = b, t[3] = c, t[4] = d, t[5] = b;
      }
      e += 2;
    }
  m->xmin = m->ymin = -ro, m->xmax = m->ymax = ro;
  m->ring_r = 0.5 * (ri + ro);
  return SHARD_OK;
}

/* The disk: the centre node and rings i = 1 .. nr of radius i R / nr with 6 i
 * nodes each, node j of ring i at the angle 2 pi j / (6 i) (ring nr exactly
 * on the circle). The centre and ring 1 make a fan of 6 triangles; each band
 * between rings i - 1 and i is zipped by the nodes' angles into 6 (2 i - 1)
 * triangles, each with two nodes on one ring and one on the other (6 nr^2
 * triangles in all, of about equal area pi R^2 / (6 nr^2), close to
 * equilateral; smallest angle 43.7 degrees as nr grows, 47.6 at nr = 2).
 * The topology is fixed by the nominal angles; the perturbation then moves
 * the interior nodes. */
static int build_disk(tri2d *m, const shard_params *pp, const char *path, shard_msg *msg) {
  if (!shard_params_has(pp, "mesh.radius") || !shard_params_has(pp, "mesh.nr"))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.%s is required with mesh.shape: disk", path,
                         shard_params_has(pp, "mesh.radius") ? "mesh.nr" : "mesh.radius");
  const double R = shard_params_real(pp, "mesh.radius");
  const long long nr = shard_params_int(pp, "mesh.nr");
  if (!(R > 0) || !isfinite(R))
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh.radius = %g: a disk needs a finite radius > 0", path, R);
  if (nr < 2)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s: model.mesh.nr = %lld: a disk needs at least 2 rings (one ring is a hexagon of 6 "
                         "triangles without an interior node)",
                         path, nr);
  if (1 + 3 * nr * (nr + 1) > 10000000LL)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh: a disk of %lld rings is more than 10^7 nodes", path,
                         nr);
  m->nn = (int32_t)(1 + 3 * nr * (nr + 1)), m->ne = (int32_t)(6 * nr * nr), m->ndof = 2 * m->nn;
  if (!(m->X = malloc((size_t)m->ndof * sizeof *m->X)) || !(m->tri = malloc((size_t)m->ne * 3 * sizeof *m->tri)))
    return NOMEM("the mesh");
  const double pi = 3.14159265358979323846, dr = R / (double)nr;
  const double amp = shard_params_real(pp, "mesh.perturbation");
  shard_rng rng;
  shard_rng_seed(&rng, (uint64_t)shard_params_int(pp, "mesh.seed"));
  m->X[0] = m->X[1] = 0.0;
  for (long long i = 1; i <= nr; ++i) {
    const long long first = 1 + 3 * (i - 1) * i, n = 6 * i;
    const double dth = 2.0 * pi / (double)n;
    for (long long j = 0; j < n; ++j) {
      const double r = i == nr ? R : (double)i * dr, th = (double)j * dth;
      m->X[2 * (first + j)] = r * cos(th), m->X[2 * (first + j) + 1] = r * sin(th);
    }
  }
  /* every interior node (centre included) by a vector uniform in the disc of
   * radius amp dr: the unperturbed triangles' smallest altitude is above
   * 0.72 dr, and a triangle whose vertices move by less than half of it
   * keeps a positive area, so amp <= 0.3 never folds one */
  for (int32_t k = 0; amp > 0 && k < m->nn - (int32_t)(6 * nr); ++k) {
    const double rho = amp * dr * sqrt(shard_rng_range(&rng, 0.0, 1.0));
    const double phi = 2.0 * pi * shard_rng_range(&rng, 0.0, 1.0);
    m->X[2 * k] += rho * cos(phi), m->X[2 * k + 1] += rho * sin(phi);
  }
  int32_t e = 0;
  for (int32_t j = 0; j < 6; ++j) { /* the centre's fan: 0, 1 + j, 1 + (j + 1) % 6 counter-clockwise */
    int32_t *t = m->tri + 3 * e++;
    t[0] = 0, t[1] = 1 + j, t[2] = 1 + (j + 1) % 6;
  }
  for (long long i = 2; i <= nr; ++i) { /* the band between ring i - 1 (a) and ring i (b) */
    const int32_t fa = (int32_t)(1 + 3 * (i - 2) * (i - 1)), fb = (int32_t)(1 + 3 * (i - 1) * i);
    const long long na = 6 * (i - 1), nb = 6 * i;
    long long p = 0, q = 0;
    while (p < na || q < nb) {
      /* advance the ring whose next node comes first by angle: j / n of a turn,
       * compared exactly as (p + 1) nb against (q + 1) na */
      const int inner = q == nb || (p < na && (p + 1) * nb <= (q + 1) * na);
      const int32_t a = fa + (int32_t)(p % na), b = fb + (int32_t)(q % nb);
      int32_t *t = m->tri + 3 * e++;
      if (inner) { /* a, b, a + 1 counter-clockwise */
        t[0] = a, t[1] = b, t[2] = fa + (int32_t)((p + 1) % na), ++p;
      } else { /* a, b, b + 1 */
        t[0] = a, t[1] = b, t[2] = fb + (int32_t)((q + 1) % nb), ++q;
      }
    }
  }
  m->xmin = m->ymin = -R, m->xmax = m->ymax = R;
  return SHARD_OK;
}

/* ---- Gmsh meshes (ASCII 2.2 and 4.1): the nodes and the 3-node triangles ---- */

typedef struct msh_reader {
  const char *path;
  char *text, *p; /* the whole file, the cursor */
  long line;      /* of the cursor */
} msh_reader;

static int msh_err(const msh_reader *r, shard_msg *msg, const char *what) {
  return shard_msg_set(msg, SHARD_ERR_INPUT, "%s:%ld: %s", r->path, r->line, what);
}

static void msh_skip_space(msh_reader *r) {
  while (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n') r->line += *r->p++ == '\n';
}

/* the next whitespace-separated word starts with `word` (a section marker) */
static int msh_find(msh_reader *r, const char *word) {
  const size_t n = strlen(word);
  for (;;) {
    msh_skip_space(r);
    if (!*r->p) return 0;
    if (strncmp(r->p, word, n) == 0 && (r->p[n] == '\n' || r->p[n] == '\r' || r->p[n] == ' ' || !r->p[n])) {
      r->p += n;
      return 1;
    }
    while (*r->p && *r->p != '\n') ++r->p;
  }
}

static int msh_real(msh_reader *r, double *x) {
  msh_skip_space(r);
  char *end;
  *x = strtod(r->p, &end);
  if (end == r->p || !isfinite(*x)) return 0;
  r->p = end;
  return 1;
}

static int msh_int(msh_reader *r, long long lo, long long hi, long long *x) {
  msh_skip_space(r);
  char *end;
  *x = strtoll(r->p, &end, 10);
  if (end == r->p || *x < lo || *x > hi) return 0;
  r->p = end;
  return 1;
}

static void msh_skip_line(msh_reader *r) {
  while (*r->p && *r->p != '\n') ++r->p;
}

#define MSH_MAX_NODES 10000000LL

/* tag -> node index through a dense table over [0, max_tag] */
static int read_msh(tri2d *m, const char *file, shard_msg *msg) {
  FILE *f = fopen(file, "rb");
  if (!f) return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: cannot open the mesh file (%s)", file, strerror(errno));
  char *text = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 65536 + 1 > cap) {
      cap = cap ? 2 * cap : 1 << 20;
      if (cap > ((size_t)1 << 31)) {
        free(text), fclose(f);
        return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: mesh file larger than 2 GB", file);
      }
      char *q = realloc(text, cap);
      if (!q) {
        free(text), fclose(f);
        return NOMEM("the mesh file");
      }
      text = q;
    }
    const size_t n = fread(text + len, 1, 65536, f);
    len += n;
    if (n < 65536) break;
  }
  const int rerr = ferror(f);
  fclose(f);
  if (rerr) {
    free(text);
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: read error", file);
  }
  text[len] = '\0';
  if (memchr(text, '\0', len)) {
    free(text);
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: not an ASCII Gmsh file (binary data)", file);
  }
  msh_reader r = {file, text, text, 1};
  int st = SHARD_OK;
  int32_t *map = NULL, *tris = NULL;
  double *xy = NULL;
  long long max_tag = 0, nnodes = 0, ntri = 0, cap_tri = 0;
  double version = 0;
  long long ftype = 0, dsize = 0;
  if (!msh_find(&r, "$MeshFormat") || !msh_real(&r, &version) || !msh_int(&r, 0, 1, &ftype) ||
      !msh_int(&r, 0, 64, &dsize)) {
    st = msh_err(&r, msg, "no $MeshFormat line 'version file-type data-size' (is this a Gmsh .msh file?)");
    goto done;
  }
  if (ftype != 0) {
    st = msh_err(&r, msg, "binary Gmsh file: save it as ASCII (gmsh -save -format msh22 or msh41)");
    goto done;
  }
  const int v4 = version >= 4.0 && version < 5.0;
  if (!v4 && !(version >= 2.0 && version < 3.0)) {
    st = msh_err(&r, msg, "Gmsh format version not 2.x or 4.x");
    goto done;
  }
  if (!msh_find(&r, "$Nodes")) {
    st = msh_err(&r, msg, "no $Nodes section");
    goto done;
  }
  long long nblocks = 1, total = 0;
  if (v4) {
    long long mn, mx;
    if (!msh_int(&r, 0, MSH_MAX_NODES, &nblocks) || !msh_int(&r, 0, MSH_MAX_NODES, &total) ||
        !msh_int(&r, 0, INT32_MAX, &mn) || !msh_int(&r, 0, INT32_MAX, &mx)) {
      st = msh_err(&r, msg, "$Nodes header: expected 'numEntityBlocks numNodes minNodeTag maxNodeTag' (at most 10^7 nodes)");
      goto done;
    }
    max_tag = mx;
  } else if (!msh_int(&r, 0, MSH_MAX_NODES, &total)) {
    st = msh_err(&r, msg, "$Nodes: expected the number of nodes (at most 10^7)");
    goto done;
  }
  if (total < 3) {
    st = msh_err(&r, msg, "fewer than 3 nodes");
    goto done;
  }
  /* v2: tags are read first into xy's companion; find max tag as we go */
  long long *tags = malloc((size_t)total * sizeof *tags);
  if (!tags || !(xy = malloc((size_t)total * 2 * sizeof *xy))) {
    free(tags);
    st = NOMEM("the mesh nodes");
    goto done;
  }
  for (long long b = 0; b < nblocks && st == SHARD_OK; ++b) {
    long long count = total, dim, ent, param;
    if (v4 && (!msh_int(&r, 0, 3, &dim) || !msh_int(&r, INT32_MIN, INT32_MAX, &ent) || !msh_int(&r, 0, 1, &param) ||
               !msh_int(&r, 0, total - nnodes, &count))) {
      st = msh_err(&r, msg, "node block header: expected 'entityDim entityTag parametric numNodesInBlock'");
      break;
    }
    if (v4 && param) {
      st = msh_err(&r, msg, "parametric node coordinates are not supported");
      break;
    }
    if (v4) {
      for (long long i = 0; i < count && st == SHARD_OK; ++i)
        if (!msh_int(&r, 1, INT32_MAX, &tags[nnodes + i])) st = msh_err(&r, msg, "node tag: a positive integer expected");
      for (long long i = 0; i < count && st == SHARD_OK; ++i) {
        double z;
        if (!msh_real(&r, &xy[2 * (nnodes + i)]) || !msh_real(&r, &xy[2 * (nnodes + i) + 1]) || !msh_real(&r, &z))
          st = msh_err(&r, msg, "node coordinates: three finite numbers expected");
      }
    } else {
      for (long long i = 0; i < count && st == SHARD_OK; ++i) {
        double z;
        if (!msh_int(&r, 1, INT32_MAX, &tags[i]) || !msh_real(&r, &xy[2 * i]) || !msh_real(&r, &xy[2 * i + 1]) ||
            !msh_real(&r, &z))
          st = msh_err(&r, msg, "node line: 'tag x y z' expected");
        else if (tags[i] > max_tag)
          max_tag = tags[i];
      }
    }
    nnodes += count;
  }
  if (st == SHARD_OK && nnodes != total) st = msh_err(&r, msg, "the node blocks hold fewer nodes than the header says");
  if (st == SHARD_OK && max_tag > 4 * MSH_MAX_NODES)
    st = msh_err(&r, msg, "node tags above 4 * 10^7: renumber the mesh (gmsh -renumber)");
  if (st == SHARD_OK && !(map = malloc(((size_t)max_tag + 1) * sizeof *map))) st = NOMEM("the mesh node tags");
  if (st == SHARD_OK) {
    for (long long i = 0; i <= max_tag; ++i) map[i] = -1;
    for (long long i = 0; i < nnodes && st == SHARD_OK; ++i) {
      if (tags[i] > max_tag) st = msh_err(&r, msg, "a node tag above the header's maxNodeTag");
      else if (map[tags[i]] >= 0) st = msh_err(&r, msg, "a node tag given twice");
      else map[tags[i]] = (int32_t)i;
    }
  }
  free(tags);
  if (st != SHARD_OK) goto done;
  if (!msh_find(&r, "$EndNodes") || !msh_find(&r, "$Elements")) {
    st = msh_err(&r, msg, "no $Elements section after $EndNodes");
    goto done;
  }
  long long eblocks = 1, etotal = 0;
  if (v4) {
    long long mn, mx;
    if (!msh_int(&r, 0, INT32_MAX, &eblocks) || !msh_int(&r, 0, INT32_MAX, &etotal) || !msh_int(&r, 0, INT64_MAX, &mn) ||
        !msh_int(&r, 0, INT64_MAX, &mx)) {
      st = msh_err(&r, msg, "$Elements header: expected 'numEntityBlocks numElements minElementTag maxElementTag'");
      goto done;
    }
  } else if (!msh_int(&r, 0, INT32_MAX, &etotal)) {
    st = msh_err(&r, msg, "$Elements: expected the number of elements");
    goto done;
  }
  long long seen = 0;
  for (long long b = 0; b < eblocks && st == SHARD_OK; ++b) {
    long long dim = 0, ent, type = 0, count = etotal;
    if (v4 && (!msh_int(&r, 0, 3, &dim) || !msh_int(&r, INT32_MIN, INT32_MAX, &ent) || !msh_int(&r, 1, 200, &type) ||
               !msh_int(&r, 0, etotal - seen, &count))) {
      st = msh_err(&r, msg, "element block header: expected 'entityDim entityTag elementType numElementsInBlock'");
      break;
    }
    for (long long i = 0; i < count && st == SHARD_OK; ++i) {
      long long etag, ntags = 0, tg;
      if (!msh_int(&r, 0, INT64_MAX, &etag)) {
        st = msh_err(&r, msg, "element line: its tag expected");
        break;
      }
      if (!v4 && (!msh_int(&r, 1, 200, &type) || !msh_int(&r, 0, 100, &ntags))) {
        st = msh_err(&r, msg, "element line: 'tag type ntags ...' expected");
        break;
      }
      for (long long q = 0; q < ntags && st == SHARD_OK; ++q)
        if (!msh_int(&r, INT32_MIN, INT32_MAX, &tg)) st = msh_err(&r, msg, "element line: a tag expected");
      if (st != SHARD_OK) break;
      if (type != 2) { /* not a 3-node triangle: points and lines (boundaries, physical groups) are skipped */
        if (type == 1 || type == 8 || type == 15) {
          msh_skip_line(&r);
          continue;
        }
        st = msh_err(&r, msg, "an element that is not a 3-node triangle, a line or a point (P1 triangles only: "
                              "mesh with gmsh -2 -order 1)");
        break;
      }
      if (ntri == cap_tri) {
        cap_tri = cap_tri ? 2 * cap_tri : 1024;
        int32_t *q = cap_tri <= INT32_MAX / 3 ? realloc(tris, (size_t)cap_tri * 3 * sizeof *q) : NULL;
        if (!q) {
          st = NOMEM("the mesh triangles");
          break;
        }
        tris = q;
      }
      for (int k = 0; k < 3 && st == SHARD_OK; ++k) {
        long long nt;
        if (!msh_int(&r, 1, max_tag, &nt) || map[nt] < 0) st = msh_err(&r, msg, "a triangle names a node that is not in $Nodes");
        else tris[3 * ntri + k] = map[nt];
      }
      ++ntri;
    }
    seen += count;
  }
  if (st == SHARD_OK && ntri == 0) st = msh_err(&r, msg, "no 3-node triangle in $Elements (mesh in 2D: gmsh -2)");
  if (st != SHARD_OK) goto done;
  /* keep the nodes the triangles use, in file order */
  int32_t *used = calloc((size_t)nnodes, sizeof *used);
  if (!used) {
    st = NOMEM("the mesh");
    goto done;
  }
  for (long long e = 0; e < 3 * ntri; ++e) used[tris[e]] = 1;
  int32_t nn = 0;
  for (long long i = 0; i < nnodes; ++i) used[i] = used[i] ? nn++ : -1;
  m->nn = nn, m->ne = (int32_t)ntri, m->ndof = 2 * nn;
  if (!(m->X = malloc((size_t)m->ndof * sizeof *m->X)) || !(m->tri = malloc((size_t)ntri * 3 * sizeof *m->tri))) {
    free(used);
    st = NOMEM("the mesh");
    goto done;
  }
  for (long long i = 0; i < nnodes; ++i)
    if (used[i] >= 0) m->X[2 * used[i]] = xy[2 * i], m->X[2 * used[i] + 1] = xy[2 * i + 1];
  for (long long e = 0; e < ntri; ++e) {
    int32_t *t = m->tri + 3 * e;
    for (int k = 0; k < 3; ++k) t[k] = used[tris[3 * e + k]];
    const double *a = m->X + 2 * t[0], *b = m->X + 2 * t[1], *c = m->X + 2 * t[2];
    if ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]) < 0) { /* clockwise in the file: turn it */
      const int32_t x = t[1];
      t[1] = t[2], t[2] = x;
    }
  }
  free(used);
  m->xmin = m->ymin = INFINITY, m->xmax = m->ymax = -INFINITY;
  for (int32_t i = 0; i < nn; ++i) {
    m->xmin = fmin(m->xmin, m->X[2 * i]), m->xmax = fmax(m->xmax, m->X[2 * i]);
    m->ymin = fmin(m->ymin, m->X[2 * i + 1]), m->ymax = fmax(m->ymax, m->X[2 * i + 1]);
  }
done:
  free(text), free(map), free(tris), free(xy);
  return st;
}

static int cmp_edge(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* bshare: per node, half the length of its boundary edges (edges of one
 * triangle only); an edge of three triangles or more is refused */
static int boundary_shares(tri2d *m, const char *path, shard_msg *msg) {
  const size_t ne3 = 3 * (size_t)m->ne;
  int64_t *edges = malloc(ne3 * sizeof *edges);
  if (!edges || !(m->bshare = calloc((size_t)m->nn, sizeof *m->bshare))) {
    free(edges);
    return NOMEM("the mesh boundary");
  }
  for (int32_t e = 0; e < m->ne; ++e)
    for (int k = 0; k < 3; ++k) {
      const int64_t a = m->tri[3 * e + k], b = m->tri[3 * e + (k + 1) % 3];
      edges[3 * (size_t)e + k] = a < b ? a * m->nn + b : b * m->nn + a;
    }
  qsort(edges, ne3, sizeof *edges, cmp_edge);
  int st = SHARD_OK;
  for (size_t i = 0; i < ne3 && st == SHARD_OK;) {
    size_t j = i;
    while (j < ne3 && edges[j] == edges[i]) ++j;
    const int32_t a = (int32_t)(edges[i] / m->nn), b = (int32_t)(edges[i] % m->nn);
    if (j - i > 2)
      st = shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s: model.mesh: the edge between nodes %d and %d belongs to %d triangles (not a surface "
                         "mesh)", path, (int)a, (int)b, (int)(j - i));
    else if (j - i == 1) {
      const double l = hypot(m->X[2 * a] - m->X[2 * b], m->X[2 * a + 1] - m->X[2 * b + 1]);
      m->bshare[a] += 0.5 * l, m->bshare[b] += 0.5 * l;
    }
    i = j;
  }
  free(edges);
  return st;
}

/* ---- pre-broken cracks: facets, vertex copies ---- */

static int32_t uf_find(int32_t *p, int32_t x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}

/* distance of (x, y) from the segment p -> q */
static double seg_dist(const double p[2], const double q[2], double x, double y) {
  const double dx = q[0] - p[0], dy = q[1] - p[1], l2 = dx * dx + dy * dy;
  double s = l2 > 0 ? ((x - p[0]) * dx + (y - p[1]) * dy) / l2 : 0.0;
  s = fmax(0.0, fmin(1.0, s));
  return hypot(x - p[0] - s * dx, y - p[1] - s * dy);
}

typedef struct edge_corner {
  int64_t key; /* min * nn + max */
  int32_t corner; /* 3 e + k: the edge from corner k to k + 1 of e */
} edge_corner;

static int cmp_edge_corner(const void *a, const void *b) {
  const edge_corner *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->corner > y->corner) - (x->corner < y->corner);
}

static int local_of(const int32_t *t, int32_t v) { return t[0] == v ? 0 : t[1] == v ? 1 : 2; }

/* The interior edges (facets) of the mesh: its two elements e- and e+
 * (a -> b counter-clockwise in e-), the places of a and b in each, the
 * normal n_f (outward of e-), the length; those lying on the segment
 * from -> to (when seg) are broken. X is grown to room for 3 ne vertices
 * (every corner its own copy) when the model inserts. */
static int build_facets(tri2d *m, int seg, const double from[2], const double to[2], const char *path,
                        shard_msg *msg) {
  const int32_t ne = m->ne, nn0 = m->nn;
  const size_t ne3 = 3 * (size_t)ne;
  edge_corner *key = malloc(ne3 * sizeof *key);
  if (!key) return NOMEM("the facets");
  for (int32_t e = 0; e < ne; ++e)
    for (int k = 0; k < 3; ++k) {
      const int64_t a = m->tri[3 * e + k], b = m->tri[3 * e + (k + 1) % 3];
      key[3 * (size_t)e + k] = (edge_corner){a < b ? a * nn0 + b : b * nn0 + a, 3 * e + k};
    }
  qsort(key, ne3, sizeof *key, cmp_edge_corner);
  int32_t nf = 0;
  for (size_t i = 0; i + 1 < ne3; ++i)
    if (key[i].key == key[i + 1].key) ++nf, ++i;
  const size_t n1 = (size_t)(nf > 0 ? nf : 1);
  if (!(m->bf_em = malloc(n1 * sizeof(int32_t))) || !(m->bf_ep = malloc(n1 * sizeof(int32_t))) ||
      !(m->bf_loc = malloc(4 * n1 * sizeof(int32_t))) || !(m->bf_row = malloc(2 * n1 * sizeof(int32_t))) ||
      !(m->bf_state = calloc(n1, 1)) || !(m->bf_n = malloc(2 * n1 * sizeof(double))) ||
      !(m->bf_len = malloc(n1 * sizeof(double))) || !(m->bf_sc = calloc(n1, sizeof(double))) ||
      !(m->bf_strength = calloc(n1, sizeof(double)))) {
    free(key);
    return NOMEM("the facets");
  }
  const double scale = fmax(m->xmax - m->xmin, m->ymax - m->ymin), tol = 1e-9 * scale;
  for (size_t i = 0; i + 1 < ne3; ++i) {
    if (key[i].key != key[i + 1].key) continue;
    const int32_t c1 = key[i].corner, c2 = key[i + 1].corner;
    const int32_t e1 = c1 / 3, a = m->tri[c1], b = m->tri[3 * e1 + (c1 % 3 + 1) % 3];
    ++i;
    const int32_t f = m->nfac++;
    const double tx = m->X[2 * b] - m->X[2 * a], ty = m->X[2 * b + 1] - m->X[2 * a + 1], l = hypot(tx, ty);
    m->bf_em[f] = e1, m->bf_ep[f] = c2 / 3; /* a -> b counter-clockwise in e1 */
    m->bf_loc[4 * f] = c1 % 3, m->bf_loc[4 * f + 1] = (c1 % 3 + 1) % 3;
    m->bf_loc[4 * f + 2] = local_of(m->tri + c2 - c2 % 3, a), m->bf_loc[4 * f + 3] = local_of(m->tri + c2 - c2 % 3, b);
    m->bf_n[2 * f] = ty / l, m->bf_n[2 * f + 1] = -tx / l, m->bf_len[f] = l;
    m->bf_row[2 * f] = m->bf_row[2 * f + 1] = -1;
    if (seg && seg_dist(from, to, m->X[2 * a], m->X[2 * a + 1]) <= tol &&
        seg_dist(from, to, m->X[2 * b], m->X[2 * b + 1]) <= tol)
      m->bf_state[f] = 2, m->nbroken++; /* 2: given in the case, 1: inserted */
  }
  free(key);
  if (seg && m->nbroken == 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s: model.crack: no interior mesh edge lies on the segment from (%g, %g) to (%g, %g) (a crack "
                         "follows mesh edges; boundary edges cannot break)", path, from[0], from[1], to[0], to[1]);
  m->nn_max = 3 * ne; /* at most every corner its own copy (grow_copies makes the room) */
  return SHARD_OK;
}

/* ---- storage that grows with the cracks --------------------------------------------------- */

/* the next capacity for `need`: up by half (and 64) at least, at most max */
static int32_t grown_cap(int32_t cap, int32_t need, int32_t max) {
  int64_t c = (int64_t)cap + cap / 2 + 64;
  if (c < need) c = need;
  return c > max ? max : (int32_t)c;
}

/* *p from n0 to n1 elements of `size` bytes (and a spare), the new ones
 * zero (fill_m1: -1); a NULL *p is allocated (n0 taken as 0). 0 out of
 * memory (*p as it was). */
static int grow_array(void *p, size_t size, size_t n0, size_t n1, int fill_m1) {
  void *old;
  memcpy(&old, p, sizeof old);
  if (!old) n0 = 0;
  void *q = realloc(old, (n1 + 1) * size);
  if (!q) return 0;
  memset((char *)q + n0 * size, fill_m1 ? 0xff : 0, (n1 + 1 - n0) * size);
  memcpy(p, &q, sizeof q);
  return 1;
}

/* The pointers that alias the growing arrays, set again after realloc may
 * have moved them (whether a growth succeeded or not) */
static void tri_alias(tri2d *m) {
  m->sys.mass = m->mass, m->sys.minv = m->minv, m->sys.impulse = m->impulse;
  m->h.rowptr = m->h_rowptr, m->h.colind = m->h_col, m->h.val = m->h_val;
}

#define GROW_NOMEM(what, n0, n1)                                                                                  \
  (tri_alias(m), shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory growing the %s from %d to %d", what, (int)(n0), \
                               (int)(n1)))

/* Room for `need` vertex copies in the per-copy arrays (positions, masses,
 * u, v, a, the wall scratch); the first call allocates those not there yet.
 * Out of memory: the old capacity holds (the arrays grown so far are merely
 * larger). */
static int grow_copies(tri2d *m, int32_t need, shard_msg *msg) {
  if (need <= m->nn_cap && m->mass) return SHARD_OK;
  const int32_t max = m->nn_max > m->nn ? m->nn_max : m->nn;
  if (need > max) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "%d vertex copies, more than the %d corners", (int)need, (int)max);
  const int32_t cap = m->mass ? grown_cap(m->nn_cap, need, max) : (need > m->nn_cap ? need : m->nn_cap);
  const size_t c0 = (size_t)m->nn_cap, c1 = (size_t)cap;
  if (!grow_array(&m->X, sizeof(double), 2 * c0, 2 * c1, 0) || !grow_array(&m->mass, sizeof(double), 2 * c0, 2 * c1, 0) ||
      !grow_array(&m->minv, sizeof(double), 2 * c0, 2 * c1, 0) ||
      !grow_array(&m->sys.u, sizeof(double), 2 * c0, 2 * c1, 0) ||
      !grow_array(&m->sys.v, sizeof(double), 2 * c0, 2 * c1, 0) ||
      !grow_array(&m->sys.a, sizeof(double), 2 * c0, 2 * c1, 0) ||
      (m->wall_mask && !grow_array(&m->wall_mask, 1, c0, c1, 0)) ||
      (m->wshare && !grow_array(&m->wshare, sizeof(double), c0, c1, 0)))
    return GROW_NOMEM("vertex copies", c0, c1);
  tri_alias(m);
  m->nn_cap = cap;
  return SHARD_OK;
}

/* Room for `need` contact rows (at most ncon_room); as grow_copies */
static int grow_rows(tri2d *m, int32_t need, shard_msg *msg) {
  if (need <= m->ncon_cap && m->row_c) return SHARD_OK;
  if (need > m->ncon_room)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "%d contact rows, more than the %d there is room for", (int)need,
                         (int)m->ncon_room);
  const int32_t cap = m->row_c ? grown_cap(m->ncon_cap, need, m->ncon_room) : need;
  const size_t c0 = (size_t)m->ncon_cap, c1 = (size_t)cap;
  if (!grow_array(&m->row_c, sizeof(int32_t), 2 * c0, 2 * c1, 0) ||
      !grow_array(&m->row_wall, sizeof(int32_t), c0, c1, 0) ||
      !grow_array(&m->h_rowptr, sizeof(int32_t), c0 + 1, c1 + 1, 0) /* rowptr[ncon] kept */ ||
      !grow_array(&m->h_col, sizeof(int32_t), 4 * c0, 4 * c1, 0) ||
      !grow_array(&m->h_val, sizeof(double), 4 * c0, 4 * c1, 0) || !grow_array(&m->g0, sizeof(double), c0, c1, 0) ||
      !grow_array(&m->row_w, sizeof(double), c0, c1, 0) || !grow_array(&m->pen_f, sizeof(double), c0, c1, 0) ||
      !grow_array(&m->pen_k, sizeof(double), c0, c1, 0) || !grow_array(&m->pen_e, sizeof(double), c0, c1, 0) ||
      !grow_array(&m->gap, sizeof(double), c0, c1, 0) || !grow_array(&m->impulse, sizeof(double), c0, c1, 0) ||
      !grow_array(&m->row_pt, sizeof(int32_t), c0, c1, 1) || !grow_array(&m->crack_row, sizeof(int32_t), c0, c1, 1))
    return GROW_NOMEM("contact rows", c0, c1);
  tri_alias(m);
  m->ncon_cap = cap;
  return SHARD_OK;
}

/* the cohesive points' arrays: slices of one block of npt_cap each */
static void point_slices(tri2d *m) {
  const size_t np = (size_t)m->npt_cap;
  double **arr[] = {&m->pt_w, &m->pt_sc, &m->pt_dc, &m->pt_dmax, &m->pt_dmax_s, &m->pt_dn, &m->pt_dt, &m->pt_tn,
                    &m->pt_tt, &m->pt_kn, &m->pt_kt, &m->pt_rev, &m->pt_dn0, &m->pt_dt0, &m->pt_tn0, &m->pt_tt0,
                    &m->pt_work};
  for (size_t k = 0; k < sizeof arr / sizeof arr[0]; ++k) *arr[k] = m->coh + k * np;
  m->pt_n = m->coh + 17 * np; /* two per point */
}

/* Room for `need` cohesive points (at most npt_max): a new block, the
 * values of every slice copied; out of memory, the old block holds. */
static int grow_points(tri2d *m, int32_t need, shard_msg *msg) {
  if (need <= m->npt_cap && m->coh) return SHARD_OK;
  if (need > m->npt_max)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "%d cohesive points, more than the %d facet ends", (int)need,
                         (int)m->npt_max);
  const int32_t cap = m->coh ? grown_cap(m->npt_cap, need, m->npt_max) : need;
  const size_t c0 = m->coh ? (size_t)m->npt_cap : 0, c1 = (size_t)cap;
  double *coh = calloc(19 * c1 + 1, sizeof *coh);
  if (!coh || !grow_array(&m->pt_fac, sizeof(int32_t), c0, c1, 0)) {
    free(coh);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory growing the cohesive points from %d to %d", (int)c0,
                         (int)c1);
  }
  if (m->coh) {
    for (size_t k = 0; k < 17; ++k) memcpy(coh + k * c1, m->coh + k * c0, c0 * sizeof *coh);
    memcpy(coh + 17 * c1, m->coh + 17 * c0, 2 * c0 * sizeof *coh);
  }
  free(m->coh);
  m->coh = coh, m->npt_cap = cap;
  point_slices(m);
  return SHARD_OK;
}

/* Rows after nbroken facets broke with nn copies: the rows there are, the
 * crack rows still to come (a row per end of a broken facet at most), and,
 * with walls and a crack, a row per wall at each copy a crack row will
 * hold (two per crack row, at most nn) */
static int32_t rows_bound(const tri2d *m, int64_t nbroken, int64_t nn) {
  const int64_t crack = 2 * nbroken, held = 2 * crack < nn ? 2 * crack : nn;
  const int64_t now = m->ncon > m->nwall_rows ? m->ncon : m->nwall_rows;
  const int64_t rows = now + (crack - m->ncrack_rows) + (m->wall_mask ? (int64_t)m->nwalls * held : 0);
  return rows < m->ncon_room ? (int32_t)rows : m->ncon_room;
}

/* Room for the copies, rows and points of nbroken broken facets (a broken
 * facet splits each of its two vertices at most once more). */
static int grow_for(tri2d *m, int32_t new_broken, shard_msg *msg) {
  const int64_t nb = (int64_t)m->nbroken + new_broken, nn = (int64_t)m->nn + 2 * (int64_t)new_broken;
  const int32_t nn_need = nn < m->nn_max ? (int32_t)nn : m->nn_max;
  int st = grow_copies(m, nn_need > m->nn ? nn_need : m->nn, msg);
  if (st == SHARD_OK) st = grow_rows(m, rows_bound(m, nb, nn_need), msg);
  if (st == SHARD_OK && m->coh) st = grow_points(m, 2 * nb < m->npt_max ? (int32_t)(2 * nb) : m->npt_max, msg);
  return st;
}

/* The vertex copies after facets broke: the element corners joined across
 * every intact facet (union-find over the 3 ne corners) form classes, each
 * class one copy. The classes can only refine the current copies: of the
 * classes holding one copy, the first met (in corner order) keeps it, the
 * others get new copies appended, with the position and, once the run has
 * a state, u, v, a and the integrator's vectors of their source. */
static int split_vertices(tri2d *m, shard_msg *msg) {
  const size_t ne3 = 3 * (size_t)m->ne;
  int32_t *par = malloc(ne3 * sizeof *par), *copy = malloc(ne3 * sizeof *copy);
  char *seen = calloc((size_t)m->nn + 1, 1);
  if (!par || !copy || !seen) {
    free(par), free(copy), free(seen);
    return NOMEM("the vertex copies");
  }
  for (size_t i = 0; i < ne3; ++i) par[i] = (int32_t)i, copy[i] = -1;
  for (int32_t f = 0; f < m->nfac; ++f) {
    if (m->bf_state[f]) continue;
    for (int k = 0; k < 2; ++k) {
      const int32_t x = uf_find(par, 3 * m->bf_em[f] + m->bf_loc[4 * f + k]);
      const int32_t y = uf_find(par, 3 * m->bf_ep[f] + m->bf_loc[4 * f + 2 + k]);
      if (x != y) par[x > y ? x : y] = x < y ? x : y;
    }
  }
  int32_t nn = m->nn;
  shard_system *s = &m->sys;
  for (size_t c = 0; c < ne3; ++c) {
    const int32_t r = uf_find(par, (int32_t)c), v = m->tri[c];
    if (copy[r] >= 0) continue;
    if (!seen[v]) {
      copy[r] = v, seen[v] = 1;
      continue;
    }
    if (nn >= m->nn_cap) { /* grow_copies made room for every copy a split can make */
      free(par), free(copy), free(seen);
      return shard_msg_set(msg, SHARD_ERR_INTERNAL, "a vertex split needs more than the %d copies reserved",
                           (int)m->nn_cap);
    }
    const int32_t w = copy[r] = nn++;
    m->X[2 * w] = m->X[2 * v], m->X[2 * w + 1] = m->X[2 * v + 1];
    if (s->u)
      for (int d = 0; d < 2; ++d) {
        s->u[2 * w + d] = s->u[2 * v + d], s->v[2 * w + d] = s->v[2 * v + d], s->a[2 * w + d] = s->a[2 * v + d];
        for (uint32_t k = 0; k < s->n_aux; ++k)
          s->aux[(size_t)k * s->ndof_max + 2 * w + d] = s->aux[(size_t)k * s->ndof_max + 2 * v + d];
      }
  }
  for (size_t c = 0; c < ne3; ++c) m->tri[c] = copy[uf_find(par, (int32_t)c)];
  m->nn = nn, m->ndof = 2 * nn;
  free(par), free(copy), free(seen);
  return SHARD_OK;
}

/* rectangle with a crack: per node and side, half the length of its boundary
 * edges (edges of one triangle) on that side, for the wall weights */
static int side_shares(tri2d *m, shard_msg *msg) {
  const size_t ne3 = 3 * (size_t)m->ne;
  int64_t *edges = malloc(ne3 * sizeof *edges);
  if (!edges || !(m->sshare = calloc((size_t)W_N * (size_t)m->nn, sizeof *m->sshare))) {
    free(edges);
    return NOMEM("the mesh boundary");
  }
  for (int32_t e = 0; e < m->ne; ++e)
    for (int k = 0; k < 3; ++k) {
      const int64_t a = m->tri[3 * e + k], b = m->tri[3 * e + (k + 1) % 3];
      edges[3 * (size_t)e + k] = a < b ? a * m->nn + b : b * m->nn + a;
    }
  qsort(edges, ne3, sizeof *edges, cmp_edge);
  for (size_t i = 0; i < ne3;) {
    size_t j = i;
    while (j < ne3 && edges[j] == edges[i]) ++j;
    const int32_t a = (int32_t)(edges[i] / m->nn), b = (int32_t)(edges[i] % m->nn);
    if (j - i == 1) {
      const double xa = m->X[2 * a], ya = m->X[2 * a + 1], xb = m->X[2 * b], yb = m->X[2 * b + 1];
      const double half = 0.5 * hypot(xa - xb, ya - yb);
      const int side[4] = {xa == m->xmin && xb == m->xmin, xa == m->xmax && xb == m->xmax,
                           ya == m->ymin && yb == m->ymin, ya == m->ymax && yb == m->ymax};
      for (int s = 0; s < 4; ++s)
        if (side[s]) {
          m->sshare[(size_t)s * m->nn + a] += half, m->sshare[(size_t)s * m->nn + b] += half;
          m->sshare[(size_t)W_OBLIQUE * m->nn + a] += half, m->sshare[(size_t)W_OBLIQUE * m->nn + b] += half;
        }
    }
    i = j;
  }
  free(edges);
  return SHARD_OK;
}

/* mesh.file relative to the case file's directory (absolute kept) */
static int build_file(tri2d *m, const shard_params *pp, const char *path, shard_msg *msg) {
  const char *file = shard_params_string(pp, "mesh.file");
  if (!file || !*file)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh.file is required with mesh.shape: file", path);
  if (shard_params_real(pp, "mesh.perturbation") > 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh.perturbation moves the nodes of the built-in meshes "
                         "only, not of mesh.file", path);
  char full[4096];
  const char *slash = strrchr(path, '/');
  int n;
  if (file[0] == '/' || !slash) n = snprintf(full, sizeof full, "%s", file);
  else n = snprintf(full, sizeof full, "%.*s/%s", (int)(slash - path), path, file);
  if (n < 0 || (size_t)n >= sizeof full)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh.file: path too long", path);
  return read_msh(m, full, msg);
}

/* boundary nodes of the rectangle facing side s (W_OBLIQUE: all of the
 * boundary), and the node's tributary length on that side */
static int on_side(const tri2d *m, int32_t n, int s) {
  (void)s;
  if (m->bshare) return m->bshare[n] > 0; /* every boundary node, for every wall */
  const double x = m->X[2 * n], y = m->X[2 * n + 1];
  switch (s) {
  case W_LEFT: return x == m->xmin;
  case W_RIGHT: return x == m->xmax;
  case W_BOTTOM: return y == m->ymin;
  case W_TOP: return y == m->ymax;
  default: return x == m->xmin || x == m->xmax || y == m->ymin || y == m->ymax;
  }
}

static double tributary(const tri2d *m, int32_t n, int s) {
  if (m->bshare) return m->bshare[n];
  if (m->sshare) return m->sshare[(size_t)s * m->nn + n];
  const double x = m->X[2 * n], y = m->X[2 * n + 1];
  const int vert = x == m->xmin || x == m->xmax, horiz = y == m->ymin || y == m->ymax;
  double len = 0.0;
  if (s == W_LEFT || s == W_RIGHT || (s == W_OBLIQUE && vert)) len += horiz ? 0.5 * m->cell_dy : m->cell_dy;
  if (s == W_BOTTOM || s == W_TOP || (s == W_OBLIQUE && horiz)) len += vert ? 0.5 * m->cell_dx : m->cell_dx;
  return len;
}

/* the list key `key` as two finite numbers into out; 0 when absent */
static int pair_of(const shard_params *pp, const char *key, double out[2], const char *path, int *bad,
                   shard_msg *msg) {
  const shard_param_value *v = shard_params_find(pp, key);
  if (!v) return 0;
  if (v->n_list != 2) {
    *bad = shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.%s needs two values [x, y], got %u", path, key, v->n_list);
    return 0;
  }
  out[0] = v->list[0], out[1] = v->list[1];
  return 1;
}

/* Rows for the broken facets' ends that have none and whose two sides hold
 * different copies: g = n_f . (u+ - u-) (the copies share their reference
 * position), -n_f on the DOFs of c-, +n_f on those of c+ (columns sorted),
 * penalty weight the end's half length over h_mean; with a fracture
 * section, a cohesive point each (weight t l_f / 2). Appended: the rows
 * and points already there keep their index. */
/* row r (a crack row, the rows before it in place) for end k of facet f */
static void fill_row(tri2d *m, int32_t r, int32_t f, int k) {
  const int32_t cm = m->tri[3 * m->bf_em[f] + m->bf_loc[4 * f + k]];
  const int32_t cp = m->tri[3 * m->bf_ep[f] + m->bf_loc[4 * f + 2 + k]];
  const double nx = m->bf_n[2 * f], ny = m->bf_n[2 * f + 1];
  const int32_t q = m->h_rowptr[r];
  m->row_c[2 * r] = cm, m->row_c[2 * r + 1] = cp, m->row_wall[r] = -1;
  if (m->row_pt[r] < 0) m->row_pt[r] = m->ncrack_rows, m->crack_row[m->ncrack_rows++] = r; /* a new crack row */
  const int lo = cm < cp ? 0 : 2;
  m->h_col[q + lo] = 2 * cm, m->h_col[q + lo + 1] = 2 * cm + 1;
  m->h_col[q + 2 - lo] = 2 * cp, m->h_col[q + 3 - lo] = 2 * cp + 1;
  m->h_val[q + lo] = -nx, m->h_val[q + lo + 1] = -ny, m->h_val[q + 2 - lo] = nx, m->h_val[q + 3 - lo] = ny;
  m->h_rowptr[r + 1] = q + 4;
  m->g0[r] = 0.0;
  m->row_w[r] = 0.5 * m->bf_len[f] / m->h_mean;
  m->bf_row[2 * f + k] = r;
  if (m->coh) {
    const int32_t i = m->row_pt[r];
    m->pt_fac[i] = f, m->pt_n[2 * i] = nx, m->pt_n[2 * i + 1] = ny, m->pt_w[i] = 0.5 * m->thick * m->bf_len[f];
  }
}

/* Rows for the broken facets' ends: an end that has a row gets it again on
 * the copies its sides hold now (a later split may have given one side a
 * new copy); an end without one gets a new row once its sides differ. */
static void add_crack_rows(tri2d *m) {
  for (int32_t f = 0; f < m->nfac; ++f) {
    if (!m->bf_state[f]) continue;
    for (int k = 0; k < 2; ++k) {
      if (m->bf_row[2 * f + k] >= 0) {
        fill_row(m, m->bf_row[2 * f + k], f, k);
        continue;
      }
      if (m->tri[3 * m->bf_em[f] + m->bf_loc[4 * f + k]] == m->tri[3 * m->bf_ep[f] + m->bf_loc[4 * f + 2 + k]])
        continue;
      const int32_t r = m->ncon++;
      m->row_pt[r] = -1;
      fill_row(m, r, f, k);
      m->impulse[r] = 0.0;
    }
  }
  if (m->coh) m->npt = m->ncrack_rows;
  m->h.nrows = m->ncon;
}

/* row r: the wall row of copy c on wall s, penalty weight w (the rows
 * before it in place) */
static void fill_wall_row(tri2d *m, int32_t r, int s, int32_t c, double w) {
  const int32_t q = m->h_rowptr[r];
  const double nx = m->wn[s][0], ny = m->wn[s][1];
  m->row_c[2 * r] = -1, m->row_c[2 * r + 1] = c, m->row_wall[r] = s, m->row_pt[r] = -1;
  m->h_col[q] = 2 * c, m->h_col[q + 1] = 2 * c + 1, m->h_val[q] = nx, m->h_val[q + 1] = ny;
  m->h_rowptr[r + 1] = q + 2;
  m->g0[r] = nx * m->X[2 * c] + ny * m->X[2 * c + 1] - m->woff[s];
  m->row_w[r] = w;
  m->wall_mask[c] |= (unsigned char)(1u << s);
}

/* The facet of each corner's edge (edge k of e: corner k to k + 1), -1 on
 * the outer boundary; walls with a crack only. */
static void edge_facets(tri2d *m) {
  for (size_t c = 0; c < 3 * (size_t)m->ne; ++c) m->edge_fac[c] = -1;
  for (int32_t f = 0; f < m->nfac; ++f) {
    const int la = m->bf_loc[4 * f + 2], lb = m->bf_loc[4 * f + 3];
    m->edge_fac[3 * (size_t)m->bf_em[f] + m->bf_loc[4 * f]] = f; /* a -> b in e- */
    m->edge_fac[3 * (size_t)m->bf_ep[f] + ((lb + 1) % 3 == la ? lb : la)] = f; /* b -> a in e+ */
  }
}

/* Wall rows for the copies on a crack. A vertex split by broken facets has
 * copies on the crack's faces, which face a wall once their piece moves:
 * every copy a crack row holds (its c-, c+) gets a row on each wall it has
 * none on yet (appended). The penalty weight of every wall row at such a
 * copy (a set-up row included) is the copy's share of the boundary, half
 * its edges on the outer boundary or on a broken facet, over h_mean, set
 * again after each insertion. An interior vertex no crack has split stays
 * inside its piece, behind the boundary vertices, and needs none. Nothing
 * is allocated. */
#define ON_CRACK 0x80u /* scratch bit of wall_mask: the copy is held by a crack row */
static void add_wall_rows(tri2d *m) {
  if (!m->wall_mask || !m->ncrack_rows) return;
  memset(m->wshare, 0, (size_t)m->nn * sizeof *m->wshare);
  for (int32_t e = 0; e < m->ne; ++e)
    for (int k = 0; k < 3; ++k) {
      const int32_t f = m->edge_fac[3 * (size_t)e + k];
      if (f >= 0 && !m->bf_state[f]) continue;
      const int32_t a = m->tri[3 * e + k], b = m->tri[3 * e + (k + 1) % 3];
      const double half = 0.5 * hypot(m->X[2 * a] - m->X[2 * b], m->X[2 * a + 1] - m->X[2 * b + 1]);
      m->wshare[a] += half, m->wshare[b] += half;
    }
  for (int32_t i = 0; i < m->ncrack_rows; ++i)
    for (int c = 0; c < 2; ++c) m->wall_mask[m->row_c[2 * m->crack_row[i] + c]] |= ON_CRACK;
  for (int32_t r = 0; r < m->ncon; ++r)
    if (m->row_pt[r] < 0 && (m->wall_mask[m->row_c[2 * r + 1]] & ON_CRACK))
      m->row_w[r] = m->wshare[m->row_c[2 * r + 1]] / m->h_mean;
  for (int32_t i = 0; i < m->ncrack_rows; ++i)
    for (int c = 0; c < 2; ++c) {
      const int32_t v = m->row_c[2 * m->crack_row[i] + c];
      for (int s = 0; s < W_N; ++s)
        if (m->has_wall[s] && !(m->wall_mask[v] & (1u << s))) {
          const int32_t r = m->ncon++;
          fill_wall_row(m, r, s, v, m->wshare[v] / m->h_mean);
          m->impulse[r] = 0.0;
        }
    }
  for (int32_t i = 0; i < m->ncrack_rows; ++i)
    for (int c = 0; c < 2; ++c) m->wall_mask[m->row_c[2 * m->crack_row[i] + c]] &= (unsigned char)~ON_CRACK;
  m->h.nrows = m->ncon;
}

/* The springs' bounds of the stable step: u^T K_p u <= sum_i s_i |u_i|^2,
 * a wall row's spring at its node, a crack row's (n . (u+ - u-))^2 <=
 * 2 (|u+|^2 + |u-|^2) twice at each copy; the same for the cohesive points. */
static int row_springs(tri2d *m, shard_msg *msg) {
  double *wsum = calloc(2 * (size_t)m->nn, sizeof *wsum), *csum = wsum + m->nn;
  if (!wsum) return NOMEM("the contact rows");
  for (int32_t q = 0; q < m->ncon; ++q)
    for (int c = 0; c < 2; ++c)
      if (m->row_c[2 * q + c] >= 0) wsum[m->row_c[2 * q + c]] += (m->row_pt[q] < 0 ? 1.0 : 2.0) * m->row_w[q];
  for (int32_t i = 0; i < m->npt; ++i)
    for (int c = 0; c < 2; ++c) csum[m->row_c[2 * m->crack_row[i] + c]] += 2.0 * m->pt_w[i];
  m->spring_per_mass = m->coh_per_mass = 0;
  for (int32_t i = 0; i < m->nn; ++i) {
    m->spring_per_mass = fmax(m->spring_per_mass, wsum[i] / m->mass[2 * i]);
    m->coh_per_mass = fmax(m->coh_per_mass, csum[i] / m->mass[2 * i]);
  }
  free(wsum);
  if (!m->insertion) return SHARD_OK;
  /* With insertion the rows and points come during the run, and the step is
   * fixed at set-up: bound them by the worst case, every facet broken and
   * every triangle corner its own copy (mass rho t A / 3) carrying the ends
   * of the facets of its triangle that meet at it (a crack row's weight
   * l_f / (2 h_mean), a point's t l_f / 2, both counted twice as above). */
  double *acc = calloc(3 * (size_t)m->ne, sizeof *acc);
  if (!acc) return NOMEM("the contact rows");
  for (int32_t f = 0; f < m->nfac; ++f)
    for (int k = 0; k < 2; ++k) {
      acc[3 * (size_t)m->bf_em[f] + m->bf_loc[4 * f + k]] += m->bf_len[f];
      acc[3 * (size_t)m->bf_ep[f] + m->bf_loc[4 * f + 2 + k]] += m->bf_len[f];
    }
  for (int32_t e = 0; e < m->ne; ++e) {
    const double mc = m->rho * m->thick * m->geo[7 * e + 6] / 3.0;
    for (int k = 0; k < 3; ++k) {
      const double l = acc[3 * (size_t)e + k];
      m->spring_per_mass = fmax(m->spring_per_mass, 2.0 * 0.5 * l / m->h_mean / mc);
      if (m->fracture) m->coh_per_mass = fmax(m->coh_per_mass, 2.0 * 0.5 * m->thick * l / mc);
    }
  }
  /* Walls: a copy on a crack has at most one row per wall, of weight its
   * boundary share over h_mean, at most half the two edges at each of its
   * corners summed over them, on a mass that is the sum of its corners':
   * its wall springs per mass are at most the largest over its corners of
   * n_walls (l1 + l2) / (2 h_mean m_c), its crack springs at most the
   * largest of its corners' above; both bounded per vertex v (as at set-up:
   * copies only ever split further) and added. A vertex no crack holds
   * keeps its set-up rows and mass, counted above. Bounded once, at set-up. */
  if (m->nwalls && !(m->wall_spm > 0)) {
    double *wv = calloc(2 * (size_t)m->nn, sizeof *wv), *cv = wv + m->nn;
    if (!wv) {
      free(acc);
      return NOMEM("the contact rows");
    }
    for (int32_t e = 0; e < m->ne; ++e) {
      const double mc = m->rho * m->thick * m->geo[7 * e + 6] / 3.0;
      const int32_t *t = m->tri + 3 * e;
      for (int k = 0; k < 3; ++k) {
        const int32_t a = t[k], b = t[(k + 1) % 3], c = t[(k + 2) % 3];
        const double lab = hypot(m->X[2 * a] - m->X[2 * b], m->X[2 * a + 1] - m->X[2 * b + 1]);
        const double lac = hypot(m->X[2 * a] - m->X[2 * c], m->X[2 * a + 1] - m->X[2 * c + 1]);
        wv[a] = fmax(wv[a], m->nwalls * 0.5 * (lab + lac) / m->h_mean / mc);
        cv[a] = fmax(cv[a], 2.0 * 0.5 * acc[3 * (size_t)e + k] / m->h_mean / mc);
      }
    }
    for (int32_t i = 0; i < m->nn; ++i) m->wall_spm = fmax(m->wall_spm, wv[i] + cv[i]);
    free(wv);
  }
  m->spring_per_mass = fmax(m->spring_per_mass, m->wall_spm);
  free(acc);
  return SHARD_OK;
}

static int tri2d_create(const shard_model_args *a, void **out_self, shard_system **out_sys, shard_msg *msg) {
  *out_self = NULL;
  const char *path = a->case_path ? a->case_path : "(case)";
  int st = shard_params_check(a->params, msg);
  if (st != SHARD_OK) return st;
  const shard_params *pp = a->params;
  tri2d *m = calloc(1, sizeof *m);
  if (!m) return NOMEM("the tri2d model");
  if (a->fracture) {
    const shard_params *fr = a->fracture;
    m->fr = *fr, m->fracture = 1;
    m->g_c = shard_params_real(fr, "g_c"), m->insertion = shard_params_bool(fr, "insertion");
    static const char *const bar_keys[] = {"initial.count", "initial.position", "initial.node"};
    for (int k = 0; k < 3; ++k)
      if (shard_params_has(fr, bar_keys[k]) && !(k == 0 && shard_params_int(fr, bar_keys[k]) == 0)) {
        free(m);
        return shard_msg_set(msg, SHARD_ERR_INPUT,
                             "%s: fracture.%s places interfaces on the 1D bar's nodes; the tri2d model's initial "
                             "crack is model.crack (from, to)", path, bar_keys[k]);
      }
    const shard_param_value *dv = shard_params_find(fr, "initial.damage");
    if (dv && dv->n_list > 1) {
      free(m);
      return shard_msg_set(msg, SHARD_ERR_INPUT,
                           "%s: fracture.initial.damage has %u values: the tri2d model's crack takes one", path,
                           dv->n_list);
    }
    m->d0 = dv && dv->n_list ? dv->list[0] : 0.0;
  }
#define FAIL(code_)  \
  do {               \
    st = (code_);    \
    goto fail;       \
  } while (0)
  m->young = shard_params_real(pp, "young"), m->nu = shard_params_real(pp, "poisson");
  m->rho = shard_params_real(pp, "density"), m->thick = shard_params_real(pp, "thickness");
  const char *plane = shard_params_string(pp, "plane");
  m->plane_strain = plane && strcmp(plane, "strain") == 0;
  const double E = m->young, nu = m->nu;
  if (m->plane_strain) {
    const double f = E / ((1 + nu) * (1 - 2 * nu));
    m->D[0][0] = m->D[1][1] = f * (1 - nu), m->D[0][1] = m->D[1][0] = f * nu, m->D[2][2] = f * (1 - 2 * nu) / 2;
  } else {
    const double f = E / (1 - nu * nu);
    m->D[0][0] = m->D[1][1] = f, m->D[0][1] = m->D[1][0] = f * nu, m->D[2][2] = f * (1 - nu) / 2;
  }
  m->cp = sqrt(m->D[0][0] / m->rho);
  const char *shape = shard_params_string(pp, "mesh.shape");
  const int annulus = shape && strcmp(shape, "annulus") == 0, from_file = shape && strcmp(shape, "file") == 0;
  const int disk = shape && strcmp(shape, "disk") == 0;
  st = annulus ? build_annulus(m, pp, path, msg)
       : disk  ? build_disk(m, pp, path, msg)
       : from_file ? build_file(m, pp, path, msg)
                   : build_rectangle(m, pp, path, msg);
  if (st != SHARD_OK) goto fail;
  m->nn_cap = m->nn; /* X holds the mesh's vertices */
  if ((annulus || disk || from_file) && (st = boundary_shares(m, path, msg)) != SHARD_OK) goto fail;
  {
    double cf[2], ct[2];
    int bad = SHARD_OK;
    const int has_f = pair_of(pp, "crack.from", cf, path, &bad, msg);
    if (bad != SHARD_OK) FAIL(bad);
    const int has_t = pair_of(pp, "crack.to", ct, path, &bad, msg);
    if (bad != SHARD_OK) FAIL(bad);
    if (has_f != has_t) FAIL(shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.crack needs both 'from' and 'to'", path));
    if (has_f || m->insertion) {
      if ((st = build_facets(m, has_f, cf, ct, path, msg)) != SHARD_OK) goto fail;
      /* room for the copies of the case's crack (the run's grow with it) */
      const int64_t nn_crack = (int64_t)m->nn + 2 * (int64_t)m->nbroken;
      if ((st = grow_copies(m, nn_crack < m->nn_max ? (int32_t)nn_crack : m->nn_max, msg)) != SHARD_OK) goto fail;
      if ((st = split_vertices(m, msg)) != SHARD_OK) goto fail;
    }
    if (has_f) {
      if (m->bshare) { /* the crack faces are boundary now */
        free(m->bshare), m->bshare = NULL;
        if ((st = boundary_shares(m, path, msg)) != SHARD_OK) goto fail;
      } else if ((st = side_shares(m, msg)) != SHARD_OK)
        goto fail;
    }
  }
  const int32_t nn = m->nn, ne = m->ne, ndof = m->ndof;
  const int32_t ndof_max = m->insertion ? 2 * m->nn_max : ndof; /* inserting: every corner may become a copy */
  if (!m->insertion) m->nn_max = nn; /* the copies there are */
  /* the per-copy arrays for the copies there are; insert grows them */
  if ((st = grow_copies(m, nn, msg)) != SHARD_OK) goto fail;
  if (!(m->geo = malloc((size_t)ne * 7 * sizeof *m->geo)) ||
      (m->insertion && !(m->sig_el = malloc((size_t)ne * 3 * sizeof(double)))))
    FAIL(NOMEM("the mesh"));
  /* geometry, lumped mass, sizes */
  double hsum = 0;
  m->h_min = INFINITY, m->lambda_el = 0;
  for (int32_t e = 0; e < ne; ++e) {
    const int32_t *t = m->tri + 3 * e;
    double x[3], y[3];
    for (int k = 0; k < 3; ++k) x[k] = m->X[2 * t[k]], y[k] = m->X[2 * t[k] + 1];
    const double a2 = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
    if (!(a2 > 0))
      FAIL(shard_msg_set(msg, SHARD_ERR_INPUT,
                         "%s: model.mesh: triangle %d has area %g (not positive): lower mesh.perturbation", path,
                         (int)e, 0.5 * a2));
    double *g = m->geo + 7 * e, lmax = 0;
    for (int k = 0; k < 3; ++k) {
      const int j = (k + 1) % 3, l = (k + 2) % 3;
      g[k] = (y[j] - y[l]) / a2, g[3 + k] = (x[l] - x[j]) / a2;
      const double len = hypot(x[j] - x[l], y[j] - y[l]);
      lmax = fmax(lmax, len), hsum += len;
    }
    g[6] = 0.5 * a2;
    m->h_min = fmin(m->h_min, a2 / lmax);
    const double me = m->rho * m->thick * g[6] / 3.0;
    for (int k = 0; k < 3; ++k) m->mass[2 * t[k]] += me, m->mass[2 * t[k] + 1] += me;
    m->lambda_el = fmax(m->lambda_el, element_lambda(m, e));
  }
  m->h_mean = hsum / (3.0 * ne);
  m->mass_min = INFINITY, m->mass_total = 0;
  for (int32_t i = 0; i < nn; ++i) {
    m->minv[2 * i] = m->minv[2 * i + 1] = 1.0 / m->mass[2 * i];
    m->mass_min = fmin(m->mass_min, m->mass[2 * i]), m->mass_total += m->mass[2 * i];
  }
  /* initial velocity */
  double v0[2] = {0, 0};
  int bad = SHARD_OK;
  pair_of(pp, "initial.velocity", v0, path, &bad, msg);
  if (bad != SHARD_OK) FAIL(bad);
  const double rate = shard_params_real(pp, "initial.strain_rate");
  const double cx = 0.5 * (m->xmin + m->xmax), cy = 0.5 * (m->ymin + m->ymax);
  const shard_param_value *region = shard_params_find(pp, "initial.region");
  if (region && region->n_list != 4)
    FAIL(shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.initial.region needs four values [xmin, ymin, xmax, ymax], got %u",
                       path, region->n_list));
  for (int32_t i = 0; i < nn; ++i) {
    m->sys.v[2 * i] = v0[0] + rate * (m->X[2 * i] - cx);
    m->sys.v[2 * i + 1] = v0[1] + rate * (m->X[2 * i + 1] - cy);
  }
  if (region) { /* only the vertices of the triangles whose centroid is in the box move */
    const double *bx = region->list;
    char *in = calloc((size_t)nn, 1);
    if (!in) FAIL(NOMEM("the initial region"));
    for (int32_t e = 0; e < ne; ++e) {
      const int32_t *t = m->tri + 3 * e;
      const double gx = (m->X[2 * t[0]] + m->X[2 * t[1]] + m->X[2 * t[2]]) / 3.0;
      const double gy = (m->X[2 * t[0] + 1] + m->X[2 * t[1] + 1] + m->X[2 * t[2] + 1]) / 3.0;
      if (gx >= bx[0] && gx <= bx[2] && gy >= bx[1] && gy <= bx[3]) in[t[0]] = in[t[1]] = in[t[2]] = 1;
    }
    for (int32_t i = 0; i < nn; ++i)
      if (!in[i]) m->sys.v[2 * i] = m->sys.v[2 * i + 1] = 0.0;
    free(in);
  }
  /* walls */
  static const char *const gap_key[4] = {"walls.left.gap", "walls.right.gap", "walls.bottom.gap", "walls.top.gap"};
  static const double axis_n[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  for (int s = 0; s < 4; ++s)
    if (shard_params_has(pp, gap_key[s])) {
      const double gap = shard_params_real(pp, gap_key[s]);
      const double px = s == W_LEFT ? m->xmin - gap : s == W_RIGHT ? m->xmax + gap : 0;
      const double py = s == W_BOTTOM ? m->ymin - gap : s == W_TOP ? m->ymax + gap : 0;
      m->has_wall[s] = 1, m->wn[s][0] = axis_n[s][0], m->wn[s][1] = axis_n[s][1];
      m->woff[s] = axis_n[s][0] * px + axis_n[s][1] * py;
    }
  double op[2], on[2];
  const int has_p = pair_of(pp, "walls.oblique.point", op, path, &bad, msg);
  if (bad != SHARD_OK) FAIL(bad);
  const int has_n = pair_of(pp, "walls.oblique.normal", on, path, &bad, msg);
  if (bad != SHARD_OK) FAIL(bad);
  if (has_p != has_n)
    FAIL(shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.walls.oblique needs both 'point' and 'normal'", path));
  if (has_p) {
    const double len = hypot(on[0], on[1]);
    if (!(len > 0) || !isfinite(len))
      FAIL(shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.walls.oblique.normal [%g, %g] has no direction", path,
                         on[0], on[1]));
    m->has_wall[W_OBLIQUE] = 1, m->wn[W_OBLIQUE][0] = on[0] / len, m->wn[W_OBLIQUE][1] = on[1] / len;
    m->woff[W_OBLIQUE] = m->wn[W_OBLIQUE][0] * op[0] + m->wn[W_OBLIQUE][1] * op[1];
  }
  int32_t ncon = 0;
  for (int s = 0; s < W_N; ++s)
    for (int32_t i = 0; m->has_wall[s] && i < nn; ++i) ncon += on_side(m, i, s);
  m->nwall_rows = ncon;
  for (int s = 0; s < W_N; ++s) m->nwalls += m->has_wall[s];
  /* crack rows: one per facet end whose two sides hold different copies
   * (inserting: room for both ends of every facet) */
  int32_t ncrack = 0;
  for (int32_t f = 0; f < m->nfac; ++f)
    for (int k = 0; k < 2; ++k)
      ncrack += m->insertion || (m->bf_state[f] && m->tri[3 * m->bf_em[f] + m->bf_loc[4 * f + k]] !=
                                                      m->tri[3 * m->bf_ep[f] + m->bf_loc[4 * f + 2 + k]]);
  /* walls with a crack: the copies on it get wall rows too, at most one per
   * copy and wall (inserting: every corner may become a copy; else the two
   * copies of each crack row) */
  const int walls_crack = m->nwalls > 0 && ncrack > 0;
  int64_t room = (int64_t)ncon + ncrack;
  if (walls_crack) room = m->insertion ? (int64_t)m->nwalls * m->nn_max + ncrack : room + 2LL * m->nwalls * ncrack;
  if (room > INT32_MAX / 4)
    FAIL(shard_msg_set(msg, SHARD_ERR_INPUT, "%s: model.mesh: %lld contact rows are too many", path, (long long)room));
  const int32_t ncon_max = (int32_t)room;
  m->ncon_room = ncon_max > 0 ? ncon_max : 1;
  if (walls_crack && (!(m->wall_mask = calloc((size_t)m->nn_cap + 1, 1)) ||
                      !(m->wshare = calloc((size_t)m->nn_cap + 1, sizeof(double))) ||
                      !(m->edge_fac = malloc(3 * (size_t)ne * sizeof(int32_t)))))
    FAIL(NOMEM("the wall rows"));
  /* the rows of the walls and of the case's crack; insert grows them */
  if ((st = grow_rows(m, m->insertion ? rows_bound(m, m->nbroken, nn) : m->ncon_room, msg)) != SHARD_OK) goto fail;
  if (walls_crack) edge_facets(m);
  int32_t r = 0;
  for (int s = 0; s < W_N; ++s)
    for (int32_t i = 0; m->has_wall[s] && i < nn; ++i) {
      if (!on_side(m, i, s)) continue;
      const double nx = m->wn[s][0], ny = m->wn[s][1];
      m->row_c[2 * r] = -1, m->row_c[2 * r + 1] = i, m->row_wall[r] = s, m->h_rowptr[r] = 2 * r;
      m->h_col[2 * r] = 2 * i, m->h_col[2 * r + 1] = 2 * i + 1, m->h_val[2 * r] = nx, m->h_val[2 * r + 1] = ny;
      m->g0[r] = nx * m->X[2 * i] + ny * m->X[2 * i + 1] - m->woff[s];
      m->row_w[r] = tributary(m, i, s) / m->h_mean;
      if (m->wall_mask) m->wall_mask[i] |= (unsigned char)(1u << s);
      if (m->g0[r] < 0)
        FAIL(shard_msg_set(msg, SHARD_ERR_INPUT,
                           "%s: model.walls.%s: node %d at (%g, %g) starts %g m behind the wall", path, wall_name[s],
                           (int)i, m->X[2 * i], m->X[2 * i + 1], -m->g0[r]));
      ++r;
    }
  m->ncon = ncon;
  m->h_rowptr[ncon] = 2 * ncon;
  m->h = (shard_csr){ncon, ndof, m->h_rowptr, m->h_col, m->h_val};
  if (m->fracture && ncrack > 0) { /* the cohesive points: the crack rows' facet ends (insert grows them) */
    m->npt_max = ncrack;
    const int32_t np = m->insertion ? (2 * m->nbroken < ncrack ? 2 * m->nbroken : ncrack) : ncrack;
    if ((st = grow_points(m, np, msg)) != SHARD_OK) goto fail;
  }
  add_crack_rows(m);
  add_wall_rows(m);
  if ((st = row_springs(m, msg)) != SHARD_OK) goto fail;
  if ((st = build_stiffness(m, msg)) != SHARD_OK) goto fail;
  shard_system *s = &m->sys;
  s->struct_size = sizeof *s;
  s->ndof = ndof, s->ndof_max = ndof_max, s->ncon = m->ncon, s->ncon_max = m->insertion ? ncon_max : m->ncon;
  s->mass = m->mass, s->minv = m->minv, s->h = &m->h, s->impulse = m->impulse;
  s->stats = &m->stats, s->ops = &tri2d_system_ops;
  *out_self = m;
  *out_sys = s;
  return SHARD_OK;
fail:
  tri2d_destroy(m);
  return st;
#undef FAIL
}

static void tri2d_info(const void *self, shard_model_info *out) {
  const tri2d *m = self;
  memset(out, 0, sizeof *out);
  out->name = "tri2d";
  out->dim = 2;
  out->h_row_width = m->ncon > m->nwall_rows || m->insertion ? 4 : 2;
  if (m->fracture) out->flags |= SHARD_MODEL_FRACTURE, out->out_flags |= SHARD_OUT_FRACTURE, out->n_facets = m->insertion ? m->nfac : m->nbroken;
  if (m->insertion) out->flags |= SHARD_MODEL_INSERTION;
  out->w_row_degree = m->row_degree;
}

static int scale_get(const void *ctx, const char *name, double *out) {
  const tri2d *m = ctx;
  if (strcmp(name, "young") == 0) return *out = m->young, 1;
  if (strcmp(name, "density") == 0) return *out = m->rho, 1;
  if (strcmp(name, "h_min") == 0) return *out = m->h_min, 1;
  if (strcmp(name, "h_mean") == 0) return *out = m->h_mean, 1;
  if (strcmp(name, "mass_min") == 0) return *out = m->mass_min, 1;
  if (strcmp(name, "length") == 0) return *out = fmax(m->xmax - m->xmin, m->ymax - m->ymin), 1;
  if (strcmp(name, "area") == 0) return *out = m->thick * m->h_mean, 1;
  return 0;
}

static shard_scales tri2d_scales(const void *self) {
  return (shard_scales){.struct_size = sizeof(shard_scales), .ctx = self, .get = scale_get};
}

static int tri2d_derived(const void *self, const char *name, double *out) {
  const tri2d *m = self;
  if (strcmp(name, "c") == 0) return *out = m->cp, 1;
  if (strcmp(name, "h_min") == 0) return *out = m->h_min, 1;
  if (strcmp(name, "h_mean") == 0) return *out = m->h_mean, 1;
  if (strcmp(name, "mass_total") == 0) return *out = m->mass_total, 1;
  return 0;
}

static void tri2d_why(const void *self, const char *name, double v, char *buf, size_t n) {
  (void)self;
  snprintf(buf, n, "derived value '%s' = %g is not a finite positive number for this mesh and material (the "
           "moduli, density or sizes overflow or underflow it)", name, v);
}

static void tri2d_set_force_law(void *self, const shard_contact_law_ops *ops, void *law) {
  tri2d *m = self;
  m->force_law = ops, m->force_law_self = law;
}

/* Cohesive points from..npt (new): sigma_c = the stress their facet broke
 * at (the nominal strength for the case's crack), delta_c = 2 G_c /
 * sigma_c, history d0 delta_c on the case's crack and 0 on an inserted
 * facet, no work; the trapezoid's left values are those of the state now. */
static void init_points(tri2d *m, int32_t from) {
  for (int32_t i = from; i < m->npt; ++i) {
    const int32_t f = m->pt_fac[i];
    m->pt_sc[i] = m->bf_sc[f], m->pt_dc[i] = 2.0 * m->g_c / m->bf_sc[f];
    m->pt_dmax[i] = m->bf_state[f] == 2 ? m->d0 * m->pt_dc[i] : 0.0, m->pt_work[i] = 0.0;
  }
  cohesive_eval(m, m->sys.u, 0);
  for (int32_t i = from; i < m->npt; ++i)
    m->pt_dn0[i] = m->pt_dn[i], m->pt_dt0[i] = m->pt_dt[i], m->pt_tn0[i] = m->pt_tn[i], m->pt_tt0[i] = m->pt_tt[i];
}

/* The facets' strengths from fracture.strength (constant, uniform or
 * Weibull), drawn in facet order from strength.seed. */
static int draw_strengths(tri2d *m, shard_msg *msg) {
  const shard_params *fr = &m->fr;
  const char *dist = shard_params_string(fr, "strength.distribution");
  const double nominal = shard_params_real(fr, "strength.nominal");
  shard_rng rng;
  shard_rng_seed(&rng, (uint64_t)shard_params_int(fr, "strength.seed"));
  if (!dist || strcmp(dist, "constant") == 0) {
    for (int32_t f = 0; f < m->nfac; ++f) m->bf_strength[f] = nominal;
  } else if (strcmp(dist, "uniform") == 0) {
    if (!shard_params_has(fr, "strength.min") || !shard_params_has(fr, "strength.max"))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "fracture.strength.distribution 'uniform' needs strength.min and "
                           "strength.max");
    const double lo = shard_params_real(fr, "strength.min"), hi = shard_params_real(fr, "strength.max");
    if (!(lo > 0 && hi >= lo))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "fracture.strength needs 0 < min <= max (got %g, %g)", lo, hi);
    for (int32_t f = 0; f < m->nfac; ++f) m->bf_strength[f] = shard_rng_range(&rng, lo, hi);
  } else if (strcmp(dist, "weibull") == 0) {
    const double mod = shard_params_real(fr, "strength.modulus");
    for (int32_t f = 0; f < m->nfac; ++f) {
      const double x = nominal * pow(-log1p(-shard_rng_uniform(&rng)), 1.0 / mod);
      m->bf_strength[f] = x > 0 ? x : nominal * 1e-12;
    }
  } else {
    return shard_msg_set(msg, SHARD_ERR_INPUT, "fracture.strength.distribution '%s': the tri2d model draws constant, "
                         "uniform or weibull strengths", dist);
  }
  return SHARD_OK;
}

/* The law; the crack's cohesive points start at the nominal strength with
 * delta_c = 2 G_c / sigma_c and the damage fracture.initial.damage (history
 * delta_max = d0 delta_c; 1: fully broken, contact only). */
static int tri2d_set_tsl(void *self, const shard_tsl_ops *ops, void *tsl, int zero_in_compression, shard_msg *msg) {
  tri2d *m = self;
  m->tsl = ops, m->tsl_self = tsl, m->tsl_zic = zero_in_compression;
  m->tsl_kmax = shard_tsl_max_stiffness(ops, tsl);
  const double beta = shard_tsl_shear_weight(ops, tsl);
  if (!(beta > 0.0) || !isfinite(beta) || !isfinite(1.0 / (beta * beta)))
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "the traction-separation law's shear weight beta = %g is not a finite number > 0 (the "
                         "insertion criterion divides the shear by it)", beta);
  m->tsl_ibeta2 = 1.0 / (beta * beta);
  const double sc = shard_params_real(&m->fr, "strength.nominal");
  for (int32_t f = 0; f < m->nfac; ++f)
    if (m->bf_state[f] == 2) m->bf_sc[f] = sc;
  if (m->insertion) {
    const int st = draw_strengths(m, msg);
    if (st != SHARD_OK) return st;
  }
  init_points(m, 0);
  return SHARD_OK;
}

static void tri2d_release_rule(const void *self, shard_model_release_rule *out) {
  (void)self;
  *out = (shard_model_release_rule){0, 0.0};
}

/* DEFAULT and PAPER: 2 / sqrt(lambda), lambda = the largest element
 * eigenvalue of M_e^-1 K_e (u^T K u = sum u_e^T K_e u_e <= max lambda_e u^T M u)
 * plus, with wall springs of max_spring, the largest sum over a node of its
 * rows' springs divided by its mass (u^T K_p u <= sum_i s_i |u_i|^2). BULK:
 * h_min / c_p, the smallest altitude over the P-wave speed. */
static double tri2d_stable_step(const void *self, shard_model_step which, double max_spring) {
  const tri2d *m = self;
  if (which == SHARD_STEP_BULK) return m->h_min / m->cp;
  double lam = m->lambda_el;
  if (max_spring > 0) lam += max_spring * m->spring_per_mass;
  if (m->tsl && isfinite(m->tsl_kmax)) lam += m->tsl_kmax * m->coh_per_mass; /* the cohesive secants, at most the cap */
  return lam > 0 ? 2.0 / sqrt(lam) : INFINITY;
}

/* the history at the step's end and the work by the trapezoid rule on both
 * components of the opening */
static void tri2d_commit(void *self) {
  tri2d *m = self;
  if (!m->tsl || !m->npt) return;
  cohesive_eval(m, m->sys.u, 1);
  for (int32_t i = 0; i < m->npt; ++i) {
    m->pt_work[i] += 0.5 * (m->pt_dn[i] - m->pt_dn0[i]) * (m->pt_tn[i] + m->pt_tn0[i]) +
                     0.5 * (m->pt_dt[i] - m->pt_dt0[i]) * (m->pt_tt[i] + m->pt_tt0[i]);
    m->pt_dn0[i] = m->pt_dn[i], m->pt_dt0[i] = m->pt_dt[i], m->pt_tn0[i] = m->pt_tn[i], m->pt_tt0[i] = m->pt_tt[i];
  }
}
/* Insertion after a committed step: every intact facet whose effective
 * traction, from the mean of its two elements' stresses, reaches its
 * strength breaks (tension only for the normal part, the shear weighed by
 * the law's beta as in its effective opening: sqrt(<sigma_n>^2 + tau^2 /
 * beta^2), Camacho & Ortiz 1996); then the vertices split (the copies take
 * u, v, a and the integrator's vectors of their source), the masses are summed again over
 * the copies' elements, rows and cohesive points are appended for the
 * newly openable ends, and K's pattern is rebuilt. Last, under a scheme of
 * the Newmark form (NSN, explicit Newmark), a = M^-1 f(u) with the new
 * topology: a copy's a, copied, was its whole vertex's force over its whole
 * mass, not its fan's share of the elements' forces plus the new cohesive
 * tractions over its fan's mass, and the next step starts from M a_n =
 * f(u_n) as the scheme's energy identity needs (docs/theory.md §14). Every
 * DOF, not only the copies': NSN's linearised a (a step with impulses,
 * without consistent_acceleration) sums to zero momentum over all DOFs
 * only; M^-1 f does too. Returns the facets broken. The storage grows
 * first, for the worst case of the facets about to break (amortised,
 * capped at every corner a copy): out of memory there, -1 and nothing
 * changed. A later allocation failure here is reported by the next
 * force(). */
/* whether intact facet f breaks under the elements' stresses sig_el: its
 * effective traction in *seff */
static int facet_breaks(const tri2d *m, int32_t f, double *seff) {
  const double *sa = m->sig_el + 3 * m->bf_em[f], *sb = m->sig_el + 3 * m->bf_ep[f];
  const double sxx = 0.5 * (sa[0] + sb[0]), syy = 0.5 * (sa[1] + sb[1]), sxy = 0.5 * (sa[2] + sb[2]);
  const double nx = m->bf_n[2 * f], ny = m->bf_n[2 * f + 1];
  const double tx = sxx * nx + sxy * ny, ty = sxy * nx + syy * ny;
  const double sn = tx * nx + ty * ny, tau = -ny * tx + nx * ty, sp = sn > 0 ? sn : 0.0;
  *seff = sqrt(sp * sp + tau * tau * m->tsl_ibeta2);
  return *seff >= m->bf_strength[f];
}

static int32_t tri2d_insert(void *self, int32_t *first_dof) {
  tri2d *m = self;
  *first_dof = m->ndof;
  if (!m->insertion || !m->tsl || m->insert_failed) return 0;
  const double *u = m->sys.u;
  for (int32_t e = 0; e < m->ne; ++e) {
    double eps[3];
    element_stress(m, e, u, eps, m->sig_el + 3 * e);
  }
  int32_t n = 0;
  for (int32_t f = 0; f < m->nfac; ++f) {
    double seff;
    n += !m->bf_state[f] && facet_breaks(m, f, &seff);
  }
  if (!n) return 0;
  /* the storage for them first, while nothing has changed: out of memory,
   * nothing is inserted and the run stops with what it computed */
  shard_msg gmsg;
  if (grow_for(m, n, &gmsg) != SHARD_OK) return -1;
  /* the forces after the insertion (Newmark form, below), allocated now too */
  double *force = NULL;
  if (m->stats.energy_form == SHARD_ENERGY_NEWMARK && !(force = malloc(2 * ((size_t)m->nn_cap + 1) * sizeof *force)))
    return -1;
  for (int32_t f = 0; f < m->nfac; ++f) {
    double seff;
    if (!m->bf_state[f] && facet_breaks(m, f, &seff)) m->bf_state[f] = 1, m->bf_sc[f] = seff;
  }
  m->nbroken += n, m->insertions += n;
  if (split_vertices(m, &m->insert_msg) != SHARD_OK) {
    m->insert_failed = 1;
    free(force);
    return 0;
  }
  /* the lumped masses again, element by element (the order of create) */
  memset(m->mass, 0, (size_t)m->ndof * sizeof *m->mass);
  for (int32_t e = 0; e < m->ne; ++e) {
    const double me = m->rho * m->thick * m->geo[7 * e + 6] / 3.0;
    for (int k = 0; k < 3; ++k) m->mass[2 * m->tri[3 * e + k]] += me, m->mass[2 * m->tri[3 * e + k] + 1] += me;
  }
  for (int32_t d = 0; d < m->ndof; ++d) m->minv[d] = 1.0 / m->mass[d];
  const int32_t old_npt = m->npt;
  add_crack_rows(m);
  add_wall_rows(m);
  m->h.ncols = m->ndof;
  free(m->k_rowptr), free(m->k_col), free(m->k_base), free(m->k_val), free(m->nblock);
  m->k_rowptr = m->k_col = m->nblock = NULL, m->k_base = m->k_val = NULL;
  if (row_springs(m, &m->insert_msg) != SHARD_OK || build_stiffness(m, &m->insert_msg) != SHARD_OK) {
    m->insert_failed = 1;
    free(force);
    return 0;
  }
  m->sys.ndof = m->ndof, m->sys.ncon = m->ncon;
  init_points(m, old_npt);
  /* the step just taken says the scheme's form: CD-Lagrange's a is the
   * difference of its staggered velocities (copied with them), not f / m */
  if (!force) return n;
  shard_msg fmsg;
  sys_force(&m->sys, m->sys.t, m->sys.u, force, &fmsg); /* cannot fail: insert_failed is clear */
  for (int32_t d = 0; d < m->ndof; ++d)
    if (m->minv[d] != 0.0) m->sys.a[d] = m->minv[d] * force[d];
  free(force);
  return n;
}

static void tri2d_measure(void *self, const double *u, double *gaps) {
  tri2d *m = self;
  gaps_at(m, u, gaps);
  if (m->force_law) penalty_at(m, u);
}

static void tri2d_energy(const void *self, shard_model_energy *out) {
  const tri2d *m = self;
  const double *u = m->sys.u, *v = m->sys.v;
  double kin = 0, el = 0, pen = 0;
  for (int32_t d = 0; d < m->ndof; ++d) kin += m->mass[d] * v[d] * v[d];
  for (int32_t e = 0; e < m->ne; ++e) {
    double eps[3], s[3];
    element_stress(m, e, u, eps, s);
    el += m->thick * m->geo[7 * e + 6] * (eps[0] * s[0] + eps[1] * s[1] + eps[2] * s[2]);
  }
  for (int32_t r = 0; m->force_law && r < m->ncon; ++r) pen += m->pen_e[r];
  double rev = 0, work = 0;
  for (int32_t i = 0; m->tsl && i < m->npt; ++i) rev += m->pt_w[i] * m->pt_rev[i], work += m->pt_w[i] * m->pt_work[i];
  *out = (shard_model_energy){.kinetic = 0.5 * kin, .elastic = 0.5 * el, .penalty = pen, .cohesive_reversible = rev,
                              .cohesive_work = work};
}

static void tri2d_reactions(void *self, const double *u, double out[2]) { (void)self, (void)u, out[0] = out[1] = 0; }
static void tri2d_release(void *self) { (void)self; }
static int tri2d_released(const void *self) { return (void)self, 0; }
/* fully broken: a broken facet with an openable end, each of whose
 * openable ends is past delta_c (without a law: every broken facet with an
 * openable end) */
static int facet_fully_broken(const tri2d *m, int32_t f) {
  if (!m->bf_state[f]) return 0;
  int all = 1, any = 0;
  for (int k = 0; k < 2; ++k) {
    const int32_t r = m->bf_row[2 * f + k];
    if (r < 0) continue;
    any = 1;
    if (m->tsl && m->coh) all &= m->pt_dmax[m->row_pt[r]] >= m->pt_dc[m->row_pt[r]];
  }
  return any && all;
}

static int32_t tri2d_broken(const void *self) {
  const tri2d *m = self;
  if (!m->tsl) return 0;
  int32_t n = 0;
  for (int32_t f = 0; f < m->nfac; ++f) n += facet_fully_broken(m, f);
  return n;
}

static int tri2d_reference_setup(void *self, const char *type, double e, double dt, shard_msg *msg) {
  (void)self, (void)e, (void)dt;
  if (type && strcmp(type, "auto") != 0 && strcmp(type, "none") != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "reference.type '%s' has no solution for the tri2d model (auto or none)",
                         type);
  return SHARD_OK;
}
static void tri2d_reference_step(void *self, double t) { (void)self, (void)t; }

static void tri2d_history(void *self, const shard_model_row_in *in, double *x) {
  const tri2d *m = self;
  const double *u = m->sys.u, *v = m->sys.v;
  double px = 0, py = 0, sx = 0, sy = 0;
  for (int32_t i = 0; i < m->nn; ++i) {
    const double mi = m->mass[2 * i];
    px += mi * v[2 * i], py += mi * v[2 * i + 1];
    sx += mi * (m->X[2 * i] + u[2 * i]), sy += mi * (m->X[2 * i + 1] + u[2 * i + 1]);
  }
  x[C_PX] = px, x[C_PY] = py;
  x[C_XMEAN] = sx / m->mass_total, x[C_YMEAN] = sy / m->mass_total;
  x[C_VXMEAN] = px / m->mass_total, x[C_VYMEAN] = py / m->mass_total;
  for (int s = 0; s < W_N; ++s) x[C_F0 + s] = m->has_wall[s] ? 0.0 : NAN;
  x[C_FCRACK] = m->nbroken || m->insertion ? 0.0 : NAN;
  for (int32_t r = 0; r < m->ncon; ++r)
    x[m->row_wall[r] >= 0 ? C_F0 + m->row_wall[r] : C_FCRACK] +=
        m->impulse[r] / in->dt + (m->force_law ? m->pen_f[r] : 0.0);
}

/* The fragments: triangles joined across every edge their copies share
 * (an edge whose two sides hold different copies at an end is a crack's)
 * and across crack facets not fully broken (their cohesive points still
 * hold); union-find over the elements. With lab (ne entries), each
 * triangle's fragment, numbered from 0 in the order of their first
 * triangle. -1 out of memory. */
static int32_t fragment_labels_in(const tri2d *m, int32_t *lab, edge_corner *key, int32_t *par) {
  const size_t ne3 = 3 * (size_t)m->ne;
  for (int32_t e = 0; e < m->ne; ++e) {
    par[e] = e;
    for (int k = 0; k < 3; ++k) {
      const int64_t a = m->tri[3 * e + k], b = m->tri[3 * e + (k + 1) % 3];
      key[3 * (size_t)e + k] = (edge_corner){a < b ? a * m->nn + b : b * m->nn + a, 3 * e + k};
    }
  }
  qsort(key, ne3, sizeof *key, cmp_edge_corner);
  for (size_t i = 0; i + 1 < ne3; ++i)
    if (key[i].key == key[i + 1].key) {
      const int32_t x = uf_find(par, key[i].corner / 3), y = uf_find(par, key[i + 1].corner / 3);
      if (x != y) par[x > y ? x : y] = x < y ? x : y;
    }
  for (int32_t f = 0; f < m->nfac; ++f)
    if (m->bf_state[f] && !facet_fully_broken(m, f)) {
      const int32_t x = uf_find(par, m->bf_em[f]), y = uf_find(par, m->bf_ep[f]);
      if (x != y) par[x > y ? x : y] = x < y ? x : y;
    }
  int32_t n = 0;
  for (int32_t e = 0; e < m->ne; ++e) {
    const int32_t r = uf_find(par, e);
    n += r == e;
    if (lab) lab[e] = r;
  }
  /* a root is its set's smallest triangle (unions keep the smaller): it is
   * numbered before the other triangles of its set look it up */
  if (lab)
    for (int32_t e = 0, k = 0; e < m->ne; ++e) {
      if (lab[e] == e) par[e] = k++;
      lab[e] = par[lab[e]];
    }
  return n;
}
static int32_t fragment_labels(const tri2d *m, int32_t *lab) {
  edge_corner *key = malloc(3 * (size_t)m->ne * sizeof *key);
  int32_t *par = malloc((size_t)m->ne * sizeof *par);
  const int32_t n = key && par ? fragment_labels_in(m, lab, key, par) : -1;
  free(key), free(par);
  return n;
}
static int32_t fragments(const tri2d *m) { return fragment_labels(m, NULL); }

/* One fragment of the final state: its triangles, area, mass, the sums of
 * m v and m x over its vertex copies, and on an annulus the angle it spans. */
typedef struct frag_row {
  int32_t ntri;
  double area, mass, px, py, mx, my, angle;
} frag_row;

typedef struct angle_key {
  int32_t frag;
  double angle;
} angle_key;

static int cmp_angle_key(const void *a, const void *b) {
  const angle_key *x = a, *y = b;
  if (x->frag != y->frag) return x->frag < y->frag ? -1 : 1;
  return x->angle < y->angle ? -1 : x->angle > y->angle;
}

/* The fragments' rows (*out, nf of them, the caller frees); -1 out of memory. */
static int32_t fragment_rows(const tri2d *m, frag_row **out) {
  *out = NULL;
  int32_t *lab = malloc((size_t)m->ne * sizeof *lab), *nodef = malloc((size_t)m->nn * sizeof *nodef);
  const int32_t nf = lab && nodef ? fragment_labels(m, lab) : -1;
  frag_row *r = nf > 0 ? calloc((size_t)nf, sizeof *r) : NULL;
  angle_key *ak = m->ring_r > 0 && r ? malloc(3 * (size_t)m->ne * sizeof *ak) : NULL;
  if (!r || (m->ring_r > 0 && !ak)) {
    free(lab), free(nodef), free(r), free(ak);
    return -1;
  }
  for (int32_t i = 0; i < m->nn; ++i) nodef[i] = -1;
  for (int32_t e = 0; e < m->ne; ++e) {
    frag_row *f = r + lab[e];
    f->ntri++, f->area += m->geo[7 * e + 6];
    for (int k = 0; k < 3; ++k) nodef[m->tri[3 * e + k]] = lab[e];
  }
  for (int32_t i = 0; i < m->nn; ++i) {
    if (nodef[i] < 0) continue;
    frag_row *f = r + nodef[i];
    const double mi = m->mass[2 * i];
    f->mass += mi, f->px += mi * m->sys.v[2 * i], f->py += mi * m->sys.v[2 * i + 1];
    f->mx += mi * (m->X[2 * i] + m->sys.u[2 * i]), f->my += mi * (m->X[2 * i + 1] + m->sys.u[2 * i + 1]);
  }
  if (ak) { /* the angle spanned: 2 pi less the largest gap between its vertices' reference angles */
    const double two_pi = 2.0 * 3.14159265358979323846;
    for (int32_t e = 0; e < m->ne; ++e)
      for (int k = 0; k < 3; ++k) {
        const int32_t v = m->tri[3 * e + k];
        const double a = atan2(m->X[2 * v + 1], m->X[2 * v]);
        ak[3 * (size_t)e + k] = (angle_key){lab[e], a < 0 ? a + two_pi : a};
      }
    const size_t n3 = 3 * (size_t)m->ne;
    qsort(ak, n3, sizeof *ak, cmp_angle_key);
    for (size_t i = 0; i < n3;) {
      size_t j = i;
      double gap = 0.0;
      while (j + 1 < n3 && ak[j + 1].frag == ak[i].frag) gap = fmax(gap, ak[j + 1].angle - ak[j].angle), ++j;
      gap = fmax(gap, ak[i].angle + two_pi - ak[j].angle); /* the wrap-around gap */
      r[ak[i].frag].angle = nf == 1 ? two_pi : two_pi - gap;
      i = j + 1;
    }
  }
  free(lab), free(nodef), free(ak);
  *out = r;
  return nf;
}

static double frag_size(const tri2d *m, const frag_row *f) {
  return m->ring_r > 0 ? f->angle * m->ring_r : sqrt(f->area);
}

static int tri2d_summary_keys(void *self, const shard_model_summary_in *in, const shard_summary_writer *w) {
  const tri2d *m = self;
  double px = 0, py = 0;
  for (int32_t i = 0; i < m->nn; ++i) px += m->mass[2 * i] * m->sys.v[2 * i], py += m->mass[2 * i] * m->sys.v[2 * i + 1];
  w->num(w->ctx, "momentum_x", px);
  w->num(w->ctx, "momentum_y", py);
  w->num(w->ctx, "tri2d.vx_mean", px / m->mass_total);
  w->num(w->ctx, "tri2d.vy_mean", py / m->mass_total);
  w->integer(w->ctx, "tri2d.nodes", m->nn);
  w->integer(w->ctx, "tri2d.elements", m->ne);
  int rc = SHARD_OK; /* out of memory counting the fragments: the keys empty, the summary refused */
  const int32_t nf = fragments(m);
  if (nf < 0) rc = SHARD_ERR_NOMEM;
  if (nf < 0) w->num(w->ctx, "tri2d.fragments", NAN);
  else w->integer(w->ctx, "tri2d.fragments", nf);
  if (m->fracture) {
    if (nf < 0) w->num(w->ctx, "fracture.fragments", NAN);
    else w->integer(w->ctx, "fracture.fragments", nf);
    frag_row *fr = NULL;
    const int32_t n = fragment_rows(m, &fr);
    if (n < 0) rc = SHARD_ERR_NOMEM;
    double mean = NAN, sd = NAN, lo = NAN, hi = NAN;
    if (n > 0) {
      double sum = 0, ss = 0;
      lo = INFINITY, hi = -INFINITY;
      for (int32_t i = 0; i < n; ++i) {
        const double z = frag_size(m, fr + i);
        sum += z, lo = fmin(lo, z), hi = fmax(hi, z);
      }
      mean = sum / n;
      for (int32_t i = 0; i < n; ++i) ss += (frag_size(m, fr + i) - mean) * (frag_size(m, fr + i) - mean);
      sd = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    }
    free(fr);
    w->num(w->ctx, "fracture.mean_fragment_size", mean);
    w->num(w->ctx, "fracture.fragment_size.std", sd);
    w->num(w->ctx, "fracture.fragment_size.min", lo);
    w->num(w->ctx, "fracture.fragment_size.max", hi);
    w->integer(w->ctx, "fracture.interfaces", m->tsl ? m->npt : 0);
    w->integer(w->ctx, "fracture.broken", tri2d_broken(m));
    w->integer(w->ctx, "fracture.insertions", (long long)m->insertions);
    w->num(w->ctx, "fracture.dissipation", in->cohesive_work - in->cohesive_reversible);
    w->num(w->ctx, "fracture.cohesive_work", in->cohesive_work);
    w->num(w->ctx, "fracture.reversible", in->cohesive_reversible);
  }
  return rc;
}

/* fragments.csv (with a fracture section): one row per fragment */
static int tri2d_files(void *self, const char *dir, unsigned out_flags, shard_msg *msg) {
  const tri2d *m = self;
  if (!m->fracture) return SHARD_OK;
  frag_row *fr = NULL;
  const int32_t nf = fragment_rows(m, &fr);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = nf > 0 ? open_memstream(&buf, &len) : NULL;
  if (!f) {
    free(fr);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for fragments.csv");
  }
  shard_out_header(f, &tri2d_fragments_table, out_flags);
  for (int32_t i = 0; i < nf; ++i) {
    const frag_row *r = fr + i;
    char ang[32] = "";
    if (m->ring_r > 0) snprintf(ang, sizeof ang, "%.15g", r->angle);
    fprintf(f, "%d,%d,%.15g,%.15g,%.15g,%.15g,%s,%.15g,%.15g,%.15g,%.15g\n", (int)i, (int)r->ntri, r->area, r->mass,
            frag_size(m, r), sqrt(r->area), ang, r->mx / r->mass, r->my / r->mass, r->px / r->mass, r->py / r->mass);
  }
  fclose(f);
  free(fr);
  return shard_write_atomic_free(dir, "fragments.csv", buf, len, msg);
}

/* ---- field snapshots: fields/fields_NNNNNN.vtu (ASCII VTK XML, triangles) and fields.pvd ----
 * The text is formatted into a buffer allocated by fields_open for the
 * largest snapshot of this mesh (every number at its widest, %.17g: 24
 * characters); a snapshot allocates nothing but, when the list of times
 * doubles, the collection's. */

#define NUM_W 25 /* " " + the widest %.17g */
#define INT_W 12 /* " " + the widest int32 */

static void put(char *buf, size_t cap, size_t *len, int *over, const char *fmt, ...) SHARD_PRINTF_(5, 6);
static void put(char *buf, size_t cap, size_t *len, int *over, const char *fmt, ...) {
  if (*over) return;
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= cap - *len) *over = 1;
  else *len += (size_t)n;
}

static int tri2d_fields_open(void *self, const char *dir, int fields, int spacetime, shard_msg *msg) {
  tri2d *m = self;
  (void)spacetime; /* no space-time picture in 2D */
  m->fields = fields;
  if (!fields) return SHARD_OK;
  free(m->dir), free(m->vbuf);
  m->dir = NULL, m->vbuf = NULL;
  const size_t n = strlen(dir) + 1;
  if (!(m->dir = malloc(n))) return NOMEM("the snapshot directory name");
  memcpy(m->dir, dir, n);
  /* per node (every vertex copy insertion may make): the point and three
   * 3-vectors; per cell: 3 ids, an offset, a type, 3 stresses, a fragment */
  const size_t nn = (size_t)(m->nn_max > m->nn ? m->nn_max : m->nn);
  m->vcap = 4096 + nn * (4 * (12 + 3 * NUM_W)) +
            (size_t)m->ne * ((12 + 3 * INT_W) + (12 + INT_W) + 12 + (12 + 3 * NUM_W) + (12 + INT_W));
  free(m->flab), free(m->fkey);
  m->fkey = NULL;
  if (!(m->flab = malloc(2 * (size_t)m->ne * sizeof *m->flab)) || !(m->fkey = malloc(3 * (size_t)m->ne * sizeof *m->fkey)))
    return NOMEM("the snapshot's fragment numbers");
  if (!(m->vbuf = malloc(m->vcap))) return NOMEM("the field snapshot buffer");
  char sub[4096];
  if (snprintf(sub, sizeof sub, "%s/fields", dir) >= (int)sizeof sub)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: directory name too long", dir);
  m->n_times = 0;
  return shard_mkdirs(sub, msg);
}

static void vtu_array(tri2d *m, size_t *len, int *over, const char *name, const double *x) {
  put(m->vbuf, m->vcap, len, over,
      "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"3\" format=\"ascii\">\n", name);
  for (int32_t i = 0; i < m->nn; ++i)
    put(m->vbuf, m->vcap, len, over, "          %.17g %.17g 0\n", x[2 * i], x[2 * i + 1]);
  put(m->vbuf, m->vcap, len, over, "        </DataArray>\n");
}

static int tri2d_fields_write(void *self, double t, shard_msg *msg) {
  tri2d *m = self;
  if (!m->fields || !m->dir || !m->vbuf) return SHARD_OK;
  if (m->n_times == m->cap_times) { /* the collection's list: grows by doubling */
    const int32_t cap = m->cap_times ? 2 * m->cap_times : 64;
    double *p = realloc(m->times, (size_t)cap * sizeof *p);
    if (!p) return NOMEM("the snapshot times");
    m->times = p;
    char *q = realloc(m->pbuf, 256 + (size_t)cap * 128);
    if (!q) return NOMEM("the field collection");
    m->pbuf = q, m->cap_times = cap;
  }
  const int32_t k = m->n_times;
  size_t len = 0;
  int over = 0;
  char *b = m->vbuf;
  const size_t cap = m->vcap;
  put(b, cap, &len, &over,
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      "  <UnstructuredGrid>\n    <FieldData>\n"
      "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n"
      "    </FieldData>\n    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n      <Points>\n"
      "        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n",
      t, (int)m->nn, (int)m->ne);
  for (int32_t i = 0; i < m->nn; ++i)
    put(b, cap, &len, &over, "          %.17g %.17g 0\n", m->X[2 * i] + m->sys.u[2 * i],
        m->X[2 * i + 1] + m->sys.u[2 * i + 1]);
  put(b, cap, &len, &over, "        </DataArray>\n      </Points>\n      <Cells>\n"
                           "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
  for (int32_t e = 0; e < m->ne; ++e)
    put(b, cap, &len, &over, "          %d %d %d\n", (int)m->tri[3 * e], (int)m->tri[3 * e + 1], (int)m->tri[3 * e + 2]);
  put(b, cap, &len, &over, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
  for (int32_t e = 0; e < m->ne; ++e) put(b, cap, &len, &over, "          %d\n", (int)(3 * (e + 1)));
  put(b, cap, &len, &over, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (int32_t e = 0; e < m->ne; ++e) put(b, cap, &len, &over, "          5\n");
  put(b, cap, &len, &over, "        </DataArray>\n      </Cells>\n      <PointData Vectors=\"u\">\n");
  vtu_array(m, &len, &over, "u", m->sys.u);
  vtu_array(m, &len, &over, "v", m->sys.v);
  vtu_array(m, &len, &over, "X", m->X);
  put(b, cap, &len, &over,
      "      </PointData>\n      <CellData>\n"
      "        <DataArray type=\"Float64\" Name=\"stress\" NumberOfComponents=\"3\" ComponentName0=\"sxx\" "
      "ComponentName1=\"syy\" ComponentName2=\"sxy\" format=\"ascii\">\n");
  for (int32_t e = 0; e < m->ne; ++e) {
    double eps[3], sg[3];
    element_stress(m, e, m->sys.u, eps, sg);
    put(b, cap, &len, &over, "          %.17g %.17g %.17g\n", sg[0], sg[1], sg[2]);
  }
  /* the fragment of each triangle (fragments.csv's number) */
  fragment_labels_in(m, m->flab, m->fkey, m->flab + m->ne);
  put(b, cap, &len, &over, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"fragment\" format=\"ascii\">\n");
  for (int32_t e = 0; e < m->ne; ++e) put(b, cap, &len, &over, "          %d\n", (int)m->flab[e]);
  put(b, cap, &len, &over, "        </DataArray>\n      </CellData>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  if (over)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "field snapshot at t = %g: longer than its buffer of %zu bytes", t,
                         cap);
  char sub[4096], name[64];
  snprintf(sub, sizeof sub, "%s/fields", m->dir);
  snprintf(name, sizeof name, "fields_%06d.vtu", (int)k);
  int st = shard_write_atomic(sub, name, b, len, msg);
  if (st != SHARD_OK) return st;
  m->times[m->n_times++] = t;
  const size_t pcap = 256 + (size_t)m->cap_times * 128;
  len = 0;
  put(m->pbuf, pcap, &len, &over,
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n");
  for (int32_t q = 0; q < m->n_times; ++q)
    put(m->pbuf, pcap, &len, &over,
        "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"fields/fields_%06d.vtu\"/>\n", m->times[q], (int)q);
  put(m->pbuf, pcap, &len, &over, "  </Collection>\n</VTKFile>\n");
  if (over) return shard_msg_set(msg, SHARD_ERR_INTERNAL, "field collection longer than its buffer of %zu bytes", pcap);
  return shard_write_atomic(m->dir, "fields.pvd", m->pbuf, len, msg);
}

static void tri2d_spacetime_record(void *self, double t) { (void)self, (void)t; }
static int tri2d_fields_finish(void *self, shard_msg *msg) { return (void)self, (void)msg, SHARD_OK; }
static const char *tri2d_fields_note(const void *self) {
  (void)self;
  return NULL;
}

/* ---- checkpoints: the state, the impulses and the integrator's vectors ---- */

/* with cohesive points, two more sections: their history delta_max, and
 * their last committed openings and tractions and their work (pt_dn0 ..
 * pt_work, contiguous in the block: 5 per point) */
static uint32_t tri2d_ck_sections(void *self) {
  const tri2d *m = self;
  return (m->sys.n_aux ? 5u : 4u) + (m->insertion ? (m->wall_mask ? 9u : 6u) : 0u) + (m->tsl && m->npt_max > 0 ? 2u : 0u);
}

/* Every section has the size of its room (ndof_max, ncon_max, every
 * possible copy and cohesive point), whatever the state and however far the
 * storage grew (without insertion the room is the state): the arrays
 * shorter than their room go through a scratch buffer, zero-padded (as
 * large as the largest section, allocated for the write or read only). */
typedef struct ck_sec {
  const char *name;
  uint32_t type;
  void *data;       /* the model's array */
  uint64_t have;    /* elements it holds */
  uint64_t count;   /* the section's */
  uint64_t stride;  /* > 0: `parts` slices of `stride` in the model, of count / parts in the section */
  int parts;
} ck_sec;

static size_t ck_size(uint32_t type) {
  return type == SHARD_MODEL_CK_F64 || type == SHARD_MODEL_CK_I64 ? 8 : type == SHARD_MODEL_CK_I32 ? 4 : 1;
}

/* the sections of the arrays that grow, in their order: topology (with
 * insertion), state; n_out: how many */
static int ck_secs(tri2d *m, ck_sec *out) {
  int n = 0;
  const uint64_t nd = (uint64_t)m->sys.ndof_max, nr = (uint64_t)m->sys.ncon_max;
  const uint64_t hd = 2 * (uint64_t)m->nn_cap, hr = (uint64_t)m->ncon_cap;
  if (m->insertion) {
    out[n++] = (ck_sec){"topology_x", SHARD_MODEL_CK_F64, m->X, hd, 2 * (uint64_t)m->nn_max, 0, 0};
    if (m->wall_mask) {
      out[n++] = (ck_sec){"row_wall", SHARD_MODEL_CK_I32, m->row_wall, hr, nr, 0, 0};
      out[n++] = (ck_sec){"row_node", SHARD_MODEL_CK_I32, m->row_c, 2 * hr, 2 * nr, 0, 0};
      out[n++] = (ck_sec){"row_weight", SHARD_MODEL_CK_F64, m->row_w, hr, nr, 0, 0};
    }
  }
  out[n++] = (ck_sec){"u", SHARD_MODEL_CK_F64, m->sys.u, hd, nd, 0, 0};
  out[n++] = (ck_sec){"v", SHARD_MODEL_CK_F64, m->sys.v, hd, nd, 0, 0};
  out[n++] = (ck_sec){"a", SHARD_MODEL_CK_F64, m->sys.a, hd, nd, 0, 0};
  out[n++] = (ck_sec){"impulse", SHARD_MODEL_CK_F64, m->impulse, hr, nr, 0, 0};
  if (m->sys.n_aux)
    out[n++] = (ck_sec){"aux", SHARD_MODEL_CK_F64, m->sys.aux, (uint64_t)m->sys.n_aux * nd, (uint64_t)m->sys.n_aux * nd, 0, 0};
  if (m->tsl && m->npt_max > 0) {
    const uint64_t hp = (uint64_t)m->npt_cap, np = (uint64_t)m->npt_max;
    out[n++] = (ck_sec){"cohesive_dmax", SHARD_MODEL_CK_F64, m->pt_dmax, hp, np, 0, 0};
    /* dn0, dt0, tn0, tt0, work: consecutive slices of the block */
    out[n++] = (ck_sec){"cohesive_state", SHARD_MODEL_CK_F64, m->pt_dn0, 5 * hp, 5 * np, hp, 5};
  }
  return n;
}

/* the bytes of the largest section shorter than its room (0: none) */
static size_t ck_most(const ck_sec *sec, int n) {
  size_t most = 0;
  for (int k = 0; k < n; ++k)
    if (sec[k].have < sec[k].count && sec[k].count * ck_size(sec[k].type) > most) most = sec[k].count * ck_size(sec[k].type);
  return most;
}

static void *ck_scratch(const ck_sec *sec, int n) {
  const size_t most = ck_most(sec, n);
  return most ? malloc(most + 8) : NULL;
}

/* section k's bytes in scratch, zero-padded */
static void ck_pad(const ck_sec *c, unsigned char *scratch) {
  const size_t z = ck_size(c->type);
  memset(scratch, 0, c->count * z);
  if (c->parts) {
    for (int p = 0; p < c->parts; ++p)
      memcpy(scratch + (size_t)p * (c->count / (uint64_t)c->parts) * z, (const unsigned char *)c->data + (size_t)p * c->stride * z,
             c->stride * z);
  } else {
    memcpy(scratch, c->data, c->have * z);
  }
}

/* the first `have` elements of section k from scratch */
static void ck_unpad(const ck_sec *c, const unsigned char *scratch) {
  const size_t z = ck_size(c->type);
  if (c->parts) {
    for (int p = 0; p < c->parts; ++p)
      memcpy((unsigned char *)c->data + (size_t)p * c->stride * z, scratch + (size_t)p * (c->count / (uint64_t)c->parts) * z,
             c->stride * z);
  } else {
    memcpy(c->data, scratch, c->have * z);
  }
}

/* write section c (through scratch when shorter than its room; without a
 * scratch, out of memory: the zero pages `zero` at the section's size, or,
 * without them either, an empty section) */
static void ck_put_sec(const shard_model_ck_io *io, const ck_sec *c, unsigned char *scratch, const void *zero) {
  if (c->have >= c->count) {
    io->put(io->ctx, c->name, c->type, c->data, c->count);
  } else if (scratch) {
    ck_pad(c, scratch);
    io->put(io->ctx, c->name, c->type, scratch, c->count);
  } else {
    io->put(io->ctx, c->name, c->type, zero, zero ? c->count : 0);
  }
}

/* read section c into the model's array (through scratch when shorter) */
static int ck_get_sec(const shard_model_ck_io *io, const ck_sec *c, unsigned char *scratch, shard_msg *msg) {
  if (c->have >= c->count) return io->get(io->ctx, c->name, c->type, c->data, c->count, msg);
  if (!scratch) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the checkpoint's section %s", c->name);
  const int st = io->get(io->ctx, c->name, c->type, scratch, c->count, msg);
  if (st == SHARD_OK) ck_unpad(c, scratch);
  return st;
}

static void tri2d_ck_write(void *self, const shard_model_ck_io *io) {
  tri2d *m = self;
  ck_sec sec[16];
  const int nsec = ck_secs(m, sec);
  const size_t most = ck_most(sec, nsec);
  unsigned char *scratch = ck_scratch(sec, nsec);
  /* Out of memory for the scratch: the sections keep their sizes (the
   * host's size of a checkpoint holds), their data zero pages mapped for
   * the write (no memory: they are only read), and the counts say -1, so
   * that a restart refuses this checkpoint as corrupt instead of taking it */
  void *zero = NULL;
  if (most && !scratch) {
    zero = mmap(NULL, most, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (zero == MAP_FAILED) zero = NULL;
  }
  int k = 0;
  if (m->insertion) { /* the topology first: the state's sizes follow from it */
    const int64_t counts[4] = {m->nn, m->ncon, m->nbroken, m->insertions}, bad[4] = {-1, -1, -1, -1};
    io->put(io->ctx, "topology_counts", SHARD_MODEL_CK_I64, most && !scratch ? bad : counts, 4);
    io->put(io->ctx, "topology_tri", SHARD_MODEL_CK_I32, m->tri, 3 * (uint64_t)m->ne);
    ck_put_sec(io, &sec[k++], scratch, zero); /* topology_x */
    io->put(io->ctx, "facet_state", SHARD_MODEL_CK_BYTES, m->bf_state, (uint64_t)m->nfac);
    io->put(io->ctx, "facet_row", SHARD_MODEL_CK_I32, m->bf_row, 2 * (uint64_t)m->nfac);
    io->put(io->ctx, "facet_sigma", SHARD_MODEL_CK_F64, m->bf_sc, (uint64_t)m->nfac);
  }
  for (; k < nsec; ++k) ck_put_sec(io, &sec[k], scratch, zero);
  free(scratch);
  if (zero) munmap(zero, most);
}

/* A run with insertion: the copies, rows and facet states of the
 * checkpoint replace those of the model as built (whose crack must be the
 * same), and everything derived from them is rebuilt. */
static int ck_read_topology(tri2d *m, const shard_model_ck_io *io, shard_msg *msg) {
  int64_t c[4];
  int st = io->get(io->ctx, "topology_counts", SHARD_MODEL_CK_I64, c, 4, msg);
  if (st != SHARD_OK) return st;
  const int32_t ncon_max = m->sys.ncon_max;
  if (!(c[0] >= m->nn && c[0] <= m->nn_max) || !(c[1] >= m->nwall_rows && c[1] <= ncon_max) ||
      !(c[2] >= 0 && c[2] <= m->nfac) || c[3] < 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "topology_counts (%lld vertices, %lld rows, %lld broken facets, %lld insertions) do not fit "
                         "this mesh (%d to %d vertices, %d to %d rows, %d facets)", (long long)c[0], (long long)c[1],
                         (long long)c[2], (long long)c[3], (int)m->nn, (int)m->nn_max, (int)m->nwall_rows,
                         (int)ncon_max, (int)m->nfac);
  const int32_t nn = (int32_t)c[0], ncon = (int32_t)c[1];
  /* the storage for the checkpoint's copies, rows and points */
  if ((st = grow_copies(m, nn, msg)) != SHARD_OK || (st = grow_rows(m, ncon, msg)) != SHARD_OK ||
      (m->coh && (st = grow_points(m, ncon - m->nwall_rows < m->npt_max ? ncon - m->nwall_rows : m->npt_max, msg)) !=
                     SHARD_OK))
    return st;
  ck_sec sec[16];
  const int nsec = ck_secs(m, sec);
  unsigned char *scratch = ck_scratch(sec, nsec);
  char *state = malloc((size_t)(m->nfac > 0 ? m->nfac : 1));
  if (!state || (!scratch && sec[0].have < sec[0].count)) {
    free(state), free(scratch);
    return NOMEM("the checkpoint's facets");
  }
  if ((st = io->get(io->ctx, "topology_tri", SHARD_MODEL_CK_I32, m->tri, 3 * (uint64_t)m->ne, msg)) != SHARD_OK ||
      (st = ck_get_sec(io, &sec[0], scratch, msg)) != SHARD_OK ||
      (st = io->get(io->ctx, "facet_state", SHARD_MODEL_CK_BYTES, state, (uint64_t)m->nfac, msg)) != SHARD_OK ||
      (st = io->get(io->ctx, "facet_row", SHARD_MODEL_CK_I32, m->bf_row, 2 * (uint64_t)m->nfac, msg)) != SHARD_OK ||
      (st = io->get(io->ctx, "facet_sigma", SHARD_MODEL_CK_F64, m->bf_sc, (uint64_t)m->nfac, msg)) != SHARD_OK) {
    free(state), free(scratch);
    return st;
  }
  free(scratch);
  for (int32_t f = 0; f < m->nfac && st == SHARD_OK; ++f) {
    if (state[f] < 0 || state[f] > 2 || (state[f] == 2) != (m->bf_state[f] == 2))
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "facet_state[%d] = %d: not the case's crack, or not a state", (int)f,
                         (int)state[f]);
    else if (state[f] && !(isfinite(m->bf_sc[f]) && m->bf_sc[f] > 0))
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "facet_sigma[%d] = %g is not a positive stress", (int)f, m->bf_sc[f]);
    for (int k = 0; k < 2 && st == SHARD_OK; ++k) {
      const int32_t r = m->bf_row[2 * f + k];
      if (r != -1 && (!state[f] || r < m->nwall_rows || r >= ncon))
        st = shard_msg_set(msg, SHARD_ERR_INPUT, "facet_row[%d] = %d is not a crack row", (int)(2 * f + k), (int)r);
    }
  }
  for (size_t i = 0; i < 3 * (size_t)m->ne && st == SHARD_OK; ++i)
    if (m->tri[i] < 0 || m->tri[i] >= nn)
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "topology_tri[%zu] = %d is not a vertex", i, (int)m->tri[i]);
  for (size_t i = 0; i < 2 * (size_t)nn && st == SHARD_OK; ++i)
    if (!isfinite(m->X[i])) st = shard_msg_set(msg, SHARD_ERR_INPUT, "topology_x[%zu] is not finite", i);
  if (st != SHARD_OK) {
    free(state);
    return st;
  }
  memcpy(m->bf_state, state, (size_t)m->nfac);
  free(state);
  m->nn = nn, m->ndof = 2 * nn, m->nbroken = (int32_t)c[2], m->insertions = c[3];
  /* the rows' kinds: with walls, the checkpoint's (the set-up wall rows as
   * built, then crack rows and wall rows of copies in their order); else
   * crack rows after the wall rows */
  int32_t *kind = malloc((size_t)ncon_max * sizeof *kind), *node = malloc(2 * (size_t)ncon_max * sizeof *node);
  double *wgt = malloc((size_t)ncon_max * sizeof *wgt);
  if (!kind || !node || !wgt) {
    free(kind), free(node), free(wgt);
    return NOMEM("the checkpoint's rows");
  }
  for (int32_t r = 0; r < ncon_max; ++r) kind[r] = r < m->nwall_rows ? m->row_wall[r] : -1;
  int32_t nextra = 0;
  if (m->wall_mask) {
    if ((st = io->get(io->ctx, "row_wall", SHARD_MODEL_CK_I32, kind, (uint64_t)ncon_max, msg)) != SHARD_OK ||
        (st = io->get(io->ctx, "row_node", SHARD_MODEL_CK_I32, node, 2 * (uint64_t)ncon_max, msg)) != SHARD_OK ||
        (st = io->get(io->ctx, "row_weight", SHARD_MODEL_CK_F64, wgt, (uint64_t)ncon_max, msg)) != SHARD_OK) {
      free(kind), free(node), free(wgt);
      return st;
    }
    for (int32_t r = 0; r < ncon && st == SHARD_OK; ++r) {
      if (r < m->nwall_rows) {
        if (kind[r] != m->row_wall[r] || node[2 * r + 1] != m->row_c[2 * r + 1] || !(isfinite(wgt[r]) && wgt[r] >= 0))
          st = shard_msg_set(msg, SHARD_ERR_INPUT, "row_wall[%d]: not the set-up wall row of this case", (int)r);
      } else if (kind[r] >= 0) {
        if (kind[r] >= W_N || !m->has_wall[kind[r]] || node[2 * r + 1] < 0 || node[2 * r + 1] >= nn ||
            !(isfinite(wgt[r]) && wgt[r] >= 0))
          st = shard_msg_set(msg, SHARD_ERR_INPUT, "row %d: wall %d, vertex %d, weight %g is not a wall row here",
                             (int)r, (int)kind[r], (int)node[2 * r + 1], wgt[r]);
        ++nextra;
      } else if (kind[r] != -1)
        st = shard_msg_set(msg, SHARD_ERR_INPUT, "row_wall[%d] = %d is not a wall nor -1 (a crack row)", (int)r,
                           (int)kind[r]);
    }
    if (st != SHARD_OK) {
      free(kind), free(node), free(wgt);
      return st;
    }
  }
  /* each crack row once, for a facet end whose two sides differ */
  int32_t seen = 0;
  for (int32_t f = 0; f < m->nfac && st == SHARD_OK; ++f)
    for (int k = 0; k < 2 && st == SHARD_OK; ++k) {
      const int32_t r = m->bf_row[2 * f + k];
      if (r < 0) continue;
      if (kind[r] != -1)
        st = shard_msg_set(msg, SHARD_ERR_INPUT, "facet_row[%d] = %d is a wall row", (int)(2 * f + k), (int)r);
      else if (m->tri[3 * m->bf_em[f] + m->bf_loc[4 * f + k]] == m->tri[3 * m->bf_ep[f] + m->bf_loc[4 * f + 2 + k]])
        st = shard_msg_set(msg, SHARD_ERR_INPUT, "facet_row[%d]: its facet end is not open", (int)(2 * f + k));
      ++seen;
    }
  if (st == SHARD_OK && seen != ncon - m->nwall_rows - nextra)
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "facet_row: %d rows for %d crack rows", (int)seen,
                       (int)(ncon - m->nwall_rows - nextra));
  if (st != SHARD_OK) {
    free(kind), free(node), free(wgt);
    return st;
  }
  m->ncon = ncon, m->h_rowptr[m->nwall_rows] = 2 * m->nwall_rows, m->ncrack_rows = 0;
  if (m->wall_mask) {
    memset(m->wall_mask, 0, (size_t)m->nn_cap);
    for (int32_t r = 0; r < m->nwall_rows; ++r) /* the set-up rows: their weights as the run left them */
      m->wall_mask[m->row_c[2 * r + 1]] |= (unsigned char)(1u << m->row_wall[r]), m->row_w[r] = wgt[r];
  }
  for (int32_t r = m->nwall_rows; r < ncon; ++r) {
    m->h_rowptr[r + 1] = m->h_rowptr[r] + (kind[r] >= 0 ? 2 : 4);
    m->row_pt[r] = -1, m->row_wall[r] = -2; /* not filled yet */
    if (kind[r] < 0) m->row_pt[r] = m->ncrack_rows, m->crack_row[m->ncrack_rows++] = r;
  }
  for (int32_t r = m->nwall_rows; r < ncon && st == SHARD_OK; ++r) {
    if (kind[r] < 0) continue;
    if (m->wall_mask[node[2 * r + 1]] & (1u << kind[r]))
      st = shard_msg_set(msg, SHARD_ERR_INPUT, "row %d: vertex %d has a row on wall %d already", (int)r,
                         (int)node[2 * r + 1], (int)kind[r]);
    else
      fill_wall_row(m, r, kind[r], node[2 * r + 1], wgt[r]);
  }
  free(kind), free(node), free(wgt);
  if (st != SHARD_OK) return st;
  for (int32_t f = 0; f < m->nfac; ++f)
    for (int k = 0; k < 2; ++k) {
      const int32_t r = m->bf_row[2 * f + k];
      if (r < 0) continue;
      if (m->row_wall[r] == -1)
        return shard_msg_set(msg, SHARD_ERR_INPUT, "facet_row: row %d given twice", (int)r);
      fill_row(m, r, f, k);
    }
  if (m->coh) m->npt = m->ncrack_rows;
  m->h.nrows = ncon, m->h.ncols = m->ndof;
  memset(m->mass, 0, (size_t)m->ndof * sizeof *m->mass);
  for (int32_t e = 0; e < m->ne; ++e) {
    const double me = m->rho * m->thick * m->geo[7 * e + 6] / 3.0;
    for (int k = 0; k < 3; ++k) m->mass[2 * m->tri[3 * e + k]] += me, m->mass[2 * m->tri[3 * e + k] + 1] += me;
  }
  for (int32_t d = 0; d < m->ndof; ++d) {
    if (!(m->mass[d] > 0))
      return shard_msg_set(msg, SHARD_ERR_INPUT, "topology_tri: vertex %d belongs to no triangle", (int)(d / 2));
    m->minv[d] = 1.0 / m->mass[d];
  }
  for (int32_t i = 0; i < m->npt; ++i)
    m->pt_sc[i] = m->bf_sc[m->pt_fac[i]], m->pt_dc[i] = 2.0 * m->g_c / m->pt_sc[i];
  free(m->k_rowptr), free(m->k_col), free(m->k_base), free(m->k_val), free(m->nblock);
  m->k_rowptr = m->k_col = m->nblock = NULL, m->k_base = m->k_val = NULL;
  if ((st = row_springs(m, msg)) != SHARD_OK || (st = build_stiffness(m, msg)) != SHARD_OK) return st;
  m->sys.ndof = m->ndof, m->sys.ncon = m->ncon;
  return SHARD_OK;
}

static int tri2d_ck_read(void *self, const shard_model_ck_io *io, int64_t step, double dt, shard_msg *msg) {
  tri2d *m = self;
  (void)step, (void)dt;
  if (m->insertion) {
    const int st = ck_read_topology(m, io, msg);
    if (st != SHARD_OK) return st;
  }
  /* the state's sections, through scratch into arrays shorter than their room */
  ck_sec sec[16];
  const int nsec = ck_secs(m, sec);
  unsigned char *scratch = ck_scratch(sec, nsec);
  const int coh = m->tsl && m->npt_max > 0;
  int st = SHARD_OK;
  for (int k = m->insertion ? 1 + (m->wall_mask ? 3 : 0) : 0; k < nsec && st == SHARD_OK; ++k) {
    st = ck_get_sec(io, &sec[k], scratch, msg);
    const double *p = sec[k].data;
    const uint64_t have = sec[k].have < sec[k].count ? sec[k].have : sec[k].count;
    for (uint64_t i = 0; i < have && st == SHARD_OK; ++i)
      if (!isfinite(p[i]))
        st = shard_msg_set(msg, SHARD_ERR_INPUT, "%s[%llu] is not finite", sec[k].name,
                           (unsigned long long)(sec[k].parts ? (i / sec[k].stride) * (sec[k].count / 5) + i % sec[k].stride : i));
  }
  free(scratch);
  if (st != SHARD_OK) return st;
  for (int32_t r = 0; r < m->ncon; ++r)
    if (m->impulse[r] < 0)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "impulse[%d] = %g is negative (a wall only pushes)", (int)r,
                           m->impulse[r]);
  for (int32_t i = 0; coh && i < m->npt; ++i)
    if (m->pt_dmax[i] < 0)
      return shard_msg_set(msg, SHARD_ERR_INPUT, "cohesive_dmax[%d] = %g is negative (a largest opening)", (int)i,
                           m->pt_dmax[i]);
  if (coh) { /* the trial state of the restored step */
    cohesive_eval(m, m->sys.u, 0);
  }
  return SHARD_OK;
}

static const shard_model_ops tri2d_ops = {
    .outputs = &tri2d_outputs,
    .create = tri2d_create,
    .destroy = tri2d_destroy,
    .info = tri2d_info,
    .scales = tri2d_scales,
    .derived = tri2d_derived,
    .why = tri2d_why,
    .set_force_law = tri2d_set_force_law,
    .set_tsl = tri2d_set_tsl,
    .release_rule = tri2d_release_rule,
    .stable_step = tri2d_stable_step,
    .commit = tri2d_commit,
    .insert = tri2d_insert,
    .measure = tri2d_measure,
    .energy = tri2d_energy,
    .reactions = tri2d_reactions,
    .release = tri2d_release,
    .released = tri2d_released,
    .broken = tri2d_broken,
    .reference_setup = tri2d_reference_setup,
    .reference_step = tri2d_reference_step,
    .history = tri2d_history,
    .summary = tri2d_summary_keys,
    .files = tri2d_files,
    .fields_open = tri2d_fields_open,
    .fields_write = tri2d_fields_write,
    .spacetime_record = tri2d_spacetime_record,
    .fields_finish = tri2d_fields_finish,
    .fields_note = tri2d_fields_note,
    .ck_sections = tri2d_ck_sections,
    .ck_write = tri2d_ck_write,
    .ck_read = tri2d_ck_read,
};

static const shard_plugin tri2d_plugin = {
    SHARD_PLUGIN_HEADER(SHARD_KIND_MODEL),
    .name = "tri2d",
    .version = "0.1.0",
    .summary = "linear elastic P1 triangles in the plane (plane stress or strain) on a built-in rectangle, annulus "
               "or disk or a Gmsh mesh, between optional rigid walls",
    .params = tri2d_specs,
    .n_params = SHARD_NPARAMS(tri2d_specs),
    .ops_size = sizeof(shard_model_ops),
    .caps = 0,
    .ops = &tri2d_ops,
    .doc = "Linear elastic constant-strain (P1) triangles, plane stress or plane strain, small strain, lumped mass "
           "rho t A / 3 per vertex, on a structured rectangle or annulus (two triangles per cell, alternating "
           "diagonals), a disk (rings of 6 i nodes zipped into triangles around a centre fan; interior nodes "
           "optionally perturbed on all three) or the triangles of a Gmsh file (ASCII 2.2 or 4.1). Node i carries DOFs 2i (x) and 2i+1 (y). Rigid walls are "
           "half-planes (left, right, bottom, top relative to the mesh, and one oblique wall), one constraint row "
           "per boundary node facing them and one per wall at every vertex copy on a crack. A straight crack "
           "given in the case splits the vertices on it into "
           "copies, with contact rows across it and, with a fracture section, cohesive points at its facet ends; "
           "with fracture.insertion, facets break during the run where the mean stress of their two triangles "
           "reaches their strength. `cases/examples/tri2d_block_wall.yaml` runs a block "
           "into a wall under every integrator.",
};

SHARD_PLUGIN_SINGLE(tri2d_plugin)
