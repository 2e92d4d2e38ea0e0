# t_pystack.sh - pystack on each kernel: the frame walk is a bpf_loop
# callback from 5.17 (6.1, 6.12) and a bounded loop before (5.10), whose
# stack keys hold 31 frames (hash keys of at most 512 bytes before 5.11).
# Debian's python3.11 (the host's, seen by the guest) makes its calls once
# sonde has attached; exact stacks, and the depth of a 41-deep recursion.
PY=/usr/bin/python3.11
if [ ! -x "$PY" ]; then
	skip pystack "no $PY (make deps installs python3.11)"
	return 0 2>/dev/null || exit 0
fi
VP=/tmp/vm_pystack
mkdir -p "$VP"
cat > "$VP/calls.py" <<'PY'
import os, sys
def b():
    os.getppid()
def a():
    for _ in range(3):
        b()
def down(n):
    if n == 0:
        os.getppid()
        return
    down(n - 1)
print("ready", flush=True)
sys.stdin.readline()
a()
down(40)
print("done", flush=True)
sys.stdin.readline()
PY
rm -f "$VP/go" "$VP/wl.out" "$VP/out" && mkfifo "$VP/go"
"$PY" "$VP/calls.py" < "$VP/go" > "$VP/wl.out" 2>&1 &
wp=$!
exec 7> "$VP/go"
if wait_for "$VP/wl.out" '^ready' 300 "$wp"; then
	# (not holding the fifo open: the workload's last read ends at its EOF)
	timeout 300 "$SONDE" -p "$wp" -e 'tracepoint:syscalls:sys_enter_getppid { @[pystack] = count(); }' > "$VP/out" 2>&1 7>&- &
	sp=$!
	wait_for "$VP/out" '^Attached' 300 "$sp"
	echo g >&7
	wait_for "$VP/wl.out" '^done' 300 "$wp"
fi
exec 7>&-
wait "$wp" 2>/dev/null
wait "$sp" 2>/dev/null
W=$VP/calls.py
expect_eq pystack:exact "@[
    b ($W:3)
    a ($W:6)
    <module> ($W:14)
]: 3" "$(awk '/^@\[$/ { k = $0 "\n"; next } /^\]: 3$/ { printf "%s%s", k, $0 } /^\]: / { k = ""; next } { k = k $0 "\n" }' "$VP/out")"
deep=41
"$SONDE" --info 2>/dev/null | grep -q '^  big_keys: yes' || deep=31
expect_eq pystack:deep_frames "$deep" \
	"$(awk '/^@\[$/ { n = 0; next } /^\]: 1$/ { print n } /^\]: / { next } /down \(/ { n++ }' "$VP/out")"
