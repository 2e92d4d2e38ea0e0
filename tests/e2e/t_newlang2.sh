# t_newlang2.sh - more of bpftrace 0.20-0.26's language: the builtins
# jiffies, ncpus, usermode, probetype and the __builtin_NAME spellings,
# the test harness's __BPFTRACE_NOTIFY_PROBES_ATTACHED line, long flags,
# <syscall.h>'s constants, numbers in probe arguments, a missing
# tracepoint beside others, `_ = e;`, `return e;`, array casts (of
# integers and strings), (string[N]) casts, a tuple as one of several map
# keys, typeof,
# bools from && || and comparisons, printf's %s of an enumerator.  Expected output is the newest release's reference guide,
# stdlib docs and tests/runtime (0.17 has none of these).

if need_root newlang2:bpf; then

n2_run() { timeout 60 "$SONDE" -q -e "$1" 2>&1; }
build_workload syscall_loop
# the loop's own line (nanoseconds per call) is not the script's output
n2_child() { timeout 60 "$SONDE" -q -c "$B/syscall_loop $1" -e "$2" 2>&1 | grep -v "^[0-9.][0-9.]*$" | sed "/^$/d"; }

# -- jiffies, ncpus, usermode, __builtin_NAME (probetype: t_stdlib) --------
possible=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
out=$(n2_run 'begin { $j = jiffies; printf("%d %d %s\n", $j > 0 && jiffies >= $j, ncpus, probetype); } end { print(probetype); }')
expect_eq newlang2:jiffies_ncpus_probetype "1 $possible special
special" "$out"
out=$(n2_run 'begin { printf("%d %d %s %s %d\n", __builtin_pid == pid, __builtin_ncpus == ncpus(), __builtin_comm, __builtin_probe, __builtin_cpu < ncpus); }')
expect_eq newlang2:builtin_spellings "1 1 sonde begin 1" "$out"
# a uprobe interrupts user code: usermode is 1 for each of the 3 calls
out=$(n2_child 3 'uprobe:libc:syscall /pid == cpid/ { @[usermode, probetype] = count(); }')
expect_eq newlang2:usermode_uprobe '@[1, uprobe]: 3' "$out"
out=$(n2_child 2 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[probetype] = count(); }')
expect_eq newlang2:probetype_tracepoint '@[tracepoint]: 2' "$out"
out=$(n2_run 'tracepoint:syscalls:sys_enter_getppid { print(usermode); }' | head -1)
expect_eq newlang2:usermode_needs_registers 'stdin:1:47: error: usermode is not available in tracepoint probes [S0106]' "$out"
# begin and end run from user space: usermode is 1 there, as in the newest
# bpftrace (its tests/runtime builtin.usermode_builtin_in_begin_end)
out=$(n2_run 'begin { printf("%d ", usermode); } end { print(usermode); }' | sed '/^$/d')
expect_eq newlang2:usermode_begin_end '1 1' "$out"
out=$(n2_run 'begin { printf("%d %d %d %s\n", __builtin_usermode == usermode(), __builtin_username == username, username != username, __builtin_username); }' | sed '/^$/d')
expect_eq newlang2:builtin_usermode_username "1 1 0 $(id -un)" "$out"

# -- __BPFTRACE_NOTIFY_PROBES_ATTACHED: before begin's output, on stdout --
# (bpftrace's tests drop it with `tail -n +2` before reading the output)
out=$(__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout 60 "$SONDE" -q -e 'begin { printf("b\n"); } interval:ms:10 { exit(); }' 2>/dev/null | grep -v '^$')
expect_eq newlang2:notify_probes_attached '__BPFTRACE_NOTIFY_PROBES_ATTACHED
b' "$out"
out=$(__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout 60 "$SONDE" -q -f json -e 'begin { print((1, "x")); exit(); }' 2>/dev/null | tail -n +2 | python3 -c 'import sys,json; print(json.load(sys.stdin))')
expect_eq newlang2:notify_then_json "{'type': 'value', 'data': [1, 'x']}" "$out"
out=$(timeout 60 "$SONDE" -q -e 'begin { printf("b\n"); }' 2>&1)
expect_eq newlang2:notify_only_when_asked 'b' "$out"

