/* host: the case format as a JSON Schema (draft 2020-12) and as Markdown
 * tables, both generated from shard_case_sections and the registry's
 * plugins, so that editors, docs and the validator never disagree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case/schema.h"

#include "case/case.h"

#define SCHEMA_ID "https://shard.invalid/schemas/case.schema.json"
#define KEY_MAX 256
#define ITEMS_MAX 128

/* One property of an object: a parameter, a section, or a selector whose
 * value is fixed to `selector_value` (inside a variant's branch). */
typedef struct item {
  const char *key;
  const shard_param_spec *spec;
  int section;
  const char *selector_value;
  int required;
} item;

typedef struct item_list {
  item v[ITEMS_MAX];
  size_t n;
} item_list;

static void add_item(item_list *l, item it) {
  if (l->n < ITEMS_MAX) l->v[l->n++] = it;
}

static void add_spec_items(item_list *l, const shard_param_spec *specs, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    add_item(l, (item){specs[i].key, &specs[i], -1, NULL, (specs[i].flags & SHARD_PARAM_REQUIRED) != 0});
}

/* ---- JSON output ---------------------------------------------------------------- */

static void json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", out);
    else if (*p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

static void indent(FILE *out, int ind) { fprintf(out, "\n%*s", ind, ""); }

/* `"key": ` on a new line, with a comma unless first */
static void json_key(FILE *out, int ind, int *first, const char *key) {
  if (!*first) fputc(',', out);
  *first = 0;
  indent(out, ind);
  json_str(out, key);
  fputs(": ", out);
}

static void json_num(FILE *out, double v) { fprintf(out, "%.15g", v); }

static int has_unit(const shard_param_spec *s) { return s->unit && *s->unit && strcmp(s->unit, "1") != 0; }

static void json_description(FILE *out, int ind, int *first, const char *doc, const char *unit) {
  if (!doc) return;
  char buf[1024];
  if (unit)
    snprintf(buf, sizeof buf, "%s [%s]", doc, unit);
  else
    snprintf(buf, sizeof buf, "%s", doc);
  json_key(out, ind, first, "description");
  json_str(out, buf);
}

static void json_choices(FILE *out, const char *choices) {
  fputc('[', out);
  for (const char *p = choices; *p;) {
    size_t k = strcspn(p, "|");
    char buf[128];
    snprintf(buf, sizeof buf, "%.*s", (int)k, p);
    json_str(out, buf);
    p += k;
    if (*p == '|' && *++p) fputs(", ", out);
  }
  fputc(']', out);
}

static void json_default(FILE *out, int ind, int *first, const shard_param_spec *s) {
  if (!s->def) return;
  if (s->type == SHARD_PARAM_REAL || s->type == SHARD_PARAM_INT) {
    char *end;
    double v = strtod(s->def, &end);
    if (*end || !isfinite(v)) return; /* an expression default: not a JSON number */
    json_key(out, ind, first, "default");
    json_num(out, v);
  } else if (s->type == SHARD_PARAM_BOOL) {
    json_key(out, ind, first, "default");
    fputs(strcmp(s->def, "true") == 0 ? "true" : "false", out);
  } else {
    json_key(out, ind, first, "default");
    json_str(out, s->def);
  }
}

/* {"type": "number", "minimum": ...}: the range as JSON Schema keywords */
static void json_number_branch(FILE *out, int ind, const shard_param_spec *s) {
  int first = 1;
  fputc('{', out);
  json_key(out, ind + 2, &first, "type");
  json_str(out, s->type == SHARD_PARAM_INT ? "integer" : "number");
  if (isfinite(s->min)) {
    json_key(out, ind + 2, &first, (s->flags & SHARD_PARAM_MIN_EXCLUSIVE) ? "exclusiveMinimum" : "minimum");
    json_num(out, s->min);
  }
  if (isfinite(s->max)) {
    json_key(out, ind + 2, &first, (s->flags & SHARD_PARAM_MAX_EXCLUSIVE) ? "exclusiveMaximum" : "maximum");
    json_num(out, s->max);
  }
  indent(out, ind);
  fputc('}', out);
}

static void json_leaf(FILE *out, int ind, const shard_param_spec *s) {
  int first = 1;
  fputc('{', out);
  json_description(out, ind + 2, &first, s->doc, has_unit(s) ? s->unit : NULL);
  switch (s->type) {
  case SHARD_PARAM_REAL:
  case SHARD_PARAM_INT:
    json_key(out, ind + 2, &first, "anyOf");
    fputc('[', out);
    indent(out, ind + 4);
    json_number_branch(out, ind + 4, s);
    fputc(',', out);
    indent(out, ind + 4);
    fputs("{\"type\": \"string\", \"description\": \"an expression, e.g. 0.5 * dt_c\"}", out);
    if (s->flags & SHARD_PARAM_LIST) { /* or a non-empty list of either */
      fputc(',', out);
      indent(out, ind + 4);
      fputs("{\"type\": \"array\", \"minItems\": 1, \"items\": {\"anyOf\": [", out);
      json_number_branch(out, ind + 6, s);
      fputs(", {\"type\": \"string\"}]}}", out);
    }
    indent(out, ind + 2);
    fputc(']', out);
    break;
  case SHARD_PARAM_BOOL:
    json_key(out, ind + 2, &first, "type");
    json_str(out, "boolean");
    break;
  case SHARD_PARAM_CHOICE:
    json_key(out, ind + 2, &first, "enum");
    json_choices(out, s->choices ? s->choices : "");
    break;
  default:
    json_key(out, ind + 2, &first, "type");
    json_str(out, "string");
    break;
  }
  json_default(out, ind + 2, &first, s);
  indent(out, ind);
  fputc('}', out);
}

/* ---- objects with dotted keys ------------------------------------------------------ */

static int has_prefix(const char *key, const char *prefix, size_t n) {
  return strncmp(key, prefix, n) == 0 && key[n] == '.';
}

/* The distinct first components of the items under `prefix`. */
static size_t level_keys(const item_list *l, const char *prefix, char (*out)[64], size_t max) {
  size_t plen = strlen(prefix), n = 0;
  for (size_t i = 0; i < l->n && n < max; ++i) {
    const char *k = l->v[i].key;
    if (plen && !has_prefix(k, prefix, plen - 1)) continue;
    k += plen;
    size_t len = strcspn(k, ".");
    size_t j = 0;
    while (j < n && !(strncmp(out[j], k, len) == 0 && out[j][len] == 0)) ++j;
    if (j < n || len >= 64) continue;
    memcpy(out[n], k, len);
    out[n++][len] = 0;
  }
  return n;
}

static const item *find_item(const item_list *l, const char *key) {
  for (size_t i = 0; i < l->n; ++i)
    if (strcmp(l->v[i].key, key) == 0) return &l->v[i];
  return NULL;
}

static void json_section(FILE *out, int ind, const shard_registry *reg, int si);

/* An object schema for the items under prefix; `head` (NULL or key, value,
 * ..., NULL) adds string members first. */
static void json_object(FILE *out, int ind, const shard_registry *reg, const item_list *l, const char *prefix,
                        const char *doc, const char *const *head) {
  char keys[64][64];
  size_t n = level_keys(l, prefix, keys, 64);
  int first = 1, any_required = 0;
  fputc('{', out);
  for (; head && head[0]; head += 2) {
    json_key(out, ind + 2, &first, head[0]);
    json_str(out, head[1]);
  }
  json_description(out, ind + 2, &first, doc, NULL);
  json_key(out, ind + 2, &first, "type");
  json_str(out, "object");
  json_key(out, ind + 2, &first, "additionalProperties");
  fputs("false", out);
  json_key(out, ind + 2, &first, "properties");
  fputc('{', out);
  int pfirst = 1;
  for (size_t i = 0; i < n; ++i) {
    char full[KEY_MAX];
    snprintf(full, sizeof full, "%.190s%.63s", prefix, keys[i]);
    const item *it = find_item(l, full);
    json_key(out, ind + 4, &pfirst, keys[i]);
    if (it && it->section >= 0) {
      json_section(out, ind + 4, reg, it->section);
    } else if (it && it->selector_value) {
      fputs("{\"const\": ", out);
      json_str(out, it->selector_value);
      fputc('}', out);
    } else if (it) {
      json_leaf(out, ind + 4, it->spec);
    } else {
      char sub[KEY_MAX];
      snprintf(sub, sizeof sub, "%.250s.", full);
      json_object(out, ind + 4, reg, l, sub, NULL, NULL);
    }
    if (it && it->required) any_required = 1;
  }
  indent(out, ind + 2);
  fputc('}', out);
  if (any_required) {
    json_key(out, ind + 2, &first, "required");
    fputc('[', out);
    int rfirst = 1;
    for (size_t i = 0; i < n; ++i) {
      char full[KEY_MAX];
      snprintf(full, sizeof full, "%.190s%.63s", prefix, keys[i]);
      const item *it = find_item(l, full);
      if (!it || !it->required) continue;
      if (!rfirst) fputs(", ", out);
      rfirst = 0;
      json_str(out, keys[i]);
    }
    fputc(']', out);
  }
  indent(out, ind);
  fputc('}', out);
}

/* ---- sections ---------------------------------------------------------------------- */

typedef struct variant_view {
  const char *name, *doc;
  const shard_param_spec *specs;
  uint32_t n_specs;
} variant_view;

static size_t variants_of(const shard_registry *reg, const shard_case_section *s, variant_view *out, size_t max) {
  size_t n = 0;
  if (s->plugin_kind > 0) {
    for (size_t i = 0; reg && i < shard_registry_count(reg) && n < max; ++i) {
      const shard_plugin *d = shard_registry_at(reg, i)->desc;
      if ((int)d->kind == s->plugin_kind) out[n++] = (variant_view){d->name, d->summary, d->params, d->n_params};
    }
  } else {
    for (uint32_t i = 0; i < s->n_variants && n < max; ++i)
      out[n++] = (variant_view){s->variants[i].name, s->variants[i].doc, s->variants[i].specs, s->variants[i].n_specs};
  }
  return n;
}

static void json_plain_section(FILE *out, int ind, const shard_registry *reg, const shard_case_section *s) {
  item_list l = {.n = 0};
  add_spec_items(&l, s->specs, s->n_specs);
  json_object(out, ind, reg, &l, "", s->doc, NULL);
}

/* A variant section: the selector's enum, then one if/then branch per variant
 * holding the selector, the host keys and the variant's keys. */
static void json_variant_section(FILE *out, int ind, const shard_registry *reg, const shard_case_section *s) {
  variant_view vs[64];
  size_t nv = variants_of(reg, s, vs, 64);
  int first = 1;
  fputc('{', out);
  json_description(out, ind + 2, &first, s->doc, NULL);
  json_key(out, ind + 2, &first, "type");
  json_str(out, "object");
  json_key(out, ind + 2, &first, "properties");
  fputc('{', out);
  int pfirst = 1;
  json_key(out, ind + 4, &pfirst, s->selector);
  fputs("{\"enum\": [", out);
  for (size_t i = 0; i < nv; ++i) {
    if (i) fputs(", ", out);
    json_str(out, vs[i].name);
  }
  fputs("]}", out);
  indent(out, ind + 2);
  fputc('}', out);
  if (!s->default_variant) {
    json_key(out, ind + 2, &first, "required");
    fputc('[', out);
    json_str(out, s->selector);
    fputc(']', out);
  }
  json_key(out, ind + 2, &first, "allOf");
  fputc('[', out);
  for (size_t i = 0; i < nv; ++i) {
    int dflt = s->default_variant && strcmp(s->default_variant, vs[i].name) == 0;
    indent(out, ind + 4);
    fputs("{\"if\": {\"properties\": {", out);
    json_str(out, s->selector);
    fputs(": {\"const\": ", out);
    json_str(out, vs[i].name);
    fputs("}}", out);
    if (!dflt) {
      fputs(", \"required\": [", out);
      json_str(out, s->selector);
      fputc(']', out);
    }
    fputs("},", out);
    indent(out, ind + 5);
    fputs("\"then\": ", out);
    item_list l = {.n = 0};
    add_item(&l, (item){s->selector, NULL, -1, vs[i].name, !dflt});
    add_spec_items(&l, s->specs, s->n_specs);
    add_spec_items(&l, vs[i].specs, vs[i].n_specs);
    json_object(out, ind + 5, reg, &l, "", vs[i].doc, NULL);
    fputc('}', out);
    if (i + 1 < nv) fputc(',', out);
  }
  indent(out, ind + 2);
  fputc(']', out);
  indent(out, ind);
  fputc('}', out);
}

static void json_section(FILE *out, int ind, const shard_registry *reg, int si) {
  const shard_case_section *s = &shard_case_sections[si];
  if (s->selector)
    json_variant_section(out, ind, reg, s);
  else
    json_plain_section(out, ind, reg, s);
}

int shard_schema_write_case(const shard_registry *reg, FILE *out) {
  item_list l = {.n = 0};
  for (uint32_t i = 0; i < shard_case_n_sections; ++i) {
    const shard_case_section *s = &shard_case_sections[i];
    if (*s->path)
      add_item(&l, (item){s->path, NULL, (int)i, NULL, (s->flags & SHARD_SECTION_REQUIRED) != 0});
    else
      add_spec_items(&l, s->specs, s->n_specs);
  }
  static const char *const head[] = {"$schema", "https://json-schema.org/draft/2020-12/schema", "$id", SCHEMA_ID,
                                     "title", "shard case file", NULL};
  json_object(out, 0, reg, &l, "", "A shard case: the model, the plugins and their parameters, time stepping, outputs.",
              head);
  fputc('\n', out);
  return ferror(out) ? SHARD_ERR_IO : SHARD_OK;
}

/* ---- Markdown ------------------------------------------------------------------------ */

const char *shard_param_type_name(shard_param_type t) {
  static const char *const names[] = {[SHARD_PARAM_REAL] = "real", [SHARD_PARAM_INT] = "int",
                                      [SHARD_PARAM_BOOL] = "bool", [SHARD_PARAM_STRING] = "string",
                                      [SHARD_PARAM_CHOICE] = "choice"};
  return t >= SHARD_PARAM_REAL && t <= SHARD_PARAM_CHOICE ? names[t] : "?";
}

static void md_bound(double v, char *buf, size_t n) {
  if (isinf(v))
    snprintf(buf, n, "%sinf", v < 0 ? "-" : "");
  else
    snprintf(buf, n, "%g", v);
}

void shard_param_range_text(const shard_param_spec *s, char *buf, size_t n) {
  if (s->type == SHARD_PARAM_CHOICE) {
    size_t k = 0;
    for (const char *p = s->choices ? s->choices : ""; *p && k + 4 < n; ++p)
      k += (size_t)snprintf(buf + k, n - k, *p == '|' ? ", " : "%c", *p);
    buf[k] = 0;
    return;
  }
  if (s->type != SHARD_PARAM_REAL && s->type != SHARD_PARAM_INT) {
    snprintf(buf, n, "-");
    return;
  }
  if (isinf(s->min) && s->min < 0 && isinf(s->max) && s->max > 0) {
    snprintf(buf, n, "any");
    return;
  }
  char lo[40], hi[40];
  md_bound(s->min, lo, sizeof lo);
  md_bound(s->max, hi, sizeof hi);
  int xlo = (s->flags & SHARD_PARAM_MIN_EXCLUSIVE) || isinf(s->min);
  int xhi = (s->flags & SHARD_PARAM_MAX_EXCLUSIVE) || isinf(s->max);
  snprintf(buf, n, "%s%s, %s%s", xlo ? "(" : "[", lo, hi, xhi ? ")" : "]");
}

static void md_cell(FILE *out, const char *s) {
  fputs("| ", out);
  for (; *s; ++s) {
    if (*s == '|') fputc('\\', out);
    fputc(*s, out);
  }
  fputc(' ', out);
}

void shard_param_table_markdown(FILE *out, const shard_param_spec *specs, uint32_t n) {
  if (n == 0) {
    fputs("No parameters.\n\n", out);
    return;
  }
  fputs("| key | type | default | range | unit | required | description |\n|---|---|---|---|---|---|---|\n", out);
  for (uint32_t i = 0; i < n; ++i) {
    const shard_param_spec *s = &specs[i];
    char key[KEY_MAX], def[KEY_MAX], range[256];
    snprintf(key, sizeof key, "`%s`", s->key);
    if (s->def)
      snprintf(def, sizeof def, "`%s`", s->def);
    else
      snprintf(def, sizeof def, "-");
    shard_param_range_text(s, range, sizeof range);
    md_cell(out, key);
    char type[64];
    snprintf(type, sizeof type, "%s%s", shard_param_type_name(s->type),
             (s->flags & SHARD_PARAM_LIST) ? " or list" : "");
    md_cell(out, type);
    md_cell(out, def);
    md_cell(out, range);
    md_cell(out, s->unit && *s->unit ? s->unit : "-");
    md_cell(out, (s->flags & SHARD_PARAM_REQUIRED) ? "yes" : "no");
    md_cell(out, s->doc ? s->doc : "");
    fputs("|\n", out);
  }
  fputc('\n', out);
}

static void md_section(FILE *out, const shard_registry *reg, const shard_case_section *s) {
  if (*s->path)
    fprintf(out, "### `%s` — %s%s\n\n", s->path, s->doc, (s->flags & SHARD_SECTION_REQUIRED) ? " (required)" : "");
  else
    fprintf(out, "### Top-level keys\n\n");
  if (s->n_specs) {
    if (s->selector) fprintf(out, "Keys valid with every `%s`:\n\n", s->selector);
    shard_param_table_markdown(out, s->specs, s->n_specs);
  }
  if (!s->selector) return;
  variant_view vs[64];
  size_t nv = variants_of(reg, s, vs, 64);
  if (s->default_variant)
    fprintf(out, "`%s` selects the keys below (default `%s`).\n\n", s->selector, s->default_variant);
  else
    fprintf(out, "`%s` (required) selects the keys below.\n\n", s->selector);
  if (nv == 0) fprintf(out, "No %s plugin is loaded.\n\n", shard_plugin_kind_str(s->plugin_kind));
  for (size_t i = 0; i < nv; ++i) {
    fprintf(out, "#### `%s: %s`\n\n%s\n\n", s->selector, vs[i].name, vs[i].doc ? vs[i].doc : "");
    shard_param_table_markdown(out, vs[i].specs, vs[i].n_specs);
  }
}

int shard_schema_write_markdown(const shard_registry *reg, FILE *out) {
  for (uint32_t i = 0; i < shard_case_n_sections; ++i) md_section(out, reg, &shard_case_sections[i]);
  fputs("### Derived names in expressions\n\n"
        "Besides the numeric keys of the selected model (dots written as underscores, e.g. `initial_velocity`):\n\n"
        "| name | unit | meaning |\n|---|---|---|\n",
        out);
  for (uint32_t i = 0; i < shard_case_n_derived_names; ++i) {
    const shard_case_name *nm = &shard_case_derived_names[i];
    char name[80];
    snprintf(name, sizeof name, "`%s`", nm->name);
    md_cell(out, name);
    md_cell(out, nm->unit);
    md_cell(out, nm->doc);
    fputs("|\n", out);
  }
  return ferror(out) ? SHARD_ERR_IO : SHARD_OK;
}
