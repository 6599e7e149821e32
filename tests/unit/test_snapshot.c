/* tests: field snapshots (.vtu + .pvd) and the space-time picture (snapshot.c). */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "case/case.h"
#include "run_helpers.h"
#include "cu_runner.h"
#include "core/diag.h"
#include "bar_build.h"
#include "loader/registry.h"
#include "snapshot.h"

/* ---- helpers ------------------------------------------------------------------ */

static void fresh_dir(char *out, size_t n, const char *tag) {
  snprintf(out, n, "/tmp/shard_test_snapshot_%ld_%s", (long)getpid(), tag);
  char cmd[1200];
  int k = snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out, out);
  CU_ASSERT_FATAL(k > 0 && (size_t)k < sizeof cmd);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
}

static void remove_dir(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static int exists(const char *dir, const char *name) {
  char path[1024];
  struct stat sb;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &sb) == 0 && sb.st_size > 0;
}

/* files whose name contains "tmp" or starts with '.' (leftovers of atomic writes) */
static int leftovers(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (e->d_name[0] == '.' || strstr(e->d_name, "tmp")) {
      fprintf(stderr, "  leftover %s/%s\n", dir, e->d_name);
      ++n;
    }
  }
  closedir(d);
  return n;
}

/* ---- the binary .vtu ------------------------------------------------------------
 * vtu_decode() reads a snapshot written with appended raw data compressed by
 * zlib, checks its structure (VTKFile attributes, every array of the piece
 * appended, the arrays back to back from offset 0, each a UInt64 header
 * [blocks, block size, partial last block size, compressed sizes] and zlib
 * blocks that inflate to exactly the array's bytes, the closing tags right
 * after the data) and returns the same XML with each array's values written
 * inline as ASCII (%.17g: exact), for the helpers below; NULL after a failed
 * check. */

typedef struct strbuf {
  char *p;
  size_t n, cap;
} strbuf;

static void sb_add(strbuf *b, const char *text, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = 2 * (b->n + n + 1);
    b->p = realloc(b->p, b->cap);
  }
  memcpy(b->p + b->n, text, n);
  b->n += n;
  b->p[b->n] = '\0';
}

/* the value of attribute `attr` in the tag starting at tag (up to its '>') */
static int tag_attr(const char *tag, const char *attr, char *out, size_t n) {
  const char *end = strchr(tag, '>');
  char key[64];
  snprintf(key, sizeof key, " %s=\"", attr);
  const char *p = strstr(tag, key);
  if (!p || (end && p > end)) return 0;
  p += strlen(key);
  const char *q = strchr(p, '"');
  if (!q || (size_t)(q - p) >= n) return 0;
  memcpy(out, p, (size_t)(q - p));
  out[q - p] = '\0';
  return 1;
}

