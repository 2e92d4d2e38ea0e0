# t_errors.sh - refusals that teach (issue #24): each class of refusal located
# at the script line, with its code and first sentence; every `--explain`
# page's example really triggers its code and its fixed script really loads;
# docs/errors.md is what the binary prints.  Classes that need kprobes run in
# the kernel VM suite (tests/vm/t_errors.sh).

# -- docs/errors.md is `sonde --explain --all` -----------------------------
expect_eq errors:docs_current "$(cat "$top/docs/errors.md")" "$("$SONDE" --explain --all)"
out=$("$SONDE" --explain S9999 2>&1; echo "rc=$?")
expect_eq errors:explain_unknown_code "sonde: --explain: no error code 'S9999' (codes are listed by sonde --explain --all)
rc=1" "$out"

# in_memcg LIMIT CMD...: CMD in a fresh memory cgroup (v1 or v2) of LIMIT
# bytes; 2 when this machine offers no memory controller
in_memcg() {
	local limit=$1 root cg file; shift
	root=$(cgroup2_root)
	if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/cgroup.procs ]; then
		root=/sys/fs/cgroup/memory file=memory.limit_in_bytes
	elif [ -n "$root" ] && grep -qw memory "$root/cgroup.subtree_control" 2>/dev/null; then
		file=memory.max
	else
		return 2
	fi
	cg=$root/sonde-errs-$$
	mkdir "$cg" && echo "$limit" > "$cg/$file" || return 2
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"
	local rc=$?
	CGROOT=$root cgroup_remove "$cg"
	return $rc
}

# the page's scripts: the indented line after "This script triggers it" and "Fixed:"
page_script() { "$SONDE" --explain "$1" | awk -v h="$2" 'index($0, h) == 1 {f = 1; next}
	f && /^    / {sub(/^    /, ""); print; exit}'; }

if need_root errors:bpf; then
	for code in $(grep -o '^## S[0-9]*' "$top/docs/errors.md" | cut -c4-); do
		page=$("$SONDE" --explain "$code")
		summary=$(printf '%s\n' "$page" | sed -n 3p)
		ex=$(page_script "$code" "This script triggers it")
		fixed=$(page_script "$code" "Fixed:")
		if [ -z "$ex" ]; then
			case $code in
			S0100) why="the class of refusals sonde does not know: none triggers it on purpose" ;;
			*) why="no script can trigger it: sonde's code rules it out (the kernel's wordings are unit-tested in test_verifier)" ;;
			esac
			skip "errors:explain_$code" "$why"
			continue
		fi
		case "$page" in
		*"(needs kprobes)"*)
			skip "errors:explain_$code" "needs kprobes: tests/vm/t_errors.sh runs it"; continue ;;
		*"(needs no capabilities)"*)
			run=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all) ;;
		*"(needs a memory cgroup limited to 200 MB)"*)
			if ! in_memcg 64M true; then
				skip "errors:explain_$code" "no memory cgroup controller here"; continue
			fi
			run=(in_memcg 200M) ;;
		*) run=() ;;
		esac
		got=$("${run[@]}" "$SONDE" --dry-run --unsafe -e "$ex" 2>&1; echo "rc=$?")
		expect_match "errors:explain_${code}_example_triggers" "\[$code\](.|$)" "$got"
		expect_match "errors:explain_${code}_example_fails" "rc=1$" "$got"
		# the page's first sentence, in the message or a note under it
		first=${summary%.}
		if printf '%s\n' "$got" | grep -iqF -- "$first"; then
			pass "errors:explain_${code}_example_says_first_sentence"
		else
			fail "errors:explain_${code}_example_says_first_sentence"; printf '%s\n' "$got" | head -8 | sed 's/^/    /'
		fi
		got=$("$SONDE" --dry-run --unsafe -e "$fixed" 2>&1; echo "rc=$?")
		expect_match "errors:explain_${code}_fixed_loads" "dry run: 1 probe loaded and attached" "$got"
	done

	# -- the issue's scripts: located line and column, code, first sentence --
	out=$("$SONDE" --dry-run -e 'BEGIN { $i = 0; while ($i < 100000000) { $i++; } exit(); }' 2>&1; echo "rc=$?")
	expect_eq errors:budget_located "stdin:1:42: error: the kernel's verifier refused the program for BEGIN: the verifier walked its budget of 1,000,000 instructions without finishing the program [S0101]
BEGIN { \$i = 0; while (\$i < 100000000) { \$i++; } exit(); }
                                         ^~~~
note: sonde --explain S0101 tells more
note: the kernel said: BPF program is too large. Processed 1000001 insn
note: -v shows the verifier's whole log
rc=1" "$out"
	out=$("$SONDE" --dry-run -e 'tracepoint:syscalls:sys_enter_openat { $i = 0; while ($i < 10000) { @[$i] = count(); $i++; } }' 2>&1 | head -3)
	expect_eq errors:loop_map_located "stdin:1:69: error: the kernel's verifier refused the program for tracepoint:syscalls:sys_enter_openat: the verifier cannot prove that this loop ends within its limits [S0102]
