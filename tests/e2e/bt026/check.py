#!/usr/bin/env python3
"""check.py - run bpftrace's runtime tests (the files of runtime/) under sonde.

This project's own runner for the format of bpftrace's tests/runtime files
(see README.md): one test a block of lines separated by a blank line,
`#` lines are comments, each line a directive:

  NAME n            the test's name; it is reported as FILE.NAME
  PROG p | RUN cmd  `TRACER -e 'p'` (with -q -f json before -e when the
                    first EXPECT is EXPECT_JSON), or cmd (a shell line) with
                    {{BPFTRACE}} replaced by the tracer; a line that starts with white
                    space continues the PROG or EXPECT above it
  EXPECT t          a line of the output is t (white space around it aside);
                    in a file of the older format (--regex-expect names it)
                    EXPECT is a regex searched in the output, as bpftrace's
                    harness read it before EXPECT_REGEX existed
  EXPECT_NONE t     no line of the output is t
  EXPECT_REGEX r    r (a Python regex, multi-line) is found in the output
  EXPECT_REGEX_NONE r   r is not found
  EXPECT_FILE f     the output after attaching, stripped, is file f's text
  EXPECT_JSON f     the output after attaching is f's JSON (.ndjson: line
                    by line)
  RETURN_CODE n     the tracer's exit status is n
  TIMEOUT s         seconds from attaching to the tracer's end (default 5);
                    then it gets SIGTERM and its output is still checked,
                    its exit status not
  BEFORE cmd        started (no shell) before the tracer, which starts once
                    a process of cmd's last word's name runs; {{BEFORE_PID}}
  AFTER cmd         a shell line started once the probes are attached
  SETUP cmd         a shell line run before the test; failing, it fails it
  CLEANUP cmd       a shell line run after the test; failing, it fails it
  LOCALIZE_TIMESTAMPS t  EXPECT_FILE's text is a strftime format of the
                    local time of t (seconds since the epoch)
  ENV K=V ...       the tracer's environment (beside `test`, PATH and
                    __BPFTRACE_NOTIFY_PROBES_ATTACHED=1)
  REQUIRES cmd      a shell line that must exit 0, or the test is skipped
  REQUIRES_FEATURE f ...  tracer/kernel features (`!f`: must lack f)
  MIN_KERNEL/MAX_KERNEL v, ARCH a|b, WILL_FAIL (a non-zero exit is fine),
  NEW_PIDNS, SKIP_IF_ENV_HAS K=V

The tracer has attached when it prints `__BPFTRACE_NOTIFY_PROBES_ATTACHED`
or (sonde) its `Attached N probes` line (with -f json its attached_probes
record).  Output is stdout and stderr
together.  A test of another architecture is dropped, as bpftrace's harness
drops it.  Besides the file's own conditions a test is skipped, with the
reason, when skips.txt names it (a difference or work pending elsewhere) or
its program needs a kernel-function probe (no kprobes, no fentry here).

The kernel-function tests: a test whose program (or the script it runs)
names a kprobe/kretprobe or fentry/fexit probe, or whose skips.txt reason
starts with `kprobe:` or `fentry:` (the listings, `-l | grep kprobes` ...).
--kernel-functions skip (the default, the build host: no kprobes, no
fentry) skips them with that reason; --kernel-functions only (the kernel VM
suite's 6.12 guest, tests/vm/t_bt026.sh) runs them alone, the others left
out and not counted; their skips.txt lines of other reasons (what the
guest lacks, a difference, pending work) apply there.

usage: check.py --tracer PATH --work DIR [--skips FILE] [--prefix P] [--only REGEX]
                [--kernel-functions skip|only] [--exit-timeout S] [--times]
                [--regex-expect F1,F2,...] FILE...
One line per test on stdout: PASS|FAIL|SKIP <prefix>FILE.NAME[: reason];
a failure's command and output follow it, indented.
"""

import argparse
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time

