/* tests: files of run and campaign directories (fsio.c): atomic files,
 * temporaries that never follow a link, directory locks, plain names. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cu_runner.h"
#include "io/fsio.h"

static void fresh_dir(char *out, size_t n, const char *tag) {
  snprintf(out, n, "/tmp/shard_test_fsio_%ld_%s", (long)getpid(), tag);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out, out);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
}

static void remove_dir(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

static int same_text(const char *path, const char *text) {
  char buf[256] = "";
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  const size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strcmp(buf, text) == 0;
}

/* entries of dir whose name starts with prefix */
static int count_prefixed(const char *dir, const char *prefix) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^%s' > '%s.count'", dir, prefix, dir);
  if (system(cmd) < 0) return -1;
  char p[600];
  snprintf(p, sizeof p, "%s.count", dir);
  FILE *f = fopen(p, "r");
  int n = -1;
  if (f) {
    if (fscanf(f, "%d", &n) != 1) n = -1;
    fclose(f);
  }
  unlink(p);
  return n;
}

static void test_fsio_plain_names(void) {
  const char *good[] = {"a", "ball_e08", "my-study.2", "X", "a.b.c", "0"};
  const char *bad[] = {"", ".", "..", "../x", "a/b", "/abs", ".hidden", "a b", "a\\b", "x\n", "é"}; /* hostile input */
  for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i)
    CU_CHECK_MSG(shard_plain_name(good[i]), "'%s' refused", good[i]);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    CU_CHECK_MSG(!shard_plain_name(bad[i]), "'%s' accepted", bad[i]);
  CU_ASSERT_FALSE(shard_plain_name(NULL));
}

static void test_fsio_write_atomic_replaces_a_link_not_its_target(void) {
  char dir[256], victim[400], fin[400];
  fresh_dir(dir, sizeof dir, "atomic");
  snprintf(victim, sizeof victim, "%s/victim", dir);
  snprintf(fin, sizeof fin, "%s/out.csv", dir);
  put(victim, "precious\n");
  CU_ASSERT_EQUAL_FATAL(symlink(victim, fin), 0);
  shard_msg msg = {{0}};
  CU_ASSERT_EQUAL(shard_write_atomic(dir, "out.csv", "new\n", 4, &msg), SHARD_OK);
  struct stat sb;
  CU_ASSERT_EQUAL(lstat(fin, &sb), 0);
  CU_ASSERT_TRUE(S_ISREG(sb.st_mode));
  const mode_t um = umask(022);
  umask(um);
  CU_ASSERT_EQUAL(sb.st_mode & 0777, 0644 & ~um); /* 0644 before the umask */
  CU_ASSERT_TRUE(same_text(fin, "new\n"));
  CU_ASSERT_TRUE(same_text(victim, "precious\n"));
  CU_ASSERT_EQUAL(count_prefixed(dir, ".out.csv.tmp."), 0); /* no temporary left */
  remove_dir(dir);
}

