/* tests: the 2D P1 triangle model (model.type tri2d): the patch test and the
 * field snapshot, the bar wave speed of a strip, a thin block against a rigid
 * wall under the four integrators (the 1D bar's answer), an oblique wall,
 * bad input. The model is built through the registry, as the host does. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cu_runner.h"
#include "run_helpers.h"
#include "shard/model.h"

#define BLOCK "cases/examples/tri2d_block_wall"
#define PI 3.14159265358979323846
#define SQRT1_2 0.70710678118654752440

/* ---- building the model from hand-given keys ---- */

#include "tri2d_build.h"

/* the default keys of a rectangle of w x h, nx x ny cells */
#define BASE_KEYS(plane, nu, w, h, nx, ny, pert)                                                               \
  {"plane", plane}, {"young", "2e11"}, {"poisson", nu}, {"density", "8000"}, {"thickness", "0.01"},           \
      {"mesh.shape", "rectangle"}, {"mesh.width", w}, {"mesh.height", h}, {"mesh.nx", nx}, {"mesh.ny", ny},    \
      {"mesh.perturbation", pert}, {"mesh.seed", "7"}, {"initial.strain_rate", "0"}

/* ---- a. the patch test ---- */

/* the "stress" cell array of a VTU snapshot into s (3 per cell); the cell count */
static int vtu_stress(const char *dir, double *s, int max_cells) {
  char *text = rh_read_file(dir, "fields/fields_000000.vtu", NULL);
  if (!text) return -1;
  int n = 0;
  const char *p = strstr(text, "Name=\"stress\"");
  if (p && (p = strchr(p, '>'))) {
    ++p;
    char *end;
    while (n < 3 * max_cells) {
      const double x = strtod(p, &end);
      if (end == p) break;
      s[n++] = x, p = end;
    }
  }
  const int has_triangles = strstr(text, "Name=\"types\"") != NULL && strstr(text, "          5\n") != NULL;
  free(text);
  return has_triangles ? n / 3 : -2;
}

/* On a perturbed mesh (interior nodes moved by up to 25% of a cell), every
 * linear displacement u = eps0 X gives the same stress D eps0 in every
 * element and no force on an interior node: P1 triangles represent a
 * uniform strain exactly, so both hold to round-off (1e-12 of the scale
 * E |eps0| and of a node's force E |eps0| t h). The boundary forces add up
 * to zero, the right edge's to sigma_xx H t. A rigid rotation gives no force.
 * Plane stress and plane strain, nu = 0.3. */
static void test_tri2d_patch(void) {
  const char *planes[] = {"stress", "strain"};
  for (int pl = 0; pl < 2; ++pl) {
    const kv keys[] = {BASE_KEYS(planes[pl], "0.3", "2", "1", "8", "5", "0.25")};
    built b;
    shard_msg msg = {{0}};
    CU_ASSERT_EQUAL_FATAL(build(keys, sizeof keys / sizeof keys[0], &b, &msg), SHARD_OK);
    shard_system *s = b.sys;
    const int32_t nn = s->ndof / 2;
    double *X = malloc((size_t)s->ndof * sizeof *X), *f = malloc((size_t)s->ndof * sizeof *f);
    CU_ASSERT_FATAL(X && f);
    const double exx = 1e-3, eyy = -4e-4, gxy = 6e-4; /* gxy: engineering shear 2 e_xy */
    const double E = 2e11, nu = 0.3;
    double D00, D01, D22;
    if (pl == 0) D00 = E / (1 - nu * nu), D01 = D00 * nu, D22 = E / (2 * (1 + nu));
    else D00 = E * (1 - nu) / ((1 + nu) * (1 - 2 * nu)), D01 = E * nu / ((1 + nu) * (1 - 2 * nu)), D22 = E / (2 * (1 + nu));
    const double sxx = D00 * exx + D01 * eyy, syy = D01 * exx + D00 * eyy, sxy = D22 * gxy;
    /* the node positions come from the snapshot's X array: write one at u = 0 */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/patch%d", rh_tmpdir, pl);
    CU_ASSERT_EQUAL_FATAL(b.ops->fields_open(b.self, dir, 1, 0, &msg), SHARD_OK);
    CU_ASSERT_EQUAL_FATAL(b.ops->fields_write(b.self, 0.0, &msg), SHARD_OK);
    char *text = rh_read_file(dir, "fields/fields_000000.vtu", NULL);
    CU_ASSERT_FATAL(text != NULL);
    const char *p = strstr(text, "Name=\"X\"");
    CU_ASSERT_FATAL(p && (p = strchr(p, '>')));
    ++p;
    for (int32_t i = 0; i < nn; ++i) {
      char *end;
      X[2 * i] = strtod(p, &end), X[2 * i + 1] = strtod(end, &end);
      (void)strtod(end, &end); /* z */
      p = end;
    }
    free(text);
    int moved = 0;
    for (int32_t i = 0; i < nn; ++i) {
      const double gx = 2.0 * (double)(i % 9) / 8, gy = 1.0 * (double)(i / 9) / 5;
      moved += fabs(X[2 * i] - gx) > 1e-3 || fabs(X[2 * i + 1] - gy) > 1e-3;
    }
    CU_CHECK_MSG(moved >= 20, "only %d of the 28 interior nodes were perturbed", moved);
    for (int32_t i = 0; i < nn; ++i) {
      s->u[2 * i] = exx * X[2 * i] + 0.5 * gxy * X[2 * i + 1];
      s->u[2 * i + 1] = 0.5 * gxy * X[2 * i] + eyy * X[2 * i + 1];
    }
    CU_ASSERT_EQUAL_FATAL(s->ops->force(s, 0.0, s->u, f, &msg), SHARD_OK);
    const double fscale = E * exx * 0.01 * 0.2; /* E |eps| t h */
    double fin = 0, sumx = 0, sumy = 0, right = 0;
    for (int32_t i = 0; i < nn; ++i) {
      const int boundary = X[2 * i] == 0 || X[2 * i] == 2 || X[2 * i + 1] == 0 || X[2 * i + 1] == 1;
      if (!boundary) fin = fmax(fin, fmax(fabs(f[2 * i]), fabs(f[2 * i + 1])));
      sumx += f[2 * i], sumy += f[2 * i + 1];
      if (X[2 * i] == 2) right -= f[2 * i]; /* f = -K u: the edge's internal force is -(traction) */
    }
    CU_CHECK_MSG(fin <= 1e-12 * fscale, "%s: interior force %.3g (scale %.3g)", planes[pl], fin, fscale);
    CU_NEAR(sumx, 0.0, 1e-12 * fscale);
    CU_NEAR(sumy, 0.0, 1e-12 * fscale);
    CU_REL(right, sxx * 1.0 * 0.01, 1e-12);
    CU_ASSERT_EQUAL_FATAL(b.ops->fields_write(b.self, 1.0, &msg), SHARD_OK); /* fields_000001: this state */
    text = rh_read_file(dir, "fields/fields_000001.vtu", NULL);
    CU_ASSERT_FATAL(text != NULL);
    free(text);
    /* read the second snapshot's stress: rename so vtu_stress reads it */
    char a[1024], c[1024];
    snprintf(a, sizeof a, "%s/fields/fields_000001.vtu", dir);
    snprintf(c, sizeof c, "%s/fields/fields_000000.vtu", dir);
    CU_ASSERT_FATAL(rename(a, c) == 0);
    static double st[3 * 200];
    const int ncell = vtu_stress(dir, st, 200);
    CU_ASSERT_EQUAL(ncell, 80);
    double serr = 0;
    for (int e = 0; e < ncell; ++e)
      serr = fmax(serr, fmax(fabs(st[3 * e] - sxx), fmax(fabs(st[3 * e + 1] - syy), fabs(st[3 * e + 2] - sxy))));
    CU_CHECK_MSG(serr <= 1e-12 * fabs(sxx), "%s: stress off D eps0 by %.3g (sxx %.6g)", planes[pl], serr, sxx);
    char *pvd = rh_read_file(dir, "fields.pvd", NULL);
    CU_ASSERT_FATAL(pvd != NULL);
    CU_ASSERT(strstr(pvd, "timestep=\"1\" group=\"\" part=\"0\" file=\"fields/fields_000001.vtu\"") != NULL);
    free(pvd);
    /* elastic energy: 1/2 eps0 . D eps0 times the volume */
    shard_model_energy en;
    b.ops->energy(b.self, &en);
    CU_REL(en.elastic, 0.5 * (sxx * exx + syy * eyy + sxy * gxy) * 2.0 * 1.0 * 0.01, 1e-12);
    /* a small rigid rotation: no force at all */
    for (int32_t i = 0; i < nn; ++i) s->u[2 * i] = -1e-4 * X[2 * i + 1], s->u[2 * i + 1] = 1e-4 * X[2 * i];
    CU_ASSERT_EQUAL(s->ops->force(s, 0.0, s->u, f, &msg), SHARD_OK);
    double frot = 0;
    for (int32_t d = 0; d < s->ndof; ++d) frot = fmax(frot, fabs(f[d]));
    CU_CHECK_MSG(frot <= 1e-12 * fscale, "%s: rotation force %.3g", planes[pl], frot);
    /* K from stiffness() gives the same force as the element loop */
    const shard_csr *k;
    CU_ASSERT_EQUAL_FATAL(s->ops->stiffness(s, s->u, &k, &msg), SHARD_OK);
    for (int32_t i = 0; i < nn; ++i) s->u[2 * i] = 1e-4 * sin(3.0 * X[2 * i]), s->u[2 * i + 1] = 2e-4 * cos(X[2 * i + 1]);
    CU_ASSERT_EQUAL(s->ops->force(s, 0.0, s->u, f, &msg), SHARD_OK);
    double kerr = 0, kscale = 0;
    for (int32_t r = 0; r < k->nrows; ++r) {
      double ku = 0;
      for (int32_t q = k->rowptr[r]; q < k->rowptr[r + 1]; ++q) ku += k->val[q] * s->u[k->colind[q]];
      kerr = fmax(kerr, fabs(ku + f[r])), kscale = fmax(kscale, fabs(f[r]));
      for (int32_t q = k->rowptr[r]; q < k->rowptr[r + 1]; ++q) { /* symmetric */
        const int32_t cc = k->colind[q];
        double kt = NAN;
        for (int32_t q2 = k->rowptr[cc]; q2 < k->rowptr[cc + 1]; ++q2)
          if (k->colind[q2] == r) kt = k->val[q2];
        CU_ASSERT(kt == k->val[q]);
      }
    }
    CU_CHECK_MSG(kerr <= 1e-12 * kscale, "%s: K u differs from -f by %.3g (scale %.3g)", planes[pl], kerr, kscale);
    b.ops->destroy(b.self);
    free(X), free(f);
  }
}

