/* host: diagnostics in the compiler style (see diag.h). */
#include "core/diag.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Errors kept for sorting and printing; all are counted. */
#define DIAG_KEEP 256
/* A source line longer than this is cut (binary garbage has long "lines"). */
#define DIAG_LINE_MAX 240

typedef struct diag_entry {
  char *head; /* "file:line:col: error: message" */
  char *file;
  char *source; /* the source line, or NULL */
  char *note;   /* printed under it, or NULL */
  int line, col;
  int rank; /* order of first appearance of `file` */
} diag_entry;

#define DIAG_SOURCES 64

struct shard_diag {
  diag_entry entries[DIAG_KEEP];
  int kept;
  int count;
  char *sources[DIAG_SOURCES]; /* declared source names, in order */
  int n_sources;
};

static char *dup_cut(const char *s, size_t n);

shard_diag *shard_diag_create(void) { return calloc(1, sizeof(shard_diag)); }

void shard_diag_clear(shard_diag *d) {
  if (!d) return;
  for (int i = 0; i < d->kept; ++i) {
    free(d->entries[i].head);
    free(d->entries[i].file);
    free(d->entries[i].source);
    free(d->entries[i].note);
  }
  for (int i = 0; i < d->n_sources; ++i) free(d->sources[i]);
  d->kept = d->count = d->n_sources = 0;
}

void shard_diag_add_source(shard_diag *d, const char *file) {
  if (!d || d->n_sources == DIAG_SOURCES) return;
  for (int i = 0; i < d->n_sources; ++i)
    if (strcmp(d->sources[i], file) == 0) return;
  if ((d->sources[d->n_sources] = dup_cut(file, strlen(file)))) d->n_sources++;
}

void shard_diag_destroy(shard_diag *d) {
  shard_diag_clear(d);
  free(d);
}

static char *dup_cut(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) return NULL;
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

/* The line up to its end, cut, control characters (but tabs) shown as '?'. */
static char *dup_line(const char *s) {
  size_t n = strcspn(s, "\r\n");
  char *r = dup_cut(s, n < DIAG_LINE_MAX ? n : DIAG_LINE_MAX);
  for (char *p = r; p && *p; ++p)
    if ((unsigned char)*p < 0x20 && *p != '\t') *p = '?';
  return r;
}

/* Line `line` of a regular file, or NULL. Never opens anything but a regular file. */
static char *read_source_line(const char *file, int line) {
  struct stat st;
  if (line <= 0 || stat(file, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
  FILE *f = fopen(file, "rb");
  if (!f) return NULL;
  char buf[DIAG_LINE_MAX + 1];
  size_t n = 0;
  int cur = 1, c;
  while ((c = fgetc(f)) != EOF) {
    if (c == '\n') {
      if (cur == line) break;
      ++cur;
      continue;
    }
    if (cur == line && n < DIAG_LINE_MAX) buf[n++] = (char)c;
  }
  fclose(f);
  return cur == line ? dup_line((buf[n] = 0, buf)) : NULL;
}

static int file_rank(const shard_diag *d, const char *file) {
  for (int i = 0; i < d->n_sources; ++i)
    if (strcmp(d->sources[i], file) == 0) return i;
  int rank = d->n_sources;
  for (int i = 0; i < d->kept; ++i) {
    if (strcmp(d->entries[i].file, file) == 0) return d->entries[i].rank;
    if (d->entries[i].rank >= rank) rank = d->entries[i].rank + 1;
  }
  return rank;
}

void shard_diag_verror(shard_diag *d, const char *file, int line, int col, const char *source_line, const char *fmt,
                       va_list ap) {
  if (!d) return;
  d->count++;
  if (d->kept == DIAG_KEEP) return;
  char msg[1024], where[64] = "";
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (line > 0 && col > 0)
    snprintf(where, sizeof where, ":%d:%d", line, col);
  else if (line > 0)
    snprintf(where, sizeof where, ":%d", line);
  diag_entry *e = &d->entries[d->kept];
  size_t n = strlen(file) + strlen(where) + strlen(msg) + 16;
  e->head = malloc(n);
  e->file = dup_cut(file, strlen(file));
  e->source = source_line ? dup_line(source_line) : read_source_line(file, line);
  if (!e->head || !e->file) {
    free(e->head);
    free(e->file);
    free(e->source);
    return;
  }
  snprintf(e->head, n, "%s%s: error: %s", file, where, msg);
  e->note = NULL;
  e->line = line;
  e->col = col;
  e->rank = file_rank(d, file);
  d->kept++;
}

void shard_diag_error(shard_diag *d, const char *file, int line, int col, const char *source_line, const char *fmt,
                      ...) {
  va_list ap;
  va_start(ap, fmt);
  shard_diag_verror(d, file, line, col, source_line, fmt, ap);
  va_end(ap);
}

void shard_diag_note(shard_diag *d, const char *fmt, ...) {
  if (!d || d->kept == 0 || d->kept != d->count) return; /* the last error was not kept */
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  diag_entry *e = &d->entries[d->kept - 1];
  free(e->note);
  e->note = dup_cut(text, strlen(text));
}

int shard_diag_count(const shard_diag *d) { return d ? d->count : 0; }

const char *shard_diag_first(const shard_diag *d) { return d && d->kept > 0 ? d->entries[0].head : NULL; }

static int entry_before(const diag_entry *a, const diag_entry *b) {
  if (a->rank != b->rank) return a->rank < b->rank;
  if (a->line != b->line) return a->line < b->line;
  return a->col < b->col;
}

void shard_diag_sort(shard_diag *d) {
  if (!d) return;
  for (int i = 1; i < d->kept; ++i) { /* insertion sort: stable, few entries */
    diag_entry e = d->entries[i];
    int j = i;
    for (; j > 0 && entry_before(&e, &d->entries[j - 1]); --j) d->entries[j] = d->entries[j - 1];
    d->entries[j] = e;
  }
}

/* The caret line: the source prefix with its tabs kept, every other
 * character (one UTF-8 sequence each) as a space, then '^'. */
static void print_caret(FILE *out, const char *src, int col) {
  fputs("  ", out);
  int c = 1;
  for (const unsigned char *p = (const unsigned char *)src; *p && c < col; ++p) {
    if ((*p & 0xC0) == 0x80) continue; /* UTF-8 continuation byte */
    fputc(*p == '\t' ? '\t' : ' ', out);
    ++c;
  }
  fputs("^\n", out);
}

void shard_diag_print(const shard_diag *d, FILE *out) {
  if (!d) return;
  int shown = d->kept < SHARD_DIAG_MAX ? d->kept : SHARD_DIAG_MAX;
  for (int i = 0; i < shown; ++i) {
    const diag_entry *e = &d->entries[i];
    fprintf(out, "%s\n", e->head);
    if (e->source && *e->source) {
      fprintf(out, "  %s\n", e->source);
      if (e->col > 0 && (size_t)e->col <= strlen(e->source) + 1) print_caret(out, e->source, e->col);
    }
    if (e->note) fprintf(out, "  note: %s\n", e->note);
  }
  if (d->count > shown)
    fprintf(out, "%d error%s (%d shown)\n", d->count, d->count == 1 ? "" : "s", shown);
  else
    fprintf(out, "%d error%s\n", d->count, d->count == 1 ? "" : "s");
}
