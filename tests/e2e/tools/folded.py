#!/usr/bin/env python3
"""folded.py - checks of the folded stack format and the flame graph SVG.

    folded.py collapse FILE   bpftrace-style text of stack maps -> folded lines
    folded.py format FILE     every line is a folded line, or say which is not
    folded.py svg FILE.svg    every box's width is its value's share of the width

collapse follows the rules of FlameGraph's stackcollapse-bpftrace.pl as
its source documents them (written here from those rules; the Perl is not
copied): a line "@[" opens a stack; each following line is a frame, its
leading whitespace dropped; a line matching ",? ?(.*)]: (\\d+)" closes it,
its text (the key parts after the stack, when there is any) becoming one
more frame; the frames are then printed in reverse, the root first, joined
by ";", a space, the count.  A one-line entry "@[, X]: N" prints "X N".

format: Brendan Gregg's folded format as flamegraph.pl reads it: frames
separated by ";", none empty, then one space and a decimal count.
"""
import re
import sys
import xml.etree.ElementTree as ET


def collapse(lines):
    out, stack, in_stack = [], [], False
    for line in lines:
        line = line.rstrip("\n")
        if not in_stack:
            if line == "@[":
                in_stack = True
            else:
                m = re.match(r"^@\[,\s(.*)\]: (\d+)", line)
                if m:
                    out.append("%s %s" % (m.group(1), m.group(2)))
            continue
        m = re.match(r"^,?\s?(.*)\]: (\d+)", line)
        if m:
            if m.group(1):
                stack.append(m.group(1))
            out.append(";".join(reversed(stack)) + " " + m.group(2))
            stack, in_stack = [], False
        else:
            stack.append(line.lstrip())
    return out


FOLDED = re.compile(r"^[^;\n]+(;[^;\n]+)* [0-9]+$")


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "collapse":
        with open(path) as f:
            for line in collapse(f):
                print(line)
        return 0
    if cmd == "format":
        bad = 0
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not FOLDED.match(line.rstrip("\n")) or "  " in line:
                    print("line %d is not folded: %r" % (n, line))
                    bad += 1
        return 1 if bad else 0
    if cmd == "svg":
        ns = {"s": "http://www.w3.org/2000/svg"}
        root = ET.parse(path).getroot()
        totals, boxes = {}, 0
        frames = root.findall(".//s:g[@data-v]", ns)
        for g in frames:
            if "root" in g.get("class").split():
                totals[g.get("data-s")] = int(g.get("data-v"))
        for g in frames:
            w = float(g.find("s:rect", ns).get("width"))
            want = int(g.get("data-v")) / totals[g.get("data-s")] * 1180
            if abs(w - want) > 0.001:
                print("box %s: width %.4f, value share %.4f" % (g.find("s:desc", ns).text, w, want))
                return 1
            boxes += 1
        print("ok %d boxes" % boxes)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