static char *vtu_decode(const char *dir, const char *name) {
  size_t len = 0;
  char *f = rh_read_file(dir, name, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  const char *app = strstr(f, "<AppendedData encoding=\"raw\">");
  const char *under = app ? strchr(app, '_') : NULL;
  CU_CHECK_MSG(under != NULL, "%s/%s: no <AppendedData encoding=\"raw\"> ... _", dir, name);
  if (!under) return free(f), NULL;
  const unsigned char *base = (const unsigned char *)under + 1;
  const size_t avail = len - (size_t)(base - (const unsigned char *)f);
  char v[64];
  CU_ASSERT(tag_attr(strstr(f, "<VTKFile"), "type", v, sizeof v) && !strcmp(v, "UnstructuredGrid"));
  CU_ASSERT(tag_attr(strstr(f, "<VTKFile"), "version", v, sizeof v) && !strcmp(v, "1.0"));
  CU_ASSERT(tag_attr(strstr(f, "<VTKFile"), "byte_order", v, sizeof v) && !strcmp(v, "LittleEndian"));
  CU_ASSERT(tag_attr(strstr(f, "<VTKFile"), "header_type", v, sizeof v) && !strcmp(v, "UInt64"));
  CU_ASSERT(tag_attr(strstr(f, "<VTKFile"), "compressor", v, sizeof v) && !strcmp(v, "vtkZLibDataCompressor"));
  strbuf out = {0};
  size_t expect_off = 0;
  int ok = 1, arrays = 0;
  const char *p = f, *scan = f; /* p: copied up to here; scan: searched from here */
  for (const char *tag; ok && (tag = strstr(scan, "<DataArray")) && tag < app;) {
    char fmt[32] = "", type[32] = "", offs[32] = "";
    tag_attr(tag, "format", fmt, sizeof fmt);
    if (strcmp(fmt, "appended") != 0) { /* the time value stays ASCII */
      CU_CHECK_MSG(strstr(tag, "Name=\"TimeValue\"") < strchr(tag, '>'), "%s: a non-appended array: %.80s", name, tag);
      scan = tag + 1;
      continue;
    }
    ++arrays;
    const char *close = strstr(tag, "/>");
    ok = close && tag_attr(tag, "type", type, sizeof type) && tag_attr(tag, "offset", offs, sizeof offs);
    CU_CHECK_MSG(ok, "%s: bad appended DataArray: %.120s", name, tag);
    if (!ok) break;
    const size_t off = strtoull(offs, NULL, 10);
    CU_CHECK_MSG(off == expect_off, "%s: array at offset %zu, expected %zu (back to back)", name, off, expect_off);
    uint64_t h[3];
    ok = off + 24 <= avail;
    if (ok) memcpy(h, base + off, 24);
    ok = ok && h[1] == 32768 && off + 8 * (3 + h[0]) <= avail;
    CU_CHECK_MSG(ok, "%s: bad compression header at offset %zu", name, off);
    if (!ok) break;
    const size_t total = h[0] == 0 ? 0 : (size_t)(h[0] - (h[2] ? 1 : 0)) * h[1] + h[2];
    unsigned char *raw = malloc(total + 1);
    size_t at = off + 8 * (3 + (size_t)h[0]), got = 0;
    for (uint64_t b = 0; ok && b < h[0]; ++b) {
      uint64_t cs;
      memcpy(&cs, base + off + 8 * (3 + b), 8);
      uLongf dl = (uLongf)(b + 1 == h[0] && h[2] ? h[2] : h[1]);
      const uLongf want = dl;
      ok = at + cs <= avail && uncompress(raw + got, &dl, base + at, (uLong)cs) == Z_OK && dl == want;
      CU_CHECK_MSG(ok, "%s: block %d of the array at offset %zu does not inflate to %lu bytes", name, (int)b, off,
                   (unsigned long)want);
      at += cs, got += dl;
    }
    expect_off = at;
    /* the tag rewritten with the values inline */
    sb_add(&out, p, (size_t)(tag - p));
    const char *fa = strstr(tag, " format=");
    sb_add(&out, tag, (size_t)(fa - tag));
    sb_add(&out, " format=\"ascii\">", 16);
    const int is_float = !strcmp(type, "Float64") || !strcmp(type, "Float32");
    const size_t w = !strcmp(type, "Float64")                               ? 8
                     : !strcmp(type, "Int32") || !strcmp(type, "Float32") ? 4
                     : !strcmp(type, "UInt8")                             ? 1
                                                                          : 0;
    CU_CHECK_MSG(w > 0 && total % w == 0, "%s: type %s, %zu bytes", name, type, total);
    for (size_t i = 0; ok && w && i < total / w; ++i) {
      char num[40];
      if (w == 8) {
        double d;
        memcpy(&d, raw + 8 * i, 8);
        snprintf(num, sizeof num, "%.17g\n", d);
      } else if (w == 4 && is_float) {
        float d;
        memcpy(&d, raw + 4 * i, 4);
        snprintf(num, sizeof num, "%.17g\n", (double)d); /* the float exactly */
      } else if (w == 4) {
        int32_t k;
        memcpy(&k, raw + 4 * i, 4);
        snprintf(num, sizeof num, "%d\n", (int)k);
      } else {
        snprintf(num, sizeof num, "%d\n", (int)raw[i]);
      }
      sb_add(&out, num, strlen(num));
    }
    free(raw);
    sb_add(&out, "</DataArray>", 12);
    p = scan = close + 2;
  }
  CU_ASSERT(arrays == 11);
  const char tail[] = "\n  </AppendedData>\n</VTKFile>\n";
  CU_CHECK_MSG(ok && avail == expect_off + strlen(tail) && !memcmp(base + expect_off, tail, strlen(tail)),
               "%s: the appended data (%zu bytes) is not followed by exactly the closing tags (%zu bytes left)", name,
               expect_off, avail - expect_off);
  sb_add(&out, p, (size_t)(app - p));
  sb_add(&out, "</VTKFile>\n", 11);
  free(f);
  if (!ok) return free(out.p), NULL;
  return out.p;
}

/* A well-formedness check of the XML subset we write: declaration, comments,
 * elements with quoted attributes, self-closing tags, text; every end tag
 * matches its start tag and there is exactly one root element. */
static int xml_well_formed(const char *p, char *err, size_t n) {
  char stack[32][64];
  int depth = 0, roots = 0;
  while (*p) {
    if (*p != '<') {
      if (depth == 0 && !strchr(" \t\r\n", *p)) return snprintf(err, n, "text outside the root"), 0;
      ++p;
      continue;
    }
    if (!strncmp(p, "<?", 2)) {
      const char *e = strstr(p, "?>");
      if (!e) return snprintf(err, n, "unterminated declaration"), 0;
      p = e + 2;
      continue;
    }
    if (!strncmp(p, "<!--", 4)) {
      const char *e = strstr(p, "-->");
      if (!e) return snprintf(err, n, "unterminated comment"), 0;
      p = e + 3;
      continue;
    }
    const int closing = p[1] == '/';
    const char *q = p + 1 + closing;
    size_t len = strcspn(q, " \t\r\n/>");
    if (len == 0 || len >= 64) return snprintf(err, n, "bad tag name"), 0;
    char name[64];
    memcpy(name, q, len);
    name[len] = '\0';
    q += len;
    /* attributes: name="value" */
    for (;;) {
      while (*q && strchr(" \t\r\n", *q)) ++q;
      if (*q == '>' || (*q == '/' && q[1] == '>') || !*q) break;
      if (closing) return snprintf(err, n, "attributes in end tag </%s>", name), 0;
      size_t an = strcspn(q, "= \t\r\n>");
      if (an == 0 || q[an] != '=' || q[an + 1] != '"') return snprintf(err, n, "bad attribute in <%s>", name), 0;
      const char *v = strchr(q + an + 2, '"');
      if (!v) return snprintf(err, n, "unterminated attribute in <%s>", name), 0;
      for (const char *c = q + an + 2; c < v; ++c)
        if (*c == '<' || *c == '&') return snprintf(err, n, "unescaped character in an attribute of <%s>", name), 0;
      q = v + 1;
    }
    if (!*q) return snprintf(err, n, "unterminated tag <%s>", name), 0;
    if (closing) {
      if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
        return snprintf(err, n, "</%s> does not close <%s>", name, depth ? stack[depth - 1] : "(nothing)"), 0;
      --depth;
      p = q + 1;
    } else if (*q == '/') {
      if (depth == 0) ++roots;
      p = q + 2;
    } else {
      if (depth == 0) ++roots;
      if (depth == 32) return snprintf(err, n, "too deep"), 0;
      snprintf(stack[depth++], 64, "%s", name);
      p = q + 1;
    }
  }
  if (depth) return snprintf(err, n, "<%s> not closed", stack[depth - 1]), 0;
  if (roots != 1) return snprintf(err, n, "%d root elements", roots), 0;
  return 1;
}

/* xmllint, when installed, as a second opinion */
static void xmllint_ok(const char *dir, const char *name) {
  if (system("command -v xmllint >/dev/null 2>&1") != 0) return;
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "xmllint --noout '%s/%s'", dir, name);
  CU_CHECK_MSG(system(cmd) == 0, "xmllint rejects %s/%s", dir, name);
}

