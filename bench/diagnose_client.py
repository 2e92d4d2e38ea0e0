# bench/diagnose_client.py - bench/diagnose's client:
#   python3 diagnose_client.py SOCKET CLIENTS REQUESTS
# CLIENTS threads share REQUESTS GET /infer requests over the Unix socket
# SOCKET (each its own keep-alive connection, one request after the
# other); prints "requests mean_ms p50_ms p99_ms req_per_s" measured here,
# from each request sent to its answer read.
import http.client
import socket
import sys
import threading
import time


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=120)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(120)
        s.connect(self.unix_path)
        self.sock = s


def client(path, n, out):
    c = UnixConnection(path)
    for _ in range(n):
        t0 = time.perf_counter()
        c.request("GET", "/infer")
        r = c.getresponse()
        r.read()
        if r.status != 200:
            sys.exit("answer %d" % r.status)
        out.append(time.perf_counter() - t0)


path, clients, requests = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lat = []
threads = [threading.Thread(target=client, args=(path, requests // clients, lat)) for _ in range(clients)]
t0 = time.perf_counter()
for t in threads:
    t.start()
for t in threads:
    t.join()
wall = time.perf_counter() - t0
lat.sort()
pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
print("%d %.1f %.1f %.1f %.2f" % (len(lat), 1000 * sum(lat) / len(lat), 1000 * pct(0.50),
                                  1000 * pct(0.99), len(lat) / wall))
