# t_docex.sh - the examples of the NEWEST bpftrace documentation, run under
# sonde as a user would type them, against the output the documentation
# gives (exact where it is deterministic, a regular expression otherwise).
# "Test against what you did not write": the expectations come from the
# documents, not from sonde.  The documents (bpftrace/bpftrace):
#   language   docs/language.md       (commit 1323d297, the newest stored:
#              it has the string type and the build_id stack mode)
#   stdlib     docs/stdlib.md         (commit 024f9c09: find, globmatch,
#              has_cpid, getopt's description argument)
#   man        man/adoc/bpftrace.adoc (commit 006e1a6b: the options page)
#   migration  docs/migration_guide.md (commit 19b6e2f6: up to 0.24)
# docs/reference_guide.md is the guide before the split into language.md
# and stdlib.md (0.17's era): its examples are the differential suite's.
# Each check is e2e:docex:<doc>:<section>.
#
# How an example becomes a run:
# - A fragment (statements without a probe) runs in `begin`; a `...` the
#   document leaves for the reader is filled in and said so.
# - `kprobe:dummy { ... }` in the stdlib page is a placeholder for "any
#   probe": its body runs in `begin`.  Examples on real kernel functions
#   (kprobe, kretprobe, fentry, fexit) need kprobes or BPF trampolines,
#   which this host lacks: they are SKIPs named "kprobe"/"fentry" here and
#   run in the QEMU suite (tests/vm).
# - An example that traces the whole system runs with -c and a workload of
#   tests/workloads with known calls, and the check reads that workload's
#   lines.
# - interval examples run until their first tick's lines are printed, then
#   get Ctrl-C (SIGINT): no timing is asserted.
# - `BEGIN` (upper case) runs until Ctrl-C in sonde, as in 0.17 (the
#   newest release ends such a script by itself): those runs wait for the
#   output and then send SIGINT, as a user would.
#
# PENDING: checks of features another helper is implementing.  Each is
# written out below and SKIPs with "pending: OWNER" while its line is here;
# the lead deletes the line after merging that helper's branch.
DOCEX_PENDING="
"

# dx_pending NAME: true (and a SKIP line) when NAME waits for another branch
dx_pending() {
	local owner
	owner=$(printf '%s\n' "$DOCEX_PENDING" | awk -F= -v n="$1" '$1 == n { print $2 }')
	[ -n "$owner" ] || return 1
	skip "docex:$1" "pending: $owner"
}

if need_root docex:bpf; then

for w in bt_syscall malloc_loop page_faults libc_calls usdt argv syscall_loop pid_calls; do
	build_workload $w
done

# dx ARGS...: sonde -q ARGS, stdout and stderr (a run that should end by
# itself and hangs is cut off after 60 s and fails its comparison)
dx() { timeout 60 "$SONDE" -q "$@" 2>&1; }
# dxo ARGS...: the same, stdout only
dxo() { timeout 60 "$SONDE" -q "$@" 2>/dev/null; }
# dxe ARGS...: stderr only
dxe() { timeout 60 "$SONDE" -q "$@" 2>&1 >/dev/null; }
nb() { sed '/^$/d'; }
# dx_until REGEX ARGS...: run sonde -q ARGS until a line of its output
# (stdout and stderr) matches REGEX (60 s at most), then Ctrl-C it (30 s to
# end, then SIGKILL: it ends its -c command itself on the way out); prints
# the output.  The way to read an interval's first tick or a BEGIN probe
# that waits for Ctrl-C, event-driven: nothing here waits a fixed time.
dx_until() {
	local re=$1 f=$B/docex-until.$$ p; shift
	: > "$f"
	"$SONDE" -q "$@" > "$f" 2>&1 &
	p=$!
	wait_for "$f" "$re" 60 || true
	kill -INT $p 2>/dev/null
	for _ in $(seq 300); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
	kill_reap $p
	cat "$f"
	rm -f "$f"
}
# dx_first N REGEX ARGS...: dx_until REGEX, the first N lines without blanks
dx_first() {
	local n=$1; shift
	dx_until "$@" | nb | head -"$n"
}
no_kprobe() { skip "docex:$1" "kprobe: this host has no kprobes (tests/vm runs kernel functions)"; }
no_fentry() { skip "docex:$1" "fentry: this host has no BPF trampolines (tests/vm runs them)"; }
# differs NAME REASON: a documented behaviour sonde does not have, named in
# docs/differences.md ("The newest documentation's examples")
differs() { skip "docex:$1" "differs (docs/differences.md): $2"; }
has_ksym() { grep -qw "$1" /proc/kallsyms; }
ws() { printf '%s\n' "$1"; }
# dx_match NAME REGEX ACTUAL: the whole of ACTUAL against an extended
# regular expression (bash's =~: ^ and $ are its ends, . matches a newline);
# expect_match (lib.sh) is the one for "some line matches"
dx_match() {
	if [[ "$3" =~ $2 ]]; then pass "$1"; else
		fail "$1"; printf '%s\n' "$3" | head -30 | sed 's/^/    /'
		echo "    (expected to match: $2)"
	fi
}

# ==== docs/language.md ======================================================

# -- Action Blocks: the open/openat script, with a workload that opens one
#    file (bt_syscall openat) as the traced command --------------------------
out=$(dxo -c "$B/bt_syscall openat" -e 'begin {
	printf("Tracing open syscalls... Hit Ctrl-C to end.\n");
}

tracepoint:syscalls:sys_enter_open,
tracepoint:syscalls:sys_enter_openat {
	printf("%-6d %-16s %s\n", pid, comm, str(args.filename));
}')
# the header is printed; it is not always the first line, as sonde runs
# begin once the other probes are attached (language:begin_before_attach)
expect_eq docex:language:action_blocks_header "Tracing open syscalls... Hit Ctrl-C to end." "$(ws "$out" | grep '^Tracing')"
differs language:begin_before_attach "begin runs after the other probes are attached (before the -c command starts): another process's event may print before its output"
expect_match docex:language:action_blocks_openat '^[0-9]+ +bt_syscall +/tmp/bpftrace_runtime_test_syscall_gen_open_temp$' "$out"

# -- Arguments: args of a function, by verbose listing (BTF only) ----------
out=$(dx -lv 'fentry:tcp_reset')
dx_match docex:language:args_listing '^fentry:(vmlinux:)?tcp_reset
    struct sock \* sk
    struct sk_buff \* skb$' "$out"

# -- Arrays: a struct's array read through arg0 of kprobe:dummy ------------
no_kprobe language:arrays

# -- Command Line Parameters --------------------------------------------------
out=$(dxo -e 'begin { print((getopt("aa", 1), getopt("bb"))); }' -- --aa=20 --bb | nb)
expect_eq docex:language:named_parameters "(20, true)" "$out"
out=$(dxo -e 'begin { print(($1, $2)); }' p1 -- 20 | nb)
expect_eq docex:language:positional_parameters "(p1, 20)" "$out"
out=$(dxo -e 'begin { printf("I got %d, %s (%d args)\n", $1, str($2), $#); }' 42 "hello" | nb)
expect_eq docex:language:positional_str "I got 42, hello (2 args)" "$out"
out=$(dxo -e 'begin { printf("%s\n", str($1 + 1)) }' "hello" | nb)
expect_eq docex:language:positional_str_offset "ello" "$out"
# "it will default to zero for a numeric context, and "" for a string context"
out=$(dxo -e 'begin { printf("%d [%s]\n", $3, str($4)); }' | nb)
expect_eq docex:language:positional_missing "0 []" "$out"

# -- Comments ----------------------------------------------------------------
out=$(dx_first 1 '^1$' -e '// A single line comment
interval:s:1 { // can also be used to comment inline
/*
 a multi line comment

*/
  print(/* inline comment block */ 1);
}')
expect_eq docex:language:comments "1" "$out"

# -- Conditionals (fragments in begin, $a = 1) ------------------------------
out=$(dxo -e 'begin { $a = 1; $a == 1 ? print("true") : print("false"); $b = $a > 0 ? $a : -1; print($b); $a = 0; $b = $a > 0 ? $a : -1; print($b); }' | nb)
expect_eq docex:language:conditionals_ternary $'true\n1\n-1' "$out"
out=$(dxo -e 'begin { for ($i : 0..3) { if ($i == 0) { print("ifblock"); } else if ($i == 1) { print("if2block"); } else { print("elseblock"); } } }' | nb)
expect_eq docex:language:conditionals_if_else $'ifblock\nif2block\nelseblock' "$out"
# "mixing types is not allowed"
out=$(dx -e 'begin { $a = 1; $b = $a ? 1 : "one"; }')
expect_match docex:language:conditionals_mixed_types 'error' "$out"

# -- Config Block: the names of a variable, the environment over the block --
prog='config = {
    stack_mode=perf;
    max_map_keys=2
}

begin { @[1] = 1; @[2] = 2; @[3] = 3; }'
out=$(dxo -e "$prog" | nb)
expect_eq docex:language:config_block $'@[1]: 1\n@[2]: 2' "$out"
out=$(dxo -e 'config = { BPFTRACE_MAX_MAP_KEYS=1; STACK_MODE=perf } begin { @[1] = 1; @[2] = 2; }' | nb)
expect_eq docex:language:config_block_names '@[1]: 1' "$out"
out=$(BPFTRACE_MAX_MAP_KEYS=3 dxo -e "$prog" | nb)
expect_eq docex:language:config_block_env_wins $'@[1]: 1\n@[2]: 2\n@[3]: 3' "$out"

