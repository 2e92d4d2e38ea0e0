# pystack.py - known Python stacks for tests/e2e/t_pystack.sh: each
# function calls os.getppid() a known number of times, from known chains.
# Reads one line (the go) from stdin, makes its calls, prints "done", then
# waits for stdin to close before it exits, so its memory can still be
# read when sonde prints.  With "late STOPFILE": then a thread started
# after the go calls os.getppid() from late_work() until STOPFILE exists,
# and prints "late N", its number of calls.  With "warm STOPFILE": before
# the calls, warm() calls os.getppid() until STOPFILE exists (a tracer
# has read the process meanwhile).
import os
import sys
import threading
import time


def b():
    os.getppid()


def a():
    for _ in range(3):
        b()


def c():
    for _ in range(5):
        os.getppid()


class K:
    def method(self):
        os.getppid()


def gen():
    for _ in range(2):
        os.getppid()
        yield 1


def key(x):
    os.getppid()
    return x


def late_work(stop):
    n = 0
    while not os.path.exists(stop):
        os.getppid()
        n += 1
        time.sleep(0.002)
    print("late", n, flush=True)


def warm(stop):
    while not os.path.exists(stop):
        os.getppid()
        time.sleep(0.002)


def main():
    print("ready", flush=True)
    sys.stdin.readline()
    if sys.argv[1:2] == ["warm"]:
        warm(sys.argv[2])
    a()
    c()
    K().method()
    list(gen())
    f = lambda: os.getppid()
    f()
    sorted([3, 1, 2, 4], key=key)
    if sys.argv[1:2] == ["late"]:
        t = threading.Thread(target=late_work, args=(sys.argv[2],))
        t.start()
        t.join()
    print("done", flush=True)
    sys.stdin.read()


main()
