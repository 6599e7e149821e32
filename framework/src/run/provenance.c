/* host: the output directory (lock, stale results removed) and case.resolved.yaml,
 * provenance.yaml, the run hash (see provenance.h). */
#include "run/provenance.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "core/sha256.h"
#include "io/params_text.h"

#include "run/restart.h"

/* the commit of this build (generated at build time: cmake/shard_commit.cmake) */
extern const char shard_git_commit[];


static void hash_plugin(const plugin_inst *pi, FILE *f, const char *role) {
  if (!pi->lp) return;
  const shard_plugin *d = pi->lp->desc;
  fprintf(f, "  - role: %s\n    kind: %s\n    name: %s\n    version: \"%s\"\n    file: \"%s\"\n    sha256: \"%s\"\n",
          role, shard_plugin_kind_str((int)d->kind), d->name, d->version, pi->lp->path, pi->lp->sha256);
}

/* Run hash: the resolved case (comment lines left out: they name the file it
 * came from), plugin file hashes and the shard version — not host or time. */
static void compute_run_hash(run *r, const char *resolved, size_t len) {
  shard_sha256 h;
  shard_sha256_init(&h);
  for (size_t i = 0; i < len;) {
    const char *nl = memchr(resolved + i, '\n', len - i);
    const size_t end = nl ? (size_t)(nl - resolved) + 1 : len;
    if (resolved[i] != '#') shard_sha256_update(&h, resolved + i, end - i);
    i = end;
  }
  const plugin_inst *all[] = {&r->model_pi, &r->integ, &r->impact, &r->force, &r->lcp, &r->fallback, &r->tsl};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (all[i]->lp) shard_sha256_update(&h, all[i]->lp->sha256, strlen(all[i]->lp->sha256));
  shard_sha256_update(&h, SHARD_VERSION, strlen(SHARD_VERSION));
  shard_sha256_final_hex(&h, r->run_hash);
}

/* ---- the output directory ------------------------------------------------------------
 * A run holds DIR/.lock (fsio.h) from before its first file to its end. At
 * start it removes what an earlier run left that could pass for its own
 * result: summary.yaml first, then the other final outputs; a fresh start
 * also the checkpoint, the partial history, the provenance and the field
 * snapshots (a continued run keeps those: they are its own), and every
 * leftover temporary. Only the file names a run writes are touched: the
 * run's, and the model's (its file tables and extra_files, shard/model.h). */
static const char *const final_outputs[] = {"summary.yaml", /* first: the claim of a result */
                                            "history.csv"};
static const char *const run_state[] = {"checkpoint.bin", ".history.csv.partial", "case.resolved.yaml",
                                        "provenance.yaml", "fields.pvd"};

