/* host: statistics of a campaign table across a swept key, pooled fragment sizes. */
#ifndef SHARD_CAMPAIGN_STATS_H
#define SHARD_CAMPAIGN_STATS_H

#include <stddef.h>

#include "campaign/campaign.h"
#include "campaign/campaign_table.h"

/* The statistics table of a campaign table (shard_campaign_stats(c) must not
 * be NULL), rows indexed by group from 0: per group (the distinct values of
 * the group columns, in order of first appearance) the group columns, `n`
 * (runs with status ok), `failed` (the other runs), and for each statistic
 * column C over the ok runs with a number in C: C.mean, C.std (n - 1),
 * C.ci95 (half-width t_{0.975,n-1} std / sqrt(n)), C.min, C.max; empty where
 * undefined. A column with fewer numbers than ok runs in some group gets a
 * C.n column before C.mean. SHARD_OK, or SHARD_ERR_INPUT with msg (a group
 * column missing from the table, a listed column that is not numeric). */
int shard_campaign_statistics_table(const shard_campaign *c, const shard_table *t, shard_table **out, shard_msg *msg);
/* Write dir/statistics.csv (atomically, without the index column) when the
 * campaign has a `statistics:` block; SHARD_OK and nothing written without. */
int shard_campaign_write_statistics(const shard_campaign *c, const shard_table *t, const char *dir, shard_msg *msg);

/* Pool the fragment sizes of each statistics group: every ok run's
 * dir/runs/N/fragment_sizes.csv (written by fracture runs), each size also
 * over its own run's mean, sorted by that ratio, into dir/fragment_sizes.csv
 * (atomically) with the group columns, `runs` (runs pooled in the group),
 * size, size_over_mean and cumulative_number; *pooled_runs (may be NULL)
 * counts the runs read. SHARD_OK and nothing written without a `statistics:`
 * block or when no run has the file (a table merged away from its run
 * directories). */
int shard_campaign_write_pooled_sizes(const shard_campaign *c, const shard_table *t, const char *dir, size_t *pooled_runs,
                                      shard_msg *msg);

#endif
