# pyservice_client.py - the client of tests/workloads/pyservice.py
# (t_pyservice.sh): N requests to each of /predict and /tokens, from
# CONCURRENT threads (each its own connection, the two paths alternating),
# then "done predict=OK tokens=OK": how many were answered 200.
#
#   python3 pyservice_client.py PORT N CONCURRENT
#   python3 pyservice_client.py PORT go          (GET /go, the test's mark)
#   python3 pyservice_client.py PORT warm STOP   (the warm-up: one request to
#       each path five times a second, until the file STOP exists; at most
#       1500 rounds; then "warm ROUNDS")
import http.client
import os
import sys
import threading
import time
import urllib.parse

TEXT = urllib.parse.quote("the quick brown fox, jumps over the lazy dog near the river bank")
if sys.argv[2] == "go":
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=300)
    c.request("GET", "/go")
    print(c.getresponse().status)
    sys.exit(0)
if sys.argv[2] == "warm":
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=300)
    rounds = 0
    while rounds < 1500 and not os.path.exists(sys.argv[3]):
        for path in ("predict", "tokens"):
            c.request("GET", "/%s?text=%s" % (path, TEXT))
            c.getresponse().read()
        rounds += 1
        time.sleep(0.2)   # a pace, not a load: the sonde reads files meanwhile
    print("warm", rounds, flush=True)
    sys.exit(0)
port, n, conc = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
jobs = [p for _ in range(n) for p in ("predict", "tokens")]
ok = {"predict": 0, "tokens": 0}
lock = threading.Lock()


def worker():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    while True:
        with lock:
            if not jobs:
                break
            path = jobs.pop()
        c.request("GET", "/%s?text=%s" % (path, TEXT))
        r = c.getresponse()
        r.read()
        if r.status == 200:
            with lock:
                ok[path] += 1
    c.close()


threads = [threading.Thread(target=worker) for _ in range(conc)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("done predict=%d tokens=%d" % (ok["predict"], ok["tokens"]), flush=True)
