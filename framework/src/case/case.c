/* host: case files — load strictly, override with --set, validate against
 * shard_case_sections and the plugins' spec tables, give typed access.
 *
 * The walk is generic: at every mapping level the valid keys are a list of
 * entries (a parameter spec, a section, or a section's selector) whose dotted
 * keys ("walls.left.gap") stand for nested mappings. Leaf values are checked
 * by a handler per parameter type. */
#include "case/case.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "io/fsio.h"
#include "io/yaml_tree.h"

const shard_case_name shard_case_derived_names[] = {
    {"dt_c", "s", "stable time step of the estimate chosen by time.dt_estimate"},
    {"dt_bulk", "s", "stable time step of the bulk elements alone, h_min / c"},
    {"h_min", "m", "smallest element length"},
    {"h_mean", "m", "mean element length"},
    {"c", "m/s", "bar wave speed sqrt(young / density)"},
    {"dt_c_default", "s", "stable time step of the default estimate, 2 / sqrt(lambda_max)"},
    {"dt_c_paper", "s", "stable time step of the paper's formula"},
    {"t_b", "s", "time for a wave to cross the bar and come back, 2 length / c"},
    {"mass_total", "kg", "total mass of the model"},
    {"sigma_c", "Pa", "nominal strength fracture.strength.nominal"},
    {"g_c", "J/m^2", "fracture energy fracture.g_c"},
    {"s0", "m", "characteristic fragment size E G_c / sigma_c^2 (docs/theory.md section 13)"},
    {"t0", "s", "characteristic time s0 / c"},
    {"eps0", "1/s", "characteristic strain rate sigma_c / (E t0)"},
    {"s_grady", "m", "Grady's fragment size (24 G_c / (rho strain_rate^2))^(1/3), strain_rate = model.initial.strain_rate"},
    {"s_bar", "m", "min(length, (1/(4 s0) + 1/s_grady)^-1), the confinement and stopping-rule length (docs/theory.md section 13)"},
};
const uint32_t shard_case_n_derived_names = SHARD_NPARAMS(shard_case_derived_names);

#define KEY_MAX 256      /* longest dotted key path */
#define EVAL_DEPTH_MAX 8 /* model keys referring to model keys */

/* What a section resolved to: its variant's key set, plugin and value storage. */
typedef struct slot {
  int present;                     /* the section is in the file */
  const char *variant;             /* selector value (given or default), NULL if none */
  const shard_param_spec *specs;   /* the variant's keys, NULL when unresolved */
  uint32_t n_specs;
  const shard_loaded_plugin *plugin;
  shard_param_value *values;       /* storage for the variant's resolved keys (shard_case_section_params) */
  shard_param_value *host_values;  /* ... and for the section's own keys */
} slot;

struct shard_case {
  char *path;
  yt_arena *arena;
  yt_node *root;
  const shard_registry *reg;
  slot slots[];
};

/* ---- small helpers ---------------------------------------------------------- */

static const shard_case_section *section(uint32_t i) { return &shard_case_sections[i]; }

/* buf (KEY_MAX bytes) = a "." b, or the one that is not empty; cut if too long */
static void join(char *buf, const char *a, const char *b) {
  size_t k = 0;
  for (const char *p = a; *p && k + 1 < KEY_MAX; ++p) buf[k++] = *p;
  if (*a && *b && k + 1 < KEY_MAX) buf[k++] = '.';
  for (const char *p = b; *p && k + 1 < KEY_MAX; ++p) buf[k++] = *p;
  buf[k] = 0;
}

static int has_prefix(const char *key, const char *prefix, size_t n) {
  return strncmp(key, prefix, n) == 0 && key[n] == '.';
}

/* "[0, 1]", "> 0", "<= 2" followed by the unit, as the range of spec. */
static void range_text(const shard_param_spec *s, char *buf, size_t n) {
  int lo = isfinite(s->min), hi = isfinite(s->max);
  int lx = (s->flags & SHARD_PARAM_MIN_EXCLUSIVE) != 0, hx = (s->flags & SHARD_PARAM_MAX_EXCLUSIVE) != 0;
  int k;
  if (lo && hi)
    k = snprintf(buf, n, "in %c%g, %g%c", lx ? '(' : '[', s->min, s->max, hx ? ')' : ']');
  else if (lo)
    k = snprintf(buf, n, "%s %g", lx ? ">" : ">=", s->min);
  else
    k = snprintf(buf, n, "%s %g", hx ? "<" : "<=", s->max);
  if (s->unit && *s->unit && strcmp(s->unit, "1") != 0 && k > 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, " %s", s->unit);
}

static int has_range(const shard_param_spec *s) { return isfinite(s->min) || isfinite(s->max); }

/* The YAML 1.1 spellings of NaN and infinities. */
static int yaml_non_finite(const char *t) {
  static const char *const words[] = {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF"};
  if (*t == '+' || *t == '-') ++t;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i)
    if (strcmp(t, words[i]) == 0) return 1;
  return 0;
}

/* Column of character `offset` of a scalar's text (quoted scalars open with a quote). */
static int text_col(const yt_node *n, int offset) { return n->col + (n->quoted ? 1 : 0) + offset - 1; }

/* ---- slots: the variant a section selects -------------------------------------- */

typedef struct variant_ref {
  const char *name;
  const shard_param_spec *specs;
  uint32_t n_specs;
  const shard_loaded_plugin *plugin;
} variant_ref;

static int find_variant(const shard_case *c, const shard_case_section *s, const char *name, variant_ref *out) {
  memset(out, 0, sizeof *out);
  out->name = name;
  if (s->plugin_kind > 0) {
    const shard_loaded_plugin *lp = c->reg ? shard_registry_find(c->reg, s->plugin_kind, name) : NULL;
    if (!lp) return 0;
    out->plugin = lp;
    out->specs = lp->desc->params;
    out->n_specs = lp->desc->n_params;
    return 1;
  }
  for (uint32_t i = 0; i < s->n_variants; ++i)
    if (strcmp(s->variants[i].name, name) == 0) {
      out->specs = s->variants[i].specs;
      out->n_specs = s->variants[i].n_specs;
      return 1;
    }
  return 0;
}

/* The names a selector may take, for messages ("a, b, c") and suggestions. */
static size_t variant_names(const shard_case *c, const shard_case_section *s, const char **names, size_t max) {
  size_t n = 0;
  if (s->plugin_kind > 0) {
    size_t count = c->reg ? shard_registry_count(c->reg) : 0;
    for (size_t i = 0; i < count && n < max; ++i) {
      const shard_loaded_plugin *lp = shard_registry_at(c->reg, i);
      if ((int)lp->desc->kind == s->plugin_kind) names[n++] = lp->desc->name;
    }
  } else {
    for (uint32_t i = 0; i < s->n_variants && n < max; ++i) names[n++] = s->variants[i].name;
  }
  return n;
}

static void list_names(const char *const *names, size_t n, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n && k < size; ++i) {
    int w = snprintf(buf + k, size - k, "%s%s", i ? ", " : "", names[i]);
    if (w < 0) break;
    k += (size_t)w;
  }
}

