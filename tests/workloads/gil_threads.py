# gil_threads.py - four threads for `sonde diagnose`'s GIL test
# (t_diagnose_gil.sh):
#   python3 gil_threads.py MODE READY STOP [GO [SECONDS]]
# MODE spin: each thread runs spin(), a pure-Python loop, in rounds of
# 20,000 iterations, and makes no system call: the four serialize on the
# GIL.  MODE sleep: each sleeps in time.sleep(); MODE hash: each hashes a
# 16 MiB buffer with hashlib, which releases the GIL while it hashes;
# MODE torch: each multiplies 384x384 matrices with torch.mm (one torch
# thread), which releases it too.  The
# program writes READY once its four threads (all named "AnyIO worker
# thread", as anyio names its pool's) have started; with GO, they wait
# (asleep) until the file GO exists, looked for every millisecond, before
# they work (the test makes it when sonde starts tracing: no work while
# sonde compiles), and SECONDS after it they stop working (none while
# sonde ends and writes its report) and wait, asleep.  The main thread
# looks for the file STOP every 50 ms, and the threads end after the
# round in which it appeared.
import hashlib
import os
import sys
import threading
import time


def spin(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


stopping = False
go = threading.Event()
finish = threading.Event()


def run(work):
    work()
    finish.wait()


def sleeper():
    go.wait()
    while not stopping:
        time.sleep(0.05)


def hasher():
    buf = b"\x5a" * (16 << 20)
    go.wait()
    while not stopping:
        hashlib.sha256(buf).digest()


def multiplier():
    import torch
    torch.set_num_threads(1)
    a = torch.rand(384, 384)
    go.wait()
    while not stopping:
        torch.mm(a, a)


def spinner():
    go.wait()
    while not stopping:
        spin(20000)


def main():
    global stopping
    mode, ready, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    go_file = sys.argv[4] if len(sys.argv) > 4 else None
    limit = float(sys.argv[5]) if len(sys.argv) > 5 else None
    work = {"spin": spinner, "sleep": sleeper, "hash": hasher, "torch": multiplier}[mode]
    if mode == "torch":
        import torch  # noqa: F401 (once, before the threads: not inside the window)
    threads = [threading.Thread(target=run, args=(work,), name="AnyIO worker thread") for i in range(4)]
    for t in threads:
        t.start()
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(ready + ".tmp", ready)
    while go_file and not os.path.exists(go_file) and not os.path.exists(stop):
        time.sleep(0.001)
    go.set()
    until = time.monotonic() + limit if limit else None
    while not os.path.exists(stop):
        stopping = stopping or bool(until and time.monotonic() > until)
        time.sleep(0.05)
    stopping = True
    finish.set()
    for t in threads:
        t.join()


main()
