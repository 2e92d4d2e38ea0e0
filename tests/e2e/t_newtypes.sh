# t_newtypes.sh - issue #21's semantic items: the language of bpftrace
# 0.20-0.26 that 0.17 does not have, so each expected text is what the
# newest release's reference guide and runtime tests print (where 0.17 has
# a construct, tests/diff checks it against 0.17 instead).
#
#   deref_dot    `.` on a pointer to a struct reads through it, as `->`:
#                types.c's outer and list structs, and curtask
#   address_of   &p->f, &p->a[i]: the address of an object in traced memory,
#                a pointer that reads it; &$x is refused
#   bool_*       true/false, has_key(), delete()'s result, (bool) casts:
#                words in text and JSON, in maps, tuples and print()
#                (bpftrace's tests/runtime/bool); a kernel struct's _Bool
#                member (BTF) too
#   print_args_tracepoint  args alone in a tracepoint is a struct of its
#                fields (print(args), a variable, a map value, JSON)
#   record_*     records (a=1, b="x"): fields by name, text and JSON, keys
#                and values, assignment in another order
#   tuple_*      @m[(a, b)] is @m[a, b]; a tuple variable as the key; $t[1]
#   array_index_out_of_bounds  a constant index past an array's end
#   str_*        strings that do not fit the 512-byte stack (per-CPU frame):
#                the book's ttysnoop comparison, max_strlen 1024 in a
#                variable, a comparison and a map key, literals up to
#                max_strlen, the str_trunc_trailer; /bin/echo's one write()
#                of a known argument is the workload (pid == cpid)
#   settings_*   the newest release's names (BPFTRACE_MAX_STRLEN ...) beside
#                0.17's, and missing_probes = warn for a missing uprobe
#   enum_names   values of an enum type print as their enumerator's name in
#                map keys and values, with %s and in JSON (the number with
#                %d, or when no enumerator has it); the kernel's enums too
#   cpp_*        C++ names: tests/workloads/cxx_names.cc (g++) calls ns::func
#                and ns::poke twice each; func, usym and ustack print them
#                demangled; uprobe:BIN:cpp:"ns::func", "ns::func" and globs
#                attach by the demangled name
#   flag_*       -l -e PROGRAM lists the program's probes (wildcards
#                expanded), -d STAGE as --emit, -B none|line|full,
#                --no-warnings (a missing uprobe's warning goes)
#   builtin_*    builtins since 0.18: getopt() named options, ppid and pcomm
#                (the shell that starts sonde), call-style pid()/comm(),
#                nsecs(monotonic|boot|tai|sw_tai), len(ustack) as many frames
#                as print(ustack) shows, len(kstack(2)) at most 2,
#                offsetof(struct S, a.b) of script and kernel structs
#
# Sourced by run.sh (lib.sh gives $SONDE, $B, pass/fail/skip, expect_eq).

if need_root newtypes:bpf; then

build_workload types && build_workload sysargs
T=$B/types

