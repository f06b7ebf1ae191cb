/* A suspend as the daemon sees it, without suspending the VM (suspend to
 * idle and S3 do not come back in the TCG VM with its 9p root): preloaded
 * into vkbd, this moves CLOCK_BOOTTIME ahead of CLOCK_MONOTONIC by the
 * seconds written in the file named by $VKBD_BOOTTIME_JUMP, read on every
 * call. Every other clock is left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int clock_gettime(clockid_t clock, struct timespec *time) {
  static int (*real)(clockid_t, struct timespec *);
  if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  int status = real(clock, time);
  const char *path = getenv("VKBD_BOOTTIME_JUMP");
  if (status != 0 || clock != CLOCK_BOOTTIME || !path) return status;
  FILE *file = fopen(path, "r");
  long seconds = 0;
  if (file) {
    if (fscanf(file, "%ld", &seconds) != 1) seconds = 0;
    fclose(file);
  }
  time->tv_sec += seconds;
  return status;
}