ATTACH_TIMEOUT = 30     # bpftrace's harness waits 5; this machine is busy
DEFAULT_TIMEOUT = 5
ATTACHED = re.compile(r'^(__BPFTRACE_NOTIFY_PROBES_ATTACHED|Attached [0-9]+ probes?|'
                      r'\{"type": "attached_probes",.*\})$')
NEW_STYLE = re.compile(r'^(EXPECT_NONE|EXPECT_REGEX|EXPECT_REGEX_NONE|EXPECT_FILE|'
                       r'EXPECT_JSON|RETURN_CODE)\b', re.M)
# a probe of the kernel's functions: kprobe/kretprobe (k:, kr:), fentry/fexit
# (kfunc, kretfunc, f:, fr:); the build host has neither, the kernel VM
# suite's 6.12 guest runs them (--kernel-functions only, tests/vm/t_bt026.sh)
# (after a one-letter form, a digit is a bitfield's width, `int e:9, f:15`;
# `kprobe:0x12345678` is an address)
KPROBE = re.compile(r'(?<![\w.:/-])((kprobe|kretprobe)(:|\s*\{)|(k|kr)(:(?!\d)|\s*\{))')
FENTRY = re.compile(r'(?<![\w.:/-])((fentry|fexit|kfunc|kretfunc)(:|\s*\{)|(f|fr)(:(?!\d)|\s*\{))')


class Test:
    def __init__(self, suite):
        self.suite = suite
        self.name = ''
        self.run = ''
        self.prog = ''
        self.expects = []       # [mode, text]
        self.exact = False
        self.timeout = DEFAULT_TIMEOUT
        self.befores = []
        self.after = ''
        self.setup = ''
        self.cleanup = ''
        self.localize_ts = -1
        self.kmin = ''
        self.kmax = ''
        self.requires = []
        self.env = {}
        self.arch = []
        self.features = []
        self.will_fail = False
        self.new_pidns = False
        self.skip_env = None
        self.rc = None

    @property
    def id(self):
        return '%s.%s' % (self.suite, self.name)


def parse_block(lines, suite, old_style):
    t = Test(suite)
    prev = ''
    for raw in lines:
        item = raw.rstrip('\n')
        if item[:1].isspace() and prev in ('PROG', 'EXPECT', 'EXPECT_REGEX'):
            cont = item[len(prev) + 1:]
            if prev == 'PROG':
                t.prog += '\n' + cont
            else:
                t.expects[-1][1] += '\n' + cont
            continue
        # the directive and the rest of the line, its inner blanks kept
        # (EXPECT A         B C), as bpftrace's parser splits it
        words = item.strip().split(maxsplit=1)
        key, arg = words[0], words[1] if len(words) > 1 else ''
        prev = key
        if key == 'NAME':
            t.name = arg
        elif key == 'RUN':
            t.run = arg
        elif key == 'PROG':
            t.prog = arg
        elif key == 'EXPECT':
            t.expects.append(['oldregex' if old_style else 'text', arg])
        elif key in ('EXPECT_NONE', 'EXPECT_REGEX', 'EXPECT_REGEX_NONE'):
            t.expects.append([{'EXPECT_NONE': 'text_none', 'EXPECT_REGEX': 'regex',
                               'EXPECT_REGEX_NONE': 'regex_none'}[key], arg])
        elif key in ('EXPECT_FILE', 'EXPECT_JSON'):
            t.exact = True
            t.expects.append(['file' if key == 'EXPECT_FILE' else 'json', arg])
        elif key == 'TIMEOUT':
            t.timeout = int(arg)
        elif key == 'BEFORE':
            t.befores.append(arg)
        elif key == 'AFTER':
            t.after = arg
        elif key == 'SETUP':
            t.setup = arg
        elif key == 'CLEANUP':
            t.cleanup = arg
        elif key == 'LOCALIZE_TIMESTAMPS':
            t.localize_ts = int(arg)
        elif key == 'MIN_KERNEL':
            t.kmin = arg
        elif key == 'MAX_KERNEL':
            t.kmax = arg
        elif key == 'REQUIRES':
            t.requires.append(arg)
        elif key == 'ENV':
            for e in arg.split():
                k, v = e.split('=', 1)
                t.env[k] = v
        elif key == 'ARCH':
            t.arch = [a.strip() for a in arg.split('|')]
        elif key == 'REQUIRES_FEATURE':
            t.features += arg.split()
        elif key == 'WILL_FAIL':
            t.will_fail = True
        elif key == 'NEW_PIDNS':
            t.new_pidns = True
        elif key == 'SKIP_IF_ENV_HAS':
            t.skip_env = arg.split('=', 1)
        elif key == 'RETURN_CODE':
            t.rc = int(arg)
        else:
            raise SystemExit('%s: unknown directive %s in test %s' % (suite, key, t.name))
    if not t.name or not (t.run or t.prog):
        raise SystemExit('%s: a test needs NAME and RUN or PROG (%r)' % (suite, lines[:1]))
    return t


