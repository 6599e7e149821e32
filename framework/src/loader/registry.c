/* host: plugin discovery, loading, validation and lookup (docs/plugins.md §6, §8).
 *
 * A plugin file is opened with dlopen(RTLD_NOW | RTLD_LOCAL) and asked for its
 * descriptors through the single symbol shard_plugin_entry. Every descriptor
 * is validated completely before anything of the file is registered, so that a
 * refused file leaves the registry unchanged. Handles are kept until
 * shard_registry_destroy, which closes them in reverse order.
 *
 * Discovery only lists the files of the search path; a file is opened when a
 * lookup needs it (NAME.so first, every file when no NAME.so provides NAME),
 * and first in a child process (a probe), so that a file that crashes or
 * hangs in its constructor or entry point is named and refused instead of
 * taking the host down. Files and directories writable by others than their
 * owner are refused. */
#include "loader/registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/sha256.h"
#include "shard/contact_law.h"
#include "shard/integrator.h"
#include "shard/lcp_solver.h"
#include "shard/model.h"
#include "shard/tsl.h"

#ifndef SHARD_PLUGIN_RELDIR
#define SHARD_PLUGIN_RELDIR "lib/shard/plugins"
#endif
#ifndef SHARD_PLUGIN_PROBE_SECONDS
#define SHARD_PLUGIN_PROBE_SECONDS 10
#endif
#ifndef SHARD_INSTALL_PLUGINDIR
#define SHARD_INSTALL_PLUGINDIR "/usr/local/lib/shard/plugins"
#endif

/* most descriptors one file may hold */
#define REGISTRY_MAX_PER_FILE 64

typedef struct registry_entry {
  shard_loaded_plugin pub;
  char *path;       /* owned; pub.path points here */
  unsigned group;   /* load group (one per directory or explicit file load) */
} registry_entry;

typedef struct dir_id {
  dev_t dev;
  ino_t ino;
} dir_id;

/* why a candidate failed when even that could not be allocated */
static char cand_oom[] = "out of memory";

/* A file of the search path, not opened until a lookup needs it. */
enum { CAND_NEW, CAND_LOADED, CAND_FAILED };
typedef struct candidate {
  char *path;     /* directory/file.so */
  char *stem;     /* file name without ".so": the plugin name it is expected to provide */
  unsigned group; /* its directory's load group */
  int shadow;     /* a default location (see check_duplicate) */
  int state;
  char *error;    /* CAND_FAILED: why (malloc'd, or cand_oom) */
  int status;     /* CAND_FAILED: the failure's status (SHARD_ERR_NOMEM: out of memory, not a bad file) */
} candidate;

struct shard_registry {
  registry_entry **entries;
  size_t n, cap;
  void **handles;
  size_t n_handles, cap_handles;
  dir_id *dirs; /* directories already visited by discovery */
  size_t n_dirs, cap_dirs;
  unsigned next_group;
  candidate *cands; /* files found by discovery, in search order */
  size_t n_cands, cap_cands;
  char **searched; /* the directories discovery looked in, in order */
  size_t n_searched, cap_searched;
};