/* integer attribute `attr` of the first element containing it */
static long attr_long(const char *xml, const char *attr) {
  char key[128];
  snprintf(key, sizeof key, "%s=\"", attr);
  const char *p = strstr(xml, key);
  return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* numbers of the DataArray named `name` (NULL: the Points array); count returned */
static int data_array(const char *xml, const char *name, double *out, int n_max) {
  char key[128];
  if (name) snprintf(key, sizeof key, "Name=\"%s\"", name);
  else snprintf(key, sizeof key, "NumberOfComponents=\"3\"");
  const char *p = strstr(xml, key);
  if (!p) return -1;
  p = strchr(p, '>');
  if (!p) return -1;
  ++p;
  int n = 0;
  for (;;) {
    char *end;
    const double v = strtod(p, &end);
    if (end == p) break;
    if (n < n_max) out[n] = v;
    ++n;
    p = end;
  }
  while (*p && strchr(" \t\r\n", *p)) ++p;
  return !strncmp(p, "</DataArray>", 12) ? n : -2;
}

/* rows and columns (whitespace-separated fields of each line) of a text matrix */
static int matrix_shape(const char *text, int *cols_first, int *cols_min, int *cols_max) {
  int rows = 0;
  *cols_first = *cols_min = *cols_max = -1;
  for (const char *line = text; *line;) {
    const char *eol = strchr(line, '\n');
    if (!eol) eol = line + strlen(line);
    int cols = 0;
    for (const char *p = line; p < eol;) {
      while (p < eol && *p == ' ') ++p;
      if (p == eol) break;
      ++cols;
      while (p < eol && *p != ' ') ++p;
    }
    if (rows == 0) *cols_first = cols;
    else {
      if (*cols_min < 0 || cols < *cols_min) *cols_min = cols;
      if (cols > *cols_max) *cols_max = cols;
    }
    ++rows;
    line = *eol ? eol + 1 : eol;
  }
  return rows;
}

/* value at (row, col) of a text matrix (row 0 = header) */
static double matrix_at(const char *text, int row, int col) {
  const char *p = text;
  for (int r = 0; r < row && p; ++r) {
    p = strchr(p, '\n');
    if (p) ++p;
  }
  if (!p) return NAN;
  char *end;
  double v = NAN;
  for (int c = 0; c <= col; ++c) {
    v = strtod(p, &end);
    if (end == p) return NAN;
    p = end;
  }
  return v;
}

/* ---- a bar built by hand -------------------------------------------------------
 * nel elements of lengths h[e] (NULL: all 1e-3/nel) from x = 0, facets at every
 * internal node; split(m, j, d) puts an interface with damage d at node j. */

static shard_model *bar_new(int32_t nel, const double *h) {
  shard_model *m = calloc(1, sizeof *m);
  const int32_t nn = nel + 1, nfacet = nel - 1;
  m->kind = SHARD_MODEL_BAR;
  m->scales.young = 200e9, m->scales.area = 1e-6, m->scales.density = 7800;
  m->nel = nel, m->ndof = nn, m->ndof_max = nn + nfacet, m->nfacet = nfacet;
  m->X = calloc((size_t)m->ndof_max, sizeof(double));
  m->sys.u = calloc((size_t)m->ndof_max, sizeof(double));
  m->sys.v = calloc((size_t)m->ndof_max, sizeof(double));
  m->el_a = calloc((size_t)nel, sizeof(int32_t));
  m->el_b = calloc((size_t)nel, sizeof(int32_t));
  m->el_h = calloc((size_t)nel, sizeof(double));
  m->el_k = calloc((size_t)nel, sizeof(double));
  m->facet_iface = calloc((size_t)nfacet + 1, sizeof(int32_t));
  m->if_node = calloc((size_t)nfacet + 1, sizeof(int32_t));
  m->if_twin = calloc((size_t)nfacet + 1, sizeof(int32_t));
  m->if_dmax = calloc((size_t)nfacet + 1, sizeof(double));
  m->if_deltac = calloc((size_t)nfacet + 1, sizeof(double));
  for (int32_t e = 0; e < nel; ++e) {
    m->el_a[e] = e, m->el_b[e] = e + 1;
    m->el_h[e] = h ? h[e] : 1e-3 / nel;
    m->el_k[e] = m->scales.young * m->scales.area / m->el_h[e];
    m->X[e + 1] = m->X[e] + m->el_h[e];
  }
  for (int32_t f = 0; f < nfacet; ++f) m->facet_iface[f] = -1;
  return m;
}

static int32_t bar_split(shard_model *m, int32_t j, double damage) {
  const int32_t t = m->ndof++, i = m->niface++;
  m->X[t] = m->X[j];
  m->sys.u[t] = m->sys.u[j], m->sys.v[t] = m->sys.v[j];
  m->el_a[j] = t;
  m->if_node[i] = j, m->if_twin[i] = t;
  m->if_deltac[i] = 2.0 * 50.0 / 262e6;
  m->if_dmax[i] = damage * m->if_deltac[i];
  m->facet_iface[j - 1] = i;
  return t;
}

static double el_stress(const shard_model *m, int32_t e) {
  return m->scales.young * (m->sys.u[m->el_b[e]] - m->sys.u[m->el_a[e]]) / m->el_h[e];
}

/* the 4-element bar of the brief: interface at the middle node 2 (twin DOF 5), damage 0.5 */
static shard_model *bar4(void) {
  shard_model *m = bar_new(4, NULL);
  const double u[] = {0, 1e-9 / 3, 3e-9, 2e-9, -1e-9};
  const double v[] = {1.0 / 3, 2, 3, 4, 5};
  for (int j = 0; j < 5; ++j) m->sys.u[j] = u[j], m->sys.v[j] = v[j];
  bar_split(m, 2, 0.5);
  m->sys.u[5] = 7e-9, m->sys.v[5] = -3; /* crack opening of 4 nm */
  return m;
}

/* ---- tests ---------------------------------------------------------------------- */

static void check_vtu(const char *dir, const char *name, const shard_model *m, double t) {
  char *x = vtu_decode(dir, name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  char err[256] = "";
  CU_CHECK_MSG(xml_well_formed(x, err, sizeof err), "%s/%s is not well-formed XML: %s", dir, name, err);
  /* xmllint on the XML around the appended data (raw binary is no XML text) */
  char xml_name[300], path[1024];
  snprintf(xml_name, sizeof xml_name, "%s.xml", name);
  snprintf(path, sizeof path, "%s/%s", dir, xml_name);
  FILE *xf = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(xf);
  fputs(x, xf);
  fclose(xf);
  xmllint_ok(dir, xml_name);
  remove(path);
  CU_ASSERT_EQUAL(attr_long(x, "NumberOfPoints"), m->ndof);
  CU_ASSERT_EQUAL(attr_long(x, "NumberOfCells"), m->nel);
  double buf[64];
  CU_ASSERT_EQUAL(data_array(x, "TimeValue", buf, 64), 1);
  CU_NEAR(buf[0], t, 0);
  /* points at X + u, stored as Float32: exactly X + u rounded to float */
  CU_ASSERT_EQUAL_FATAL(data_array(x, NULL, buf, 64), 3 * m->ndof);
  for (int32_t j = 0; j < m->ndof; ++j) {
    CU_NEAR(buf[3 * j], (float)(m->X[j] + m->sys.u[j]), 0);
    CU_NEAR(buf[3 * j + 1], 0, 0);
  }
  CU_ASSERT_EQUAL_FATAL(data_array(x, "u", buf, 64), m->ndof);
  for (int32_t j = 0; j < m->ndof; ++j) CU_NEAR(buf[j], m->sys.u[j], 0);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "v", buf, 64), m->ndof);
  for (int32_t j = 0; j < m->ndof; ++j) CU_NEAR(buf[j], m->sys.v[j], 0);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "connectivity", buf, 64), 2 * m->nel);
  for (int32_t e = 0; e < m->nel; ++e) {
    CU_NEAR(buf[2 * e], m->el_a[e], 0);
    CU_NEAR(buf[2 * e + 1], m->el_b[e], 0);
  }
  CU_ASSERT_EQUAL(data_array(x, "offsets", buf, 64), m->nel);
  CU_NEAR(buf[m->nel - 1], 2 * m->nel, 0);
  CU_ASSERT_EQUAL(data_array(x, "types", buf, 64), m->nel);
  CU_NEAR(buf[0], 3, 0);
  /* the derived cell fields: the element values rounded to float, exactly */
  CU_ASSERT_EQUAL_FATAL(data_array(x, "stress", buf, 64), m->nel);
  for (int32_t e = 0; e < m->nel; ++e) {
    const double strain = (m->sys.u[m->el_b[e]] - m->sys.u[m->el_a[e]]) / m->el_h[e];
    CU_NEAR(buf[e], (float)(m->scales.young * strain), 0);
  }
  CU_ASSERT_EQUAL_FATAL(data_array(x, "strain", buf, 64), m->nel);
  for (int32_t e = 0; e < m->nel; ++e)
    CU_NEAR(buf[e], (float)((m->sys.u[m->el_b[e]] - m->sys.u[m->el_a[e]]) / m->el_h[e]), 0);
  free(x);
}

