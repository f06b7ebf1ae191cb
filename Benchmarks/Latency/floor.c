/* The latency floor: the least a libevdev pass-through can do. It grabs one
 * keyboard, makes a uinput copy of it, and writes every event it reads, with
 * nothing in between. `floor /dev/input/eventN` */
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: floor DEVNODE\n");
    return 64;
  }
  int fd = open(argv[1], O_RDONLY);
  struct libevdev *device = NULL;
  if (fd < 0 || libevdev_new_from_fd(fd, &device) < 0) {
    perror(argv[1]);
    return 66;
  }
  libevdev_grab(device, LIBEVDEV_GRAB);
  libevdev_set_name(device, "vkbd latency floor");
  struct libevdev_uinput *output = NULL;
  if (libevdev_uinput_create_from_device(device, LIBEVDEV_UINPUT_OPEN_MANAGED, &output) < 0) {
    fprintf(stderr, "floor: cannot create the uinput device\n");
    return 69;
  }
  fprintf(stderr, "floor: ready\n");
  for (;;) {
    struct input_event event;
    int status = libevdev_next_event(device, LIBEVDEV_READ_FLAG_NORMAL | LIBEVDEV_READ_FLAG_BLOCKING, &event);
    if (status == LIBEVDEV_READ_STATUS_SUCCESS) {
      libevdev_uinput_write_event(output, event.type, event.code, event.value);
    } else if (status != LIBEVDEV_READ_STATUS_SYNC && status != -EAGAIN) {
      return 0;
    }
  }
}
