#!/usr/bin/python3
# egress-client.py MODE ...: what a payload does with its egress broker,
# for tests/t-confexec-egress.sh and bench/.  The broker is found as any
# client finds it: HTTP_PROXY in the environment.
#   urllib-echo URL IN OUT    POST file IN with urllib, the answer to OUT
#   tunnel-echo HOST PORT IN OUT
#                             http.client through CONNECT (set_tunnel),
#                             POST /echo, the answer to OUT
#   status URL                GET with urllib: the status code
#   raw TEXT                  TEXT (\r\n written as such) to the broker:
#                             its status line
#   limit N                   N idle connections, then one request: the
#                             status line of the last
#   hangup URL N             N times: GET URL (a large answer), read a
#                             little, close while the broker still writes
#   repeat N TEXT             N connections one after the other, TEXT to
#                             each: its status line (5 s each at most)
#   trickle TEXT              TEXT (\r and \n written as such) to the
#                             broker one byte per segment: its status
#                             line (5 s at most)
#   early URL N               POST N bytes to URL, the answer read once
#                             the sending stops (ends or fails): its
#                             status line
#   stall HOST PORT N READY GO
#                             N CONNECT tunnels to HOST:PORT, "STALL\n"
#                             on each (egress-upstream.py sends
#                             forever, reads nothing), then bytes sent
#                             on each while it takes them, nothing read;
#                             READY is made once every tunnel has
#                             refused more (EAGAIN) and has bytes waiting
#                             from the destination; once GO exists: the
#                             number of tunnels still open
#   sidestep ADDR PORTFILE GOFILE
#                             the broker's port to PORTFILE, then once
#                             GOFILE exists a direct connect to ADDR on
#                             that port: "OK" or the errno's name
import http.client
import os
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request


def proxy():
    u = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])
    return u.hostname, u.port


def status_line(s):
    """The answer's first line; "" when the broker closed the connection
    without one (a reset too: it closed it unread)."""
    buf = b""
    while b"\r\n" not in buf:
        try:
            b = s.recv(4096)
        except ConnectionResetError:
            break
        if not b:
            break
        buf += b
    return buf.split(b"\r\n", 1)[0].decode("latin-1")


def main():
    mode = sys.argv[1]
    if mode == "urllib-echo":
        with open(sys.argv[3], "rb") as f:
            data = f.read()
        req = urllib.request.Request(sys.argv[2], data=data, method="POST")
        with urllib.request.urlopen(req, timeout=30) as r, \
                open(sys.argv[4], "wb") as out:
            out.write(r.read())
    elif mode == "tunnel-echo":
        host, port = proxy()
        with open(sys.argv[4], "rb") as f:
            data = f.read()
        c = http.client.HTTPConnection(host, port, timeout=30)
        c.set_tunnel(sys.argv[2], int(sys.argv[3]))
        c.request("POST", "/echo", body=data)
        r = c.getresponse()
        with open(sys.argv[5], "wb") as out:
            out.write(r.read())
    elif mode == "status":
        try:
            with urllib.request.urlopen(sys.argv[2], timeout=30) as r:
                print(r.status)
        except urllib.error.HTTPError as e:
            print(e.code)
            print(e.read().decode("latin-1").strip())
    elif mode == "raw":
        s = socket.create_connection(proxy(), timeout=30)
        s.sendall(sys.argv[2].replace("\\r\\n", "\r\n").encode("latin-1"))
        print(status_line(s))
    elif mode == "limit":
        held = [socket.create_connection(proxy(), timeout=30)
                for _ in range(int(sys.argv[2]))]
        s = socket.create_connection(proxy(), timeout=30)
        s.sendall(b"GET http://192.0.2.1/ HTTP/1.1\r\nHost: x\r\n\r\n")
        print(status_line(s))
        del held
    elif mode == "hangup":
        import time
        for _ in range(int(sys.argv[3])):
            s = socket.create_connection(proxy(), timeout=30)
            s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n"
                      % sys.argv[2].encode())
            s.recv(100)
            s.shutdown(socket.SHUT_RDWR)
            s.close()
            time.sleep(0.2)
        print("done")
    elif mode == "repeat":
        text = sys.argv[3].replace("\\r\\n", "\r\n").encode("latin-1")
        for _ in range(int(sys.argv[2])):
            s = socket.create_connection(proxy(), timeout=5)
            s.sendall(text)
            try:
                print(status_line(s))
            except socket.timeout:
                print("timeout")
            s.close()
    elif mode == "trickle":
        import time
        s = socket.create_connection(proxy(), timeout=5)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        text = sys.argv[2].replace("\\r", "\r").replace("\\n", "\n")
        for b in text.encode("latin-1"):
            try:
                s.send(bytes([b]))
            except OSError:
                break	# refused before the end: the answer is there
            time.sleep(0.001)
        try:
            print(status_line(s))
        except socket.timeout:
            print("timeout")
    elif mode == "early":
        u = urllib.parse.urlsplit(sys.argv[2])
        n = int(sys.argv[3])
        s = socket.create_connection(proxy(), timeout=30)
        s.sendall(b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d"
                  b"\r\n\r\n" % (sys.argv[2].encode(), u.netloc.encode(), n))
        chunk = b"z" * 65536
        try:
            while n > 0:
                s.sendall(chunk[:min(n, len(chunk))])
                n -= min(n, len(chunk))
        except OSError:
            pass
        print(status_line(s))
    elif mode == "stall":
        import select
        import termios
        import fcntl
        import time
        socks = []
        for _ in range(int(sys.argv[4])):
            # small buffers of the payload's own: the queues that grow
            # are the broker's
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
            s.settimeout(30)
            s.connect(proxy())
            s.sendall(b"CONNECT %s:%s HTTP/1.1\r\n\r\n"
                      % (sys.argv[2].encode(), sys.argv[3].encode()))
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                b = s.recv(1)
                if not b:
                    sys.exit("stall: the broker closed a tunnel")
                head += b
            if not head.startswith(b"HTTP/1.1 200 "):
                sys.exit("stall: " + head.split(b"\r\n")[0].decode())
            s.sendall(b"STALL\n")
            s.setblocking(False)
            socks.append(s)
        chunk = b"p" * 65536
        full, fed, live = set(), set(), set(socks)
        ready = False
        while not os.path.exists(sys.argv[6]):
            for s in list(live):
                try:
                    while True:
                        s.send(chunk)
                except BlockingIOError:
                    full.add(s)
                except OSError:
                    live.discard(s)
                    continue
                inq = fcntl.ioctl(s, termios.FIONREAD, b"\0\0\0\0")
                if int.from_bytes(inq, "little") > 0:
                    fed.add(s)
            if not ready and len(full & fed) == len(socks):
                open(sys.argv[5], "w").close()
                ready = True
            select.select([], list(live), [], 0.05)
            time.sleep(0.01)	# a tunnel taking bytes slowly: no spin
        print(len(live))
    elif mode == "sidestep":
        import errno
        import time
        port = proxy()[1]
        with open(sys.argv[3] + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.rename(sys.argv[3] + ".tmp", sys.argv[3])
        while not os.path.exists(sys.argv[4]):
            time.sleep(0.02)
        s = socket.socket(socket.AF_INET6 if ":" in sys.argv[2]
                          else socket.AF_INET)
        try:
            s.connect((sys.argv[2], port))
            print("OK")
        except OSError as e:
            print(errno.errorcode.get(e.errno, str(e.errno)))
    else:
        sys.exit("egress-client.py: unknown mode " + mode)


main()