static void test_snapshot_vtu_values(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "vtu");
  shard_model *m = bar4();
  shard_snapshots *s = NULL;
  shard_msg msg = {""};
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_snapshots_write(s, 0.0, m, &msg), SHARD_OK);
  /* second state: the crack breaks (d = 1) and the right half moves */
  m->if_dmax[0] = 1.5 * m->if_deltac[0];
  m->sys.u[5] = 9e-9, m->sys.u[3] = 5e-9, m->sys.u[4] = 4e-9;
  CU_ASSERT_EQUAL(shard_snapshots_write(s, 2.5e-7, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_snapshots_count(s), 2);
  shard_snapshots_close(s);

  char fdir[600];
  snprintf(fdir, sizeof fdir, "%s/fields", dir);
  check_vtu(fdir, "fields_000001.vtu", m, 2.5e-7);
  char *x = vtu_decode(fdir, "fields_000001.vtu");
  double b[16];
  /* hand values: E (u_b - u_a) / h with h = 2.5e-4 and E = 200 GPa */
  const double E = 200e9, h = 2.5e-4;
  const double es[4] = {E * (1e-9 / 3) / h, E * (3e-9 - 1e-9 / 3) / h, E * (5e-9 - 9e-9) / h, E * (4e-9 - 5e-9) / h};
  CU_ASSERT_EQUAL_FATAL(data_array(x, "stress", b, 16), 4);
  /* Float32 in the file (check_vtu compares the exact rounding): the hand values to float precision 2^-24 */
  for (int e = 0; e < 4; ++e) CU_REL(b[e], es[e], 0x1p-24);
  CU_REL(b[0], 800e3 / 3, 0x1p-24); /* 200e9 * (1e-9 / 3) / 2.5e-4 Pa */
  CU_ASSERT_EQUAL_FATAL(data_array(x, "strain", b, 16), 4);
  CU_REL(b[2], -4e-9 / h, 0x1p-24);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "damage", b, 16), 4);
  CU_NEAR(b[0], 0, 0);
  CU_NEAR(b[1], 1, 0);
  CU_NEAR(b[2], 1, 0);
  CU_NEAR(b[3], 0, 0);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "fragment", b, 16), 4);
  CU_NEAR(b[0], 0, 0);
  CU_NEAR(b[1], 0, 0);
  CU_NEAR(b[2], 1, 0);
  CU_NEAR(b[3], 1, 0);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "X", b, 16), 6);
  CU_NEAR(b[5], 5e-4, 1e-18); /* the twin sits at the node it was split from */
  free(x);

  /* first snapshot: damage 0.5 on the two elements at the interface, one fragment */
  x = vtu_decode(fdir, "fields_000000.vtu");
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  CU_ASSERT_EQUAL(attr_long(x, "NumberOfPoints"), 6);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "damage", b, 16), 4);
  CU_NEAR(b[0], 0, 0);
  CU_NEAR(b[1], 0.5, 0);
  CU_NEAR(b[2], 0.5, 0);
  CU_NEAR(b[3], 0, 0);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "stress", b, 16), 4);
  CU_REL(b[1], E * (3e-9 - 1e-9 / 3) / h, 0x1p-24);
  CU_REL(b[2], E * (2e-9 - 7e-9) / h, 0x1p-24);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "fragment", b, 16), 4);
  CU_NEAR(b[3], 0, 0);
  free(x);
  CU_ASSERT_EQUAL(leftovers(dir), 0);
  CU_ASSERT_EQUAL(leftovers(fdir), 0);
  shard_model_destroy(m);
  remove_dir(dir);
}

