#!/usr/bin/python3
# bench/egress.py: the two ends of bench/egress.sh.
#   server PORTFILE          on 127.0.0.1 (kernel-assigned port); each
#                            connection starts with one byte: "u" read to
#                            EOF and answer the count, "d" + 8-byte N:
#                            send N bytes and close, "e": echo one byte
#   client MODE DEST-PORT up|down MIB
#                            MIB MiB to (up) or from (down) the server,
#                            direct or through HTTP_PROXY (CONNECT);
#                            prints MiB/s, timed from the first byte
#   client MODE DEST-PORT conn N
#                            N connections, one byte each way; prints
#                            the mean microseconds per connection
# MODE: direct or proxy.
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse

CHUNK = 1 << 20


def serve_one(c):
    with c:
        k = c.recv(1)
        if k == b"u":
            n = 0
            buf = bytearray(CHUNK)
            while True:
                r = c.recv_into(buf)
                if r == 0:
                    break
                n += r
            c.sendall(struct.pack("!Q", n))
        elif k == b"d":
            hdr = b""
            while len(hdr) < 8:
                hdr += c.recv(8 - len(hdr))
            left = struct.unpack("!Q", hdr)[0]
            buf = memoryview(b"x" * CHUNK)  # slices without a copy
            while left > 0:
                c.sendall(buf[:min(left, CHUNK)])
                left -= min(left, CHUNK)
        elif k == b"e":
            c.sendall(c.recv(1))


def server(portfile):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve_one, args=(c,), daemon=True).start()


def connect(mode, port):
    if mode == "direct":
        return socket.create_connection(("127.0.0.1", port))
    u = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])
    s = socket.create_connection((u.hostname, u.port))
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
              % (port, port))
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            sys.exit("bench: the broker closed the connection")
        head += b
    if not head.startswith(b"HTTP/1.1 200"):
        sys.exit("bench: " + head.split(b"\r\n")[0].decode())
    return s


def client(mode, port, what, n):
    if what == "conn":
        t0 = time.perf_counter()
        for _ in range(n):
            s = connect(mode, port)
            s.sendall(b"ex")
            if s.recv(1) != b"x":
                sys.exit("bench: echo")
            s.close()
        print("%.1f" % ((time.perf_counter() - t0) * 1e6 / n))
        return
    total = n * CHUNK
    s = connect(mode, port)
    if what == "up":
        buf = b"y" * CHUNK
        t0 = time.perf_counter()
        s.sendall(b"u")
        for _ in range(n):
            s.sendall(buf)
        s.shutdown(socket.SHUT_WR)
        got = b""
        while len(got) < 8:
            r = s.recv(8 - len(got))
            if not r:
                break
            got += r
        if struct.unpack("!Q", got)[0] != total:
            sys.exit("bench: the server counted a different total")
    else:
        buf = bytearray(CHUNK)
        t0 = time.perf_counter()
        s.sendall(b"d" + struct.pack("!Q", total))
        got = 0
        while True:
            r = s.recv_into(buf)
            if r == 0:
                break
            got += r
        if got != total:
            sys.exit("bench: short download")
    dt = time.perf_counter() - t0
    print("%.1f" % (n / dt))


if sys.argv[1] == "server":
    server(sys.argv[2])
else:
    client(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