static int remove_file(const char *dir, const char *name, shard_msg *msg) {
  char p[4200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  if (unlink(p) != 0 && errno != ENOENT)
    return shard_msg_set(msg, SHARD_ERR_IO, "cannot remove the earlier run's '%s': %s", p, strerror(errno));
  return SHARD_OK;
}

/* names the run writes by pattern: temporaries (".NAME.tmp.*", ".spacetime.log.*"),
 * LCP dumps ("lcp_step*.mtx"), snapshots ("fields_*.vtu" in fields/) */
static int stale_name(const char *n, int fresh, int in_fields) {
  const size_t len = strlen(n);
  if (in_fields) return strncmp(n, "fields_", 7) == 0 && len > 4 && strcmp(n + len - 4, ".vtu") == 0;
  if (n[0] == '.' && (strstr(n, ".tmp.") || strncmp(n, ".spacetime.log.", 15) == 0)) return 1;
  return fresh && strncmp(n, "lcp_step", 8) == 0 && len > 4 && strcmp(n + len - 4, ".mtx") == 0;
}

static int remove_matching(const char *dir, int fresh, int in_fields, shard_msg *msg) {
  DIR *d = opendir(dir);
  if (!d)
    return errno == ENOENT || errno == ENOTDIR ? SHARD_OK
                                               : shard_msg_set(msg, SHARD_ERR_IO, "cannot read '%s': %s", dir, strerror(errno));
  int st = SHARD_OK;
  for (struct dirent *e; st == SHARD_OK && (e = readdir(d));)
    if (stale_name(e->d_name, fresh, in_fields)) st = remove_file(dir, e->d_name, msg);
  closedir(d);
  return st;
}

static int remove_stale_outputs(const char *dir, const shard_model_outputs *mo, int continuing, shard_msg *msg) {
  int st = SHARD_OK;
  for (size_t i = 0; st == SHARD_OK && i < sizeof final_outputs / sizeof final_outputs[0]; ++i)
    st = remove_file(dir, final_outputs[i], msg);
  for (size_t i = 0; st == SHARD_OK && i < mo->n_files; ++i) st = remove_file(dir, mo->files[i]->file, msg);
  for (size_t i = 0; st == SHARD_OK && mo->extra_files && mo->extra_files[i]; ++i)
    st = remove_file(dir, mo->extra_files[i], msg);
  for (size_t i = 0; st == SHARD_OK && !continuing && i < sizeof run_state / sizeof run_state[0]; ++i)
    st = remove_file(dir, run_state[i], msg);
  if (st == SHARD_OK) st = remove_matching(dir, !continuing, 0, msg);
  if (st == SHARD_OK && !continuing) {
    char fields[4200];
    snprintf(fields, sizeof fields, "%s/fields", dir);
    struct stat sb;
    if (lstat(fields, &sb) == 0 && S_ISLNK(sb.st_mode)) /* a link planted there would lead the snapshots elsewhere */
      st = remove_file(dir, "fields", msg);
    if (st == SHARD_OK) st = remove_matching(fields, 1, 1, msg);
    if (st == SHARD_OK && rmdir(fields) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != ENOTDIR &&
        errno != EEXIST)
      st = shard_msg_set(msg, SHARD_ERR_IO, "cannot remove the earlier run's '%s': %s", fields, strerror(errno));
  }
  return st == SHARD_OK ? shard_dir_sync(dir, msg) : st;
}

/* DIR/.lock for the whole run; another run or campaign there: bad input (exit 2). */
int run_lock_out_dir(run *r, shard_dir_lock *lock, shard_msg *msg) {
  char what[4400];
  snprintf(what, sizeof what, "shard run %s -o %s%s", shard_case_path(r->c), r->opt->out_dir,
           r->opt->restart ? " (restart)" : r->opt->resume ? " --resume" : "");
  return shard_dir_lock_acquire(lock, r->opt->out_dir, NULL, what, msg);
}

/* case.resolved.yaml and provenance.yaml; on a restart only the run hash is
 * recomputed (the files of the first run stay). The run hash also decides
 * whether a --resume continues: only from a checkpoint of this same run. */
int run_write_provenance(run *r, shard_msg *msg) {
  char *rbuf = NULL, *pbuf = NULL;
  size_t rlen = 0, plen = 0;
  FILE *f = open_memstream(&rbuf, &rlen);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for case.resolved.yaml");
  const int wst = shard_case_write_resolved(r->c, f);
  if (fclose(f) != 0 || wst != SHARD_OK) { /* a partial text would give a wrong run hash */
    free(rbuf);
    return shard_msg_set(msg, wst == SHARD_ERR_IO ? SHARD_ERR_IO : SHARD_ERR_NOMEM,
                         "cannot resolve the case for case.resolved.yaml: %s", shard_status_str(wst));
  }
  compute_run_hash(r, rbuf, rlen);
  r->continuing = r->opt->restart || (r->opt->resume && run_checkpoint_resumable(r));
  /* a --restart without a checkpoint of this run fails in checkpoint_restore, touching nothing */
  int st = r->opt->restart && !run_checkpoint_resumable(r) ? SHARD_OK
                                                       : remove_stale_outputs(r->opt->out_dir, r->mops->outputs, r->continuing, msg);
  if (st != SHARD_OK || r->continuing) {
    free(rbuf);
    return st;
  }
  st = shard_write_atomic(r->opt->out_dir, "case.resolved.yaml", rbuf, rlen, msg);
  free(rbuf);
  if (st != SHARD_OK) return st;
  f = open_memstream(&pbuf, &plen);
  if (!f) return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for provenance.yaml");
  fprintf(f, "shard_version: \"%s\"\nshard_commit: \"%s\"\nabi: \"%u.%u\"\ncase_file: \"%s\"\n", SHARD_VERSION,
          shard_git_commit, SHARD_ABI_MAJOR, SHARD_ABI_MINOR, shard_case_path(r->c));
  fprintf(f, "plugins:\n");
  hash_plugin(&r->model_pi, f, "model");
  hash_plugin(&r->integ, f, "integrator");
  hash_plugin(&r->impact, f, "contact.impact");
  hash_plugin(&r->force, f, "contact.force");
  hash_plugin(&r->lcp, f, "lcp");
  hash_plugin(&r->fallback, f, "lcp.fallback");
  hash_plugin(&r->tsl, f, "fracture");
  /* every integer key named `seed` (or `*.seed`) of every section in use:
   * the model's, the fracture section's, a plugin's */
  fprintf(f, "seeds:\n");
  for (uint32_t si = 0; si < shard_case_n_sections; ++si)
    for (int host = 1; host >= 0; --host) {
      const shard_param_spec *specs;
      const char *sec = shard_case_sections[si].path;
      const uint32_t n = shard_case_section_specs(r->c, sec, host, &specs);
      for (uint32_t i = 0; i < n; ++i) {
        const char *k = specs[i].key, *dot = strrchr(k, '.');
        if (specs[i].type != SHARD_PARAM_INT || strcmp(dot ? dot + 1 : k, "seed") != 0) continue;
        char full[512];
        snprintf(full, sizeof full, "%s%s%s", sec, *sec ? "." : "", k);
        long long seed = 0;
        if (shard_case_has(r->c, full) && shard_case_int(r->c, full, NULL, &seed, r->diag) == SHARD_OK)
          fprintf(f, "  %s: %lld\n", full, seed);
      }
    }
  struct utsname un;
  if (uname(&un) == 0)
    fprintf(f, "host:\n  name: \"%s\"\n  system: \"%s %s\"\n  machine: \"%s\"\n", un.nodename, un.sysname, un.release,
            un.machine);
  fprintf(f, "run_hash: \"%s\"\n", r->run_hash);
  fclose(f);
  return shard_write_atomic_free(r->opt->out_dir, "provenance.yaml", pbuf, plen, msg);
}
