/* A session agent that only moves the focus: connects to the daemon's agent
 * socket, says hello, then reports another window every INTERVAL_MS, by
 * turns of a terminal (a built-in rule covers it) and a browser (none
 * does), until it is stopped. Written in C so that what the benchmark sees
 * is the daemon's work per report, not an interpreter's.
 * `mover SOCKET INTERVAL_MS` */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mover SOCKET INTERVAL_MS\n");
    return 64;
  }
  int agent = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  strncpy(address.sun_path, argv[1], sizeof address.sun_path - 1);
  if (agent < 0 || connect(agent, (struct sockaddr *)&address, sizeof address) != 0) {
    perror(argv[1]);
    return 69;
  }
  const char *hello = "{\"version\":2,\"type\":\"hello\",\"agent\":\"mover\",\"source\":\"bench\"}\n";
  if (send(agent, hello, strlen(hello), MSG_NOSIGNAL) < 0) return 69;
  long interval = 0;
  sscanf(argv[2], "%ld", &interval);
  struct timespec pause = {interval / 1000, (interval % 1000) * 1000000};
  for (long window = 1;; window++) {
    char report[256];
    int length = snprintf(report, sizeof report,
                          "{\"version\":2,\"type\":\"focus\",\"window\":%ld,\"app\":\"%s\",\"title\":\"window %ld\"}\n",
                          window, window % 2 ? "foot" : "firefox", window);
    if (send(agent, report, (size_t)length, MSG_NOSIGNAL) < 0) return 0;  /* the daemon has stopped */
    nanosleep(&pause, NULL);
  }
}