static void set_slot(slot *sl, const variant_ref *v) {
  sl->variant = v->name;
  sl->specs = v->specs;
  sl->n_specs = v->n_specs;
  sl->plugin = v->plugin;
}

/* ---- validation ------------------------------------------------------------- */

typedef struct entry {
  const char *key;             /* relative to the mapping the entry list describes */
  const shard_param_spec *spec; /* a key ... */
  int section;                 /* ... or a section (index), or -1 */
  int selector;                /* the section's selector key (checked when selecting) */
} entry;

typedef struct entry_list {
  entry items[128];
  size_t n;
} entry_list;

static void add_specs(entry_list *l, const shard_param_spec *specs, uint32_t n) {
  for (uint32_t i = 0; i < n && l->n < sizeof l->items / sizeof l->items[0]; ++i)
    l->items[l->n++] = (entry){specs[i].key, &specs[i], -1, 0};
}

typedef struct vctx {
  shard_case *c;
  shard_diag *d;
  /* keys suggested by a did-you-mean: not reported missing as well */
  char suggested[16][KEY_MAX];
  int n_suggested;
  int nomem; /* an allocation failed on the way (reported where): out of memory, not bad input */
} vctx;

static int was_suggested(const vctx *v, const char *full) {
  for (int i = 0; i < v->n_suggested; ++i)
    if (strcmp(v->suggested[i], full) == 0) return 1;
  return 0;
}

static void validate_section(vctx *v, int si, const yt_node *key, const yt_node *value);
static int eval_text(const shard_case *c, const yt_node *node, const char *text, const shard_param_spec *spec,
                     const char *full, const shard_scope *scope, int load, double *out, shard_diag *d);

/* --- leaf handlers, one per parameter type --- */

/* Where to report a bad value: an empty value has no text to point at, so
 * its key, unless the value came from elsewhere (a --set argument). */
static const yt_node *value_site(const yt_node *key, const yt_node *value) {
  return yt_is_null(value) && value->src == key->src ? key : value;
}

typedef void (*leaf_fn)(vctx *v, const yt_node *n, const shard_param_spec *s, const char *full);

static void leaf_number(vctx *v, const yt_node *n, const shard_param_spec *s, const char *full) {
  double x;
  if (eval_text(v->c, n, n->text, s, full, NULL, 1, &x, v->d) == SHARD_ERR_NOMEM) v->nomem = 1;
}

static void leaf_bool(vctx *v, const yt_node *n, const shard_param_spec *s, const char *full) {
  if (n->quoted || (strcmp(n->text, "true") != 0 && strcmp(n->text, "false") != 0))
    yt_error_at(v->d, n, "'%s' must be true or false, got '%s'", full, n->text);
}

static void leaf_string(vctx *v, const yt_node *n, const shard_param_spec *s, const char *full) {}

static int choice_ok(const char *choices, const char *text) {
  size_t len = strlen(text);
  for (const char *p = choices; *p;) {
    size_t k = strcspn(p, "|");
    if (k == len && strncmp(p, text, k) == 0) return 1;
    p += k + (p[k] == '|');
  }
  return 0;
}

static void leaf_choice(vctx *v, const yt_node *n, const shard_param_spec *s, const char *full) {
  if (choice_ok(s->choices, n->text)) return;
  char list[512]; /* "a|b|c" -> "a, b, c" */
  size_t k = 0;
  for (const char *p = s->choices; *p && k + 3 < sizeof list; ++p) {
    if (*p == '|') {
      list[k++] = ',';
      list[k++] = ' ';
    } else {
      list[k++] = *p;
    }
  }
  list[k] = 0;
  yt_error_at(v->d, n, "invalid value '%s' for '%s' (expected one of: %s)", n->text, full, list);
}

typedef struct leaf_handler {
  const char *noun; /* what a value of this type is, for "must be ..." */
  leaf_fn check;
} leaf_handler;

static const leaf_handler leaf_handlers[] = {
    [SHARD_PARAM_REAL] = {"a number", leaf_number},  [SHARD_PARAM_INT] = {"an integer", leaf_number},
    [SHARD_PARAM_BOOL] = {"true or false", leaf_bool}, [SHARD_PARAM_STRING] = {"a string", leaf_string},
    [SHARD_PARAM_CHOICE] = {"a string", leaf_choice},
};

static void check_leaf(vctx *v, const yt_node *key, const yt_node *n, const shard_param_spec *s, const char *full) {
  const leaf_handler *h = &leaf_handlers[s->type];
  if (n->kind == YT_SEQ && (s->flags & SHARD_PARAM_LIST)) { /* a list: each item as the value */
    if (n->n == 0) yt_error_at(v->d, n, "'%s' is an empty list (give %s or a list of them)", full, h->noun);
    for (size_t i = 0; i < n->n; ++i) {
      const yt_node *item = n->items[i];
      if (item->kind != YT_SCALAR || yt_is_null(item))
        yt_error_at(v->d, value_site(key, item), "'%s' item %zu must be %s, not %s", full, i + 1, h->noun,
                    yt_kind_str(item));
      else
        h->check(v, item, s, full);
    }
    return;
  }
  if (n->kind != YT_SCALAR || yt_is_null(n)) {
    yt_error_at(v->d, value_site(key, n), "'%s' must be %s, not %s", full, h->noun, yt_kind_str(n));
    return;
  }
  h->check(v, n, s, full);
}

/* --- mapping walk --- */

/* The distinct first components of the entries under `prefix` (length plen). */
static size_t level_keys(const entry_list *l, const char *prefix, size_t plen, char (*out)[64], size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < l->n && n < max; ++i) {
    const char *k = l->items[i].key;
    if (plen && !has_prefix(k, prefix, plen - 1)) continue;
    k += plen;
    size_t len = strcspn(k, ".");
    if (len >= 64) continue;
    size_t j = 0;
    while (j < n && !(strncmp(out[j], k, len) == 0 && out[j][len] == 0)) ++j;
    if (j < n) continue;
    memcpy(out[n], k, len);
    out[n++][len] = 0;
  }
  return n;
}

static void unknown_key(vctx *v, const yt_node *key, const entry_list *l, const char *prefix, const char *where) {
  char keys[64][64];
  const char *cands[64];
  size_t n = level_keys(l, prefix, strlen(prefix), keys, 64);
  for (size_t i = 0; i < n; ++i) cands[i] = keys[i];
  const char *s = shard_suggest(key->text, cands, n);
  char in[KEY_MAX + 16], hint[96] = "";
  if (*where)
    snprintf(in, sizeof in, "key '%s' in '%s'", key->text, where);
  else
    snprintf(in, sizeof in, "top-level key '%s'", key->text);
  if (s) {
    snprintf(hint, sizeof hint, " (did you mean '%s'?)", s);
    if (v->n_suggested < 16) join(v->suggested[v->n_suggested++], where, s);
  }
  yt_error_at(v->d, key, "unknown %s%s", in, hint);
}

static const entry *find_entry(const entry_list *l, const char *rel) {
  for (size_t i = 0; i < l->n; ++i)
    if (strcmp(l->items[i].key, rel) == 0) return &l->items[i];
  return NULL;
}

