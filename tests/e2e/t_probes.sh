# t_probes.sh - issue #21's probe forms and flags: rawtracepoint args typed
# from BTF, wildcards and -l/-lv for rawtracepoints, self:signal:SIGUSR1,
# -l with paths as written, file wildcards and -p, --include and -I,
# --usdt-file-activation, "*" as the file of uprobe and usdt with -p.
# Expected texts follow the newest bpftrace's reference guide where 0.17
# lacks the feature (tests/diff has the 0.17 differentials).

if need_root probes:bpf; then

build_workload ioctl_loop
IO=$B/ioctl_loop

# -- rawtracepoint ------------------------------------------------------------
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	for c in rawtp_list rawtp_list_verbose rawtp_args_id rawtp_args_ptr rawtp_wildcard \
		rawtp_list_program rawtp_missing rawtp_module_missing rawtp_no_arg; do
		skip "probes:$c" "no /sys/kernel/btf/vmlinux: raw tracepoint arguments come from BTF"
	done
else
	out=$("$SONDE" -l 'rawtracepoint:sys_e*' 2>&1)
	expect_eq probes:rawtp_list "$(printf 'rawtracepoint:vmlinux:sys_enter\nrawtracepoint:vmlinux:sys_exit')" "$out"
	# the arguments as bpftrace -lv prints them (the probe's void * left out)
	out=$("$SONDE" -lv 'rt:vmlinux:sys_enter' 2>&1)
	expect_eq probes:rawtp_list_verbose "$(printf 'rawtracepoint:vmlinux:sys_enter\n    struct pt_regs * regs\n    long int id')" "$out"
	# args.id is arg1, typed; 40 ioctl(2) calls (16 on x86-64)
	out=$("$SONDE" -q -c "$IO 40" -e 'rawtracepoint:sys_enter /pid == cpid && args.id == 16/ { @n = count(); @same[args.id == arg1] = count(); }' 2>&1)
	expect_eq probes:rawtp_args_id "$(printf '\n\n@n: 40\n@same[1]: 40')" "$out"
	# a typed pointer argument: args.regs->si is ioctl's second argument
	out=$("$SONDE" -q -c "$IO 3 0x1234" -e 'rawtracepoint:sys_enter /pid == cpid && args.id == 16/ { @cmd[args.regs->si] = count(); }' 2>&1)
	expect_eq probes:rawtp_args_ptr "$(printf '\n\n@cmd[4660]: 3')" "$out"
	# a wildcard: one attach point per match, named rawtracepoint:MODULE:NAME
	out=$("$SONDE" -q -c "$IO 1" -e 'rawtracepoint:sys_e* /pid == cpid/ { @[probe] = 1; }' 2>&1)
	expect_eq probes:rawtp_wildcard "$(printf '\n\n@[rawtracepoint:vmlinux:sys_enter]: 1\n@[rawtracepoint:vmlinux:sys_exit]: 1')" "$out"
	# -l -e: the program's probes, wildcards expanded (a wildcard beside
	# other attach points may match nothing)
	out=$("$SONDE" -l -e 'rt:sys_e*, rawtracepoint:nonsense_* { }' 2>&1)
	expect_eq probes:rawtp_list_program "$(printf 'rawtracepoint:vmlinux:sys_enter\nrawtracepoint:vmlinux:sys_exit')" "$out"
	# one name in another argument slot (bprm: 2nd of sched_prepare_exec,
	# 3rd of sched_process_exec): a program per attach point
	if "$SONDE" -l 'rawtracepoint:sched_prepare_exec' >/dev/null 2>&1; then
		out=$("$SONDE" -q -c "$IO 1" -e 'rawtracepoint:sched_prepare_exec, rawtracepoint:sched_process_exec /pid == cpid/ { @[probe, str(args.bprm->filename)] = count(); }' 2>&1)
		expect_eq probes:rawtp_args_slots "$(printf '\n\n@[rawtracepoint:vmlinux:sched_prepare_exec, %s]: 1\n@[rawtracepoint:vmlinux:sched_process_exec, %s]: 1' "$IO" "$IO")" "$out"
	else
		skip probes:rawtp_args_slots "no raw tracepoint sched_prepare_exec (Linux 6.10 on)"
	fi
	out=$("$SONDE" --dry-run -e 'rawtracepoint:nonsense { }' 2>&1; echo "rc=$?")
	expect_match probes:rawtp_missing "error: no raw tracepoint 'nonsense' .*rc=1" "$(echo $out)"
	out=$("$SONDE" --dry-run -e 'rawtracepoint:nonsense:sys_exit { }' 2>&1; echo "rc=$?")
	expect_match probes:rawtp_module_missing "no BTF for module 'nonsense'.*rc=1" "$(echo $out)"
	out=$("$SONDE" --dry-run -e 'rawtracepoint:sys_enter { @ = args.nope; }' 2>&1; echo "rc=$?")
	expect_match probes:rawtp_no_arg "rawtracepoint:vmlinux:sys_enter has no argument 'nope'.*rc=1" "$(echo $out)"
