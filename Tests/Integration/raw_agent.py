"""An agent driven by hand, for tests of who may report: connects to the
daemon's agent socket, prints every line the daemon sends (and `closed` when
it closes the connection), and sends every line read from standard input as
it is.

    raw_agent.py SOCKET"""

import socket
import sys
import threading

connection = socket.socket(socket.AF_UNIX)
connection.connect(sys.argv[1])


def receive():
    pending = b""
    while True:
        data = connection.recv(65536)
        if not data:
            print("closed", flush=True)
            return
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            print(line.decode("utf-8", "replace"), flush=True)


threading.Thread(target=receive, daemon=True).start()
for line in sys.stdin:
    connection.sendall(line.encode("utf-8"))