static int is_group(const entry_list *l, const char *rel) {
  size_t n = strlen(rel);
  for (size_t i = 0; i < l->n; ++i)
    if (has_prefix(l->items[i].key, rel, n)) return 1;
  return 0;
}

/* Walk one mapping: `prefix` is the entries' key prefix of this level ("" or
 * "walls.left."), `base` the full path of the entries' owner for messages. */
static void walk_map(vctx *v, const yt_node *map, const entry_list *l, const char *prefix, const char *base,
                     int lenient) {
  for (size_t i = 0; i < map->n; ++i) {
    const yt_node *key = map->pairs[i].key, *val = map->pairs[i].value;
    char rel[KEY_MAX], full[KEY_MAX];
    snprintf(rel, sizeof rel, "%s%s", prefix, key->text);
    join(full, base, rel);
    const entry *e = find_entry(l, rel);
    if (e && e->selector) continue;
    if (e && e->section >= 0) {
      validate_section(v, e->section, key, val);
    } else if (e) {
      check_leaf(v, key, val, e->spec, full);
    } else if (is_group(l, rel)) {
      if (val->kind != YT_MAP) {
        yt_error_at(v->d, value_site(key, val), "'%s' must be a mapping, not %s", full, yt_kind_str(val));
        continue;
      }
      char sub[KEY_MAX + 2];
      snprintf(sub, sizeof sub, "%s.", rel);
      walk_map(v, val, l, sub, base, lenient);
    } else if (!lenient) {
      char where[KEY_MAX], group[KEY_MAX];
      snprintf(group, sizeof group, "%.*s", (int)(*prefix ? strlen(prefix) - 1 : 0), prefix);
      join(where, base, group);
      unknown_key(v, key, l, prefix, where);
    }
  }
}

static void check_required(vctx *v, const yt_node *at, const yt_node *map, const entry_list *l, const char *base) {
  for (size_t i = 0; i < l->n; ++i) {
    const shard_param_spec *s = l->items[i].spec;
    if (!s || !(s->flags & SHARD_PARAM_REQUIRED) || yt_get_path(map, s->key)) continue;
    char full[KEY_MAX];
    join(full, base, s->key);
    if (was_suggested(v, full)) continue;
    if (*base)
      yt_error_at(v->d, at, "missing required key '%s' in '%s'", s->key, base);
    else
      yt_error_at(v->d, at, "missing required top-level key '%s'", s->key);
  }
}

/* Resolve the selector of a variant section into its slot: 1, or 0 when the
 * selector names no variant (reported), -1 when it is missing (the caller
 * reports it after the walk, unless a typo of it was found). */
static int select_variant(vctx *v, int si, const yt_node *key, const yt_node *map) {
  const shard_case_section *s = section((uint32_t)si);
  const yt_pair *p = yt_map_find(map, s->selector);
  const yt_node *at = key;
  const char *name = s->default_variant;
  if (p) {
    if (p->value->kind != YT_SCALAR || yt_is_null(p->value)) {
      yt_error_at(v->d, value_site(p->key, p->value), "'%s.%s' must be a string, not %s", s->path,
                  s->selector, yt_kind_str(p->value));
      return 0;
    }
    at = p->value;
    name = p->value->text;
  } else if (!name) {
    return -1;
  }
  variant_ref ref;
  if (find_variant(v->c, s, name, &ref)) {
    set_slot(&v->c->slots[si], &ref);
    return 1;
  }
  const shard_loaded_plugin *other = s->plugin_kind > 0 && v->c->reg ? shard_registry_find(v->c->reg, 0, name) : NULL;
  if (other) {
    yt_error_at(v->d, at, "'%s' is a %s plugin, but '%s' takes a plugin of kind %s", name,
                shard_plugin_kind_str((int)other->desc->kind), s->path, shard_plugin_kind_str(s->plugin_kind));
    return 0;
  }
  const char *names[64];
  size_t n = variant_names(v->c, s, names, 64);
  char what[KEY_MAX + 32], list[512], hint[96] = "";
  if (s->plugin_kind > 0)
    snprintf(what, sizeof what, "%s plugin", shard_plugin_kind_str(s->plugin_kind));
  else
    snprintf(what, sizeof what, "%s %s", s->path, s->selector);
  const char *sug = shard_suggest(name, names, n);
  if (sug) snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
  const char *why = s->plugin_kind > 0 && v->c->reg ? shard_registry_why(v->c->reg, name) : NULL;
  if (why) {
    yt_error_at(v->d, at, "%s '%s' cannot be loaded: %s", what, name, why);
    if (shard_registry_why_status(v->c->reg, name) == SHARD_ERR_NOMEM) v->nomem = 1;
    return 0;
  }
  if (n == 0)
    yt_error_at(v->d, at, "unknown %s '%s' (no %s is loaded; see `shard plugins`)", what, name, what);
  else {
    list_names(names, n, list, sizeof list);
    yt_error_at(v->d, at, "unknown %s '%s'%s; available: %s", what, name, hint, list);
  }
  if (s->plugin_kind > 0 && v->c->reg) {
    char searched[2048];
    shard_registry_search_path(v->c->reg, searched, sizeof searched);
    shard_diag_note(v->d, "plugins searched for in %s; add directories with --plugin-path or SHARD_PLUGIN_PATH",
                    searched[0] ? searched : "(no directory)");
  }
  return 0;
}

static void validate_section(vctx *v, int si, const yt_node *key, const yt_node *value) {
  const shard_case_section *s = section((uint32_t)si);
  v->c->slots[si].present = 1;
  if (value->kind != YT_MAP) {
    yt_error_at(v->d, value_site(key, value), "'%s' must be a mapping, not %s", s->path, yt_kind_str(value));
    return;
  }
  entry_list l = {.n = 0};
  int resolved = 1;
  if (s->selector) {
    l.items[l.n++] = (entry){s->selector, NULL, -1, 1};
    resolved = select_variant(v, si, key, value);
  }
  add_specs(&l, s->specs, s->n_specs);
  if (resolved > 0) add_specs(&l, v->c->slots[si].specs, v->c->slots[si].n_specs);
  /* with an unknown variant the other keys cannot be judged: only host keys are */
  walk_map(v, value, &l, "", s->path, resolved == 0);
  check_required(v, key, value, &l, s->path);
  char sel[KEY_MAX];
  join(sel, s->path, s->selector ? s->selector : "");
  if (resolved < 0 && !was_suggested(v, sel))
    yt_error_at(v->d, key, "missing required key '%s' in '%s'", s->selector, s->path);
}

