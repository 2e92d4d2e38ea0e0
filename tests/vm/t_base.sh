# t_base.sh - the probe types this machine's own e2e suite covers, on each
# kernel of the matrix, with exact counts from workloads of known behaviour.

build_workload ioctl_loop
out=$("$SONDE" -q -c "$B/ioctl_loop 1000 0x5401" \
	-e 'tracepoint:syscalls:sys_enter_ioctl /pid == cpid/ { @[args->cmd] = count(); }' 2>&1)
expect_eq tracepoint_count_exact $'\n\n@[21505]: 1000' "$out"
