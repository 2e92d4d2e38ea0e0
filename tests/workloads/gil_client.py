# gil_client.py - the client of t_diagnose_gil.sh's service test:
#   python3 gil_client.py SOCKET N STOP WARM [GO [SECONDS]]
# N threads, each sending GET /infer over the Unix socket SOCKET, one
# request after the other, until the file STOP appears; then it prints
# the number of answers.  It writes the file WARM once each thread has had
# 10 answers (the server has started the threads that serve them); with
# GO, they then wait (asleep) until the file GO exists, looked for every
# millisecond (the test makes it when sonde starts tracing: no requests
# while sonde compiles), and SECONDS after it they stop (none while sonde
# ends and writes its report).
import http.client
import os
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


answers = []
warm = threading.Barrier(int(sys.argv[2]) + 1)
go = threading.Event()
stopping = False


def client(path, stop):
    c = UnixConnection(path)
    n = 0
    while not stopping and not os.path.exists(stop):
        c.request("GET", "/infer")
        r = c.getresponse()
        r.read()
        n += r.status == 200
        if n == 10:
            warm.wait()
            go.wait()
            # a connection idle that long is closed by the server
            # (uvicorn's keep-alive: 5 s): a new one
            c.close()
            c = UnixConnection(path)
    if n < 10:
        warm.abort()
    answers.append(n)


path, n, stop, warm_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
go_file = sys.argv[5] if len(sys.argv) > 5 else None
limit = float(sys.argv[6]) if len(sys.argv) > 6 else None
threads = [threading.Thread(target=client, args=(path, stop)) for _ in range(n)]
for t in threads:
    t.start()
try:
    warm.wait()
    with open(warm_file + ".tmp", "w") as f:
        f.write("warm\n")
    os.rename(warm_file + ".tmp", warm_file)
except threading.BrokenBarrierError:
    pass
while go_file and not os.path.exists(go_file) and not os.path.exists(stop):
    time.sleep(0.001)
go.set()
until = time.monotonic() + limit if limit else None
while until and any(t.is_alive() for t in threads) and time.monotonic() < until:
    time.sleep(0.05)
stopping = True
for t in threads:
    t.join()
print(sum(answers))
