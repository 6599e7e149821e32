/* host: diagnostics in the compiler style
 *   file:line:col: error: message
 *     source line
 *         ^
 * collected (capped) so that all errors of a file are reported at once. */
#ifndef SHARD_DIAG_H
#define SHARD_DIAG_H

#include <stdarg.h>
#include <stdio.h>

#include "shard/status.h"

#define SHARD_DIAG_MAX 20

typedef struct shard_diag shard_diag;

shard_diag *shard_diag_create(void);
void shard_diag_destroy(shard_diag *d);
/* file may be a path or a pseudo-source such as "--set 'time.dt=x'"; line and
 * col are 1-based, 0 when unknown; source_line may be NULL (then it is read
 * from the file when possible). */
void shard_diag_error(shard_diag *d, const char *file, int line, int col, const char *source_line, const char *fmt, ...)
    SHARD_PRINTF_(6, 7);
void shard_diag_verror(shard_diag *d, const char *file, int line, int col, const char *source_line, const char *fmt,
                       va_list ap) SHARD_PRINTF_(6, 0);
/* A note under the last error recorded ("  note: ..."), such as where
 * something was looked for; not an error of its own. */
void shard_diag_note(shard_diag *d, const char *fmt, ...) SHARD_PRINTF_(2, 3);
int shard_diag_count(const shard_diag *d);       /* errors recorded (including past the cap) */
const char *shard_diag_first(const shard_diag *d); /* "file:line:col: error: ..." of the first, or NULL */
void shard_diag_print(const shard_diag *d, FILE *out); /* all, with source line and caret, then "N errors" */

/* Declare a source name ahead of its errors: shard_diag_sort orders sources
 * by declaration (a file, then its --set arguments in command-line order),
 * undeclared ones after them by first appearance. */
void shard_diag_add_source(shard_diag *d, const char *file);
/* Order the recorded errors by source (declared order, see above), then
 * line, then column; errors without a line keep their place first. Stable. */
void shard_diag_sort(shard_diag *d);
/* Forget every error (the object is reused for another file). */
void shard_diag_clear(shard_diag *d);

#endif
