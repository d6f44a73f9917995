#!/usr/bin/python3
# egress-upstream.py ADDR PORTFILE LOG [ACCEPTLOG [freebind]]: the
# destination a run's egress broker relays to, for
# tests/t-confexec-egress.sh, tests/t-confexec-guard.sh and bench/.
# HTTP/1.1 on ADDR (a kernel-assigned port, written to PORTFILE):
#   POST /echo        the body back, byte for byte
#   GET /bytes/N      N bytes (i % 251)
#   POST /early       413 at once, the body unread (a reset follows)
#   anything else     200 "hello"
# LOG gets one line per request: the request line, then each header as
# "name: value" on the same line, tab-separated.  A connection that
# does not start with an HTTP request line is a raw echo (the tunnel
# tests send their own bytes), but for one that starts with "STALL\n":
# bytes sent until the connection fails, nothing more read (a small
# send buffer of its own: the queue that grows is the broker's).
# ACCEPTLOG, when given, gets one line per connection accepted, before
# anything is read.  With "freebind" ADDR need not be the host's yet
# (IP_FREEBIND, IPV6_FREEBIND): the listener answers once the host
# gains it.
import socket
import socketserver
import sys


class Handler(socketserver.StreamRequestHandler):
    def setup(self):
        if len(sys.argv) > 4:
            with open(sys.argv[4], "a") as log:
                log.write("accepted %s\n" % (self.client_address,))
        super().setup()

    def handle(self):
        line = self.rfile.readline(65537)
        if not line:
            return
        if line == b"STALL\n":
            self.request.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF,
                                    65536)
            chunk = b"s" * 65536
            try:
                while True:
                    self.request.sendall(chunk)
            except OSError:
                return
        if not line.endswith(b"HTTP/1.1\r\n") and not line.endswith(b"HTTP/1.0\r\n"):
            self.wfile.write(line)
            while True:
                b = self.request.recv(65536)
                if not b:
                    break
                self.request.sendall(b)
            return
        headers = []
        length = 0
        while True:
            h = self.rfile.readline(65537)
            if h in (b"\r\n", b"\n", b""):
                break
            headers.append(h.rstrip(b"\r\n").decode("latin-1"))
            name, _, value = headers[-1].partition(":")
            if name.lower() == "content-length":
                length = int(value.strip())
        with open(sys.argv[3], "a") as log:
            log.write(line.rstrip(b"\r\n").decode("latin-1") + "\t" +
                      "\t".join(headers) + "\n")
        method, path, _ = line.decode("latin-1").split(" ", 2)
        if method == "POST" and path == "/early":
            self.wfile.write(b"HTTP/1.1 413 Content Too Large\r\n"
                             b"Content-Length: 0\r\nConnection: close"
                             b"\r\n\r\n")
            self.wfile.flush()
            return
        body = self.rfile.read(length) if length else b""
        if method == "POST" and path == "/echo":
            out = body
        elif path.startswith("/bytes/"):
            n = int(path[7:])
            out = bytes(i % 251 for i in range(n))
        else:
            out = b"hello\n"
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n" % len(out))
        self.wfile.write(out)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def server_bind(self):
        if len(sys.argv) > 5 and sys.argv[5] == "freebind":
            if self.address_family == socket.AF_INET6:
                self.socket.setsockopt(socket.IPPROTO_IPV6, 78, 1)
            else:
                self.socket.setsockopt(socket.IPPROTO_IP, 15, 1)
        super().server_bind()


def main():
    addr = sys.argv[1]
    Server.address_family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    srv = Server((addr, 0), Handler)
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    import os
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    srv.serve_forever()


main()