/* ---- b. the wave speed of a strip ---- */

/* A free strip 1 m x 0.025 m (40 x 1 cells, nu = 0, plane stress) started
 * with v_x = v0 cos(pi x / L): with nu = 0 the lowest axial mode of the bar,
 * u_x = A cos(pi x / L) sin(w t), w = pi c / L, c = sqrt(E / rho). Central
 * differences with the model's force and mass (dt = dt_c / 20); the right
 * end's mean u_x is back at 0 after half a period. Tolerance: lumped P1 on
 * cells of h = L / 40 lowers w by about (pi h / L)^2 / 24 = 2.6e-4 (the 1D
 * chain's dispersion), dt by (w dt)^2 / 24 < 1e-6, the zero found by linear
 * interpolation within a step (measured: 1.000314); 1e-3 leaves a factor 3
 * over the mesh error, and a wave speed off by 0.1% fails. */
static void test_tri2d_wave_speed(void) {
  const kv keys[] = {BASE_KEYS("stress", "0", "1", "0.025", "40", "1", "0")};
  built b;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(build(keys, sizeof keys / sizeof keys[0], &b, &msg), SHARD_OK);
  shard_system *s = b.sys;
  const int32_t nn = s->ndof / 2;
  const double L = 1.0, c = sqrt(2e11 / 8000.0), w = PI * c / L, T = 2 * PI / w;
  double cder = NAN;
  CU_ASSERT_EQUAL(b.ops->derived(b.self, "c", &cder), 1);
  CU_REL(cder, c, 1e-15);
  const double dt = b.ops->stable_step(b.self, SHARD_STEP_DEFAULT, 0.0) / 20.0;
  CU_ASSERT_FATAL(dt > 0 && dt < T / 100);
  double *f = malloc((size_t)s->ndof * sizeof *f);
  CU_ASSERT_FATAL(f != NULL);
  for (int32_t i = 0; i < nn; ++i) {
    const double x = (double)(i % 41) / 40.0;
    s->u[2 * i] = 0, s->u[2 * i + 1] = 0, s->v[2 * i] = cos(PI * x), s->v[2 * i + 1] = 0;
  }
  /* leapfrog: v_{1/2} = v_0 + dt/2 a_0 */
  s->ops->force(s, 0.0, s->u, f, &msg);
  for (int32_t d = 0; d < s->ndof; ++d) s->v[d] += 0.5 * dt * f[d] * s->minv[d];
  double prev = 0, t = 0, zero = NAN;
  for (int64_t step = 1; t < 0.75 * T; ++step) {
    for (int32_t d = 0; d < s->ndof; ++d) s->u[d] += dt * s->v[d];
    t = (double)step * dt;
    s->ops->force(s, t, s->u, f, &msg);
    for (int32_t d = 0; d < s->ndof; ++d) s->v[d] += dt * f[d] * s->minv[d];
    const double ur = 0.5 * (s->u[2 * 40] + s->u[2 * 81]); /* the right end's two nodes */
    if (t > 0.25 * T && prev < 0 && ur >= 0 && isnan(zero)) zero = t - dt * ur / (ur - prev);
    prev = ur;
  }
  /* the right end moves backward first (cos(pi) = -1), so the zero after the first quarter is T/2 */
  printf("\n  half period / (L / c) = %.6f", zero / (0.5 * T));
  CU_CHECK_MSG(fabs(zero / (0.5 * T) - 1.0) < 1e-3, "half period %.9g against L/c = %.9g (ratio %.6f)", zero, 0.5 * T,
               zero / (0.5 * T));
  free(f);
  b.ops->destroy(b.self);
}

/* ---- c. the block on the wall ---- */

typedef struct impact {
  double t_first, t_last, impulse, dt; /* wall force > 0 from t_first to t_last */
  double f_mid;                        /* mean wall force over the central 80% of 2 L / c after t_first */
  double vx_end, vy_end;
  double pt_dev, pt0; /* tangential momentum: largest deviation, initial */
  double pn0, pn_end; /* normal momentum at the start and the end */
  int rows;
} impact;