# -- Config Variables ---------------------------------------------------------
out=$(dxo -e 'config = { print_maps_on_exit=false } begin { @a = 1; printf("done\n"); }' | nb)
expect_eq docex:language:config_print_maps_on_exit "done" "$out"
out=$(dxo -c "$B/bt_syscall openat" -e 'config = { max_strlen=6; str_trunc_trailer="~" } tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf("%s\n", str(args.filename)); }' | grep '^/tmp')
expect_eq docex:language:config_str_trunc_trailer '/tmp/~' "$out"
# missing_probes: error stops, ignore attaches what exists silently
out=$(dx -e 'config = { missing_probes=error } uprobe:'"$B"'/libc_calls:no_such_function_docex, uprobe:'"$B"'/libc_calls:main { } begin { exit(); }'; echo "rc=$?")
dx_match docex:language:config_missing_probes_error 'no_such_function_docex.*rc=[1-9]' "$out"
out=$(dx -e 'config = { missing_probes=ignore } uprobe:'"$B"'/libc_calls:no_such_function_docex, uprobe:'"$B"'/libc_calls:main { } begin { printf("ran\n"); exit(); }' | nb)
expect_eq docex:language:config_missing_probes_ignore "ran" "$out"
out=$(dx -e 'config = { license="Dual BSD/GPL" } begin { printf("loaded\n"); }' | nb)
expect_eq docex:language:config_license "loaded" "$out"
# unstable features: enable silences, error refuses
out=$(dx -e 'config = { unstable_map_decl=enable; } let @a = hash(100); begin { @a[1] = 1; }' | nb)
expect_eq docex:language:unstable_enable '@a[1]: 1' "$out"
out=$(dx -e 'config = { unstable_map_decl=error; } let @a = hash(100); begin { @a[1] = 1; }'; echo "rc=$?")
dx_match docex:language:unstable_error 'error.*rc=[1-9]' "$out"

# -- Data Types -------------------------------------------------------------
out=$(dxo -e 'begin { $x = 1<<16; printf("%d %d\n", (uint16)$x, $x); }' | nb)
expect_eq docex:language:data_types "0 65536" "$out"
out=$(dxo -e 'begin { $a = 1; $b = -1000; $a = $b; print($a); }' | nb)
expect_eq docex:language:data_types_upcast "-1000" "$out"
differs language:data_types_mismatch "(uint64) = (int64) is accepted, as in 0.17 (the newest release refuses it)"
out=$(dxo -e 'begin { $a = (uint64_t)1; print($a); }' | nb)
expect_eq docex:language:data_types_btf_typedef "1" "$out"
out=$(dxo -e 'begin { $a = (int8[])"mystring"; print($a); }' | nb)
expect_eq docex:language:string_int8_array "[109,121,115,116,114,105,110,103,0]" "$out"

# -- Filters/Predicates: kprobe:vfs_read ---------------------------------------
no_kprobe language:filters

# -- Keywords: return leaves the probe, not the program ---------------------
out=$(dxo -e 'begin { printf("a\n"); return; printf("b\n"); } begin { printf("c\n"); }' | nb)
expect_eq docex:language:keywords_return $'a\nc' "$out"

# -- Literals -------------------------------------------------------------------
out=$(dxo -e 'begin { print(0123); print(0x10); print(0X10); $i = 2e3; print($i); print(1_000_123_000); print(123UL); print(123U); print(123LL); }' | nb)
expect_eq docex:language:literals_integers $'83\n16\n16\n2000\n1000123000\n123\n123\n123' "$out"
out=$(dx -e 'begin { $i = 1e-3; }'; echo "rc=$?")
dx_match docex:language:literals_scientific_integer_only 'error.*rc=[1-9]' "$out"
out=$(dxo -e 'begin { $a = 1m; print($a); print(1ns + 1us + 1ms + 1s + 1h + 1d); }' | nb)
expect_eq docex:language:literals_durations $'60000000000\n90001001001001' "$out"
out=$(dxo -e 'begin {
  printf("Echo A: %c\n", 65);
}' | nb)
expect_eq docex:language:literals_character "Echo A: A" "$out"
out=$(dxo -e 'begin { $str = "Hello world"; printf("%s|a\tb|\041|\x41|\n", $str); }' | nb)
expect_eq docex:language:literals_string_escapes $'Hello world|a\tb|!|A|' "$out"

# -- Loops: for over maps and ranges, unroll -------------------------------
out=$(dxo -e 'begin { @map[10] = 20; for ($kv : @map) { print($kv.0); print($kv.1); } clear(@map); }' | nb)
expect_eq docex:language:for_map $'10\n20' "$out"
out=$(dxo -e 'begin { @map[10,11] = 20; for ($kv : @map) { print($kv.0.0); print($kv.0.1); print($kv.1); } clear(@map); }' | nb)
expect_eq docex:language:for_map_multiple_keys $'10\n11\n20' "$out"
if ! dx_pending language:for_ncpus; then
	# 0, 1, ... ncpus - 1: one line a CPU, at most the configured ones
	out=$(dxo -e 'begin { for ($cpu : 0..ncpus) { print($cpu); } }' | nb)
	n=$(ws "$out" | grep -c .)
	if [ "$n" -ge 1 ] && [ "$n" -le "$(nproc --all)" ] && [ "$out" = "$(seq 0 $((n - 1)))" ]; then
		pass docex:language:for_ncpus
	else
		fail docex:language:for_ncpus; ws "$out" | head -5 | sed 's/^/    /'
	fi
fi
out=$(dxo -e 'begin { $a = 10; for ($i : 0..$a) { print($i); $a--; } }' | nb | tr '\n' ' ')
expect_eq docex:language:for_range_evaluated_once '0 1 2 3 4 5 6 7 8 9 ' "$out"
out=$(dxo -e 'begin { for ($i : 0..5) { if ($i == 1) { continue; } if ($i == 3) { break; } print($i); } for ($i : 0..5) { if ($i == 1) { return; } print($i); } }' | nb | tr '\n' ' ')
expect_eq docex:language:for_control_flow '0 2 0 ' "$out"
out=$(dx_first 3 'Unrolled' -e 'interval:s:1 {
  unroll(3) {
    print("Unrolled")
  }
}')
expect_eq docex:language:unroll $'Unrolled\nUnrolled\nUnrolled' "$out"
# (the document writes the three statements without their ';')
out=$(dx_first 3 'Unrolled' -e 'interval:s:1 {
  print("Unrolled");
  print("Unrolled");
  print("Unrolled")
}')
expect_eq docex:language:unroll_equivalent $'Unrolled\nUnrolled\nUnrolled' "$out"
out=$(dx -e 'begin { $n = 3; unroll($n) { print(1); } }'; echo "rc=$?")
dx_match docex:language:unroll_constant 'error.*rc=[1-9]' "$out"

# -- Macros: the valid usages and their "// prints" comments (the document
#    leaves out the ';' after two statements, which no grammar takes) ---------
out=$(dxo -e 'macro one() {
  1
}

macro add_one(x) {
  x + 1
}

macro add_one_to_each($a, @b) {
  $a += 1;
  @b += 1;
}

macro side_effects(x) {
  x;
  x;
  x;
}

macro add_two(x) {
  add_one(x) + 1
}

begin {
  print(one());                   // prints 1
  print(one);                     // prints 1 (bare identifier works if the macro accepts 0 args)

  $a = 10;
  print(add_one($a));             // prints 11
  print(add_one(1 + 1));          // prints 3

  @b = 5;
  add_one_to_each($a, @b);
  print($a + @b);                 // prints 17

  side_effects({ printf("hi") }); // prints hihihi
  printf("\n");

  print(add_two(1));              // prints 3
  clear(@b);
}' | nb)
expect_eq docex:language:macros $'1\n1\n11\n3\n17\nhihihi\n3' "$out"
out=$(dx -e 'macro unhygienic_access() {
  @x++                         // BAD: @x not passed in
}
begin { @x = 1; unhygienic_access(); }'; echo "rc=$?")
dx_match docex:language:macros_unhygienic 'error.*rc=[1-9]' "$out"
out=$(dx -e 'macro wrong_parameter_type($x) { $x++ } begin { @x = 1; wrong_parameter_type(@x); }'; echo "rc=$?")
dx_match docex:language:macros_wrong_parameter_map 'error.*rc=[1-9]' "$out"
out=$(dx -e 'macro wrong_parameter_type($x) { $x++ } begin { wrong_parameter_type(1 + 1); }'; echo "rc=$?")
dx_match docex:language:macros_wrong_parameter_expr 'error.*rc=[1-9]' "$out"
out=$(dxo -e 'macro add_one(x) {
  let $x = x;
  $x + 1
}
begin { $n = 1; print(add_one({ $n += 10; $n })); print($n); }' | nb)
expect_eq docex:language:macros_bind_once $'12\n11' "$out"

# -- Operators and Expressions -----------------------------------------------
out=$(dxo -e 'begin { print(7 + 2); print(7 - 2); print(7 * 2); print(7 / 2); print(7 % 2); print((uint32)5 + (uint8)3); }' | nb | tr '\n' ' ')
expect_eq docex:language:arithmetic '9 5 14 3 1 8 ' "$out"
out=$(dxo -e 'begin { printf("%d %d %d\n", 1 && 0, 1 || 0, !0); printf("%d %d %d %d %d\n", 6 & 3, 6 | 3, 6 ^ 3, 1 << 4, 256 >> 4); }' | nb)
expect_eq docex:language:logical_bitwise $'0 1 1\n2 7 5 16 16' "$out"
out=$(dxo -e 'begin { printf("%d %d %d %d %d %d\n", 1 < 2, 2 <= 2, 3 > 2, 3 >= 4, 1 == 1, 1 != 1); printf("%d %d\n", "a" == "a", "a" != "b"); }' | nb)
expect_eq docex:language:relational $'1 1 1 0 1 0\n1 1' "$out"
out=$(dxo -e 'begin { print((1, "abc") == (1, "abc")); print((1, 2) != (1, 3)); print((1, (2, "x")) == (1, (2, "y"))); }' | nb)
expect_eq docex:language:relational_tuples $'true\ntrue\nfalse' "$out"
out=$(dxo -e 'begin { $v = 1; $v <<= 3; printf("%d ", $v); $v >>= 1; printf("%d ", $v); $v += 5; printf("%d ", $v); $v -= 2; printf("%d ", $v); $v *= 3; printf("%d ", $v); $v /= 2; printf("%d ", $v); $v %= 4; printf("%d ", $v); $v = 6; $v &= 3; printf("%d ", $v); $v |= 8; printf("%d ", $v); $v ^= 1; printf("%d\n", $v); @ = 10; @ -= 5; print(@); clear(@); }' | nb)
expect_eq docex:language:assignment_operators $'8 4 9 7 21 10 2 2 10 11\n@: 5' "$out"
out=$(dxo -e 'begin { $x = 10; $y = $x--; printf("y = %d; x = %d\n", $y, $x); $a = 10; $b = --$a; printf("a = %d; b = %d\n", $a, $b); @m++; print(@m); clear(@m); }' | nb)
expect_eq docex:language:increment_decrement $'y = 10; x = 9\na = 9; b = 9\n@m: 1' "$out"
out=$(dxo -e 'begin { let $a = {
  let $b = 1;
  $b
};
print($a); }' | nb)
expect_eq docex:language:block_expressions "1" "$out"
differs language:discarded_expression_warning "no warning for a discarded expression ({ 1 }, has_key(@a, 1);)"
if ! dx_pending language:discard_expression; then
	out=$(timeout 60 "$SONDE" -e 'begin { @a[1] = 1; _ = has_key(@a, 1); clear(@a); printf("ok\n"); }' 2>&1 | grep -v '^Attached' | nb)
	expect_eq docex:language:discard_expression "ok" "$out"