static void validate_root(vctx *v) {
  const yt_node *root = v->c->root;
  if (root->kind != YT_MAP) {
    yt_error_at(v->d, root, "a case file must be a mapping of sections, not %s", yt_kind_str(root));
    return;
  }
  entry_list l = {.n = 0};
  for (uint32_t i = 0; i < shard_case_n_sections; ++i) {
    if (*section(i)->path)
      l.items[l.n++] = (entry){section(i)->path, NULL, (int)i, 0};
    else
      add_specs(&l, section(i)->specs, section(i)->n_specs);
  }
  walk_map(v, root, &l, "", "", 0);
  check_required(v, root, root, &l, "");
  const yt_pair *name = yt_map_find(root, "name"); /* it names the default output directory out/NAME */
  if (name && name->value->kind == YT_SCALAR && !yt_is_null(name->value) && !shard_plain_name(name->value->text))
    yt_error_at(v->d, name->value,
                "case name '%s' must be a plain name (letters, digits, '_', '-', '.'; not starting with '.'): it "
                "names the output directory",
                name->value->text);
  for (uint32_t i = 0; i < shard_case_n_sections; ++i)
    if ((section(i)->flags & SHARD_SECTION_REQUIRED) && !yt_get_path(root, section(i)->path) &&
        !was_suggested(v, section(i)->path))
      yt_error_at(v->d, root, "missing required section '%s'", section(i)->path);
}

/* Absent sections with a default variant (lcp: lemke) resolve quietly. */
static void resolve_defaults(shard_case *c) {
  for (uint32_t i = 0; i < shard_case_n_sections; ++i) {
    variant_ref ref;
    const shard_case_section *s = section(i);
    if (!c->slots[i].present && s->default_variant && find_variant(c, s, s->default_variant, &ref))
      set_slot(&c->slots[i], &ref);
  }
}

/* ---- expressions ----------------------------------------------------------- */

static int section_index(const char *path);

typedef struct eval_ctx {
  const shard_case *c;
  const shard_scope *scope;
  int load;                            /* at load time: derived names are deferred */
  shard_diag *d;                       /* at access time: where referenced values report */
  const shard_param_spec *stack[EVAL_DEPTH_MAX];
  int depth;
  int circular;                        /* a circular reference was found below */
} eval_ctx;

static int derived_name(const char *name) {
  for (uint32_t i = 0; i < shard_case_n_derived_names; ++i)
    if (strcmp(shard_case_derived_names[i].name, name) == 0) return 1;
  return 0;
}

/* The slot whose numeric keys are names in expressions (the model), or NULL. */
static const slot *names_slot(const shard_case *c, int *out_si) {
  int si = section_index(SHARD_CASE_NAMES_SECTION);
  if (out_si) *out_si = si;
  return si >= 0 ? &c->slots[si] : NULL;
}

static int is_number_spec(const shard_param_spec *s) {
  return s->type == SHARD_PARAM_REAL || s->type == SHARD_PARAM_INT;
}

/* "initial.velocity" is named initial_velocity */
static int key_is_name(const char *key, const char *name) {
  size_t j = 0;
  for (; key[j] && name[j]; ++j)
    if (name[j] != (key[j] == '.' ? '_' : key[j])) return 0;
  return !key[j] && !name[j];
}

/* The model key a name stands for, NULL if none. */
static const shard_param_spec *model_name(const shard_case *c, const char *name, int *out_si) {
  const slot *sl = names_slot(c, out_si);
  for (uint32_t k = 0; sl && k < sl->n_specs; ++k)
    if (is_number_spec(&sl->specs[k]) && key_is_name(sl->specs[k].key, name)) return &sl->specs[k];
  return NULL;
}

static int eval_in(eval_ctx *ec, const yt_node *node, const char *text, const shard_param_spec *spec,
                   const char *full, double *out, shard_diag *d);

static int lookup(void *ctx, const char *name, double *out, shard_expr_error *err) {
  eval_ctx *ec = ctx;
  int si = -1;
  const shard_param_spec *s = model_name(ec->c, name, &si);
  if (!s) {
    if (ec->load) return derived_name(name) ? SHARD_EXPR_DEFERRED : 0;
    const int r = ec->scope && ec->scope->lookup ? ec->scope->lookup(ec->scope->ctx, name, out) : 0;
    if (r == 0 && derived_name(name) && ec->scope && ec->scope->why) { /* known, but no value here */
      ec->scope->why(ec->scope->ctx, name, err->text, sizeof err->text);
      return SHARD_ERR_INPUT;
    }
    return r;
  }
  for (int i = 0; i < ec->depth; ++i)
    if (ec->stack[i] == s) {
      ec->circular = 1;
      snprintf(err->text, sizeof err->text, "circular reference through '%s'", name);
      return SHARD_ERR_INPUT;
    }
  char full[KEY_MAX];
  join(full, section((uint32_t)si)->path, s->key);
  const yt_node *n = yt_get_path(ec->c->root, full);
  const char *text = n ? n->text : s->def;
  if (!text || (n && n->kind != YT_SCALAR)) {
    snprintf(err->text, sizeof err->text, "'%.60s' has no value (%.120s is not set)", name, full);
    return SHARD_ERR_INPUT;
  }
  if (ec->depth == EVAL_DEPTH_MAX) {
    snprintf(err->text, sizeof err->text, "references nested too deeply at '%s'", name);
    return SHARD_ERR_INPUT;
  }
  /* the referenced value reports its own errors: at load time when it is
   * walked, at access time here; only a circular reference is passed up */
  int st = eval_in(ec, n, text, s, full, out, ec->load ? NULL : ec->d);
  if (st == SHARD_OK) return 1;
  if (st == SHARD_EXPR_DEFERRED) return st;
  if (ec->circular && ec->load)
    snprintf(err->text, sizeof err->text, "circular reference through '%s'", name);
  else
    err->text[0] = 0;
  return st;
}

static void value_error(shard_diag *d, const yt_node *node, const char *full, int col, const char *fmt, ...)
    SHARD_PRINTF_(5, 6);
static void value_error(shard_diag *d, const yt_node *node, const char *full, int col, const char *fmt, ...) {
  if (!d) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (node)
    yt_error(d, node->src, node->line, col > 0 ? text_col(node, col) : node->col, "%s", msg);
  else
    shard_diag_error(d, full, 0, 0, "", "%s (default value)", msg);
}

/* Unknown names are reported at load time, all of them, with a suggestion
 * among the derived names and the model's names. While the model's type is
 * itself unknown, names are not judged (that error is reported already). */
static int check_names(const eval_ctx *ec, const shard_expr *e, const yt_node *node, const char *full, shard_diag *d) {
  const slot *sl = names_slot(ec->c, NULL);
  if (!sl || !sl->specs) return SHARD_OK;
  const char *cands[128];
  char model_names[64][64];
  size_t nc = 0, nm = 0;
  for (uint32_t i = 0; i < shard_case_n_derived_names && nc < 128; ++i) cands[nc++] = shard_case_derived_names[i].name;
  for (uint32_t k = 0; k < sl->n_specs && nm < 64 && nc < 128; ++k) {
    if (!is_number_spec(&sl->specs[k])) continue;
    snprintf(model_names[nm], sizeof model_names[nm], "%s", sl->specs[k].key);
    for (char *p = model_names[nm]; *p; ++p)
      if (*p == '.') *p = '_';
    cands[nc++] = model_names[nm++];
  }
  int bad = 0, si;
  for (size_t i = 0; i < shard_expr_n_names(e); ++i) {
    int col = 0;
    const char *name = shard_expr_name(e, i, &col);
    if (derived_name(name) || model_name(ec->c, name, &si)) continue;
    const char *s = shard_suggest(name, cands, nc);
    if (s)
      value_error(d, node, full, col, "'%s': unknown name '%s' (did you mean '%s'?)", full, name, s);
    else
      value_error(d, node, full, col, "'%s': unknown name '%s'", full, name);
    bad = 1;
  }
  return bad ? SHARD_ERR_INPUT : SHARD_OK;
}

