# t_parity.sh - issue 9: probe forms, builtins and flags bpftrace users reach
# for.  hardware: probes (or the one-sentence error without a PMU), uprobes
# at func+OFFSET and absolute addresses checked against instruction
# boundaries, partial attach with per-symbol warnings and the moved-symbol
# hint, `sonde -`, --info, -k/-kk, -l without a probe type, -p validation,
# the BPFTRACE_* settings, did-you-mean errors and valid JSON.  Expected
# texts were checked against bpftrace 0.17 where it runs the script
# (tests/diff/cases/32x-33x hold the side-by-side ones).

# -- command line without BPF ---------------------------------------------
out=$("$SONDE" -p abc -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
expect_eq parity:pid_not_numeric $'sonde: -p: \'abc\' is not a process id (a positive number)\nrc=1' "$out"
out=$("$SONDE" -p 99999999999 -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
expect_eq parity:pid_out_of_range "sonde: -p: 99999999999 is out of range (process ids are 1 to $(cat /proc/sys/kernel/pid_max) here)
rc=1" "$out"
# a pid below pid_max that no process has (from the top: new processes,
# sonde itself included, take low free numbers first)
dead=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while kill -0 "$dead" 2>/dev/null; do dead=$((dead - 1)); done
out=$(timeout 10 "$SONDE" -p "$dead" "$top/scripts/runqlat.sonde" 2>&1; echo "rc=$?")
expect_eq parity:pid_not_running "sonde: -p: no process $dead is running
rc=1" "$out"

out=$(printf 'BEGIN { printf("from stdin\\n"); exit(); }\n' | "$SONDE" -q - 2>&1; echo "rc=$?")
expect_eq parity:script_from_stdin $'from stdin\n\n\nrc=0' "$out"
out=$(printf 'BEGIN { prnt("x"); }\n' | "$SONDE" - 2>&1 | head -1)
expect_eq parity:stdin_errors_named 'stdin:1:9: error: unknown function '"'prnt'"'; did you mean '"'print'"'?' "$out"

# options after the script's name are options, as with bpftrace (GNU
# getopt); after "--" everything is a positional parameter
pos_bt=$(mktemp --suffix=.bt)
printf 'BEGIN { printf("%%d %%s|", $#, str($1)); exit(); }\n' > "$pos_bt"
out=$("$SONDE" "$pos_bt" foo -q 2>&1; echo "rc=$?")
expect_eq parity:options_after_script $'1 foo|\n\nrc=0' "$out"
out=$("$SONDE" -q "$pos_bt" -- -q 2>&1; echo "rc=$?")
expect_eq parity:dashdash_positional $'1 -q|\n\nrc=0' "$out"
out=$(timeout 10 "$SONDE" -q -e 'tracepoint:syscalls:sys_enter_kill /pid == cpid/ { printf("kill %d|", args->sig); }' -c "/bin/kill -0 1" 2>&1; echo "rc=$?")
expect_eq parity:c_after_program $'kill 0|\n\nrc=0' "$out"
rm -f "$pos_bt"

# delete(@m, key), the form newer bpftrace tools (killsnoop, statsnoop) use
out=$("$SONDE" -q -e 'BEGIN { @a[1, 2] = 3; @a[3, 4] = 5; delete(@a, (1, 2)); @b[7] = 1; @b[8] = 2; delete(@b, 7); exit(); }' 2>&1; echo "rc=$?")
expect_eq parity:delete_map_key $'\n\n@a[3, 4]: 5\n@b[8]: 2\nrc=0' "$out"

# has_key() and exit(N) of newer bpftrace (its runtime tests' cases)
out=$("$SONDE" -q -e 'config = { print_maps_on_exit = false } BEGIN { @a[1] = 0; @b[1, "x"] = 1; @g = 2; @c[2] = 0; print((has_key(@a, 1), has_key(@a, 2), has_key(@b, (1, "x")), has_key(@c, @g))); exit(); }' 2>&1; echo "rc=$?")
expect_eq parity:has_key $'(true, false, true, true)\nrc=0' "$out"
out=$("$SONDE" -q -e 'i:ms:10 { @n++; if (@n == 3) { exit(@n + 66); } }' 2>&1; echo "rc=$?")
expect_eq parity:exit_status $'\n\n@n: 3\nrc=69' "$out"

# an aggregation read in an expression folds every CPU's slot (newer
# bpftrace; 0.17 refuses the read): 1000 calls on each CPU read as 2000,
# not as one CPU's 1000
# par_loop: syscall_loop copied as $B/par_loop, whose getppid calls the
# programs below count by comm: other e2e files run syscall_loop beside this one
par_loop() {
	build_workload syscall_loop && cp -f "$B/syscall_loop" "$B/par_loop"
}
if need_root parity:agg_read_all_cpus; then
	par_loop
	out=$("$SONDE" -q -e 'config = { print_maps_on_exit = false }
		tracepoint:syscalls:sys_enter_getppid /comm == "par_loop"/ { @n = count(); @s = sum(2); @mx = max(cpu); @mn = min(cpu); @a = avg(cpu * 10); }
		END { printf("read: %d %d %d %d %d\n", @n, @s, @mx, @mn, @a); }' \
		-c "$(sh_script par_two_cpus "taskset -c 0 $B/par_loop 1000 >/dev/null & taskset -c 1 $B/par_loop 1000 >/dev/null; wait")" 2>&1)
	expect_eq parity:agg_read_all_cpus 'read: 2000 4000 1 0 5' "$out"
fi

# setuids.bt's way (args.field, delete(@m, key), uid_t values through
# maps): a 32-bit -1 prints as -1 with %d, as C's int and bpftrace do
if need_root parity:uid_minus_one; then
	build_workload sysargs
	out=$("$SONDE" -q -c "$B/sysargs 2" -e 'tracepoint:syscalls:sys_enter_setresuid /pid == cpid/ { @ruid[tid] = args.ruid; @euid[tid] = args.euid; @seen[tid] = 1; }
		tracepoint:syscalls:sys_exit_setresuid /@seen[tid]/ { printf("ruid=%d euid=%d (%d) %u\n", @ruid[tid], @euid[tid], args.ret, @ruid[tid]); delete(@seen, tid); delete(@ruid, tid); delete(@euid, tid); }' 2>&1)
	expect_eq parity:uid_minus_one $'ruid=-1 euid=0 (0) 4294967295\nruid=-1 euid=0 (0) 4294967295' "$out"
fi

# a positional parameter past INT64_MAX keeps all 64 bits, as newer bpftrace
# (0.17 refuses 0xffffffffffffffff)
out=$("$SONDE" -q -e 'BEGIN { printf("%lu %d\n", $1, $2); exit(); }' -- 0xffffffffffffffff -5 2>&1; echo "rc=$?")
expect_eq parity:positional_u64 $'18446744073709551615 -5\n\n\nrc=0' "$out"

# str(s, n) of a string cuts it to n bytes, as str(ptr, n) reads n bytes
# (bpftrace 0.17 refuses a string; newer versions take it)
out=$("$SONDE" -q -e 'BEGIN { $s = str("hello", 3); @m = str("hello", 2); printf("%s|%s|%s\n", $s, str("hello", 1), str("hi", 10)); exit(); }' 2>&1; echo "rc=$?")
expect_eq parity:str_of_string_cut $'hel|h|hi\n\n\n@m: he\nrc=0' "$out"

# newer bpftrace's config block: names as in bpftrace, the environment wins,
# missing_probes decides about a uprobe that is not there
# the first file /bin/true opens is /etc/ld.so.cache
cfg_first='tracepoint:syscalls:sys_enter_openat /pid == cpid && @n == 0/ { @n = 1; printf("%s|", str(args->filename)); }'
out=$("$SONDE" -q -e "config = { max_strlen = 5; print_maps_on_exit = false } $cfg_first" -c /bin/true 2>&1; echo "rc=$?")
expect_eq parity:config_strlen_maps_off '/etc|rc=0' "$out"
out=$(BPFTRACE_STRLEN=3 "$SONDE" -q -e "config = { BPFTRACE_STRLEN = 5 } $cfg_first" -c /bin/true 2>&1; echo "rc=$?")
expect_eq parity:config_env_wins $'/e|\n\n@n: 1\nrc=0' "$out"
# license: a GPL-compatible one is the programs', another refused
# (bpftrace's tests/runtime/other valid/invalid license)
out=$("$SONDE" -q -e 'config={license="Dual BSD/GPL"} BEGIN { @p[1] = 1; print(len(@p)); clear(@p); exit(); }' 2>&1; echo "rc=$?")
expect_eq parity:config_license_gpl_compatible $'1\nrc=0' "$(echo "$out" | sed '/^$/d')"
out=$("$SONDE" -q -e 'config={license="Potato"} BEGIN { exit(); }' 2>&1 | head -1)
expect_eq parity:config_license_refused "stdin:1:17: error: license: 'Potato' is not a GPL-compatible licence (the BPF helpers need one) (GPL, GPL v2, GPL and additional rights, Dual BSD/GPL, Dual MIT/GPL or Dual MPL/GPL)" "$out"
out=$("$SONDE" -e 'config = { max_strln = 5 } BEGIN { exit(); }' 2>&1 | head -1)
expect_eq parity:config_unknown_name "stdin:1:12: error: unknown config 'max_strln'; did you mean 'max_strlen'?" "$out"
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
for policy in warn ignore error; do
	out=$("$SONDE" --dry-run -e "config = { missing_probes = $policy } uprobe:libc:no_such_function_xyz, uprobe:libc:getppid { @ = count(); }" 2>&1; echo "rc=$?")
	case $policy in
	warn) want="sonde: warning: uprobe:libc:no_such_function_xyz: symbol 'no_such_function_xyz' not found in $libc: not attached
sonde: dry run: 1 probe loaded and attached
rc=0" ;;
	ignore) want=$'sonde: dry run: 1 probe loaded and attached\nrc=0' ;;
	error) want="sonde: uprobe:libc:no_such_function_xyz: symbol 'no_such_function_xyz' not found in $libc
rc=1" ;;
	esac
	expect_eq "parity:config_missing_probes_$policy" "$want" "$out"
done
# every probe left out: nothing could fire, so no run that waits for
# Ctrl-C (bpftrace's probe.all_missing_probes_ignore: "No probes to attach")
out=$(timeout 60 "$SONDE" -e "config = { missing_probes = ignore } uprobe:libc:no_such_function_xyz { @ = count(); } tracepoint:syscalls:sys_enter_no_such_xyz { }" 2>&1; echo "rc=$?")
expect_eq parity:config_missing_probes_all "sonde: no probes to attach: every probe of the script was left out (missing_probes) or found nothing to attach to
rc=1" "$out"

# -- settings: bad values are one error at startup ------------------------
out=$(BPFTRACE_STRLEN=abc "$SONDE" -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
expect_eq parity:setting_bad_number $'sonde: BPFTRACE_STRLEN: \'abc\' is not a number from 1 to 32768\nrc=1' "$out"
out=$(SONDE_STACK_MODE=fancy "$SONDE" -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
expect_eq parity:setting_bad_word $'sonde: SONDE_STACK_MODE: \'fancy\' is not a stack mode (bpftrace, perf or raw)\nrc=1' "$out"

# -- -l: every probe type searched; hardware listed; no match said --------
out=$("$SONDE" -l 'sys_enter_openat' 2>&1; echo "rc=$?")
expect_eq parity:list_untyped_tracepoint $'tracepoint:syscalls:sys_enter_openat\nrc=0' "$out"
out=$("$SONDE" -l '*cpu-clock*' 2>&1; echo "rc=$?")
expect_eq parity:list_untyped_software $'software:cpu-clock:\nrc=0' "$out"
out=$("$SONDE" -l 'hardware:*' 2>&1)
expect_eq parity:list_hardware 'hardware:backend-stalls:
hardware:branch-instructions:
hardware:branch-misses:
hardware:branches:
hardware:bus-cycles:
hardware:cache-misses:
hardware:cache-references:
hardware:cpu-cycles:
hardware:cycles:
hardware:frontend-stalls:
hardware:instructions:
hardware:ref-cycles:' "$out"
out=$("$SONDE" -l '*cache-miss*' 2>&1)
expect_eq parity:list_untyped_hardware 'hardware:cache-misses:' "$out"
out=$("$SONDE" -l 'no_such_probe_xyz' 2>&1 >/dev/null; echo "rc=$?")
expect_eq parity:list_no_match $'sonde: no probe matches \'no_such_probe_xyz\'\nrc=1' "$out"

if need_root parity:bpf; then
build_workload parity
P=$B/parity

# -- --info: asked of the kernel through libbpf ---------------------------
out=$("$SONDE" --info 2>&1)
expect_match parity:info_helpers '^  probe_read_user: yes$' "$out"
expect_match parity:info_maps '^  ringbuf: yes$' "$out"
expect_match parity:info_build '^  LLVM: 16\.' "$out"
expect_match parity:info_settings '^  STRLEN: 64$' "$out"

# -- hardware: counts with a PMU, one sentence without --------------------
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	out=$("$SONDE" -q -c "$P 200000" -e 'hardware:instructions:100000 /pid == cpid/ { @ = count(); }' 2>&1)
	expect_match parity:hardware_counts '^@: [1-9][0-9]*$' "$out"
else
	out=$("$SONDE" -e 'hardware:cycles:1000000 { @ = count(); }' 2>&1; echo "rc=$?")
	expect_eq parity:hardware_no_pmu "sonde: hardware:cycles:1000000: this machine has no hardware performance counters (no PMU: virtual machines often have none); software:cpu-clock or profile:hz:N sample without one
rc=1" "$out"
fi

# -- uprobes at func+OFFSET and absolute addresses ------------------------
hop=$(nm "$P" | awk '$3 == "hop" { print $1 }')
out=$("$SONDE" -q -c "$P 5" -e "uprobe:$P:hop+1 { @a = count(); } uprobe:$P:hop+6 { @b = count(); }" 2>&1)
expect_eq parity:uprobe_func_offset $'\n\n@a: 5\n@b: 5' "$out"
out=$("$SONDE" -q -c "$P 5" -e "uprobe:$P:0x$(printf %x $((0x$hop + 1))) { @ = count(); }" 2>&1)
expect_eq parity:uprobe_absolute_address $'\n\n@: 5' "$out"
out=$("$SONDE" -e "uprobe:$P:hop+2 { @ = count(); }" 2>&1; echo "rc=$?")
expect_eq parity:uprobe_offset_inside_insn "sonde: uprobe:$P:hop+2: offset +2 is inside the instruction at +1 (mov eax, 7, 5 bytes); the nearest instruction boundaries are +1 and +6
rc=1" "$out"
out=$("$SONDE" -e "uprobe:$P:0x$(printf %x $((0x$hop + 3))) { @ = count(); }" 2>&1; echo "rc=$?")
expect_eq parity:uprobe_address_inside_insn "sonde: uprobe:$P:0x$(printf %x $((0x$hop + 3))): hop+3: offset +3 is inside the instruction at +1 (mov eax, 7, 5 bytes); the nearest instruction boundaries are +1 and +6
rc=1" "$out"
out=$("$SONDE" -e "uprobe:$P:hop+100 { @ = count(); }" 2>&1; echo "rc=$?")
expect_eq parity:uprobe_offset_past_end "sonde: uprobe:$P:hop+100: offset +100 is past the end of the function (7 bytes)
rc=1" "$out"

# -- partial attach: warn per missing symbol, attach the rest ------------
out=$("$SONDE" -c "$P 3" -e "uprobe:$P:no_such_fn, uprobe:$P:errfn, uprobe:$P:nor_this { @ = count(); }" 2>&1)
expect_eq parity:partial_attach "sonde: warning: uprobe:$P:no_such_fn: symbol 'no_such_fn' not found in $P: not attached
sonde: warning: uprobe:$P:nor_this: symbol 'nor_this' not found in $P: not attached
Attached 1 probe


@: 3" "$out"
out=$("$SONDE" -e "uprobe:$P:no_such_fn, uprobe:$P:nor_this { @ = count(); }" 2>&1; echo "rc=$?")
expect_eq parity:partial_attach_nothing_left "sonde: uprobe:$P:no_such_fn: symbol 'no_such_fn' not found in $P
rc=1" "$out"
# glibc 2.34 moved pthread_create into libc and left a libpthread that needs
# libc (DT_NEEDED): the probe lands in libc, as the dynamic linker resolves
# the name, and counts threads_loop's 3 threads (issue 19); -v says where
build_workload threads_loop
libpthread=$(ls /lib/x86_64-linux-gnu/libpthread.so.0 /usr/lib/x86_64-linux-gnu/libpthread.so.0 2>/dev/null | head -1)
if [ -n "$libpthread" ] && ! nm -D "$libpthread" 2>/dev/null | grep -q ' T pthread_create'; then
	for t in "$libpthread" libpthread; do
		out=$("$SONDE" -q -c "$B/threads_loop 3 1" -e "uprobe:$t:pthread_create /pid == cpid/ { @ = count(); }" 2>&1; echo "rc=$?")
		expect_eq "parity:moved_symbol_needed_${t##*/}" "@: 3
rc=0" "$(printf '%s\n' "$out" | grep -v '^$')"
	done
	out=$("$SONDE" -v --dry-run -e "uprobe:$libpthread:pthread_create { @ = count(); }" 2>&1)
	expect_match parity:moved_symbol_verbose "^sonde: 'pthread_create' is not in $libpthread: probing it in /.*/libc\.so\.6, which that file needs \(DT_NEEDED\)" "$out"
	out=$("$SONDE" -e "uprobe:$libpthread:pthread_nope { @ = count(); }" 2>&1; echo "rc=$?")
	expect_eq parity:moved_symbol_none "sonde: uprobe:$libpthread:pthread_nope: symbol 'pthread_nope' not found in $libpthread
rc=1" "$out"
else
	skip parity:moved_symbol_needed "this glibc's libpthread still defines pthread_create (before 2.34)"
fi

# -- -k / -kk: helper failures as warnings (-k checks memory reads too, as
# bpftrace 0.23's -k; -kk is the same); -f json: helper_error records ------
out=$("$SONDE" -q -k -e 'BEGIN { @[1] = 1; delete(@[7]); exit(); }' 2>&1 >/dev/null)
expect_eq parity:k_map_delete 'stdin:1:19: warning: map_delete_elem failed: No such file or directory (-2)
BEGIN { @[1] = 1; delete(@[7]); exit(); }
                  ^~~~~~~~~~~~' "$out"
for k in -k -kk; do
	out=$("$SONDE" -q $k -e 'BEGIN { printf("%s|\n", str(16)); exit(); }' 2>&1 >/dev/null)
	expect_eq parity:k_probe_read$k 'stdin:1:25: warning: probe_read_str failed: Bad address (-14)
BEGIN { printf("%s|\n", str(16)); exit(); }
                        ^~~~~~~' "$out"
done
out=$("$SONDE" -q -k -f json -e 'BEGIN { printf("%s|\n", str(16)); exit(); }' 2>&1 | head -1)
expect_eq parity:k_json_helper_error '{"type": "helper_error", "msg": "Bad address", "helper": "probe_read_str", "retcode": -14, "line": 1, "col": 25}' "$out"
out=$("$SONDE" -q -e 'BEGIN { @[1] = 1; delete(@[7]); exit(); }' 2>&1)
expect_eq parity:no_k_silent $'\n\n@[1]: 1' "$out"
# a read of an absent key: 0, and under -k a warning at the map (the
# newest bpftrace's other.runtime_error_check_lookup), in text and JSON
k_lookup='i:ms:100 { @[1] = 1; printf("%d\n", @[2]); exit(); }'
out=$("$SONDE" -q -k -e "$k_lookup" 2>&1 >/dev/null)
expect_eq parity:k_map_lookup_absent "stdin:1:37: warning: map_lookup_elem failed: map '@' has no such key (the read gives 0)
$k_lookup
                                    ^~~~" "$out"
out=$("$SONDE" -q -k -f json -e "$k_lookup" 2>&1)
expect_eq parity:k_json_map_lookup_absent '{"type": "helper_error", "msg": "Can'"'"'t lookup map element because it does not exist.", "helper": "map_lookup_elem", "retcode": 0, "line": 1, "col": 37}
{"type": "printf", "data": "0\n"}
{"type": "map", "data": {"@": {"1": 1}}}' "$out"
out=$("$SONDE" -q -e "$k_lookup" 2>&1 >/dev/null)
expect_eq parity:no_k_lookup_silent "" "$out"
# the lookups of updates create their key, and reads of present keys find
# it: nothing to warn about
out=$("$SONDE" -q -k -e 'i:ms:10 { @c = count(); @n++; @s += 2; @m[1]++; @m[2] -= 1; @v = 5; $a = @v + @m[1];
  @h = hist(3); @t = sum(4); @mx = max(3); @st[pid] = 1; if (@v > 1 && @st[pid] == 1 && @c == 1) { @ok = 1 } exit(); }' 2>&1)
expect_eq parity:k_updates_quiet "0 warnings|@ok: 1" "$(printf '%s\n' "$out" | grep -c 'warning') warnings|$(printf '%s\n' "$out" | grep '^@ok')"
# an increment used as a value: atomic fetch-and-add, or (a kernel before
# 5.12, as SONDE_NO_FEATURES makes this one look) a load and a store
if need_root parity:increment_as_value; then
	par_loop
	for f in none atomic_fetch; do
		out=$(SONDE_NO_FEATURES=$f "$SONDE" -q -e 'tracepoint:syscalls:sys_enter_getppid /comm == "par_loop"/ { if (@n++ >= 60) { @over = count(); } }' \
			-c "$B/par_loop 100" 2>&1 | sed '/^[0-9][0-9.]*$/d')
		expect_eq parity:increment_as_value_$f $'\n\n@n: 100\n@over: 40' "$out"
	done
fi
# a stack seen again is an insert that finds its key (BPF_NOEXIST), which
# is how the stack table works, not a helper failure: -k stays quiet
if need_root parity:k_stack_repeat_quiet; then
	par_loop
	out=$("$SONDE" -q -k -e 'tracepoint:syscalls:sys_enter_getppid /comm == "par_loop"/ { @[ustack] = count(); }' \
		-c "$B/par_loop 50" 2>&1 >/dev/null)
	expect_eq parity:k_stack_repeat_quiet '' "$out"
fi

# -- settings that change what runs ----------------------------------------
out=$(BPFTRACE_STRLEN=6 "$SONDE" -q -c "$P 1" -e "uprobe:$P:name { printf(\"%s|\n\", str(arg0)); }" 2>&1)
expect_eq parity:strlen_bpftrace_name $'caf\xc3\xa9|' "$out"
out=$(SONDE_STRLEN=4 BPFTRACE_STRLEN=6 "$SONDE" -q -c "$P 1" -e "uprobe:$P:name { printf(\"%s|\n\", str(arg0)); }" 2>&1)
expect_eq parity:strlen_sonde_name_wins 'caf|' "$out"
printf '0123456789abcdef' > "$B/cat.txt"
out=$(BPFTRACE_CAT_BYTES_MAX=5 "$SONDE" -q -e "BEGIN { cat(\"$B/cat.txt\"); printf(\"|\n\"); exit(); }" 2>&1)
expect_eq parity:cat_bytes_max '01234|' "$out"
out=$("$SONDE" -q -e 'BEGIN { cat("/no/such/file"); printf("after\n"); exit(); }' 2>&1)
expect_eq parity:cat_missing_warns $'sonde: warning: cat: failed to open file \'/no/such/file\': No such file or directory\nafter' "$out"
out=$(BPFTRACE_MAX_PROBES=2 "$SONDE" -e 'tracepoint:syscalls:sys_enter_read* { }' 2>&1; echo "rc=$?")
expect_match parity:max_probes '^sonde: the script has [0-9]+ attach points, more than BPFTRACE_MAX_PROBES \(2\) allows$' "$out"
out=$(BPFTRACE_STACK_MODE=raw "$SONDE" -q -c "$P 1" -e "uprobe:$P:hop { printf(\"%s\", ustack(1)); }" 2>&1)
expect_match parity:stack_mode_raw '^[0-9a-f]+$' "$out"

# -- did you mean: probe types, tracepoints, fields -----------------------
out=$("$SONDE" -e 'tracepont:syscalls:sys_enter_openat { exit(); }' 2>&1 | head -1)
expect_eq parity:dym_probe_type "stdin:1:1: error: unknown probe type 'tracepont'; did you mean 'tracepoint'?" "$out"
out=$("$SONDE" -e 'tracepoint:syscals:sys_enter_openat { exit(); }' 2>&1 | head -1)
expect_eq parity:dym_tracepoint_category "stdin:1:1: error: tracepoint 'syscals:sys_enter_openat' not found; did you mean 'syscalls:sys_enter_openat'? [S0202]" "$out"
out=$("$SONDE" -e 'tracepoint:syscalls:sys_enter_opnat { exit(); }' 2>&1 | head -1)
expect_eq parity:dym_tracepoint_name "stdin:1:1: error: tracepoint 'syscalls:sys_enter_opnat' not found; did you mean 'syscalls:sys_enter_openat'? [S0202]" "$out"
out=$("$SONDE" -e 'tracepoint:syscalls:sys_enter_openat { @[str(args->filenme)] = count(); }' 2>&1)
expect_eq parity:dym_field "stdin:1:46: error: tracepoint syscalls:sys_enter_openat has no field 'filenme'; did you mean 'filename'?
tracepoint:syscalls:sys_enter_openat { @[str(args->filenme)] = count(); }
                                             ^~~~~~~~~~~~~" "$out"

# -- JSON: tuples, join with a delimiter, print() values: always valid -----
out=$("$SONDE" -q -f json -c "$P 1" -e "uprobe:$P:name { print((1, \"a\\\"b\", buf(arg0, 5))); print(macaddr(arg0)); print(strerror(2)); @t[1, \"x\"] = (3, \"y\"); @u = (macaddr(arg0), strerror(1)); }
tracepoint:syscalls:sys_enter_execve /pid == cpid/ { join(args->argv, \"-\"); }" 2>&1)
if printf '%s\n' "$out" | python3 -c 'import json,sys
for l in sys.stdin:
    json.loads(l)' 2>/dev/null; then pass parity:json_valid; else fail parity:json_valid; printf '%s\n' "$out" | sed 's/^/    /'; fi
expect_eq parity:json_values '{"type": "join", "data": "'"$P"'-1"}
{"type": "value", "data": [1,"a\"b","caf\\xc3\\xa9"]}
{"type": "value", "data": "63:61:66:C3:A9:01"}
{"type": "value", "data": "No such file or directory"}
{"type": "map", "data": {"@t": {"1,x": [3,"y"]}}}
{"type": "map", "data": {"@u": ["63:61:66:C3:A9:01","Operation not permitted"]}}' "$out"

fi	# need_root