const char *shard_plugin_kind_str(int kind) {
  switch (kind) {
  case SHARD_KIND_INTEGRATOR:
    return "integrator";
  case SHARD_KIND_CONTACT_LAW:
    return "contact_law";
  case SHARD_KIND_LCP_SOLVER:
    return "lcp_solver";
  case SHARD_KIND_TSL:
    return "tsl";
  case SHARD_KIND_MODEL:
    return "model";
  default:
    return "unknown";
  }
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap * 2 : 8;
  while (c < need) c *= 2;
  void *p = realloc(*arr, c * elem);
  if (!p) return -1;
  *arr = p;
  *cap = c;
  return 0;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

int shard_registry_create(shard_registry **out, shard_msg *msg) {
  *out = NULL;
  shard_registry *r = calloc(1, sizeof *r);
  if (!r) return shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
  r->next_group = 1;
  *out = r;
  return SHARD_OK;
}

void shard_registry_destroy(shard_registry *reg) {
  if (!reg) return;
  for (size_t i = reg->n; i-- > 0;) {
    free(reg->entries[i]->path);
    free(reg->entries[i]);
  }
  free(reg->entries);
  for (size_t i = reg->n_handles; i-- > 0;) dlclose(reg->handles[i]);
  free(reg->handles);
  free(reg->dirs);
  for (size_t i = 0; i < reg->n_cands; ++i) {
    free(reg->cands[i].path);
    free(reg->cands[i].stem);
    if (reg->cands[i].error != cand_oom) free(reg->cands[i].error);
  }
  free(reg->cands);
  for (size_t i = 0; i < reg->n_searched; ++i) free(reg->searched[i]);
  free(reg->searched);
  free(reg);
}

size_t shard_registry_count(const shard_registry *reg) { return reg ? reg->n : 0; }

const shard_loaded_plugin *shard_registry_at(const shard_registry *reg, size_t i) {
  return reg && i < reg->n ? &reg->entries[i]->pub : NULL;
}

static const registry_entry *find_entry(const shard_registry *reg, int kind, const char *name) {
  if (!reg || !name) return NULL;
  for (size_t i = 0; i < reg->n; ++i) {
    const shard_plugin *d = reg->entries[i]->pub.desc;
    if ((kind == 0 || (int)d->kind == kind) && strcmp(d->name, name) == 0) return reg->entries[i];
  }
  return NULL;
}


/* ---- validation ---------------------------------------------------------- */

static int valid_name(const char *s) {
  if (!s || !(*s >= 'a' && *s <= 'z')) return 0;
  for (++s; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

/* lower_snake segments separated by single dots: "cap.alpha" */
static int valid_key(const char *s) {
  if (!s || !*s) return 0;
  for (;;) {
    if (!(*s >= 'a' && *s <= 'z')) return 0;
    ++s;
    while ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_') ++s;
    if (*s == '\0') return 1;
    if (*s != '.') return 0;
    ++s;
  }
}

/* Is `word` one of the '|'-separated entries of `list`? */
static int choice_has(const char *list, const char *word) {
  size_t wl = strlen(word);
  const char *p = list;
  for (;;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == wl && strncmp(p, word, wl) == 0) return 1;
    if (!bar) return 0;
    p = bar + 1;
  }
}

/* every '|'-separated entry non-empty and lower_snake-ish (no spaces) */
static int choices_valid(const char *list) {
  if (!list || !*list) return 0;
  const char *p = list;
  for (;;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == 0) return 0;
    for (size_t i = 0; i < len; ++i)
      if (p[i] == ' ' || p[i] == '\t') return 0;
    if (!bar) return 1;
    p = bar + 1;
  }
}

static void fmt_range(const shard_param_spec *s, char *buf, size_t n) {
  snprintf(buf, n, "%s%.17g, %.17g%s", (s->flags & SHARD_PARAM_MIN_EXCLUSIVE) ? "(" : "[", s->min, s->max,
           (s->flags & SHARD_PARAM_MAX_EXCLUSIVE) ? ")" : "]");
}

/* One spec entry; `label` is "<path>: <kind> '<name>'". A model's keys are a
 * case section's: they may be lists (SHARD_PARAM_LIST, REAL and INT only). */
static int check_param(const char *label, const shard_param_spec *s, uint32_t i, int model, shard_msg *msg) {
  if (!valid_key(s->key))
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: parameter #%u: invalid key '%s' (must be lower_snake, with dots for nesting: "
                         "[a-z][a-z0-9_]*(.[a-z][a-z0-9_]*)*)",
                         label, i, s->key ? s->key : "(NULL)");
  const char *key = s->key;
  if (s->type < SHARD_PARAM_REAL || s->type > SHARD_PARAM_CHOICE)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': unknown type %d", label, key, (int)s->type);
  const unsigned known = SHARD_PARAM_REQUIRED | SHARD_PARAM_MIN_EXCLUSIVE | SHARD_PARAM_MAX_EXCLUSIVE |
                         (model ? SHARD_PARAM_LIST : 0u);
  if (s->flags & ~known)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': unknown flags 0x%x%s", label, key, s->flags,
                         (s->flags & SHARD_PARAM_LIST) ? " (SHARD_PARAM_LIST is for model keys only)" : "");
  if ((s->flags & SHARD_PARAM_LIST) && s->type != SHARD_PARAM_REAL && s->type != SHARD_PARAM_INT)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': a list key is REAL or INT", label, key);
  if ((s->flags & SHARD_PARAM_REQUIRED) && s->def)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': required but has a default '%s'", label, key,
                         s->def);
  if (s->type == SHARD_PARAM_REAL || s->type == SHARD_PARAM_INT) {
    if (isnan(s->min) || isnan(s->max) || s->min > s->max)
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': invalid range min %g > max %g", label, key,
                           s->min, s->max);
  }
  if (s->type == SHARD_PARAM_CHOICE && !choices_valid(s->choices))
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: parameter '%s': CHOICE without choices (need a '|'-separated list such as \"a|b\")",
                         label, key);
  if (!s->def) return SHARD_OK;
  const char *d = s->def;
  char range[128];
  switch (s->type) {
  case SHARD_PARAM_REAL: {
    char *end = NULL;
    errno = 0;
    double v = strtod(d, &end);
    if (end == d || *end != '\0' || !isfinite(v) || errno == ERANGE)
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': default '%s' is not a finite real number",
                           label, key, d);
    if (!shard_param_admits(s, v)) {
      fmt_range(s, range, sizeof range);
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': default '%s' is out of range %s", label, key,
                           d, range);
    }
    break;
  }
  case SHARD_PARAM_INT: {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(d, &end, 10);
    if (end == d || *end != '\0' || errno == ERANGE)
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': default '%s' is not an integer", label, key,
                           d);
    if (!shard_param_admits(s, (double)v)) {
      fmt_range(s, range, sizeof range);
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': default '%s' is out of range %s", label, key,
                           d, range);
    }
    break;
  }
  case SHARD_PARAM_BOOL:
    if (strcmp(d, "true") != 0 && strcmp(d, "false") != 0)
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': default '%s' is not a boolean (true or false)",
                           label, key, d);
    break;
  case SHARD_PARAM_CHOICE:
    if (!choice_has(s->choices, d))
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s': default '%s' is not one of %s", label, key, d,
                           s->choices);
    break;
  default:
    break;
  }
  return SHARD_OK;
}

