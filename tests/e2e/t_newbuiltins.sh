# t_newbuiltins.sh - builtins of bpftrace 0.20-0.26 (issue #21 item 9):
# errorf/warnf, hist(v, k), path(), percpu_kaddr(), socket_cookie().
# percpu_kaddr() needs data symbols in kallsyms, which this host's kernel
# does not list: tests/vm/t_percpu.sh reads the values back.
# Expected output is the newest release's stdlib docs and tests/runtime
# (0.17 has none of these).  path() and socket_cookie() need fentry, which
# this host lacks: their runs are in tests/vm/t_fentry.sh (socket_cookie()
# in a raw tracepoint runs here).

if need_root newbuiltins:bpf; then

nb_run() { timeout 60 "$SONDE" -q -e "$1" 2>&1; }

# -- errorf/warnf: stderr, the call's location, the source line and ~~~ ----
prog='begin { errorf("Something bad with args: %d, %s", 10, "arg2"); }'
out=$(timeout 60 "$SONDE" -q -e "$prog" 2>&1 >/dev/null; echo "rc=$?")
expect_eq newbuiltins:errorf "stdin:1:9-62: ERROR: Something bad with args: 10, arg2
$prog
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
rc=0" "$out"
prog='begin { warnf("Something kinda bad with args: %d, %s", 10, "arg2"); printf("after\n"); }'
out=$(timeout 60 "$SONDE" -q -e "$prog" 2>&1 >/dev/null)
expect_eq newbuiltins:warnf "stdin:1:9-67: WARNING: Something kinda bad with args: 10, arg2
$prog
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~" "$out"
# the range is bpftrace's: the call's first column to one past its ')'
# (bison's end), so the ~ count is the call's length; an integer as the
# last argument (or a negative, hex or suffixed one) ends no later
i=0
for c in 'errorf("e%d", 10)' 'errorf("e%d", -1)' 'errorf("e%d", 0x10)' 'errorf("e%d %d", 1, 20u)' 'warnf("e%d", 10)'; do
	rprog="begin { $c; }"; i=$((i + 1))
	out=$(timeout 60 "$SONDE" -q -e "$rprog" 2>&1 >/dev/null | head -1 | sed -E 's/: (ERROR|WARNING): .*//')
	expect_eq "newbuiltins:errorf_range_int_$i" "stdin:1:9-$((9 + ${#c}))" "$out"
done
# stdout keeps the script's own output; --no-warnings silences warnf only
out=$(timeout 60 "$SONDE" -q --no-warnings -e "$prog" 2>&1)
expect_eq newbuiltins:warnf_no_warnings "after" "$out"
out=$(timeout 60 "$SONDE" -q --no-warnings -e 'begin { errorf("e%s", "1"); }' 2>&1 | head -1)
expect_eq newbuiltins:errorf_not_silenced "stdin:1:9-27: ERROR: e1" "$out"
# a script from a file is located in that file; a multi-line call prints
# the line range only, as bpftrace does
f=$B/newbuiltins-errorf.bt
printf 'begin {\n\terrorf("%%s-%%d",\n\t\t"x", 2);\n}\n' > "$f"
out=$(timeout 60 "$SONDE" -q "$f" 2>&1 >/dev/null)
expect_eq newbuiltins:errorf_multiline "$f:2-3: ERROR: x-2" "$out"
rm -f "$f"
out=$(nb_run 'begin { errorf($1); }' | head -1)
expect_eq newbuiltins:errorf_literal_format "stdin:1:16: error: errorf() needs a string literal as its format" "$out"

# -- hist(v, k): 2^k buckets per power of two (tests/runtime's hist_2args) --
# -5 below 0; 0..7 one value each (2N = 8); then 4 buckets per power of two
out=$(nb_run 'begin { @ = hist(1, 2); @ = hist(7, 2); @ = hist(8, 2); @ = hist(9, 2); @ = hist(11, 2); @ = hist(1500, 2); @ = hist(-5, 2); }')
expect_eq newbuiltins:hist_bits_text "

