# t_stdlib.sh - the newest bpftrace's standard library (docs/stdlib.md,
# src/stdlib/*.bt) that 0.17 lacks: find(), the type-introspection and
# compile-time helpers, strstr/strlen/strcap/memcmp, pid/tid namespaces,
# globmatch.  Expected outputs are the newest docs' and tests/runtime's.

if need_root stdlib:bpf; then

# run PROGRAM: sonde -q -e PROGRAM, stdout and stderr, blank lines dropped
sl_run() { timeout 60 "$SONDE" -q -e "$1" 2>&1 | sed '/^$/d'; }
sl_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# -- find(@m, key, $v) ------------------------------------------------------
out=$(timeout 60 "$SONDE" -q "$sl_here/stdlib/find.bt" 2>&1 | sed '/^$/d')
expect_eq stdlib:find_runtime_script $'8\ntrue' "$out"
out=$(sl_run 'begin { @m[1, "a"] = 7; $v = 0; $k = find(@m, (1, "a"), $v); printf("%d %d\n", $k, $v); clear(@m); }')
expect_eq stdlib:find_two_keys '1 7' "$out"
out=$(sl_run 'begin { @s = 1; let $v; if (find(@s, 1, $v)) { print($v); } }' | head -1)
expect_eq stdlib:find_scalar_map "stdin:1:29: error: map '@s' has 1 key here but 0 elsewhere" "$out"
out=$(sl_run 'begin { @s[1] = 1; if (find(@s, 1, 5)) { print(1); } }' | head -1)
expect_eq stdlib:find_needs_variable "stdin:1:36: error: macro 'find' assigns to its parameter \$v, so it takes a variable (\$name) there, not an expression" "$out"

# -- compile-time helpers: is_*, has_cpid, probetype, kfunc_exist,
#    static_assert, fail -------------------------------------------------
out=$(sl_run 'begin { print(is_str("a")); print(is_str(1)); print(is_integer(pid)); print(is_integer(true)); print(is_unsigned_integer((uint8)1)); print(is_unsigned_integer(-1)); print(is_ptr(curtask)); print(is_literal(1)); print(is_literal(pid)); print(has_cpid); print(probetype); }')
expect_eq stdlib:introspection $'true\nfalse\ntrue\nfalse\ntrue\nfalse\ntrue\ntrue\nfalse\nfalse\nspecial' "$out"
out=$(timeout 60 "$SONDE" -q -c /bin/true -e 'begin { print(has_cpid); print(has_cpid()); }' 2>&1 | sed '/^$/d')
expect_eq stdlib:has_cpid_with_c $'true\ntrue' "$out"
out=$(sl_run 'interval:ms:1 { print(probetype); exit(); }')
expect_eq stdlib:probetype_interval 'interval' "$out"
# BTF declares vfs_read on every kernel sonde runs on (kprobes or not)
out=$(sl_run 'begin { print(kfunc_exist("vfs_read")); print(kfunc_exist("sonde_no_such_function")); }')
expect_eq stdlib:kfunc_exist $'true\nfalse' "$out"
out=$(sl_run 'begin { static_assert(sizeof(comm) == 16 && is_str(comm), "comm"); if (is_str(1)) { fail("not reached"); } print("ok"); }')
expect_eq stdlib:static_assert_holds 'ok' "$out"
out=$(timeout 60 "$SONDE" -q -e 'begin { static_assert(is_str(pid), "pid is no string"); }' 2>&1; echo "rc=$?")
expect_eq stdlib:static_assert_fails $'stdin:1:9: error: pid is no string\nbegin { static_assert(is_str(pid), "pid is no string"); }\n        ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\nrc=1' "$out"
out=$(timeout 60 "$SONDE" -q -e 'begin { if ($1 < 2) { fail("Expected the first positional param to be greater than 1. Got %d", $1); } print($1); }' 5 2>&1 | sed '/^$/d')
expect_eq stdlib:fail_not_reached '5' "$out"
out=$(timeout 60 "$SONDE" -q -e 'begin { if ($1 < 2) { fail("Expected the first positional param to be greater than 1. Got %d", $1); } print($1); }' 1 2>&1 | head -1)
expect_eq stdlib:fail_reached 'stdin:1:23: error: Expected the first positional param to be greater than 1. Got 1' "$out"