static int check_params(const char *label, const shard_plugin *d, shard_msg *msg) {
  if (d->n_params == 0) return SHARD_OK;
  if (!d->params)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: n_params is %u but the parameter table is NULL", label,
                         d->n_params);
  for (uint32_t i = 0; i < d->n_params; ++i) {
    int st = check_param(label, &d->params[i], i, d->kind == SHARD_KIND_MODEL, msg);
    if (st != SHARD_OK) return st;
  }
  /* duplicates, and a key that is both a value and a map ("a" and "a.b") */
  for (uint32_t i = 0; i < d->n_params; ++i) {
    const char *a = d->params[i].key;
    size_t la = strlen(a);
    for (uint32_t j = i + 1; j < d->n_params; ++j) {
      const char *b = d->params[j].key;
      size_t lb = strlen(b);
      if (strcmp(a, b) == 0)
        return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s' is declared twice (#%u and #%u)", label, a,
                             i, j);
      const char *shortk = la < lb ? a : b, *longk = la < lb ? b : a;
      size_t ls = strlen(shortk);
      if (strncmp(shortk, longk, ls) == 0 && longk[ls] == '.')
        return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: parameter '%s' is both a value and the map of '%s'", label,
                             shortk, longk);
    }
  }
  return SHARD_OK;
}

typedef struct slot_req {
  const char *name;
  size_t offset;
} slot_req;

#define SLOT(type, field) {#field, offsetof(type, field)}

/* ops pointer slots are function pointers; read them as data bytes */
static int slot_is_null(const void *ops, size_t offset) {
  void (*fn)(void);
  memcpy(&fn, (const char *)ops + offset, sizeof fn);
  return fn == NULL;
}

static int check_slots(const char *label, const shard_plugin *d, const slot_req *req, size_t nreq, size_t host_size,
                       const char *why, shard_msg *msg) {
  size_t need = 0;
  for (size_t i = 0; i < nreq; ++i)
    if (req[i].offset + sizeof(void (*)(void)) > need) need = req[i].offset + sizeof(void (*)(void));
  if (d->ops_size < need)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: ops table is %u bytes, smaller than the %zu bytes its required slots need", label,
                         d->ops_size, need);
  if (d->ops_size > host_size)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: ops table is %u bytes, larger than the host's %zu (built against newer headers?)",
                         label, d->ops_size, host_size);
  for (size_t i = 0; i < nreq; ++i)
    if (slot_is_null(d->ops, req[i].offset))
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: required slot '%s' is NULL%s", label, req[i].name,
                           why && strcmp(req[i].name, "on_insert") == 0 ? why : "");
  return SHARD_OK;
}

static int one_family(uint64_t caps) {
  uint64_t fam = caps & (SHARD_CAP_IMPACT_LAW | SHARD_CAP_FORCE_LAW);
  return fam == SHARD_CAP_IMPACT_LAW || fam == SHARD_CAP_FORCE_LAW;
}

static int check_kind(const char *label, const shard_plugin *d, shard_msg *msg) {
  switch (d->kind) {
  case SHARD_KIND_INTEGRATOR: {
    slot_req req[6] = {SLOT(shard_integrator_ops, create), SLOT(shard_integrator_ops, setup),
                       SLOT(shard_integrator_ops, start), SLOT(shard_integrator_ops, step),
                       SLOT(shard_integrator_ops, destroy), SLOT(shard_integrator_ops, on_insert)};
    size_t n = (d->caps & SHARD_CAP_TOPOLOGY) ? 6 : 5;
    int st = check_slots(label, d, req, n, sizeof(shard_integrator_ops), " (caps include SHARD_CAP_TOPOLOGY)", msg);
    if (st != SHARD_OK) return st;
    if (!one_family(d->caps))
      return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                           "%s: must declare exactly one contact-law family in caps "
                           "(SHARD_CAP_IMPACT_LAW or SHARD_CAP_FORCE_LAW), caps = 0x%llx",
                           label, (unsigned long long)d->caps);
    return SHARD_OK;
  }
  case SHARD_KIND_CONTACT_LAW: {
    if (!one_family(d->caps))
      return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                           "%s: must declare exactly one contact-law family in caps "
                           "(SHARD_CAP_IMPACT_LAW or SHARD_CAP_FORCE_LAW), caps = 0x%llx",
                           label, (unsigned long long)d->caps);
    slot_req req[5] = {SLOT(shard_contact_law_ops, create), SLOT(shard_contact_law_ops, destroy)};
    size_t n = 2;
    if (d->caps & SHARD_CAP_IMPACT_LAW) {
      req[n++] = (slot_req)SLOT(shard_contact_law_ops, restitution);
    } else {
      req[n++] = (slot_req)SLOT(shard_contact_law_ops, force);
      req[n++] = (slot_req)SLOT(shard_contact_law_ops, max_stiffness);
    }
    return check_slots(label, d, req, n, sizeof(shard_contact_law_ops), NULL, msg);
  }
  case SHARD_KIND_LCP_SOLVER: {
    const slot_req req[4] = {SLOT(shard_lcp_solver_ops, create), SLOT(shard_lcp_solver_ops, setup),
                             SLOT(shard_lcp_solver_ops, solve), SLOT(shard_lcp_solver_ops, destroy)};
    return check_slots(label, d, req, 4, sizeof(shard_lcp_solver_ops), NULL, msg);
  }
  case SHARD_KIND_TSL: {
    const slot_req req[4] = {SLOT(shard_tsl_ops, create), SLOT(shard_tsl_ops, destroy), SLOT(shard_tsl_ops, evaluate),
                             SLOT(shard_tsl_ops, max_stiffness)};
    return check_slots(label, d, req, 4, sizeof(shard_tsl_ops), NULL, msg);
  }
  case SHARD_KIND_MODEL: {
#define M_(f) SLOT(shard_model_ops, f)
    const slot_req req[] = {M_(create),        M_(destroy),        M_(info),          M_(scales),    M_(derived),
                            M_(why),           M_(set_force_law),  M_(set_tsl),       M_(release_rule),
                            M_(stable_step),   M_(commit),         M_(insert),        M_(measure),   M_(energy),
                            M_(reactions),     M_(release),        M_(released),      M_(broken),
                            M_(reference_setup), M_(reference_step), M_(history),     M_(summary),   M_(files),
                            M_(ck_sections),   M_(ck_write),       M_(ck_read)};
    const slot_req fields[] = {M_(fields_open), M_(fields_write), M_(spacetime_record), M_(fields_finish),
                               M_(fields_note)};
#undef M_
    int st = check_slots(label, d, req, sizeof req / sizeof req[0], sizeof(shard_model_ops), NULL, msg);
    if (st != SHARD_OK) return st;
    const shard_model_ops *o = d->ops;
    if (!o->outputs || !o->outputs->history || !o->outputs->summary || (o->outputs->n_files && !o->outputs->files))
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: the model declares no outputs (history and summary tables)",
                           label);
    size_t n_null = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) n_null += slot_is_null(d->ops, fields[i].offset);
    if (n_null != 0 && n_null != sizeof fields / sizeof fields[0])
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: the fields_* slots are all set or all NULL, %zu of 5 are NULL",
                           label, n_null);
    return SHARD_OK;
  }
  default:
    return SHARD_ERR_INTERNAL;
  }
}

