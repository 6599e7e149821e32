/* host: the data package (datapackage.json) of a campaign directory. */
#ifndef SHARD_CAMPAIGN_PACKAGE_H
#define SHARD_CAMPAIGN_PACKAGE_H

#include "campaign/campaign.h"
#include "campaign/campaign_table.h"

/* Write dir/datapackage.json (atomically): a Frictionless Data Package with
 * one resource per table of the campaign directory — campaign.csv (t), and
 * statistics.csv and the pooled fragment_sizes.csv when the campaign has a
 * `statistics:` block (the latter when dir holds it) — each with its Table
 * Schema: name, type, unit and description of every column (run columns and
 * summary keys from outputs.h, parameters from the case format's key
 * tables). c may be NULL (a merged table without its campaign file): reg
 * then gives the model plugins' summary keys (the campaign's own otherwise). */
int shard_campaign_write_package(const shard_campaign *c, const shard_registry *reg, const shard_table *t,
                                 const char *dir, shard_msg *msg);

#endif
