# t_control.sh - how a run is steered (issue 19): SIGUSR1 prints the maps
# and the run goes on, as in bpftrace 0.17; nothing a probe sends after the
# probe that called exit() prints.  (-c CMD's words: diff 438-c-words;
# system() through sh -c: t_secure.sh.)

if need_root control:bpf; then

# -- SIGUSR1: every map, as bpftrace 0.17 prints them (no blank line before
#    them), twice, then the exit-time maps after Ctrl-C; both the BEGIN-only
#    wait and the event loop.  Compared with bpftrace's bytes of one such run.
usr1_run() {	# SCRIPT: the stdout of USR1, USR1, INT
	rm -f "$B/usr1.out" "$B/usr1.err"	# wait_for must not find the last run's lines
	"$SONDE" -e "$1" > "$B/usr1.out" 2> "$B/usr1.err" &
	local sp=$!
	wait_for "$B/usr1.err" 'Attached' 20
	kill -USR1 $sp; wait_for "$B/usr1.out" '^@h' 10
	kill -USR1 $sp
	# the second print is out before the SIGINT: two pending signals of
	# different kinds are taken in no promised order
	for ((i = 0; i < 200; i++)); do [ "$(grep -c '^@h' "$B/usr1.out")" -ge 2 ] && break; sleep 0.05; done
	kill -INT $sp; wait $sp
	echo "rc=$?"
	cat "$B/usr1.out"
}
usr1_maps='@a: 1
@b[1]: 2
@h: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
'
usr1_want="rc=0
$usr1_maps
$usr1_maps


$usr1_maps"
usr1_want=${usr1_want%$'\n'}	# $(...) drops the last newline
out=$(usr1_run 'BEGIN { @a = 1; @b[1] = 2; @h = hist(5); }')
expect_eq control:sigusr1_begin_only "$usr1_want" "$out"
out=$(usr1_run 'BEGIN { @a = 1; @b[1] = 2; @h = hist(5); } interval:s:1000 { exit(); }')
expect_eq control:sigusr1_event_loop "$usr1_want" "$out"

# -- a command started with SIGINT ignored (bash does that to a background
#    job of a non-interactive shell): sonde catches SIGINT all the same
#    (SigCgt, not SigIgn), and one SIGINT after "Attached" ends the run
#    with its maps.  One still running after 120 s is killed (rc 137).
rm -f "$B/bgint.out" "$B/bgint.err"
(trap '' INT; exec "$SONDE" -e 'BEGIN { @a = 1; }' > "$B/bgint.out" 2> "$B/bgint.err") &
sp=$!
wait_for "$B/bgint.err" 'Attached' 20
ign=$(awk '/^SigIgn:/ { print $2 }' "/proc/$sp/status")
cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$sp/status")
kill -INT $sp
for ((i = 0; i < 1200; i++)); do kill -0 $sp 2>/dev/null || break; sleep 0.1; done
kill -KILL $sp 2>/dev/null
wait $sp
rc=$?
expect_eq control:sigint_caught_though_ignored "ignored=0 caught=1 rc=0 @a: 1" \
	"ignored=$(( 16#${ign:-0} >> 1 & 1 )) caught=$(( 16#${cgt:-0} >> 1 & 1 )) rc=$rc $(grep '^@a' "$B/bgint.out")"

# -- exit(): one probe on each of 4 threads prints and exits at once.  Each
#    CPU may have sent one line before the first exit() reached the ring;
#    no line after it prints (main printed hundreds), and END still prints.
build_workload threads_loop
ncpu=$(getconf _NPROCESSORS_ONLN)
out=$("$SONDE" -q -c "$B/threads_loop 4 200000" -e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf("x\n"); exit(); } END { printf("end\n"); }' 2>&1)
n=$(printf '%s\n' "$out" | grep -c '^x$')
expect_eq control:exit_no_later_output "yes end" "$([ "$n" -ge 1 ] && [ "$n" -le "$ncpu" ] && echo yes || echo "no: $n lines") $(printf '%s\n' "$out" | grep -x end)"

# -- every event queued at the stop prints, however slow the reader: stdout
#    is a pipe read 4 KiB every 10 ms, about 2.5 s for the 20000 lines of
#    50 bytes, so most of them are still queued when the -c command's end
#    is noticed (the ring holds them all: 2048 pages); only a second
#    signal cuts that drain short.
build_workload syscall_loop
# (the workload's own line of nanoseconds goes to a file: in the pipe it
# could land amid a word of sonde's lines; the shell that execs it makes
# a getppid() call of its own, which the comm leaves out)
rm -f "$B/slow.done" "$B/hurry.done"
slow_cmd=$(sh_script slow_loop "exec '$B/syscall_loop' 20000 > '$B/slow.done'")
hurry_cmd=$(sh_script hurry_loop "exec '$B/syscall_loop' 40000 > '$B/hurry.done'")
n=$(timeout 120 "$SONDE" -q --rb-pages 2048 -c "$slow_cmd" \
	-e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid && comm == "syscall_loop"/ { printf("line %8d %s\n", tid, "........................................"); }' 2>&1 |
	python3 -c 'import sys, time
data = b""
while True:
    b = sys.stdin.buffer.read1(4096)
    if not b:
        break
    data += b
    time.sleep(0.01)
print(sum(l.startswith(b"line ") for l in data.split(b"\n")))')
expect_eq control:slow_reader_all_queued_print "20000" "$n"

# -- ... and a second signal cuts it short: the reader sends SIGINT twice
#    once the 40000 calls are over (the workload has written its line of
#    nanoseconds per call) and it has read 100 KiB, then 100 KiB more; what
#    printed and what was counted make the 40000, and END still prints.
rm -f "$B/hurry.fifo"; mkfifo "$B/hurry.fifo"
"$SONDE" -q --rb-pages 2048 -c "$hurry_cmd" \
	-e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid && comm == "syscall_loop"/ { printf("line %8d %s\n", tid, "........................................"); } END { printf("end\n"); }' \
	> "$B/hurry.fifo" 2> "$B/hurry.err" &
hp=$!
got=$(python3 -c 'import os, re, signal, sys, time
pid, data, sent = int(sys.argv[1]), b"", 0
while True:
    b = sys.stdin.buffer.read1(4096)
    if not b:
        break
    data += b
    done = os.path.exists(sys.argv[2]) and os.path.getsize(sys.argv[2]) > 0
    if done and sent < 2 and len(data) > (sent + 1) * 102400:
        os.kill(pid, signal.SIGINT)
        sent += 1
    time.sleep(0.01)
lines = data.split(b"\n")
print(sum(l.startswith(b"line ") for l in lines), lines.count(b"end"))' "$hp" "$B/hurry.done" < "$B/hurry.fifo")
wait "$hp"; rc=$?
cut=$(sed -n 's/^sonde: \([0-9]*\) queued events not printed: a second signal cut the output short$/\1/p' "$B/hurry.err")
expect_eq control:second_signal_cuts_drain "40000 cut end=1 rc=0" \
	"$(( ${got% *} + ${cut:-0} )) $([ "${cut:-0}" -gt 0 ] && echo cut || echo uncut) end=${got#* } rc=$rc"

fi
