/* host: field snapshots (VTK XML + ParaView collection) and the space-time
 * picture (gnuplot) of the bar; see snapshot.h for the file formats. */
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "io/fsio.h"
#include "io/gnuplot.h"

#define PATH_MAX_ 4096
#define SHARD_VTU_BLOCK 32768 /* bytes per compressed block (VTK's default) */

struct shard_snapshots {
  char *dir;        /* run directory */
  char *fields_dir; /* dir/fields */
  int32_t ndof_max, nel, nfacet;

  /* per element, refreshed by element_fields() */
  double *el_stress, *el_strain, *el_damage;
  int32_t *el_frag;

  /* .vtu file: the XML text, then the appended data (preallocated at open) */
  char *buf;
  size_t cap, len;
  int overflow;
  unsigned char *raw;  /* one array's bytes before compression */
  unsigned char *bin;  /* the appended data: per array its header and zlib blocks */
  size_t raw_cap, bin_cap, bin_len;
  z_stream z;          /* one deflate stream, reset per block (no allocation per snapshot) */
  int z_ready;

  /* the collection */
  double *times;
  int32_t nsnap, times_cap;

  /* space-time picture: column c covers elements [c*group, min((c+1)*group, nel)) */
  int32_t group, ncol;
  double *col_x;
  double x_left, x_right;
  double *st_t, *st_stress, *st_damage; /* row r: st_t[r], st_*[r*ncol + c] */
  int32_t nrow, row_cap;
  int64_t calls, stride;
  double t_last;
  int recorded;

  char note[PATH_MAX_ + 128];
};

/* ---- text buffer ------------------------------------------------------------- */

static void put(shard_snapshots *s, const char *fmt, ...) SHARD_PRINTF_(2, 3);
static void put(shard_snapshots *s, const char *fmt, ...) {
  if (s->overflow) return;
  const size_t room = s->cap - s->len;
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(s->buf + s->len, room, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= room) s->overflow = 1;
  else s->len += (size_t)n;
}

/* ---- element fields ---------------------------------------------------------- */

static int facet_broken(const shard_model *m, int32_t f) {
  const int32_t i = m->facet_iface[f];
  return i >= 0 && m->if_dmax[i] >= m->if_deltac[i];
}

/* element e sits between facets e-1 (node e) and e (node e+1) */
static void element_fields(shard_snapshots *s, const shard_model *m) {
  const double E = m->scales.young;
  const double *u = m->sys.u;
  int32_t frag = 0;
  for (int32_t e = 0; e < m->nel; ++e) {
    const double strain = (u[m->el_b[e]] - u[m->el_a[e]]) / m->el_h[e];
    double d = 0.0;
    if (e >= 1 && e - 1 < m->nfacet) d = fmax(d, shard_model_facet_damage(m, e - 1));
    if (e < m->nfacet) d = fmax(d, shard_model_facet_damage(m, e));
    s->el_strain[e] = strain;
    s->el_stress[e] = E * strain;
    s->el_damage[e] = d;
    s->el_frag[e] = frag;
    if (e < m->nfacet && facet_broken(m, e)) ++frag;
  }
}

/* ---- open / close ------------------------------------------------------------ */

#define ALLOC_N(ptr, n) (((ptr) = calloc((size_t)(n) + 1, sizeof *(ptr))) != NULL)

void shard_snapshots_close(shard_snapshots *s) {
  if (!s) return;
  free(s->dir);
  free(s->fields_dir);
  free(s->el_stress);
  free(s->el_strain);
  free(s->el_damage);
  free(s->el_frag);
  free(s->buf);
  free(s->raw);
  free(s->bin);
  if (s->z_ready) deflateEnd(&s->z);
  free(s->times);
  free(s->col_x);
  free(s->st_t);
  free(s->st_stress);
  free(s->st_damage);
  free(s);
}

static char *dup_str(const char *a, const char *b) {
  const size_t la = strlen(a), lb = b ? strlen(b) : 0;
  char *p = malloc(la + lb + 1);
  if (!p) return NULL;
  memcpy(p, a, la);
  if (lb) memcpy(p + la, b, lb);
  p[la + lb] = '\0';
  return p;
}