# -- the newest release's long flags: -l -v -q -p -c -o -k -d --------------
# -l of a program: its probes as -l lists them (no rate or count), once
# each; -lv 'struct NAME' the kernel type; -l alone the raw tracepoints too
printf 'interval:ms:1000 {}\ninterval:s:1 {}\ninterval:s:2 {}\nhardware:cache-misses:10 {}\n' > "$B/n2_list.bt"
out=$(timeout 60 "$SONDE" -l "$B/n2_list.bt" 2>&1)
expect_eq newlang2:list_program_file 'interval:ms:
interval:s:
hardware:cache-misses:' "$out"
out=$(timeout 60 "$SONDE" -lv 'struct list_head' 2>&1)
expect_eq newlang2:list_struct 'struct list_head {
	struct list_head *next;
	struct list_head *prev;
};' "$out"
out=$(timeout 60 "$SONDE" -l 2>/dev/null | grep -c '^rawtracepoint:vmlinux:sys_enter$')
expect_eq newlang2:list_all_rawtracepoints 1 "$out"
out=$(timeout 60 "$SONDE" -l n2_no_such_file.bt 2>&1; echo "rc=$?")
expect_eq newlang2:list_missing_file "sonde: warning: 'n2_no_such_file.bt' looks like a file name, but no such file exists: it was searched for as a probe pattern
sonde: no probe matches 'n2_no_such_file.bt'
rc=1" "$out"
out=$(timeout 60 "$SONDE" --list 'tracepoint:syscalls:sys_enter_getppid' --verbose 2>&1)
expect_eq newlang2:flag_list_verbose 'tracepoint:syscalls:sys_enter_getppid
    int __syscall_nr' "$out"
f=$B/newlang2-output.txt
rm -f "$f"
out=$(timeout 60 "$SONDE" --quiet --cmd "$B/syscall_loop 2" --output "$f" -e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @ = count(); }' 2>&1 | grep -v '^[0-9.][0-9.]*$')
expect_eq newlang2:flag_quiet_cmd_output "|@: 2" "$out|$(sed '/^$/d' "$f")"
rm -f "$f"
sleep infinity & sp=$!
out=$(timeout 60 "$SONDE" --quiet --pid $sp -e 'interval:ms:10 { printf("%d\n", scoped); exit(); }' 2>&1)
kill_reap $sp
expect_eq newlang2:flag_pid '1' "$out"
out=$(timeout 60 "$SONDE" --warnings -q -e 'begin { @x[1] = 1; $r = delete(@x, 2); }' 2>&1 | head -1)
expect_eq newlang2:flag_warnings 'stdin:1:25: warning: map_delete_elem failed: No such file or directory (-2)' "$out"
out=$(timeout 60 "$SONDE" --debug ast -e 'begin { }' 2>&1 | head -2)
expect_eq newlang2:flag_debug 'program
  probe #0 begin' "$out"
out=$(timeout 60 "$SONDE" --fmt -e 'begin { }' 2>&1); rc=$?
out="$(printf '%s\n' "$out" | head -1)
rc=$rc"
expect_eq newlang2:flag_not_had "ERROR: unexpected program command line options: --fmt
rc=1" "$out"