/* The shortest of %.15g and %.17g that reads back as x (-9.81, not -9.8100000000000005). */
static const char *num_str(double x, char *buf, size_t n) {
  snprintf(buf, n, "%.15g", x);
  if (strtod(buf, NULL) != x) snprintf(buf, n, "%.17g", x);
  return buf;
}

static int check_value(const yt_node *node, const shard_param_spec *spec, const char *full, double x, shard_diag *d) {
  char num[40];
  if (spec->type == SHARD_PARAM_INT && x != floor(x)) {
    value_error(d, node, full, 0, "'%s' must be an integer, got %s", full, num_str(x, num, sizeof num));
    return SHARD_ERR_INPUT;
  }
  if (spec->type == SHARD_PARAM_INT && fabs(x) > 9.2e18) { /* an integer, but beyond what an int64 holds safely */
    char range[160] = "in [-9.2e18, 9.2e18]";
    if (has_range(spec)) range_text(spec, range, sizeof range);
    value_error(d, node, full, 0, "'%s' = %s is out of range: it must be %s", full, num_str(x, num, sizeof num), range);
    return SHARD_ERR_INPUT;
  }
  if (has_range(spec) && !shard_param_admits(spec, x)) { /* x is finite here */
    char range[160];
    range_text(spec, range, sizeof range);
    value_error(d, node, full, 0, "'%s' must be %s, got %s", full, range, num_str(x, num, sizeof num));
    return SHARD_ERR_INPUT;
  }
  return SHARD_OK;
}

/* Evaluate a REAL/INT value: parse, check names (at load time), evaluate,
 * check integrality and range. Errors go to d (may be NULL) at the value's
 * location, the column inside the expression added. */
static int eval_in(eval_ctx *ec, const yt_node *node, const char *text, const shard_param_spec *spec,
                   const char *full, double *out, shard_diag *d) {
  if (yaml_non_finite(text)) {
    value_error(d, node, full, 0, "'%s': non-finite number '%s'", full, text);
    return SHARD_ERR_INPUT;
  }
  shard_expr *e = NULL;
  shard_expr_error err = {0, ""};
  int st = shard_expr_parse(text, &e, &err);
  if (st != SHARD_OK) {
    value_error(d, node, full, err.col, "'%s': %s", full, err.text);
    return st == SHARD_ERR_NOMEM ? st : SHARD_ERR_INPUT;
  }
  if (ec->load && ec->depth == 0) st = check_names(ec, e, node, full, d);
  if (st == SHARD_OK) {
    ec->stack[ec->depth++] = spec;
    st = shard_expr_eval(e, lookup, ec, out, &err);
    ec->depth--;
    if (st == SHARD_ERR_INPUT && err.text[0]) value_error(d, node, full, err.col, "'%s': %s", full, err.text);
  }
  shard_expr_destroy(e);
  return st == SHARD_OK ? check_value(node, spec, full, *out, d) : st;
}

static int eval_text(const shard_case *c, const yt_node *node, const char *text, const shard_param_spec *spec,
                     const char *full, const shard_scope *scope, int load, double *out, shard_diag *d) {
  eval_ctx ec = {.c = c, .scope = scope, .load = load, .d = d};
  int st = eval_in(&ec, node, text, spec, full, out, d);
  return st == SHARD_EXPR_DEFERRED ? SHARD_OK : st;
}

/* ---- --set key.path=value ---------------------------------------------------- */

static int valid_key_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
}

/* Check the key path of a --set argument; 0 after reporting. */
static int check_set_path(const yt_source *src, const char *arg, size_t len, shard_diag *d) {
  for (size_t i = 0, start = 0; i <= len; ++i) {
    if (i < len && arg[i] != '.') {
      if (valid_key_char(arg[i])) continue;
      yt_error(d, src, 1, (int)i + 1, "invalid character '%c' in key path (expected key.path=value)", arg[i]);
      return 0;
    }
    if (i == start) {
      yt_error(d, src, 1, (int)i + 1, "empty key in key path (expected key.path=value)");
      return 0;
    }
    start = i + 1;
  }
  return 1;
}

/* Create or replace the node at the argument's key path. */
static int put_path(shard_case *c, const yt_source *src, const char *arg, size_t len, yt_node *value) {
  yt_node *map = c->root;
  for (size_t start = 0; start < len;) {
    size_t k = start;
    while (k < len && arg[k] != '.') ++k;
    yt_node *key = yt_new_scalar(c->arena, src, 1, (int)start + 1, arg + start, k - start, 0);
    if (!key) return SHARD_ERR_NOMEM;
    if (k == len) return yt_map_put(c->arena, map, key, value);
    yt_pair *p = yt_map_find(map, key->text);
    if (!p || p->value->kind != YT_MAP) { /* the --set wins over a non-mapping */
      yt_node *sub = yt_new_map(c->arena, src, 1, (int)start + 1);
      if (!sub || yt_map_put(c->arena, map, key, sub) != SHARD_OK) return SHARD_ERR_NOMEM;
      map = sub;
    } else {
      map = p->value;
    }
    start = k + 1;
  }
  return SHARD_OK;
}

/* `key.path=null` (or `~`, not an empty value): remove the key and what it holds, so that
 * the case reads as if it had never been written (its default, or its
 * absence: an uncapped law, a contact slot the integrator does not use). A
 * key that is not there is an error: a typo must not pass silently. */
static int remove_path(shard_case *c, const yt_source *src, const char *arg, size_t len, shard_diag *d) {
  char path[512];
  if (len >= sizeof path) {
    yt_error(d, src, 1, 1, "key path too long");
    return SHARD_ERR_INPUT;
  }
  memcpy(path, arg, len);
  path[len] = '\0';
  char *dot = strrchr(path, '.');
  yt_node *parent = c->root;
  if (dot) {
    *dot = '\0';
    parent = yt_get_path(c->root, path);
  }
  const char *leaf = dot ? dot + 1 : path;
  if (!parent || parent->kind != YT_MAP || !yt_map_remove(parent, leaf)) {
    if (dot) *dot = '.';
    yt_error(d, src, 1, 1, "'%s' is not in the case, so it cannot be removed ('%s=null' removes a key)", path, path);
    return SHARD_ERR_INPUT;
  }
  return SHARD_OK;
}

static int apply_set(shard_case *c, const char *arg, shard_diag *d) {
  yt_source *src = yt_alloc(c->arena, sizeof *src);
  size_t n = strlen(arg) + 16;
  char *name = yt_alloc(c->arena, n);
  if (!src || !name) return SHARD_ERR_NOMEM;
  snprintf(name, n, "--set '%s'", arg);
  shard_diag_add_source(d, name);
  src->name = name;
  src->text = arg;
  src->len = strlen(arg);
  const char *eq = strchr(arg, '=');
  if (!eq) {
    yt_error(d, src, 1, (int)src->len + 1, "expected key.path=value");
    return SHARD_ERR_INPUT;
  }
  size_t klen = (size_t)(eq - arg);
  if (!check_set_path(src, arg, klen, d)) return SHARD_ERR_INPUT;
  src->col_offset = (int)klen + 1;
  yt_node *value = NULL;
  int st = yt_load_buffer(c->arena, src, eq + 1, strlen(eq + 1), &value, d);
  if (st != SHARD_OK) return st;
  if (yt_is_explicit_null(value)) return remove_path(c, src, arg, klen, d);
  return put_path(c, src, arg, klen, value);
}

