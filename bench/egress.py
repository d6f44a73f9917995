#!/usr/bin/python3
# bench/egress.py: the two ends of bench/egress.sh, and its long path.
#   server PORTFILE [ADDR]   on ADDR (127.0.0.1; kernel-assigned port); each
#                            connection starts with one byte: "u" read to
#                            EOF and answer the count, "d" + 8-byte N:
#                            send N bytes and close, "e": echo one byte;
#                            after each "u" or "d" a line "CPU-MS BYTES"
#                            is appended to PORTFILE.cpu: the CPU time
#                            every process of the machine spent while the
#                            bytes moved (/proc/stat, not idle, iowait or
#                            steal)
#   client MODE HOST PORT up|down MIB NCONN SYNC
#                            MIB MiB to (up) or from (down) the server
#                            over NCONN connections at once, direct or
#                            through HTTP_PROXY (CONNECT); once all are
#                            open SYNC/ready is made, and once SYNC/start
#                            exists the bytes move; then it prints MiB/s,
#                            timed from the first byte to the last
#                            connection's end, makes SYNC/done and waits
#                            for SYNC/go (the caller reads the relay's
#                            CPU time in between)
#   client MODE HOST PORT conn N
#                            N connections, one byte each way; prints
#                            the mean microseconds per connection
#   path TUN-A TUN-B NETNS DELAY-MS READY
#                            a long path: two TUN devices, TUN-A here
#                            and TUN-B in network namespace NETNS (a
#                            path to its file), every packet carried
#                            from one to the other DELAY-MS later (each
#                            way); READY is made once both exist.  The
#                            packets keep their offload header (vnet):
#                            a segmentation-offloaded packet passes as
#                            one, as it would through a veth
# MODE: direct or proxy.
import collections
import ctypes
import fcntl
import os
import select
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


def server(portfile, addr):
    global CPU_LOG
    CPU_LOG = portfile + ".cpu"
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 0))
    s.listen(128)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve_one, args=(c,), daemon=True).start()


def connect(mode, host, port):
    if mode == "direct":
        return socket.create_connection((host, port))
    u = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])
    s = socket.create_connection((u.hostname, u.port))
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n"
              % (host.encode(), port, host.encode(), port))
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            sys.exit("bench: the broker closed the connection")
        head += b
    if not head.startswith(b"HTTP/1.1 200"):
        sys.exit("bench: " + head.split(b"\r\n")[0].decode())
    return s


def wait_file(path):
    for _ in range(60000):
        if os.path.exists(path):
            return
        time.sleep(0.005)
    sys.exit("bench: no " + path)


def move(s, what, n, errors):
    try:
        total = n * CHUNK
        if what == "up":
            buf = b"y" * CHUNK
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
            if len(got) < 8 or struct.unpack("!Q", got)[0] != total:
                errors.append("the server counted a different total")
        else:
            buf = bytearray(CHUNK)
            s.sendall(b"d" + struct.pack("!Q", total))
            got = 0
            while True:
                r = s.recv_into(buf)
                if r == 0:
                    break
                got += r
            if got != total:
                errors.append("short download")
        s.close()
    except OSError as e:
        errors.append(str(e))


def client(mode, host, port, what, n, nconn=1, sync=None):
    if what == "conn":
        t0 = time.perf_counter()
        for _ in range(n):
            s = connect(mode, host, port)
            s.sendall(b"ex")
            if s.recv(1) != b"x":
                sys.exit("bench: echo")
            s.close()
        print("%.1f" % ((time.perf_counter() - t0) * 1e6 / n))
        return
    socks = [connect(mode, host, port) for _ in range(nconn)]
    open(os.path.join(sync, "ready"), "w").close()
    wait_file(os.path.join(sync, "start"))
    errors = []
    each = max(1, n // nconn)
    t0 = time.perf_counter()
    th = [threading.Thread(target=move, args=(s, what, each, errors))
          for s in socks]
    for t in th:
        t.start()
    for t in th:
        t.join()
    dt = time.perf_counter() - t0
    if errors:
        sys.exit("bench: " + errors[0])
    print("%.1f" % (each * nconn / dt))
    sys.stdout.flush()
    open(os.path.join(sync, "done"), "w").close()
    wait_file(os.path.join(sync, "go"))


TUNSETIFF = 0x400454ca
TUNSETOFFLOAD = 0x400454d0
IFF_TUN, IFF_NO_PI, IFF_VNET_HDR = 0x0001, 0x1000, 0x4000
TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6 = 1, 2, 4
CLONE_NEWNET = 0x40000000


def tun(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack(
        "16sH", name.encode(), IFF_TUN | IFF_NO_PI | IFF_VNET_HDR))
    fcntl.ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)
    return fd


def setns(fd):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns")


def carry(src, dst, delay):
    q = collections.deque()
    while True:
        t = q[0][0] - time.monotonic() if q else None
        if t is None or t > 0:
            select.select([src], [], [], t)
        while True:
            try:
                p = os.read(src, 65536 + 64)
            except BlockingIOError:
                break
            q.append((time.monotonic() + delay, p))
        now = time.monotonic()
        while q and q[0][0] <= now:
            try:
                os.write(dst, q[0][1])
            except BlockingIOError:
                break
            except OSError:
                pass	# a packet the other side refuses is lost
            q.popleft()


def path(a, b, netns, delay_ms, ready):
    fa = tun(a)
    mine = os.open("/proc/self/ns/net", os.O_RDONLY)
    setns(os.open(netns, os.O_RDONLY))
    fb = tun(b)
    setns(mine)
    open(ready, "w").close()
    delay = delay_ms / 1000.0
    threading.Thread(target=carry, args=(fb, fa, delay), daemon=True).start()
    carry(fa, fb, delay)


if sys.argv[1] == "server":
    server(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1")
elif sys.argv[1] == "path":
    path(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]),
         sys.argv[6])
elif sys.argv[5] == "conn":
    client(sys.argv[2], sys.argv[3], int(sys.argv[4]), "conn",
           int(sys.argv[6]))
else:
    client(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5],
           int(sys.argv[6]), int(sys.argv[7]), sys.argv[8])