/* incompressible data (random bits in every double) over several blocks:
 * the buffers sized at open() hold zlib's worst case, and the values decode
 * exactly */
static void test_snapshot_incompressible_values_fit(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "long");
  const int32_t nel = 5000;
  shard_model *m = bar_new(nel, NULL);
  uint64_t x = 88172645463325252ull; /* xorshift64 */
  for (int32_t j = 0; j <= nel; ++j) {
    double *dst[3] = {&m->X[j], &m->sys.u[j], &m->sys.v[j]};
    for (int k = 0; k < 3; ++k) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      *dst[k] = ldexp((double)(x >> 11), -53) * (x & 1 ? -1.0 : 1.0) * pow(10.0, (double)(x % 600) - 300.0);
    }
  }
  for (int32_t j = 1; j < nel; ++j) bar_split(m, j, 1.0 / 3); /* ndof = ndof_max */
  shard_snapshots *s = NULL;
  shard_msg msg = {""};
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  const int st = shard_snapshots_write(s, -1.2345678901234567e-300, m, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "write: %.900s", msg.text);
  char fdir[600];
  snprintf(fdir, sizeof fdir, "%s/fields", dir);
  char *xml = vtu_decode(fdir, "fields_000000.vtu");
  CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
  CU_ASSERT_EQUAL(attr_long(xml, "NumberOfPoints"), m->ndof);
  double *b = malloc((size_t)m->ndof * 3 * sizeof *b);
  CU_ASSERT_EQUAL_FATAL(data_array(xml, "v", b, m->ndof), m->ndof);
  int same = 1;
  for (int32_t j = 0; j < m->ndof; ++j) same &= b[j] == m->sys.v[j];
  CU_ASSERT(same);
  CU_ASSERT_EQUAL_FATAL(data_array(xml, NULL, b, 3 * m->ndof), 3 * m->ndof);
  same = 1;
  for (int32_t j = 0; j < m->ndof; ++j) same &= b[3 * j] == (float)(m->X[j] + m->sys.u[j]) && b[3 * j + 1] == 0;
  CU_ASSERT(same);
  free(b);
  char err[256] = "";
  CU_CHECK_MSG(xml_well_formed(xml, err, sizeof err), "not well-formed: %s", err);
  free(xml);
  shard_snapshots_close(s);
  shard_model_destroy(m);
  remove_dir(dir);
}

static void test_snapshot_pvd_lists_every_snapshot(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "pvd");
  shard_model *m = bar4();
  shard_snapshots *s = NULL;
  shard_msg msg = {""};
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  const double times[3] = {0.0, 1.25e-7, 3.0000000000000004e-7};
  char *p = NULL;
  for (int k = 0; k < 3; ++k) {
    CU_ASSERT_EQUAL(shard_snapshots_write(s, times[k], m, &msg), SHARD_OK);
    free(p);
    p = rh_read_file(dir, "fields.pvd", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char err[256] = "";
    CU_CHECK_MSG(xml_well_formed(p, err, sizeof err), "fields.pvd: %s", err);
    /* after k+1 writes the collection lists exactly k+1 data sets */
    int n = 0;
    for (const char *q = p; (q = strstr(q, "<DataSet")); ++q) ++n;
    CU_ASSERT_EQUAL(n, k + 1);
  }
  xmllint_ok(dir, "fields.pvd");
  CU_ASSERT_PTR_NOT_NULL(strstr(p, "type=\"Collection\""));
  const char *q = p;
  for (int k = 0; k < 3; ++k) {
    q = strstr(q, "<DataSet");
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    const char *ts = strstr(q, "timestep=\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_NEAR(strtod(ts + 10, NULL), times[k], 0);
    char file[64];
    snprintf(file, sizeof file, "file=\"fields/fields_%06d.vtu\"", k);
    const char *f = strstr(q, file), *eol = strchr(q, '\n');
    CU_CHECK_MSG(f && f < eol, "data set %d does not name %s", k, file);
    snprintf(file, sizeof file, "fields/fields_%06d.vtu", k);
    CU_ASSERT(exists(dir, file));
    ++q;
  }
  free(p);
  shard_snapshots_close(s);
  CU_ASSERT_EQUAL(leftovers(dir), 0);
  shard_model_destroy(m);
  remove_dir(dir);
}

static void record_rows(shard_snapshots *s, shard_model *m, int n, double dt, double t0) {
  shard_msg msg = {""};
  for (int k = 0; k < n; ++k) {
    /* a travelling strain pulse: stresses change from row to row */
    for (int32_t j = 0; j < m->ndof; ++j) m->sys.u[j] = 1e-9 * sin(1e3 * m->X[j] + 0.3 * k);
    CU_ASSERT_EQUAL(shard_spacetime_record(s, t0 + dt * k, m, &msg), SHARD_OK);
  }
}

static void test_snapshot_spacetime_files(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "st");
  shard_model *m = bar4();
  shard_snapshots *s = NULL;
  shard_msg msg = {""};
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  const double dt = 1e-8;
  for (int k = 0; k < 5; ++k) {
    for (int32_t j = 0; j < m->ndof; ++j) m->sys.u[j] = 1e-9 * (k + 1) * j;
    m->if_dmax[0] = 0.2 * k * m->if_deltac[0];
    CU_ASSERT_EQUAL(shard_spacetime_record(s, dt * k, m, &msg), SHARD_OK);
  }
  CU_ASSERT_EQUAL(shard_spacetime_rows(s), 5);
  const int st = shard_snapshots_finish(s, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "finish: %.900s", msg.text);
  CU_CHECK_MSG(shard_snapshots_note(s) == NULL, "note: %.900s", shard_snapshots_note(s));
  char *ss = rh_read_file(dir, "spacetime_stress.dat", NULL), *sd = rh_read_file(dir, "spacetime_damage.dat", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sd);
  int c0, cmin, cmax;
  CU_ASSERT_EQUAL(matrix_shape(ss, &c0, &cmin, &cmax), 6);
  CU_ASSERT_EQUAL(c0, 5);
  CU_ASSERT_EQUAL(cmin, 5);
  CU_ASSERT_EQUAL(cmax, 5);
  CU_ASSERT_EQUAL(matrix_shape(sd, &c0, &cmin, &cmax), 6);
  CU_ASSERT_EQUAL(cmin, 5);
  CU_NEAR(matrix_at(ss, 0, 0), 4, 0);        /* column count */
  CU_NEAR(matrix_at(ss, 0, 1), 1.25e-4, 1e-13); /* element centres */
  CU_NEAR(matrix_at(ss, 0, 4), 8.75e-4, 1e-13);
  for (int k = 0; k < 5; ++k) {
    CU_NEAR(matrix_at(ss, k + 1, 0), dt * k, 1e-17);
    /* u_j = 1e-9 (k+1) j; element 2 runs from the twin (DOF 5) to node 3 */
    CU_REL(matrix_at(ss, k + 1, 1), 200e9 * 1e-9 * (k + 1) / 2.5e-4, 1e-6);
    CU_REL(matrix_at(ss, k + 1, 3), 200e9 * 1e-9 * (k + 1) * (3 - 5) / 2.5e-4, 1e-6);
    CU_NEAR(matrix_at(sd, k + 1, 1), 0, 0);
    CU_NEAR(matrix_at(sd, k + 1, 2), 0.2 * k, 1e-7);
    CU_NEAR(matrix_at(sd, k + 1, 3), 0.2 * k, 1e-7);
    CU_NEAR(matrix_at(sd, k + 1, 4), 0, 0);
  }
  char *gp = rh_read_file(dir, "spacetime.gp", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gp);
  CU_ASSERT_PTR_NOT_NULL(strstr(gp, "spacetime_stress.dat"));
  CU_ASSERT_PTR_NOT_NULL(strstr(gp, "spacetime_damage.dat"));
  CU_ASSERT_PTR_NOT_NULL(strstr(gp, "with image")); /* evenly spaced times */
  CU_ASSERT_PTR_NOT_NULL(strstr(gp, "set cbrange [0:1]"));
  if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
    CU_ASSERT(exists(dir, "spacetime.png"));
    char *png = rh_read_file(dir, "spacetime.png", NULL);
    CU_ASSERT(png && !memcmp(png, "\x89PNG", 4));
    free(png);
  }
  CU_ASSERT_EQUAL(leftovers(dir), 0);
  free(ss), free(sd), free(gp);
  shard_snapshots_close(s);
  shard_model_destroy(m);
  remove_dir(dir);
}