/* ---- load -------------------------------------------------------------------- */

int shard_case_load(const char *path, const char *const *sets, int n_sets, const shard_registry *reg,
                    shard_case **out, shard_diag *diag) {
  *out = NULL;
  shard_case *c = calloc(1, sizeof *c + shard_case_n_sections * sizeof(slot));
  if (!c || !(c->path = strdup(path)) || !(c->arena = yt_arena_create())) {
    shard_case_destroy(c);
    shard_diag_error(diag, path, 0, 0, "", "out of memory");
    return SHARD_ERR_NOMEM;
  }
  c->reg = reg;
  int before = shard_diag_count(diag);
  shard_diag_add_source(diag, path);
  int st = yt_load_file(c->arena, path, "case file", &c->root, diag);
  if (st == SHARD_OK && c->root->kind == YT_MAP)
    for (int i = 0; i < n_sets; ++i)
      if (apply_set(c, sets[i], diag) == SHARD_ERR_NOMEM) st = SHARD_ERR_NOMEM;
  if (st == SHARD_OK) {
    vctx v = {.c = c, .d = diag};
    validate_root(&v);
    resolve_defaults(c);
    if (v.nomem) st = SHARD_ERR_NOMEM; /* reported where it happened */
  }
  for (uint32_t i = 0; st == SHARD_OK && i < shard_case_n_sections; ++i) {
    slot *sl = &c->slots[i];
    const shard_case_section *s = section(i);
    if (sl->n_specs && !(sl->values = calloc(sl->n_specs, sizeof *sl->values))) st = SHARD_ERR_NOMEM;
    if (st == SHARD_OK && s->n_specs && !(sl->host_values = calloc(s->n_specs, sizeof *sl->host_values)))
      st = SHARD_ERR_NOMEM;
  }
  if (st == SHARD_ERR_NOMEM && shard_diag_count(diag) == before) shard_diag_error(diag, path, 0, 0, "", "out of memory");
  shard_diag_sort(diag);
  if (st == SHARD_OK && shard_diag_count(diag) > before) st = SHARD_ERR_INPUT;
  if (st != SHARD_OK) {
    shard_case_destroy(c);
    return st;
  }
  *out = c;
  return SHARD_OK;
}

void shard_case_destroy(shard_case *c) {
  if (!c) return;
  for (uint32_t i = 0; i < shard_case_n_sections; ++i) free(c->slots[i].values), free(c->slots[i].host_values);
  yt_arena_destroy(c->arena);
  free(c->path);
  free(c);
}

const char *shard_case_path(const shard_case *c) { return c->path; }

void shard_case_error_at(const shard_case *c, const char *path, shard_diag *d, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  const yt_node *n = yt_get_path(c->root, path);
  if (n)
    yt_error_at(d, n, "%s", text);
  else
    shard_diag_error(d, c->path, 0, 0, NULL, "%s", text);
}

/* ---- access ------------------------------------------------------------------- */

static int section_index(const char *path) {
  for (uint32_t i = 0; i < shard_case_n_sections; ++i)
    if (strcmp(section(i)->path, path) == 0) return (int)i;
  return -1;
}

/* The selector's own spec: a string, default from the section. */
typedef struct key_ref {
  int si;                        /* owning section */
  const char *rel;               /* key inside it */
  const shard_param_spec *spec;  /* NULL for the selector or the section itself */
  int is_selector;
} key_ref;

static int find_key(const shard_case *c, const char *path, key_ref *out) {
  memset(out, 0, sizeof *out);
  out->si = -1;
  size_t best = 0;
  for (uint32_t i = 0; i < shard_case_n_sections; ++i) {
    size_t n = strlen(section(i)->path);
    if (out->si >= 0 && n < best) continue;
    if (n == 0 || has_prefix(path, section(i)->path, n)) {
      out->si = (int)i;
      out->rel = n ? path + n + 1 : path;
      best = n;
    }
  }
  if (out->si < 0) return 0;
  const shard_case_section *s = section((uint32_t)out->si);
  const slot *sl = &c->slots[out->si];
  if (s->selector && strcmp(out->rel, s->selector) == 0) return out->is_selector = 1;
  const shard_param_spec *tables[2] = {s->specs, sl->specs};
  uint32_t counts[2] = {s->n_specs, sl->n_specs};
  for (int t = 0; t < 2; ++t)
    for (uint32_t k = 0; k < counts[t]; ++k)
      if (strcmp(tables[t][k].key, out->rel) == 0) return (out->spec = &tables[t][k]) != NULL;
  return 0;
}

/* Plain sections always apply (defaults); a variant section when present or defaulted. */
static int section_active(const shard_case *c, int si) {
  return c->slots[si].present || c->slots[si].variant != NULL || !section((uint32_t)si)->selector;
}

/* The text of a key (given or default) and its node (NULL for defaults). */
static const char *key_text(const shard_case *c, const char *path, const key_ref *k, const yt_node **node) {
  *node = NULL;
  if (k->si < 0 || !section_active(c, k->si)) return NULL;
  if (k->is_selector) return c->slots[k->si].variant;
  const yt_node *n = yt_get_path(c->root, path);
  if (n && n->kind == YT_SCALAR && !yt_is_null(n)) {
    *node = n;
    return n->text;
  }
  if (n && n->kind == YT_SEQ && k->spec && (k->spec->flags & SHARD_PARAM_LIST)) {
    *node = n; /* a list (validated at load): the caller reads its items */
    return "";
  }
  return k->spec ? k->spec->def : NULL;
}

int shard_case_has(const shard_case *c, const char *path) {
  int si = section_index(path);
  if (si >= 0) return section_active(c, si);
  key_ref k;
  const yt_node *n;
  return find_key(c, path, &k) && key_text(c, path, &k, &n) != NULL;
}

static int numeric(const shard_case *c, const char *path, const shard_scope *scope, double *out, shard_diag *diag) {
  key_ref k;
  const yt_node *node;
  if (!find_key(c, path, &k) || !k.spec || (k.spec->type != SHARD_PARAM_REAL && k.spec->type != SHARD_PARAM_INT)) {
    shard_diag_error(diag, c->path, 0, 0, "", "'%s' is not a numeric key of this case", path);
    return SHARD_ERR_INPUT;
  }
  const char *text = key_text(c, path, &k, &node);
  if (!text) {
    shard_diag_error(diag, c->path, 0, 0, "", "'%s' is not set", path);
    return SHARD_ERR_INPUT;
  }
  if (node && node->kind == YT_SEQ) {
    if (node->n != 1) {
      yt_error_at(diag, node, "'%s' takes one value here, not a list of %zu", path, node->n);
      return SHARD_ERR_INPUT;
    }
    node = node->items[0];
    text = node->text;
  }
  return eval_text(c, node, text, k.spec, path, scope, 0, out, diag);
}

