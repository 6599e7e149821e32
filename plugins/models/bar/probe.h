/* model plugin `bar`: stress probes (output.probes; docs/outputs.md, probes.csv).
 *
 * A probe is a facet (an interior node, where an interface is or may be
 * inserted). Every shard_probes_write() appends one row per probed facet to
 * DIR/probes.csv: the time, the facet, its normal stress and its damage. The
 * stress is the mean of the two element stresses beside the facet, E (u_b -
 * u_a) / h_e, which is what the insertion criterion compares with the
 * facet's strength (and what the snapshots' stress cells hold, element by
 * element); the damage is min(delta_max / delta_c, 1) of the facet's
 * interface, 0 without one; sigma_c is the facet's strength, so that
 * sigma_c (1 - d) is its current one. The file is written to a temporary
 * name and renamed when the run ends; open() allocates everything (the
 * stream's buffer), write() allocates nothing. */
#ifndef SHARD_BAR_PROBE_H
#define SHARD_BAR_PROBE_H

#include <stdint.h>

#include "model.h"
#include "shard/status.h"

typedef struct shard_probes shard_probes;

/* Probe the facets 0, stride, 2 stride, ... of m (m->nfacet > 0). */
int shard_probes_open(shard_probes **out, const char *dir, const shard_model *m, int32_t stride, shard_msg *msg);
int shard_probes_write(shard_probes *p, double t, const shard_model *m, shard_msg *msg);
/* done: publish DIR/probes.csv; otherwise remove the temporary. Frees p (NULL is fine). */
int shard_probes_close(shard_probes *p, int done, shard_msg *msg);

#endif