/* Everything about one descriptor except duplicates. `index` is its position
 * in the file. */
static int check_descriptor(const char *path, uint32_t index, const shard_plugin *d, shard_msg *msg) {
  uint32_t maj = SHARD_ABI_VERSION_MAJOR(d->abi_version), min = SHARD_ABI_VERSION_MINOR(d->abi_version);
  /* the descriptor's opening fields up to `name` are the same in every ABI
   * major, so a refused plugin can still be named */
  const int named = d->struct_size >= offsetof(shard_plugin, name) + sizeof d->name && valid_name(d->name);
  char who[128];
  snprintf(who, sizeof who, "plugin #%u%s%s%s", index, named ? " '" : "", named ? d->name : "", named ? "'" : "");
  if (maj != SHARD_ABI_MAJOR)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: %s: built for ABI %u.%u, host is %u.%u%s", path, who, maj, min,
                         SHARD_ABI_MAJOR, SHARD_ABI_MINOR,
                         maj < SHARD_ABI_MAJOR ? " (rebuild it against this host's headers; docs/plugins.md, "
                                                 "\"From ABI 1 to ABI 2\")"
                                               : "");
  if (min > SHARD_ABI_MINOR)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: %s: built for ABI %u.%u, host supports up to %u.%u", path, who,
                         maj, min, SHARD_ABI_MAJOR, SHARD_ABI_MINOR);
  if (d->struct_size < sizeof(shard_plugin))
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: plugin #%u: descriptor struct_size %u is smaller than the ABI %u.%u descriptor (%zu bytes)",
                         path, index, d->struct_size, maj, min, sizeof(shard_plugin));
  if (d->real_size != sizeof(shard_real))
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: plugin #%u: built with sizeof(shard_real) = %u, host has %zu", path, index, d->real_size,
                         sizeof(shard_real));
  if (!valid_name(d->name))
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: plugin #%u: invalid name '%s' (must match [a-z][a-z0-9_]*)",
                         path, index, d->name ? d->name : "(NULL)");
  if (d->kind < SHARD_KIND_INTEGRATOR || d->kind > SHARD_KIND_MODEL)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: plugin '%s': unknown kind %u (integrator = 1, contact_law = 2, lcp_solver = 3, tsl = 4, model = 5)",
                         path, d->name, d->kind);
  char label[PATH_MAX + 128];
  snprintf(label, sizeof label, "%s: %s '%s'", path, shard_plugin_kind_str((int)d->kind), d->name);
  if (!d->version || !*d->version)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: no version string", label);
  if (!d->ops) return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: ops table is NULL", label);
  int st = check_kind(label, d, msg);
  if (st != SHARD_OK) return st;
  return check_params(label, d, msg);
}

/* ---- registration -------------------------------------------------------- */

/* The duplicate rule: when `shadow` is set (default locations), a name
 * already registered by an earlier group is skipped silently (*skip = 1);
 * any other duplicate is an error naming both files. */
static int check_duplicate(const shard_registry *reg, const char *path, const shard_plugin *d, unsigned group,
                           int shadow, int *skip, shard_msg *msg) {
  *skip = 0;
  const registry_entry *e = find_entry(reg, 0, d->name);
  if (!e) return SHARD_OK;
  if (shadow && e->group < group) {
    *skip = 1;
    return SHARD_OK;
  }
  return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: %s '%s': duplicate name, already provided by %s (%s)", path,
                       shard_plugin_kind_str((int)d->kind), d->name, e->path,
                       shard_plugin_kind_str((int)e->pub.desc->kind));
}

static int push_entry(shard_registry *reg, const shard_plugin *d, const char *path, const char *sha, unsigned group,
                      shard_msg *msg) {
  if (grow((void **)&reg->entries, &reg->cap, reg->n + 1, sizeof *reg->entries) != 0)
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
  registry_entry *e = calloc(1, sizeof *e);
  char *p = e ? dup_str(path) : NULL;
  if (!p) {
    free(e);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
  }
  e->path = p;
  e->group = group;
  e->pub.desc = d;
  e->pub.path = p;
  snprintf(e->pub.sha256, sizeof e->pub.sha256, "%s", sha);
  reg->entries[reg->n++] = e;
  return SHARD_OK;
}