static void test_snapshot_spacetime_uneven_times_use_pm3d(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "pm3d");
  shard_model *m = bar4();
  shard_snapshots *s = NULL;
  shard_msg msg = {""};
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  record_rows(s, m, 4, 1e-8, 0);
  record_rows(s, m, 4, 3e-8, 1e-7); /* the step changed (stable step after insertions) */
  const int st = shard_snapshots_finish(s, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "finish: %.900s", msg.text);
  char *gp = rh_read_file(dir, "spacetime.gp", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gp);
  CU_ASSERT_PTR_NOT_NULL(strstr(gp, "with pm3d"));
  CU_ASSERT_PTR_NULL(strstr(gp, "with image"));
  if (system("command -v gnuplot >/dev/null 2>&1") == 0) CU_ASSERT(exists(dir, "spacetime.png"));
  free(gp);
  shard_snapshots_close(s);
  shard_model_destroy(m);
  remove_dir(dir);
}

static void test_snapshot_spacetime_rows_thinned_at_cap(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "thin");
  shard_model *m = bar4();
  shard_snapshots *s = NULL;
  shard_msg msg = {""};
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  const int calls = 2 * SHARD_SPACETIME_MAX_ROWS + SHARD_SPACETIME_MAX_ROWS / 2;
  const double dt = 1e-9;
  record_rows(s, m, calls, dt, 0);
  /* full at MAX rows -> every 2nd call, full again -> every 4th: the rows are the calls k = 0, 4, 8, ... */
  const int expect = (calls + 3) / 4;
  CU_ASSERT_EQUAL(shard_spacetime_rows(s), expect);
  CU_ASSERT(shard_spacetime_rows(s) <= SHARD_SPACETIME_MAX_ROWS);
  CU_ASSERT_EQUAL(shard_snapshots_finish(s, &msg), SHARD_OK);
  char *ss = rh_read_file(dir, "spacetime_stress.dat", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
  int c0, cmin, cmax;
  CU_ASSERT_EQUAL(matrix_shape(ss, &c0, &cmin, &cmax), expect + 1);
  for (int r = 0; r < expect; r += 97) {
    CU_NEAR(matrix_at(ss, r + 1, 0), 4 * r * dt, 1e-9 * 4 * r * dt);
    /* the row holds the state of its own call */
    const int k = 4 * r;
    const double u1 = 1e-9 * sin(1e3 * m->X[1] + 0.3 * k), u0 = 1e-9 * sin(0.3 * k);
    CU_NEAR(matrix_at(ss, r + 1, 1), 200e9 * (u1 - u0) / 2.5e-4, 1e-6 * 200e9 * 1e-9 / 2.5e-4);
  }
  free(ss);
  char *gp = rh_read_file(dir, "spacetime.gp", NULL);
  CU_ASSERT(gp && strstr(gp, "with image"));
  free(gp);
  shard_snapshots_close(s);
  shard_model_destroy(m);
  remove_dir(dir);
}

