/* model plugin `bar`: stress probes (see probe.h). */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/fsio.h"
#include "io/outputs.h"
#include "line_outputs.h"

#define PROBE_FILE "probes.csv"
#define PROBE_BUFFER (1u << 20)

struct shard_probes {
  FILE *f;
  int fd;
  char *buf; /* the stream's buffer */
  int32_t stride;
  char dir[4096], tmp[4096], final[4096];
};

int shard_probes_open(shard_probes **out, const char *dir, const shard_model *m, int32_t stride, shard_msg *msg) {
  *out = NULL;
  if (m->kind != SHARD_MODEL_BAR || m->nfacet < 1 || stride < 1)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "stress probes need a bar with facets (a fracture section)");
  shard_probes *p = calloc(1, sizeof *p);
  if (!p || !(p->buf = malloc(PROBE_BUFFER))) {
    free(p);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory");
  }
  p->fd = -1;
  p->stride = stride;
  snprintf(p->dir, sizeof p->dir, "%s", dir);
  snprintf(p->final, sizeof p->final, "%s/" PROBE_FILE, dir);
  int st = shard_temp_create(dir, PROBE_FILE, p->tmp, sizeof p->tmp, &p->fd, msg);
  if (st == SHARD_OK && !(p->f = fdopen(p->fd, "w")))
    st = shard_msg_set(msg, SHARD_ERR_IO, "cannot open '%s': %s", p->tmp, strerror(errno));
  if (st == SHARD_OK) {
    setvbuf(p->f, p->buf, _IOFBF, PROBE_BUFFER);
    const shard_out_table *t[] = {&shard_line_probes};
    shard_out_header_n(p->f, t, 1, SHARD_OUT_PROBES);
  }
  if (st != SHARD_OK) {
    shard_probes_close(p, 0, NULL);
    return st;
  }
  *out = p;
  return SHARD_OK;
}

int shard_probes_write(shard_probes *p, double t, const shard_model *m, shard_msg *msg) {
  errno = 0;
  for (int32_t f = 0; f < m->nfacet; f += p->stride)
    fprintf(p->f, "%.12g,%d,%.9g,%.9g,%.9g\n", t, (int)f, shard_model_facet_stress(m, f), shard_model_facet_damage(m, f),
            m->facet_strength[f]);
  if (ferror(p->f))
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot write '%s': %s", p->tmp, strerror(errno ? errno : EIO));
  return SHARD_OK;
}

int shard_probes_close(shard_probes *p, int done, shard_msg *msg) {
  if (!p) return SHARD_OK;
  int st = SHARD_OK;
  if (p->f) {
    errno = 0;
    const int ok = fflush(p->f) == 0 && !ferror(p->f);
    if (done && !ok) st = shard_msg_set(msg, SHARD_ERR_IO, "cannot write '%s': %s", p->tmp, strerror(errno ? errno : EIO));
    if (done && ok) {
      /* the stream's descriptor goes to publish (fsync, close, rename): the stream itself is dropped unclosed */
      const int fd = dup(p->fd);
      fclose(p->f);
      if (fd < 0) {
        st = shard_msg_set(msg, SHARD_ERR_IO, "cannot write '%s': %s", p->tmp, strerror(errno));
        unlink(p->tmp);
      } else st = shard_file_publish(fd, p->tmp, p->final, p->dir, msg);
    } else {
      fclose(p->f);
      unlink(p->tmp);
    }
  } else if (p->fd >= 0) {
    close(p->fd);
    unlink(p->tmp);
  }
  free(p->buf);
  free(p);
  return st;
}