int shard_registry_add(shard_registry *reg, const shard_plugin *desc, const char *path, shard_msg *msg) {
  if (!path) path = "<builtin>";
  if (!desc) return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: NULL plugin descriptor", path);
  int st = check_descriptor(path, 0, desc, msg);
  if (st != SHARD_OK) return st;
  int skip;
  st = check_duplicate(reg, path, desc, reg->next_group, 0, &skip, msg);
  if (st != SHARD_OK) return st;
  return push_entry(reg, desc, path, "", reg->next_group++, msg);
}

/* dlopen searches the library path for names without a slash: make it a path */
static void as_path(const char *path, char *buf, size_t n) {
  if (strchr(path, '/'))
    snprintf(buf, n, "%s", path);
  else
    snprintf(buf, n, "./%s", path);
}

/* Who besides the owner may write a file or directory, or NULL. */
static const char *other_writers(mode_t m) {
  if ((m & S_IWGRP) && (m & S_IWOTH)) return "its group and everyone";
  if (m & S_IWOTH) return "everyone";
  if (m & S_IWGRP) return "its group";
  return NULL;
}

/* A plugin is code the host runs: refuse a file, or a directory holding it,
 * that others than its owner may write (they could put their code there). */
static int check_not_writable(const char *path, const char *dlpath, const struct stat *sb, shard_msg *msg) {
  const char *who = other_writers(sb->st_mode);
  if (who)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: refused: the file is writable by %s (mode %04o); make it writable by its owner only "
                         "(chmod go-w %s)",
                         path, who, (unsigned)(sb->st_mode & 07777), path);
  char dir[PATH_MAX + 8];
  snprintf(dir, sizeof dir, "%s", dlpath);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  struct stat db;
  if (stat(dir, &db) == 0 && (who = other_writers(db.st_mode)) != NULL)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: refused: its directory %s is writable by %s (mode %04o); make it writable by its owner "
                         "only (chmod go-w %s)",
                         path, dir, who, (unsigned)(db.st_mode & 07777), dir);
  return SHARD_OK;
}

/* Everything about a file that can be checked without opening it. */
static int precheck_file(const char *path, char *dlpath, size_t n, shard_msg *msg) {
  as_path(path, dlpath, n);
  struct stat sb;
  if (stat(dlpath, &sb) != 0)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: cannot open plugin: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: not a regular file", path);
  return check_not_writable(path, dlpath, &sb, msg);
}

static int load_file(shard_registry *reg, const char *path, unsigned group, int shadow, shard_msg *msg) {
  char dlpath[PATH_MAX + 8];
  int pst = precheck_file(path, dlpath, sizeof dlpath, msg);
  if (pst != SHARD_OK) return pst;

  dlerror();
  void *h = dlopen(dlpath, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *err = dlerror();
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: not a loadable shared object: %s", path,
                         err ? err : "dlopen failed");
  }
  dlerror();
  void *sym = dlsym(h, SHARD_PLUGIN_ENTRY_SYMBOL);
  if (!sym) {
    dlclose(h);
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: no entry symbol '" SHARD_PLUGIN_ENTRY_SYMBOL
                         "' (not a shard plugin, or the symbol is not exported)",
                         path);
  }
  shard_plugin_entry_fn entry;
  memcpy(&entry, &sym, sizeof entry); /* POSIX: data pointer to function pointer */

  const shard_plugin *descs[REGISTRY_MAX_PER_FILE];
  int skip[REGISTRY_MAX_PER_FILE];
  uint32_t nd = 0;
  int st = SHARD_OK;
  for (;;) {
    const shard_plugin *d = entry(nd);
    if (!d) break;
    if (nd == REGISTRY_MAX_PER_FILE) {
      st = shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: " SHARD_PLUGIN_ENTRY_SYMBOL "(%d) is not NULL: more than %d plugins in one file", path,
                         REGISTRY_MAX_PER_FILE, REGISTRY_MAX_PER_FILE);
      break;
    }
    st = check_descriptor(path, nd, d, msg);
    if (st != SHARD_OK) break;
    for (uint32_t j = 0; j < nd && st == SHARD_OK; ++j)
      if (strcmp(descs[j]->name, d->name) == 0)
        st = shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: %s '%s': duplicate name, already provided by %s (plugin #%u)",
                           path, shard_plugin_kind_str((int)d->kind), d->name, path, j);
    if (st != SHARD_OK) break;
    st = check_duplicate(reg, path, d, group, shadow, &skip[nd], msg);
    if (st != SHARD_OK) break;
    descs[nd++] = d;
  }
  if (st == SHARD_OK && nd == 0)
    st = shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: " SHARD_PLUGIN_ENTRY_SYMBOL "(0) returned NULL: no plugin in file",
                       path);
  uint32_t nkeep = 0;
  for (uint32_t j = 0; j < nd; ++j) nkeep += !skip[j];
  char sha[65] = "";
  if (st == SHARD_OK && nkeep > 0) {
    st = shard_sha256_file_hex(dlpath, sha, msg);
    if (st == SHARD_OK && grow((void **)&reg->handles, &reg->cap_handles, reg->n_handles + 1, sizeof *reg->handles))
      st = shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
  }
  if (st != SHARD_OK || nkeep == 0) {
    dlclose(h);
    return st;
  }
  size_t n0 = reg->n;
  for (uint32_t j = 0; j < nd; ++j) {
    if (skip[j]) continue;
    st = push_entry(reg, descs[j], path, sha, group, msg);
    if (st != SHARD_OK) {
      while (reg->n > n0) {
        --reg->n;
        free(reg->entries[reg->n]->path);
        free(reg->entries[reg->n]);
      }
      dlclose(h);
      return st;
    }
  }
  reg->handles[reg->n_handles++] = h;
  return SHARD_OK;
}