int shard_case_real_list(const shard_case *c, const char *path, const shard_scope *scope, double *out, int max,
                         int *count, shard_diag *diag) {
  key_ref k;
  const yt_node *node;
  *count = 0;
  if (!find_key(c, path, &k) || !k.spec || !(k.spec->flags & SHARD_PARAM_LIST)) {
    shard_diag_error(diag, c->path, 0, 0, "", "'%s' is not a list key of this case", path);
    return SHARD_ERR_INPUT;
  }
  const char *text = key_text(c, path, &k, &node);
  if (!text) return SHARD_OK;
  if (!node || node->kind != YT_SEQ) {
    if (max < 1) return SHARD_ERR_INPUT;
    const int st = eval_text(c, node, text, k.spec, path, scope, 0, out, diag);
    if (st == SHARD_OK) *count = 1;
    return st;
  }
  if (node->n > (size_t)max) {
    yt_error_at(diag, node, "'%s' has %zu values, at most %d are accepted", path, node->n, max);
    return SHARD_ERR_INPUT;
  }
  for (size_t i = 0; i < node->n; ++i) {
    const int st = eval_text(c, node->items[i], node->items[i]->text, k.spec, path, scope, 0, &out[i], diag);
    if (st != SHARD_OK) return st;
  }
  *count = (int)node->n;
  return SHARD_OK;
}

int shard_case_real(const shard_case *c, const char *path, const shard_scope *scope, double *out, shard_diag *diag) {
  return numeric(c, path, scope, out, diag);
}

int shard_case_int(const shard_case *c, const char *path, const shard_scope *scope, long long *out, shard_diag *diag) {
  double x = 0;
  int st = numeric(c, path, scope, &x, diag);
  if (st == SHARD_OK) *out = (long long)x;
  return st;
}

int shard_case_bool(const shard_case *c, const char *path) {
  key_ref k;
  const yt_node *node;
  const char *text = find_key(c, path, &k) ? key_text(c, path, &k, &node) : NULL;
  return text && strcmp(text, "true") == 0;
}

const char *shard_case_string(const shard_case *c, const char *path) {
  key_ref k;
  const yt_node *node;
  return find_key(c, path, &k) ? key_text(c, path, &k, &node) : NULL;
}

/* The specs of section `base` resolved into vals: defaults filled in,
 * expressions evaluated in scope, a list key's values into case storage. */
/* the status of two failures together: out of memory is not bad input */
static int worse(int st, int e) {
  if (e == SHARD_OK) return st;
  return st == SHARD_ERR_NOMEM || e == SHARD_ERR_NOMEM ? SHARD_ERR_NOMEM : SHARD_ERR_INPUT;
}

static int resolve_values(const shard_case *c, const char *base, const shard_param_spec *specs, uint32_t n,
                          shard_param_value *vals, const shard_scope *scope, shard_diag *diag) {
  int st = SHARD_OK;
  for (uint32_t i = 0; i < n; ++i) {
    const shard_param_spec *s = &specs[i];
    shard_param_value *v = &vals[i];
    char full[KEY_MAX];
    join(full, base, s->key);
    const yt_node *n0 = yt_get_path(c->root, full);
    const yt_node *seq = n0 && n0->kind == YT_SEQ && (s->flags & SHARD_PARAM_LIST) ? n0 : NULL;
    const yt_node *nd = n0 && n0->kind == YT_SCALAR && !yt_is_null(n0) ? n0 : NULL;
    const char *text = nd ? nd->text : seq ? "" : s->def;
    memset(v, 0, sizeof *v);
    if (!text) continue;
    v->set = 1;
    v->string = text;
    v->boolean = strcmp(text, "true") == 0;
    if (s->type != SHARD_PARAM_REAL && s->type != SHARD_PARAM_INT) continue;
    if (seq) { /* a list: every item, the first also as the value */
      double *items = seq->n ? yt_alloc(c->arena, seq->n * sizeof *items) : NULL;
      if (seq->n && !items) return SHARD_ERR_NOMEM;
      for (size_t k = 0; k < seq->n; ++k)
        st = worse(st, eval_text(c, seq->items[k], seq->items[k]->text, s, full, scope, 0, &items[k], diag));
      v->list = items, v->n_list = (uint32_t)seq->n;
      v->set = seq->n > 0;
      v->real = seq->n ? items[0] : 0.0;
    } else {
      st = worse(st, eval_text(c, nd, text, s, full, scope, 0, &v->real, diag));
      v->list = &v->real, v->n_list = 1;
    }
    v->integer = (long long)v->real;
  }
  return st;
}

int shard_case_plugin(const shard_case *c, const char *slot_path, const shard_scope *scope,
                      const shard_loaded_plugin **out_plugin, shard_params *out_params, shard_diag *diag) {
  int si = section_index(slot_path);
  const slot *sl = si >= 0 ? &c->slots[si] : NULL;
  if (!sl || section((uint32_t)si)->plugin_kind <= 0) {
    shard_diag_error(diag, c->path, 0, 0, "", "'%s' is not a plugin slot", slot_path);
    return SHARD_ERR_INPUT;
  }
  if (!sl->plugin) {
    /* out of memory loading the plugin (an absent section's default, which
     * resolves quietly): not the case's fault */
    const char *name = sl->variant ? sl->variant : section((uint32_t)si)->default_variant;
    if (name && c->reg && shard_registry_why_status(c->reg, name) == SHARD_ERR_NOMEM) return SHARD_ERR_NOMEM;
    if (sl->present || section((uint32_t)si)->default_variant)
      shard_diag_error(diag, c->path, 0, 0, "", "'%s': plugin '%s' is not loaded", slot_path,
                       sl->variant ? sl->variant : section((uint32_t)si)->default_variant);
    else
      shard_diag_error(diag, c->path, 0, 0, "", "'%s' is not set", slot_path);
    return SHARD_ERR_INPUT;
  }
  const int st = resolve_values(c, slot_path, sl->specs, sl->n_specs, sl->values, scope, diag);
  if (st != SHARD_OK) return st;
  *out_plugin = sl->plugin;
  *out_params = (shard_params){sl->specs, sl->n_specs, sl->values};
  return SHARD_OK;
}

int shard_case_model_params(const shard_case *c, const shard_scope *scope, shard_params *model_out,
                            shard_params *fracture_out, const shard_params **fracture, shard_diag *diag) {
  *fracture = NULL;
  int st = shard_case_section_params(c, "model", 0, scope, model_out, diag);
  if (st != SHARD_OK) return st == SHARD_ERR_NOMEM ? st : SHARD_ERR_INPUT;
  if (!shard_case_has(c, "fracture")) return SHARD_OK;
  st = shard_case_section_params(c, "fracture", 1, scope, fracture_out, diag);
  if (st != SHARD_OK) return st == SHARD_ERR_NOMEM ? st : SHARD_ERR_INPUT;
  *fracture = fracture_out;
  return SHARD_OK;
}

