/* Reads key events (with `rel`, relative motion) from the device named NAME
 * (not EXCLUDED_NODE) with CLOCK_MONOTONIC kernel timestamps, until COUNT
 * have come or IDLE_MS pass without one, and prints "code value time_us"
 * lines. It says "probe: ready" on stderr once it reads.
 * `probe NAME EXCLUDED_NODE COUNT IDLE_MS [rel]` */
#include <dirent.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 5 && !(argc == 6 && strcmp(argv[5], "rel") == 0)) {
    fprintf(stderr, "usage: probe NAME EXCLUDED_NODE COUNT IDLE_MS [rel]\n");
    return 64;
  }
  int wanted = argc == 6 ? EV_REL : EV_KEY;
  int count = atoi(argv[3]), idle = atoi(argv[4]);
  struct libevdev *device = NULL;
  int fd = -1;
  for (int attempt = 0; attempt < 600 && device == NULL; attempt++) {
    DIR *directory = opendir("/dev/input");
    struct dirent *entry;
    while (directory && (entry = readdir(directory)) != NULL && device == NULL) {
      if (strncmp(entry->d_name, "event", 5) != 0) continue;
      char path[300];
      snprintf(path, sizeof path, "/dev/input/%s", entry->d_name);
      if (strcmp(path, argv[2]) == 0) continue;
      fd = open(path, O_RDONLY | O_NONBLOCK);
      if (fd < 0) continue;
      if (libevdev_new_from_fd(fd, &device) == 0 && strcmp(libevdev_get_name(device), argv[1]) == 0) break;
      if (device) libevdev_free(device);
      device = NULL;
      close(fd);
    }
    if (directory) closedir(directory);
    if (device == NULL) usleep(100000);
  }
  if (device == NULL) {
    fprintf(stderr, "probe: no device %s\n", argv[1]);
    return 66;
  }
  libevdev_set_clock_id(device, CLOCK_MONOTONIC);
  fprintf(stderr, "probe: ready\n");
  int seen = 0, dropped = 0;
  struct pollfd ready = {fd, POLLIN, 0};
  while (seen < count && poll(&ready, 1, idle) > 0 && !(ready.revents & (POLLERR | POLLHUP))) {
    struct input_event event;
    int status;
    while ((status = libevdev_next_event(device, LIBEVDEV_READ_FLAG_NORMAL, &event)) >= 0) {
      if (status == LIBEVDEV_READ_STATUS_SYNC) {
        dropped = 1;
        while (libevdev_next_event(device, LIBEVDEV_READ_FLAG_SYNC, &event) == LIBEVDEV_READ_STATUS_SYNC) {}
        continue;
      }
      if (event.type == wanted && !(wanted == EV_KEY && event.value == 2)) {
        printf("%d %d %lld\n", event.code, event.value, event.input_event_sec * 1000000LL + event.input_event_usec);
        seen++;
      }
    }
  }
  if (dropped) printf("dropped\n");
  fflush(stdout);
  return 0;
}
