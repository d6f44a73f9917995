#!/usr/bin/python3
# egress-mem.py PID [peak]: what confexec PID's egress broker holds in
# the kernel, read from the host, for tests/t-confexec-egress-mem.sh and
# bench/egress.sh.  Root: ss(8) -p and /proc/PID/fd.
#   sockets   confexec's own TCP sockets (ss -p names PID): those in the
#             host's network (to the destinations) and those in the run's
#             (from the payload; entered with nsenter through the
#             namespace descriptor confexec holds); each counts its skmem
#             r + w + f + o: received bytes queued, sent bytes queued
#             (until acknowledged), memory reserved ahead, options, as
#             the kernel charges them
#   pipes     the pipes confexec holds both ends of (the relay's): each
#             counts its size (F_GETPIPE_SZ) or the bytes in it
#             (FIONREAD), the larger
# One line: sockets=N socket_bytes=B pipes=N pipe_bytes=B total=B, then
# for each side, host (to the destinations) and run (from the payload):
# SIDE_sockets=N SIDE_rb_max=B SIDE_tb_max=B, the largest rcvbuf and
# sndbuf of its sockets as the kernel holds them (twice what SO_RCVBUF and
# SO_SNDBUF set), and buf_bytes=B, every socket's rcvbuf and sndbuf
# summed: what its queues may hold.  With "peak":
# sampled until the total has not grown by 1% for 30 samples in a row (about
# 3 s; 600 samples at most), the sample with the largest total, and
# samples=N.
import fcntl
import os
import re
import subprocess
import sys
import termios
import time

F_GETPIPE_SZ = 1032
SKMEM = re.compile(r"skmem:\(([^)]*)\)")


def fds(pid):
    d = "/proc/%d/fd" % pid
    out = {}
    for n in os.listdir(d):
        try:
            out[int(n)] = os.readlink(os.path.join(d, n))
        except OSError:
            pass
    return out


def sockets(pid, cmd):
    """The skmem fields of each TCP socket of pid's that cmd lists."""
    tag = "pid=%d," % pid
    found = []
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True,
                         text=True).stdout
    for line in out.splitlines():
        m = SKMEM.search(line)
        if tag not in line or m is None:
            continue
        v = {}
        for f in m.group(1).split(","):
            k = f.rstrip("0123456789")
            v[k] = int(f[len(k):])
        found.append(v)
    return found


def pipes(pid, table):
    ends = {}
    for n, link in table.items():
        if link.startswith("pipe:"):
            ends.setdefault(link, []).append(n)
    total = count = 0
    for link, ns in ends.items():
        if len(ns) < 2:
            continue	# not both ends: stdio, not the relay's
        try:
            fd = os.open("/proc/%d/fd/%d" % (pid, ns[0]),
                         os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue	# closed meanwhile
        try:
            size = fcntl.fcntl(fd, F_GETPIPE_SZ)
            inq = int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD,
                                             b"\0\0\0\0"), "little")
        finally:
            os.close(fd)
        total += max(size, inq)
        count += 1
    return count, total


def sample(pid):
    table = fds(pid)
    mine = os.readlink("/proc/self/ns/net")
    netns = [n for n, link in table.items()
             if link.startswith("net:") and link != mine]
    if len(netns) != 1:
        sys.exit("egress-mem.py: %d has %d network namespaces of another"
                 % (pid, len(netns)))
    host = sockets(pid, ["ss", "-tmpnOH"])
    run = sockets(pid, ["nsenter", "--net=/proc/%d/fd/%d" % (pid, netns[0]),
                        "ss", "-tmpnOH"])
    socks = host + run
    sb = sum(s.get("r", 0) + s.get("w", 0) + s.get("f", 0) + s.get("o", 0)
             for s in socks)
    np, pb = pipes(pid, table)
    out = {"sockets": len(socks), "socket_bytes": sb, "pipes": np,
           "pipe_bytes": pb, "total": sb + pb,
           "buf_bytes": sum(s.get("rb", 0) + s.get("tb", 0) for s in socks)}
    for side, ss in (("host", host), ("run", run)):
        out[side + "_sockets"] = len(ss)
        out[side + "_rb_max"] = max([s.get("rb", 0) for s in ss] or [0])
        out[side + "_tb_max"] = max([s.get("tb", 0) for s in ss] or [0])
    return out


def show(s):
    print(" ".join("%s=%d" % kv for kv in s.items()))


def main():
    pid = int(sys.argv[1])
    if len(sys.argv) < 3:
        show(sample(pid))
        return
    best, still, n = None, 0, 0
    while still < 30 and n < 600:
        s = sample(pid)
        n += 1
        if best is None or s["total"] > best["total"] * 1.01:
            still = 0
        else:
            still += 1
        if best is None or s["total"] > best["total"]:
            best = s
        time.sleep(0.1)
    best["samples"] = n
    show(best)


main()
