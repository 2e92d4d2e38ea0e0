#!/usr/bin/env python3
"""dryrun.py - the whole pipeline under a mutation fuzzer, to the verifier.

    tests/fuzz/dryrun.py SONDE N [SEED]

Mutates the seed scripts of tests/fuzz/dryrun/ (one per probe type:
BEGIN/END, tracepoint, rawtracepoint, uprobe/uretprobe, usdt, interval,
profile, software, hardware, kprobe, and the language) and the front end's
corpus, N inputs in all, and runs each through `SONDE --dry-run`: parse,
sema, codegen, load (the kernel's verifier) and attach.  An input passes
when sonde either runs it (exit 0) or refuses it with a message (exit 1 and
something on stderr); it fails on a signal, a sanitizer report, an LLVM
fatal error or an internal error, and is kept as
build/fuzz-dryrun-crash-K.bt.  Deterministic for a SEED.  Prints one
summary line; exits 1 when any input failed.
"""
import os
import random
import subprocess
import sys

TOKENS = [b"{", b"}", b"(", b")", b"/", b"\"", b"@", b"$", b"->", b"#if 0\n", b"unroll(",
          b"-1", b"18446744073709551616", b"%", b"str(", b"buf(", b"printf(\"%s\", ",
          b"@x[", b"]", b"++", b",", b";", b"hist(", b"count()", b"exit();", b"*", b"0x",
          b"kstack", b"ustack", b"args->", b"while (1) {", b"if (", b"+=", b"\n"]

def mutate(rng, data, pool):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        at = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[at:at] = rng.choice(TOKENS)
        elif op == 2 and data:
            del data[at:at + rng.randint(1, 8)]
        elif op == 3 and data:
            n = rng.randint(1, 16)
            data[at:at] = data[at:at + n] * rng.randint(1, 3)
        elif op == 4:
            other = rng.choice(pool)
            cut = rng.randrange(len(other) + 1)
            data = data[:at] + bytearray(other[cut:])
        else:
            data[at:at] = bytes([rng.randrange(32, 127)])
    return bytes(data)

BAD = (b"AddressSanitizer", b"runtime error:", b"LeakSanitizer", b"LLVM ERROR",
       b"internal error", b"Assertion")

def main():
    sonde, n = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    here = os.path.dirname(os.path.abspath(__file__))
    seeds = []
    for d in ("dryrun", "corpus"):
        for f in sorted(os.listdir(os.path.join(here, d))):
            with open(os.path.join(here, d, f), "rb") as fh:
                seeds.append(fh.read().replace(b"\0", b""))
    typed = seeds[:len(os.listdir(os.path.join(here, "dryrun")))]
    build = os.path.join(here, "..", "..", "build")
    work = os.path.join(build, "fuzz-dryrun.bt")
    # usdt: the workload with probes, where the seeds say @W@
    sdt = os.path.join(build, "sdt_probes")
    subprocess.run(["gcc", "-O1", "-g", "-o", sdt,
                    os.path.join(here, "..", "workloads", "sdt_probes.c")], check=False)
    seeds = [s.replace(b"@W@", build.encode()) for s in seeds]
    typed = seeds[:len(typed)]
    failed = refused = ran = 0
    for i in range(n):
        # every probe type's seed first, unmutated, then mutants (of a
        # probe type's seed two times in three)
        src = typed[i] if i < len(typed) else mutate(
            rng, rng.choice(typed if rng.randrange(3) else seeds), seeds)
        with open(work, "wb") as fh:
            fh.write(src)
        try:
            p = subprocess.run([sonde, "--dry-run", work, str(os.getpid()), "x"],
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = -1, b"timed out after 60 s"
        bad = rc < 0 or rc > 1 or any(b in err for b in BAD) or (rc == 1 and not err.strip())
        if bad:
            keep = os.path.join(build, "fuzz-dryrun-crash-%d.bt" % failed)
            with open(keep, "wb") as fh:
                fh.write(src)
            sys.stderr.write("FAIL %s: rc %d\n%s\n" % (keep, rc, err.decode(errors="replace")[-2000:]))
            failed += 1
        elif rc == 0:
            ran += 1
        else:
            refused += 1
    print("fuzz-dryrun: %d inputs: %d ran, %d refused with a message, %d failed"
          % (n, ran, refused, failed))
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
