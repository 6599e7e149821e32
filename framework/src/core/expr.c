/* host: the expression evaluator (see expr.h). Recursive descent into a flat
 * node array, evaluated by a recursive walk. */
#include "core/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64 /* nesting of parentheses, calls and unary signs */
#define MAX_ARGS 2

typedef enum node_op { OP_NUM, OP_NAME, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_CALL } node_op;

typedef struct fn_def {
  const char *name;
  int nargs;
  double (*f1)(double);
  double (*f2)(double, double);
} fn_def;

static double fn_min(double a, double b) { return a < b ? a : b; }
static double fn_max(double a, double b) { return a > b ? a : b; }

static const fn_def functions[] = {
    {"sqrt", 1, sqrt, 0}, {"exp", 1, exp, 0},     {"log", 1, log, 0},     {"log10", 1, log10, 0},
    {"sin", 1, sin, 0},   {"cos", 1, cos, 0},     {"abs", 1, fabs, 0},    {"min", 2, 0, fn_min},
    {"max", 2, 0, fn_max}, {"pow", 2, 0, pow},    {"round", 1, round, 0}, {"floor", 1, floor, 0},
    {"ceil", 1, ceil, 0},
};
#define N_FUNCTIONS (sizeof functions / sizeof functions[0])

typedef struct node {
  node_op op;
  int col;
  double num;
  int arg[MAX_ARGS]; /* children (index into nodes) */
  int nargs;
  const fn_def *fn;
  char name[SHARD_EXPR_NAME_MAX + 1];
} node;

struct shard_expr {
  node *nodes;
  int n, cap;
  int root;
  int literal;
};

/* ---- parsing -------------------------------------------------------------- */

typedef struct parser {
  const char *text;
  size_t pos;
  int depth;
  shard_expr *e;
  shard_expr_error *err;
} parser;

static int fail(parser *p, size_t pos, const char *fmt, ...) SHARD_PRINTF_(3, 4);
static int fail(parser *p, size_t pos, const char *fmt, ...) {
  if (p->err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->text, sizeof p->err->text, fmt, ap);
    va_end(ap);
    p->err->col = (int)pos + 1;
  }
  return -1;
}

static void skip_space(parser *p) {
  while (p->text[p->pos] == ' ' || p->text[p->pos] == '\t') p->pos++;
}

static int new_node(parser *p, node_op op, size_t pos) {
  if (p->e->n == p->e->cap) return fail(p, pos, "expression too complex");
  node *nd = &p->e->nodes[p->e->n];
  memset(nd, 0, sizeof *nd);
  nd->op = op;
  nd->col = (int)pos + 1;
  return p->e->n++;
}

/* A description of what stands at pos, for "unexpected ..." messages. */
static void describe_at(const parser *p, size_t pos, char *buf, size_t n) {
  const char *s = p->text + pos;
  if (!*s) {
    snprintf(buf, n, "end of expression");
    return;
  }
  size_t len = 1;
  if (isalnum((unsigned char)*s) || *s == '_' || *s == '.')
    while (len < 24 && (isalnum((unsigned char)s[len]) || s[len] == '_' || s[len] == '.')) ++len;
  snprintf(buf, n, "'%.*s'", (int)len, s);
}

static int unexpected(parser *p, size_t pos, const char *expected) {
  char what[40];
  describe_at(p, pos, what, sizeof what);
  return fail(p, pos, "expected %s, found %s", expected, what);
}

static size_t scan_digits(const char *s, size_t i) {
  while (isdigit((unsigned char)s[i])) ++i;
  return i;
}

/* Length of a number at s (0 if none): digits [. digits] [e [+-] digits]. */
static size_t scan_number(const char *s) {
  size_t i = scan_digits(s, 0);
  if (s[i] == '.') i = scan_digits(s, i + 1);
  if (i == 0 || (i == 1 && s[0] == '.')) return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-') ++j;
    if (isdigit((unsigned char)s[j])) i = scan_digits(s, j);
  }
  return i;
}

static int parse_sum(parser *p);
static int parse_unary(parser *p);

