/* A uinput keyboard that types COUNT letter keys, one key-down every
 * INTERVAL microseconds (its key-up halfway), once it gets SIGUSR1; then it
 * prints the CLOCK_MONOTONIC time, in microseconds, of each write: a line
 * "code value time". With `pointer`, the keyboard is also a pointer (a left
 * button and X, Y and wheel axes, as a keyboard with a touchpad) and moves
 * COUNT times instead, REL_X by 1 and -1 in turn, one frame every INTERVAL.
 * `source NAME COUNT INTERVAL_US [pointer]` */
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000000LL + now.tv_nsec / 1000;
}

static void sleep_until(long long us) {
  struct timespec at = {us / 1000000, (us % 1000000) * 1000};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0) {}
}

int main(int argc, char **argv) {
  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "pointer") == 0)) {
    fprintf(stderr, "usage: source NAME COUNT INTERVAL_US [pointer]\n");
    return 64;
  }
  int pointer = argc == 5;
  int count = atoi(argv[2]);
  long long interval = atoll(argv[3]);
  static const int letters[] = {KEY_Q, KEY_W, KEY_E, KEY_R, KEY_T, KEY_Y, KEY_U, KEY_I, KEY_O, KEY_P, KEY_A,
    KEY_S, KEY_D, KEY_F, KEY_G, KEY_H, KEY_J, KEY_K, KEY_L, KEY_Z, KEY_X, KEY_C, KEY_V, KEY_B, KEY_N, KEY_M};
  struct libevdev *template = libevdev_new();
  libevdev_set_name(template, argv[1]);
  libevdev_enable_event_type(template, EV_KEY);
  for (int code = KEY_ESC; code <= KEY_MICMUTE; code++) libevdev_enable_event_code(template, EV_KEY, code, NULL);
  if (pointer) {
    libevdev_enable_event_code(template, EV_KEY, BTN_LEFT, NULL);
    for (int code = REL_X; code <= REL_WHEEL; code++) libevdev_enable_event_code(template, EV_REL, code, NULL);
  }
  struct libevdev_uinput *device = NULL;
  if (libevdev_uinput_create_from_device(template, LIBEVDEV_UINPUT_OPEN_MANAGED, &device) < 0) {
    fprintf(stderr, "source: cannot create the uinput device\n");
    return 69;
  }
  sigset_t go;
  sigemptyset(&go);
  sigaddset(&go, SIGUSR1);
  sigprocmask(SIG_BLOCK, &go, NULL);
  fprintf(stderr, "source: ready\n");
  int signal_number;
  sigwait(&go, &signal_number);
  long long *times = calloc(2 * (size_t)count, sizeof *times);
  int *codes = calloc((size_t)count, sizeof *codes);
  long long start = now_us() + 10000;
  if (pointer) {
    for (int move = 0; move < count; move++) {
      sleep_until(start + move * interval);
      times[move] = now_us();
      libevdev_uinput_write_event(device, EV_REL, REL_X, move % 2 ? -1 : 1);
      libevdev_uinput_write_event(device, EV_SYN, SYN_REPORT, 0);
    }
    usleep(100000);
    for (int move = 0; move < count; move++) printf("%d %d %lld\n", REL_X, move % 2 ? -1 : 1, times[move]);
    fflush(stdout);
    sleep(1);
    libevdev_uinput_destroy(device);
    return 0;
  }
  for (int key = 0; key < count; key++) {
    codes[key] = letters[key % 26];
    for (int value = 1; value >= 0; value--) {
      sleep_until(start + key * interval + (value ? 0 : interval / 2));
      times[2 * key + (1 - value)] = now_us();
      libevdev_uinput_write_event(device, EV_KEY, codes[key], value);
      libevdev_uinput_write_event(device, EV_SYN, SYN_REPORT, 0);
    }
  }
  /* Printing is a burst of work that would delay the reader of the last key. */
  usleep(100000);
  for (int key = 0; key < count; key++) {
    printf("%d 1 %lld\n%d 0 %lld\n", codes[key], times[2 * key], codes[key], times[2 * key + 1]);
  }
  fflush(stdout);
  sleep(1);  /* the reader drains before the device goes */
  libevdev_uinput_destroy(device);
  return 0;
}
