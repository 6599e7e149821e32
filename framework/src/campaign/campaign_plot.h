/* host: the plots of a campaign (gnuplot scripts, data, rendering). */
#ifndef SHARD_CAMPAIGN_PLOT_H
#define SHARD_CAMPAIGN_PLOT_H

#include <stddef.h>

#include "campaign/campaign.h"
#include "campaign/campaign_table.h"

typedef struct shard_plot_report {
  size_t written;  /* scripts and data written */
  size_t rendered; /* PNG/SVG rendered by gnuplot */
  int have_gnuplot;
  size_t failed;   /* plots with nothing to draw (not rendered), or that gnuplot failed on */
  char failure[1024]; /* why, for the first of them */
} shard_plot_report;

/* Write DIR/plots/<file>.dat + .gp (+ .slopes.csv for log-log plots) for
 * every plot of the campaign from its table (the statistics table computed
 * from it for `table: statistics`, the runs' history.csv for `data:
 * history`), and render them when gnuplot is on PATH. A plot without a
 * single data point (no ok run has a number in its columns) is written but
 * not rendered; it and a plot gnuplot fails on count in rep->failed. */
int shard_campaign_plots(const shard_campaign *c, const shard_table *t, const char *dir, shard_plot_report *rep,
                        shard_msg *msg);

#endif