def parse_file(path, regex_files):
    suite = os.path.basename(path)
    with open(path) as f:
        text = f.read()
    old_style = suite in regex_files
    if old_style and NEW_STYLE.search(text):
        raise SystemExit('%s: listed as of the older format, but it uses EXPECT_*' % suite)
    tests, block = [], []
    lines = text.splitlines(keepends=True)
    for n, line in enumerate(lines, 1):
        if line.startswith('#'):
            continue
        if line != '\n':
            block.append(line)
        if line == '\n' or n == len(lines):
            if block:
                t = parse_block(block, suite, old_style)
                if not t.arch or platform.machine().lower() in t.arch:
                    tests.append(t)
                block = []
    return tests


# -- features: what REQUIRES_FEATURE asks, from the tracer's --info --------
def kernel_at_least(v):
    def ver(s):
        return [int(x) for x in re.findall(r'\d+', s)[:3]]
    return ver(platform.release()) >= ver(v)


def feature_table(info):
    def has(line):
        return re.search(r'^\s*' + re.escape(line) + r': yes', info, re.M) is not None
    return {
        'loop': has('loop'),
        'btf': has('btf'),
        'kfunc': has('fentry'),
        'fentry': has('fentry'),
        'probe_read_kernel': has('probe_read_kernel'),
        'dpath': has('d_path'),
        'signal': has('send_signal'),
        'kprobe_multi': has('kprobe_multi'),
        'uprobe_multi': has('uprobe_multi'),
        'lookup_percpu_elem': has('percpu_lookup'),
        'get_tai_ns': kernel_at_least('6.1'),
        'get_func_ip': kernel_at_least('5.15'),
        'jiffies64': kernel_at_least('5.5'),
        'uprobe_refcount': kernel_at_least('4.20'),
        'libpath_resolv': True,
        'dwarf': True,          # sonde reads DWARF itself (host/dwarf.c)
        'dwunwind': has('dwunwind'),    # DWARF stack unwinding, when --info says so
        # bpftrace's build options and probe types sonde does not have
        # bpf_skb_output in tp_btf programs, and libpcap to write the files
        'skboutput': has('skboutput') and re.search(r'^\s*libpcap: libpcap', info, re.M) is not None,
        'aot': False, 'blazesym': False,
        'iter:task': False, 'iter:task_file': False, 'iter:task_vma': False,
        'iter': False,
        'kprobe_session': False,    # a kprobe feature: this host has no kprobes
    }


def load_skips(path):
    skips = {}
    if not os.path.exists(path):
        return skips
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            name, reason = line.split('\t', 1)
            skips[name] = reason
    return skips


def needs_kernel_functions(t, work):
    text = t.prog or t.run
    # a script the test runs (runtime/scripts/NAME.bt) is read too
    for script in re.findall(r'runtime/scripts/[\w.-]+\.bt', t.run):
        try:
            with open(os.path.join(work, script)) as f:
                text += '\n' + f.read()
        except OSError:
            pass
    if FENTRY.search(text):
        return "fentry: this host has no fentry/fexit (BPF trampolines); the kernel VM suite runs it in the 6.12 guest (vm-6.12:bt026:)"
    if KPROBE.search(text):
        return "kprobe: this host has no kprobes; the kernel VM suite runs it in the 6.12 guest (vm-6.12:bt026:)"
    return None