@: 
(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[0]                    0 |                                                    |
[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[2]                    0 |                                                    |
[3]                    0 |                                                    |
[4]                    0 |                                                    |
[5]                    0 |                                                    |
[6]                    0 |                                                    |
[7]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[8, 10)                2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|" "$(printf '%s\n' "$out" | head -13)"
expect_eq newbuiltins:hist_bits_tail "[10, 12)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[1024, 1280)           0 |                                                    |
[1280, 1536)           1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |" "$(printf '%s\n' "$out" | grep -E '^\[(10, 12|1024, 1280|1280, 1536)\)')"
# the JSON buckets of tests/runtime/outputs/hist_2args.json's shape
out=$(timeout 60 "$SONDE" -q -f json -e 'begin { @ = hist(15, 3); @ = hist(16, 3); @ = hist(17, 3); @ = hist(1000, 3); }' 2>&1 | grep '"hist"' |
	python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]["@"]; print([(b["min"], b["max"], b["count"]) for b in d if b["count"]])')
expect_eq newbuiltins:hist_bits_json "[(15, 15, 1), (16, 17, 2), (960, 1023, 1)]" "$out"
# bounds a double cannot hold exactly are strings of their digits, as the
# newest bpftrace writes them (2^63 - 1 as a number reads back as 2^63);
# 2^53 and the powers of two stay numbers
out=$(timeout 60 "$SONDE" -q -f json -e 'begin { @a = hist(9223372036854775807, 3); @b = hist(9223372036854775807); @c = hist(9007199254740993, 2); }' 2>&1)
expect_eq newbuiltins:hist_json_big_bounds '{"type": "hist", "data": {"@a": [{"min": 8646911284551352320, "max": "9223372036854775807", "count": 1}]}}
{"type": "hist", "data": {"@b": [{"min": 4611686018427387904, "max": "9223372036854775807", "count": 1}]}}
{"type": "hist", "data": {"@c": [{"min": 9007199254740992, "max": "11258999068426239", "count": 1}]}}' "$out"
# a keyed hist(v, 3) holds 8 times the (key, bucket) slots of hist(v):
# 8 keys x 40 values spread over ~40 of the 8-per-power buckets fit in
# max_map_keys = 8 (8 x 16 x 8 slots), where the k = 0 budget (128 slots)
# lost 125 of the 320 updates
out=$(nb_run 'config = { max_map_keys = 8 } begin { $i = 0; while ($i < 8) { $j = 0; while ($j < 40) { @[$i] = hist($j * 37, 3); $j++; } $i++; } exit(); }' |
	sed -nE 's/^[[(][^])]*[])] +([0-9]+) \|.*/\1/p; /full/p' | awk '/full/ {print; next} {s += $1} END {print s}')
expect_eq newbuiltins:hist_bits_slots "320" "$out"
out=$(nb_run 'begin { @ = hist(1, 6); }' | head -1)
expect_eq newbuiltins:hist_bits_range "stdin:1:21: error: hist(value, k): k must be between 0 and 5, not 6" "$out"
out=$(nb_run 'begin { @ = hist(1, pid); }' | head -1)
expect_match newbuiltins:hist_bits_constant "^stdin:1:21: error: " "$out"
out=$(nb_run 'begin { @ = hist(1, 2); @ = hist(2, 3); }' | head -1)
expect_eq newbuiltins:hist_bits_same "stdin:1:29: error: map '@' is a hist with 2 bits elsewhere" "$out"

# -- path(), socket_cookie(): the kernel gives their helpers only programs
#    with BTF-typed arguments (fentry/fexit; tests/vm/t_fentry.sh runs them)
out=$(timeout 60 "$SONDE" --dry-run -e 'tracepoint:syscalls:sys_enter_openat { @[path(args->filename)] = count(); }' 2>&1 | head -1)
expect_eq newbuiltins:path_probe_type "stdin:1:42: error: path() needs bpf_d_path, which the kernel allows only in fentry/fexit probes, not in tracepoint probes [S0106]" "$out"
out=$(timeout 60 "$SONDE" --dry-run -e 'tracepoint:syscalls:sys_enter_openat { @ = socket_cookie(args->filename); }' 2>&1 | head -1)
expect_eq newbuiltins:socket_cookie_probe_type "stdin:1:44: error: socket_cookie() needs bpf_get_socket_cookie, which the kernel allows only in fentry/fexit probes and raw tracepoints with BTF, not in tracepoint probes [S0106]" "$out"
# a raw tracepoint with BTF passes a typed struct sock * (loaded as
# tp_btf): the cookie is the one the socket's SO_COOKIE (57) reads back
if [ -e /sys/kernel/btf/vmlinux ] && command -v python3 >/dev/null; then
	D=$(mktemp -d /tmp/sonde-nb-cookie.$$.XXXX)
	cat > "$D/conn.py" <<'PY'
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname())
open(sys.argv[1], "w").write("%d\n" % int.from_bytes(c.getsockopt(socket.SOL_SOCKET, 57, 8), "little"))
PY
	out=$(timeout 60 "$SONDE" -q -c "python3 $D/conn.py $D/cookie" -e 'rawtracepoint:inet_sock_set_state /pid == cpid && args.newstate == 2/ { printf("cookie %llu\n", socket_cookie(args.sk)); }' 2>&1 | grep -v '^$')
	expect_eq newbuiltins:socket_cookie_rawtracepoint "cookie $(cat "$D/cookie" 2>/dev/null)" "$out"
	rm -rf "$D"
else
	skip newbuiltins:socket_cookie_rawtracepoint "no kernel BTF or python3"
fi
out=$(timeout 60 "$SONDE" --dry-run -e 'begin { @ = path(1, 5000); }' 2>&1 | head -1)
expect_eq newbuiltins:path_size "stdin:1:21: error: path() size must be 1 to 64 (BPFTRACE_STRLEN)" "$out"
out=$(timeout 60 "$SONDE" --dry-run -e 'begin { @ = path("x"); }' 2>&1 | head -1)
expect_eq newbuiltins:path_argument "stdin:1:18: error: path() needs a struct path pointer, not string[2]" "$out"

# -- percpu_kaddr(): a per-CPU variable of the kernel's BTF, resolved by the
#    verifier through the kernel's symbol table (tests/vm/t_percpu.sh reads
#    cpu_number and this_cpu_off back in each guest kernel)
if grep -qw cpu_number /proc/kallsyms; then
	out=$(nb_run 'begin { printf("%d %d\n", *(int32 *)percpu_kaddr("cpu_number") == cpu, *(int32 *)percpu_kaddr("cpu_number", 0)); }')
	expect_eq newbuiltins:percpu_kaddr "1 0" "$out"
else
	out=$(nb_run 'begin { print(*percpu_kaddr("cpu_number")); }' | head -1)
	expect_eq newbuiltins:percpu_kaddr_no_kallsyms_all "stdin:1:29: error: percpu_kaddr(): 'cpu_number' is not in the kernel's symbol table (/proc/kallsyms), where the verifier looks it up: this kernel lists data symbols only with CONFIG_KALLSYMS_ALL" "$out"
fi
out=$(nb_run 'begin { print(percpu_kaddr("nosuchvar")); }' | head -1)
expect_eq newbuiltins:percpu_kaddr_unknown "stdin:1:28: error: percpu_kaddr(): the kernel's BTF has no per-CPU variable named 'nosuchvar'" "$out"
out=$(nb_run 'begin { print(percpu_kaddr(1)); }' | head -1)
expect_eq newbuiltins:percpu_kaddr_literal "stdin:1:28: error: percpu_kaddr() needs a string literal: the variable's name" "$out"

fi