static void test_snapshot_spacetime_columns_downsampled(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "cols");
  const int32_t nel = 3 * SHARD_SPACETIME_MAX_COLS - 2; /* groups of 3, the last one of 1 */
  double *h = malloc((size_t)nel * sizeof *h);
  for (int32_t e = 0; e < nel; ++e) h[e] = (e % 3 == 1 ? 2e-7 : 1e-7);
  shard_model *m = bar_new(nel, h);
  for (int32_t j = 0; j <= nel; ++j) m->sys.u[j] = 1e-10 * (double)((j * 7) % 5);
  bar_split(m, 4, 0.25); /* interface at node 4: elements 3 and 4 -> column 1 */
  bar_split(m, nel - 1, 0.75); /* last node before the end: last two elements */
  shard_snapshots *s = NULL;
  shard_msg msg = {""};
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_spacetime_record(s, 0.0, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_spacetime_record(s, 1e-9, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_snapshots_finish(s, &msg), SHARD_OK);
  char *ss = rh_read_file(dir, "spacetime_stress.dat", NULL), *sd = rh_read_file(dir, "spacetime_damage.dat", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sd);
  int c0, cmin, cmax;
  const int ncol = SHARD_SPACETIME_MAX_COLS;
  CU_ASSERT_EQUAL(matrix_shape(ss, &c0, &cmin, &cmax), 3);
  CU_ASSERT_EQUAL(c0, ncol + 1);
  CU_ASSERT_EQUAL(cmin, ncol + 1);
  CU_ASSERT_EQUAL(cmax, ncol + 1);
  for (int c = 0; c < ncol; c += 111) {
    const int32_t e0 = 3 * c, e1 = e0 + 3 < nel ? e0 + 3 : nel;
    double sh = 0, hh = 0, d = 0;
    for (int32_t e = e0; e < e1; ++e) sh += el_stress(m, e) * m->el_h[e], hh += m->el_h[e];
    for (int32_t e = e0; e < e1; ++e) {
      if (e == 3 || e == 4) d = fmax(d, 0.25);
      if (e >= nel - 2) d = fmax(d, 0.75);
    }
    CU_NEAR(matrix_at(ss, 0, c + 1), 0.5 * (m->X[e0] + m->X[e1]), 1e-9 * m->X[nel]);
    CU_NEAR(matrix_at(ss, 2, c + 1), sh / hh, 1e-6 * fabs(sh / hh) + 1e-3);
    CU_NEAR(matrix_at(sd, 2, c + 1), d, 1e-7);
  }
  CU_NEAR(matrix_at(sd, 1, 2), 0.25, 1e-7);
  CU_NEAR(matrix_at(sd, 1, ncol), 0.75, 1e-7);
  CU_NEAR(matrix_at(sd, 1, ncol - 1), 0.75, 1e-7); /* elements nel-4 .. nel-2: nel-2 is the crack's left one */
  /* the group of three with the middle one twice as long: a length-weighted mean */
  const double w = (el_stress(m, 0) * 1e-7 + el_stress(m, 1) * 2e-7 + el_stress(m, 2) * 1e-7) / 4e-7;
  CU_NEAR(matrix_at(ss, 1, 1), w, 1e-6 * fabs(w) + 1e-3);
  free(ss), free(sd), free(h);
  shard_snapshots_close(s);
  shard_model_destroy(m);
  remove_dir(dir);
}

static void test_snapshot_gnuplot_missing_is_a_note(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "nognuplot");
  shard_model *m = bar4();
  shard_snapshots *s = NULL;
  shard_msg msg = {""};
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  record_rows(s, m, 3, 1e-8, 0);
  const char *old = getenv("PATH");
  char *saved = old ? strdup(old) : NULL;
  setenv("PATH", "/nonexistent-shard-test", 1);
  const int st = shard_snapshots_finish(s, &msg);
  if (saved) setenv("PATH", saved, 1);
  else unsetenv("PATH");
  free(saved);
  CU_CHECK_MSG(st == SHARD_OK, "finish: %.900s", msg.text);
  const char *note = shard_snapshots_note(s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(note);
  char want[700];
  snprintf(want, sizeof want, "gnuplot not found: render with gnuplot %s/spacetime.gp", dir);
  CU_CHECK_MSG(strcmp(note, want) == 0, "note %.400s, expected %.400s", note, want);
  CU_ASSERT(exists(dir, "spacetime.gp"));
  CU_ASSERT(!exists(dir, "spacetime.png"));
  CU_ASSERT_EQUAL(leftovers(dir), 0);
  /* the script renders later, from another directory, beside itself */
  if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cd / && gnuplot '%s/spacetime.gp' 2>/dev/null", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    CU_ASSERT(exists(dir, "spacetime.png"));
  }
  shard_snapshots_close(s);
  shard_model_destroy(m);
  remove_dir(dir);
}

static void test_snapshot_refusals(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "refuse");
  shard_msg msg = {""};
  shard_snapshots *s = NULL;
  /* a particle has no elements */
  shard_model particle = {0};
  particle.kind = SHARD_MODEL_PARTICLE;
  CU_ASSERT_EQUAL(shard_snapshots_open(&s, dir, &particle, &msg), SHARD_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg.text, "bar model"));
  /* the run directory is a file */
  shard_model *m = bar4();
  char file[600];
  snprintf(file, sizeof file, "%s/plain", dir);
  FILE *f = fopen(file, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fclose(f);
  CU_ASSERT_EQUAL(shard_snapshots_open(&s, file, m, &msg), SHARD_ERR_IO);
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg.text, "field snapshots"));
  /* time going backwards, non-finite time, another model */
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_spacetime_record(s, 1e-6, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_spacetime_record(s, 5e-7, m, &msg), SHARD_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg.text, "before the previous row"));
  CU_ASSERT_EQUAL(shard_snapshots_write(s, NAN, m, &msg), SHARD_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg.text, "not finite"));
  shard_model *other = bar_new(7, NULL);
  CU_ASSERT_EQUAL(shard_snapshots_write(s, 0, other, &msg), SHARD_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg.text, "not the one"));
  CU_ASSERT_EQUAL(shard_spacetime_rows(s), 1);
  CU_ASSERT_EQUAL(shard_snapshots_count(s), 0);
  /* a single row: files written, the picture not rendered, and said so */
  CU_ASSERT_EQUAL(shard_snapshots_finish(s, &msg), SHARD_OK);
  CU_ASSERT(exists(dir, "spacetime_stress.dat"));
  CU_ASSERT_PTR_NOT_NULL(shard_snapshots_note(s));
  CU_ASSERT(!exists(dir, "spacetime.png"));
  shard_snapshots_close(s);
  shard_snapshots_close(NULL);
  shard_model_destroy(other);
  shard_model_destroy(m);
  remove_dir(dir);
}

/* The real model: a case file, shard_model_build and the camacho_ortiz law
 * inserting the initial interface of damage 0.5 in the middle. */