static int parse_number(parser *p) {
  size_t start = p->pos, len = scan_number(p->text + start);
  char buf[128];
  if (len >= sizeof buf) return fail(p, start, "number too long");
  memcpy(buf, p->text + start, len);
  buf[len] = 0;
  double v = strtod(buf, NULL);
  if (!isfinite(v)) return fail(p, start, "non-finite number '%s'", buf);
  int k = new_node(p, OP_NUM, start);
  if (k < 0) return k;
  p->e->nodes[k].num = v;
  p->pos += len;
  return k;
}

static const fn_def *find_function(const char *name) {
  for (size_t i = 0; i < N_FUNCTIONS; ++i)
    if (strcmp(functions[i].name, name) == 0) return &functions[i];
  return NULL;
}

static int parse_call(parser *p, int k, size_t name_pos) {
  node *nd = &p->e->nodes[k];
  const fn_def *fn = find_function(nd->name);
  if (!fn) {
    const char *names[N_FUNCTIONS];
    for (size_t i = 0; i < N_FUNCTIONS; ++i) names[i] = functions[i].name;
    const char *s = shard_suggest(nd->name, names, N_FUNCTIONS);
    return s ? fail(p, name_pos, "unknown function '%s' (did you mean '%s'?)", nd->name, s)
             : fail(p, name_pos, "unknown function '%s'", nd->name);
  }
  nd->op = OP_CALL;
  nd->fn = fn;
  p->pos++; /* '(' */
  int nargs = 0;
  for (;;) {
    if (nargs == MAX_ARGS) return fail(p, p->pos, "%s() takes %d argument%s", fn->name, fn->nargs, fn->nargs == 1 ? "" : "s");
    int a = parse_sum(p);
    if (a < 0) return a;
    p->e->nodes[k].arg[nargs++] = a;
    skip_space(p);
    if (p->text[p->pos] == ',') {
      p->pos++;
      skip_space(p);
      continue;
    }
    if (p->text[p->pos] != ')') return unexpected(p, p->pos, "',' or ')'");
    p->pos++;
    break;
  }
  if (nargs != fn->nargs)
    return fail(p, name_pos, "%s() takes %d argument%s, got %d", fn->name, fn->nargs, fn->nargs == 1 ? "" : "s", nargs);
  p->e->nodes[k].nargs = nargs;
  return k;
}

static int parse_name(parser *p) {
  size_t start = p->pos, len = 0;
  const char *s = p->text + start;
  while (islower((unsigned char)s[len]) || isdigit((unsigned char)s[len]) || s[len] == '_') ++len;
  if (len > SHARD_EXPR_NAME_MAX) return fail(p, start, "name too long (more than %d characters)", SHARD_EXPR_NAME_MAX);
  int k = new_node(p, OP_NAME, start);
  if (k < 0) return k;
  memcpy(p->e->nodes[k].name, s, len);
  p->e->nodes[k].name[len] = 0;
  p->pos += len;
  skip_space(p);
  return p->text[p->pos] == '(' ? parse_call(p, k, start) : k;
}

static int parse_primary(parser *p) {
  skip_space(p);
  char c = p->text[p->pos];
  if (scan_number(p->text + p->pos) > 0) return parse_number(p);
  if (islower((unsigned char)c) || c == '_') return parse_name(p);
  if (c == '(') {
    size_t open = p->pos++;
    int k = parse_sum(p);
    if (k < 0) return k;
    skip_space(p);
    if (p->text[p->pos] != ')') {
      char what[40];
      describe_at(p, p->pos, what, sizeof what);
      return fail(p, open, "unbalanced '(' (found %s where ')' was expected)", what);
    }
    p->pos++;
    return k;
  }
  return unexpected(p, p->pos, "a number, a name or '('");
}

static int binary(parser *p, node_op op, size_t pos, int a, int b) {
  int k = new_node(p, op, pos);
  if (k < 0) return k;
  p->e->nodes[k].arg[0] = a;
  p->e->nodes[k].arg[1] = b;
  p->e->nodes[k].nargs = 2;
  return k;
}

static int parse_power(parser *p) {
  int a = parse_primary(p);
  if (a < 0) return a;
  skip_space(p);
  if (p->text[p->pos] != '^') return a;
  size_t pos = p->pos++;
  int b = parse_unary(p);
  return b < 0 ? b : binary(p, OP_POW, pos, a, b);
}

