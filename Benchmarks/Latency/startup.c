/* Start-up time: runs PROGRAM with its standard error on a pipe and, once a
 * line of it holds TEXT, prints "PID MICROSECONDS" (CLOCK_MONOTONIC from just
 * before the fork). It passes the child's standard error on to its own
 * until the child exits, and exits as it did. `startup TEXT PROGRAM [ARG...]` */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000000LL + now.tv_nsec / 1000;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: startup TEXT PROGRAM [ARG...]\n");
    return 64;
  }
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return 71;
  long long began = now_us();
  pid_t child = fork();
  if (child == 0) {
    dup2(pipe_fds[1], 2);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execv(argv[2], argv + 2);
    _exit(127);
  }
  close(pipe_fds[1]);
  FILE *log = fdopen(pipe_fds[0], "r");
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof line, log) != NULL) {
    fputs(line, stderr);
    if (!found && strstr(line, argv[1]) != NULL) {
      printf("%d %lld\n", (int)child, now_us() - began);
      fflush(stdout);
      found = 1;
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!found) fprintf(stderr, "startup: %s exited before it wrote %s\n", argv[2], argv[1]);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
