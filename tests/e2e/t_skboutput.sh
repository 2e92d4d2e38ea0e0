# t_skboutput.sh - skboutput(path, skb, len, offset): packets into pcap files
# (issue #35 item 7), as bpftrace v0.26.1's stdlib documents it: link type
# RAW, the bytes offset..len of the packet's data, a wall-clock timestamp,
# the helper's result (0, or -EFAULT for more bytes than the packet has).
#
# The traffic is the test's own: three UDP datagrams of known payloads to
# 127.0.0.1 in a private network namespace, sent by the -c command (pid ==
# cpid: nothing else on the machine counts).  rawtracepoint:net_dev_queue
# (loaded as tp_btf: its skb is a typed struct sk_buff *) sees each one on
# lo before it is sent, its data from the Ethernet header, as bpftrace's
# own test's fentry:__dev_queue_xmit does (this host has no fentry:
# tests/vm/t_fentry.sh runs that one).  The files are read by python3's
# struct (every byte) and by tcpdump.

if need_root skboutput:bpf; then

D=$B/skb
mkdir -p "$D"
ns=sonde-skb-$$
cat > "$D/send.py" <<'PY'
# send.py PORTFILE PAYLOAD...: one UDP datagram of each payload to a
# socket of its own on 127.0.0.1, each received before the next is sent
# (SKB_COMM: the name it runs under)
import os, socket, sys
if os.environ.get("SKB_COMM"):
    open("/proc/self/comm", "w").write(os.environ["SKB_COMM"])
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in sys.argv[2:]:
    s.sendto(p.encode(), r.getsockname())
    r.recv(4096)
open(sys.argv[1], "w").write("%d %d\n" % (r.getsockname()[1], s.getsockname()[1]))
PY
cat > "$D/read.py" <<'PY'
# read.py FILE T0 T1: a pcap file as text: its header, then a line per
# packet (caplen, len, whether its time is within [T0 - 1, T1 + 1] s, the
# bytes in hex)
import struct, sys
b = open(sys.argv[1], "rb").read()
t0, t1 = float(sys.argv[2]) - 1, float(sys.argv[3]) + 1
magic, major, minor, zone, sig, snap, link = struct.unpack("<IHHiIII", b[:24])
print("magic %x version %d.%d snaplen %d linktype %d" % (magic, major, minor, snap, link))
off = 24
while off < len(b):
    sec, usec, cap, orig = struct.unpack("<IIII", b[off:off + 16])
    data = b[off + 16:off + 16 + cap]
    print(cap, orig, "in-time" if t0 <= sec + usec / 1e6 <= t1 else "time %d.%06d" % (sec, usec),
          data.hex())
    off += 16 + cap
PY