int shard_registry_load_file(shard_registry *reg, const char *path, shard_msg *msg) {
  return load_file(reg, path, reg->next_group++, 0, msg);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int ends_with_so(const char *s) {
  size_t n = strlen(s);
  return n > 3 && strcmp(s + n - 3, ".so") == 0;
}

static void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; ++i) free(names[i]);
  free(names);
}

/* The *.so of one directory, sorted by name. *missing is set (and SHARD_OK
 * returned) when the directory does not exist. */
static int list_dir(const char *dir, int shadow, int *missing, char ***out, size_t *out_n, shard_msg *msg) {
  *out = NULL;
  *out_n = 0;
  if (missing) *missing = 0;
  DIR *dp = opendir(dir);
  if (!dp) {
    int err = errno;
    /* discovery skips what does not exist, and anything in the default
     * locations; a file given where a directory is expected is an error */
    if (missing && (err == ENOENT || (shadow && err == ENOTDIR))) {
      *missing = 1;
      return SHARD_OK;
    }
    if (err == ENOTDIR)
      return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: not a directory (plugin search paths list directories)", dir);
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: cannot open plugin directory: %s", dir, strerror(err));
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int st = SHARD_OK;
  struct dirent *de;
  while ((de = readdir(dp)) != NULL) {
    if (!ends_with_so(de->d_name)) continue;
    char *s = dup_str(de->d_name);
    if (!s || grow((void **)&names, &cap, n + 1, sizeof *names) != 0) {
      free(s);
      st = shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
      break;
    }
    names[n++] = s;
  }
  closedir(dp);
  if (st != SHARD_OK) {
    free_names(names, n);
    return st;
  }
  if (n > 1) qsort(names, n, sizeof *names, cmp_str);
  *out = names;
  *out_n = n;
  return SHARD_OK;
}

static int join_path(const char *dir, const char *name, char *path, size_t size, shard_msg *msg) {
  size_t dl = strlen(dir);
  int len = snprintf(path, size, "%s%s%s", dir, dl > 0 && dir[dl - 1] == '/' ? "" : "/", name);
  if (len < 0 || (size_t)len >= size) return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s/%s: path too long", dir, name);
  return SHARD_OK;
}

int shard_registry_load_dir(shard_registry *reg, const char *dir, shard_msg *msg) {
  char **names;
  size_t n;
  int st = list_dir(dir, 0, NULL, &names, &n, msg);
  if (st != SHARD_OK) return st;
  unsigned group = reg->next_group++;
  for (size_t i = 0; i < n && st == SHARD_OK; ++i) {
    char path[PATH_MAX];
    st = join_path(dir, names[i], path, sizeof path, msg);
    if (st == SHARD_OK) st = load_file(reg, path, group, 0, msg);
  }
  free_names(names, n);
  return st;
}

/* ---- discovery: files listed, opened when needed ---------------------------- */

/* Discovery visits each directory once (by device and inode). Returns 1 if
 * `dir` was seen already, 0 if newly recorded, -1 out of memory. A directory
 * that does not exist is not recorded (it will be skipped). */
static int seen_dir(shard_registry *reg, const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0;
  for (size_t i = 0; i < reg->n_dirs; ++i)
    if (reg->dirs[i].dev == sb.st_dev && reg->dirs[i].ino == sb.st_ino) return 1;
  if (grow((void **)&reg->dirs, &reg->cap_dirs, reg->n_dirs + 1, sizeof *reg->dirs) != 0) return -1;
  reg->dirs[reg->n_dirs].dev = sb.st_dev;
  reg->dirs[reg->n_dirs].ino = sb.st_ino;
  reg->n_dirs++;
  return 0;
}

static int add_searched(shard_registry *reg, const char *dir) {
  char *d = dup_str(dir);
  if (!d || grow((void **)&reg->searched, &reg->cap_searched, reg->n_searched + 1, sizeof *reg->searched) != 0) {
    free(d);
    return -1;
  }
  reg->searched[reg->n_searched++] = d;
  return 0;
}

static int discover_dir(shard_registry *reg, const char *dir, int shadow, shard_msg *msg) {
  if (!*dir) return SHARD_OK;
  int seen = seen_dir(reg, dir);
  if (seen < 0) return shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
  if (seen) return SHARD_OK;
  if (add_searched(reg, dir) != 0) return shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
  int missing;
  char **names;
  size_t n;
  int st = list_dir(dir, shadow, &missing, &names, &n, msg);
  if (st != SHARD_OK || missing) return st;
  unsigned group = reg->next_group++;
  for (size_t i = 0; i < n && st == SHARD_OK; ++i) {
    char path[PATH_MAX];
    st = join_path(dir, names[i], path, sizeof path, msg);
    if (st != SHARD_OK) break;
    if (grow((void **)&reg->cands, &reg->cap_cands, reg->n_cands + 1, sizeof *reg->cands) != 0) {
      st = shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
      break;
    }
    candidate *c = &reg->cands[reg->n_cands];
    memset(c, 0, sizeof *c);
    c->path = dup_str(path);
    c->stem = dup_str(names[i]);
    if (!c->path || !c->stem) {
      free(c->path);
      free(c->stem);
      st = shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
      break;
    }
    c->stem[strlen(c->stem) - 3] = '\0';
    c->group = group;
    c->shadow = shadow;
    c->state = CAND_NEW;
    reg->n_cands++;
    /* NAME.so in two explicit directories: which one a case means is not
     * known, so neither is used (found without opening either) */
    for (size_t k = 0; !shadow && k + 1 < reg->n_cands; ++k) {
      candidate *o = &reg->cands[k];
      if (o->shadow || strcmp(o->stem, c->stem) != 0) continue;
      shard_msg dm = {{0}};
      shard_msg_set(&dm, SHARD_ERR_PLUGIN,
                    "%s: duplicate file name, also %s (two directories of --plugin-path or SHARD_PLUGIN_PATH "
                    "provide %s.so; remove one)",
                    c->path, o->path, c->stem);
      char *e1 = dup_str(dm.text), *e2 = dup_str(dm.text);
      if (!e1 || !e2) {
        free(e1);
        free(e2);
        st = shard_msg_set(msg, SHARD_ERR_NOMEM, "plugin registry: out of memory");
        break;
      }
      if (o->state == CAND_NEW) {
        o->state = CAND_FAILED;
        o->status = SHARD_ERR_PLUGIN;
        o->error = e1;
      } else {
        free(e1);
      }
      c->state = CAND_FAILED;
      c->status = SHARD_ERR_PLUGIN;
      c->error = e2;
      break;
    }
  }
  free_names(names, n);
  return st;
}

static int discover_list(shard_registry *reg, const char *list, const char *what, shard_msg *msg) {
  if (!list) return SHARD_OK;
  const char *p = list;
  for (;;) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len >= PATH_MAX) return shard_msg_set(msg, SHARD_ERR_INPUT, "%s: directory name too long", what);
    char dir[PATH_MAX];
    memcpy(dir, p, len);
    dir[len] = '\0';
    int st = discover_dir(reg, dir, 0, msg);
    if (st != SHARD_OK) return st;
    if (!colon) return SHARD_OK;
    p = colon + 1;
  }
}