static const char *case_text =
    "name: snapshot_bar\n"
    "model:\n"
    "  type: bar\n"
    "  length: 1e-3\n"
    "  young: 370e9\n"
    "  density: 3900\n"
    "  elements: 8\n"
    "  initial: {strain_rate: 1000}\n"
    "fracture:\n"
    "  plugin: camacho_ortiz\n"
    "  g_c: 50\n"
    "  insertion: false\n"
    "  strength: {nominal: 262e6}\n"
    "  initial: {position: 5e-4, damage: 0.5}\n"
    "integrator: {plugin: nsn}\n"
    "contact:\n"
    "  impact: {plugin: newton_impact, restitution: 0}\n"
    "lcp: {plugin: lemke}\n"
    "time: {end: 1e-7, dt: 1e-9}\n";

static void test_snapshot_built_model(void) {
  char dir[512];
  fresh_dir(dir, sizeof dir, "built");
  char path[600];
  snprintf(path, sizeof path, "%s/case.yaml", dir);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(case_text, f);
  fclose(f);
  shard_msg msg = {""};
  shard_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_registry_create(&reg, &msg), SHARD_OK);
  int st = shard_registry_load_dir(reg, SHARD_PLUGIN_DIR, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "plugins: %.900s", msg.text);
  shard_diag *diag = shard_diag_create();
  shard_case *c = NULL;
  st = shard_case_load(path, NULL, 0, reg, &c, diag);
  CU_CHECK_MSG(st == SHARD_OK, "case: %s", shard_diag_first(diag) ? shard_diag_first(diag) : "");
  if (st != SHARD_OK) {
    shard_diag_destroy(diag);
    shard_registry_destroy(reg);
    return;
  }
  shard_model *m = NULL;
  st = shard_model_build(c, NULL, &m, diag, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "model: %.900s", msg.text);
  const shard_loaded_plugin *lp = NULL;
  shard_params params;
  CU_ASSERT_EQUAL_FATAL(shard_case_plugin(c, "fracture", NULL, &lp, &params, diag), SHARD_OK);
  const shard_tsl_ops *ops = lp->desc->ops;
  void *self = NULL;
  const shard_scales scales = shard_model_named_scales(m);
  CU_ASSERT_EQUAL_FATAL(ops->create(&params, &scales, &self, &msg), SHARD_OK);
  st = shard_model_set_tsl(m, ops, self, 0, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "set_tsl: %.900s", msg.text);
  CU_ASSERT_EQUAL(m->niface, 1);
  CU_ASSERT_EQUAL(m->ndof, 10);

  shard_snapshots *s = NULL;
  CU_ASSERT_EQUAL_FATAL(shard_snapshots_open(&s, dir, m, &msg), SHARD_OK);
  /* stretch: u = 1e-3 X (strain 1e-3) on every DOF, twins included; the crack opens by 2 nm */
  for (int32_t j = 0; j < m->ndof; ++j) m->sys.u[j] = 1e-3 * m->X[j];
  m->sys.u[m->if_twin[0]] += 2e-9;
  CU_ASSERT_EQUAL(shard_snapshots_write(s, 0.0, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_snapshots_write(s, 1e-9, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_spacetime_record(s, 0.0, m, &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_spacetime_record(s, 1e-9, m, &msg), SHARD_OK);
  st = shard_snapshots_finish(s, &msg);
  CU_CHECK_MSG(st == SHARD_OK, "finish: %.900s", msg.text);
  shard_snapshots_close(s);

  char fdir[600];
  snprintf(fdir, sizeof fdir, "%s/fields", dir);
  check_vtu(fdir, "fields_000001.vtu", m, 1e-9);
  char *x = vtu_decode(fdir, "fields_000001.vtu");
  double b[16];
  const double h = 1e-3 / 8, E = 370e9;
  CU_ASSERT_EQUAL_FATAL(data_array(x, "damage", b, 16), 8);
  for (int e = 0; e < 8; ++e) CU_NEAR(b[e], (e == 3 || e == 4) ? 0.5 : 0.0, 1e-12);
  CU_ASSERT_EQUAL_FATAL(data_array(x, "stress", b, 16), 8);
  for (int e = 0; e < 8; ++e) CU_REL(b[e], e == 4 ? E * (1e-3 * h - 2e-9) / h : E * 1e-3, 0x1p-24); /* Float32 */
  CU_ASSERT_EQUAL_FATAL(data_array(x, "u", b, 16), 10);
  CU_NEAR(b[9] - b[4], 2e-9, 1e-18); /* the twin of node 4 is DOF 9 */
  free(x);
  char *sd = rh_read_file(dir, "spacetime_damage.dat", NULL);
  CU_ASSERT_PTR_NOT_NULL(sd);
  if (sd) {
    CU_NEAR(matrix_at(sd, 2, 4), 0.5, 1e-7);
    CU_NEAR(matrix_at(sd, 2, 5), 0.5, 1e-7);
    CU_NEAR(matrix_at(sd, 2, 1), 0, 0);
  }
  free(sd);
  ops->destroy(self);
  shard_model_destroy(m);
  shard_case_destroy(c);
  shard_diag_destroy(diag);
  shard_registry_destroy(reg);
  remove_dir(dir);
}

static const cu_test_def tests[] = {
    {"test_snapshot_vtu_values", test_snapshot_vtu_values},
    {"test_snapshot_incompressible_values_fit", test_snapshot_incompressible_values_fit},
    {"test_snapshot_pvd_lists_every_snapshot", test_snapshot_pvd_lists_every_snapshot},
    {"test_snapshot_spacetime_files", test_snapshot_spacetime_files},
    {"test_snapshot_spacetime_uneven_times_use_pm3d", test_snapshot_spacetime_uneven_times_use_pm3d},
    {"test_snapshot_spacetime_rows_thinned_at_cap", test_snapshot_spacetime_rows_thinned_at_cap},
    {"test_snapshot_spacetime_columns_downsampled", test_snapshot_spacetime_columns_downsampled},
    {"test_snapshot_gnuplot_missing_is_a_note", test_snapshot_gnuplot_missing_is_a_note},
    {"test_snapshot_refusals", test_snapshot_refusals},
    {"test_snapshot_built_model", test_snapshot_built_model},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "snapshot", tests); }
