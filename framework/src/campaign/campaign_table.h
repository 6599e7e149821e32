/* host: the table of a campaign (campaign.csv): text cells, CSV in and out, merge of slices. */
#ifndef SHARD_CAMPAIGN_TABLE_H
#define SHARD_CAMPAIGN_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "shard/status.h"

/* Columns are kept in order of first use; cells are text, empty when absent. */
typedef struct shard_table shard_table;

shard_table *shard_table_create(void);
void shard_table_destroy(shard_table *t);
/* Append a column (no-op if present); its position. */
int shard_table_column(shard_table *t, const char *name);
/* Append a row; its position, or -1 when out of memory. */
int shard_table_add_row(shard_table *t, long index);
/* Set a cell (creating its column when new). SHARD_OK or SHARD_ERR_NOMEM. */
int shard_table_set(shard_table *t, int row, const char *column, const char *value);
size_t shard_table_n_rows(const shard_table *t);
size_t shard_table_n_cols(const shard_table *t);
const char *shard_table_col_name(const shard_table *t, size_t col);
int shard_table_find_col(const shard_table *t, const char *name); /* -1 if absent */
long shard_table_row_index(const shard_table *t, size_t row);
int shard_table_row_line(const shard_table *t, size_t row); /* its CSV line when read from a file, else 0 */
const char *shard_table_get(const shard_table *t, size_t row, size_t col); /* "" when empty */
/* Sort rows by index (stable). */
void shard_table_sort(shard_table *t);
/* RFC 4180 CSV, quoted only when needed, "\n" line ends. */
int shard_table_write_csv(const shard_table *t, FILE *out);
/* Write dir/name atomically (temporary file + rename). */
int shard_table_write_file(const shard_table *t, const char *dir, const char *name, shard_msg *msg);
/* The same without the index column (a table keyed by other columns). */
int shard_table_write_file_unindexed(const shard_table *t, const char *dir, const char *name, shard_msg *msg);
/* Read a CSV written by shard_table_write_csv (RFC 4180); the first column
 * must be `index`, a run number below SHARD_CAMPAIGN_MAX_RUNS (digits only;
 * "path:line: ..." errors). */
int shard_table_read_csv(const char *path, shard_table **out, shard_msg *msg);

/* The fixed columns of a campaign table, after `index` and the parameters. */
extern const char *const shard_campaign_run_columns[];
extern const size_t shard_campaign_n_run_columns;

/* The scalars of a YAML file flattened with dots ("reference.eta"), in file
 * order, into row `row` of t; keys listed in `skip` are left out. Empty
 * values are not set. SHARD_OK, or SHARD_ERR_IO/INPUT with msg. */
int shard_table_add_yaml(shard_table *t, int row, const char *path, const char *const *skip, size_t n_skip,
                         shard_msg *msg);

/* Join slice tables (any number, each with the columns index, parameters,
 * run columns, summary scalars) into one table identical to a single-machine
 * run: rows sorted by index, summary columns in order of first appearance
 * over the sorted rows. Duplicate indices and mismatched parameter columns
 * are errors (SHARD_ERR_INPUT with msg). */
int shard_table_merge(shard_table *const *parts, size_t n, shard_table **out, shard_msg *msg);

#endif
