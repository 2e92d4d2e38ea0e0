#!/usr/bin/env python3
"""normalise.py - make bpftrace's and sonde's outputs comparable.

Reads one tool's stdout on stdin and writes it back with only what must be
normalised changed (tests/diff/README.md says why each one is needed):

  * bpftrace's "Attaching N probes..." line goes (sonde writes "Attached N
    probes" on stderr, which the suite does not compare);
  * --json: blank lines go (bpftrace writes "\\n\\n" before the exit-time
    maps even in JSON mode; sonde writes only JSON lines), and with
    --validate every remaining line must parse as JSON (exit status 3);
  * map entries with equal values are put in key order: bpftrace sorts
    entries by value and leaves ties in hash-table order, sonde orders them
    by key, so a run of equal-valued entries of one map is sorted by its
    text on both sides;
  * --mask REGEX (repeatable): every match becomes "<M>" (pids, addresses,
    times: what differs from run to run);
  * --sort-lines: all lines sorted (output from several CPUs whose order
    no tool controls).
"""
import json
import re
import sys

ATTACHING = re.compile(r'^Attaching \d+ probes?\.\.\.$')
ENTRY_HEAD = re.compile(r'^(@[A-Za-z0-9_]*)([\[:])')
ONE_LINE = re.compile(r'^@[A-Za-z0-9_]*(\[.*\])?: (\S.*)$')
KEY_END = re.compile(r'^\]: (.*)$')
BAR = re.compile(r'\s(\d+) \|[@ ]*\|$')


def entry_value(lines):
    """What bpftrace sorted this entry by, as a comparable string."""
    m = ONE_LINE.match(lines[0])
    if m and len(lines) == 1:
        return 'v:' + m.group(2)
    m = KEY_END.match(lines[-1])
    if m:                               # a stack as key: "@[\n  f+1\n]: 5"
        return 'v:' + m.group(1)
    total = 0                           # hist/lhist: total count
    for l in lines[1:]:
        b = BAR.search(l)
        if b:
            total += int(b.group(1))
    return 'h:%d' % total


def sort_text_ties(lines):
    # tokens: ('e', name, [lines]) for a map entry, ('o', line) otherwise
    toks = []
    i = 0
    while i < len(lines):
        m = ENTRY_HEAD.match(lines[i])
        if not m:
            toks.append(('o', lines[i]))
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != '' and not ENTRY_HEAD.match(lines[j]):
            j += 1
        toks.append(('e', m.group(1), lines[i:j]))
        i = j
    # runs of entries of one map, blank lines between them allowed
    out = []
    i = 0
    while i < len(toks):
        if toks[i][0] != 'e':
            out.extend([toks[i][1]])
            i += 1
            continue
        name = toks[i][1]
        j = i
        while j < len(toks) and (toks[j][0] == 'e' and toks[j][1] == name or
                                 toks[j][0] == 'o' and toks[j][1] == '' and
                                 j + 1 < len(toks) and toks[j + 1][0] == 'e' and
                                 toks[j + 1][1] == name):
            j += 1
        run = toks[i:j]
        slots = [k for k, t in enumerate(run) if t[0] == 'e']
        ents = [run[k][2] for k in slots]
        # sort each group of consecutive equal values by text
        res = []
        k = 0
        while k < len(ents):
            v = entry_value(ents[k])
            g = k
            while g < len(ents) and entry_value(ents[g]) == v:
                g += 1
            res.extend(sorted(ents[k:g]))
            k = g
        for k, s in enumerate(slots):
            run[s] = ('e', name, res[k])
        for t in run:
            if t[0] == 'e':
                out.extend(t[2])
            else:
                out.append(t[1])
        i = j
    return out


def json_sort_key(v):
    if isinstance(v, list):             # hist: total count
        return ('h', sum(b.get('count', 0) for b in v if isinstance(b, dict)))
    return ('v', json.dumps(v))


def sort_json_ties(line):
    """A map line whose keyed entries hold ties gets them in key order,
    re-serialised the same way on both sides; other lines stay as bytes."""
    try:
        obj = json.loads(line, object_pairs_hook=lambda p: p)
    except ValueError:
        return line
    d = dict(obj) if isinstance(obj, list) else {}
    data = d.get('data')
    if d.get('type') not in ('map', 'hist', 'stats') or not isinstance(data, list) \
            or len(data) != 1 or not isinstance(data[0][1], list) \
            or not all(isinstance(p, tuple) for p in data[0][1]):
        return line
    pairs = data[0][1]
    res, k, changed = [], 0, False
    while k < len(pairs):
        v = json_sort_key(to_plain(pairs[k][1]))
        g = k
        while g < len(pairs) and json_sort_key(to_plain(pairs[g][1])) == v:
            g += 1
        grp = sorted(pairs[k:g], key=lambda p: p[0])
        changed |= g - k > 1
        res.extend(grp)
        k = g
    if not changed:
        return line
    plain = {'type': d['type'], 'data': {data[0][0]: {p[0]: to_plain(p[1]) for p in res}}}
    return json.dumps(plain, separators=(', ', ': '))


def to_plain(v):
    if isinstance(v, list) and all(isinstance(p, tuple) for p in v) and v:
        return {p[0]: to_plain(p[1]) for p in v}
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    return v


def main(argv):
    is_json = validate = sort_lines = False
    masks = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '--json':
            is_json = True
        elif a == '--validate':
            validate = True
        elif a == '--sort-lines':
            sort_lines = True
        elif a == '--mask':
            i += 1
            masks.append(re.compile(argv[i]))
        i += 1
    text = sys.stdin.buffer.read().decode('utf-8', 'surrogateescape')
    trailing_nl = text.endswith('\n')
    lines = text.split('\n')
    if trailing_nl:
        lines.pop()
    lines = [l for l in lines if not ATTACHING.match(l)]
    bad = 0
    if is_json:
        lines = [l for l in lines if l != '']
        if validate:
            for l in lines:
                try:
                    json.loads(l)
                except ValueError as e:
                    if bad == 0:
                        sys.stderr.write('invalid JSON line: %s\n    (%s)\n' % (l[:200], e))
                    bad += 1
        lines = [sort_json_ties(l) for l in lines]
    else:
        lines = sort_text_ties(lines)
    for m in masks:
        lines = [m.sub('<M>', l) for l in lines]
    if sort_lines:
        lines.sort()
    out = '\n'.join(lines) + ('\n' if trailing_nl and lines else '')
    sys.stdout.buffer.write(out.encode('utf-8', 'surrogateescape'))
    return 3 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
