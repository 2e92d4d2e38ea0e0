# t_rawtp.sh - raw tracepoints on each kernel of the matrix: arguments by
# name and type from BTF (__probestub_NAME from 6.4, __traceiter_NAME
# before), -lv's list of them, wildcards into rawtracepoint:MODULE:NAME;
# and self:signal:SIGUSR1, a program sonde runs in its own process.
# Exact counts from tests/workloads/ioctl_loop.c (N ioctl(2) calls, 16).

out=$("$SONDE" -lv 'rawtracepoint:sys_enter' 2>&1)
expect_eq rawtp:list_args "$(printf 'rawtracepoint:vmlinux:sys_enter\n    struct pt_regs * regs\n    long int id')" "$out"

out=$("$SONDE" -q -c "$B/ioctl_loop 7" -e 'rawtracepoint:sys_enter /pid == cpid && args.id == 16/ { @[args.regs->si] = count(); }' 2>&1)
expect_eq rawtp:args_typed $'\n\n@[21505]: 7' "$out"

out=$("$SONDE" -q -c "$B/ioctl_loop 1" -e 'rt:sys_e* /pid == cpid/ { @[probe] = 1; }' 2>&1)
expect_eq rawtp:wildcard $'\n\n@[rawtracepoint:vmlinux:sys_enter]: 1\n@[rawtracepoint:vmlinux:sys_exit]: 1' "$out"

# a task pointer argument, dereferenced (the switched-out task's pid)
out=$("$SONDE" -q -c "$B/ioctl_loop 1" -e 'rawtracepoint:sched_process_exit /args.p->pid == cpid/ { @exit = count(); }' 2>&1)
expect_eq rawtp:task_pointer $'\n\n@exit: 1' "$out"

f=$B/rawtp_self.out
"$SONDE" -e 'BEGIN { printf("ready\n"); } self:signal:SIGUSR1 { printf("%s\n", probe); exit(); }' > "$f" 2>&1 &
sp=$!
wait_for "$f" '^ready' && kill -USR1 $sp
wait $sp
expect_eq self:signal $'Attached 2 probes\nready\nself:signal:SIGUSR1' "$(cat "$f")"
