# t_newlang3.sh - bpftrace v0.26.1's forms that its own runtime tests
# (tests/e2e/bt026) exercise and bpftrace 0.17 has none of: the elvis
# operator, tuple ==/!=, &$var, struct __attribute__((packed)), trailing
# arrays of length 0, array variables (let $w: T[N]), strings past 1024
# bytes (max_strlen up to 32768), tseries() on BPFTRACE_DUMMY_TS_MAP's
# clock, macros of a string literal and of another arity than a builtin,
# printf's %s of a variable holding an enumerator,
# usdt's empty provider and arg10/arg11, pcomm/leader_comm.  Expected
# output is the release's (its docs and tests/runtime).

if need_root newlang3:bpf; then

n3_run() { timeout 60 "$SONDE" -q -e "$1" 2>&1 | sed '/^$/d'; }

# -- a ?: b: a when it is not 0, else b; a is evaluated once --------------
out=$(n3_run 'begin { $x = 1; $a = $x ?: 10; $b = 0 ?: 20; print(($a, $b)); $i = 0; $c = $i++ ?: 7; $d = $i++ ?: 7; print(($c, $d, $i)); @m[1] = 5; print((@m[1] ?: 3, @m[2] ?: 3)); clear(@m); }')
expect_eq newlang3:elvis '(1, 20)
(7, 1, 2)
(5, 3)' "$out"
# through a macro (its body copied), a ++ in a is still evaluated once
out=$(n3_run 'macro m(x) { x ?: 5 } begin { @c = 1; $v = m(@c++); print(($v, @c)); clear(@c); }')
expect_eq newlang3:elvis_macro_once '(1, 2)' "$out"
# an error in a is reported once
out=$(n3_run 'begin { $y = $nope ?: 7; }' | grep -c error)
expect_eq newlang3:elvis_error_once '1' "$out"
out=$(n3_run 'begin { $s = "a" ?: "b"; }' | head -1)
expect_eq newlang3:elvis_needs_integer 'stdin:1:14: error: condition must be an integer, not string[2]' "$out"

# -- tuples ==/!= : element by element, strings of any sizes --------------
out=$(n3_run 'begin { $x = ("hello", -6); $a = (1, true, $x); @b = (1, true, ("hello", -6)); print(($a == @b, $a != @b, $a == (1, true, ("ello", -6)), (1, (int8)-1) == (1, -1))); clear(@b); }')
expect_eq newlang3:tuple_equality '(true, false, false, true)' "$out"
out=$(n3_run 'begin { print((1, 2) == ("a", 2)); }' | head -1)
expect_eq newlang3:tuple_equality_types "stdin:1:15: error: operator '==' cannot take (int64, int64) and (string[2], int64) (tuples compare with tuples of as many elements, each of a like type)" "$out"
out=$(n3_run 'begin { print((1, 2) < (1, 3)); }' | head -1)
expect_eq newlang3:tuple_no_order "stdin:1:15: error: operator '<' cannot take (int64, int64) and (int64, int64)" "$out"

# -- &$v: a variable's address, read back through the pointer -------------
out=$(n3_run 'struct D { int x; int y[0]; } begin { $t = (1, "hello", 2); print(*(&$t)); $s = "hey"; $p = (int8 *)&$s; printf("%c%c\n", *$p, *($p + 2)); $v = (uint64)0x0000000900000007; $d = (struct D *)&$v; printf("%d %d %d\n", $d->x, $d->y[0], sizeof(struct D)); }')
expect_eq newlang3:variable_address_and_zero_length_array '(1, hello, 2)
hy
7 9 4' "$out"
out=$(n3_run 'begin { $x = 1; $y = &($x + 1); }' | head -1)
expect_eq newlang3:address_of_expression "stdin:1:22: error: '&' takes a variable or an object in traced memory (\$v, &p->f, &p[i], &*p), not int64" "$out"

# -- __attribute__((packed)) after a struct's brace; a packed member ------
out=$(n3_run 'struct foo { int x; char y; int z; } struct bar { int x; char y; int z; } /* c */ __attribute__ ((packed)) __attribute__((aligned(1))); struct Q { char c; struct bar b; } begin { printf("%d %d %d %d\n", sizeof(struct foo), sizeof(struct bar), offsetof(struct bar, z), sizeof(struct Q)); }')
expect_eq newlang3:struct_packed '12 9 5 10' "$out"
# a packed struct whose members sit at their alignments still aligns to 1
# inside another (C: 8 9 1)
out=$(n3_run 'struct P { int a; int b; } __attribute__((packed)); struct O { char c; struct P p; } begin { printf("%d %d %d\n", sizeof(struct P), sizeof(struct O), offsetof(struct O, p)); }')
expect_eq newlang3:struct_packed_aligned_members '8 9 1' "$out"

# -- let $w: T[N], an array variable ---------------------------------------
out=$(n3_run 'struct W { int a; long b; } begin { let $w: struct W[3]; let $n: int32[4]; printf("%d %d\n", sizeof($w), sizeof($n)); }')
expect_eq newlang3:let_array '48 16' "$out"
out=$(n3_run 'begin { let $n: int32[0]; }' | head -1)
expect_eq newlang3:let_array_empty 'stdin:1:9: error: an array variable holds 1 to 4096 elements of at most 1 MiB in all, not 0 of int32' "$out"