# -- strstr, strlen, strcap, memcmp ------------------------------------------
out=$(sl_run 'begin { print(strstr("hello", "ll")); print(strstr("hello", "xyz")); print(strstr("hello", "")); print(strstr("hello", "helloo")); print(strcontains("abc", "c")); }')
expect_eq stdlib:strstr $'2\n-1\n0\n-1\n1' "$out"
out=$(sl_run 'begin { print(strlen("hello")); print(strlen("")); print(strcap("hello")); print(strcap(comm)); $s = str(curtask->comm); print(strlen($s) == strlen(comm)); }')
expect_eq stdlib:strlen_strcap $'5\n0\n6\n16\n1' "$out"
out=$(sl_run 'begin { print(memcmp("abc", "abd", 3)); print(memcmp("abc", "abd", 2)); print(memcmp("abd", "abc", 3)); $n = 2; print(memcmp("abc", "abd", $n)); }')
expect_eq stdlib:memcmp $'-1\n0\n1\n0' "$out"
# a char pointer: strlen reads it as str() does; strcap is its strlen
out=$(timeout 60 "$SONDE" -q -c /bin/true -e 'tracepoint:syscalls:sys_enter_execve /pid == cpid/ { printf("%d %d %d\n", strlen(args->filename), strcap(args->filename), strstr(str(args->filename), "true")); }' 2>&1 | sed '/^$/d')
expect_eq stdlib:strlen_pointer '9 9 5' "$out"
out=$(sl_run 'begin { print(memcmp(curtask, "abc", 3)); }' | head -1)
expect_eq stdlib:memcmp_pointer_error 'stdin:1:22: error: memcmp() compares values held in memory (strings, arrays, structs, tuples), not struct task_struct *: read what it points to first (*p, str(p))' "$out"

# -- pid(init), pid(curr_ns), tid(...) ----------------------------------------
out=$(sl_run 'begin { printf("%d %d %d %d %d\n", pid == pid(init), pid(curr_ns) == pid, tid(init) == tid, tid(curr_ns) == tid(), pid() == pid); }')
expect_eq stdlib:pid_tid_init_ns '1 1 1 1 1' "$out"
# in a PID namespace of its own (timeout is its pid 1, sonde its pid 2)
if command -v unshare > /dev/null; then
	out=$(unshare -p -f --mount-proc timeout 60 "$SONDE" -q -e 'begin { printf("%d %d %d\n", pid(curr_ns), tid(curr_ns), pid(init) != 2); }' 2>&1 | sed '/^$/d')
	expect_eq stdlib:pid_tid_curr_ns '2 2 1' "$out"
else
	skip stdlib:pid_tid_curr_ns "no unshare(1) to make a PID namespace"
fi
out=$(sl_run 'begin { print(pid(foo)); }' | head -1)
expect_eq stdlib:pid_ns_error "stdin:1:19: error: pid() takes the namespace to see it from: pid(init) for the initial PID namespace, pid(curr_ns) for sonde's own" "$out"

# -- globmatch(str, "pattern") -------------------------------------------------
out=$(sl_run 'begin { printf("%d%d%d%d%d %d%d%d%d%d %d%d%d%d%d\n", globmatch("hello", "hello"), globmatch("hello", "h*"), globmatch("hello", "*llo"), globmatch("hello", "h?llo"), globmatch("hello", "*"), globmatch("hello", "hell"), globmatch("hello", "*x*"), globmatch("", "*"), globmatch("", "?"), globmatch("abc", "[a-c][!x][abc]"), globmatch("abc", "[!a]*"), globmatch("a[b", "a[b"), globmatch("aXb", "a[XY]b"), globmatch("mississippi", "m*iss*ppi"), globmatch("mississippi", "m*is*x")); print(globmatch("a]", "[]]]")); }')
expect_eq stdlib:globmatch_literals $'11111 00101 01110\nfalse' "$out"
out=$(timeout 60 "$SONDE" -q -c /bin/true -e 'tracepoint:syscalls:sys_enter_execve /pid == cpid/ { $f = str(args->filename); printf("%d %d %d\n", globmatch($f, "/bin/*"), globmatch($f, "*/[s-u]r?e"), globmatch($f, "*[!e]")); }' 2>&1 | sed '/^$/d')
expect_eq stdlib:globmatch_read_string '1 1 0' "$out"
out=$(BPFTRACE_STRLEN=128 timeout 60 "$SONDE" -q -e 'uprobe:/bin/true:main { print(globmatch(str(arg0), "a")); }' 2>&1 | head -1)
expect_eq stdlib:globmatch_long_string 'stdin:1:41: error: globmatch() matches strings of up to 63 characters; this one holds 127: cut it with str(s, 63)' "$out"