static int parse_unary(parser *p) {
  skip_space(p);
  char c = p->text[p->pos];
  if (c != '-' && c != '+') return parse_power(p);
  if (++p->depth > MAX_DEPTH) return fail(p, p->pos, "expression nested too deeply");
  size_t pos = p->pos++;
  int a = parse_unary(p);
  p->depth--;
  if (a < 0 || c == '+') return a;
  int k = new_node(p, OP_NEG, pos);
  if (k < 0) return k;
  p->e->nodes[k].arg[0] = a;
  p->e->nodes[k].nargs = 1;
  return k;
}

static int parse_product(parser *p) {
  int a = parse_unary(p);
  for (;;) {
    if (a < 0) return a;
    skip_space(p);
    char c = p->text[p->pos];
    if (c != '*' && c != '/') return a;
    size_t pos = p->pos++;
    int b = parse_unary(p);
    a = b < 0 ? b : binary(p, c == '*' ? OP_MUL : OP_DIV, pos, a, b);
  }
}

static int parse_sum(parser *p) {
  if (++p->depth > MAX_DEPTH) return fail(p, p->pos, "expression nested too deeply");
  int a = parse_product(p);
  for (;;) {
    if (a < 0) break;
    skip_space(p);
    char c = p->text[p->pos];
    if (c != '+' && c != '-') break;
    size_t pos = p->pos++;
    int b = parse_product(p);
    a = b < 0 ? b : binary(p, c == '+' ? OP_ADD : OP_SUB, pos, a, b);
  }
  p->depth--;
  return a;
}

int shard_expr_parse(const char *text, shard_expr **out, shard_expr_error *err) {
  *out = NULL;
  size_t len = strlen(text);
  parser p = {text, 0, 0, NULL, err};
  if (len > SHARD_EXPR_MAX_LEN) {
    fail(&p, 0, "expression too long (%zu characters, at most %d)", len, SHARD_EXPR_MAX_LEN);
    return SHARD_ERR_INPUT;
  }
  shard_expr *e = calloc(1, sizeof *e);
  if (e) e->nodes = calloc(len + 1, sizeof(node));
  if (!e || !e->nodes) {
    shard_expr_destroy(e);
    fail(&p, 0, "out of memory");
    return SHARD_ERR_NOMEM;
  }
  e->cap = (int)len + 1;
  p.e = e;
  e->root = parse_sum(&p);
  if (e->root >= 0) {
    skip_space(&p);
    if (text[p.pos]) e->root = unexpected(&p, p.pos, "an operator");
  }
  if (e->root < 0) {
    shard_expr_destroy(e);
    return SHARD_ERR_INPUT;
  }
  const node *r = &e->nodes[e->root];
  e->literal = r->op == OP_NUM || (r->op == OP_NEG && e->nodes[r->arg[0]].op == OP_NUM);
  *out = e;
  return SHARD_OK;
}

void shard_expr_destroy(shard_expr *e) {
  if (!e) return;
  free(e->nodes);
  free(e);
}

size_t shard_expr_n_names(const shard_expr *e) {
  size_t n = 0;
  for (int i = 0; i < e->n; ++i) n += e->nodes[i].op == OP_NAME;
  return n;
}

const char *shard_expr_name(const shard_expr *e, size_t i, int *out_col) {
  /* nodes are created in text order, so node order is appearance order */
  for (int k = 0; k < e->n; ++k) {
    if (e->nodes[k].op != OP_NAME || i-- > 0) continue;
    if (out_col) *out_col = e->nodes[k].col;
    return e->nodes[k].name;
  }
  return NULL;
}

int shard_expr_is_literal(const shard_expr *e) { return e->literal; }

/* ---- evaluation ----------------------------------------------------------- */

typedef struct evaluator {
  const shard_expr *e;
  shard_expr_lookup lookup;
  void *ctx;
  shard_expr_error *err;
} evaluator;

static int eval_fail(const evaluator *ev, const node *nd, int status, const char *fmt, ...) SHARD_PRINTF_(4, 5);
static int eval_fail(const evaluator *ev, const node *nd, int status, const char *fmt, ...) {
  if (ev->err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->err->text, sizeof ev->err->text, fmt, ap);
    va_end(ap);
    ev->err->col = nd->col;
  }
  return status;
}