/* the history of dir: contact interval and impulse of wall column `col`, the
 * final centre-of-mass velocity, the momentum along tau and n */
static int read_impact(const char *dir, const char *col, const double tau[2], const double n[2], double tb,
                       impact *out) {
  char *h = rh_read_file(dir, "history.csv", NULL);
  if (!h) return 0;
  const int ct = rh_csv_column(h, "t"), cf = rh_csv_column(h, col), cvx = rh_csv_column(h, "vx_mean"),
            cvy = rh_csv_column(h, "vy_mean"), cpx = rh_csv_column(h, "momentum_x"),
            cpy = rh_csv_column(h, "momentum_y");
  *out = (impact){NAN, NAN, 0, NAN, NAN, NAN, NAN, 0, NAN, NAN, NAN, 0};
  double tprev = NAN, fsum = 0;
  int fn = 0;
  for (const char *line = strchr(h, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
    const double t = rh_csv_field(line + 1, ct), fw = rh_csv_field(line + 1, cf);
    const double px = rh_csv_field(line + 1, cpx), py = rh_csv_field(line + 1, cpy);
    const double pt = px * tau[0] + py * tau[1];
    if (isnan(out->pt0)) out->pt0 = pt, out->pn0 = px * n[0] + py * n[1];
    out->pn_end = px * n[0] + py * n[1];
    out->pt_dev = fmax(out->pt_dev, fabs(pt - out->pt0));
    if (!isnan(tprev)) out->dt = t - tprev;
    if (fw > 0) {
      if (isnan(out->t_first)) out->t_first = t;
      out->t_last = t;
      out->impulse += fw * (t - tprev);
    }
    /* the step (tprev, t] inside (t_c + 0.1 tb, t_c + 0.9 tb), t_c = t_first - dt */
    if (!isnan(out->t_first) && tprev - (out->t_first - out->dt) >= 0.1 * tb &&
        t - (out->t_first - out->dt) <= 0.9 * tb)
      fsum += fw, ++fn;
    out->vx_end = rh_csv_field(line + 1, cvx), out->vy_end = rh_csv_field(line + 1, cvy);
    tprev = t;
    out->rows++;
  }
  out->f_mid = fn ? fsum / fn : NAN;
  free(h);
  return out->rows;
}

/* The example: a block 0.2 x 0.01 m (80 x 4 cells, plane stress, nu = 0,
 * E = 200 GPa, rho = 8000, t = 0.01 m: c = 5000 m/s) at v0 = 1 m/s into the
 * left wall, e = 0. The 1D bar's answer: a contact of 2 L / c = 80 us under
 * the force rho c v0 A = 4000 N (A = H t = 1e-4 m^2), and the block leaves
 * at v0. As the 1D acceptance measures it: the duration from the start of
 * the first to the end of the last step with a wall force, the mean force
 * over the central 80% of the contact (the discrete front's ramps at its
 * ends are a mesh effect), the rebound as the centre-of-mass velocity.
 * Impact schemes at dt = 0.95 dt_c (about 0.63 h / c: dt_c is the element
 * bound, 2/3 h / c on these right triangles): duration within 2 dt for NSN,
 * 3 dt for Moreau-Jean and CD-Lagrange (the 1D acceptance gives MJ 3 dt;
 * measured 1.4 and 2.4 dt); explicit Newmark + penalty (alpha 50) at 0.5 dt_c
 * of its own stable step, which the penalty springs make 4 times smaller:
 * its duration, stretched by the lattice's dispersion at a Courant number of
 * 0.17 (measured 10 of its steps, 0.44 us), is checked within h / c = 0.5 us,
 * one element's transit. Force 2%, rebound 5% (the lumped corner masses
 * differ from the bar's). */
static void test_tri2d_block_wall(void) {
  const struct {
    const char *plugin, *dt;
    double steps, abs; /* duration tolerance: steps * dt + abs */
  } cases[] = {{"integrator.plugin=nsn", "time.dt=0.95*dt_c", 2, 0},
               {"integrator.plugin=moreau_jean", "time.dt=0.95*dt_c", 3, 0},
               {"integrator.plugin=cd_lagrange", "time.dt=0.95*dt_c", 3, 0},
               {"integrator.plugin=explicit_newmark", "time.dt=0.5*dt_c", 0, 0.0025 / 5000}};
  const double L = 0.2, c = 5000, v0 = 1, A = 0.01 * 0.01, rho = 8000, tb = 2 * L / c, F0 = rho * c * v0 * A;
  for (int i = 0; i < 4; ++i) {
    char out[512], tag[16];
    snprintf(tag, sizeof tag, "block%d", i);
    const char *sets[] = {cases[i].plugin, cases[i].dt};
    CU_ASSERT_EQUAL_FATAL(rh_run(BLOCK, tag, sets, 2, out, sizeof out, NULL, 0), 0);
    impact im;
    const double tau[2] = {0, 1}, n[2] = {1, 0};
    CU_ASSERT_FATAL(read_impact(out, "force_left", tau, n, tb, &im) > 100);
    const double dur = im.t_last - im.t_first + im.dt, tol = cases[i].steps * im.dt + cases[i].abs;
    printf("\n  %-34s duration %.2f dt off 2L/c, mean force %+.2f%%, rebound %.4f", cases[i].plugin,
           (dur - tb) / im.dt, 100 * (im.f_mid / F0 - 1), im.vx_end);
    CU_CHECK_MSG(fabs(dur - tb) <= tol, "%s: contact %.6g s against 2L/c = %.6g s (dt %.3g)", cases[i].plugin, dur, tb,
                 im.dt);
    CU_CHECK_MSG(fabs(im.f_mid / F0 - 1) <= 0.02, "%s: mean force %.6g N against rho c v0 A = %.6g N",
                 cases[i].plugin, im.f_mid, F0);
    CU_CHECK_MSG(fabs(im.vx_end / v0 - 1) <= 0.05, "%s: rebound %.6g m/s against v0 = %g", cases[i].plugin, im.vx_end,
                 v0);
    /* the wall's impulse is the momentum it gave */
    CU_REL(im.impulse, im.pn_end - im.pn0, 1e-9);
    CU_NEAR(rh_summary(out, "momentum_y"), 0.0, 1e-12 * F0 * tb);
    CU_ASSERT(isnan(rh_summary(out, "momentum"))); /* the one-axis key is empty in 2D */
  }
}

/* ---- d. oblique walls ---- */

/* (i) The oblique wall given along an axis (normal [2, 0], normalised, through
 * [-1e-6, 0]: the left wall by the oblique keys), the block moving at 45
 * degrees, v = (-1, 1): its tangential momentum (along y) never changes, to
 * round-off (1e-12 of |p|), and the normal response is the 1D bar's with
 * v0 cos 45 = 1 (contact 2 L / c within 2 dt for NSN, 3 dt for CD-Lagrange as
 * above, rebound within 5%, tangential velocity unchanged).
 * (ii) A wall whose normal is turned by 30 degrees, (cos 30, sin 30), the
 * same block at 45 degrees to it: a corner hits first and the block turns,
 * but a frictionless wall pushes only along its normal, so the momentum
 * along the wall stays what it was at every step, to round-off, and the
 * normal momentum changes by exactly the wall's impulse. */
static void test_tri2d_oblique(void) {
  const char *plugins[] = {"integrator.plugin=nsn", "integrator.plugin=cd_lagrange"};
  const double tb = 2 * 0.2 / 5000;
  for (int i = 0; i < 2; ++i) {
    char out[512], tag[16];
    snprintf(tag, sizeof tag, "axis%d", i);
    const char *sets[] = {plugins[i], "model.walls.left=null", "model.walls.oblique.point=[-1e-6, 0]",
                          "model.walls.oblique.normal=[2, 0]", "model.initial.velocity=[-1, 1]",
                          "time.dt=0.95*dt_c"};
    CU_ASSERT_EQUAL_FATAL(rh_run(BLOCK, tag, sets, 6, out, sizeof out, NULL, 0), 0);
    impact im;
    const double tau[2] = {0, 1}, n[2] = {1, 0};
    CU_ASSERT_FATAL(read_impact(out, "force_oblique", tau, n, tb, &im) > 100);
    const double dur = im.t_last - im.t_first + im.dt;
    CU_CHECK_MSG(fabs(dur - tb) <= (i ? 3 : 2) * im.dt, "%s: contact %.6g s (%.2f dt off)", plugins[i], dur,
                 (dur - tb) / im.dt);
    CU_CHECK_MSG(im.pt_dev <= 1e-12 * fabs(im.pt0), "%s: tangential momentum moved by %.3g of %.6g", plugins[i],
                 im.pt_dev, im.pt0);
    CU_CHECK_MSG(fabs(im.vx_end - 1) <= 0.05, "%s: normal rebound %.6g", plugins[i], im.vx_end);
    CU_NEAR(im.vy_end, 1.0, 1e-12);
  }
  const double th = PI / 6, n[2] = {cos(th), sin(th)}, tau[2] = {-sin(th), cos(th)};
  /* velocity at 45 degrees to the normal, toward the wall: -n cos45 + tau sin45 */
  const double vx = -n[0] * SQRT1_2 + tau[0] * SQRT1_2, vy = -n[1] * SQRT1_2 + tau[1] * SQRT1_2;
  for (int i = 0; i < 2; ++i) {
    char out[512], tag[16], vel[128], nrm[128];
    snprintf(tag, sizeof tag, "obl%d", i);
    snprintf(vel, sizeof vel, "model.initial.velocity=[%.17g, %.17g]", vx, vy);
    snprintf(nrm, sizeof nrm, "model.walls.oblique.normal=[%.17g, %.17g]", n[0], n[1]);
    const char *sets[] = {plugins[i], "model.walls.left=null", "model.walls.oblique.point=[-1e-6, 0]", nrm, vel,
                          "time.end=3e-4"};
    CU_ASSERT_EQUAL_FATAL(rh_run(BLOCK, tag, sets, 6, out, sizeof out, NULL, 0), 0);
    impact im;
    CU_ASSERT_FATAL(read_impact(out, "force_oblique", tau, n, tb, &im) > 100);
    CU_ASSERT(im.impulse > 0);
    CU_CHECK_MSG(im.pt_dev <= 1e-12 * fabs(im.pt0), "%s: tangential momentum moved by %.3g of %.6g", plugins[i],
                 im.pt_dev, im.pt0);
    CU_CHECK_MSG(fabs(im.pn_end - im.pn0 - im.impulse) <= 1e-9 * im.impulse,
                 "%s: normal momentum changed by %.9g, the wall's impulse is %.9g", plugins[i], im.pn_end - im.pn0,
                 im.impulse);
  }
}

/* ---- e. checkpoint sections (the round trip itself: tests/e2e/tri2d_restart.sh) ---- */

/* an in-memory checkpoint: the sections ck_write puts, read back in order */
typedef struct ck_mem {
  char name[8][16];
  double data[8][4096];
  uint64_t count[8];
  int n, next;
} ck_mem;

static void ck_put(void *ctx, const char *name, uint32_t type, const void *data, uint64_t count) {
  ck_mem *c = ctx;
  if (c->n >= 8 || type != SHARD_MODEL_CK_F64 || count > 4096) return;
  snprintf(c->name[c->n], sizeof c->name[0], "%s", name);
  memcpy(c->data[c->n], data, count * sizeof(double));
  c->count[c->n++] = count;
}

static int ck_get(void *ctx, const char *name, uint32_t type, void *dst, uint64_t count, shard_msg *msg) {
  ck_mem *c = ctx;
  if (c->next >= c->n) return shard_msg_set(msg, SHARD_ERR_INPUT, "no section '%s'", name);
  const int k = c->next++;
  if (strcmp(c->name[k], name) != 0 || type != SHARD_MODEL_CK_F64 || c->count[k] != count)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "section '%s' (%llu) where '%s' (%llu) was expected", c->name[k],
                         (unsigned long long)c->count[k], name, (unsigned long long)count);
  memcpy(dst, c->data[k], count * sizeof(double));
  return SHARD_OK;
}