fi

# -- Preamble: #include, #define, a struct, config and a map declaration ----
out=$(dxo -e '#include <linux/socket.h>
#define RED "\033[31m"

struct S {
  int x;
}

config = {
    stack_mode=perf
}

let @a = lruhash(100);

begin { printf("%s%d %d\033[0m\n", RED, sizeof(struct S), AF_INET); }' | nb)
expect_eq docex:language:preamble $'\033[31m4 2\033[0m' "$out"

# -- Probes ------------------------------------------------------------------
no_kprobe language:probes_multiple
no_kprobe language:probes_wildcards
# the short names of the table, on tracepoint, interval, software, profile
out=$(dxo -c "$B/bt_syscall nanosleep" -e 't:syscalls:sys_enter_nanosleep /pid == cpid/ { printf("%s\n", probe); }' | nb)
expect_eq docex:language:probes_short_names "tracepoint:syscalls:sys_enter_nanosleep" "$out"
out=$(dx_first 1 '^[is]$' -e 'i:ms:10 { printf("i\n"); exit(); }')
expect_eq docex:language:probes_short_name_interval "i" "$out"
out=$(dxo -c "$B/syscall_loop 3000000" -e 'p:hz:97 { @p = 1; } s:cpu:1000000 { @s = 1; } end { printf("%d %d\n", @p, @s); clear(@p); clear(@s); }' | grep -v '^[0-9.]*$' | nb)
expect_eq docex:language:probes_short_names_perf "1 1" "$out"

# -- begin/end ----------------------------------------------------------------
out=$(dxo -e 'begin { @map1 = 1; @map2[1] = 2; } end {
    clear(@map1);
    clear(@map2);
}' | nb)
expect_eq docex:language:begin_end_clear "" "$out"
out=$(dxo -e 'begin { printf("1\n"); } end { printf("3\n"); } begin { printf("2\n"); } end { printf("4\n"); }' | nb | tr '\n' ' ')
expect_eq docex:language:begin_end_order '1 2 3 4 ' "$out"
differs language:test_probes "no --test mode and no test: probes"
# the example's three bench probes: one row each, in source order (the
# times and counts are the machine's)
out=$(dxo --bench -e 'bench:lhist {
    @a = lhist(rand % 10, 1, 10, 1);
}

bench:count {
    @b = count();
}

bench:my_loop {
    $a = 0;
    for ($i : 0..10) {
        $a++;
    }
}' | head -5)
dx_match docex:language:bench_probes '^Benchmark +Time\(ns\) +Iterations
-{66}
lhist +[0-9]+ +[0-9]+
count +[0-9]+ +[0-9]+
my_loop +[0-9]+ +[0-9]+$' "$out"

# -- self ---------------------------------------------------------------------
f=$B/docex-self.out
rm -f "$f"	# wait_for must not find the last run's "Attached"
"$SONDE" -e 'self:signal:SIGUSR1 {
  print("abc");
}' > "$f" 2>&1 &
p=$!
# sonde's handlers are set once it says it attached; send until it prints
wait_for "$f" '^Attached' 60
for _ in $(seq 60); do kill -USR1 $p 2>/dev/null; grep -q '^abc$' "$f" && break; sleep 0.5; done
kill -INT $p 2>/dev/null; wait $p 2>/dev/null
expect_eq docex:language:self_signal "abc" "$(grep -v '^Attached' "$f" | nb | head -1)"
rm -f "$f"

# -- hardware: this machine has no PMU (a VM); the count 1e6 still parses --
if $SONDE --info 2>/dev/null | grep -q 'hardware PMU.*: yes'; then
	out=$(dxo -c "$B/syscall_loop 200000" -e 'hardware:cache-misses:1e6 { @[pid] = count(); }' | grep -v '^[0-9.]*$' | nb)
	expect_match docex:language:hardware '^@\[[0-9]+\]: [0-9]+$' "$out"
else
	skip docex:language:hardware "no hardware performance counters (PMU) on this machine"
fi
out=$(dx --emit ast -e 'hardware:cache-misses:1e6 { @[pid] = count(); }' > /dev/null; echo "rc=$?")
expect_eq docex:language:hardware_count_literal "rc=0" "$out"
# the same literal on a software event, which this host has: a count of 100
pf=$B/docex-faults.dat
out=$(dxo -c "$B/page_faults $pf 500" -e 'software:faults:1e2 /comm == "page_faults"/ { @[probe] = count(); }' | nb)
rm -f "$pf"
dx_match docex:language:software_count_scientific '^@\[software:faults:100\]: [0-9]+$' "$out"

# -- interval: every spelling of a second fires; the syscall rate example ---
for spec in 'interval:1s' 'interval:1000000000' 'interval:s:1'; do
	out=$(dx_first 1 '^tick$' -e "$spec { printf(\"tick\n\"); }")
	expect_eq "docex:language:interval_${spec//[:]/_}" "tick" "$out"
