# gil_client.py - the client of t_diagnose_gil.sh's service test:
#   python3 gil_client.py SOCKET N STOP WARM
# N threads, each sending GET /infer over the Unix socket SOCKET, one
# request after the other, until the file STOP appears; then it prints
# the number of answers.  It writes the file WARM once each thread has had
# 10 answers (the server has started the threads that serve them).
import http.client
import os
import socket
import sys
import threading


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


def client(path, stop):
    c = UnixConnection(path)
    n = 0
    while not os.path.exists(stop):
        c.request("GET", "/infer")
        r = c.getresponse()
        r.read()
        n += r.status == 200
        if n == 10:
            warm.wait()
    if n < 10:
        warm.abort()
    answers.append(n)


path, n, stop, warm_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
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
for t in threads:
    t.join()
print(sum(answers))