int shard_registry_discover(shard_registry *reg, const char *cli_path, shard_msg *msg) {
  int st = discover_list(reg, cli_path, "--plugin-path", msg);
  if (st != SHARD_OK) return st;
  st = discover_list(reg, getenv("SHARD_PLUGIN_PATH"), "SHARD_PLUGIN_PATH", msg);
  if (st != SHARD_OK) return st;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    /* <prefix>/bin/shard -> <prefix>/<reldir>; /proc/self/exe is already
     * resolved, so dropping two components is the same as "/.." */
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    slash = slash ? strrchr(exe, '/') : NULL;
    if (slash) {
      *slash = '\0';
      char dir[PATH_MAX + 64];
      int len = snprintf(dir, sizeof dir, "%s/%s", exe, SHARD_PLUGIN_RELDIR);
      if (len > 0 && (size_t)len < sizeof dir && (size_t)len < PATH_MAX) {
        st = discover_dir(reg, dir, 1, msg);
        if (st != SHARD_OK) return st;
      }
    }
  }
  return discover_dir(reg, SHARD_INSTALL_PLUGINDIR, 1, msg);
}

/* ---- probing a file in a child process ---------------------------------------- */

/* How long a probe may take: $SHARD_PLUGIN_PROBE_TIMEOUT seconds when set
 * to a number in (0, 3600], else SHARD_PLUGIN_PROBE_SECONDS. */
static double probe_seconds(void) {
  const char *e = getenv("SHARD_PLUGIN_PROBE_TIMEOUT");
  if (e && *e) {
    char *end = NULL;
    double v = strtod(e, &end);
    if (end && *end == '\0' && v > 0 && v <= 3600) return v;
  }
  return SHARD_PLUGIN_PROBE_SECONDS;
}

/* Load `path` in a forked child into a scratch registry: SHARD_OK when it
 * loads there, else SHARD_ERR_PLUGIN with the child's message, or with what
 * became of the child (a signal, a hang past the probe timeout). */
static int probe_file(const char *path, shard_msg *msg) {
  const double limit = probe_seconds();
  int fds[2];
  if (pipe(fds) != 0)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: cannot probe the plugin: pipe: %s", path, strerror(errno));
  /* not inherited by processes started meanwhile (a campaign's runs) */
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  fflush(NULL); /* a plugin calling exit() in the child would write pending output twice */
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: cannot probe the plugin: fork: %s", path, strerror(err));
  }
  if (pid == 0) {
    close(fds[0]);
    shard_registry *r = NULL;
    shard_msg m = {{0}};
    int st = shard_registry_create(&r, &m);
    if (st == SHARD_OK) st = load_file(r, path, 1, 0, &m);
    char out[sizeof m.text + 2];
    int len = snprintf(out, sizeof out, "%c%s", st == SHARD_OK ? '+' : '-', m.text);
    if (len > 0 && write(fds[1], out, (size_t)len < sizeof out ? (size_t)len : sizeof out - 1) < 0) _exit(3);
    _exit(0); /* no destructors, no atexit handlers, no stdio flush */
  }
  close(fds[1]);
  char buf[sizeof msg->text + 2];
  size_t got = 0;
  int timed_out = 0;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double left = limit - ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec));
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int pr = poll(&pfd, 1, (int)(left * 1000) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    ssize_t r = read(fds[0], buf + got, sizeof buf - 1 - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
    if (got == sizeof buf - 1) break;
  }
  close(fds[0]);
  buf[got] = '\0';
  if (timed_out) kill(pid, SIGKILL);
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: refused: loading it did not finish within %g s (a loop in its constructor or in "
                         SHARD_PLUGIN_ENTRY_SYMBOL "?)",
                         path, limit);
  if (WIFSIGNALED(ws))
    return shard_msg_set(msg, SHARD_ERR_PLUGIN,
                         "%s: refused: loading it crashed (%s) in its constructor or in " SHARD_PLUGIN_ENTRY_SYMBOL,
                         path, strsignal(WTERMSIG(ws)));
  if (got > 0 && buf[0] == '+') return SHARD_OK;
  if (got > 0 && buf[0] == '-') return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s", buf + 1);
  return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s: refused: loading it ended the process (exit status %d)", path,
                       WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
}