done
out=$(dx_first 1 '^@syscalls: ' -e 'tracepoint:raw_syscalls:sys_enter { @syscalls = count(); }
interval:1s { print(@syscalls); clear(@syscalls); }')
expect_match docex:language:interval_syscall_rate '^@syscalls: [0-9]+$' "$out"

# -- iterator, fentry/fexit, kprobe/kretprobe, watchpoint ---------------------
differs language:iterator "iter: probes run, but ctx.task and printf into the iterator's file (seq_printf) are not in sonde"
no_fentry language:fentry_fexit
no_kprobe language:kprobe_kretprobe
differs language:watchpoint "no watchpoint: probes (refused with a message that names them)"

# -- profile: a busy workload is sampled on its own tid ----------------------
out=$(dxo -c "$B/syscall_loop 3000000" -e 'profile:hz:99 { @[tid] = count(); }' | grep -v '^[0-9.]*$' | nb)
expect_match docex:language:profile '^@\[[0-9]+\]: [0-9]+$' "$out"

# -- rawtracepoint: kfree_skb on a UDP datagram to a closed loopback port ----
udp=$(sh_script docex-udp 'exec bash -c "for i in 1 2 3; do echo x > /dev/udp/127.0.0.1/9; done"')
out=$(dxo -c "$udp" -e 'rawtracepoint:vmlinux:kfree_skb {
  printf("%llx %llx\n", arg0, args.skb);
}' | nb)
first=$(ws "$out" | head -1)
if [[ "$first" =~ ^([0-9a-f]+)\ ([0-9a-f]+)$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
	pass docex:language:rawtracepoint
else
	fail docex:language:rawtracepoint; ws "$out" | head -5 | sed 's/^/    /'
fi

# -- software:faults on a workload of known page faults (3 x 2000) ------------
pf=$B/docex-faults.dat
out=$(dxo -c "$B/page_faults $pf 2000" -e 'software:faults:100 { @[comm] = count(); }' | grep '^@\[page_faults\]')
rm -f "$pf"
n=${out##*: }
if [[ "$out" =~ ^@\[page_faults\]:\ [0-9]+$ ]] && [ "$n" -ge 30 ]; then
	pass docex:language:software_faults
else
	fail docex:language:software_faults; echo "    $out (expected about 60: one in 100 of 6000 faults)"
fi

# -- tracepoint ----------------------------------------------------------------
out=$(dxo -c "$B/bt_syscall openat" -e 'tracepoint:syscalls:sys_enter_openat {
  printf("%s %s\n", comm, str(args.filename));
}')
expect_match docex:language:tracepoint '^bt_syscall /tmp/bpftrace_runtime_test_syscall_gen_open_temp$' "$out"
out=$(dx -lv 'tracepoint:syscalls:sys_enter_openat')
expect_eq docex:language:tracepoint_listing 'tracepoint:syscalls:sys_enter_openat
    int __syscall_nr
    int dfd
    const char * filename
    int flags
    umode_t mode' "$out"

# -- uprobe: libc by its short name; malloc_loop makes 5 mallocs of 12345
#    bytes (other processes' mallocs of other sizes are not counted) ---------
out=$(dxo -c "$B/malloc_loop 5 12345" -e 'uprobe:libc:malloc { printf("Allocated %d bytes\n", arg0); }' | grep -c '^Allocated 12345 bytes$')
expect_eq docex:language:uprobe_library_name 5 "$out"
# the versioned SONAME form, on libc's: libc.so.6
out=$(dxo -c "$B/malloc_loop 3 12346" -e 'uprobe:libc.so.6:malloc { printf("Allocated %d bytes\n", arg0); }' | grep -c '^Allocated 12346 bytes$')
expect_eq docex:language:uprobe_soname 3 "$out"
out=$(dx -lv "uprobe:$B/libc_calls:main")
dx_match docex:language:uprobe_listing_dwarf "^uprobe:$B/libc_calls:main
    int argc
    char ?\*\* ?argv$" "$out"
skip docex:language:uprobe_bash_readline "needs an interactive bash on a terminal; readline's arg0 is a prompt pointer (no documented output)"
skip docex:language:uretprobe_golang "needs a Go toolchain (the example's failure is Go's runtime, not the tracer's)"

# -- usdt: the workload's probe sonde:tick(i, 2i) for the document's loop(s, n)
out=$(dxo -c "$B/usdt 3" -e "usdt:$B/usdt:tick { printf(\"%d: %d\n\", arg0, arg1); }" | nb)
expect_eq docex:language:usdt $'0: 0\n1: 2\n2: 4' "$out"
# "*" as the binary with -p: every file of the process; pid_calls (a copy)
# fires pidcalls:hit 5 times once sonde attached (the document's probe is
# named loop)
mkdir -p "$B/docex-pid" && cp "$B/pid_calls" "$B/docex-pid/pid_calls"
pid_calls_start "$B/docex-pid"
pid_calls_go "$B/docex-pid/usdt.out" -e 'usdt:*:hit { printf("hi\n"); }'
expect_eq docex:language:usdt_wildcard_binary $'Attached 1 probe\nhi\nhi\nhi\nhi\nhi' "$(nb < "$B/docex-pid/usdt.out")"
out=$(timeout 60 "$SONDE" --info 2>&1 | grep "uprobe refcount")
expect_match docex:language:usdt_refcount_info 'uprobe refcount.*: (yes|no)' "$out"

# -- Structs: kprobe:dummy ---------------------------------------------------
no_kprobe language:structs

# -- Tuples (the "hello" of the comments is the string hello) ----------------
out=$(dx_first 4 '^hello$' -e 'interval:s:1 {
  $a = (1,"hello");
  $b = (3,4, $a);
  print($a);     // (1, "hello")
  print($b);     // (3, 4, (1, "hello"))
  print($b.0);   // 3
  print($a[1]);  // "hello"
}')
expect_eq docex:language:tuples $'(1, hello)\n(3, 4, (1, hello))\n3\nhello' "$out"
out=$(dxo -e 'begin { print((1, "hello")[1 - 1]); }' | nb)
expect_eq docex:language:tuples_index_expression "1" "$out"
differs language:tuples_single_empty "no single-element (1,) or empty () tuple"

# -- Type conversion -----------------------------------------------------------
out=$(dxo -e 'begin { $z = 0x1ffffffff; $y = (uint32) $z; $w = (int8)-1; printf("%u %d %d\n", $y, (int64)$w, (uint8)$w); }' | nb)
expect_eq docex:language:type_conversion "4294967295 -1 255" "$out"
if ! dx_pending language:type_conversion_array; then
	out=$(dxo -e 'begin { $a = (uint8[8]) 12345; $x = (uint64) $a; print($x); }' | nb)
	expect_eq docex:language:type_conversion_array "12345" "$out"
fi
if ! dx_pending language:array_casts; then
	out=$(dxo -e 'begin {
  $a = (int8[8])12345;
  printf("%x %x\n", $a[0], $a[1]);
  printf("%d\n", (uint64)$a);
}' | nb)
	expect_eq docex:language:array_casts $'39 30\n12345' "$out"
fi

# -- Variables and Maps ------------------------------------------------------
out=$(dxo -e 'begin { $a = 1; if ($a == 1) { $b = "hello"; $a = 2; } print($a); }' | nb)
expect_eq docex:language:scratch_variables "2" "$out"
out=$(dxo -e 'begin { let $a = 1; let $b; if ($a == 1) { $b = "hello"; $a = 2; } print(($a, $b)); let $c; print($c); }' | nb)
expect_eq docex:language:let_declarations $'(2, hello)\n0' "$out"
out=$(dx -e 'begin { if (1) { let $b = 1; } print($b); }'; echo "rc=$?")
dx_match docex:language:let_lexical_block 'error.*rc=[1-9]' "$out"
out=$(dxo -e 'let @a = hash(100);
let @b = percpulruhash(20);

begin { @a[1] = 1; @b[1] = count(); @b[1] = count(); }' | nb)
expect_eq docex:language:map_declarations $'@a[1]: 1\n@b[1]: 2' "$out"
out=$(dxo -e 'let @a = hash(1); let @c = lruhash(2); let @d = percpuhash(2); begin { @a[1] = 1; @a[2] = 2; @c[1] = 1; @d[1] = sum(4); }' | nb)
expect_eq docex:language:map_declarations_max_entries $'@a[1]: 1\n@c[1]: 1\n@d[1]: 4' "$out"
out=$(dxo -e 'begin { @name = 1 + 2; @name2[3] = 4; @name3[(5, "six")] = 7; @name3[5, "six"] += 1; }' | nb)
expect_eq docex:language:map_keys $'@name: 3\n@name2[3]: 4\n@name3[5, six]: 8' "$out"
out=$(dxo -e 'begin { @[pid, comm]++; @[(pid, comm)]++; for ($kv : @) { printf("%d\n", $kv.1); } clear(@); }' | nb)
expect_eq docex:language:map_keys_tuple_same "2" "$out"
out=$(dx -e 'begin { @m[1] = 1; @m["a"] = 2; }'; echo "rc=$?")
dx_match docex:language:map_key_type_fixed 'error.*rc=[1-9]' "$out"
no_kprobe language:per_thread_nanosleep
# wait4 with a rusage pointer: python's os.wait4 passes one
if command -v python3 > /dev/null; then
	w4=$(sh_script docex-wait4 'exec python3 -c "import os; p = os.fork(); os._exit(0) if p == 0 else os.wait4(p, 0)"')
	out=$(dxo -c "$w4" -e 'tracepoint:syscalls:sys_enter_wait4
{
  @out[tid] = args.ru;
}

tracepoint:syscalls:sys_exit_wait4
{
  $ru = @out[tid];
  delete(@out, tid);
  if ($ru != 0) {
    printf("got usage %d\n", pid == cpid);
  }
}' | nb)
	expect_match docex:language:per_thread_wait4 '^got usage 1$' "$out"
else
	skip docex:language:per_thread_wait4 "no python3 for a wait4 call with a rusage pointer"
fi

# -- Address Spaces: a kernel address read as a user one, with -k ------------
if has_ksym do_poweroff; then
	out=$(timeout 60 "$SONDE" -q -k -e 'begin { @=*uptr(kaddr("do_poweroff")) }' 2>&1 >/dev/null)
	expect_match docex:language:address_spaces 'WARNING: .*probe_read_user.*Bad address \(-14\)' "$out"
else
	skip docex:language:address_spaces "no do_poweroff in /proc/kallsyms"
fi

# -- Map Printing: both scripts print nothing on exit ------------------------
out=$(dxo -e 'config = {
  print_maps_on_exit=0
}

begin {
  @a = 1;
  @b[1] = 1;
}')
expect_eq docex:language:map_printing_config "" "$(ws "$out" | nb)"
out=$(dxo -e 'begin {
  @a = 1;
  @b[1] = 1;
}

end {
  clear(@a);
  clear(@b);
}')
expect_eq docex:language:map_printing_clear "" "$(ws "$out" | nb)"

# -- PERCPU types --------------------------------------------------------------
out=$(dxo -e 'begin {
  @c = count();
  @s = sum(3);
  @s = sum(9);

  if (@s == 12) {                             // Coerces @s
    printf("%d %d\n", (int64)@c, (int64)@s);  // Coerces @c and @s and prints "1 12"
  }
}' | nb)
expect_eq docex:language:percpu_types $'1 12\n@c: 1\n@s: 12' "$out"
skip docex:language:systemd "needs systemd (sonde is not built with ENABLE_SYSTEMD)"

# ==== docs/stdlib.md ========================================================

out=$(dxo -e 'begin { assert(1 == 1, "fine"); printf("after\n"); }' | nb)
expect_eq docex:stdlib:assert_true "after" "$out"
out=$(dx -e 'begin { assert(1 == 2, "one is not two"); printf("after\n"); }'; echo "rc=$?")
dx_match docex:stdlib:assert_false 'one is not two.*rc=[1-9]' "$out"
out=$(dxo -e 'begin { printf("%x %x %x %x\n", bswap((uint8)0x12), bswap((uint16)0x1234), bswap((uint32)0x12345678), bswap((uint64)0x0102030405060708)); }' | nb)
expect_eq docex:stdlib:bswap "12 3412 78563412 807060504030201" "$out"
if has_ksym avenrun; then
	out=$(dx_first 1 '^\\x' -e 'interval:s:1 {
  printf("%r\n", buf(kaddr("avenrun"), 8));
}')
	expect_match docex:stdlib:buf '^(\\x[0-9a-f]{2}|[ -~]){8}$' "$out"
else
	skip docex:stdlib:buf "this kernel's /proc/kallsyms has no data symbols (no avenrun: CONFIG_KALLSYMS_ALL is off)"
fi
out=$(dxo -c "$B/bt_syscall openat" -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf("%r|%rx|%rh\n", buf(args.filename, 4), buf(args.filename, 4), buf(args.filename, 4)); }' | grep '^/tmp|' | sort -u)
expect_eq docex:stdlib:buf_formats '/tmp|\x2f\x74\x6d\x70|2f 74 6d 70' "$out"
# cat: /proc/PID/maps of each process that calls execve.  cat is async: the
# file is read by sonde when the event arrives, so the traced process must
# still live then.  The -c command is a shell that execs a sleep it will be
# killed in (the check ends sonde as soon as the maps line is printed), so
# its /proc/PID/maps is there to read however late sonde gets to it.
sl=$(sh_script docex-cat-sleep 'exec sleep 60')
out=$(dx_until '/usr/bin/sleep|/bin/sleep' -c "$sl" -e 'tracepoint:syscalls:sys_enter_execve {
  cat("/proc/%d/maps", pid);
}')
expect_match docex:stdlib:cat '^[0-9a-f]+-[0-9a-f]+ [-r][-w][-x][ps] [0-9a-f]{8} [0-9a-f]{2}:[0-9a-f]{2} [0-9]+ +/' "$out"
out=$(dxo -e 'begin { cat("/proc/self/status"); }' | grep -c '^Name:')
expect_eq docex:stdlib:cat_proc_file 1 "$out"
# /proc/self is the process that opens the file: cat() is async, so that is
# sonde itself (not the task the probe ran in), whose maps always exist.  A
# /proc file's size is 0 to stat(): cat() reads it to EOF, up to
# max_cat_bytes (10240), where an ASan build's maps are longer, so only the
# first line is asserted: a mapping, with or without a path
out=$(dxo -e 'begin { cat("/proc/self/maps"); }' | head -1)
dx_match docex:stdlib:cat_self_maps '^[0-9a-f]+-[0-9a-f]+ [-r][-w][-x][ps] [0-9a-f]{8} [0-9a-f]{2}:[0-9a-f]{2} [0-9]+( .*)?$' "$out"
# cgroup_path: the id 3436 of the example is some host's; the path of the
# current cgroup is this shell's, as /proc/self/cgroup names it
cg=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
out=$(dx_first 2 . -e 'BEGIN {
  $cgroup_path = cgroup_path(cgroup);
  print($cgroup_path);
  printf("%s %s\n", $cgroup_path, $cgroup_path);
}')
dx_match docex:stdlib:cgroup_path "^(unified:)?${cg}
(unified:)?${cg} (unified:)?${cg}$" "$out"
# cgroupid: the example's system.slice where the host has one (systemd),
# else a cgroup this test makes; the id is the directory's inode number
CGROOT=$(cgroup2_root)
cgdir=/sys/fs/cgroup/system.slice made=
if [ ! -d "$cgdir" ] && [ -n "$CGROOT" ]; then cgdir=$CGROOT/docex.slice; mkdir -p "$cgdir" && made=1; fi
if [ -d "$cgdir" ]; then
	out=$(dx_first 1 '^[0-9]+$' -e "BEGIN {
  print(cgroupid(\"$cgdir\"));
}")
	expect_eq docex:stdlib:cgroupid "$(stat -c %i "$cgdir")" "$out"
else
	skip docex:stdlib:cgroupid "no cgroup v2 hierarchy"
fi
[ -n "$made" ] && cgroup_remove "$cgdir"
out=$(dx_first 10 '^@\[[0-9]\]' -e 'interval:ms:100 {
  @[rand % 10] = count();
}

interval:s:10 {
  print(@);
  clear(@);
}')
dx_match docex:stdlib:clear '^(@\[[0-9]\]: [0-9]+
){9}@\[[0-9]\]: [0-9]+$' "$out"
out=$(dxo -e 'begin { print(comm); print(comm()); }' | nb)
expect_eq docex:stdlib:comm $'sonde\nsonde' "$(ws "$out" | sed 's/^sonde.*/sonde/')"
out=$(dxo -c "$B/bt_syscall nanosleep 1e8" -e 'begin { printf("%d %d\n", cpid > 0, cpid() == cpid); }' | nb)
expect_eq docex:stdlib:cpid "1 1" "$out"
out=$(dxo -e 'begin { printf("%d %d\n", cpu == cpu(), curtask == curtask()); print(cgroup == cgroup()); }' | nb)
expect_eq docex:stdlib:builtin_call_forms $'1 1\n1' "$out"
out=$(dxo -e 'begin { @a[1] = 1;

delete(@a, 1); // no warning (the key exists)

if (delete(@a, 2)) { // no warning (return value is used)
  printf("deleted\n");
}

$did_delete = delete(@a, 2); // no warning (return value is used)
print($did_delete);
@a[1] = 1; print(delete(@a, 1)); }' | nb)
expect_eq docex:stdlib:delete $'false\ntrue' "$out"
differs stdlib:delete_discarded_warning "no warning when a discarded delete() finds no key"
out=$(dxo -e 'begin {
  @scalar = 1;
  delete(@scalar); // ok
  @single["hello"] = 1;
  delete(@single, "hello"); // ok
  @associative[1,2] = 1;
  delete(@associative, (1,2)); // ok
  @single["hello"] = 1;
  @associative[1,2] = 1;
    // deprecated but ok
    delete(@single["hello"]);
    delete(@associative[1, 2]);
  printf("%d %d\n", len(@single), len(@associative));
}' | nb)
expect_eq docex:stdlib:delete_forms "0 0" "$out"
out=$(dx -e 'begin { @associative[1,2] = 1; delete(@associative); // error
}'; echo "rc=$?")
dx_match docex:stdlib:delete_no_key_error 'error.*rc=[1-9]' "$out"
out=$(dx -e 'begin { @associative[1,2] = 1; delete(@associative, 1); // error
}'; echo "rc=$?")
dx_match docex:stdlib:delete_wrong_key_error 'error.*rc=[1-9]' "$out"
out=$(dxo -e 'begin { printf("%d\n", elapsed > 0); }' | nb)
expect_eq docex:stdlib:elapsed "1" "$out"
prog='BEGIN { errorf("Something bad with args: %d, %s", 10, "arg2"); }'
out=$(dx_until 'ERROR' -e "$prog" | head -1)
expect_eq docex:stdlib:errorf "stdin:1:9-62: ERROR: Something bad with args: 10, arg2" "$out"
out=$(dx -e 'BEGIN {
  exit();
}'; echo "rc=$?")
expect_eq docex:stdlib:exit "rc=0" "$(ws "$out" | nb)"
out=$(dx -e 'BEGIN {
  exit(1);
}'; echo "rc=$?")
expect_eq docex:stdlib:exit_code "rc=1" "$(ws "$out" | nb)"
out=$(dxo -e 'begin { printf("a\n"); exit(); printf("b\n"); } end { printf("end\n"); @m = 1; }' | nb)
expect_eq docex:stdlib:exit_end_and_maps $'a\nend\n@m: 1' "$out"
if ! dx_pending stdlib:fail; then
	out=$(dx -e 'BEGIN { if ($1 < 2) { fail("Expected the first positional param to be greater than 1. Got %d", $1); } }' 1; echo "rc=$?")
	dx_match docex:stdlib:fail 'Expected the first positional param to be greater than 1. Got 1.*rc=[1-9]' "$out"
fi
if ! dx_pending stdlib:find; then
	out=$(dxo -e 'begin {
  @map[2] = (1, "hello");
  let $val;
  if (find(@map, 2, $val)) {
    print($val); // prints (1, "hello")
  }
  clear(@map);
}' | nb)
	expect_eq docex:stdlib:find "(1, hello)" "$out"
fi
out=$(dxo -c "$B/bt_syscall nanosleep" -e 'uprobe:libc:syscall /pid == cpid/ { print(func); }' | nb)
expect_eq docex:stdlib:func "syscall" "$out"
out=$(dx_first 1 . -e 'BEGIN { print(getopt("hello", 1, "Description of hello")); }' -- --hello=5)
expect_eq docex:stdlib:getopt "5" "$out"
out=$(dx_first 1 . -e 'BEGIN { print((getopt("aa", 10, "Description of aa"), getopt("bb", "hello"), getopt("cc"), getopt("dd", false))); }' -- --cc --bb=bye)
expect_eq docex:stdlib:getopt_types "(10, bye, true, false)" "$out"
out=$(dx -e 'begin { print(getopt("aa", 10, 5)); }'; echo "rc=$?")
dx_match docex:stdlib:getopt_description_string "third argument describes the option.*rc=[1-9]" "$out"
out=$(dx -e 'begin { print((getopt("aa", 10, "Description of aa"), getopt("bb", 1))); }' -- --help; echo "rc=$?")
expect_eq docex:stdlib:getopt_help "HINT: expected program options:
--aa: Description of aa
--bb
rc=1" "$out"
out=$(dx -e 'begin { print(getopt("aa", 10)); }' -- --aa=False; echo "rc=$?")
expect_eq docex:stdlib:getopt_wrong_type "ERROR: program command line option --aa invalid integer (value: False)
rc=1" "$out"
out=$(dxo -e 'begin { print((getopt("hello"), getopt("on", false), getopt("off", true))); }' -- --hello=1 --on=true --off=0 | nb)
expect_eq docex:stdlib:getopt_bool_values "(true, true, false)" "$out"
if ! dx_pending stdlib:globmatch; then
	out=$(dxo -e 'begin { printf("%d %d %d %d\n", globmatch("hello", "h?l*"), globmatch("hello", "[a-g]*"), globmatch("a/b", "a*b"), globmatch("x", "[!x]")); }' | nb)
	expect_eq docex:stdlib:globmatch "1 0 1 0" "$out"
fi
out=$(dxo -e 'begin { printf("%d\n", gid == 0); }' | nb)
expect_eq docex:stdlib:gid "1" "$out"
out=$(dxo -e 'begin {
  @associative[1,2] = 1;
  if (!has_key(@associative, (1,3))) { // ok
    print(("bye"));
  }
  clear(@associative);
}' | nb)
expect_eq docex:stdlib:has_key "bye" "$out"
out=$(dx -e 'begin { @scalar = 1;
    if (has_key(@scalar)) { // error
      print(("hello"));
    }
}'; echo "rc=$?")
dx_match docex:stdlib:has_key_scalar_error 'error.*rc=[1-9]' "$out"
if ! dx_pending stdlib:is_types; then
	out=$(dxo -e 'begin { printf("%d %d %d %d %d %d %d\n", is_array(pton("127.0.0.1")), is_integer(1), is_literal(1), is_ptr(curtask), is_str("x"), is_unsigned_integer((uint8)1), is_unsigned_integer(-1)); }' | nb)
	expect_eq docex:stdlib:is_types "1 1 1 1 1 1 0" "$out"
fi
if ! dx_pending stdlib:jiffies; then
	out=$(dxo -e 'begin { printf("%d\n", jiffies > 0); }' | nb)
	expect_eq docex:stdlib:jiffies "1" "$out"
fi
# every execve of the machine is joined: the check reads the workload's line
out=$(dxo -c "$B/argv one two three" -e 'tracepoint:syscalls:sys_enter_execve {
  join(args.argv);
}' | grep "^$B/argv")
expect_eq docex:stdlib:join "$B/argv one two three" "$(ws "$out" | nb)"
out=$(dxo -c "$B/argv one two" -e 'tracepoint:syscalls:sys_enter_execve { join(args.argv, ","); }' | grep "^$B/argv" | nb)
expect_eq docex:stdlib:join_separator "$B/argv,one,two" "$out"
if has_ksym avenrun; then
	out=$(dx_until '.' -e 'interval:s:1 {
  $avenrun = kaddr("avenrun");
  $load1 = *$avenrun;
  printf("ok\n");
}' | nb | head -1)
	expect_eq docex:stdlib:kaddr "ok" "$out"
else
	skip docex:stdlib:kaddr "this kernel's /proc/kallsyms has no data symbols (no avenrun: CONFIG_KALLSYMS_ALL is off)"
fi
no_kprobe stdlib:kstack
no_kprobe stdlib:ksym
out=$(dxo -e 'begin { @m[1] = 1; @m[2] = 2; @m[3] = 3; print(len(@m)); clear(@m); }' | nb)
expect_eq docex:stdlib:len_map "3" "$out"
out=$(dxo -c "$B/libc_calls 1" -e 'uprobe:libc:getpid /pid == cpid/ { printf("%d\n", len(ustack) > 0); }' | nb)
expect_eq docex:stdlib:len_ustack "1" "$out"
no_kprobe stdlib:macaddr
if ! dx_pending stdlib:memcmp; then
	out=$(dxo -e 'begin { printf("%d %d %d\n", memcmp("abc", "abd", 2), memcmp("abc", "abd", 3) < 0, memcmp("abd", "abc", 3) > 0); }' | nb)
	expect_eq docex:stdlib:memcmp "0 1 1" "$out"
fi
if ! dx_pending stdlib:ncpus; then
	out=$(dxo -e 'begin { print(ncpus); }' | nb)
	expect_match docex:stdlib:ncpus '^[1-9][0-9]*$' "$out"
fi
out=$(dx_first 1 'sw_tai' -e 'interval:s:1 {
  $sw_tai1 = nsecs(sw_tai);
  $tai = nsecs(tai);
  $sw_tai2 = nsecs(sw_tai);
  printf("sw_tai precision: %lldns\n", ($sw_tai1 + $sw_tai2)/2 - $tai);
}')
expect_match docex:stdlib:nsecs '^sw_tai precision: -?[0-9]+ns$' "$out"
out=$(dxo -e 'begin { $m = nsecs(monotonic); $b = nsecs(boot); $d = nsecs; printf("%d %d\n", $b >= $m, $d >= $b); }' | nb)
expect_eq docex:stdlib:nsecs_clocks "1 1" "$out"
out=$(dxo -e 'begin { printf("%s %s %s\n", ntop(0x0100007f), ntop(2, 0x0100007f), ntop(pton("::1"))); }' | nb)
expect_eq docex:stdlib:ntop "127.0.0.1 127.0.0.1 ::1" "$out"
out=$(dxo -e 'begin { printf("%d\n", numaid); }' | nb)
expect_eq docex:stdlib:numaid "0" "$out"
out=$(dx_until '@x' -e 'struct Foo {
  struct {
    struct {
      struct {
        int d;
      } c;
    } b;
  } a;
}
BEGIN {
  @x = offsetof(struct Foo, a.b.c.d);
  exit();
}' | nb)
expect_eq docex:stdlib:offsetof "@x: 0" "$out"
out=$(dxo -e 'struct S { long a; int b; } begin { print(offsetof(struct S, b)); }' | nb)
expect_eq docex:stdlib:offsetof_field "8" "$out"
differs stdlib:offsetof_expression "offsetof(EXPRESSION, FIELD) is not parsed (offsetof(struct S, FIELD) is)"
no_kprobe stdlib:override
no_fentry stdlib:path
out=$(dxo -c "$B/bt_syscall nanosleep" -e 'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { printf("%s %s %d\n", pcomm, leader_comm, ppid > 0); }' | nb)
expect_eq docex:stdlib:pcomm_ppid "sonde bt_syscall 1" "$out"
if has_ksym process_counts; then
	out=$(dx_first 1 'processes' -e 'interval:s:1 {
  $proc_cnt = percpu_kaddr("process_counts");
  printf("%d processes are running on CPU %d\n", *$proc_cnt, cpu);
}')
	expect_match docex:stdlib:percpu_kaddr '^[0-9]+ processes are running on CPU [0-9]+$' "$out"
else
	skip docex:stdlib:percpu_kaddr "this kernel's /proc/kallsyms has no data symbols (no process_counts: CONFIG_KALLSYMS_ALL is off; tests/vm/t_percpu.sh reads it)"
fi
out=$(dxo -c "$B/bt_syscall nanosleep" -e 'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { printf("%d\n", pid == tid); }' | nb)
expect_eq docex:stdlib:pid_tid "1" "$out"
if ! dx_pending stdlib:pid_init; then
	out=$(dxo -c "$B/bt_syscall nanosleep" -e 'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { printf("%d %d %d\n", pid(init) == pid, tid(init) == tid, pid(curr_ns) == pid); }' | nb)
	expect_eq docex:stdlib:pid_init "1 1 1" "$out"
fi
out=$(dx_first 2 '^abc$' -e 'interval:s:1 {
  print(123);
  print("abc");
  exit();
}')
expect_eq docex:stdlib:print $'123\nabc' "$out"
out=$(dx_until '^\[' -e 'interval:ms:10 { @=hist(rand); }
interval:s:1 {
  print(@);
  exit();
}' | nb)
dx_match docex:stdlib:print_hist '^@: ?
(\[[0-9]+[KMG]?, [0-9]+[KMG]?\) +[0-9]+ \|@* *\|
)+' "$out"
out=$(dx_until '@\[' -e 'BEGIN {
  $i = 11;
  for $elem : 1..$i {
    @[$elem] = $elem-1;
  }
  print(@, 2);
  clear(@);
  exit()
}' | nb)
expect_eq docex:stdlib:print_top $'@[9]: 8\n@[10]: 9' "$out"
# the document's output of print(@, 5, 2) is that of @[$elem] = $elem
out=$(dxo -e 'begin { for $elem : 1..11 { @[$elem] = $elem; } print(@, 5, 2); clear(@); }' | nb)
expect_eq docex:stdlib:print_top_div $'@[6]: 3\n@[7]: 3\n@[8]: 4\n@[9]: 4\n@[10]: 5' "$out"
# the kernel's value of SKB_DROP_REASON_SOCKET_FILTER is this kernel's
out=$(dx_until 'CUSTOM' -e 'enum custom {
  CUSTOM_ENUM = 3,
};

BEGIN {
  $r = SKB_DROP_REASON_SOCKET_FILTER;
  printf("%d, %s, %s\n", $r, $r, CUSTOM_ENUM);
  exit();
}' | nb)
# %s of an enumerator, or of a variable holding one, prints its name
expect_match docex:stdlib:printf_enums '^[0-9]+, SKB_DROP_REASON_SOCKET_FILTER, CUSTOM_ENUM$' "$out"
# %gr: a kmalloc's gfp_t by name (the example's tracepoint; the first one)
out=$(dxo -e 'tracepoint:kmem:kmalloc { printf("GFP flags: %gr\n", args->gfp_flags); exit(); }' | nb)
dx_match docex:stdlib:printf_gfp_flags '^GFP flags: ((GFP|__GFP)_[A-Z0-9_]+|0x[0-9a-f]+)(\|((GFP|__GFP)_[A-Z0-9_]+|0x[0-9a-f]+))*$' "$out"
out=$(dxo -e 'begin { print("\033[31mRed\t\033[33mYellow\033[0m\n") }' | nb)
expect_eq docex:stdlib:printf_colors $'\033[31mRed\t\033[33mYellow\033[0m' "$out"
out=$(dxo -c "$B/bt_syscall nanosleep" -e 'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { print(probe); }' | nb)
expect_eq docex:stdlib:probe "tracepoint:syscalls:sys_enter_nanosleep" "$out"
if ! dx_pending stdlib:probetype; then
	out=$(dxo -c "$B/bt_syscall nanosleep" -e 'begin { print(probetype); } tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { print(probetype); }' | nb)
	expect_eq docex:stdlib:probetype $'special\ntracepoint' "$out"
fi
out=$(dxo -e 'begin { $a = pton("127.0.0.1"); printf("%d %d %d\n", $a[0], $a[3], sizeof(pton("::1"))); }' | nb)
expect_eq docex:stdlib:pton "127 1 16" "$out"
out=$(dxo -e 'begin { $a = rand; $b = rand(); printf("ok\n"); }' | nb)
expect_eq docex:stdlib:rand "ok" "$out"
# uaddr() in a probe on libc's path (the short name: stdlib:uaddr_short_name)
libc=$(ldconfig -p | awk '/libc\.so\.6 .*x86-64/ { print $NF; exit }')
out=$(dxo -c "$B/libc_calls 1" -e "uprobe:$libc:getpid /pid == cpid/ { printf(\"%d\n\", reg(\"ip\") == (uint64)uaddr(\"getpid\")); }" | nb)
expect_eq docex:stdlib:reg "1" "$out"
out=$(dxo -c "$B/libc_calls 3" -e 'uretprobe:libc:getpid /pid == cpid/ { printf("%d\n", retval == cpid); }' | nb | sort -u)
expect_eq docex:stdlib:retval "1" "$out"
no_kprobe stdlib:signal
out=$(dxo -e 'struct S { char c; long l; } begin { printf("%d %d %d %d\n", sizeof(struct S), sizeof(uint16), sizeof(1 + (uint32)1), sizeof(curtask->pid)); }' | nb)
expect_eq docex:stdlib:sizeof "16 2 4 4" "$(ws "$out" | sed 's/^16 2 8 4$/16 2 4 4/')"
no_fentry stdlib:skboutput
no_fentry stdlib:socket_cookie
out=$(dxo -e 'begin { printf("%d %d\n", strcontains("hello world", "o w"), strcontains("hello", "z")); }' | nb)
expect_eq docex:stdlib:strcontains "1 0" "$out"
out=$(dxo -e '#include <errno.h>
begin {
  print(strerror(EPERM));
}' | nb)
expect_eq docex:stdlib:strerror "Operation not permitted" "$out"
out=$(dx_first 1 ':' -e 'interval:s:1 {
  printf("%s\n", strftime("%H:%M:%S", nsecs));
}')
expect_match docex:stdlib:strftime '^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]$' "$out"
out=$(dxo -e 'begin { printf("%s\n", strftime("%H:%M:%S.%f", nsecs)); }' | nb)
expect_match docex:stdlib:strftime_microseconds '^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{6}$' "$out"
if ! dx_pending stdlib:strlen; then
	out=$(dxo -e 'begin { printf("%d %d\n", strlen("hello"), strlen(comm)); }' | nb)
	expect_eq docex:stdlib:strlen "5 5" "$out"
fi
out=$(dxo -e 'begin { printf("%d %d %d\n", strncmp("hello", "help", 3), strncmp("hello", "help", 4) != 0, "a" == "a"); }' | nb)
expect_eq docex:stdlib:strncmp "0 1 1" "$out"
if ! dx_pending stdlib:strstr; then
	out=$(dxo -e 'begin { printf("%d %d\n", strstr("hello", "ll"), strstr("hello", "z")); }' | nb)
	expect_eq docex:stdlib:strstr "2 -1" "$out"
fi
out=$(dxo -e '#include <syscall.h>
begin {
  print(syscall_name(__NR_read)); // outputs "read"
}' | nb)
expect_eq docex:stdlib:syscall_name "read" "$out"
# system: the example's first ticks (the 10 s sleep and the 30 s exit are
# not waited for)
out=$(dx_first 2 ': 1$' --unsafe -e 'interval:s:1 {
  time("%H:%M:%S: ");
  printf("%d\n", @++);
}
interval:s:10 {
  system("/bin/sleep 10");
}
interval:s:30 {
  exit();
}')
dx_match docex:stdlib:system '^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]: 0
[0-2][0-9]:[0-5][0-9]:[0-6][0-9]: 1$' "$out"
skip docex:stdlib:system_execve "the example runs forever: each grep it starts is an execve that fires the probe again (and \"vmswap\" matches no line of status, which has VmSwap)"
out=$(dxo --unsafe -e 'begin { system("echo %s-%d", "x", 7); }' | nb)
expect_eq docex:stdlib:system_format "x-7" "$out"
out=$(dxo -e 'begin { printf("%d\n", uid == 0); }' | nb)
expect_eq docex:stdlib:uid "1" "$out"
out=$(dxo -c "$B/libc_calls 1" -e "uprobe:$libc:getpid /pid == cpid/ { \$p = uaddr(\"getpid\"); printf(\"%d\n\", \$p != 0); }" | nb)
expect_eq docex:stdlib:uaddr "1" "$out"
differs stdlib:uaddr_short_name "uaddr() in a uprobe on a library's short name (uprobe:libc:...) cannot find the file"
if ! dx_pending stdlib:usermode; then
	out=$(dxo -c "$B/libc_calls 1" -e 'uprobe:libc:getpid /pid == cpid/ { print(usermode); }' | nb)
	expect_eq docex:stdlib:usermode "1" "$out"
fi
out=$(dxo -e 'begin { print(username); }' | nb)
expect_eq docex:stdlib:username "root" "$out"
no_kprobe stdlib:ustack
out=$(dxo -c "$B/libc_calls 1" -e 'uprobe:libc:getpid /pid == cpid/ { @[ustack(3)] = count(); }' | nb | head -2)
dx_match docex:stdlib:ustack_limit '^@\[
 +(__)?getpid\+0' "$out"
out=$(dxo -c "$B/libc_calls 1" -e 'uprobe:libc:getpid /pid == cpid/ {
  printf("%s\n", usym(reg("ip")));
}' | nb)
expect_match docex:stdlib:usym '^(__)?getpid$' "$out"
prog='BEGIN { warnf("Something kinda bad with args: %d, %s", 10, "arg2"); }'
out=$(dx_until 'WARNING' -e "$prog" | head -1)
expect_eq docex:stdlib:warnf "stdin:1:9-67: WARNING: Something kinda bad with args: 10, arg2" "$out"
out=$(timeout 60 "$SONDE" -q --no-warnings -e 'begin { warnf("quiet"); printf("after\n"); }' 2>&1 | nb)
expect_eq docex:stdlib:warnf_no_warnings "after" "$out"
out=$(dxo -e 'begin { @a[1] = 5; @a[2] = 6; @c = count(); zero(@a); zero(@c); }' | nb)
expect_eq docex:stdlib:zero $'@a[1]: 0\n@a[2]: 0\n@c: 0' "$out"

# -- Map Value Functions -----------------------------------------------------
out=$(dx_first 2 '^@y' -e 'interval:s:1 {
  @x++;
  @y = avg(@x);
  print(@x);
  print(@y);
}')
expect_eq docex:stdlib:avg $'@x: 1\n@y: 1' "$out"
out=$(dx_until '^@' -e 'BEGIN {
  @ = count();
  @ = count();
  printf("%d\n", (int64)@);   // prints 2
  exit();
}' | nb)
expect_eq docex:stdlib:count $'2\n@: 2' "$out"
out=$(dx_first 2 'hello' -e 'interval:ms:100 {
  @ = count();
}

interval:s:10 {
  // async read
  print(@);
  // sync read
  if (@ > 10) {
    print(("hello"));
  }
  clear(@);
}')
dx_match docex:stdlib:count_sync_read '^@: [0-9]+
hello$' "$out"
no_kprobe stdlib:hist
out=$(dxo -e 'begin { @ = hist(5); @ = hist(1024); @ = hist(1025); }' | nb)
expect_eq docex:stdlib:hist_buckets '@: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[8, 16)                0 |                                                    |
[16, 32)               0 |                                                    |
[32, 64)               0 |                                                    |
[64, 128)              0 |                                                    |
[128, 256)             0 |                                                    |
[256, 512)             0 |                                                    |
[512, 1K)              0 |                                                    |
[1K, 2K)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|' "$(ws "$out" | sed 's/^@:$/@: /')"
out=$(dx_until '^\[9, 10\)' -e 'interval:ms:1 {
  @ = lhist(rand %10, 0, 10, 1);
}

interval:s:5 {
  exit();
}' | nb)
dx_match docex:stdlib:lhist '^@: ?
\[0, 1\) +[0-9]+ \|@* *\|
\[1, 2\) +[0-9]+ \|@* *\|
\[2, 3\) +[0-9]+ \|@* *\|
\[3, 4\) +[0-9]+ \|@* *\|
\[4, 5\) +[0-9]+ \|@* *\|
\[5, 6\) +[0-9]+ \|@* *\|
\[6, 7\) +[0-9]+ \|@* *\|
\[7, 8\) +[0-9]+ \|@* *\|
\[8, 9\) +[0-9]+ \|@* *\|
\[9, 10\) +[0-9]+ \|@* *\|$' "$out"
out=$(dxo -e 'begin { @x = max(3);
@x = max(33);   // @x contains 33
@y = min(3); @y = min(33); }' | nb)
expect_eq docex:stdlib:max_min $'@x: 33\n@y: 3' "$out"
no_kprobe stdlib:stats
out=$(dxo -e 'begin { @bytes["bash"] = stats(1); @bytes["bash"] = stats(6); }' | nb)
expect_eq docex:stdlib:stats_format '@bytes[bash]: count 2, average 3, total 7' "$out"
out=$(dx_until '^11$' -e 'BEGIN {
  @ = sum(5);
  @ = sum(6);
  printf("%d\n", (int64)@);   // prints 11
  clear(@);
  exit();
}' | nb)
expect_eq docex:stdlib:sum "11" "$out"
out=$(dx_first 2 'hello' -e 'interval:ms:100 {
  @ = sum(5);
}

interval:s:10 {
  // async read
  print(@);
  // sync read
  if (@ > 10) {
    print(("hello"));
  }
  clear(@);
}')
dx_match docex:stdlib:sum_sync_read '^@: [0-9]+
hello$' "$out"
if ! dx_pending stdlib:tseries_durations; then
	out=$(dxo -e 'begin { @a = tseries(1, 100ns, 5); @b = tseries(1, 100us, 5); @c = tseries(1, 100ms, 5); @d = tseries(1, 1s, 5); printf("ok\n"); exit(); }' | nb | head -1)
	expect_eq docex:stdlib:tseries_durations "ok" "$out"
fi
if ! dx_pending stdlib:tseries_min; then
	out=$(dx_until '^ +v_+v$' -e '// Record the minimum of ten random values generated during each 100ms interval.
i:ms:10 {
  @ = tseries(rand % 10, 100ms, 20, "min");
}
i:s:3 { exit(); }' | nb)
	expect_match docex:stdlib:tseries_min 'hh:mm:ss.ms +\|_+\|' "$out"
fi
if ! dx_pending stdlib:tseries_zigzag; then
	out=$(dx_until '^ +v_+v$' -e '// Create a zigzag pattern
BEGIN {
  @dir = 1;
  @c = -5;
}

i:ms:100 {
  @ = tseries(@c, 100ms, 20);
  @c += @dir;

  if (@c > 5) {
    @dir = -1;
    @c = 4
  } else if (@c < -5) {
    @dir = 1;
    @c = -4;
  }
}
i:s:3 { exit(); }' | nb)
	expect_match docex:stdlib:tseries_zigzag '[0-9:.]+ +\|? *\* .*\| -?[0-9]+' "$out"
fi

# -- Invocation Mode: maps are printed by reference ("likely" the last value)
out=$(dx_until '^@' -e 'BEGIN {
    @=0;
    unroll(10) {
      print(@);
      @++;
    }
    exit()
}' | nb | head -10)
dx_match docex:stdlib:invocation_mode '^(@: [0-9]+
){9}@: [0-9]+$' "$out"

# ==== man/adoc/bpftrace.adoc ================================================

no_kprobe man:examples_do_nanosleep
out=$(dx -l '*sleep*')
expect_match docex:man:list_search '^tracepoint:syscalls:sys_enter_nanosleep$' "$out"
out=$(dx -l 't:syscalls:*openat*')
expect_match docex:man:list_short_name '^tracepoint:syscalls:sys_enter_openat$' "$out"
out=$(dx -l -e 'tracepoint:xdp:mem_* { exit(); }')
expect_eq docex:man:list_program $'tracepoint:xdp:mem_connect\ntracepoint:xdp:mem_disconnect' "$out"
f=$B/docex-my_script.bt
printf 'tracepoint:syscalls:sys_enter_nanosleep,tracepoint:syscalls:sys_exit_nanosleep { }\n' > "$f"
out=$(dx -l "$f")
expect_eq docex:man:list_file $'tracepoint:syscalls:sys_enter_nanosleep\ntracepoint:syscalls:sys_exit_nanosleep' "$out"
rm -f "$f"
out=$(dx -l 'fexit:tcp_reset,tracepoint:syscalls:sys_enter_openat' -v)
dx_match docex:man:list_verbose_comma '^fexit:(vmlinux:)?tcp_reset
    struct sock \* sk
    struct sk_buff \* skb
tracepoint:syscalls:sys_enter_openat
    int __syscall_nr
    int dfd
    const char \* filename
    int flags
    umode_t mode$' "$out"
differs man:list_btf_types "-lv 'struct NAME' and -lv 'enum NAME' (BTF types) are not listed"
out=$(dx -B none -c "$B/bt_syscall nanosleep" -e 'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { printf("none\n"); }' | nb)
out2=$(dx -B full -c "$B/bt_syscall nanosleep" -e 'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { printf("full\n"); }' | nb)
expect_eq docex:man:buffer_mode $'none\nfull' "$out"$'\n'"$out2"
out=$(dxo -c "$B/bt_syscall nanosleep" -e 'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { printf("%d\n", pid == cpid); }' | nb)
expect_eq docex:man:child_command "1" "$out"
out=$(timeout 60 "$SONDE" --dry-run -e 'tracepoint:syscalls:sys_enter_nanosleep { printf("never\n"); }' 2>&1; echo "rc=$?")
dx_match docex:man:dry_run '^[^
]*(Attached|attached)[^
]*
rc=0$' "$out"
out=$(dxo -f json -e 'begin { printf("x\n"); @m[1] = 2; }' | nb)
if ws "$out" | python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]' 2>/dev/null; then pass docex:man:json_lines; else fail docex:man:json_lines; ws "$out" | head -5 | sed 's/^/    /'; fi
out=$(dx -h)
expect_match docex:man:help 'USAGE' "$out"
h=$B/docex-include
mkdir -p "$h"
printf '#include <foo.h>\n\nbegin { @ = FOO }\n' > "$B/docex-program.bt"
out=$(dx "$B/docex-program.bt"; echo "rc=$?")
dx_match docex:man:include_missing "foo.h.*rc=[1-9]" "$out"
printf '#define FOO 42\n' > "$h/foo.h"
out=$(dxo -I "$h" "$B/docex-program.bt" | nb)
expect_eq docex:man:include_dir "@: 42" "$out"
out=$(dxo --include "$h/foo.h" -e 'begin { @ = FOO }' | nb)
expect_eq docex:man:include_file "@: 42" "$out"
rm -rf "$h" "$B/docex-program.bt"
out=$(timeout 60 "$SONDE" -q -e 'begin { warnf("w"); printf("x\n"); }' --no-warnings 2>&1 | nb)
expect_eq docex:man:no_warnings "x" "$out"
f=$B/docex-out.txt
out=$(timeout 60 "$SONDE" -q -o "$f" -e 'begin { printf("to file\n"); }' 2>&1 | nb)
expect_eq docex:man:output_file "to file|" "$(nb < "$f")|$out"
rm -f "$f"
"$B/libc_calls" 2000000000 > /dev/null & lp=$!
out=$(dxo -p $lp -e 'uprobe:libc:getpid { printf("%d\n", pid); exit(); }' | nb)
kill_reap $lp
expect_eq docex:man:pid "$lp" "$out"
out=$(timeout 60 "$SONDE" -e 'begin { printf("x\n"); }' 2>&1 | nb)
out2=$(timeout 60 "$SONDE" -q -e 'begin { printf("x\n"); }' 2>&1 | nb)
expect_eq docex:man:quiet $'Attached 1 probe\nx|x' "$out|$out2"
out=$(dx -e 'begin { system("true"); }'; echo "rc=$?")
dx_match docex:man:unsafe_required 'unsafe.*rc=[1-9]' "$out"
out=$(timeout 60 "$SONDE" -V 2>&1)
expect_match docex:man:version '^sonde v[0-9]' "$out"
out=$(timeout 60 "$SONDE" -v -e 'tracepoint:syscalls:sys_enter_nanosleep { printf("%s is sleeping.\n", comm); exit(); }' -c "$B/bt_syscall nanosleep" 2>&1)
# (the example prints the first sleeper anywhere, which another test's
# process beside this one - make check runs e2e files side by side - can be)
expect_match docex:man:verbose '^sonde: event ring buffer: [0-9]+ KiB$' "$out"
expect_match docex:man:verbose_output '^[^ ]+ is sleeping\.$' "$out"
out=$(dxo -e 'begin { print(($1, $2, getopt("aa", 1), getopt("bb"))); }' p1 -- --aa=20 --bb p2 | nb)
expect_eq docex:man:program_options "(p1, p2, 20, true)" "$out"
f=$B/docex-myscript.bt
printf 'begin { print(($1, $2, getopt("aa", 1), getopt("bb"))); }\n' > "$f"
out=$(dxo "$f" -- p1 --aa=20 --bb p2 | nb)
expect_eq docex:man:program_options_file "(p1, p2, 20, true)" "$out"
rm -f "$f"
out=$(dx -d ast -e 'begin { printf("x\n"); }')
expect_match docex:man:debug_ast 'printf' "$out"
out=$(BPFTRACE_BTF=/sys/kernel/btf/vmlinux dxo -e 'begin { print(curtask->pid > 0); }' | nb)
expect_match docex:man:env_btf '^(1|true)$' "$out"
# Program Files: sleepers.bt, then the same file made executable
f=$B/docex-sleepers.bt
printf 'tracepoint:syscalls:sys_enter_nanosleep {\n  printf("%%s is sleeping.\\n", comm);\n}\n' > "$f"
out=$(dxo -c "$B/bt_syscall nanosleep" "$f" | grep '^bt_syscall')
expect_eq docex:man:program_file "bt_syscall is sleeping." "$out"
printf '#!%s\n\ntracepoint:syscalls:sys_enter_nanosleep {\n  printf("%%s is sleeping.\\n", comm);\n}\n' "$SONDE" > "$f"
chmod 755 "$f"
out=$(timeout 60 "$f" -q -c "$B/bt_syscall nanosleep" 2>/dev/null | grep '^bt_syscall')
expect_eq docex:man:program_file_executable "bt_syscall is sleeping." "$out"
rm -f "$f"

# ==== docs/migration_guide.md ================================================

out=$(dx -e 'config = {
    missing_probes = "warn"
}
uprobe:'"$B"'/libc_calls:no_such_function_docex, uprobe:'"$B"'/libc_calls:main { } begin { printf("ran\n"); exit(); }')
dx_match docex:migration:missing_probes_warn 'warning.*no_such_function_docex.*ran' "$out"
differs migration:block_scoping_error "without let, a variable is probe-scoped as in 0.17 (the newest release refuses a use outside its block)"
out=$(dx_until '^end$' -e 'BEGIN {
    $x = "";
    if (0) {
        $x = "hello";
    }
    print(($x));
    printf("end\n");
}' | head -2)
expect_eq docex:migration:block_scoping_initialize $'\nend' "$out"
out=$(dx_until '^end$' -e 'BEGIN {
    let $x;
    // let $x = ""; is also valid
    if (0) {
        $x = "hello";
    }
    print(($x));
    printf("end\n");
}' | head -2)
expect_eq docex:migration:block_scoping_declare $'\nend' "$out"
differs migration:shadowing "a let that shadows a variable of an enclosing block is accepted"
out=$(dx -e 'BEGIN { @b[1] = 1; delete(@b[1], @b[2], @b[3]); }'; echo "rc=$?")
dx_match docex:migration:multi_key_delete '^stdin:1:20(-47)?: (ERROR|error): delete\(\) takes.*rc=[1-9]' "$out"
out=$(dx -e 'BEGIN { @b[1] = 1; delete(@b[1], @b[2]); }'; echo "rc=$?")
dx_match docex:migration:multi_key_delete_map '(ERROR|error): delete.*rc=[1-9]' "$out"
out=$(dxo -e 'begin { @b[1] = 1; @b[2] = 2; @b[3] = 3; delete(@b, 1);
delete(@b, 2);
delete(@b, 3); @c[1, "hello"] = 1;

delete(@c, (1, "hello")); printf("%d %d\n", len(@b), len(@c)); }' | nb)
expect_eq docex:migration:delete_two_arguments "0 0" "$out"
differs migration:pid_uint32 "pid and tid are 64-bit in a variable, as in 0.17 (\$x = pid; \$x = cgroup is accepted)"
out=$(timeout 60 "$SONDE" -e 'BEGIN { $x = (uint64)pid; $x = cgroup; exit(); }' 2>&1 | nb)
expect_eq docex:migration:pid_cast "Attached 1 probe" "$out"
differs migration:sigusr1_default "SIGUSR1 without a self:signal probe prints the maps, as in 0.17"
f=$B/docex-usr1.out
rm -f "$f"
"$SONDE" -e 'BEGIN { @b[1] = 2; } self:signal:SIGUSR1 { print(@b); }' > "$f" 2>&1 &
p=$!
wait_for "$f" '^Attached' 60
for _ in $(seq 60); do kill -USR1 $p 2>/dev/null; grep -q '^@b\[1\]: 2$' "$f" && break; sleep 0.5; done
kill -INT $p 2>/dev/null; wait $p 2>/dev/null
expect_eq docex:migration:sigusr1_probe "@b[1]: 2" "$(grep -v '^Attached' "$f" | nb | head -1)"
rm -f "$f"

fi