tracepoint:syscalls:sys_enter_openat { \$i = 0; while (\$i < 10000) { @[\$i] = count(); \$i++; } }
                                                                    ^~~~~" "$out"
	out=$("$SONDE" --dry-run -e 'tracepoint:syscalls:sys_enter_read { $i = 0; while ($i < args->count) { $i++; } }' 2>&1)
	expect_match errors:loop_unknown_bound_located '^stdin:1:46: error: .*cannot prove that this loop ends.* \[S0102\]$' "$out"
	expect_match errors:loop_unknown_bound_verdict '^note: the kernel said: The sequence of 8193 jumps is too complex' "$out"
	# the raw log only under -v
	case "$out" in *"goto pc"*) fail errors:raw_log_hidden ;; *) pass errors:raw_log_hidden ;; esac
	out=$("$SONDE" -v --dry-run -e 'tracepoint:syscalls:sys_enter_read { $i = 0; while ($i < args->count) { $i++; } }' 2>&1)
	expect_match errors:raw_log_under_v 'goto pc' "$out"

	# -- #19 item 17: an LLVM fatal error is a located error, not SIGABRT ----
	out=$("$SONDE" --dry-run -e 'BEGIN{unroll(100){unroll(19){printf("");}}}' 2>&1; echo "rc=$?")
	expect_eq errors:llvm_fatal_located "stdin:1:1: error: the program for BEGIN is too large for BPF: LLVM cannot emit it (Branch target out of insn range) [S0109]
BEGIN{unroll(100){unroll(19){printf(\"\");}}}
^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~" "$(printf '%s\n' "$out" | head -3)"
	expect_match errors:llvm_fatal_rc1 '^rc=1$' "$out"
fi

# -- refused before the kernel: sema knows ----------------------------------
out=$("$SONDE" --dry-run -e 'BEGIN { unroll(100) { unroll(100) { unroll(100) { @x = @x + 1; } } } }' 2>&1; echo "rc=$?")
expect_eq errors:unroll_arithmetic "stdin:1:9: error: unroll(100) of 10000 statements (its body, unrolled) makes 1000000 statements, each at least one BPF instruction besides the program's own: past the 1000000 a BPF program may hold [S0109]
BEGIN { unroll(100) { unroll(100) { unroll(100) { @x = @x + 1; } } } }
        ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
note: The program for this probe has more instructions than BPF allows.
note: sonde --explain S0109 tells more
rc=1" "$out"
out=$("$SONDE" --dry-run -e 'BEGIN { printf("%d\n", 7 % (2 - 2)); }' 2>&1 | head -1)
expect_eq errors:modulo_by_zero "stdin:1:29: error: modulo by zero: the divisor is zero [S0108]" "$out"
out=$("$SONDE" --dry-run -e 'tracepoint:syscalls:sys_enter_opnat { }' 2>&1 | head -1)
expect_eq errors:tracepoint_nearest "stdin:1:1: error: tracepoint 'syscalls:sys_enter_opnat' not found; did you mean 'syscalls:sys_enter_openat'? [S0202]" "$out"
if need_root errors:stripped; then
	out=$("$SONDE" --dry-run -e 'uprobe:/bin/true:main { }' 2>&1; echo "rc=$?")
	expect_eq errors:uprobe_stripped "sonde: uprobe:/bin/true:main: symbol 'main' not found in /bin/true: the binary has no symbol table, so its functions cannot be found by name (stripped: only its exported symbols remain); install its debug symbols, or give the address (uprobe:/bin/true:0xADDR from objdump -d) [S0203]
note: sonde --explain S0203 tells more
rc=1" "$out"
fi

# -- --emit asm / ir: each run of code headed by its script line ------------
printf 'BEGIN {\n  @x = 1;\n  printf("hi %%d\\n", @x);\n}\n' > "$B/errors_emit.bt"
out=$("$SONDE" --emit asm "$B/errors_emit.bt" 2>&1)
expect_match errors:emit_asm_source_line $'^\t; 2: @x = 1;$' "$out"
expect_match errors:emit_asm_printf_line $'^\t; 3: printf\\("hi %d\\\\n", @x\\);$' "$out"
# the line comes before its instructions: the map update follows line 2's head
expect_eq errors:emit_asm_order "r1 = m0_x ll" "$(printf '%s\n' "$out" | grep -A1 $'^\t; 2: @x = 1;$' | grep -v '^\t;' | grep -m1 -o 'r1 = m0_x ll')"
if printf '%s\n' "$out" | grep -Eq $'^\t\\.loc|^\\.Ltmp[0-9]+:'; then fail errors:emit_asm_no_directives; else pass errors:emit_asm_no_directives; fi
out=$("$SONDE" --emit ir "$B/errors_emit.bt" 2>&1)
expect_match errors:emit_ir_source_line '^  ; 3: printf\("hi %d\\n", @x\);$' "$out"
expect_match errors:emit_ir_still_ir '^define i32 @BEGIN_p0_0' "$out"

# -- a raw tracepoint's argument past those it passes: sema, from BTF -------
out=$("$SONDE" --dry-run -e 'rawtracepoint:sys_enter { @ = arg5; }' 2>&1; echo "rc=$?")
expect_eq errors:rawtp_arg_past_args "stdin:1:31: error: arg5: raw tracepoint 'sys_enter' passes 2 arguments (arg0 to arg1): the program reads memory the kernel does not let it read directly [S0105]
rawtracepoint:sys_enter { @ = arg5; }
                              ^~~~
note: sonde --explain S0105 tells more
rc=1" "$out"

# -- privileges (S0110): what is missing, in one sentence --------------------
if need_root errors:caps; then
	out=$(setpriv --inh-caps=-all --bounding-set=-all "$SONDE" --dry-run -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
	expect_eq errors:root_without_caps "sonde: loading BPF programs needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): this process runs as root without them (a container or a capability bounding set took them away) [S0110]
note: This process may not load BPF programs.
note: sonde --explain S0110 tells more
rc=1" "$out"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$SONDE" --dry-run -e 'BEGIN { exit(); }' 2>&1 | head -1)
	expect_match errors:not_root '^sonde: loading BPF programs needs root \(or CAP_BPF and CAP_PERFMON\): run sonde as root.* \[S0110\]$' "$out"
fi