fi

# -- self:signal:SIGUSR1 --------------------------------------------------------
# the probe runs in sonde's own process each time it gets SIGUSR1 (pid is
# sonde's), and replaces 0.17's map dump
f=$B/probes_self.out
rm -f "$f"	# wait_for must not find the last run's "ready" (a SIGUSR1 then kills sonde)
"$SONDE" -e 'BEGIN { @me = pid; printf("ready\n"); } self:signal:SIGUSR1 { @n++; printf("%s %d %d\n", probe, @n, pid == @me); if (@n == 2) { exit(); } }' > "$f" 2>&1 &
sp=$!
if wait_for "$f" '^ready'; then
	kill -USR1 $sp
	wait_for "$f" 'SIGUSR1 1 1' 10
	kill -USR1 $sp
fi
wait $sp
expect_eq probes:self_signal "$(printf 'Attached 2 probes\nready\nself:signal:SIGUSR1 1 1\nself:signal:SIGUSR1 2 1\n\n\n@me: %s\n@n: 2' "$sp")" "$(cat "$f")"
out=$("$SONDE" -e 'self:signal:sighup { }' 2>&1; echo "rc=$?")
expect_match probes:self_bad_signal "sighup is not a supported signal.*rc=1" "$(echo $out)"
out=$("$SONDE" -e 'self:keypress:space { }' 2>&1; echo "rc=$?")
expect_match probes:self_bad_trigger "keypress is not a supported trigger.*rc=1" "$(echo $out)"

# -- -l: paths as written, wildcards in the file part, -l FILE -----------------
build_workload work
ld=$B/probes_list
rm -rf "$ld" && mkdir -p "$ld/testprogs" && cp "$B/work" "$ld/testprogs/work_a" && cp "$B/work" "$ld/testprogs/work_b"
printf 'uprobe:./testprogs/work_a:work, tracepoint:sched:sched_switch { }\n' > "$ld/prog.bt"
out=$(cd "$ld" && "$SONDE" -l 'uprobe:./testprogs/work_a:wo*' 2>&1)
expect_eq probes:list_relative_path "uprobe:./testprogs/work_a:work" "$out"
out=$(cd "$ld" && "$SONDE" -l 'uretprobe:./testprogs/work_*:work' 2>&1)
expect_eq probes:list_file_wildcard "$(printf 'uretprobe:./testprogs/work_a:work\nuretprobe:./testprogs/work_b:work')" "$out"
# a wildcard probe type: uprobe lists them, uretprobe (the same lister) not again
out=$(cd "$ld" && "$SONDE" -l '*:./testprogs/work_a:work' 2>&1)
expect_eq probes:list_type_wildcard "uprobe:./testprogs/work_a:work" "$out"
out=$(cd "$ld" && "$SONDE" -l prog.bt 2>&1)
expect_eq probes:list_program_file "$(printf 'uprobe:./testprogs/work_a:work\ntracepoint:sched:sched_switch')" "$out"
out=$("$SONDE" -l 'usdt:*' 2>&1; echo "rc=$?")
expect_match probes:list_usdt_star_needs_pid "usdt target '\\*' needs -p PID.*rc=1" "$(echo $out)"
if command -v bpftrace >/dev/null; then
	# the same lines as bpftrace 0.17 (tests/diff has the -p cases)
	expect_eq probes:list_relative_as_bpftrace "$(cd "$ld" && bpftrace -l 'uprobe:./testprogs/work_*:*' 2>/dev/null)" \
		"$(cd "$ld" && "$SONDE" -l 'uprobe:./testprogs/work_*:*' 2>&1)"
else
	skip probes:list_relative_as_bpftrace "no bpftrace to compare with"