/* Open one listed file: checked, probed, then loaded here. */
static void load_candidate(shard_registry *reg, candidate *c) {
  if (c->state != CAND_NEW) return;
  shard_msg msg = {{0}};
  char dlpath[PATH_MAX + 8];
  int st = precheck_file(c->path, dlpath, sizeof dlpath, &msg);
  if (st == SHARD_OK) st = probe_file(c->path, &msg);
  if (st == SHARD_OK) st = load_file(reg, c->path, c->group, c->shadow, &msg);
  if (st == SHARD_OK) {
    c->state = CAND_LOADED;
    return;
  }
  c->state = CAND_FAILED;
  c->status = st;
  c->error = dup_str(msg.text[0] ? msg.text : "could not be loaded");
  if (!c->error) c->error = cand_oom, c->status = SHARD_ERR_NOMEM;
}

static void load_every_candidate(shard_registry *reg) {
  for (size_t i = 0; i < reg->n_cands; ++i) load_candidate(reg, &reg->cands[i]);
}

int shard_registry_load_all(shard_registry *reg, shard_msg *msg) {
  load_every_candidate(reg);
  for (size_t i = 0; i < reg->n_cands; ++i)
    if (reg->cands[i].state == CAND_FAILED) return shard_msg_set(msg, SHARD_ERR_PLUGIN, "%s", reg->cands[i].error);
  return SHARD_OK;
}

size_t shard_registry_problem_count(const shard_registry *reg) {
  size_t n = 0;
  for (size_t i = 0; reg && i < reg->n_cands; ++i) n += reg->cands[i].state == CAND_FAILED;
  return n;
}

const char *shard_registry_problem(const shard_registry *reg, size_t k) {
  for (size_t i = 0; reg && i < reg->n_cands; ++i)
    if (reg->cands[i].state == CAND_FAILED && k-- == 0) return reg->cands[i].error;
  return NULL;
}

static candidate *candidate_named(const shard_registry *reg, const char *name) {
  for (size_t i = 0; i < reg->n_cands; ++i)
    if (strcmp(reg->cands[i].stem, name) == 0) return &reg->cands[i];
  return NULL;
}

const char *shard_registry_why(const shard_registry *reg, const char *name) {
  const candidate *c = reg && name ? candidate_named(reg, name) : NULL;
  return c && c->state == CAND_FAILED ? c->error : NULL;
}

int shard_registry_why_status(const shard_registry *reg, const char *name) {
  const candidate *c = reg && name ? candidate_named(reg, name) : NULL;
  return c && c->state == CAND_FAILED ? c->status : SHARD_OK;
}

void shard_registry_search_path(const shard_registry *reg, char *buf, size_t size) {
  size_t k = 0;
  if (size) buf[0] = '\0';
  for (size_t i = 0; reg && i < reg->n_searched && k < size; ++i) {
    int w = snprintf(buf + k, size - k, "%s%s", i ? ", " : "", reg->searched[i]);
    if (w < 0) break;
    k += (size_t)w;
  }
}

void shard_registry_load_every(const shard_registry *creg) {
  shard_registry *reg;
  if (!creg) return;
  memcpy(&reg, &creg, sizeof reg);
  load_every_candidate(reg);
}

/* Lookups load what they need: the registry behind a const pointer is a cache
 * of the search path (the object itself is never const: it comes from
 * shard_registry_create). */
const shard_loaded_plugin *shard_registry_find(const shard_registry *creg, int kind, const char *name) {
  const registry_entry *e = find_entry(creg, kind, name);
  if (e) {
    /* NAME.so first on the search path and refused: nothing else stands in
     * for it, even a copy an earlier lookup loaded while it looked at every
     * file (a model in a file named otherwise, say) */
    const candidate *c = candidate_named(creg, name);
    return c && c->state == CAND_FAILED ? NULL : &e->pub;
  }
  if (!creg || !name) return NULL;
  shard_registry *reg;
  memcpy(&reg, &creg, sizeof reg);
  if (!valid_name(name)) {
    load_every_candidate(reg); /* no such plugin: what there is, for the caller's message */
    return NULL;
  }
  candidate *c = candidate_named(reg, name);
  if (c && c->state == CAND_NEW) {
    load_candidate(reg, c);
    if ((e = find_entry(reg, kind, name)) != NULL) return &e->pub;
  }
  if (c && c->state == CAND_FAILED) return NULL; /* NAME.so is refused: nothing else stands in for it */
  /* a file named otherwise (several plugins in one file), or a plugin of
   * another kind: every file is looked at */
  load_every_candidate(reg);
  e = find_entry(reg, kind, name);
  return e ? &e->pub : NULL;
}
