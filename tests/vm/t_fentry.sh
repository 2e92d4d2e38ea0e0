# t_fentry.sh - fentry/fexit (kfunc/kretfunc) on each kernel of the
# matrix: BTF-typed arguments by name, retval, print(args) in text and
# JSON, wildcards, the module form and -lv's signature, with exact counts
# from tests/workloads/kcalls.c (N nanosleeps, N 7-byte reads, N opens).

build_workload kcalls

out=$("$SONDE" -q -c "$B/kcalls 5" -e 'fentry:do_nanosleep /pid == cpid/ { @ = count(); }' 2>&1)
expect_eq fentry:count_exact $'\n\n@: 5' "$out"

# args.NAME and args->NAME from BTF; func and probe
out=$("$SONDE" -q -c "$B/kcalls 5" -e 'kfunc:vfs_read /pid == cpid && args.count == 7/ { @[func, probe, args->count] = count(); }' 2>&1)
expect_eq fentry:args_by_name $'\n\n@[vfs_read, fentry:vfs_read, 7]: 5' "$out"

# fexit: retval typed as BTF says (ssize_t), and the arguments too
out=$("$SONDE" -q -c "$B/kcalls 4" -e 'kretfunc:vfs_read /pid == cpid && args.count == 7/ { @[retval] = count(); }' 2>&1)
expect_eq fexit:retval $'\n\n@[7]: 4' "$out"

# a string argument behind a pointer chain, BTF all the way
out=$("$SONDE" -q -c "$B/kcalls 3" -e 'fentry:vfs_open /pid == cpid/ { @[str(args->path->dentry->d_name.name)] = count(); }' 2>&1)
expect_match fentry:btf_pointer_chain '^@\[null\]: 3$' "$out"

# print(args): every argument by name, in text and in JSON
out=$("$SONDE" -q -c "$B/kcalls 1" -e 'fexit:vfs_read /pid == cpid && args.count == 7/ { print(args); }' 2>&1)
expect_match fexit:print_args '^\{ \.file = 0xffff[0-9a-f]+, \.buf = 0x[0-9a-f]+, \.count = 7, \.pos = 0xffff[0-9a-f]+ \}$' "$out"
out=$("$SONDE" -q -f json -c "$B/kcalls 1" -e 'fexit:vfs_read /pid == cpid && args.count == 7/ { print(args); }' 2>&1)
expect_match fexit:print_args_json '^\{"type": "value", "data": \{"file": "?[0-9]+"?, "buf": [0-9]+, "count": 7, "pos": "?[0-9]+"?\}\}$' "$out"

# a wildcard (a program per function: vfs_read, vfs_readlink, vfs_readv
# have a retval each) and the module form (vmlinux)
out=$("$SONDE" -q -c "$B/kcalls 3" -e 'fexit:vmlinux:vfs_read* /pid == cpid && retval == 7/ { @[probe] = count(); }' 2>&1)
expect_eq fexit:wildcard_module $'\n\n@[fexit:vfs_read]: 3' "$out"

# safety, as for kretprobes
out=$("$SONDE" -e 'fexit:_raw_spin_lock { }' 2>&1; echo "rc=$?")
expect_match fexit:banned "error: fexit:_raw_spin_lock can't be used as it might lock up your system" "$out"

# -lv: the BTF signature, as bpftrace prints it
out=$("$SONDE" -lv 'fentry:vfs_read')
expect_eq fentry:list_signature 'fentry:vmlinux:vfs_read
    struct file * file
    char * buf
    size_t count
    loff_t * pos
    ssize_t retval' "$out"

# fentry:MODULE:FUNCTION, typed from the module's own BTF
if [ -e /sys/kernel/btf/overlay ]; then
	out=$("$SONDE" -q -c "$B/kcalls 1" -e 'fentry:overlay:ovl_open /pid == cpid/ { @[probe, args.file != 0] = count(); }' 2>&1)
	expect_match fentry:module_function '^@\[fentry:overlay:ovl_open, 1\]: [1-9][0-9]*$' "$out"
else
	skip fentry:module_function "no BTF for the overlay module in this kernel (/sys/kernel/btf/overlay)"
fi

