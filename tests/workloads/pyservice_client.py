# pyservice_client.py - the client of tests/workloads/pyservice.py
# (t_pyservice.sh): N requests to each of /predict and /tokens, from
# CONCURRENT threads (each its own connection, the two paths alternating),
# then "done predict=OK tokens=OK": how many were answered 200.
#
#   python3 pyservice_client.py PORT N CONCURRENT
#   python3 pyservice_client.py PORT go          (GET /go, the test's mark)
import http.client
import sys
import threading
import urllib.parse

if sys.argv[2] == "go":
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=300)
    c.request("GET", "/go")
    print(c.getresponse().status)
    sys.exit(0)
port, n, conc = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
TEXT = urllib.parse.quote("the quick brown fox, jumps over the lazy dog near the river bank")
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
