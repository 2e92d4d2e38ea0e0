# pydeep.py - deep Python stacks for tests/e2e/t_pystack.sh: after the go
# (a line on stdin), os.getppid() once from each of stacks of 8, 9, 16,
# 17, 32, 33, 64, 65, 127 and 130 frames (down() n times, main,
# <module>), across the sizes of pystack's stack maps; prints "done", then
# waits for stdin to close before it exits.
import os
import sys


def down(n):
    if n == 0:
        os.getppid()
    else:
        down(n - 1)


def main():
    print("ready", flush=True)
    sys.stdin.readline()
    for frames in (8, 9, 16, 17, 32, 33, 64, 65, 127, 130):
        down(frames - 3)
    print("done", flush=True)
    sys.stdin.read()


main()