int shard_snapshots_open(shard_snapshots **out, const char *dir, const shard_model *m, shard_msg *msg) {
  *out = NULL;
  if (m->kind != SHARD_MODEL_BAR || m->nel < 1)
    return shard_msg_set(msg, SHARD_ERR_UNSUPPORTED, "field snapshots need a bar model (this model has no elements)");
  if (strlen(dir) + 64 > PATH_MAX_) return shard_msg_set(msg, SHARD_ERR_IO, "path too long: %s", dir);
  shard_snapshots *s = calloc(1, sizeof *s);
  if (!s) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  s->ndof_max = m->ndof_max, s->nel = m->nel, s->nfacet = m->nfacet;
  s->group = (m->nel + SHARD_SPACETIME_MAX_COLS - 1) / SHARD_SPACETIME_MAX_COLS;
  s->ncol = (m->nel + s->group - 1) / s->group;
  s->row_cap = SHARD_SPACETIME_MAX_ROWS < 64 ? SHARD_SPACETIME_MAX_ROWS : 64;
  s->stride = 1;
  s->times_cap = 16;
  /* the largest array: the points (3 Float64 per DOF) or a Float64 per cell */
  s->raw_cap = (size_t)m->ndof_max * 24 > (size_t)m->nel * 8 ? (size_t)m->ndof_max * 24 : (size_t)m->nel * 8;
  const size_t cells = (size_t)s->row_cap * (size_t)s->ncol;
  int ok = (s->dir = dup_str(dir, NULL)) && (s->fields_dir = dup_str(dir, "/fields")) &&
           ALLOC_N(s->el_stress, m->nel) && ALLOC_N(s->el_strain, m->nel) && ALLOC_N(s->el_damage, m->nel) &&
           ALLOC_N(s->el_frag, m->nel) && (s->raw = malloc(s->raw_cap)) && ALLOC_N(s->times, s->times_cap) &&
           ALLOC_N(s->col_x, s->ncol) && ALLOC_N(s->st_t, s->row_cap) && ALLOC_N(s->st_stress, cells) &&
           ALLOC_N(s->st_damage, cells);
  if (!ok) {
    shard_snapshots_close(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the field snapshots of %d elements", (int)m->nel);
  }
  if (deflateInit(&s->z, Z_DEFAULT_COMPRESSION) != Z_OK) {
    shard_snapshots_close(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "field snapshots: cannot start zlib compression");
  }
  s->z_ready = 1;
  /* the appended data of the 11 arrays, each at most its header and its
   * blocks at their worst-case compressed size; the XML text before it */
  const size_t sizes[] = {(size_t)m->ndof_max * 8, (size_t)m->ndof_max * 8, (size_t)m->ndof_max * 8,
                          (size_t)m->nel * 4,      (size_t)m->nel * 4,      (size_t)m->nel * 4,
                          (size_t)m->nel * 4,      (size_t)m->ndof_max * 12, (size_t)m->nel * 8,
                          (size_t)m->nel * 4,      (size_t)m->nel};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    const size_t nb = (sizes[i] + SHARD_VTU_BLOCK - 1) / SHARD_VTU_BLOCK;
    s->bin_cap += 8 * (3 + nb) + nb * deflateBound(&s->z, SHARD_VTU_BLOCK);
  }
  s->cap = 8192 + s->bin_cap;
  if (!(s->bin = malloc(s->bin_cap)) || !(s->buf = malloc(s->cap))) {
    shard_snapshots_close(s);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for the field snapshots of %d elements", (int)m->nel);
  }
  for (int32_t c = 0; c < s->ncol; ++c) {
    const int32_t e0 = c * s->group;
    const int32_t e1 = e0 + s->group < m->nel ? e0 + s->group : m->nel;
    s->col_x[c] = 0.5 * (m->X[m->el_a[e0]] + m->X[m->el_b[e1 - 1]]);
  }
  s->x_left = m->X[m->el_a[0]], s->x_right = m->X[m->el_b[m->nel - 1]];
  const int st = shard_mkdirs(s->fields_dir, msg);
  if (st != SHARD_OK) {
    shard_snapshots_close(s);
    shard_msg_prepend(msg, "field snapshots");
    return st;
  }
  *out = s;
  return SHARD_OK;
}

/* ---- snapshots --------------------------------------------------------------- */