# -- `.` on pointers: the newest tools write $sk.__sk_common.skc_family ---------
out=$("$SONDE" -q -c "$T 1" -e 'struct inner { int m; int n; }
struct node { int val; struct node *next; }
struct outer { long id; struct inner in; int arr[4]; }
uprobe:'$T':take_outer { $o = (struct outer *)arg0; printf("%d %d %d\n", $o.id, $o.in.m, $o.arr[2]); }
uprobe:'$T':list { $n = (struct node *)arg0; printf("%d %d %d\n", $n.val, $n.next.val, $n.next.next->val); }
uprobe:'$T':list { printf("%d %d %s\n", curtask.pid == pid, curtask.real_parent.tgid == curtask->real_parent->tgid, curtask.comm); }' 2>&1)
expect_eq newtypes:deref_dot $'0 2 30\n1 2 3\n1 1 types' "$out"
# and `->` on a struct value reads its field as `.` does (the newest:
# bpftrace's tests/runtime/regression "scalars can be accessed in copied structs")
out=$("$SONDE" -q -c "$T 1" -e 'struct inner { int m; int n; } struct outer { long id; struct inner in; int arr[4]; }
uprobe:'$T':take_outer { $o = *(struct outer *)arg0; @v = $o; printf("%d %d %d\n", $o->in.m, $o.in->m == $o.in.m, @v->arr[2]); clear(@v); }' 2>&1)
expect_eq newtypes:arrow_on_struct_value '2 1 30' "$out"
out=$("$SONDE" -q -c "$T 1" -e 'struct inner { int m; int n; } struct outer { long id; struct inner in; int arr[4]; }
uprobe:'$T':take_outer { $o = (struct outer *)arg0; $p = &$o->in; $q = &$o->arr[2]; printf("%d %d %d %d\n", $p->n, *$q, (uint64)$q - (uint64)$o, (uint64)&$o.in.n - (uint64)$o); }
BEGIN { $x = 1; $y = &($x + 1); }' 2>&1; echo "rc=$?")
expect_match newtypes:address_of "error: '&' takes a variable or an object in traced memory \(.v, &p->f, &p\[i\], &\*p\), not int64.*rc=1" "$(echo $out)"
out=$("$SONDE" -q -c "$T 1" -e 'struct inner { int m; int n; } struct outer { long id; struct inner in; int arr[4]; }
uprobe:'$T':take_outer { $o = (struct outer *)arg0; $p = &$o->in; $q = &$o->arr[2]; printf("%d %d %d %d\n", $p->n, *$q, (uint64)$q - (uint64)$o, (uint64)&$o.in.n - (uint64)$o); }' 2>&1)
expect_eq newtypes:address_of_reads '3 30 24 12' "$out"

# -- bool ------------------------------------------------------------------------
out=$("$SONDE" -q -e 'BEGIN { @a = true; @b = false; @k[true] = 1; @t = (1, true, "x");
print(true); print(!true); print((false, 2));
@m[1] = 2; @h = has_key(@m, 1); @h2 = has_key(@m, 3);
@d = delete(@m, 1); @d2 = delete(@m, 1);
if (delete(@k, true)) { printf("deleted %d\n", true); }
if (!has_key(@k, true)) { printf("gone\n"); }
exit(); }' 2>&1)
expected='true
false
(false, 2)
deleted 1
gone


@a: true
@b: false
@d: true
@d2: false
@h: true
@h2: false


@t: (1, true, x)'
expect_eq newtypes:bool_text "$expected" "$out"

out=$("$SONDE" -q -f json -e 'BEGIN { @a = true; @t = (1, false); @k[false] = 3; print(true); exit(); }' 2>&1)
expected='{"type": "value", "data": true}
{"type": "map", "data": {"@a": true}}
{"type": "map", "data": {"@k": {"false": 3}}}
{"type": "map", "data": {"@t": [1,false]}}'
expect_eq newtypes:bool_json "$expected" "$out"

out=$("$SONDE" -q -e 'BEGIN { print(((bool)1, (bool)0)); print(((bool)"hello", (bool)"")); $a = (int64*)0; $b = (int64*)1; print(((bool)$b, (bool)$a));
print(((int64)true, (int64)false)); @c = count(); print(((bool)@c, (bool)256)); if (true) { print(1); } if (false) { print(2); }
@a[true] = false; @x[false, 1, true] = 1; @x[true, (int32)2, false] = 2; exit(); }' 2>&1)
expected='(true, false)
(true, false)
(true, false)
(1, 0)
(true, true)
1


@a[true]: false
@c: 1
@x[false, 1, true]: 1
@x[true, 2, false]: 2'
expect_eq newtypes:bool_casts "$expected" "$out"

# a kernel struct's _Bool member (BTF) is a bool: signal_struct's
# oom_flag_origin is false for /bin/true (no OOM-killer origin), in a tuple,
# a map key and value, a printed struct and JSON; a tracepoint's format-file
# field (group_dead, C type bool) keeps 0.17's number (docs/differences.md)
bm='tracepoint:sched:sched_process_exit /pid == cpid/ { $s = curtask->signal; print(($s->oom_flag_origin, args.group_dead)); @m[$s.oom_flag_origin] = $s->oom_flag_origin; print(*$s); }'
out=$("$SONDE" -q -c /bin/true -e "$bm" 2>&1 | sed 's/.*\(\.oom_flag_origin = [a-z0-9]*\).*/\1/')
expected='(false, 1)
.oom_flag_origin = false


@m[false]: false'
expect_eq newtypes:bool_kernel_member "$expected" "$out"
out=$("$SONDE" -q -f json -c /bin/true -e "$bm" 2>&1 | sed 's/.*\("oom_flag_origin": [a-z0-9]*\).*/\1/')
expected='{"type": "value", "data": [false,1]}
"oom_flag_origin": false
{"type": "map", "data": {"@m": {"false": false}}}'
expect_eq newtypes:bool_kernel_member_json "$expected" "$out"

# -- print(args) in a tracepoint: the record's fields but the common ones,
#    as a struct (text and JSON, a variable, a map value); /bin/false's
#    exit_group(1) and /bin/true's exec are deterministic
out=$("$SONDE" -q -c /bin/false -e 'tracepoint:syscalls:sys_enter_exit_group /pid == cpid/ { print(args); $a = args; printf("%d\n", $a.error_code); @a = args; }' 2>/dev/null)
expected='{ .__syscall_nr = 231, .error_code = 1 }
1


@a: { .__syscall_nr = 231, .error_code = 1 }'
expect_eq newtypes:print_args_tracepoint "$expected" "$out"
out=$("$SONDE" -q -f json -c /bin/false -e 'tracepoint:syscalls:sys_enter_exit_group /pid == cpid/ { print(args); }' 2>/dev/null)
expect_eq newtypes:print_args_tracepoint_json '{"type": "value", "data": {"__syscall_nr": 231, "error_code": 1}}' "$out"
out=$("$SONDE" -q -c /bin/true -e 'tracepoint:sched:sched_process_exec /pid == cpid/ { print(args); printf("%d %d\n", args.pid == cpid, args.old_pid == cpid); }' 2>&1 | sed 's/pid = [0-9]*/pid = N/g')
expect_eq newtypes:print_args_tracepoint_strings $'{ .filename = /bin/true, .pid = N, .old_pid = N }\n1 1' "$out"
# a tracepoint's pointer fields in hex, as the newest bpftrace prints them
# (execve's filename, argv, envp: user addresses, numbers in JSON)
out=$("$SONDE" -q -c /bin/true -e 'tracepoint:syscalls:sys_enter_execve /pid == cpid/ { print(args); exit(); }' 2>&1 | head -1)
expect_match newtypes:print_args_tracepoint_pointers '^\{ \.__syscall_nr = 59, \.filename = 0x[0-9a-f]+, \.argv = 0x[0-9a-f]+, \.envp = 0x[0-9a-f]+ \}$' "$out"
out=$("$SONDE" -q -f json -c /bin/true -e 'tracepoint:syscalls:sys_enter_execve /pid == cpid/ { print(args); exit(); }' 2>&1 | head -1)
expect_match newtypes:print_args_tracepoint_pointers_json '^\{"type": "value", "data": \{"__syscall_nr": 59, "filename": [0-9]+, "argv": [0-9]+, "envp": [0-9]+\}\}$' "$out"
# a raw tracepoint's args from BTF: sched_process_exit(struct task_struct *p,
# bool group_dead), the bool a word (/bin/true is its group's last thread);
# the pointer in hex as the newest bpftrace prints it (a kernel address)
# and in JSON a number, or a string of its digits when a double cannot
# hold it exactly (a kernel address mostly: its low 11 bits are not all 0)
out=$("$SONDE" -q -c /bin/true -e 'rawtracepoint:sched_process_exit /pid == cpid/ { print(args); }' 2>&1 | sed 's/\.p = 0xffff[0-9a-f]\{12\},/.p = P,/')
expect_eq newtypes:print_args_rawtracepoint '{ .p = P, .group_dead = true }' "$out"
out=$("$SONDE" -q -f json -c /bin/true -e 'rawtracepoint:sched_process_exit /pid == cpid/ { print(args); }' 2>&1 | sed -E 's/"p": ("1844[0-9]{16}"|1844[0-9]{16}),/"p": P,/')
expect_eq newtypes:print_args_rawtracepoint_json '{"type": "value", "data": {"p": P, "group_dead": true}}' "$out"
out=$("$SONDE" -q -e 'tracepoint:syscalls:sys_enter_nanosleep,tracepoint:syscalls:sys_enter_clock_nanosleep { print(args); }' 2>&1 | head -1)
expect_eq newtypes:print_args_tracepoint_differ 'stdin:1:95: error: args differs between tracepoint:syscalls:sys_enter_nanosleep and tracepoint:syscalls:sys_enter_clock_nanosleep: name its fields (args.NAME) instead' "$out"

# -- records (named tuples, bpftrace's tests/runtime/record): fields by
#    name, printed as `{ .a = 0, ... }` (in keys too), an object in JSON; a
#    record assigned in another order is stored in the first one's order,
#    each literal evaluated in its own order
out=$("$SONDE" -q -e 'begin { $v = 99; $t = (a=0, b=1, c="str", d=(5, 6), e=$v); printf("%d %d %s %d %d %d\n", $t.a, $t.b, $t.c, $t.d.0, $t.d.1, $t.e); }' 2>&1)
expect_eq newtypes:record_basic '0 1 str 5 6 99' "$out"
out=$("$SONDE" -q -e 'begin { $v = (x=1, y=2); $t = (a=0, b=1, c="str", d=(5, 6), e=$v); print($t); }' 2>&1 | sed '/^$/d')
expect_eq newtypes:record_printing '{ .a = 0, .b = 1, .c = str, .d = (5, 6), .e = { .x = 1, .y = 2 } }' "$out"
out=$("$SONDE" -q -e 'begin { $a = (foo={ printf("hello"); 1 }, bar={ printf("world"); 2 }); $a = (bar={ printf("hello"); 1 }, foo={ printf("world\n"); 2 }); print($a) }' 2>&1 | sed '/^$/d')
expect_eq newtypes:record_evaluation_order $'helloworldhelloworld\n{ .foo = 2, .bar = 1 }' "$out"
out=$("$SONDE" -q -e 'begin { @[(a=1, b="hello")] = ("bye", (m=5, n=10)); @k[(a=2, b="x")] = count(); @k[(b="x", a=2)] = count(); $r = (b="y", a=3); @k[$r] = count(); printf("%d %d\n", has_key(@k, (b="x", a=2)), delete(@k, (a=3, b="y"))); @v = (a=1, b=(c=2, d="e")); @v = (b=(d="f", c=3), a=4); @w[2] = (y=5, x=6); print(@w[2].y); }' 2>&1 | sed '/^$/d')
expected='1 1
5
@[{ .a = 1, .b = hello }]: (bye, { .m = 5, .n = 10 })
@k[{ .a = 2, .b = x }]: 2
@v: { .a = 4, .b = { .c = 3, .d = f } }
@w[2]: { .y = 5, .x = 6 }'
expect_eq newtypes:record_maps "$expected" "$out"
# a record key in JSON is its text without blanks, as the newest bpftrace
# writes every key (a string's blanks go too: "y z" is "yz"); a string
# key keeps its blanks, as 0.17 writes it
out=$("$SONDE" -q -f json -e 'begin { print((a=1, b="hello", c=(1, 2), d=(e=true))); @[(a=1, b="x")] = (m=5, n=10); @w[(a=1, b="y z")] = 1; @s["a b"] = 1; }' 2>&1)
expected='{"type": "value", "data": {"a": 1, "b": "hello", "c": [1,2], "d": {"e": true}}}
{"type": "map", "data": {"@": {"{.a=1,.b=x}": {"m": 5, "n": 10}}}}
{"type": "map", "data": {"@s": {"a b": 1}}}
{"type": "map", "data": {"@w": {"{.a=1,.b=yz}": 1}}}'
expect_eq newtypes:record_json "$expected" "$out"
out=$( { "$SONDE" -q -e 'begin { $r = (a=1); print($r.b); }'; "$SONDE" -q -e 'begin { $r = (a=1, a=2); }'; "$SONDE" -q -e 'begin { $r = (a=1, b=2); $r = (a=1, c=2); }'; } 2>&1 | grep error)
expected="stdin:1:27: error: record (a=int64) has no field 'b'
stdin:1:20: error: record field 'a' is given twice
stdin:1:31: error: variable '\$r' holds (a=int64, b=int64), cannot assign (a=int64, c=int64)"
expect_eq newtypes:record_errors "$expected" "$out"

# -- tuples as keys, tuple indexing --------------------------------------------------
out=$("$SONDE" -q -e 'BEGIN { @m[(1, "a")] = 1; $k = (2, "bcd"); @m[$k] = 2; @m[3, "x"] = 3;
$t = (5, 6, "x"); print($t[1]); print($t[2]); @n[$t] = count();
print((has_key(@m, (1, "a")), has_key(@m, $k), has_key(@m, (1, "b")))); delete(@m, $k); exit(); }' 2>&1)
expected='6
x
(true, true, false)


@m[1, a]: 1
@m[3, x]: 3
@n[5, 6, x]: 1'
expect_eq newtypes:tuple_keys "$expected" "$out"
out=$("$SONDE" -q -f json -e 'BEGIN { $k = (2, "bcd"); @m[$k] = 2; exit(); }' 2>&1)
expect_eq newtypes:tuple_key_json '{"type": "map", "data": {"@m": {"2,bcd": 2}}}' "$out"
out=$("$SONDE" -q -e 'BEGIN { $t = (1, 2); $i = 1; print($t[$i]); print($t[2]); }' 2>&1; echo "rc=$?")
expect_match newtypes:tuple_index_errors "a tuple's index must be a constant.*tuple index '2' out of range.*rc=1" "$(echo $out)"

out=$("$SONDE" --dry-run -e 'struct S { int a[4]; } BEGIN { $s = (struct S *)0; print($s->a[3]); print($s->a[4]); }' 2>&1; echo "rc=$?")
expect_match newtypes:array_index_out_of_bounds '^stdin:1:81: error: index 4 is out of bounds for int32\[4\].*rc=1' "$(echo $out)"

# -- strings beyond the stack --------------------------------------------------------
out=$("$SONDE" -q -c "/bin/echo hello" -e 'tracepoint:syscalls:sys_enter_write /pid == cpid/ { @x = str(args->buf) == str(args->buf); }' 2>&1)
expect_eq newtypes:str_ttysnoop_compare $'hello\n\n\n@x: 1' "$out"
long=$(printf 'y%.0s' $(seq 1500))
out=$("$SONDE" -q -c "/bin/echo $long" -e 'config = { max_strlen = 1024 } tracepoint:syscalls:sys_enter_write /pid == cpid/ { $s = str(args->buf); printf("%s\n", $s); @eq = $s == str(args->buf); @k[$s, comm] = count(); }' 2>&1 | awk '{ print length($0) ":" substr($0, length($0) - 8) }')
expect_eq newtypes:str_max_strlen_1024 $'1500:yyyyyyyyy\n1023:yyyyyyyyy\n0:\n0:\n6:@eq: 1\n1036: echo]: 1' "$out"
lit=$(printf 'z%.0s' $(seq 300))
out=$("$SONDE" -q -e 'config = { max_strlen = 400 } BEGIN { $a = "'$lit'"; printf("%d %d\n", $a == "'$lit'", $a == "z"); exit(); }' 2>&1)
expect_eq newtypes:str_long_literal '1 0' "$out"
out=$("$SONDE" -q -e 'BEGIN { printf("%s\n", "'$lit'"); }' 2>&1; echo "rc=$?")
expect_match newtypes:str_literal_over_max_strlen 'string literal is longer than 63 bytes \(max_strlen - 1\).*rc=1' "$(echo $out)"
out=$("$SONDE" -q -c "/bin/echo hello-world" -e 'config = { str_trunc_trailer = ".." } tracepoint:syscalls:sys_enter_write /pid == cpid/ { printf("%s|%s|%s\n", str(args->buf, 5), str(args->buf), "literal"); @[str(args->buf, 5)] = count(); }' 2>&1)
expect_eq newtypes:str_trunc_trailer $'hello-world\nhello..|hello-world\n|literal\n\n\n@[hello..]: 1' "$out"
out=$(BPFTRACE_STR_TRUNC_TRAILER='~' "$SONDE" -q -c "/bin/echo hello-world" -e 'tracepoint:syscalls:sys_enter_write /pid == cpid/ { printf("%s\n", str(args->buf, 3)); }' 2>&1)
expect_eq newtypes:str_trunc_trailer_env $'hello-world\nhel~' "$out"
out=$("$SONDE" -q -c "/bin/echo hello-world" -e 'tracepoint:syscalls:sys_enter_write /pid == cpid/ { printf("%s\n", str(args->buf, 3)); }' 2>&1)
expect_eq newtypes:str_no_trailer_by_default $'hello-world\nhel' "$out"

# -- settings under the newest names; missing_probes ----------------------------------
out=$(BPFTRACE_MAX_STRLEN=6 BPFTRACE_MAX_MAP_KEYS=77 BPFTRACE_MAX_CAT_BYTES=9 BPFTRACE_STR_TRUNC_TRAILER=.. "$SONDE" --info 2>&1 | grep -E '^  (STRLEN|MAP_KEYS_MAX|CAT_BYTES_MAX|STR_TRUNC_TRAILER):')
expect_eq newtypes:settings_env_names "  STRLEN: 6 (from BPFTRACE_MAX_STRLEN)
  CAT_BYTES_MAX: 9 (from BPFTRACE_MAX_CAT_BYTES)
  MAP_KEYS_MAX: 77 (from BPFTRACE_MAX_MAP_KEYS)
  STR_TRUNC_TRAILER: '..' (from BPFTRACE_STR_TRUNC_TRAILER)" "$out"
printf 'abcdefghijklmnop\n' > "$B/newtypes.cat"
out=$("$SONDE" -q -e 'config = { max_cat_bytes = 4; lazy_symbolication = true; on_stack_limit = 32 } BEGIN { cat("'$B/newtypes.cat'"); printf("|\n"); exit(); }' 2>&1)
expect_eq newtypes:settings_config_names 'abcd|' "$out"
out=$("$SONDE" -e 'config = { missing_probes = warn } uprobe:'$T':no_such_function { } BEGIN { printf("ran\n"); exit(); }' 2>&1; echo "rc=$?")
expect_match newtypes:missing_probes_warn "^sonde: warning: uprobe:$T:no_such_function: symbol 'no_such_function' not found in $T: not attached.*ran.*rc=0" "$(echo $out)"
out=$("$SONDE" -e 'uprobe:'$T':no_such_function { } BEGIN { printf("ran\n"); exit(); }' 2>&1; echo "rc=$?")
expect_match newtypes:missing_probes_default_stops "^sonde: uprobe:$T:no_such_function: symbol 'no_such_function' not found in $T rc=1" "$(echo $out)"

# -- enums by name ---------------------------------------------------------------------
out=$("$SONDE" -q -e 'enum E { A = 1, B, C = -5 } BEGIN { $e = (enum E)2; @m[$e] = count(); @v = (enum E)1; @k[(enum bpf_map_type)1] = 1; printf("%s %d %s %s\n", $e, $e, (enum E)-5, (enum E)7); exit(); }' 2>&1)
expect_eq newtypes:enum_names $'B 2 C 7\n\n\n@k[BPF_MAP_TYPE_HASH]: 1\n@m[B]: 1\n@v: A' "$out"
out=$("$SONDE" -q -f json -e 'enum E { A = 1, B } BEGIN { @v = (enum E)1; @m[(enum E)2] = 3; exit(); }' 2>&1)
expect_eq newtypes:enum_names_json $'{"type": "map", "data": {"@m": {"B": 3}}}\n{"type": "map", "data": {"@v": "A"}}' "$out"

# -- C++ names ---------------------------------------------------------------------------
X=$B/cxx_names
[ "$X" -nt "$top/tests/workloads/cxx_names.cc" ] || g++ -O1 -g -o "$X" "$top/tests/workloads/cxx_names.cc"
out=$("$SONDE" -q -c "$X 2" -e 'uprobe:'$X':cpp:"ns::func" { @[func, usym(reg("ip")), ustack(1)] = count(); }' 2>&1)
expect_eq newtypes:cpp_demangled $'10\n\n\n@[ns::func(int), ns::func(int), \n    ns::func(int)+0\n]: 2' "$out"
out=$("$SONDE" -q -c "$X 2" -e 'uprobe:'$X':"ns::func" { @a[func] = count(); } uprobe:'$X':cpp:"ns::*" { @b[func] = count(); }' 2>&1)
expect_eq newtypes:cpp_attach_forms $'10\n\n\n@a[ns::func(int)]: 2\n@b[ns::func(int)]: 2\n@b[ns::poke(ns::Widget*, long)]: 2' "$out"

# -- flags -------------------------------------------------------------------------------
out=$("$SONDE" -l -e 'tracepoint:syscalls:sys_enter_openat* { } BEGIN { }' 2>&1)
expect_eq newtypes:flag_list_program $'tracepoint:syscalls:sys_enter_openat\ntracepoint:syscalls:sys_enter_openat2\nBEGIN' "$out"
# the same IR but the temporary source file's name
noname() { sed 's/sonde-src-[A-Za-z0-9]*/SRC/'; }
expect_eq newtypes:flag_d_stage "$("$SONDE" --emit ir -e 'BEGIN { exit(); }' 2>&1 | noname)" "$("$SONDE" -d codegen -e 'BEGIN { exit(); }' 2>&1 | noname)"
out=$("$SONDE" -d nosuch -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
expect_match newtypes:flag_d_bad "^sonde: -d takes ast, codegen, codegen-opt, dis or all .*rc=1" "$(echo $out)"
out=$("$SONDE" -q -B none -e 'BEGIN { printf("a"); printf("b\n"); exit(); }' 2>&1; "$SONDE" -B bad -e 'BEGIN { }' 2>&1; echo "rc=$?")
expect_eq newtypes:flag_B $'ab\n\n\nsonde: -B takes full, line or none, not \'bad\'\nrc=1' "$out"
out=$("$SONDE" -q --no-warnings -e 'config = { missing_probes = warn } uprobe:'$T':no_such_function { } BEGIN { printf("ran\n"); exit(); }' 2>&1; echo "rc=$?")
expect_eq newtypes:flag_no_warnings $'ran\n\n\nrc=0' "$out"

# -- builtins added since 0.18 ---------------------------------------------------------
out=$("$SONDE" -q -e 'BEGIN { printf("%d %d %s %d %d|", getopt("sysname"), getopt("depth", 35), getopt("name", "none"), getopt("v", true), $1); print((getopt("x"), getopt("y", false))); exit(); }' -- --depth=3 --name=abc 7 --v=false 2>&1)
expect_eq newtypes:builtin_getopt '0 3 abc 0 7|(false, false)' "$out"
out=$("$SONDE" -q -e 'BEGIN { print((getopt("sysname"), getopt("depth", 35), $#)); exit(); }' -- --sysname 2>&1)
expect_eq newtypes:builtin_getopt_bare '(true, 35, 0)' "$out"
# named options before "--" too, bool words for a bool default, and one
# the script does not read refused, in the newest release's words
# (bpftrace's tests/runtime/other)
out=$("$SONDE" -q -e 'BEGIN { print(($1, getopt("aa", 10), $2, getopt("bb", "hello"), getopt("cc", true), getopt("dd"))); exit(); }' --aa=20 pos1 --bb=bye -- pos2 --cc=False --dd 2>&1)
expect_eq newtypes:builtin_getopt_anywhere '(pos1, 20, pos2, bye, false, true)' "$out"
out=$("$SONDE" -q -e 'BEGIN { exit(); }' --aa=20 2>&1; echo "rc=$?")
expect_eq newtypes:builtin_getopt_unread $'ERROR: unexpected program command line options: --aa\nHINT: a --name that is none of sonde\'s options (sonde -h) is the script\'s, read with getopt("name")\nHINT: no custom program options defined.\nrc=1' "$out"
out=$("$SONDE" -q -e 'BEGIN { print(getopt("depth", 35)); }' -- --depth=deep 2>&1; echo "rc=$?")
expect_eq newtypes:builtin_getopt_bad_value $'ERROR: program command line option --depth invalid integer (value: deep)\nrc=1' "$out"
# pcomm is the parent's name (bash here), leader_comm the process's (its
# thread group leader's comm: sonde), as bpftrace v0.26.1 defines them
out=$(bash -c 'echo "$$"; "$1" -q -e "BEGIN { printf(\"%d %s %d %s %d %s %d\n\", ppid, pcomm, pid() == pid, comm(), tid() == tid, leader_comm, leader_tid == pid); exit(); }"; true' sh "$SONDE" 2>&1)
expect_eq newtypes:builtin_ppid_pcomm "$(printf '%s\n' "$out" | head -1) bash 1 sonde 1 sonde 1" "$(printf '%s\n' "$out" | sed -n 2p)"
out=$("$SONDE" -q -e 'BEGIN { $m = nsecs(monotonic); $b = nsecs(boot); $t = nsecs(tai); $s = nsecs(sw_tai); printf("%d %d %d %d\n", $b >= $m, $t > $b, ($s > $t ? $s - $t : $t - $s) < 1000000000, nsecs() >= $m); exit(); }' 2>&1)
expect_eq newtypes:builtin_nsecs_clocks '1 1 1 1' "$out"
out=$("$SONDE" -q -e 'struct S { char a; int b; struct { long x; long y; } in; } BEGIN { printf("%d %d %d %d\n", offsetof(struct S, b), offsetof(struct S, in), offsetof(struct S, in.y), offsetof(struct mount, mnt) == offsetof(struct mount, mnt.mnt_root)); exit(); }' 2>&1)
expect_eq newtypes:builtin_offsetof '4 8 16 1' "$out"
out=$("$SONDE" -q -e 'struct S { int b; } BEGIN { print(offsetof(struct S, c)); }' 2>&1; echo "rc=$?")
expect_match newtypes:builtin_offsetof_no_member "^stdin:1:35: error: offsetof\(\): struct S has no member 'c'.*rc=1" "$(echo $out)"
out=$("$SONDE" -q -c "$T 1" -e 'uprobe:'$T':list { printf("%d|", len(ustack)); print(ustack); }' 2>&1)
frames=$(printf '%s\n' "$out" | grep -c '^        [a-z_]')
expect_eq newtypes:builtin_len_ustack "${frames}|" "$(printf '%s\n' "$out" | head -1)"
out=$("$SONDE" -q -c "$B/sysargs 1" -e 'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { printf("%d %d\n", len(kstack) > 2, len(kstack(2))); }' 2>&1 | head -1)
expect_eq newtypes:builtin_len_kstack '1 2' "$out"

fi