# -- strings past 1024 bytes: in a variable, a tuple, a map key ----------
# (execve of a 5001-byte path, as bpftrace's str_big tests; each program
# alone: their strings share a per-CPU scratch value under 32 KiB)
long=$(head -c 5000 /dev/zero | tr '\0' X)
printf '#!/bin/sh\nexec /%s 2>/dev/null\n' "$long" > "$B/exec_long.sh"
chmod +x "$B/exec_long.sh"
out=
for body in '$s = str(args->filename); printf("%s|\n", $s);' 'print((1, str(args->filename)));' \
	'@k[str(args->filename)] = count();'; do
	out+=$(BPFTRACE_MAX_STRLEN=9999 timeout 60 "$SONDE" -q -c "$B/exec_long.sh" -e 'tracepoint:syscalls:sys_enter_execve /pid == cpid && !strncmp(str(args->filename), "/XXX", 4)/ { '"$body"' }' 2>&1 |
		grep -v '^sonde: command exited' | sed '/^$/d' | awk '{ print length($0) ":" substr($0, 1, 5) substr($0, length($0) - 3) }')$'\n'
done
expect_eq newlang3:str_max_strlen_9999 $'5002:/XXXXXXX|\n5006:(1, /XXX)\n5008:@k[/X]: 1' "${out%$'\n'}"
out=$(BPFTRACE_MAX_STRLEN=40000 "$SONDE" -q -e 'begin { exit(); }' 2>&1; echo "rc=$?")
expect_eq newlang3:str_max_strlen_limit $'sonde: BPFTRACE_MAX_STRLEN: \'40000\' is not a number from 1 to 32768\nrc=1' "$out"

# -- tseries() on BPFTRACE_DUMMY_TS_MAP's clock (bpftrace's test hook) -----
out=$(TZ=UTC BPFTRACE_DUMMY_TS_MAP=@ts timeout 60 "$SONDE" -q -e 'begin { @ts = (uint64)0; } interval:ms:1 { $i = (uint64)0; @ts = 100000000; while ($i < 30) { @a = tseries($i % 10, 100ms, 3); @ts += 10000000; $i++; } clear(@ts); exit(); }' 2>&1 | sed '/^$/d')
expect_eq newlang3:tseries_dummy_clock '@a:
             8                                                  10
hh:mm:ss.ms  |___________________________________________________|
00:00:00.100 |                         *                         | 9
00:00:00.200 |                         *                         | 9
00:00:00.300 |                         *                         | 9
             v___________________________________________________v
             8                                                  10' "$out"

# -- macros: a string literal body is a format; another arity, the builtin -
out=$(n3_run 'macro fmt() { "%d-%s\n" } macro cpu(x) { x } begin { printf(fmt(), 5, cpu("hi")); printf("%d\n", cpu() < ncpus); }')
expect_eq newlang3:macro_literal_and_arity '5-hi
1' "$out"
out=$(n3_run 'macro foo(x) { x } begin { print(foo()); }' | head -1)
expect_eq newlang3:macro_arity 'stdin:1:34: error: macro '"'"'foo'"'"' takes a different number of arguments than 0' "$out"

# -- printf's %s of an enumerator held in a variable or map: its name ------
out=$(n3_run 'enum Foo { ONE = 1, TWO = 2, OTHER = 99999 }; begin { $one = ONE; @two = TWO; printf("%d %s %d %s %s\n", $one, $one, @two, @two, OTHER); print($one); clear(@two); }')
expect_eq newlang3:enum_printf_s_variable '1 ONE 2 TWO OTHER
1' "$out"

# -- an aggregation as a block's value: the statements, then the update ----
out=$(n3_run 'begin { @ = { let $a = 100; avg($a) }; @c[1] = { let $x = 2; count() }; @c[1] = { count() }; $z = 5; @s = { $z += 1; sum($z) }; }')
expect_eq newlang3:aggregation_block_value '@: 100
@c[1]: 2
@s: 6' "$out"

# -- usdt: an empty provider, arg10 and arg11, constants at their size -----
build_workload usdt
out=$(timeout 60 "$SONDE" -q -c "$B/usdt 1" -e 'usdt:'"$B"'/usdt::many { printf("%d %d %d %d\n", arg0, arg9, arg10, arg11); }' 2>&1 | sed '/^$/d')
expect_eq newlang3:usdt_empty_provider_twelve_args '1 10 4294967289 -3' "$out"

# -- pcomm (the parent's name), leader_comm and leader_tid (the process's) --
out=$(timeout 60 "$SONDE" -q -c "$B/usdt 1" -e 'usdt:'"$B"'/usdt:sonde:done { printf("%s %s %d %s\n", pcomm, leader_comm, leader_tid == pid, comm); }' 2>&1 | sed '/^$/d')
expect_eq newlang3:pcomm_leader_comm "$(basename "$SONDE") usdt 1 usdt" "$out"

fi