static void test_fsio_create_refuses_existing_and_links(void) {
  char dir[256], victim[400], link[400], plain[400];
  fresh_dir(dir, sizeof dir, "create");
  snprintf(victim, sizeof victim, "%s/victim", dir);
  snprintf(link, sizeof link, "%s/.history.csv.partial", dir);
  snprintf(plain, sizeof plain, "%s/plain", dir);
  put(victim, "precious\n");
  CU_ASSERT_EQUAL_FATAL(symlink(victim, link), 0);
  shard_msg msg = {{0}};
  int fd = -1;
  CU_ASSERT_EQUAL(shard_file_create(link, &fd, &msg), SHARD_ERR_IO);
  CU_ASSERT_EQUAL(fd, -1);
  CU_CHECK_MSG(strstr(msg.text, link) && strstr(msg.text, "a file or link of that name is already there"), "%s",
               msg.text);
  CU_ASSERT_TRUE(same_text(victim, "precious\n"));
  /* a dangling link is refused too (O_EXCL never follows) */
  CU_ASSERT_EQUAL(unlink(victim), 0);
  CU_ASSERT_EQUAL(shard_file_create(link, &fd, &msg), SHARD_ERR_IO);
  CU_ASSERT_EQUAL(access(victim, F_OK), -1);
  put(plain, "x");
  CU_ASSERT_EQUAL(shard_file_create(plain, &fd, &msg), SHARD_ERR_IO);
  CU_ASSERT_EQUAL(unlink(plain), 0);
  CU_ASSERT_EQUAL(shard_file_create(plain, &fd, &msg), SHARD_OK);
  CU_ASSERT_TRUE(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
  if (fd >= 0) close(fd);
  remove_dir(dir);
}

static void test_fsio_temporaries_are_unique(void) {
  char dir[256], a[600], b[600];
  fresh_dir(dir, sizeof dir, "temp");
  shard_msg msg = {{0}};
  int fa = -1, fb = -1;
  CU_ASSERT_EQUAL_FATAL(shard_temp_create(dir, "summary.yaml", a, sizeof a, &fa, &msg), SHARD_OK);
  CU_ASSERT_EQUAL_FATAL(shard_temp_create(dir, "summary.yaml", b, sizeof b, &fb, &msg), SHARD_OK);
  CU_CHECK_MSG(strcmp(a, b) != 0, "two temporaries named %s", a);
  char prefix[400];
  snprintf(prefix, sizeof prefix, "%s/.summary.yaml.tmp.%ld.", dir, (long)getpid());
  CU_CHECK_MSG(strncmp(a, prefix, strlen(prefix)) == 0, "%s", a);
  close(fa), close(fb);
  remove_dir(dir);
}

static void test_fsio_write_errors_name_file_and_reason(void) {
  shard_msg msg = {{0}};
  const int fd = open("/dev/full", O_WRONLY);
  if (fd >= 0) {
    CU_ASSERT_EQUAL(shard_fd_write_all(fd, "DIR/history.csv", "abc", 3, &msg), SHARD_ERR_IO);
    CU_ASSERT_STRING_EQUAL(msg.text, "cannot write 'DIR/history.csv': No space left on device");
    close(fd);
  } else {
    CU_FAIL("/dev/full is missing");
  }
  CU_ASSERT_EQUAL(shard_write_atomic("/nonexistent/dir", "x.csv", "a", 1, &msg), SHARD_ERR_IO);
  CU_CHECK_MSG(strstr(msg.text, "/nonexistent/dir") && strstr(msg.text, "No such file or directory"), "%s",
               msg.text);
}

static void test_fsio_lock_exclusive_and_named(void) {
  char dir[256], expect[600];
  fresh_dir(dir, sizeof dir, "lock");
  shard_msg msg = {{0}};
  shard_dir_lock a = SHARD_DIR_LOCK_INIT, b = SHARD_DIR_LOCK_INIT;
  CU_ASSERT_EQUAL_FATAL(shard_dir_lock_acquire(&a, dir, NULL, "shard run a.yaml", &msg), SHARD_OK);
  /* another open file description conflicts, also in this process */
  CU_ASSERT_EQUAL(shard_dir_lock_acquire(&b, dir, NULL, "shard run b.yaml", &msg), SHARD_ERR_INPUT);
  snprintf(expect, sizeof expect, "'%s' is in use by process %ld on host ", dir, (long)getpid());
  CU_CHECK_MSG(strncmp(msg.text, expect, strlen(expect)) == 0 && strstr(msg.text, "(shard run a.yaml)"), "%s",
               msg.text);
  CU_ASSERT_EQUAL(b.fd, -1);
  /* a part (a slice) cannot join a whole lock */
  CU_ASSERT_EQUAL(shard_dir_lock_acquire(&b, dir, "slice-1-of-2", "s1", &msg), SHARD_ERR_INPUT);
  shard_dir_lock_release(&a);
  shard_dir_lock_release(&a); /* twice is fine */
  CU_ASSERT_EQUAL(shard_dir_lock_acquire(&b, dir, NULL, "shard run b.yaml", &msg), SHARD_OK);
  shard_dir_lock_release(&b);
  remove_dir(dir);
}

static void test_fsio_lock_parts_share(void) {
  char dir[256];
  fresh_dir(dir, sizeof dir, "parts");
  shard_msg msg = {{0}};
  shard_dir_lock s1 = SHARD_DIR_LOCK_INIT, s2 = SHARD_DIR_LOCK_INIT, x = SHARD_DIR_LOCK_INIT;
  CU_ASSERT_EQUAL_FATAL(shard_dir_lock_acquire(&s1, dir, "slice-1-of-2", "campaign --slice 1/2", &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_dir_lock_acquire(&s2, dir, "slice-2-of-2", "campaign --slice 2/2", &msg), SHARD_OK);
  CU_ASSERT_EQUAL(shard_dir_lock_acquire(&x, dir, "slice-1-of-2", "again", &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "(campaign --slice 1/2)") != NULL, "%s", msg.text);
  CU_ASSERT_EQUAL(shard_dir_lock_acquire(&x, dir, NULL, "whole", &msg), SHARD_ERR_INPUT);
  CU_CHECK_MSG(strstr(msg.text, "which holds part 'slice-") != NULL, "%s", msg.text);
  shard_dir_lock_release(&s1);
  shard_dir_lock_release(&s2);
  CU_ASSERT_EQUAL(shard_dir_lock_acquire(&x, dir, NULL, "whole", &msg), SHARD_OK);
  shard_dir_lock_release(&x);
  remove_dir(dir);
}

static void test_fsio_lock_file_never_a_link(void) {
  char dir[256], victim[400], lock[400];
  fresh_dir(dir, sizeof dir, "locklink");
  snprintf(victim, sizeof victim, "%s/victim", dir);
  snprintf(lock, sizeof lock, "%s/.lock", dir);
  put(victim, "precious\n");
  CU_ASSERT_EQUAL_FATAL(symlink(victim, lock), 0);
  shard_msg msg = {{0}};
  shard_dir_lock a = SHARD_DIR_LOCK_INIT;
  CU_ASSERT_EQUAL(shard_dir_lock_acquire(&a, dir, NULL, "x", &msg), SHARD_ERR_IO);
  CU_CHECK_MSG(strstr(msg.text, lock) != NULL, "%s", msg.text);
  CU_ASSERT_TRUE(same_text(victim, "precious\n"));
  remove_dir(dir);
}

static const cu_test_def tests[] = {
    {"test_fsio_plain_names", test_fsio_plain_names},
    {"test_fsio_write_atomic_replaces_a_link_not_its_target", test_fsio_write_atomic_replaces_a_link_not_its_target},
    {"test_fsio_create_refuses_existing_and_links", test_fsio_create_refuses_existing_and_links},
    {"test_fsio_temporaries_are_unique", test_fsio_temporaries_are_unique},
    {"test_fsio_write_errors_name_file_and_reason", test_fsio_write_errors_name_file_and_reason},
    {"test_fsio_lock_exclusive_and_named", test_fsio_lock_exclusive_and_named},
    {"test_fsio_lock_parts_share", test_fsio_lock_parts_share},
    {"test_fsio_lock_file_never_a_link", test_fsio_lock_file_never_a_link},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "fsio", tests); }