static int eval_node(const evaluator *ev, int k, double *out);

static int eval_name(const evaluator *ev, const node *nd, double *out) {
  if (!ev->lookup) return eval_fail(ev, nd, SHARD_ERR_INPUT, "unknown name '%s'", nd->name);
  int r = ev->lookup(ev->ctx, nd->name, out, ev->err);
  if (r == 1) return SHARD_OK;
  if (r == SHARD_EXPR_DEFERRED) return SHARD_EXPR_DEFERRED;
  if (r == 0) return eval_fail(ev, nd, SHARD_ERR_INPUT, "unknown name '%s'", nd->name);
  if (ev->err) ev->err->col = nd->col;
  return r;
}

static int eval_call(const evaluator *ev, const node *nd, double *out) {
  double a[MAX_ARGS] = {0, 0};
  for (int i = 0; i < nd->nargs; ++i) {
    int st = eval_node(ev, nd->arg[i], &a[i]);
    if (st != SHARD_OK) return st;
  }
  *out = nd->fn->nargs == 1 ? nd->fn->f1(a[0]) : nd->fn->f2(a[0], a[1]);
  if (isfinite(*out)) return SHARD_OK;
  if (nd->fn->nargs == 1) return eval_fail(ev, nd, SHARD_ERR_INPUT, "%s(%g) is not a finite number", nd->fn->name, a[0]);
  return eval_fail(ev, nd, SHARD_ERR_INPUT, "%s(%g, %g) is not a finite number", nd->fn->name, a[0], a[1]);
}

static int eval_binary(const evaluator *ev, const node *nd, double *out) {
  double a, b;
  int st = eval_node(ev, nd->arg[0], &a);
  if (st == SHARD_OK) st = eval_node(ev, nd->arg[1], &b);
  if (st != SHARD_OK) return st;
  switch (nd->op) {
  case OP_ADD: *out = a + b; break;
  case OP_SUB: *out = a - b; break;
  case OP_MUL: *out = a * b; break;
  case OP_DIV:
    if (b == 0) return eval_fail(ev, nd, SHARD_ERR_INPUT, "division by zero");
    *out = a / b;
    break;
  default: *out = pow(a, b); break;
  }
  if (isfinite(*out)) return SHARD_OK;
  if (nd->op == OP_POW) return eval_fail(ev, nd, SHARD_ERR_INPUT, "%g ^ %g is not a finite number", a, b);
  return eval_fail(ev, nd, SHARD_ERR_INPUT, "result is not a finite number (overflow)");
}

static int eval_node(const evaluator *ev, int k, double *out) {
  const node *nd = &ev->e->nodes[k];
  switch (nd->op) {
  case OP_NUM:
    *out = nd->num;
    return SHARD_OK;
  case OP_NAME:
    return eval_name(ev, nd, out);
  case OP_NEG: {
    int st = eval_node(ev, nd->arg[0], out);
    *out = -*out;
    return st;
  }
  case OP_CALL:
    return eval_call(ev, nd, out);
  default:
    return eval_binary(ev, nd, out);
  }
}

int shard_expr_eval(const shard_expr *e, shard_expr_lookup lookup, void *ctx, double *out, shard_expr_error *err) {
  evaluator ev = {e, lookup, ctx, err};
  double v = 0;
  int st = eval_node(&ev, e->root, &v);
  if (st == SHARD_OK) *out = v;
  return st;
}

/* ---- did-you-mean ----------------------------------------------------------- */

size_t shard_edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return la > lb ? la : lb; /* no suggestion for long words */
  size_t row[65];
  for (size_t j = 0; j <= lb; ++j) row[j] = j;
  for (size_t i = 1; i <= la; ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; ++j) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

const char *shard_suggest(const char *word, const char *const *candidates, size_t n) {
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < n; ++i) {
    size_t d = shard_edit_distance(word, candidates[i]);
    if (d < best_d) {
      best_d = d;
      best = candidates[i];
    }
  }
  if (!best) return NULL;
  size_t len = strlen(best), limit = len / 3 > 1 ? len / 3 : 1;
  if (len >= 4 && limit < 2) limit = 2;
  return best_d > 0 && best_d <= limit && best_d < len ? best : NULL;
}