# path(): bpf_d_path on a BTF pointer (a member's address) in filp_close,
# on the kernel's d_path allowlist since 5.10.  kcalls opens /dev/zero once
# and leaves it to exit, which closes it through filp_close on every kernel
# (close(2) itself goes through filp_flush since 6.11).  With a size the
# path is cut at its front, as the stdlib docs say.
out=$("$SONDE" -q -c "$B/kcalls 3" -e 'fentry:filp_close /pid == cpid/ { @[path(&args.filp->f_path)] = count(); }' 2>&1)
expect_match fentry:path '^@\[/dev/zero\]: 1$' "$out"
out=$("$SONDE" -q -c "$B/kcalls 2" -e 'fentry:filp_close /pid == cpid/ { @[path(&args.filp->f_path, 6)] = count(); }' 2>&1)
expect_match fentry:path_size '^@\[/zero\]: 1$' "$out"
# a function off the allowlist: the verifier's refusal, located
out=$("$SONDE" -q -c "$B/kcalls 1" -e 'fentry:vfs_open { @[path(args.path)] = count(); }' 2>&1)
expect_match fentry:path_not_allowed "^stdin:1:[0-9]+: error: the kernel's verifier refused the program for fentry:vfs_open" "$out"

# socket_cookie(): two UDP sockets, three datagrams on the first and one on
# the second: two distinct non-zero cookies (bpf_get_socket_cookie in tracing
# programs is Linux 5.12: 5.10 refuses the call, located)
cat > "$B/udp2.py" <<'PY'
import socket
for n in (3, 1):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(n):
        try:
            s.sendto(b"x", ("127.0.0.1", 9))
        except OSError:
            pass
PY
out=$("$SONDE" -q -c "python3 $B/udp2.py" -e 'fentry:udp_sendmsg /pid == cpid/ { @nz[socket_cookie(args.sk) != 0] = count(); @c[socket_cookie(args.sk)] = count(); }' 2>&1)
if [ "$VMK" = 5.10 ]; then
	expect_match fentry:socket_cookie "error: the kernel's verifier refused the program for fentry:udp_sendmsg" "$out"
else
	expect_eq fentry:socket_cookie "@nz[1]: 4 | 1 3" "$(printf '%s\n' "$out" | grep '^@nz') | $(printf '%s\n' "$out" | sed -n 's/^@c\[[1-9][0-9]*\]: //p' | sort -n | tr '\n' ' ' | sed 's/ $//')"
fi

# skboutput(): bpftrace's own test's fentry:__dev_queue_xmit, whose skb's
# data begins at the device's Ethernet header (offset 14 leaves it out):
# two UDP datagrams on lo in a network namespace of the test's own, each
# read back from the pcap file whole (an IP packet of 28 + payload bytes,
# the payload last)
cat > "$B/skbsend.py" <<'PY'
import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in (b"sonde-vm", b"second-one"):
    s.sendto(p, r.getsockname()); r.recv(100)
PY
cat > "$B/skbread.py" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
print("linktype", struct.unpack("<I", b[20:24])[0])
off = 24
while off < len(b):
    cap, orig = struct.unpack("<II", b[off + 8:off + 16])
    d = b[off + 16:off + 16 + cap]
    print(cap, orig, d[0] >> 4, d[9], d[28:].decode())
    off += 16 + cap
PY
if ip netns add sonde-vm-skb 2>/dev/null && ip -n sonde-vm-skb link set lo up; then
	rm -f "$B/skb.pcap"
	out=$("$SONDE" -q -c "ip netns exec sonde-vm-skb python3 $B/skbsend.py" -e "fentry:__dev_queue_xmit /pid == cpid/ { printf(\"ret %d\\n\", skboutput(\"$B/skb.pcap\", args.skb, args.skb->len, 14)); }" 2>&1 | grep -v '^$')
	if [[ $out == *"error: "*"__dev_queue_xmit"* ]] && ! "$SONDE" -l 'fentry:__dev_queue_xmit' | grep -q .; then
		skip fentry:skboutput "no fentry:__dev_queue_xmit in this kernel's BTF"
	else
		expect_eq fentry:skboutput "ret 0
ret 0
linktype 101
36 36 4 17 sonde-vm
38 38 4 17 second-one" "$out
$(python3 "$B/skbread.py" "$B/skb.pcap" 2>&1)"
	fi
	ip netns delete sonde-vm-skb
else
	skip fentry:skboutput "cannot make a network namespace in the guest (ip netns add)"
fi
