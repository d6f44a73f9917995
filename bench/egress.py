#!/usr/bin/python3
# bench/egress.py: the two ends of bench/egress.sh.
#   server PORTFILE          on 127.0.0.1 (kernel-assigned port); each
#                            connection starts with one byte: "u" read to
#                            EOF and answer the count, "d" + 8-byte N:
#                            send N bytes and close, "e": echo one byte;
#                            after each "u" or "d" a line "CPU-MS BYTES"
#                            is appended to PORTFILE.cpu: the CPU time
#                            every process of the machine spent while the
#                            bytes moved (/proc/stat, not idle, iowait or
#                            steal)
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
TICK_MS = 1000.0 / os.sysconf("SC_CLK_TCK")
CPU_LOG = None
CPU_LOCK = threading.Lock()


def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal: the busy ones
    return v[0] + v[1] + v[2] + v[5] + v[6]


def log_cpu(t0, n):
    ms = (busy_ticks() - t0) * TICK_MS
    with CPU_LOCK, open(CPU_LOG, "a") as f:
        f.write("%.0f %d\n" % (ms, n))


def serve_one(c):
    with c:
        k = c.recv(1)
        if k == b"u":
            n = 0
            buf = bytearray(CHUNK)
            t0 = busy_ticks()
            while True:
                r = c.recv_into(buf)
                if r == 0:
                    break
                n += r
            log_cpu(t0, n)
            c.sendall(struct.pack("!Q", n))
        elif k == b"d":
            hdr = b""
            while len(hdr) < 8:
                hdr += c.recv(8 - len(hdr))
            left = total = struct.unpack("!Q", hdr)[0]
            buf = memoryview(b"x" * CHUNK)  # slices without a copy
            t0 = busy_ticks()
            while left > 0:
                c.sendall(buf[:min(left, CHUNK)])
                left -= min(left, CHUNK)
            # the last bytes are in flight: wait for the client's close
            c.shutdown(socket.SHUT_WR)
            try:
                c.recv(1)
            except OSError:
                pass
            log_cpu(t0, total)
        elif k == b"e":
            c.sendall(c.recv(1))


def server(portfile):
    global CPU_LOG
    CPU_LOG = portfile + ".cpu"
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
        s.close()
        if got != total:
            sys.exit("bench: short download")
    dt = time.perf_counter() - t0
    print("%.1f" % (n / dt))


if sys.argv[1] == "server":
    server(sys.argv[2])
else:
    client(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