static int write_collection(shard_snapshots *s, shard_msg *msg) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
             "  <Collection>\n");
  for (int32_t k = 0; k < s->nsnap; ++k)
    fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"fields/fields_%06d.vtu\"/>\n", s->times[k],
            (int)k);
  fprintf(f, "  </Collection>\n</VTKFile>\n");
  if (fclose(f) != 0) {
    free(text);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  const int st = shard_write_atomic(s->dir, "fields.pvd", text, len, msg);
  free(text);
  return st;
}

static int check_model(const shard_snapshots *s, const shard_model *m, double t, shard_msg *msg) {
  if (m->nel != s->nel || m->ndof > s->ndof_max || m->nfacet != s->nfacet)
    return shard_msg_set(msg, SHARD_ERR_INPUT,
                         "the model (%d elements, %d DOFs) is not the one the snapshots were opened for (%d elements, "
                         "at most %d DOFs)",
                         (int)m->nel, (int)m->ndof, (int)s->nel, (int)s->ndof_max);
  if (!isfinite(t)) return shard_msg_set(msg, SHARD_ERR_INPUT, "time %g is not finite", t);
  return SHARD_OK;
}

/* the byte order of this host, as VTK names it */
static const char *byte_order(void) {
  const uint16_t one = 1;
  unsigned char b[2];
  memcpy(b, &one, 2);
  return b[0] ? "LittleEndian" : "BigEndian";
}

/* Append s->raw[0..n) to the appended data, compressed as VTK's
 * vtkZLibDataCompressor does: a header of UInt64 [number of blocks, block
 * size, size of a partial last block (0: the last block is full), the
 * compressed size of each block], then each block deflated on its own.
 * Returns the array's offset from the start of the appended data, or -1. */
static long long append_array(shard_snapshots *s, size_t n) {
  const size_t off = s->bin_len;
  const uint64_t nb = (n + SHARD_VTU_BLOCK - 1) / SHARD_VTU_BLOCK;
  const size_t head = 8 * (3 + (size_t)nb);
  if (s->bin_cap - s->bin_len < head) return -1;
  uint64_t h[3] = {nb, SHARD_VTU_BLOCK, n % SHARD_VTU_BLOCK};
  memcpy(s->bin + off, h, sizeof h);
  size_t at = off + head;
  for (uint64_t b = 0; b < nb; ++b) {
    const size_t first = (size_t)b * SHARD_VTU_BLOCK, len = n - first < SHARD_VTU_BLOCK ? n - first : SHARD_VTU_BLOCK;
    if (deflateReset(&s->z) != Z_OK) return -1;
    s->z.next_in = s->raw + first;
    s->z.avail_in = (uInt)len;
    s->z.next_out = s->bin + at;
    s->z.avail_out = (uInt)(s->bin_cap - at > 0x7fffffff ? 0x7fffffff : s->bin_cap - at);
    if (deflate(&s->z, Z_FINISH) != Z_STREAM_END) return -1;
    const uint64_t c = (uint64_t)s->z.total_out;
    memcpy(s->bin + off + 8 * (3 + (size_t)b), &c, 8);
    at += (size_t)c;
  }
  s->bin_len = at;
  return (long long)off;
}

/* offsets of the appended arrays, in the order they are written */
enum { A_U, A_V, A_X, A_STRESS, A_STRAIN, A_DAMAGE, A_FRAG, A_POINTS, A_CONN, A_OFFS, A_TYPES, A_N };

static long long append_f64(shard_snapshots *s, const double *x, int32_t n) {
  memcpy(s->raw, x, (size_t)n * sizeof *x);
  return append_array(s, (size_t)n * sizeof *x);
}

/* derived fields for display: 7 significant digits */
static long long append_f32(shard_snapshots *s, const double *x, int32_t n) {
  float *f = (float *)(void *)s->raw;
  for (int32_t i = 0; i < n; ++i) f[i] = (float)x[i];
  return append_array(s, (size_t)n * sizeof *f);
}

static void put_array(shard_snapshots *s, const char *type, const char *name, int comps, long long offset) {
  put(s, "        <DataArray type=\"%s\"", type);
  if (name) put(s, " Name=\"%s\"", name);
  if (comps > 1) put(s, " NumberOfComponents=\"%d\"", comps);
  put(s, " format=\"appended\" offset=\"%lld\"/>\n", offset);
}

