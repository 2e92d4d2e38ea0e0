# t_newlang.sh - the syntax of bpftrace 0.20-0.26 (issue #21): lower-case
# begin/end and scripts that end by themselves, let, for loops, duration
# literals, macros, block expressions, map declarations.  Expected output
# is the reference guide's and tests/runtime's (0.17 has none of these);
# where 0.17 has the construct the case is differential (tests/diff).

if need_root newlang:bpf; then

# run PROGRAM: sonde -q -e PROGRAM, stdout and stderr; a script that should
# end by itself and hangs is cut off (and fails its comparison)
nl_run() { timeout 60 "$SONDE" -q -e "$1" 2>&1; }
build_workload syscall_loop

# -- begin/end: lower case, any case for provider names, and a script of
#    only begin/end probes ends by itself after them ---------------------
out=$(nl_run 'begin { printf("hi\n"); @a = 1; } end { printf("bye\n"); }')
expect_eq newlang:begin_end_ends_itself $'hi\nbye\n\n\n@a: 1' "$out"
# BEGIN in a script 0.17 could not parse (let): no 0.17 behaviour to keep
out=$(nl_run 'BEGIN { let $x = 2; print($x); }' | sed '/^$/d')
expect_eq newlang:BEGIN_newer_syntax_ends_itself '2' "$out"
# so does a config block (0.17: "syntax error, unexpected =")
out=$(nl_run 'config = { max_strlen = 100 } BEGIN { printf("x\n"); }' | sed '/^$/d')
expect_eq newlang:BEGIN_config_ends_itself 'x' "$out"
out=$(nl_run 'begin { print(probe); } end { print(probe); }' | sed '/^$/d')
expect_eq newlang:begin_probe_name $'begin\nend' "$out"
out=$(nl_run 'begin { @x = 1 } Interval:ms:1 { @y = 2; exit() }')
expect_eq newlang:provider_any_case $'\n\n@x: 1\n@y: 2' "$out"
# BEGIN as 0.17 writes it keeps 0.17's behaviour: it runs until Ctrl-C
f=$B/newlang-langa-begin.out
rm -f "$f"
"$SONDE" -q -e 'BEGIN { printf("up\n"); }' > "$f" 2>&1 &
p=$!
if wait_for "$f" '^up$' && sleep 0.3 && kill -0 $p 2>/dev/null; then
	kill -INT $p; wait $p; rc=$?
	expect_eq newlang:BEGIN_waits_as_017 "up rc=0" "$(cat "$f") rc=$rc"
else
	fail newlang:BEGIN_waits_as_017; cat "$f" | sed 's/^/    /'; kill_reap $p
fi
rm -f "$f"

# -- let: block scope; without let, 0.17's probe-wide scope ----------------
out=$(nl_run 'begin { let $a = 1; if ($a == 1) { let $a = 5; printf("%d\n", $a); $b = 2; } printf("%d %d\n", $a, $b); let $z; let $c: int32 = -3; printf("%d %d\n", $z, $c); }')
expect_eq newlang:let_block_scope $'5\n1 2\n0 -3' "$out"
out=$(nl_run 'begin { if (1) { let $x = 1; } print($x); }' | head -1)
expect_eq newlang:let_out_of_scope "stdin:1:38: error: variable '\$x' is used before it is assigned" "$out"
# a let runs each time: zero again on every iteration
out=$(nl_run 'begin { for ($i : 0..3) { let $n; $n += $i; printf("%d ", $n); } }')
expect_eq newlang:let_reinitialised '0 1 2 ' "$out"
# a declared type converts what is stored, as the newest release's typed
# let: at the let, by a later =, op= and ++
out=$(nl_run 'begin { let $x: int16 = 70000; let $u: uint8 = 300; let $s: int8 = 200; printf("%d %d %d\n", $x, $u, $s); $x = 65537; $u += 256; let $c: int8 = 127; $c++; let $w: uint32; $w = -1; let $l: int64 = 70000; printf("%d %d %d %u %d\n", $x, $u, $c, $w, $l); }')
expect_eq newlang:let_typed_converts $'4464 44 -56\n1 44 -128 4294967295 70000' "$out"