# -- debugf: bpf_trace_printk into the kernel's trace buffer -----------------
tr=/sys/kernel/tracing
[ -e $tr/trace ] || tr=/sys/kernel/debug/tracing
if [ -e $tr/trace ]; then
	mark="sonde-debugf-$$"
	# all of the output: a reader gone after one line could end sonde first
	out=$(timeout 60 "$SONDE" -q -e "begin { debugf(\"$mark %d %s %x\\n\", -5, \"str\", 255); }" 2>&1)
	out=${out%%$'\n'*}
	expect_eq stdlib:debugf_warning 'stdin:1:9: warning: The debugf() builtin is not recommended for production use. For more information see bpf_trace_printk in bpf-helpers(7).' "$out"
	# the non-consuming view of the buffer: the line is there once
	out=$(grep -c "bpf_trace_printk: $mark -5 str ff\$" $tr/trace)
	expect_eq stdlib:debugf_trace_line 1 "$out"
else
	skip stdlib:debugf_trace_line "no tracefs trace file"
fi
out=$(sl_run 'begin { debugf("%d %s\n", 1); }' | head -1)
expect_eq stdlib:debugf_count_error 'stdin:1:9: error: debugf(): the format has 2 conversions but 1 argument follows' "$out"

# -- signal_name, signal_thread, ppid(task), pcomm(task), assert_str,
#    default_str_length -------------------------------------------------------
out=$(sl_run 'begin { print(signal_name(2)); print(signal_name(34)); print(signal_name(99)); @[signal_name(9)] = 1; }')
expect_eq stdlib:signal_name $'Interrupt\nReal-time signal 0\nN/A\n@[Killed]: 1' "$out"
build_workload work
out=$(timeout 60 "$SONDE" -q --unsafe -c "$B/work 1000000" -e 'uprobe:'$B/work':work /arg0 == 500/ { signal_thread("KILL"); }' 2>&1)
expect_match stdlib:signal_thread_kills_child 'command killed by signal 9' "$out"
out=$(sl_run 'begin { signal_thread(9); }' | head -1)
expect_eq stdlib:signal_thread_needs_unsafe 'stdin:1:9: error: signal_thread() acts on processes: allow it with --unsafe' "$out"
# pcomm(task) is the parent's name (timeout here), leader_comm(task) the
# process's, leader_tid(task) its main thread's id
out=$(timeout 60 "$SONDE" -q -e 'begin { printf("%d %d %s %s %d %d\n", ppid(curtask) == ppid, ppid() == ppid, pcomm(curtask), leader_comm(curtask), leader_tid(curtask) == pid, default_str_length); }' 2>&1 | sed '/^$/d')
expect_eq stdlib:ppid_pcomm_of_task '1 1 timeout sonde 1 64' "$out"
out=$(sl_run 'begin { assert_str(comm); assert_str("x"); print(1); }')
expect_eq stdlib:assert_str_holds '1' "$out"
out=$(sl_run 'begin { assert_str(curtask); }' | head -1)
expect_eq stdlib:assert_str_fails 'stdin:1:20: error: string-like pointers must point to a char-like type, not struct task_struct *' "$out"


# -- kfunc_allowed: the verifier's answer for the probe's program type ------
build_workload syscall_loop
has=$(sl_run 'begin { print(kfunc_exist("bpf_rcu_read_lock")); }')
out=$(timeout 60 "$SONDE" -q -c "$B/syscall_loop 1" -e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf("%d %d %d\n", kfunc_allowed("bpf_rcu_read_lock"), kfunc_allowed("vfs_read"), kfunc_allowed("bpf_no_such_kfunc")); }' 2>&1 | grep -E '^[01] [01] [01]$')
# bpf_rcu_read_lock is in the kfunc set of every program type (6.2 on)
expect_eq stdlib:kfunc_allowed "$([ "$has" = true ] && echo 1 || echo 0) 0 0" "$out"
out=$(sl_run 'begin { print(kfunc_allowed(comm)); }' | head -1)
expect_eq stdlib:kfunc_allowed_literal 'stdin:1:29: error: kfunc_allowed() takes a kfunc'"'"'s name as a string literal: kfunc_allowed("bpf_task_from_pid")' "$out"

fi