# the hex of an IPv4/UDP packet from 127.0.0.1:SPORT to 127.0.0.1:DPORT
# with PAYLOAD, a glob: the digits that vary (IP id, checksums) are ?
ip_udp() {
	local sport=$1 dport=$2 payload=$3
	local plen=${#payload} hex
	hex=$(printf '%s' "$payload" | od -An -tx1 | tr -d ' \n')
	printf '4500%04x????40004011????7f0000017f000001%04x%04x%04x????%s' \
		$((28 + plen)) "$sport" "$dport" $((8 + plen)) "$hex"
}

p1=hello-sonde p2=second-datagram-0123456789 p3=x
if ip netns add "$ns" 2>/dev/null && ip -n "$ns" link set lo up; then
	rm -f "$D/ip.pcap" "$D/eth.pcap" "$D/ports"
	prog="rawtracepoint:net_dev_queue /pid == cpid/ {
	\$a = skboutput(\"$D/ip.pcap\", args.skb, args.skb->len, 14);
	\$b = skboutput(\"$D/eth.pcap\", args.skb, 34, 0);
	\$c = skboutput(\"$D/eth.pcap\", args.skb, args.skb->len + 1, 0);
	printf(\"%d %d %d %d\\n\", \$a, \$b, \$c, args.skb->len);
}"
	t0=$(date +%s.%N)
	out=$(timeout 120 "$SONDE" -q -c "ip netns exec $ns python3 $D/send.py $D/ports $p1 $p2 $p3" \
		-e "$prog" 2>&1 | grep -v '^$')
	t1=$(date +%s.%N)
	expect_eq skboutput:results "0 0 -14 $((42 + ${#p1}))
0 0 -14 $((42 + ${#p2}))
0 0 -14 $((42 + ${#p3}))" "$out"
	read -r dport sport < "$D/ports"
	# the IP packets (offset 14), each whole: its length and every byte
	# but the IP id and the two checksums
	got=$(python3 "$D/read.py" "$D/ip.pcap" "$t0" "$t1" 2>&1)
	want="magic a1b2c3d4 version 2.4 snaplen 65535 linktype 101"
	for p in $p1 $p2 $p3; do
		want+=$'\n'"$((28 + ${#p})) $((28 + ${#p})) in-time $(ip_udp "$sport" "$dport" "$p")"
	done
	if [[ $got == $want ]]; then
		pass skboutput:ip_pcap
	else
		fail skboutput:ip_pcap
		echo "    want (? any hex digit):"; printf '%s\n' "$want" | sed 's/^/      /'
		echo "    got:"; printf '%s\n' "$got" | sed 's/^/      /'
	fi
	# one file for two calls: the first 34 bytes (offset 0: lo's Ethernet
	# header, zero addresses and type IPv4, then the IP header) of each
	# packet, and nothing of the calls that failed (len past the packet)
	got=$(python3 "$D/read.py" "$D/eth.pcap" "$t0" "$t1" 2>&1)
	want="magic a1b2c3d4 version 2.4 snaplen 65535 linktype 101"
	for p in $p1 $p2 $p3; do
		want+=$'\n'"34 34 in-time 0000000000000000000000000800$(ip_udp "$sport" "$dport" "$p" | cut -c1-40)"
	done
	if [[ $got == $want ]]; then
		pass skboutput:eth_pcap_shared
	else
		fail skboutput:eth_pcap_shared
		echo "    want (? any hex digit):"; printf '%s\n' "$want" | sed 's/^/      /'
		echo "    got:"; printf '%s\n' "$got" | sed 's/^/      /'
	fi
	# a real reader: tcpdump reads the file as raw IP, the three datagrams
	if command -v tcpdump >/dev/null; then
		got=$(tcpdump -n -r "$D/ip.pcap" 2>&1 | sed -E 's/^[0-9:.]+ //')
		expect_eq skboutput:tcpdump "reading from file $D/ip.pcap, link-type RAW (Raw IP), snapshot length 65535
IP 127.0.0.1.$sport > 127.0.0.1.$dport: UDP, length ${#p1}
IP 127.0.0.1.$sport > 127.0.0.1.$dport: UDP, length ${#p2}
IP 127.0.0.1.$sport > 127.0.0.1.$dport: UDP, length ${#p3}" "$got"
	else
		skip skboutput:tcpdump "tcpdump is not installed (make deps)"
	fi
	# a packet larger than the perf buffer (2 pages per CPU) cannot be
	# sent: ENOSPC, counted by the kernel and said at exit; the next fits
	rm -f "$D/lost.pcap"
	big=$(printf 'z%.0s' {1..9000})
	out=$(BPFTRACE_PERF_RB_PAGES=2 timeout 120 "$SONDE" -q -c "ip netns exec $ns python3 $D/send.py $D/ports $big y" \
		-e "rawtracepoint:net_dev_queue /pid == cpid/ { printf(\"%d\\n\", skboutput(\"$D/lost.pcap\", args.skb, args.skb->len, 14)); }" 2>&1 | grep -v '^$')
	expect_eq skboutput:lost "-28
0
sonde: skboutput: 1 packet lost: the perf buffer was full (2 pages per CPU; BPFTRACE_PERF_RB_PAGES sets more)" "$out"
	got=$(python3 "$D/read.py" "$D/lost.pcap" 0 0 2>&1 | cut -d' ' -f1,2)
	expect_eq skboutput:lost_pcap "magic a1b2c3d4
29 29" "$got"
	# while the run goes on: each batch of packets is in the file (flushed),
	# not only at exit
	rm -f "$D/live.pcap" "$D/live.out"
	"$SONDE" -e "rawtracepoint:net_dev_queue /comm == \"skb$$\"/ { \$r = skboutput(\"$D/live.pcap\", args.skb, args.skb->len, 14); }" > "$D/live.out" 2>&1 &
	spid=$!
	if wait_for "$D/live.out" '^Attached 1 probe'; then
		SKB_COMM=skb$$ ip netns exec "$ns" python3 "$D/send.py" "$D/ports" live-packet
		for ((i = 0; i < 300; i++)); do
			[ "$(stat -c %s "$D/live.pcap" 2>/dev/null)" = $((24 + 16 + 28 + 11)) ] && break
			sleep 0.1
		done
		expect_eq skboutput:flushed_while_running "$((24 + 16 + 28 + 11)) running" \
			"$(stat -c %s "$D/live.pcap" 2>&1) $(kill -0 $spid 2>/dev/null && echo running)"
	else
		fail skboutput:flushed_while_running
	fi
	int_stop $spid
	ip netns delete "$ns"
else
	skip skboutput:pcap "cannot make a network namespace (ip netns add $ns)"
fi

# the release's own test: the verifier takes a raw tracepoint's (struct
# sk_buff *)arg0, and a length of 1 (a probe that fires on its own: the
# file may be written before exit() is seen, or not)
rm -f "$D/receive.pcap"
out=$(cd "$D" && timeout 60 "$SONDE" --dry-run -e 'rawtracepoint:consume_skb { $ret = skboutput("receive.pcap", (struct sk_buff *)arg0, 1, 0); printf("ret: %d\n", $ret); exit(); }' 2>&1)
expect_eq skboutput:rawtracepoint_arg0 "sonde: dry run: 1 probe loaded and attached" "$out"
# the file is opened (empty: a header only) before the probes are attached
expect_eq skboutput:file_opened "24" "$(stat -c %s "$D/receive.pcap" 2>&1)"

# -- where it cannot be: a located error that says which probes can --------
skb_err() { timeout 60 env "$@" 2>&1 | head -1; }
out=$(skb_err "$SONDE" --dry-run -e 'tracepoint:net:net_dev_queue { $r = skboutput("x.pcap", args->skbaddr, 1, 0); }')
expect_eq skboutput:tracepoint "stdin:1:37: error: skboutput() needs bpf_skb_output, which the kernel allows only in fentry/fexit probes and raw tracepoints with BTF, not in tracepoint probes [S0106]" "$out"
out=$(skb_err "$SONDE" --dry-run -e 'uprobe:/bin/sh:main { $r = skboutput("x.pcap", arg0, 1, 0); }')
expect_eq skboutput:uprobe "stdin:1:28: error: skboutput() needs bpf_skb_output, which the kernel allows only in fentry/fexit probes and raw tracepoints with BTF, not in uprobe probes [S0106]" "$out"
out=$(skb_err SONDE_NO_FEATURES=skboutput "$SONDE" --dry-run -e 'rawtracepoint:consume_skb { $r = skboutput("x.pcap", args.skb, 1, 0); }')
expect_eq skboutput:no_kernel "stdin:1:34: error: skboutput() needs bpf_skb_output in tp_btf programs (Linux 5.5), which this kernel refuses [S0106]" "$out"
out=$(skb_err "$SONDE" --dry-run -e 'rawtracepoint:consume_skb { $r = skboutput(comm, args.skb, 1, 0); }')
expect_eq skboutput:path_literal "stdin:1:44: error: skboutput() needs the pcap file's path as a string literal, like skboutput(\"out.pcap\", args.skb, args.skb->len, 0)" "$out"
out=$(skb_err "$SONDE" --dry-run -e 'rawtracepoint:consume_skb { $r = skboutput("x.pcap", args.skb, 1, -2); }')
expect_eq skboutput:offset_negative "stdin:1:67: error: skboutput()'s offset (the bytes of the packet left out of the pcap file, 14 for an Ethernet header) cannot be negative: -2" "$out"
out=$(skb_err "$SONDE" --dry-run -e 'rawtracepoint:consume_skb { $r = skboutput("x.pcap", args.skb, 1, pid); }')
expect_match skboutput:offset_constant "^stdin:1:67: error: " "$out"
out=$(skb_err "$SONDE" --dry-run -e 'rawtracepoint:consume_skb { $r = skboutput("x.pcap", "skb", 1, 0); }')
expect_eq skboutput:skb_type "stdin:1:54: error: skboutput() needs a struct sk_buff pointer, not string[4]" "$out"
# a file that cannot be made: said before any probe is attached, exit 1
out=$(timeout 60 "$SONDE" -e "rawtracepoint:consume_skb { \$r = skboutput(\"$D/no-such-dir/x.pcap\", args.skb, 1, 0); }" 2>&1; echo "rc=$?")
expect_eq skboutput:unwritable "sonde: skboutput(): cannot open the pcap file: $D/no-such-dir/x.pcap: No such file or directory
rc=1" "$out"
# --info says it, as bpftrace's feature list does
out=$(timeout 60 "$SONDE" --info 2>&1 | grep -E '^  (skboutput|libpcap):' | sed -E 's/(libpcap: libpcap version) [0-9.]+.*/\1/')
expect_eq skboutput:info "  libpcap: libpcap version
  skboutput: yes (bpf_skb_output in tp_btf programs, Linux 5.5)" "$out"
rm -rf "$D"

fi
