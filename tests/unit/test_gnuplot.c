/* tests: the one gnuplot launcher (gnuplot.c): arguments, stdin from
 * /dev/null, stdout and stderr into the log descriptor, the outcome of a
 * missing, failing and succeeding gnuplot. A fake `gnuplot` script on PATH
 * stands in for the program. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cu_runner.h"
#include "io/gnuplot.h"

static char dir[256], old_path[8192];

static void setup_fake(const char *body) {
  snprintf(dir, sizeof dir, "/tmp/shard_test_gnuplot_%ld", (long)getpid());
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/bin'", dir, dir);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  char exe[400];
  snprintf(exe, sizeof exe, "%s/bin/gnuplot", dir);
  FILE *f = fopen(exe, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, "#!/bin/sh\n%s\n", body);
  fclose(f);
  CU_ASSERT_EQUAL_FATAL(chmod(exe, 0755), 0);
  const char *p = getenv("PATH");
  snprintf(old_path, sizeof old_path, "%s", p ? p : "");
  char path[400];
  snprintf(path, sizeof path, "%s/bin", dir);
  setenv("PATH", path, 1);
}

static void teardown(void) {
  setenv("PATH", old_path, 1);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static int open_log(char *path, size_t n) {
  snprintf(path, n, "%s/gnuplot.log", dir);
  return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

static void read_text(const char *path, char *buf, size_t n) {
  buf[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  const size_t k = fread(buf, 1, n - 1, f);
  buf[k] = '\0';
  fclose(f);
}

static void test_gnuplot_args_stdin_and_log(void) {
  /* prints its arguments to stdout, what it reads on stdin (PATH holds only the
   * fake: shell builtins) and a line on stderr */
  setup_fake("echo \"args:$#:$1:$2:$3\"; if read x; then echo \"stdin:$x\"; else echo 'stdin:eof'; fi; echo 'to stderr' >&2; exit 0");
  char log[400], text[512];
  const int fd = open_log(log, sizeof log);
  CU_ASSERT_FATAL(fd >= 0);
  const char *args[] = {"-e", "out='it''s.png'", "dir/spacetime.gp", NULL};
  shard_gnuplot_outcome out = SHARD_GNUPLOT_FAILED;
  int ws = -1;
  shard_msg msg = {0};
  CU_ASSERT_EQUAL(shard_gnuplot_run(args, fd, &out, &ws, &msg), SHARD_OK);
  close(fd);
  CU_ASSERT_EQUAL(out, SHARD_GNUPLOT_DONE);
  CU_ASSERT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  read_text(log, text, sizeof text);
  CU_ASSERT_STRING_EQUAL(text, "args:3:-e:out='it''s.png':dir/spacetime.gp\nstdin:eof\nto stderr\n");
  teardown();
}

static void test_gnuplot_failure_keeps_status(void) {
  setup_fake("echo 'line 1: undefined variable' >&2; exit 3");
  char log[400], text[512];
  const int fd = open_log(log, sizeof log);
  CU_ASSERT_FATAL(fd >= 0);
  const char *args[] = {"-e", "x", NULL};
  shard_gnuplot_outcome out = SHARD_GNUPLOT_DONE;
  int ws = 0;
  shard_msg msg = {0};
  CU_ASSERT_EQUAL(shard_gnuplot_run(args, fd, &out, &ws, &msg), SHARD_OK);
  close(fd);
  CU_ASSERT_EQUAL(out, SHARD_GNUPLOT_FAILED);
  CU_ASSERT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 3);
  read_text(log, text, sizeof text);
  CU_ASSERT_STRING_EQUAL(text, "line 1: undefined variable\n");
  teardown();
}

static void test_gnuplot_missing(void) {
  setup_fake("exit 0");
  char exe[400];
  snprintf(exe, sizeof exe, "%s/bin/gnuplot", dir);
  CU_ASSERT_EQUAL_FATAL(unlink(exe), 0); /* PATH holds no gnuplot */
  char log[400];
  const int fd = open_log(log, sizeof log);
  CU_ASSERT_FATAL(fd >= 0);
  const char *args[] = {"-e", "x", NULL};
  shard_gnuplot_outcome out = SHARD_GNUPLOT_DONE;
  int ws = 0;
  shard_msg msg = {0};
  CU_ASSERT_EQUAL(shard_gnuplot_run(args, fd, &out, &ws, &msg), SHARD_OK);
  close(fd);
  CU_ASSERT_EQUAL(out, SHARD_GNUPLOT_MISSING);
  /* the shell's "not found" exit code counts as missing too */
  teardown();
  setup_fake("exit 127");
  const int fd2 = open_log(log, sizeof log);
  CU_ASSERT_FATAL(fd2 >= 0);
  CU_ASSERT_EQUAL(shard_gnuplot_run(args, fd2, &out, &ws, &msg), SHARD_OK);
  close(fd2);
  CU_ASSERT_EQUAL(out, SHARD_GNUPLOT_MISSING);
  teardown();
}

static const cu_test_def tests[] = {
    {"test_gnuplot_args_stdin_and_log", test_gnuplot_args_stdin_and_log},
    {"test_gnuplot_failure_keeps_status", test_gnuplot_failure_keeps_status},
    {"test_gnuplot_missing", test_gnuplot_missing},
    {NULL, NULL},
};

int main(int argc, char **argv) { return cu_main(argc, argv, "gnuplot", tests); }
