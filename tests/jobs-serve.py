#!/usr/bin/python3
# jobs-serve.py ADDR PORTFILE DIR LOG [CERT KEY]: a loopback stand-in for
# a package registry, for tests/t-jobs.sh: DIR's files over HTTP/1.1 on
# ADDR (a kernel-assigned port, written to PORTFILE once listening), or
# over HTTPS with CERT and KEY.  A path naming a directory serves its
# "index.json" (an npm registry's package document at /NAME).  LOG gets
# one line per request: the method, the path and the status, so that a
# test can tell the run reached the stand-in.  Nothing else is served:
# no listing, nothing outside DIR.
import http.server
import os
import ssl
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def __init__(self, *a, **kw):
        super().__init__(*a, directory=sys.argv[3], **kw)

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.json")
            if not os.path.isfile(index):
                self.send_error(404)
                return None
            f = open(index, "rb")
            size = os.fstat(f.fileno()).st_size
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            return f
        return super().send_head()

    def log_request(self, code="-", size="-"):
        with open(sys.argv[4], "a") as log:
            log.write("%s %s %s\n" % (self.command, self.path, code))

    def log_message(self, *a):
        pass


def main():
    srv = http.server.ThreadingHTTPServer((sys.argv[1], 0), Handler)
    srv.daemon_threads = True
    if len(sys.argv) > 6:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[5], sys.argv[6])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, sys.argv[2])
    srv.serve_forever()


if __name__ == "__main__":
    main()
