#!/usr/bin/env python3
# serve-stall.py: stalled clients of journalchain serve, for
# tests/t-journalchain-serve.sh.
#
# usage: serve-stall.py HOST PORT N STREAMPATH M READY DONE
#   N connections that send half a request line and then nothing; M that
#   ask for STREAMPATH (an event stream) and never read (a small receive
#   buffer).  READY gets "N M" once all are connected and sent; then the
#   script watches the N half-request ones and writes "closed K" to DONE
#   when the server has closed all of them (or after 60 s, with K of
#   them closed), then exits 0.
import os
import select
import socket
import sys
import time

host, port, n, spath, m, ready, done = sys.argv[1:8]
port, n, m = int(port), int(n), int(m)

half = []
for _ in range(n):
    s = socket.create_connection((host, port))
    s.sendall(b"GET /api/runs HTTP/1.1\r\nHo")
    half.append(s)
streams = []
for _ in range(m):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((host, port))
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n" %
               (spath, host, port)).encode())
    streams.append(s)
with open(ready + ".tmp", "w") as f:
    f.write("%d %d\n" % (len(half), len(streams)))
os.rename(ready + ".tmp", ready)

closed = set()
end = time.monotonic() + 60
while len(closed) < len(half) and time.monotonic() < end:
    live = [s for s in half if s.fileno() not in closed]
    r, _, _ = select.select(live, [], [], 1.0)
    for s in r:
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        # An answer (408, 400) or the close: either way, not held.
        if not data:
            closed.add(s.fileno())
with open(done + ".tmp", "w") as f:
    f.write("closed %d\n" % len(closed))
os.rename(done + ".tmp", done)
