#!/usr/bin/env python3
"""aggnums.py FORMAT < OUTPUT: the numbers of every map in one of sonde's
outputs, one canonical line each, so that two outputs of one workload can
be compared whatever their format (t_aggout.sh).

FORMAT is text, json or prom (Prometheus text or OpenMetrics, served or
written to a textfile).  A line is "MAP[KEY] FIELD VALUE":
  count, sum, min, max, avg: FIELD "v" (avg truncated to an integer as
  the text prints it);  stats: "count" and "total";  hist, lhist: one
  "le=BOUND" per non-empty bucket (its own count, not cumulative, BOUND
  the bucket's exclusive upper end, +Inf for lhist's [max, ...)) and
  "count".  In prom, hist and lhist also give "sum" (the _sum sample).
--sum H=S (text, json): give hist H the "sum" line that map S holds for
  the same key (a sum() of the same values), so prom's _sum is checked.
"""
import json
import re
import sys

SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}


def num(s):
    m = re.fullmatch(r"(-?\d+)([KMGTPE]?)", s.strip())
    return int(m.group(1)) * SUFFIX[m.group(2)]


def text_bound(label):
    """a text bucket label -> its exclusive upper bound"""
    label = label.strip()
    if label.startswith("(..., "):
        return str(num(label[6:-1]))
    if label.endswith(", ...)"):
        return "+Inf"
    m = re.fullmatch(r"\[(-?\w+)\]", label)
    if m:
        return str(num(m.group(1)) + 1)
    m = re.fullmatch(r"\[(-?\w+), (-?\w+)\)", label)
    return str(num(m.group(2)))


def parse_text(lines):
    out = {}
    hist = None
    for line in lines:
        if hist is not None:
            m = re.match(r"^([\[(].*?[\])])\s+(\d+) \|", line)
            if m:
                if int(m.group(2)):
                    out[hist + " le=" + text_bound(m.group(1))] = int(m.group(2))
                out[hist + " count"] = out.get(hist + " count", 0) + int(m.group(2))
                continue
            hist = None
        m = re.match(r"^(@\w*)(?:\[(.*)\])?: (.*)$", line)
        if not m:
            continue
        name = "%s[%s]" % (m.group(1), m.group(2) or "")
        v = m.group(3)
        if v == "":
            hist = name
            continue
        s = re.fullmatch(r"count (-?\d+), average (-?\d+), total (-?\d+)", v)
        if s:
            out[name + " count"] = int(s.group(1))
            out[name + " total"] = int(s.group(3))
        else:
            out[name + " v"] = int(v)
    return out


def parse_json(lines):
    out = {}
    for line in lines:
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec["type"] not in ("map", "stats", "hist"):
            continue
        for mname, data in rec["data"].items():
            entries = data.items() if isinstance(data, dict) and rec["type"] != "stats" or \
                (rec["type"] == "stats" and isinstance(data, dict) and "count" not in data) else [("", data)]
            for key, v in entries:
                name = "%s[%s]" % (mname, key)
                if rec["type"] == "hist":
                    for b in v:
                        bound = "+Inf" if "max" not in b else str(b["max"] + 1)
                        if "min" not in b:
                            bound = str(b["max"] + 1)
                        if b["count"]:
                            out[name + " le=" + bound] = b["count"]
                        out[name + " count"] = out.get(name + " count", 0) + b["count"]
                elif isinstance(v, dict):
                    out[name + " count"] = v["count"]
                    out[name + " total"] = v["total"]
                else:
                    out[name + " v"] = v
    return out


def parse_prom(lines):
    out = {}
    kinds = {}
    cum = {}
    maps = {}	# family -> map name, from "# HELP sonde_x count() of @x"
    for line in lines:
        m = re.match(r"^# HELP sonde_(\w+) (.*) of (@\w*)$", line)
        if m and "average" not in m.group(2):	# stats()'s _avg family is derived
            maps[m.group(1)] = m.group(3)
            continue
        m = re.match(r"^# TYPE sonde_(\w+) (\w+)", line)
        if m:
            kinds[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^sonde_(\w+)(?:\{(.*)\})? (\S+)$", line)
        if not m:
            continue
        full, labels, val = m.group(1), m.group(2) or "", m.group(3)
        # the family is the whole name (Prometheus 0.0.4 names a counter's
        # family sonde_x_total) or the name less a sample suffix
        fams = [full] + [full[:-len(x)] for x in ("_total", "_bucket", "_count", "_sum")
                         if full.endswith(x)]
        base = next((f for f in fams if f in maps and f in kinds), None)
        if base is None:	# sonde's own health families
            continue
        part = full[len(base):]
        lab = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', labels))
        le = lab.pop("le", None)
        name = "%s[%s]" % (maps[base], ", ".join(lab.values()))
        kind = kinds[base]
        if kind == "histogram":
            if part == "_bucket":
                c = int(float(val))
                prev = cum.get(name, 0)
                bound = "+Inf" if le == "+Inf" else str(int(float(le)))
                if c - prev:
                    out[name + " le=" + bound] = c - prev
                cum[name] = c
            elif part == "_count":
                out[name + " count"] = int(float(val))
            elif part == "_sum":
                out[name + " sum"] = int(float(val))
        elif kind == "summary":
            if part == "_count":
                out[name + " count"] = int(float(val))
            elif part == "_sum":
                out[name + " total"] = int(float(val))
        elif kind == "counter":
            out[name + " v"] = int(float(val))
        else:	# a gauge; avg()'s is not truncated, the text's is
            out[name + " v"] = int(float(val))
    return out


def main():
    fmt = sys.argv[1]
    sums = dict(a.split("=", 1) for a in sys.argv[3::2] if a) if len(sys.argv) > 2 else {}
    lines = sys.stdin.read().splitlines()
    out = {"text": parse_text, "json": parse_json, "prom": parse_prom}[fmt](lines)
    if fmt != "prom":
        for h, s in sums.items():
            for k in list(out):
                m = re.fullmatch(re.escape(h) + r"\[(.*)\] count", k)
                if m and "%s[%s] v" % (s, m.group(1)) in out:
                    out["%s[%s] sum" % (h, m.group(1))] = out["%s[%s] v" % (s, m.group(1))]
    for k in sorted(out):
        print(k, out[k])


main()