/* What ck_write puts, ck_read takes back into a model built from the same
 * keys (state equal bit for bit); it refuses a non-finite number, a negative
 * wall impulse and a state of another mesh, naming what is wrong. */
static void test_tri2d_checkpoint_sections(void) {
  const kv keys[] = {BASE_KEYS("stress", "0.25", "1", "0.5", "6", "3", "0.2"), {"walls.left.gap", "0.001"},
                     {"walls.top.gap", "0"}};
  const kv other[] = {BASE_KEYS("stress", "0.25", "1", "0.5", "6", "4", "0.2"), {"walls.left.gap", "0.001"},
                      {"walls.top.gap", "0"}};
  built a, b, c;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(build(keys, sizeof keys / sizeof keys[0], &a, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(build(keys, sizeof keys / sizeof keys[0], &b, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(build(other, sizeof other / sizeof other[0], &c, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(a.sys->ncon, 4 + 7); /* left: 4 nodes, top: 7 */
  for (int32_t d = 0; d < a.sys->ndof; ++d) a.sys->u[d] = 1e-6 * sin(d), a.sys->v[d] = cos(d), a.sys->a[d] = d;
  for (int32_t r = 0; r < a.sys->ncon; ++r) a.sys->impulse[r] = 0.5 * r;
  static ck_mem mem;
  memset(&mem, 0, sizeof mem);
  const shard_model_ck_io io = {&mem, ck_put, ck_get};
  CU_ASSERT_EQUAL(a.ops->ck_sections(a.self), 4u);
  a.ops->ck_write(a.self, &io);
  CU_ASSERT_EQUAL_FATAL(mem.n, 4);
  CU_ASSERT_EQUAL(b.ops->ck_read(b.self, &io, 10, 1e-6, &msg), SHARD_OK);
  CU_ASSERT(memcmp(a.sys->u, b.sys->u, (size_t)a.sys->ndof * sizeof(double)) == 0);
  CU_ASSERT(memcmp(a.sys->v, b.sys->v, (size_t)a.sys->ndof * sizeof(double)) == 0);
  CU_ASSERT(memcmp(a.sys->impulse, b.sys->impulse, (size_t)a.sys->ncon * sizeof(double)) == 0);
  mem.next = 0, mem.data[1][5] = NAN;
  CU_ASSERT_EQUAL(b.ops->ck_read(b.self, &io, 10, 1e-6, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "v[5] is not finite") != NULL, "%s", msg.text);
  mem.next = 0, mem.data[1][5] = 0, mem.data[3][2] = -1;
  CU_ASSERT_EQUAL(b.ops->ck_read(b.self, &io, 10, 1e-6, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "impulse[2] = -1 is negative") != NULL, "%s", msg.text);
  mem.next = 0, mem.data[3][2] = 0;
  CU_ASSERT_EQUAL(c.ops->ck_read(c.self, &io, 10, 1e-6, &msg), SHARD_ERR_INPUT); /* 35 nodes, not 28 */
  CU_CHECK_MSG(strstr(msg.text, "section 'u' (56) where 'u' (70) was expected") != NULL, "%s", msg.text);
  a.ops->destroy(a.self), b.ops->destroy(b.self), c.ops->destroy(c.self);
}

/* ---- the free ring ---- */

/* cases/examples/tri2d_ring.yaml: a thin annulus, mean radius R = 0.05 m,
 * width 0.002 m (2 x 240 cells, plane stress, nu = 0.3), started with
 * v = rate * X, no wall. A thin free ring breathes: its hoop stress is
 * E eps_theta whatever nu (sigma_r ~ 0), so the mean radius oscillates at
 * w = sqrt(E / rho) / R and the kinetic energy first vanishes at T / 4,
 * T = 2 pi R / c0 = 62.8 us. Checked: NSN's energy balance to round-off
 * (1e-12), no momentum (the radial field sums to zero: 1e-12 of sum m |v|),
 * the first minimum of the kinetic energy (placed between rows by a
 * parabola) within 2% of T / 4, where the elastic energy is within 2% of the
 * initial kinetic. The field v = rate X also excites the modes across the
 * width, whose ripple moves the minimum: over 120 to 480 cells around, 1 or 2
 * across and dt from 0.3 to 0.9 dt_c it fell between 0.992 and 1.006 T / 4
 * (1.0017 here); a ring twice as wide already shifts it by 1.6%. */
static void test_tri2d_free_ring(void) {
  char out[512];
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/examples/tri2d_ring", "ring", NULL, 0, out, sizeof out, NULL, 0), 0);
  CU_CHECK_MSG(rh_summary(out, "energy.max_balance_drift") <= 1e-12, "balance drift %.3g",
               rh_summary(out, "energy.max_balance_drift"));
  const double R = 0.05, rate = 1000, c0 = sqrt(2e11 / 8000), T = 2 * PI * R / c0;
  const double area = PI * (0.051 * 0.051 - 0.049 * 0.049), mass = 8000 * 0.002 * area;
  const double pscale = mass * rate * R;
  CU_NEAR(rh_summary(out, "momentum_x"), 0.0, 1e-12 * pscale);
  CU_NEAR(rh_summary(out, "momentum_y"), 0.0, 1e-12 * pscale);
  char *h = rh_read_file(out, "history.csv", NULL);
  CU_ASSERT_FATAL(h != NULL);
  const int ct = rh_csv_column(h, "t"), ck = rh_csv_column(h, "kinetic"), ce = rh_csv_column(h, "elastic");
  double k0 = NAN, kp2 = INFINITY, kprev = INFINITY, tmin = NAN, emin = NAN, tprev = NAN, eprev = NAN;
  for (const char *line = strchr(h, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
    const double t = rh_csv_field(line + 1, ct), k = rh_csv_field(line + 1, ck), e = rh_csv_field(line + 1, ce);
    if (isnan(k0)) k0 = k;
    if (isnan(tmin) && k > kprev) { /* the first minimum: the parabola through the three rows around it */
      tmin = tprev + 0.5 * (t - tprev) * (kp2 - k) / (kp2 - 2 * kprev + k);
      emin = eprev;
    }
    kp2 = kprev, kprev = k, tprev = t, eprev = e;
  }
  free(h);
  printf("\n  first kinetic minimum at %.6f T/4, elastic %.4f of the initial kinetic", tmin / (T / 4), emin / k0);
  CU_CHECK_MSG(fabs(tmin / (T / 4) - 1) <= 0.02, "kinetic minimum at %.6g s against T/4 = %.6g s", tmin, T / 4);
  CU_CHECK_MSG(fabs(emin / k0 - 1) <= 0.02, "elastic %.6g J at the minimum against %.6g J", emin, k0);
}

/* ---- Gmsh meshes ---- */

#define MSH_DIR SHARD_SOURCE_DIR "/tests/data/tri2d/"

/* tests/data/tri2d/square_v41.msh and square_v22.msh: the rectangle
 * [0, 2] x [0, 1] in four triangles around its centre, one clockwise in the
 * file, with points and lines the reader skips. Both formats give the same
 * model (mass, K to the bit); the clockwise triangle was turned (every mass
 * is its share of the area: 2 x 1 x t rho in all, the centre a third of it);
 * a uniform strain leaves the centre node without force; the plate, given
 * by its file through a case, runs into the left wall. */
static void test_tri2d_gmsh(void) {
  const kv k41[] = {{"plane", "stress"}, {"young", "2e11"}, {"poisson", "0.3"}, {"density", "8000"},
                    {"thickness", "0.01"}, {"mesh.shape", "file"}, {"mesh.file", MSH_DIR "square_v41.msh"},
                    {"mesh.perturbation", "0"}, {"mesh.seed", "1"}, {"initial.strain_rate", "0"}};
  kv k22[sizeof k41 / sizeof k41[0]];
  memcpy(k22, k41, sizeof k41);
  k22[6].text = MSH_DIR "square_v22.msh";
  built a, b;
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL_FATAL(build(k41, sizeof k41 / sizeof k41[0], &a, &msg), SHARD_OK);
  if (build(k22, sizeof k22 / sizeof k22[0], &b, &msg) != SHARD_OK) {
    CU_FAIL_FATAL(msg.text);
  }
  CU_ASSERT_EQUAL_FATAL(a.sys->ndof, 10);
  CU_ASSERT_EQUAL_FATAL(b.sys->ndof, 10);
  CU_ASSERT(memcmp(a.sys->mass, b.sys->mass, 10 * sizeof(double)) == 0);
  double total = 0;
  for (int i = 0; i < 5; ++i) total += a.sys->mass[2 * i];
  CU_REL(total, 2.0 * 0.01 * 8000, 1e-15);
  CU_REL(a.sys->mass[8], 2.0 * 0.01 * 8000 / 3, 1e-15); /* the centre: a third of each triangle */
  const shard_csr *ka, *kb;
  CU_ASSERT_EQUAL_FATAL(a.sys->ops->stiffness(a.sys, a.sys->u, &ka, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(b.sys->ops->stiffness(b.sys, b.sys->u, &kb, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(ka->rowptr[10], kb->rowptr[10]);
  CU_ASSERT(memcmp(ka->val, kb->val, (size_t)ka->rowptr[10] * sizeof(double)) == 0);
  const double X[10] = {0, 0, 2, 0, 2, 1, 0, 1, 1, 0.5};
  double f[10];
  for (int i = 0; i < 5; ++i) a.sys->u[2 * i] = 1e-3 * X[2 * i] + 2e-4 * X[2 * i + 1], a.sys->u[2 * i + 1] = -3e-4 * X[2 * i + 1];
  CU_ASSERT_EQUAL(a.sys->ops->force(a.sys, 0, a.sys->u, f, &msg), SHARD_OK);
  CU_NEAR(f[8], 0.0, 1e-12 * 2e11 * 1e-3 * 0.01);
  CU_NEAR(f[9], 0.0, 1e-12 * 2e11 * 1e-3 * 0.01);
  a.ops->destroy(a.self), b.ops->destroy(b.self);
  char out[512];
  const char *sets[] = {"model.mesh.shape=file", "model.mesh.file=../../tests/data/tri2d/square_v41.msh",
                        "model.mesh.width=null", "model.mesh.height=null", "model.mesh.nx=null", "model.mesh.ny=null",
                        "model.walls.left.gap=0.001", "time.end=2e-3"};
  CU_ASSERT_EQUAL_FATAL(rh_run(BLOCK, "gmsh", sets, 8, out, sizeof out, NULL, 0), 0);
  CU_ASSERT(rh_summary(out, "tri2d.nodes") == 5);
  CU_ASSERT(rh_summary(out, "contact.steps_in_contact") >= 1);
  CU_ASSERT(rh_summary(out, "momentum_x") > 0); /* back off the wall */
}

/* broken mesh files: each refused with the file, the line and what is wrong */
static void test_tri2d_gmsh_bad(void) {
  static const struct {
    const char *text, *expect;
  } cases[] = {
      {"hello\n", "no $MeshFormat line"},
      {"$MeshFormat\n4.1 1 8\n$EndMeshFormat\n", "tri2d_bad.msh:2: binary Gmsh file"},
      {"$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", "format version not 2.x or 4.x"},
      {"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1\n$EndNodes\n",
       "tri2d_bad.msh:9: node line: 'tag x y z' expected"},
      {"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n2 0 1 0\n$EndNodes\n$Elements\n0\n"
       "$EndElements\n",
       "a node tag given twice"},
      {"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n$Elements\n1\n"
       "1 2 2 0 1 1 2 4\n$EndElements\n",
       "tri2d_bad.msh:12: a triangle names a node that is not in $Nodes"},
      {"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n1\n"
       "1 3 2 0 1 1 2 3 4\n$EndElements\n",
       "not a 3-node triangle, a line or a point"},
      {"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 2 0 0\n$EndNodes\n$Elements\n1\n"
       "1 2 2 0 1 1 2 3\n$EndElements\n",
       "triangle 0 has area 0 (not positive)"},
      {"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 -1 0\n$EndNodes\n"
       "$Elements\n3\n1 2 2 0 1 1 2 3\n2 2 2 0 1 1 4 2\n3 2 2 0 1 1 2 3\n$EndElements\n",
       "belongs to 3 triangles"},
  };
  char path[512];
  built b;
  shard_msg msg = {{0}};
  rh_registry();
  mkdir(rh_tmpdir, 0755); /* may exist */
  snprintf(path, sizeof path, "%s/tri2d_bad.msh", rh_tmpdir);
  const kv keys[] = {{"plane", "stress"}, {"young", "2e11"}, {"poisson", "0.3"}, {"density", "8000"},
                     {"thickness", "0.01"}, {"mesh.shape", "file"}, {"mesh.file", path},
                     {"mesh.perturbation", "0"}, {"mesh.seed", "1"}, {"initial.strain_rate", "0"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(cases[i].text, f);
    fclose(f);
    msg.text[0] = '\0';
    CU_ASSERT_EQUAL(build(keys, sizeof keys / sizeof keys[0], &b, &msg), SHARD_ERR_INPUT);
    CU_CHECK_MSG(strstr(msg.text, cases[i].expect) != NULL, "case %zu: '%s' lacks '%s'", i, msg.text, cases[i].expect);
  }
  remove(path);
  const kv missing[] = {{"plane", "stress"}, {"young", "2e11"}, {"poisson", "0.3"}, {"density", "8000"},
                        {"thickness", "0.01"}, {"mesh.shape", "file"}, {"mesh.file", MSH_DIR "no_such.msh"},
                        {"mesh.perturbation", "0"}, {"mesh.seed", "1"}, {"initial.strain_rate", "0"}};
  CU_ASSERT_EQUAL(build(missing, sizeof missing / sizeof missing[0], &b, &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "no_such.msh: cannot open the mesh file") != NULL, "%s", msg.text);
}

/* ---- the disk ---- */

/* the node positions (the snapshot's X array) and triangles of a built
 * model, from a snapshot written at u = 0; the node count, or -1 */
static int32_t snapshot_mesh(built *b, const char *tag, double **X, int32_t **tri, int32_t *ne) {
  shard_msg msg = {{0}};
  char dir[512];
  snprintf(dir, sizeof dir, "%s/%s", rh_tmpdir, tag);
  if (b->ops->fields_open(b->self, dir, 1, 0, &msg) != SHARD_OK || b->ops->fields_write(b->self, 0.0, &msg) != SHARD_OK)
    return -1;
  char *text = rh_read_file(dir, "fields/fields_000000.vtu", NULL);
  if (!text) return -1;
  int nn = 0, nc = 0;
  const char *p = strstr(text, "NumberOfPoints=");
  if (!p || sscanf(p, "NumberOfPoints=\"%d\" NumberOfCells=\"%d\"", &nn, &nc) != 2 || nn <= 0 || nc <= 0) {
    free(text);
    return -1;
  }
  *X = malloc(2 * (size_t)nn * sizeof **X), *tri = malloc(3 * (size_t)nc * sizeof **tri), *ne = nc;
  char *end;
  p = strstr(text, "Name=\"X\"");
  p = p ? strchr(p, '>') + 1 : NULL;
  for (int i = 0; p && i < nn; ++i) {
    (*X)[2 * i] = strtod(p, &end), (*X)[2 * i + 1] = strtod(end, &end);
    (void)strtod(end, &end);
    p = end;
  }
  const char *c = strstr(text, "Name=\"connectivity\"");
  c = c ? strchr(c, '>') + 1 : NULL;
  for (int i = 0; c && i < 3 * nc; ++i) (*tri)[i] = (int32_t)strtol(c, &end, 10), c = end;
  free(text);
  return p && c ? nn : -1;
}

static int cmp_edge(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* mesh.shape: disk of radius R = 0.05 m, nr = 2, 5, 12, 40 rings, unperturbed
 * and perturbed by 0.3 (seed 3): 1 + 3 nr (nr + 1) nodes and 6 nr^2
 * triangles; every triangle counter-clockwise with a positive area; each
 * edge in one triangle (the 6 nr on the circle) or two (a conforming
 * tiling); the boundary nodes on the circle to round-off (|r - R| <= 4
 * ulp), the same with and without the perturbation, which moves every
 * interior node; the area the 6 nr-gon's exact (3 nr) R^2 sin(2 pi / (6
 * nr)) to 1e-13, and the lumped masses rho t that area. Triangles of about
 * equal area (largest over smallest 1.31 unperturbed, bound 1.5) and no
 * slivers: the smallest angle is 47.6, 46.6, 44.9, 44.0 degrees unperturbed
 * (43.7 at nr = 300), bound 43.5; perturbed by 0.3, 28.6, 17.9, 16.6 and
 * 12.3 at worst over 39 seeds and nr 2 to 40, bound 12 (each node moves by
 * less than half the smallest altitude, 0.72 dr: no triangle folds). */
static void test_tri2d_disk_mesh(void) {
  static const char *const rings[] = {"2", "5", "12", "40"}, *const perts[] = {"0", "0.3"};
  const double R = 0.05, rho = 8000, t = 0.01;
  for (int ir = 0; ir < 4; ++ir) {
    double *X0 = NULL;
    for (int ip = 0; ip < 2; ++ip) {
      const kv keys[] = {{"plane", "stress"},      {"young", "2e11"},        {"poisson", "0.3"},
                         {"density", "8000"},      {"thickness", "0.01"},    {"mesh.shape", "disk"},
                         {"mesh.radius", "0.05"},  {"mesh.nr", rings[ir]},   {"mesh.perturbation", perts[ip]},
                         {"mesh.seed", "3"},       {"initial.strain_rate", "0"}};
      built b;
      shard_msg msg = {{0}};
      CU_ASSERT_EQUAL_FATAL(build(keys, sizeof keys / sizeof keys[0], &b, &msg), SHARD_OK);
      const long long nr = atoll(rings[ir]);
      const int32_t nb = (int32_t)(6 * nr), first_b = (int32_t)(1 + 3 * (nr - 1) * nr);
      double *X = NULL;
      int32_t *tri = NULL, ne = 0;
      char tag[32];
      snprintf(tag, sizeof tag, "disk%d_%d", ir, ip);
      const int32_t nn = snapshot_mesh(&b, tag, &X, &tri, &ne);
      CU_ASSERT_EQUAL_FATAL(nn, 1 + 3 * nr * (nr + 1));
      CU_ASSERT_EQUAL_FATAL(ne, 6 * nr * nr);
      double area = 0, amin = INFINITY, amax = 0, angmin = 180;
      int bad_tri = 0;
      int64_t *edges = malloc(3 * (size_t)ne * sizeof *edges);
      CU_ASSERT_FATAL(edges != NULL);
      for (int32_t e = 0; e < ne; ++e) {
        const int32_t *v = tri + 3 * e;
        const double *a = X + 2 * v[0], *bb = X + 2 * v[1], *c = X + 2 * v[2];
        const double a2 = (bb[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (bb[1] - a[1]);
        bad_tri += !(a2 > 0);
        area += 0.5 * a2, amin = fmin(amin, 0.5 * a2), amax = fmax(amax, 0.5 * a2);
        for (int k = 0; k < 3; ++k) {
          const double *p = X + 2 * v[k], *q = X + 2 * v[(k + 1) % 3], *r = X + 2 * v[(k + 2) % 3];
          const double ux = q[0] - p[0], uy = q[1] - p[1], wx = r[0] - p[0], wy = r[1] - p[1];
          angmin = fmin(angmin, atan2(fabs(ux * wy - uy * wx), ux * wx + uy * wy) * 180 / PI);
          const int32_t lo = v[k] < v[(k + 1) % 3] ? v[k] : v[(k + 1) % 3], hi = v[k] ^ v[(k + 1) % 3] ^ lo;
          edges[3 * e + k] = (int64_t)lo * nn + hi;
        }
      }
      qsort(edges, 3 * (size_t)ne, sizeof *edges, cmp_edge);
      int32_t once = 0, twice = 0, more = 0, once_on_circle = 0;
      for (size_t i = 0; i < 3 * (size_t)ne;) {
        size_t j = i;
        while (j < 3 * (size_t)ne && edges[j] == edges[i]) ++j;
        if (j - i == 1) {
          ++once;
          once_on_circle += edges[i] / nn >= first_b && edges[i] % nn >= first_b;
        } else if (j - i == 2) {
          ++twice;
        } else {
          ++more;
        }
        i = j;
      }
      free(edges);
      double rerr = 0;
      for (int32_t i = first_b; i < nn; ++i) rerr = fmax(rerr, fabs(hypot(X[2 * i], X[2 * i + 1]) - R));
      int moved = 0, bmoved = 0;
      if (ip == 0) X0 = X;
      else {
        for (int32_t i = 0; i < first_b; ++i) moved += hypot(X[2 * i] - X0[2 * i], X[2 * i + 1] - X0[2 * i + 1]) > 1e-6 * R;
        for (int32_t i = first_b; i < nn; ++i) bmoved += X[2 * i] != X0[2 * i] || X[2 * i + 1] != X0[2 * i + 1];
      }
      const double exact = 0.5 * nb * R * R * sin(2 * PI / nb);
      double mass = 0;
      for (int32_t i = 0; i < nn; ++i) mass += b.sys->mass[2 * i];
      printf("\n  disk nr %s, perturbation %s: %d nodes, %d triangles, area off the %d-gon by %.2g, mass by %.2g, "
             "|r - R| <= %.2g on the circle, areas %.3g..%.3g (ratio %.2f), smallest angle %.2f deg",
             rings[ir], perts[ip], (int)nn, (int)ne, (int)nb, area / exact - 1, mass / (rho * t * exact) - 1, rerr,
             amin, amax, amax / amin, angmin);
      CU_CHECK_MSG(bad_tri == 0, "%d triangles not counter-clockwise", bad_tri);
      CU_CHECK_MSG(more == 0 && once == nb && once_on_circle == nb && 2 * twice + once == 3 * ne,
                   "edges: %d in one triangle (%d on the circle), %d in two, %d in more", (int)once,
                   (int)once_on_circle, (int)twice, (int)more);
      CU_CHECK_MSG(fabs(area / exact - 1) <= 1e-13, "area %.17g against the polygon's %.17g", area, exact);
      CU_CHECK_MSG(fabs(mass / (rho * t * exact) - 1) <= 1e-13, "mass %.17g against %.17g", mass, rho * t * exact);
      CU_CHECK_MSG(rerr <= 4 * DBL_EPSILON * R, "a boundary node %.3g off the circle", rerr);
      CU_CHECK_MSG(angmin >= (ip ? 12.0 : 43.5), "smallest angle %.2f degrees", angmin);
      if (ip == 0) CU_CHECK_MSG(amax / amin <= 1.5, "areas from %.3g to %.3g", amin, amax);
      if (ip == 1) {
        CU_CHECK_MSG(moved == first_b, "the perturbation moved %d of the %d interior nodes", moved, (int)first_b);
        CU_CHECK_MSG(bmoved == 0, "the perturbation moved %d boundary nodes", bmoved);
        free(X0), free(X);
      }
      free(tri);
      b.ops->destroy(b.self);
    }
  }
}

/* cases/examples/tri2d_disk.yaml without its fracture section: a free
 * disk (R = 0.5 mm, 8 rings perturbed by 0.2, plane stress, nu = 0, E = 370
 * GPa, rho = 3900) started with v = 1e5 /s X, under NSN at 0.25 dt_c. It
 * expands and swings back with nothing lost: the energy balance to round-off
 * (1e-12; measured 2e-15), no momentum (the radial field sums to zero: 1e-12
 * of sum m |v|), the centre of mass at rest at the origin. The field excites
 * mostly the disk's fundamental breathing mode, x J0(x) = (1 - nu) J1(x),
 * x = omega R / c with c = sqrt(E / (rho (1 - nu^2))), x = 1.841184 at
 * nu = 0: the kinetic energy first vanishes (0.24% of it left) at T / 4 =
 * pi R / (2 x c) = 43.8 ns, found at 1.0074 T / 4 (the first minimum placed
 * between rows by a parabola; the P1 mesh of 8 rings is a little stiff),
 * bound 2%, and the elastic energy then holds 0.998 of the initial kinetic
 * (bound 1%). */
static void test_tri2d_disk_free(void) {
  const char *sets[] = {"fracture=null", "time.end=6e-8", "time.dt=0.25 * dt_c", "output.every=1"};
  char out[512];
  CU_ASSERT_EQUAL_FATAL(rh_run("cases/examples/tri2d_disk", "free", sets, 4, out, sizeof out, NULL, 0), 0);
  const double drift = rh_summary(out, "energy.max_balance_drift");
  const double R = 5e-4, rate = 1e5, rho = 3900, t = 1e-4, c = sqrt(370e9 / rho), x = 1.841183781340659;
  const double Tq = PI * R / (2 * x * c);
  const double pscale = rho * t * PI * R * R * rate * R * 2.0 / 3.0; /* sum m |v| of v = rate X on the disk */
  const double px = rh_summary(out, "momentum_x"), py = rh_summary(out, "momentum_y");
  char *h = rh_read_file(out, "history.csv", NULL);
  CU_ASSERT_FATAL(h != NULL);
  const int ct = rh_csv_column(h, "t"), ck = rh_csv_column(h, "kinetic"), ce = rh_csv_column(h, "elastic");
  const int cx = rh_csv_column(h, "x_mean"), cy = rh_csv_column(h, "y_mean"), cpx = rh_csv_column(h, "momentum_x");
  const int cpy = rh_csv_column(h, "momentum_y");
  double k0 = NAN, kp2 = INFINITY, kprev = INFINITY, tmin = NAN, kmin = NAN, emin = NAN, tprev = NAN, eprev = NAN;
  double pmax = 0, xmax = 0;
  for (const char *line = strchr(h, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
    const double tt = rh_csv_field(line + 1, ct), k = rh_csv_field(line + 1, ck), e = rh_csv_field(line + 1, ce);
    pmax = fmax(pmax, hypot(rh_csv_field(line + 1, cpx), rh_csv_field(line + 1, cpy)));
    xmax = fmax(xmax, hypot(rh_csv_field(line + 1, cx), rh_csv_field(line + 1, cy)));
    if (isnan(k0)) k0 = k;
    if (isnan(tmin) && k > kprev) {
      tmin = tprev + 0.5 * (tt - tprev) * (kp2 - k) / (kp2 - 2 * kprev + k);
      kmin = kprev, emin = eprev;
    }
    kp2 = kprev, kprev = k, tprev = tt, eprev = e;
  }
  free(h);
  printf("\n  balance drift %.2g, momentum %.2g of sum m|v|, centre of mass off by %.2g R, first kinetic minimum "
         "(%.2g of the initial) at %.5f T/4, elastic %.4f of the initial kinetic",
         drift, pmax / pscale, xmax / R, kmin / k0, tmin / Tq, emin / k0);
  CU_CHECK_MSG(drift <= 1e-12, "balance drift %.3g", drift);
  CU_CHECK_MSG(pmax <= 1e-12 * pscale && fabs(px) <= 1e-12 * pscale && fabs(py) <= 1e-12 * pscale,
               "momentum %.3g against sum m|v| %.3g", pmax, pscale);
  CU_CHECK_MSG(xmax <= 1e-12 * R, "the centre of mass moved by %.3g m", xmax);
  CU_CHECK_MSG(fabs(tmin / Tq - 1) <= 0.02, "kinetic minimum at %.6g s against T/4 = %.6g s", tmin, Tq);
  CU_CHECK_MSG(kmin <= 0.01 * k0, "kinetic %.3g at its minimum, %.3g at the start", kmin, k0);
  CU_CHECK_MSG(fabs(emin / k0 - 1) <= 0.01, "elastic %.6g J at the minimum against %.6g J", emin, k0);
}

/* ---- bad input ---- */

static void test_tri2d_bad_input(void) {
  char out[512], msg[512];
  const char *s1[] = {"model.initial.velocity=[1, 2, 3]"};
  CU_ASSERT_EQUAL(rh_run(BLOCK, "bad1", s1, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.initial.velocity needs two values [x, y], got 3") != NULL, "%s", msg);
  const char *s2[] = {"model.walls.oblique.point=[0, 0]"};
  CU_ASSERT_EQUAL(rh_run(BLOCK, "bad2", s2, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.walls.oblique needs both 'point' and 'normal'") != NULL, "%s", msg);
  const char *s3[] = {"model.walls.oblique.point=[0.1, 0]", "model.walls.oblique.normal=[1, 0]"};
  CU_ASSERT_EQUAL(rh_run(BLOCK, "bad3", s3, 2, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.walls.oblique: node 0 at (0, 0) starts 0.1 m behind the wall") != NULL, "%s", msg);
  const char *s4[] = {"model.walls.oblique.point=[0, 0]", "model.walls.oblique.normal=[0, 0]"};
  CU_ASSERT_EQUAL(rh_run(BLOCK, "bad4", s4, 2, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.walls.oblique.normal [0, 0] has no direction") != NULL, "%s", msg);
  const char *s6[] = {"model.mesh.nx=null"};
  CU_ASSERT_EQUAL(rh_run(BLOCK, "bad6", s6, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.mesh.nx is required with mesh.shape: rectangle") != NULL, "%s", msg);
  const char *s7[] = {"model.mesh.shape=annulus"};
  CU_ASSERT_EQUAL(rh_run(BLOCK, "bad7", s7, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.mesh.inner_radius is required with mesh.shape: annulus") != NULL, "%s", msg);
  const char *s8[] = {"model.mesh.outer_radius=0.04"};
  CU_ASSERT_EQUAL(rh_run("cases/examples/tri2d_ring", "bad8", s8, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.mesh.outer_radius 0.04 is not above inner_radius 0.049") != NULL, "%s", msg);
  const char *s9[] = {"model.mesh.nr=1"};
  CU_ASSERT_EQUAL(rh_run("cases/examples/tri2d_disk", "bad9", s9, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.mesh.nr = 1: a disk needs at least 2 rings") != NULL, "%s", msg);
  const char *s10[] = {"model.mesh.radius=null"};
  CU_ASSERT_EQUAL(rh_run("cases/examples/tri2d_disk", "bad10", s10, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.mesh.radius is required with mesh.shape: disk") != NULL, "%s", msg);
  const char *s11[] = {"model.mesh.nr=null"};
  CU_ASSERT_EQUAL(rh_run("cases/examples/tri2d_disk", "bad11", s11, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "model.mesh.nr is required with mesh.shape: disk") != NULL, "%s", msg);
  const char *s12[] = {"model.mesh.radius=0"}; /* the key's range, refused as the case is read */
  CU_ASSERT_EQUAL(rh_run("cases/examples/tri2d_disk", "bad12", s12, 1, out, sizeof out, msg, sizeof msg), 2);
  const char *s5[] = {"reference.type=ball"};
  CU_ASSERT_EQUAL(rh_run(BLOCK, "bad5", s5, 1, out, sizeof out, msg, sizeof msg), 2);
  CU_CHECK_MSG(strstr(msg, "no solution for the tri2d model") != NULL, "%s", msg);
}

static const cu_test_def tests[] = {
    {"test_tri2d_patch", test_tri2d_patch},
    {"test_tri2d_wave_speed", test_tri2d_wave_speed},
    {"test_tri2d_block_wall", test_tri2d_block_wall},
    {"test_tri2d_oblique", test_tri2d_oblique},
    {"test_tri2d_checkpoint_sections", test_tri2d_checkpoint_sections},
    {"test_tri2d_free_ring", test_tri2d_free_ring},
    {"test_tri2d_gmsh", test_tri2d_gmsh},
    {"test_tri2d_gmsh_bad", test_tri2d_gmsh_bad},
    {"test_tri2d_bad_input", test_tri2d_bad_input},
    {"test_tri2d_disk_mesh", test_tri2d_disk_mesh},
    {"test_tri2d_disk_free", test_tri2d_disk_free},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "tri2d", tests); }