# -- <syscall.h>: the x86-64 numbers, its headers' #if/#elif evaluated -----
for h in syscall.h sys/syscall.h asm/unistd.h; do
	out=$(n2_run "#include <$h>
begin { printf(\"%d %d %d\\n\", __NR_read, __NR_getppid, __NR_openat); }" | sed '/^$/d')
	expect_eq "newlang2:include_${h//\//_}" '0 110 257' "$out"
done
out=$(n2_run '#include <syscall.h>
begin { printf("%d %d %s\n", SYS_getppid, SYS_execve, syscall_name(__NR_read)); }' | sed '/^$/d')
expect_eq newlang2:include_syscall_sys_names '110 59 read' "$out"

# -- probes: interval/profile listing, numbers in attach points ------------
out=$(timeout 60 "$SONDE" -l 'interval:*' 2>&1; timeout 60 "$SONDE" -l 'p:*s' 2>&1)
expect_eq newlang2:list_timers 'interval:hz:
interval:ms:
interval:s:
interval:us:
profile:ms:
profile:s:
profile:us:' "$out"
out=$(timeout 60 "$SONDE" -q --dry-run -e 'software:cpu-clock:1e6 { } software:cpu-clock:1_000_000 { } interval:ms:1_0 { } profile:hz:9_9 { }' 2>&1; echo "rc=$?")
expect_eq newlang2:probe_arg_numbers 'rc=0' "$out"
out=$(n2_run 'software:cpu-clock:2e6 { print(probe); exit(); }' | sed '/^$/d')
expect_eq newlang2:probe_arg_scientific 'software:cpu-clock:2000000' "$out"
out=$(n2_run 'software:cpu-clock:1e { }' | head -1)
expect_eq newlang2:probe_arg_bad_number 'stdin:1:1: error: software event count must be a positive integer' "$out"

# -- a missing tracepoint beside others: a warning, the rest attach --------
out=$(timeout 60 "$SONDE" -q -c "$B/syscall_loop 3" -e 'tracepoint:syscalls:sys_enter_nope, tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @ = count(); }' 2>&1 | grep -v '^[0-9.][0-9.]*$' | sed '/^$/d')
expect_eq newlang2:tracepoint_missing_beside_others "stdin:1:1: warning: tracepoint not found: syscalls:sys_enter_nope: this attach point is skipped
tracepoint:syscalls:sys_enter_nope, tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @ = count(); }
^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
@: 3" "$out"
out=$(n2_run 'config = { missing_probes = error } tracepoint:syscalls:sys_enter_nope, tracepoint:syscalls:sys_enter_getppid { }' | head -1)
expect_match newlang2:tracepoint_missing_error "^stdin:1:37: error: tracepoint 'syscalls:sys_enter_nope' not found" "$out"
out=$(n2_run 'config = { missing_probes = ignore } tracepoint:syscalls:sys_enter_nope, tracepoint:syscalls:sys_enter_getppid { exit(); }' | sed '/^$/d')
expect_eq newlang2:tracepoint_missing_ignore '' "$out"
out=$(n2_run 'tracepoint:syscalls:sys_enter_nope, tracepoint:syscalls:sys_enter_nope2 { }' | grep error)
expect_eq newlang2:tracepoint_all_missing "stdin:1:1: error: none of this probe's attach points (kernel functions, tracepoints) exist: nothing to attach it to" "$out"

# -- return e: the probe ends, its program returns e -----------------------
out=$(n2_run 'begin { printf("a\n"); return 5; printf("b\n"); } end { printf("end\n"); }' | sed '/^$/d')
expect_eq newlang2:return_value_ends_probe 'a
end' "$out"
out=$(n2_run 'macro big(x) { if (x > 1) { return x * 3 } printf("small %d\n", x); } begin { big(0); big(2); printf("not reached\n"); }' | sed '/^$/d')
expect_eq newlang2:return_value_in_macro 'small 0' "$out"
out=$(timeout 60 "$SONDE" --emit ir -e 'begin { return 7; }' 2>&1 | grep -c 'ret i32 7')
expect_eq newlang2:return_value_is_program_result '1' "$out"
out=$(n2_child 3 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @n = count(); if (@n > 1) { return (int64)@n; } @first = 1; }')
expect_eq newlang2:return_value_tracepoint '@first: 1
@n: 3' "$out"
out=$(n2_run 'begin { return "s"; }' | head -1)
expect_eq newlang2:return_value_not_integer 'stdin:1:16: error: return takes an integer (the BPF program'"'"'s return value), not string[2]' "$out"
out=$(n2_run 'begin { for ($i : 0..3) { return $i; } }' | head -1)
expect_eq newlang2:return_value_in_for 'stdin:1:27: error: return with a value inside a for loop: the loop'"'"'s body is a function of its own; keep the value in a variable and return it after the loop' "$out"

# -- _ = e; and the warning on a value nothing uses ------------------------
out=$(n2_run 'begin { @a[1] = 1; _ = has_key(@a, 1); _ = 5; $x = 3; _ = $x + 1; _ = { printf("side\n"); 2 }; printf("ok\n"); clear(@a); }' | sed '/^$/d')
expect_eq newlang2:discard_silent 'side
ok' "$out"
out=$(n2_run 'begin { @a[1] = 1; has_key(@a, 2); clear(@a); }' | sed '/^$/d')
expect_eq newlang2:discarded_value_warns 'stdin:1:20: warning: this value is discarded: use it, or write `_ = e;` to discard it on purpose
begin { @a[1] = 1; has_key(@a, 2); clear(@a); }
                   ^~~~~~~~~~~~~~' "$out"
out=$(n2_run 'begin { $b = 1; $b ? printf("y\n") : printf("n\n"); $b++; printf("z\n"); }' | sed '/^$/d')
expect_eq newlang2:statements_not_warned 'y
z' "$out"
out=$(n2_run 'begin { x = 1; }' | head -1)
expect_eq newlang2:discard_other_name 'stdin:1:9: error: cannot assign to '"'x'"': assign to a $variable or an @map, or discard a value with `_ = e;`' "$out"

# -- array casts: an integer's bytes as an array, and back -----------------
out=$(n2_run 'begin { $a = (int8[8])12345; printf("%x %x\n", $a[0], $a[1]); printf("%d\n", (uint64)$a); }' | sed '/^$/d')
expect_eq newlang2:array_cast_guide '39 30
12345' "$out"
out=$(n2_run 'begin { print((uint16[2])0x00050001); print((int16[2])-2); $b = (uint32[])0x0000000700000009; printf("%d %d %d\n", $b[0], $b[1], (uint64)$b); print((int32)(int16[2])-2); print((uint32)pton("127.0.0.1") == 0x0100007f); @k[(uint16[2])7] = 1; }' | sed '/^$/d')
expect_eq newlang2:array_casts '[1,5]
[-2,-1]
9 7 30064771081
-2
1
@k[[7,0]]: 1' "$out"
# a bool array prints its words, not a string of its bytes
out=$(n2_run 'begin { @a = (bool[2])(uint16)1; print((bool[4])(uint32)0x01000100); exit(); }' | sed '/^$/d')
expect_eq newlang2:bool_array_cast '[false,true,false,true]
@a: [true,false]' "$out"
out=$(n2_run 'begin { $x = 1; print((uint8[3])$x); }' | head -1)
expect_eq newlang2:array_cast_size 'stdin:1:23: error: cannot cast int64 (8 bytes) to uint8[3] (3 bytes): an array cast keeps the size' "$out"
out=$(n2_run 'begin { print((uint32)(uint8[8])1); }' | head -1)
expect_eq newlang2:array_to_int_size 'stdin:1:15: error: cannot cast uint8[8] (8 bytes) to uint32 (4 bytes): the array and the integer must have the same size' "$out"
# a string's bytes, its NUL too: (int8[])"hello" is int8[6] (bpftrace's
# type resolver tests); int8 and uint8 arrays print as numbers
out=$(n2_run 'begin { $a = (int8[])"mystring"; print($a); printf("%d %d %d\n", $a[0], $a[7], sizeof($a)); print((uint8[6])"hello"); print((uint16[3])"hello"); @m = (int8[])"ab"; }' | sed '/^$/d')
expect_eq newlang2:array_cast_string '[109,121,115,116,114,105,110,103,0]
109 103 9
[104,101,108,108,111,0]
[25960,27756,111]
@m: [97,98,0]' "$out"
out=$(n2_run 'begin { print((uint8[8])"mystring"); }' | head -1)
expect_eq newlang2:array_cast_string_size 'stdin:1:15: error: cannot cast string[9] (9 bytes) to uint8[8] (8 bytes): an array cast keeps the size' "$out"

# -- typeof(e) / typeof(type) where a type is written ----------------------
out=$(n2_run 'begin { $s = "abc"; let $t: typeof($s); print(sizeof($t)); $i = (int16)-3; print(sizeof((typeof($i))70000)); print((typeof($i))70000); print((typeof(uint16))-1); let $p: typeof(struct task_struct *) = curtask; print($p->pid == pid); @m[(uint32)5] = 1; let $key: typeof(@m) = 5; print(has_key(@m, $key)); print(sizeof($key)); clear(@m); }' | sed '/^$/d')
expect_eq newlang2:typeof '4
2
4464
65535
1
true
4' "$out"
# the stdlib's own use: a macro declaring a key of its map's key type
out=$(n2_run 'macro haskey(@m, x) { let $key: typeof(@m) = x; has_key(@m, $key) } begin { @a["x"] = 1; printf("%d %d\n", haskey(@a, "x"), haskey(@a, "y")); let $q = 2; if (1) { let $q = (uint8)7; print(sizeof((typeof($q))0)); } clear(@a); }' | sed '/^$/d')
expect_eq newlang2:typeof_macro_and_scope '1 0
1' "$out"
out=$(n2_run 'begin { let $x: typeof(@nope) = 1; }' | head -1)
expect_eq newlang2:typeof_unassigned_map 'stdin:1:24: error: typeof(@nope): @nope is not assigned before this point, so it has no type yet' "$out"

# -- bools: logic and comparisons of bools are bools (0.17 has no bools) --
out=$(n2_run 'begin { @a[1] = 1; print(true && false); print(has_key(@a, 1) || false); $b = true; print($b == true); print(1 == 1); print(1 && 0); @m[true || false] = 1; clear(@a); }' | sed '/^$/d')
expect_eq newlang2:bool_logic 'false
true
true
1
0
@m[true]: 1' "$out"

# -- printf's %s of an enumerator: its name (0.17 refuses %s of an int) ----
out=$(n2_run 'enum custom { CUSTOM_ENUM = 3, } begin { printf("%s %d %s\n", CUSTOM_ENUM, CUSTOM_ENUM, BPF_MAP_TYPE_HASH); @m[CUSTOM_ENUM] = 1; }' | sed '/^$/d')
expect_eq newlang2:enumerator_printf_name 'CUSTOM_ENUM 3 BPF_MAP_TYPE_HASH
@m[3]: 1' "$out"


# -- (string[N]): a string cut (ending in its NUL) or padded, a byte array
# as a string (bpftrace's tests/runtime regression "large string cast") --
out=$(n2_run 'begin { let $a = (string[1024])"hi"; print($a); print(sizeof($a)); $b = (string[3])"hello"; print($b); print(sizeof($b)); $c = (int8[4])"abc"; print((string[8])$c); print((string[2])$c); @s[(string[4])"hello"] = 1; }' | sed '/^$/d')
expect_eq newlang2:string_cast 'hi
1024
he
3
abc
a
@s[hel]: 1' "$out"
out=$(n2_run 'begin { $x = (string[4])1; }' | head -3)
expect_eq newlang2:string_cast_of_int 'stdin:1:14: error: cannot cast int64 to string[4]: a string cast takes a string or an array of 1-byte integers
begin { $x = (string[4])1; }
             ^~~~~~~~~~~~' "$out"
out=$(n2_run 'begin { $x = (string[0])"a"; }' | head -1)
expect_eq newlang2:string_cast_empty 'stdin:1:14: error: a string cast needs a length of at least 1: (string[64])x' "$out"

# -- a tuple as one of several map keys (bpftrace's tests/runtime basic
# "has_key complex tuple"): printed, deleted, looped over, in JSON --------
out=$(n2_run 'begin { @a[1, ("hello", (int8)5)] = 0; if (has_key(@a, (1, ("hello", 5)))) { printf("ok\n"); } @m[1, ("hi", 2)] = 5; @m[2, ("hello", 3)] = 6; @m[3, ("x", 4)] = 7; delete(@m[3, ("x", 4)]); delete(@m, (1, ("hi", 2))); for ($kv : @m) { printf("%d %s %d %d\n", $kv.0.0, $kv.0.1.0, $kv.0.1.1, $kv.1); print($kv.0); } @w[1, ("a", 2)] = 1; @w[1, ("abc", 2)] = 2; }' | sed '/^$/d')
expect_eq newlang2:tuple_in_keys 'ok
2 hello 3 6
(2, (hello, 3))
@a[1, (hello, 5)]: 0
@m[2, (hello, 3)]: 6
@w[1, (a, 2)]: 1
@w[1, (abc, 2)]: 2' "$out"
out=$(timeout 60 "$SONDE" -q -f json -e 'begin { @m[1, ("hi", (2, 3))] = count(); }' 2>&1)
expect_eq newlang2:tuple_in_keys_json '{"type": "map", "data": {"@m": {"1,(hi, (2, 3))": 1}}}' "$out"
out=$(n2_child 2 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @m[pid == cpid, (comm, tid == cpid)] = count(); }')
expect_eq newlang2:tuple_in_keys_count '@m[1, (syscall_loop, 1)]: 2' "$out"
out=$(n2_run 'begin { @a[1, ("a", 2)] = 1; @a[1, 2] = 1; }' | head -1)
expect_eq newlang2:tuple_in_keys_mismatch "stdin:1:30: error: map '@a' key is (int64, int64) here but (int64, (string[2], int64)) elsewhere" "$out"
fi
