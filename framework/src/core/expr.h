/* host: a tiny, safe evaluator for the small expressions case files may hold
 * (`dt: 0.7 * dt_c`, `elements: round(1e6 * length)`).
 *
 *   expr    := sum
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right-associative
 *   primary := number | name | name '(' sum (',' sum)* ')' | '(' sum ')'
 *
 * numbers 2, 0.5, .5, 1e-3; names [a-z_][a-z0-9_]*; functions sqrt exp log
 * log10 sin cos abs min max pow round floor ceil. No state, no I/O: names are
 * resolved by the caller's lookup. Errors carry the 1-based column inside the
 * expression text, so that a caller can point at it in the source file. */
#ifndef SHARD_EXPR_H
#define SHARD_EXPR_H

#include <stddef.h>

#include "shard/status.h"

#define SHARD_EXPR_MAX_LEN 4096 /* longer texts are refused */
#define SHARD_EXPR_NAME_MAX 63

/* Returned by shard_expr_eval when a lookup deferred (see below). */
#define SHARD_EXPR_DEFERRED 100

typedef struct shard_expr shard_expr;

typedef struct shard_expr_error {
  int col; /* 1-based column inside the expression text */
  char text[256];
} shard_expr_error;

/* Name resolution: return 1 with *out set, 0 if the name is unknown (the
 * evaluator reports "unknown name"), SHARD_EXPR_DEFERRED if the name is known
 * but has no value yet (evaluation stops without an error), or a negative
 * status after filling `err->text` (err->col is set by the evaluator). */
typedef int (*shard_expr_lookup)(void *ctx, const char *name, double *out, shard_expr_error *err);

int shard_expr_parse(const char *text, shard_expr **out, shard_expr_error *err);
void shard_expr_destroy(shard_expr *e);

/* SHARD_OK, SHARD_ERR_INPUT (err filled), or SHARD_EXPR_DEFERRED. */
int shard_expr_eval(const shard_expr *e, shard_expr_lookup lookup, void *ctx, double *out, shard_expr_error *err);

/* The names an expression refers to, in order of appearance (repeats included). */
size_t shard_expr_n_names(const shard_expr *e);
const char *shard_expr_name(const shard_expr *e, size_t i, int *out_col);
/* 1 if the expression is a plain number literal (optionally signed). */
int shard_expr_is_literal(const shard_expr *e);

/* Levenshtein distance, and the closest candidate when it is close enough to
 * suggest (NULL otherwise). Shared by every did-you-mean of the case layer. */
size_t shard_edit_distance(const char *a, const char *b);
const char *shard_suggest(const char *word, const char *const *candidates, size_t n);

#endif