fi

# -- -p PID: "*" as the file of uprobe, uretprobe and usdt ----------------------
# every file the process maps, as bpftrace; the process is pid_calls, a copy
# only these checks run, waiting on a fifo so that its calls come after
# "Attached"
build_workload pid_calls
pd=$B/probes_pid
rm -rf "$pd" && mkdir -p "$pd" && cp "$B/pid_calls" "$pd/pid_calls"
PC=$pd/pid_calls
pid_calls_start "$pd"
libc=$(awk '$6 ~ /\/libc[.-]/ { print $6; exit }' "/proc/$wp/maps")
out=$("$SONDE" -l -e 'uretprobe:*:pid_hit_* { exit(); }' -p "$wp" 2>&1)
expect_eq probes:pid_star_list "$(printf 'uretprobe:%s:pid_hit_one\nuretprobe:%s:pid_hit_two' "$PC" "$PC")" "$out"
out=$("$SONDE" -l -e 'uprobe:*:malloc, usdt:*:pidcalls:* { }' -p "$wp" 2>&1)
expect_eq probes:pid_star_list_lib_usdt "$(printf 'uprobe:%s:malloc\nusdt:%s:pidcalls:hit' "$libc" "$PC")" "$out"
# (lines sorted: equal counts print in the order of their keys' text,
# which depends on where the copy lives)
pid_calls_go "$pd/pid_star_count.out" -e 'uprobe:*:pid_hit_*, uretprobe:*:pid_hit_two, uprobe:*:malloc, usdt:*:pidcalls:hit { @[probe] = count(); }'
out=$(LC_ALL=C sort "$pd/pid_star_count.out")
expect_eq probes:pid_star_count "$(printf '\n\nAttached 5 probes\n@[uprobe:%s:pid_hit_one]: 5\n@[uprobe:%s:malloc]: 5\n@[usdt:%s:pidcalls:hit]: 5\n@[uprobe:%s:pid_hit_two]: 10\n@[uretprobe:%s:pid_hit_two]: 10' "$PC" "$libc" "$PC" "$PC" "$PC" | LC_ALL=C sort)" "$out"
# its executable mapped at two addresses is one file: one attach point,
# each call counted once
pid_calls_start "$pd" twice
out=$("$SONDE" -l -e 'uprobe:*:pid_hit_one { }' -p "$wp" 2>&1)
expect_eq probes:pid_star_twice_list "uprobe:$PC:pid_hit_one" "$out"
pid_calls_go "$pd/pid_star_twice.out" -e 'uprobe:*:pid_hit_one, usdt:*:pidcalls:hit { @[probe] = count(); }'
out=$(cat "$pd/pid_star_twice.out")
expect_eq probes:pid_star_twice_count "$(printf 'Attached 2 probes\n\n\n@[uprobe:%s:pid_hit_one]: 5\n@[usdt:%s:pidcalls:hit]: 5' "$PC" "$PC")" "$out"
# a function no mapped file has; a process that has exited (a zombie
# its parent, tests/workloads/zombie, keeps unreaped); usdt:* without -p
pid_calls_start "$pd"
out=$("$SONDE" -p "$wp" -e 'uprobe:*:no_such_fn { }' 2>&1; echo "rc=$?")
expect_match probes:pid_star_none "error: uprobe:\*:no_such_fn in pid $wp: symbol 'no_such_fn' not found in .*rc=1" "$(echo $out)"
echo g >&7; exec 7>&-; wait "$wp"
if zombie_start "$pd" "$PC" 0; then
	out=$("$SONDE" -p "$zp" -e 'uprobe:*:malloc { }' 2>&1; echo "rc=$?")
	expect_match probes:pid_star_exited "pid $zp has exited.*rc=1" "$(echo $out)"
	out=$("$SONDE" -p "$zp" -e 'usdt:*:pidcalls:hit { }' 2>&1; echo "rc=$?")
	expect_match probes:pid_star_usdt_exited "pid $zp maps no file.*rc=1" "$(echo $out)"
else
	fail probes:pid_star_exited; fail probes:pid_star_usdt_exited
fi
zombie_end
out=$("$SONDE" --dry-run -e 'usdt:*:pidcalls:hit { }' 2>&1; echo "rc=$?")
expect_match probes:usdt_star_needs_pid "usdt target '\*' needs -p PID.*rc=1" "$(echo $out)"

fi