int shard_snapshots_write(shard_snapshots *s, double t, const shard_model *m, shard_msg *msg) {
  int st = check_model(s, m, t, msg);
  if (st != SHARD_OK) {
    shard_msg_prepend(msg, "field snapshot at t = %g", t);
    return st;
  }
  if (s->nsnap == s->times_cap) {
    double *p = realloc(s->times, 2 * (size_t)s->times_cap * sizeof *p);
    if (!p) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
    s->times = p, s->times_cap *= 2;
  }
  element_fields(s, m);
  const int32_t np = m->ndof, nc = m->nel;
  const double *u = m->sys.u, *v = m->sys.v;
  long long off[A_N];
  s->bin_len = 0;
  off[A_U] = append_f64(s, u, np);
  off[A_V] = append_f64(s, v, np);
  off[A_X] = append_f64(s, m->X, np);
  off[A_STRESS] = append_f32(s, s->el_stress, nc);
  off[A_STRAIN] = append_f32(s, s->el_strain, nc);
  off[A_DAMAGE] = append_f32(s, s->el_damage, nc);
  memcpy(s->raw, s->el_frag, (size_t)nc * sizeof(int32_t));
  off[A_FRAG] = append_array(s, (size_t)nc * sizeof(int32_t));
  float *pts = (float *)(void *)s->raw;
  for (int32_t j = 0; j < np; ++j) pts[3 * j] = (float)(m->X[j] + u[j]), pts[3 * j + 1] = 0.0f, pts[3 * j + 2] = 0.0f;
  off[A_POINTS] = append_array(s, (size_t)np * 3 * sizeof(float));
  int32_t *iv = (int32_t *)(void *)s->raw;
  for (int32_t e = 0; e < nc; ++e) iv[2 * e] = m->el_a[e], iv[2 * e + 1] = m->el_b[e];
  off[A_CONN] = append_array(s, (size_t)nc * 8);
  for (int32_t e = 0; e < nc; ++e) iv[e] = 2 * (e + 1);
  off[A_OFFS] = append_array(s, (size_t)nc * 4);
  memset(s->raw, 3, (size_t)nc); /* VTK_LINE */
  off[A_TYPES] = append_array(s, (size_t)nc);
  for (int i = 0; i < A_N; ++i)
    if (off[i] < 0)
      return shard_msg_set(msg, SHARD_ERR_INTERNAL, "field snapshot at t = %g: zlib compression failed (%s)", t,
                           s->z.msg ? s->z.msg : "buffer too small");
  s->len = 0, s->overflow = 0;
  put(s,
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\" "
      "compressor=\"vtkZLibDataCompressor\">\n"
      "  <UnstructuredGrid>\n"
      "    <FieldData>\n"
      "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n"
      "    </FieldData>\n"
      "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n"
      "      <PointData Scalars=\"u\">\n",
      byte_order(), t, (int)np, (int)nc);
  put_array(s, "Float64", "u", 1, off[A_U]);
  put_array(s, "Float64", "v", 1, off[A_V]);
  put_array(s, "Float64", "X", 1, off[A_X]);
  put(s, "      </PointData>\n      <CellData Scalars=\"stress\">\n");
  put_array(s, "Float32", "stress", 1, off[A_STRESS]);
  put_array(s, "Float32", "strain", 1, off[A_STRAIN]);
  put_array(s, "Float32", "damage", 1, off[A_DAMAGE]);
  put_array(s, "Int32", "fragment", 1, off[A_FRAG]);
  put(s, "      </CellData>\n      <Points>\n");
  put_array(s, "Float32", "Points", 3, off[A_POINTS]);
  put(s, "      </Points>\n      <Cells>\n");
  put_array(s, "Int32", "connectivity", 1, off[A_CONN]);
  put_array(s, "Int32", "offsets", 1, off[A_OFFS]);
  put_array(s, "UInt8", "types", 1, off[A_TYPES]);
  put(s, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n   _");
  const char tail[] = "\n  </AppendedData>\n</VTKFile>\n";
  if (s->overflow || s->cap - s->len < s->bin_len + sizeof tail)
    return shard_msg_set(msg, SHARD_ERR_INTERNAL, "field snapshot at t = %g: buffer of %zu bytes too small", t, s->cap);
  memcpy(s->buf + s->len, s->bin, s->bin_len);
  s->len += s->bin_len;
  memcpy(s->buf + s->len, tail, sizeof tail - 1);
  s->len += sizeof tail - 1;
  char name[64];
  snprintf(name, sizeof name, "fields_%06d.vtu", (int)s->nsnap);
  if ((st = shard_write_atomic(s->fields_dir, name, s->buf, s->len, msg)) != SHARD_OK) {
    shard_msg_prepend(msg, "field snapshot at t = %g", t);
    return st;
  }
  s->times[s->nsnap++] = t;
  if ((st = write_collection(s, msg)) != SHARD_OK) shard_msg_prepend(msg, "field snapshot collection");
  return st;
}

int32_t shard_snapshots_count(const shard_snapshots *s) { return s->nsnap; }

/* ---- space-time picture ------------------------------------------------------- */

int32_t shard_spacetime_rows(const shard_snapshots *s) { return s->nrow; }

static int grow_rows(shard_snapshots *s, shard_msg *msg) {
  int32_t cap = 2 * s->row_cap;
  if (cap > SHARD_SPACETIME_MAX_ROWS) cap = SHARD_SPACETIME_MAX_ROWS;
  const size_t cells = (size_t)cap * (size_t)s->ncol;
  double *t = realloc(s->st_t, (size_t)cap * sizeof *t);
  if (!t) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %d space-time rows", (int)cap);
  s->st_t = t;
  double *a = realloc(s->st_stress, cells * sizeof *a);
  if (!a) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %d space-time rows", (int)cap);
  s->st_stress = a;
  double *b = realloc(s->st_damage, cells * sizeof *b);
  if (!b) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %d space-time rows", (int)cap);
  s->st_damage = b;
  s->row_cap = cap;
  return SHARD_OK;
}

/* keep rows 0, 2, 4, ...: the calls at multiples of the doubled stride */
static void thin_rows(shard_snapshots *s) {
  const size_t nc = (size_t)s->ncol;
  int32_t k = 0;
  for (int32_t r = 0; r < s->nrow; r += 2, ++k) {
    s->st_t[k] = s->st_t[r];
    memmove(s->st_stress + (size_t)k * nc, s->st_stress + (size_t)r * nc, nc * sizeof(double));
    memmove(s->st_damage + (size_t)k * nc, s->st_damage + (size_t)r * nc, nc * sizeof(double));
  }
  s->nrow = k;
  s->stride *= 2;
}

int shard_spacetime_record(shard_snapshots *s, double t, const shard_model *m, shard_msg *msg) {
  int st = check_model(s, m, t, msg);
  if (st == SHARD_OK && s->recorded && t < s->t_last)
    st = shard_msg_set(msg, SHARD_ERR_INPUT, "time %.17g is before the previous row's %.17g", t, s->t_last);
  if (st != SHARD_OK) {
    shard_msg_prepend(msg, "space-time row at t = %g", t);
    return st;
  }
  s->t_last = t, s->recorded = 1;
  const int64_t k = s->calls++;
  if (k % s->stride) return SHARD_OK;
  if (s->nrow == SHARD_SPACETIME_MAX_ROWS) {
    thin_rows(s);
    if (k % s->stride) return SHARD_OK;
  }
  if (s->nrow == s->row_cap && (st = grow_rows(s, msg)) != SHARD_OK) return st;
  element_fields(s, m);
  const int32_t r = s->nrow++;
  double *rs = s->st_stress + (size_t)r * (size_t)s->ncol, *rd = s->st_damage + (size_t)r * (size_t)s->ncol;
  s->st_t[r] = t;
  for (int32_t c = 0; c < s->ncol; ++c) {
    const int32_t e0 = c * s->group;
    const int32_t e1 = e0 + s->group < s->nel ? e0 + s->group : s->nel;
    double sh = 0, h = 0, d = 0;
    for (int32_t e = e0; e < e1; ++e) {
      sh += s->el_stress[e] * m->el_h[e];
      h += m->el_h[e];
      d = fmax(d, s->el_damage[e]);
    }
    rs[c] = sh / h;
    rd[c] = d;
  }
  return SHARD_OK;
}

static int write_matrix(const shard_snapshots *s, const char *name, const double *val, shard_msg *msg) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  fprintf(f, "%d", (int)s->ncol);
  for (int32_t c = 0; c < s->ncol; ++c) fprintf(f, " %.9g", s->col_x[c]);
  fputc('\n', f);
  for (int32_t r = 0; r < s->nrow; ++r) {
    fprintf(f, "%.9g", s->st_t[r]);
    const double *row = val + (size_t)r * (size_t)s->ncol;
    for (int32_t c = 0; c < s->ncol; ++c) fprintf(f, " %.7g", row[c]);
    fputc('\n', f);
  }
  if (fclose(f) != 0) {
    free(text);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  const int st = shard_write_atomic(s->dir, name, text, len, msg);
  free(text);
  return st;
}

typedef struct unit {
  double scale;
  const char *name;
} unit;

/* the first unit in which |v| reads at least `least` (else the last one) */
static unit pick_unit(double v, const unit *units, int n, double least) {
  for (int i = 0; i < n; ++i)
    if (fabs(v) * units[i].scale >= least) return units[i];
  return units[n - 1];
}

/* times evenly spaced (to 0.1% of the mean step): `with image` draws them right */
static int evenly_spaced(const shard_snapshots *s) {
  if (s->nrow < 3) return 1;
  const double mean = (s->st_t[s->nrow - 1] - s->st_t[0]) / (double)(s->nrow - 1);
  if (!(mean > 0)) return 0;
  for (int32_t r = 1; r < s->nrow; ++r)
    if (fabs(s->st_t[r] - s->st_t[r - 1] - mean) > 1e-3 * mean) return 0;
  return 1;
}

/* Explicit tics: the data stay in SI units (a `using` expression makes
 * gnuplot's image plot ten times slower), the labels read in unit u, at
 * 1, 2 or 5 x 10^k steps, about 5 over [lo, hi]. */
static void put_tics(FILE *f, const char *axis, double lo, double hi, unit u) {
  const double a = lo * u.scale, b = hi * u.scale, span = b - a;
  if (!(span > 0) || !isfinite(span)) return;
  const double raw = span / 5, p = pow(10, floor(log10(raw))), r = raw / p;
  const double step = (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * p;
  const double first = ceil(a / step - 1e-9) * step;
  fprintf(f, "set %stics (", axis);
  for (int k = 0;; ++k) {
    double v = first + k * step;
    if (v > b + 1e-9 * step) break;
    if (fabs(v) < 1e-9 * step) v = 0;
    fprintf(f, "%s\"%g\" %.17g", k ? ", " : "", v, v / u.scale);
  }
  fprintf(f, ")\n");
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* colour range of the stress panel: the 99.5th percentile of |sigma| (a few
 * contact spikes saturate instead of washing out the waves), at least a
 * tenth of the largest |sigma|; 1 Pa when everything is 0 */
static int stress_range(const shard_snapshots *s, double *out, double *out_max, shard_msg *msg) {
  const size_t cells = (size_t)s->nrow * (size_t)s->ncol;
  double *a = malloc((cells + 1) * sizeof *a);
  if (!a) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < cells; ++i)
    if (isfinite(s->st_stress[i])) a[n++] = fabs(s->st_stress[i]);
  double range = 0, top = 0;
  if (n) {
    qsort(a, n, sizeof *a, cmp_double);
    top = a[n - 1];
    range = fmax(a[(size_t)(0.995 * (double)(n - 1))], 0.1 * top);
  }
  free(a);
  *out = range > 0 ? range : 1;
  *out_max = top;
  return SHARD_OK;
}

static int write_script(const shard_snapshots *s, shard_msg *msg) {
  double smax = 0, stop = 0;
  int st = stress_range(s, &smax, &stop, msg);
  if (st != SHARD_OK) return st;
  static const unit lengths[] = {{1, "m"}, {1e3, "mm"}, {1e6, "µm"}, {1e9, "nm"}};
  static const unit times[] = {{1, "s"}, {1e3, "ms"}, {1e6, "µs"}, {1e9, "ns"}};
  static const unit stresses[] = {{1e-9, "GPa"}, {1e-6, "MPa"}, {1e-3, "kPa"}, {1, "Pa"}};
  const double t0 = s->nrow ? s->st_t[0] : 0, t1 = s->nrow ? s->st_t[s->nrow - 1] : 0;
  const unit lu = pick_unit(fmax(fabs(s->x_left), fabs(s->x_right)), lengths, 4, 0.1);
  const unit tu = pick_unit(fmax(fabs(t0), fabs(t1)), times, 4, 0.1);
  const unit su = pick_unit(smax, stresses, 4, 1);
  const int image = evenly_spaced(s);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  fprintf(f,
          "# shard: space-time picture of the bar (%d times x %d columns of %d element(s)).\n"
          "# Render: gnuplot spacetime.gp (from any directory; output beside this file,\n"
          "# or elsewhere with: gnuplot -e \"out='file.png'\" spacetime.gp).\n"
          "# Data: spacetime_stress.dat [Pa], spacetime_damage.dat [0..1]; gnuplot nonuniform\n"
          "# matrix: first row = column count then x [m], each further row = t [s] then values.\n"
          "# Stress colours: +-%.6g Pa, the 99.5th percentile of |stress| (largest %.6g Pa).\n"
          "script = exists(\"ARG0\") ? ARG0 : \"\"\n"
          "i = strlen(script)\n"
          "while (i > 0 && script[i:i] ne \"/\") { i = i - 1 }\n"
          "dir = i > 0 ? script[1:i] : \"\"\n"
          "if (!exists(\"out\")) out = dir.\"spacetime.png\"\n"
          "set encoding utf8\n"
          "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) { set terminal pngcairo size 1800,800 noenhanced } "
          "else { set terminal png size 1800,800 }\n"
          "set output out\n"
          "set multiplot layout 1,2\n"
          "set xlabel \"x [%s]\"\n"
          "set ylabel \"t [%s]\"\n"
          "set tics out\n"
          "set autoscale fix\n",
          (int)s->nrow, (int)s->ncol, (int)s->group, smax, stop, lu.name, tu.name);
  if (s->x_right > s->x_left) fprintf(f, "set xrange [%.17g:%.17g]\n", s->x_left, s->x_right);
  if (t1 > t0) fprintf(f, "set yrange [%.17g:%.17g]\n", t0, t1);
  put_tics(f, "x", s->x_left, s->x_right, lu);
  put_tics(f, "y", t0, t1, tu);
  if (!image) fprintf(f, "set view map\nset pm3d map\n");
  const char *style = image ? "plot" : "splot";
  const char *with = image ? "with image" : "with pm3d";
  fprintf(f,
          "set title \"stress [%s]\"\n"
          "set palette defined (0 \"#2166ac\", 0.25 \"#67a9cf\", 0.5 \"#f7f7f7\", 0.75 \"#ef8a62\", 1 \"#b2182b\")\n"
          "set cbrange [%.17g:%.17g]\n",
          su.name, -smax, smax);
  put_tics(f, "cb", -smax, smax, su);
  if (!image) fprintf(f, "set pm3d corners2color mean\n");
  fprintf(f, "%s dir.\"spacetime_stress.dat\" nonuniform matrix using 1:2:3 %s notitle\n", style, with);
  fprintf(f, "set title \"damage\"\n"
             "set palette defined (0 \"#ffffcc\", 0.25 \"#fed976\", 0.5 \"#fd8d3c\", 0.75 \"#e31a1c\", 1 \"#800026\")\n"
             "set cbrange [0:1]\n"
             "set cbtics auto\n");
  if (!image) fprintf(f, "set pm3d corners2color max\n");
  fprintf(f, "%s dir.\"spacetime_damage.dat\" nonuniform matrix using 1:2:3 %s notitle\n", style, with);
  fprintf(f, "unset multiplot\nset output\n");
  if (fclose(f) != 0) {
    free(text);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  st = shard_write_atomic(s->dir, "spacetime.gp", text, len, msg);
  free(text);
  return st;
}

/* fsync a file another process wrote (never through a link); 0 or -1 (errno) */
static int sync_file(const char *path) {
  const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  const int rc = fsync(fd);
  const int err = errno;
  close(fd);
  errno = err;
  return rc;
}

/* gnuplot -e "out='TMP'" DIR/spacetime.gp, output to stdout/stderr in a log;
 * *missing = 1 when gnuplot is not on PATH. */
static int render(shard_snapshots *s, int *missing, shard_msg *msg) {
  char script[PATH_MAX_], tmp_png[PATH_MAX_], png[PATH_MAX_], log[PATH_MAX_], out_arg[2 * PATH_MAX_ + 16];
  snprintf(script, sizeof script, "%s/spacetime.gp", s->dir);
  snprintf(png, sizeof png, "%s/spacetime.png", s->dir);
  /* unique new files (never a planted link): gnuplot writes into the first,
   * its messages go to the second */
  int fd_png = -1, fd_log = -1;
  int st = shard_temp_create(s->dir, "spacetime.png", tmp_png, sizeof tmp_png, &fd_png, msg);
  if (st != SHARD_OK) return st;
  close(fd_png);
  if ((st = shard_temp_create(s->dir, "spacetime.log", log, sizeof log, &fd_log, msg)) != SHARD_OK) {
    unlink(tmp_png);
    return st;
  }
  /* gnuplot single-quoted string: a quote is written twice */
  size_t k = 0;
  k += (size_t)snprintf(out_arg, sizeof out_arg, "out='");
  for (const char *p = tmp_png; *p; ++p) {
    if (*p == '\'') out_arg[k++] = '\'';
    out_arg[k++] = *p;
  }
  out_arg[k++] = '\'';
  out_arg[k] = '\0';
  *missing = 0;
  const char *args[] = {"-e", out_arg, script, NULL};
  shard_gnuplot_outcome out;
  int status = 0;
  const int rc = shard_gnuplot_run(args, fd_log, &out, &status, msg);
  close(fd_log);
  if (rc != SHARD_OK || (out == SHARD_GNUPLOT_MISSING && status == 0)) {
    unlink(log), unlink(tmp_png);
    *missing = rc == SHARD_OK;
    return rc;
  }
  struct stat sb;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(tmp_png, &sb) != 0 || sb.st_size == 0) {
    char first[256] = "";
    FILE *lf = fopen(log, "r");
    if (lf) {
      size_t n = fread(first, 1, sizeof first - 1, lf);
      first[n] = '\0';
      fclose(lf);
      for (char *p = first; *p; ++p)
        if (*p == '\n') *p = ' ';
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
      *missing = 1; /* the shell convention for "not found" (exec failed in the child) */
    else if (WIFEXITED(status))
      st = shard_msg_set(msg, SHARD_ERR_IO, "gnuplot %s failed (exit %d)%s%s", script, WEXITSTATUS(status),
                         first[0] ? ": " : ", no PNG written", first);
    else
      st = shard_msg_set(msg, SHARD_ERR_IO, "gnuplot %s killed by signal %d", script,
                         WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  } else if (sync_file(tmp_png) != 0 || rename(tmp_png, png) != 0) {
    st = shard_msg_set(msg, SHARD_ERR_IO, "cannot write '%s': %s", png, strerror(errno));
  } else {
    st = shard_dir_sync(s->dir, msg);
  }
  unlink(tmp_png);
  unlink(log);
  return st;
}

int shard_snapshots_finish(shard_snapshots *s, shard_msg *msg) {
  s->note[0] = '\0';
  int st = write_matrix(s, "spacetime_stress.dat", s->st_stress, msg);
  if (st == SHARD_OK) st = write_matrix(s, "spacetime_damage.dat", s->st_damage, msg);
  if (st == SHARD_OK) st = write_script(s, msg);
  if (st != SHARD_OK) {
    shard_msg_prepend(msg, "space-time picture");
    return st;
  }
  if (s->nrow < 2) {
    snprintf(s->note, sizeof s->note, "space-time picture not rendered: %d row(s) recorded, at least 2 needed",
             (int)s->nrow);
    return SHARD_OK;
  }
  int missing = 0;
  if ((st = render(s, &missing, msg)) != SHARD_OK) {
    shard_msg_prepend(msg, "space-time picture");
    return st;
  }
  if (missing) snprintf(s->note, sizeof s->note, "gnuplot not found: render with gnuplot %s/spacetime.gp", s->dir);
  return SHARD_OK;
}

const char *shard_snapshots_note(const shard_snapshots *s) { return s->note[0] ? s->note : NULL; }