# -- for: tests/runtime/for and the reference guide's examples --------------
out=$(nl_run 'begin { @map[16] = 32; @map[64] = 128; for ($kv : @map) { print($kv); } clear(@map); }' | sed '/^$/d' | sort)
expect_eq newlang:for_map_one_key $'(16, 32)\n(64, 128)' "$out"
out=$(nl_run 'begin { @map[10,11] = 20; for ($kv : @map) { print($kv.0.0); print($kv.0.1); print($kv.1); } clear(@map); }')
expect_eq newlang:for_map_two_keys $'10\n11\n20' "$out"
# an aggregation's value is every CPU's slot folded (the child may move
# between CPUs while it makes its 1000 calls)
out=$(nl_run 'begin { @map[16,17] = count(); @map[16,17] = count(); @map[1,2] = count(); for ($kv : @map) { print($kv); } clear(@map); }' | sed '/^$/d' | sort)
expect_eq newlang:for_map_aggregation $'((1, 2), 1)\n((16, 17), 2)' "$out"
out=$(timeout 60 "$SONDE" -q -c "$B/syscall_loop 1000" -e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @c[comm] = count(); @s[comm] = sum(2); } end { for ($kv : @c) { printf("%s %d\n", $kv.0, $kv.1); } for ($kv : @s) { printf("sum %d\n", $kv.1); } clear(@c); clear(@s); }' 2>&1 | grep -v '^[0-9.][0-9.]*$' | sed '/^$/d')
expect_eq newlang:for_map_aggregation_cpus $'syscall_loop 1000\nsum 2000' "$out"
out=$(nl_run 'begin { @map["foo"] = 1; @map["bar"] = 2; print("start"); for ($i : @map) { print($i.0); break; } print("done"); clear(@map); }')
expect_match newlang:for_map_break '^start
(foo|bar)
done$' "$(printf '%s\n' "$out" | tr '\n' '|' | sed 's/|/\n/g')"
expect_eq newlang:for_map_break_lines 3 "$(printf '%s\n' "$out" | wc -l)"
out=$(nl_run 'begin { @map["foo"] = 1; @map["bar"] = 2; print("start"); for ($i : @map) { if ($i.0 == "bar") { continue; } print($i.0); } clear(@map); }')
expect_eq newlang:for_map_continue $'start\nfoo' "$out"
out=$(nl_run 'begin { for ($i : 0..5) { print($i); } $start = 2; $end = 7; for ($i : $start..$end) { print($i); } }' | sed '/^$/d' | tr '\n' ' ')
expect_eq newlang:for_range '0 1 2 3 4 2 3 4 5 6 ' "$out"
out=$(nl_run 'begin { for ($i : (1+1)..(2*4)) { printf("%d ", $i); } for ($i : (-3)..3) { printf("%d ", $i); } for ($i : 1..0) { print("here"); } for ($i : 5..5) { print("here"); } }' | sed '/^$/d')
expect_eq newlang:for_range_bounds '2 3 4 5 6 7 -3 -2 -1 0 1 2 ' "$out"
# without parentheses, as the newest release's grammar and tools have it
# (opensnoop.bt: for $j : ((uint64)0)..((uint64)$max_path_depth) { ... })
out=$(nl_run 'begin { $max = 3; for $j : ((uint64)0)..((uint64)$max) { printf("%d ", $j); } for $i : 1..3 { printf("%d ", $i * 10); } @m[7] = 8; for $kv : @m { printf("%d %d", $kv.0, $kv.1); } clear(@m); }')
expect_eq newlang:for_without_parentheses '0 1 2 10 20 7 8' "$out"
out=$(nl_run 'begin { $sum = 0; for ($i : 1..5) { $sum += $i; } print($sum); @a = 10; for ($i : 0..@a) { @a += 1; } }')
expect_eq newlang:for_outer_variables $'10\n\n\n@a: 20' "$out"
out=$(nl_run 'begin { for ($i : 1..4) { if ($i == 2) { break; } print($i); } print("5"); for ($i : 1..4) { if ($i == 2) { continue; } print($i); } }' | sed '/^$/d' | tr '\n' ' ')
expect_eq newlang:for_range_break_continue '1 5 1 3 ' "$out"
# return in a loop ends the probe; loops nest
out=$(nl_run 'begin { for ($i : 0..3) { for ($j : 0..2) { @[$i, $j] = $i * 10 + $j; } } for ($kv : @) { if ($kv.1 == 21) { return; } } printf("not reached\n"); } end { printf("end\n"); clear(@); }')
expect_eq newlang:for_return_nested 'end' "$out"
# in a tracepoint: builtins and args inside the body, counted exactly
out=$(timeout 60 "$SONDE" -q -c "$B/syscall_loop 5" -e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { for ($i : 0..3) { @n[comm, args->__syscall_nr > 0] = count(); } }' 2>/dev/null | grep -v '^[0-9.][0-9.]*$')
expect_eq newlang:for_in_tracepoint $'\n\n@n[syscall_loop, 1]: 15' "$out"

# values too big for the stack (max_strlen 1024) in the body: the callback
# has a per-CPU frame of its own
out=$(timeout 60 "$SONDE" -q -c "$B/syscall_loop 1" -e 'config = { max_strlen = 1024 } tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { for ($i : 0..2) { $s = comm; $t = str(args->__syscall_nr > 0 ? "yes" : "no"); if ($i == 1) { @f[$s, $t] = count(); } } }' 2>&1 | grep -v '^[0-9.][0-9.]*$' | sed '/^$/d')
expect_eq newlang:for_big_values '@f[syscall_loop, yes]: 1' "$out"

# many variables: the callback's context stays on the stack however large
out=$(nl_run 'begin { $a=1; $b=2; $c=3; $d=4; $e=5; $f=6; $g=7; $h=8; $i=9; $j=10; $k=11; $l=12; $m=13; $n=14; for ($x : 0..2) { $a += $b + $c + $d + $e + $f + $g + $h + $i + $j + $k + $l + $m + $n; } print($a); }' | sed '/^$/d')
expect_eq newlang:for_many_variables '209' "$out"

# a kernel without the helpers (as SONDE_NO_FEATURES makes this one look):
# a located error naming the helper and the kernel that has it
out=$(SONDE_NO_FEATURES=loop nl_run 'begin { for ($i : 0..3) { } }' | head -1)
expect_eq newlang:for_range_needs_bpf_loop 'stdin:1:9: error: a for loop over a range needs bpf_loop (Linux 5.17), which this kernel does not have' "$out"
out=$(SONDE_NO_FEATURES=for_each nl_run 'begin { @m[1] = 1; for ($kv : @m) { } }' | head -1)
expect_eq newlang:for_map_needs_for_each 'stdin:1:20: error: a for loop over a map needs bpf_for_each_map_elem (Linux 5.13), which this kernel does not have' "$out"

out=$(timeout 60 "$SONDE" --user-probes -e 'uprobe:libc:getppid { for ($i : 0..2) { @n = count(); } }' 2>&1 | head -1)
expect_eq newlang:for_not_in_agent 'stdin:1:23: error: for loops do not run in the traced processes (--user-probes): use a while loop, or drop --user-probes for this script' "$out"

# -- duration literals (nanoseconds) and the one-part interval/profile forms -
out=$(nl_run 'begin { $a = 1m; print($a); print(1s + 100ms + 5us + 7ns); print(2h / 1h + 1d / 1h); print(123UL + 1_000); }' | sed '/^$/d')
expect_eq newlang:duration_literals $'60000000000\n1100005007\n26\n1123' "$out"
# the period: consecutive ticks are at least 90 ms apart (a timer fires
# some microseconds early or late, never 10 ms early)
for ap in interval:100ms interval:100000000 interval:ms:100; do
	# (exit() is asynchronous: ticks after the third print nothing)
	out=$(nl_run "$ap { @n++; if (@n <= 3) { if (@n > 1) { printf(\"%s %d\\n\", probe, (nsecs - @t) >= 90ms); } @t = nsecs; } if (@n == 3) { exit(); } }" | grep -v '^@' | sed '/^$/d')
	expect_eq "newlang:${ap//:/_}" "$ap 1"$'\n'"$ap 1" "$out"
done
out=$(nl_run 'profile:99hz { @p = count(); exit(); }' | sed '/^$/d')
expect_match newlang:profile_99hz '^@p: [1-9][0-9]*$' "$out"
out=$(nl_run 'interval:1x { }' | head -1)
expect_eq newlang:interval_bad_unit 'stdin:1:1: error: interval probe expects interval:UNIT:N with UNIT one of s, ms, us, hz and N > 0, or interval:Ns, Nms, Nus, Nhz' "$out"

# -- block expressions and if as a value (the reference guide's) ------------
out=$(nl_run 'begin { let $a = { let $b = 1; $b }; print($a); $c = if ($a == 1) { "one" } else { "other" }; print($c); $d = if ($a > 5) { 1 } else if ($a > 0) { 2 } else { 3 }; print($d); @m = { 5 }; }' | sed '/^$/d')
expect_eq newlang:block_expressions $'1\none\n2\n@m: 5' "$out"
# as operands inside larger expressions, wherever a value is expected (the
# newest grammar's expr: block_expr and if_expr are operands)
out=$(nl_run 'begin { $c = 1; $a = { let $x = 1; $x } + 1; $y = (if ($c) { 1 } else { 2 }) * 3; $z = 10 - if $c > 5 { 1 } else { 4 }; printf("%d %d %d %d\n", $a, $y, $z, { 2 } * { 3 }); @m[{ 5 }] = { 6 } + if (0) { 1 } else if ($c) { 7 } else { 8 }; print(($c ? { 11 } : 12, -{ 3 }, !if $c { 0 } else { 1 })); }' | sed '/^$/d')
expect_eq newlang:block_if_operands $'2 3 6 6\n(11, -3, 1)\n@m[5]: 13' "$out"
# a value block that ends in an if-else statement: the if expression is
# its value, nested too (bpftrace's tests/runtime/regression)
out=$(nl_run 'begin { let $x=1; let $y=2; let $z=3; print(if ($x) { if ($y) { if ($z) { $x } else { $y } } else { $z } } else { 0 }); $a = { if (0) { 5 } else if ($y) { 6 } else { 7 } }; print($a); }' | sed '/^$/d')
expect_eq newlang:block_ends_in_if_else $'1\n6' "$out"
out=$(nl_run 'begin { $a = { 1; }; }' | head -1)
expect_eq newlang:block_value_needs_expression "stdin:1:14: error: a block used as a value must end in an expression without ';' after it ({ ...; \$x })" "$out"

# -- macros: the reference guide's examples, with the outputs it gives ------
out=$(timeout 60 "$SONDE" -q "$top/tests/e2e/newlang/macros.bt" 2>&1 | sed '/^$/d')
expect_eq newlang:macros_reference $'1\n1\n11\n3\n17\nhihihi3\n@b: 6' "$out"
# hygiene: the body's $x is its own, the argument the caller's
out=$(nl_run 'macro add_one(x) { let $x = x; $x + 1 } begin { $x = 5; print(add_one($x)); print($x); }' | sed '/^$/d')
expect_eq newlang:macro_hygiene $'6\n5' "$out"
out=$(nl_run 'macro each(@a) { for ($kv : @a) { print($kv.1); } } begin { @q[3] = 4; each(@q); clear(@q); }' | sed '/^$/d')
expect_eq newlang:macro_map_for '4' "$out"
out=$(nl_run 'macro unhygienic_access() { @x++ } begin { @x = 1; unhygienic_access(); }' | head -1)
expect_eq newlang:macro_unhygienic "stdin:1:29: error: macro 'unhygienic_access' uses map '@x', which is not one of its parameters (a macro reaches only the maps passed to it)" "$out"
out=$(nl_run 'macro wrong_parameter_type($x) { $x++ } begin { wrong_parameter_type(1 + 1); }' | head -1)
expect_eq newlang:macro_wrong_parameter "stdin:1:70: error: macro 'wrong_parameter_type' assigns to its parameter \$x, so it takes a variable (\$name) there, not an expression" "$out"
# a \$ parameter passed an expression is the expression wherever the body
# names it (tests/runtime/macro: evaluated at each use)
out=$(nl_run 'macro inc($x) { $y = $x + 1; $z = $x + 2; $y + $z } begin { $y = 2; print(inc({ $y += 1; $y })); print(inc(1 + 1)); }' | sed '/^$/d')
expect_eq newlang:macro_dollar_expression $'10\n7' "$out"
# the standard library's assert: a failed one ends the run with status 1,
# its message an errorf() located at the call (stderr, as bpftrace's)
out=$(timeout 60 "$SONDE" -q -e 'begin { assert(1 == 1, "fine"); assert(1 == 2, "math"); printf("not reached\n"); }' 2>&1 >/dev/null; echo "rc=$?")
expect_eq newlang:assert $'stdin:1:33-55: ERROR: assert failed: math\nbegin { assert(1 == 1, "fine"); assert(1 == 2, "math"); printf("not reached\\n"); }\n                                ~~~~~~~~~~~~~~~~~~~~~~\nrc=1' "$out"

# -- map declarations: tests/runtime/map's cases ------------------------------
out=$(nl_run 'let @a = hash(1); begin { @a[1] = 1; @a[2] = 2; }' | sed '/^$/d')
expect_eq newlang:decl_hash_full $'stdin:1:38-47: WARNING: Map full; can\'t update element. Try increasing max_map_keys config or manually setting the max entries in a map declaration e.g. `let @a = hash(5000)`\nlet @a = hash(1); begin { @a[1] = 1; @a[2] = 2; }\n                                     ~~~~~~~~~\n@a[1]: 1' "$out"
out=$(nl_run 'let @a = hash(1); begin { @a[0] = 0; @a[0] = 1; }' | sed '/^$/d')
expect_eq newlang:decl_hash_same_key '@a[0]: 1' "$out"
# an LRU map evicts instead of refusing: never a "full" warning
out=$(nl_run 'let @a = lruhash(2); begin { @a[0] = 0; @a[1] = 1; @a[2] = 2; }' | sed '/^$/d')
expect_match newlang:decl_lruhash_evicts '^@a\[2\]: 2$' "$out"
expect_eq newlang:decl_lruhash_no_warning '' "$(printf '%s\n' "$out" | grep warning)"
out=$(nl_run 'let @a = percpuhash(1); begin { @a[1] = count(); @a[2] = count(); }' | grep '^@a')
expect_eq newlang:decl_percpuhash '@a[1]: 1' "$out"
out=$(nl_run 'let @a = percpulruhash(1); begin { @a[1] = count(); @a[2] = count(); }' | sed '/^$/d')
expect_eq newlang:decl_percpulruhash '@a[2]: 1' "$out"
out=$(nl_run 'let @a = percpuarray(1); begin { @a = count(); @a = count(); }' | sed '/^$/d')
expect_eq newlang:decl_percpuarray '@a: 2' "$out"
out=$(nl_run 'let @a = percpuhash(1); begin { }' | head -1)
expect_eq newlang:decl_unused "stdin:1:5: warning: map '@a' is declared but never used" "$out"
out=$(nl_run 'let @a = hash(10); begin { @a[1] = count(); }' | head -1)
expect_eq newlang:decl_mismatch "stdin:1:10: error: map '@a' holds count, a per-CPU aggregation: declare it percpuhash or percpulruhash (percpuarray without keys)" "$out"
# the kernel's own account of the map: its type and size as declared
if command -v bpftool >/dev/null; then
	out=$(timeout 60 "$SONDE" -q --unsafe -e 'let @langa_decl = lruhash(7); begin { @langa_decl[1] = 1; system("bpftool map show name m0_langa_decl"); }' 2>&1 | tr '\n\t' '  ')
	expect_match newlang:decl_kernel_map 'lru_hash +name m0_langa_decl .*max_entries 7 ' "$out"
else
	skip newlang:decl_kernel_map "bpftool is not installed"
fi


# -- --probe-filter over a wildcard uprobe's functions: with cookies (func),
# and expanded by sema (probe: one program per function) -------------------
build_workload many_funcs
out=$(timeout 60 "$SONDE" -q --probe-filter 'mf_1[0-2]$' -c "$B/many_funcs 1" -e "uprobe:$B/many_funcs:mf_* { @[func] = count(); }" 2>&1 | sed '/^$/d')
expect_eq newlang:probe_filter_uprobe_sites $'@[mf_10]: 11\n@[mf_11]: 12\n@[mf_12]: 13' "$out"
out=$(timeout 60 "$SONDE" -q --probe-filter 'mf_1[0-2]$' -c "$B/many_funcs 1" -e "uprobe:$B/many_funcs:mf_* { @[probe] = count(); }" 2>&1 | sed '/^$/d' | sed "s|$B/||")
expect_eq newlang:probe_filter_uprobe_probe $'@[uprobe:many_funcs:mf_10]: 11\n@[uprobe:many_funcs:mf_11]: 12\n@[uprobe:many_funcs:mf_12]: 13' "$out"

# -- iter:task and comm(pid): the iterator runs in sonde's own task, once
# per task; comm(pid) names any process (bpf_task_from_pid) ----------------
out=$(timeout 60 "$SONDE" -q -e "iter:task { @self = comm(pid); @shell = comm($$); @none = comm(0x7ffffff0); exit(); }" 2>&1 | sed '/^$/d')
expect_eq newlang:iter_comm_of_pid $'@none: N/A\n@self: sonde\n@shell: '"$(cat /proc/$$/comm)" "$out"
out=$(timeout 60 "$SONDE" -q -e 'i:ms:1 { @ = comm(1); exit(); }' 2>&1 | head -1)
expect_eq newlang:comm_of_pid_probe_type 'stdin:1:14-21: ERROR: Syntax comm(PID) is not supported in this probe type yet. Type: interval' "$out"

fi