def kernel_function_reason(t, skips, work):
    """Why t is a kernel-function test (None: it is not): its program's
    probes, or a skips.txt reason that starts with kprobe: or fentry:."""
    s = skips.get(t.id, '')
    if s.startswith(('kprobe:', 'fentry:')):
        return s
    return needs_kernel_functions(t, work)


# -- running ---------------------------------------------------------------
def killpg(p, sig):
    try:
        os.killpg(p.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def wait_comm(names, timeout):
    end = time.time() + timeout
    while time.time() < end:
        running = set()
        for pid in os.listdir('/proc'):
            if pid.isdigit():
                try:
                    with open('/proc/%s/comm' % pid) as f:
                        running.add(f.read().strip())
                except OSError:
                    pass
        if all(n[:15] in running for n in names):
            return True
        time.sleep(0.1)
    return False


def pidof(name):
    out = subprocess.run(['pidof', name], capture_output=True, text=True).stdout.split()
    return out[0] if out else ''


def own_tracer(cmd, pgid):
    """cmd (an AFTER line) with its `pkill NAME` and `$(pidof NAME)` kept to
    the test's own process group: other processes named bpftrace may run
    beside this suite (make check runs the differential suite's and other
    e2e files' bpftrace at the same time), and must not get its signals."""
    cmd = re.sub(r'\bpkill\b', 'pkill -g %d' % pgid, cmd)
    return re.sub(r'\$\(pidof ([^)\s]+)\)', r'$(pgrep -g %d -x \1)' % pgid, cmd)


def check_expect(mode, text, output, work, localize_ts=-1):
    if mode == 'text':
        return re.search(r'^\s*' + re.escape(text) + r'\s*$', output, re.M) is not None
    if mode == 'text_none':
        return re.search(r'^\s*' + re.escape(text) + r'\s*$', output, re.M) is None
    if mode in ('regex', 'oldregex'):
        return re.search(text, output, re.M) is not None
    if mode == 'regex_none':
        return re.search(text, output, re.M) is None
    with open(os.path.join(work, text)) as f:
        want = f.read()
    if mode == 'file':
        if localize_ts >= 0:
            want = time.strftime(want.strip(), time.localtime(localize_ts))
        return output.strip() == want.strip()
    got = output.strip().splitlines()
    try:
        if text.endswith('.ndjson'):
            exp = want.strip().splitlines()
            return len(exp) == len(got) and all(
                json.loads(a) == json.loads(b) for a, b in zip(got, exp))
        return len(got) == 1 and json.loads(got[0]) == json.loads(want)
    except ValueError:
        return False


def run_test(t, tracer, work):
    """(status, reason, detail) of one test that is not skipped."""
    befores, after, p = [], None, None
    # the output's lines in a list, joined at the end: a string grown a
    # line at a time is reallocated each time (25 s of system time for a
    # listing's 200,000 lines)
    out_lines, attached, timed_out = [], False, False
    cmd = '[not started]'
    if t.setup and subprocess.run(t.setup, shell=True, cwd=work, executable='/bin/bash',
                                  capture_output=True).returncode != 0:
        return 'FAIL', 'SETUP failed', ''
    try:
        for b in t.befores:
            try:
                befores.append(subprocess.Popen(b.split(), cwd=work, start_new_session=True,
                                                stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL))
            except OSError as e:
                return 'FAIL', 'BEFORE %s: %s' % (b, e.strerror), ''
        if t.befores and not wait_comm([os.path.basename(b.split()[-1]) for b in t.befores],
                                       max(t.timeout, 10)):
            return 'FAIL', 'BEFORE did not start', ''
        if t.run:
            cmd = t.run.replace('{{BPFTRACE}}', tracer)
        else:
            # an EXPECT_JSON test's program runs with -q -f json, as the
            # harness runs it; a quote in the program is escaped for sh
            json_flags = '-q -f json ' if t.expects and t.expects[0][0] == 'json' else ''
            cmd = "%s %s-e '%s'" % (tracer, json_flags, t.prog.replace("'", "'\\''"))
        if '{{BEFORE_PID}}' in cmd:
            cmd = cmd.replace('{{BEFORE_PID}}',
                              pidof(os.path.basename(t.befores[0].split()[-1])))
        env = {'test': t.name, '__BPFTRACE_NOTIFY_PROBES_ATTACHED': '1',
               '__BPFTRACE_NOTIFY_AOT_PORTABILITY_DISABLED': '1',
               'BPFTRACE_VERIFY_LLVM_IR': '1', 'PATH': os.environ.get('PATH', '')}
        for k in ('ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS'):
            if k in os.environ:
                env[k] = os.environ[k]
        env.update(t.env)
        p = subprocess.Popen(cmd, shell=True, cwd=work, env=env, executable='/bin/bash',
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True,
                             errors='backslashreplace', text=True)
        deadline = time.time() + ATTACH_TIMEOUT
        fd = p.stdout.fileno()
        os.set_blocking(fd, False)
        buf = ''
        exited = 0
        while True:
            now = time.time()
            if now > deadline:
                timed_out = True
                break
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                chunk = None
            if chunk == b'':
                break
            if chunk is None:
                # the tracer has ended but a child of it (system(), -c)
                # may hold the pipe: what it had written is read by now
                if p.poll() is not None:
                    exited = exited or now
                    if now - exited > 0.5:
                        break
                time.sleep(0.02)
                continue
            buf += chunk.decode('utf-8', 'backslashreplace')
            # the chunk's lines at once: splitting one line off the
            # buffer at a time copies the rest each time, quadratic in a
            # listing's 40,000 lines (seconds under the VM suite's emulation)
            lines = buf.split('\n')
            buf = lines.pop()
            for line in lines:
                out_lines.append(line + '\n')
                if attached and t.exact and line == '__BPFTRACE_NOTIFY_PROBES_ATTACHED':
                    out_lines = []  # after sonde's "Attached N probes"
                if not attached and ATTACHED.match(line):
                    attached = True
                    if t.exact:
                        out_lines = []
                    deadline = time.time() + t.timeout
                    if t.after:
                        after = subprocess.Popen(own_tracer(t.after, p.pid), shell=True, cwd=work,
                                                 executable='/bin/bash',
                                                 start_new_session=True,
                                                 stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL)
        if timed_out:
            killpg(p, signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                killpg(p, signal.SIGKILL)
            os.set_blocking(fd, True)
            rest = p.stdout.read()
            buf += rest
        out_lines.append(buf)
        p.wait()
    finally:
        for b in befores:
            killpg(b, signal.SIGKILL)
            b.wait()
        if p and p.poll() is None:
            killpg(p, signal.SIGKILL)
            p.wait()
        if after:
            if after.poll() is None:
                killpg(after, signal.SIGKILL)
            after.wait()
    output = ''.join(out_lines)
    if t.cleanup:
        if subprocess.run(t.cleanup, shell=True, cwd=work, executable='/bin/bash',
                          capture_output=True).returncode != 0:
            return 'FAIL', 'CLEANUP failed', ''
    detail = '    command: %s\n    output:\n%s' % (
        cmd, '\n'.join('      ' + l for l in output.splitlines()[:40]))
    failed = [e for e in t.expects if not check_expect(e[0], e[1], output, work, t.localize_ts)]
    if timed_out and failed:
        why = 'not attached in %d s' % ATTACH_TIMEOUT if not attached else \
            'timeout after %d s' % t.timeout
        return 'FAIL', why, detail
    if not timed_out:
        if t.rc is not None and p.returncode != t.rc:
            return 'FAIL', 'exit code %d, not %d' % (p.returncode, t.rc), detail
        if t.rc is None and p.returncode != 0 and not t.will_fail:
            return 'FAIL', 'unclean exit code %d' % p.returncode, detail
    if failed:
        return 'FAIL', 'expected %s %r' % (failed[0][0], failed[0][1]), detail
    return 'PASS', '', ''


def skip_reason(t, features, skips, work, kfunc_mode):
    if kfunc_mode == 'skip':
        k = kernel_function_reason(t, skips, work)
        if k:
            return k
    # (a kprobe:/fentry: line only marks a kernel-function test: the guest
    # that runs them has both)
    if t.id in skips and not skips[t.id].startswith(('kprobe:', 'fentry:')):
        return skips[t.id]
    if t.kmin and not kernel_at_least(t.kmin):
        return 'min kernel %s' % t.kmin
    if t.kmax and kernel_at_least(t.kmax) and platform.release().split('-')[0] != t.kmax:
        return 'max kernel %s' % t.kmax
    if t.skip_env and os.environ.get(t.skip_env[0]) == t.skip_env[1]:
        return 'disabled by environment %s=%s' % tuple(t.skip_env)
    for f in t.features:
        neg = f.startswith('!')
        name = f.lstrip('!')
        if name not in features:
            return 'unknown feature %s' % name
        if features[name] == neg:
            return 'missed feature: %s%s' % (f, '' if neg else ' (' + 'tracer --info' + ')')
    for r in t.requires:
        if subprocess.run(r, shell=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            return "unmet condition: '%s'" % r
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tracer', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--skips', default='')
    ap.add_argument('--prefix', default='')
    ap.add_argument('--only', default='')
    ap.add_argument('--exit-timeout', type=int, default=0,
                    help='the least TIMEOUT of a test whose program ends itself with exit()')
    ap.add_argument('--times', action='store_true',
                    help="each test's seconds on a line after its result")
    ap.add_argument('--kernel-functions', choices=('skip', 'only'), default='skip',
                    help='skip the tests of kprobes and fentry (no such kernel here), '
                         'or run only those')
    ap.add_argument('--regex-expect', default='',
                    help='files (comma-separated) of the older format, whose EXPECT is a regex')
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    info = subprocess.run([a.tracer, '--info'], capture_output=True, text=True)
    features = feature_table(info.stdout + info.stderr)
    skips = load_skips(a.skips)
    tally = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for path in a.files:
        if os.path.isdir(path):     # runtime/scripts, runtime/outputs
            continue
        for t in parse_file(path, a.regex_expect.split(',')):
            if a.only and not re.search(a.only, t.id):
                continue
            if a.kernel_functions == 'only' and not kernel_function_reason(t, skips, a.work):
                continue
            why = skip_reason(t, features, skips, a.work, a.kernel_functions)
            if why:
                print('SKIP %s%s: %s' % (a.prefix, t.id, why), flush=True)
                tally['SKIP'] += 1
                continue
            t0 = time.time()
            # a program that ends itself passes as soon as it has: a longer
            # TIMEOUT only bounds a failure (an emulated guest on a busy
            # machine took more than 5 s for system("bpftool link ..."))
            if a.exit_timeout and 'exit(' in (t.prog or t.run) and t.timeout < a.exit_timeout:
                t.timeout = a.exit_timeout
            status, why, detail = run_test(t, a.tracer, a.work)
            print('%s %s%s%s' % (status, a.prefix, t.id, (' (%s)' % why) if why else ''),
                  flush=True)
            if a.times:
                print('    time: %.1f s' % (time.time() - t0), flush=True)
            tally[status] += 1
            if detail:
                print(detail, flush=True)
    run = tally['PASS'] + tally['FAIL']
    print('# %d PASS, %d FAIL, %d SKIP: %.1f %% of the %d run pass' % (
        tally['PASS'], tally['FAIL'], tally['SKIP'], 100.0 * tally['PASS'] / run if run else 0.0, run),
        flush=True)


if __name__ == '__main__':
    main()