uint32_t shard_case_section_specs(const shard_case *c, const char *path, int host, const shard_param_spec **out) {
  const int si = section_index(path);
  *out = NULL;
  if (si < 0 || !section_active(c, si)) return 0;
  const shard_case_section *s = section((uint32_t)si);
  *out = host ? s->specs : c->slots[si].specs;
  return host ? s->n_specs : c->slots[si].n_specs;
}

int shard_case_section_params(const shard_case *c, const char *path, int host, const shard_scope *scope,
                              shard_params *out, shard_diag *diag) {
  const int si = section_index(path);
  if (si < 0 || !section_active(c, si)) {
    shard_diag_error(diag, c->path, 0, 0, "", "'%s' is not a section of this case", path);
    return SHARD_ERR_INPUT;
  }
  const slot *sl = &c->slots[si];
  const shard_case_section *s = section((uint32_t)si);
  const shard_param_spec *specs = host ? s->specs : sl->specs;
  const uint32_t n = host ? s->n_specs : sl->n_specs;
  shard_param_value *vals = host ? sl->host_values : sl->values;
  const int st = n ? resolve_values(c, path, specs, n, vals, scope, diag) : SHARD_OK;
  if (st != SHARD_OK) return st;
  *out = (shard_params){specs, n, vals};
  return SHARD_OK;
}

/* ---- the resolved case ------------------------------------------------------ */

/* A plain scalar is written as is when YAML reads it back the same way. */
static int plain_safe(const char *t) {
  size_t n = strlen(t);
  if (!n || strchr("!&*?:,[]{}#|>@`\"'% ", *t) || (*t == '-' && (t[1] == ' ' || !t[1]))) return 0;
  return !strchr(" :", t[n - 1]) && !strpbrk(t, "\n\t") && !strstr(t, ": ") && !strstr(t, " #");
}

static void write_scalar(FILE *out, const yt_node *n) {
  if (!n->quoted && plain_safe(n->text)) {
    fputs(n->text, out);
    return;
  }
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)n->text; *p; ++p) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", out);
    else if (*p < 0x20)
      fprintf(out, "\\x%02x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

static void write_map(FILE *out, const yt_node *map, int indent) {
  for (size_t i = 0; i < map->n; ++i) {
    const yt_node *v = map->pairs[i].value;
    fprintf(out, "%*s%s:", indent, "", map->pairs[i].key->text);
    if (v->kind == YT_MAP) {
      fputc('\n', out);
      write_map(out, v, indent + 2);
    } else if (v->kind == YT_SEQ) { /* a list of scalars, in flow style */
      fputs(" [", out);
      for (size_t j = 0; j < v->n; ++j) {
        if (j) fputs(", ", out);
        write_scalar(out, v->items[j]);
      }
      fputs("]\n", out);
    } else {
      fputc(' ', out);
      write_scalar(out, v);
      if (v->note) fprintf(out, "  # %s", v->note);
      fputc('\n', out);
    }
  }
}

/* Put a scalar at a dotted path of the output tree; returns it (NULL: no memory). */
static yt_node *put_resolved(yt_arena *a, yt_node *root, const char *path, const char *text, int quoted) {
  yt_node *map = root;
  while (1) {
    size_t k = strcspn(path, ".");
    yt_node *key = yt_new_scalar(a, NULL, 0, 0, path, k, 0);
    if (!key) return NULL;
    if (!path[k]) {
      yt_node *v = yt_new_scalar(a, NULL, 0, 0, text, strlen(text), quoted);
      return v && yt_map_put(a, map, key, v) == SHARD_OK ? v : NULL;
    }
    yt_pair *p = yt_map_find(map, key->text);
    if (!p) {
      yt_node *sub = yt_new_map(a, NULL, 0, 0);
      if (!sub || yt_map_put(a, map, key, sub) != SHARD_OK) return NULL;
      map = sub;
    } else {
      map = p->value;
    }
    path += k + 1;
  }
}

/* "= value" of an expression (not of a plain number) that evaluates in scope, else NULL */
static const char *expression_note(const shard_case *c, yt_arena *a, const yt_node *node, const char *text,
                                   const shard_param_spec *spec, const char *full, const shard_scope *scope) {
  char *end, buf[48] = "= ";
  double x;
  strtod(text, &end);
  if (!is_number_spec(spec) || !*end || eval_text(c, node, text, spec, full, scope, 0, &x, NULL) != SHARD_OK)
    return NULL;
  snprintf(buf + 2, sizeof buf - 2, "%.15g", x);
  return yt_strndup(a, buf, strlen(buf));
}

static int resolve_specs(const shard_case *c, const shard_scope *scope, yt_arena *a, yt_node *out, const char *base,
                         const shard_param_spec *specs, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    char full[KEY_MAX];
    join(full, base, specs[i].key);
    const yt_node *node = yt_get_path(c->root, full);
    if (node && node->kind == YT_SEQ && (specs[i].flags & SHARD_PARAM_LIST)) {
      /* a list: the key gets a copy of the sequence of scalars */
      yt_node *v = put_resolved(a, out, full, "", 0);
      if (!v) return SHARD_ERR_NOMEM;
      v->kind = YT_SEQ;
      v->items = node->items;
      v->n = node->n;
      continue;
    }
    if (node && (node->kind != YT_SCALAR || yt_is_null(node))) node = NULL;
    const char *text = node ? node->text : specs[i].def;
    if (!text) continue;
    yt_node *v = put_resolved(a, out, full, text, node ? node->quoted : 0);
    if (!v) return SHARD_ERR_NOMEM;
    v->note = expression_note(c, a, node, text, &specs[i], full, scope);
  }
  return SHARD_OK;
}

int shard_case_write_resolved_scope(const shard_case *c, const shard_scope *scope, FILE *out) {
  yt_arena *a = yt_arena_create();
  yt_node *root = a ? yt_new_map(a, NULL, 0, 0) : NULL;
  int st = root ? SHARD_OK : SHARD_ERR_NOMEM;
  for (uint32_t i = 0; st == SHARD_OK && i < shard_case_n_sections; ++i) {
    const shard_case_section *s = section(i);
    const slot *sl = &c->slots[i];
    if (*s->path && !section_active(c, (int)i)) continue;
    if (s->selector && sl->variant) {
      char full[KEY_MAX];
      join(full, s->path, s->selector);
      if (!put_resolved(a, root, full, sl->variant, 0)) st = SHARD_ERR_NOMEM;
    }
    if (st == SHARD_OK) st = resolve_specs(c, scope, a, root, s->path, s->specs, s->n_specs);
    if (st == SHARD_OK) st = resolve_specs(c, scope, a, root, s->path, sl->specs, sl->n_specs);
  }
  if (st == SHARD_OK) {
    fprintf(out, "# resolved case: %s (every key, defaults filled in)\n", c->path);
    write_map(out, root, 0);
    if (ferror(out)) st = SHARD_ERR_IO;
  }
  yt_arena_destroy(a);
  return st;
}

int shard_case_write_resolved(const shard_case *c, FILE *out) { return shard_case_write_resolved_scope(c, NULL, out); }
