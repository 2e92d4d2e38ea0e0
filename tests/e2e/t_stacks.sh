# t_stacks.sh - user stacks as map keys lose nothing and print once
# (issue 19).  The stacks workload calls leaf() through 9,330 distinct
# paths of f0..f5 (more than the 4,096 buckets of the STACK_TRACE map sonde
# used, where 13-25 % of the book's brkstack stacks were lost and printed
# as many equal keys), twice each.  Every stack must print once, with its
# count, in text and in JSON (no key twice: json.loads keeps only the last),
# losing no more than bpftrace 0.17 in a run of the same workload; and one
# stack in two processes (two runs of one binary, other addresses) is one
# entry.

(
if ! need_root stacks; then exit 0; fi
ST=$B/stacks_run
mkdir -p "$ST"
build_workload stacks -fno-omit-frame-pointer -fno-optimize-sibling-calls
cp "$B/stacks" "$ST/stacks"	# a file of its own: only this suite's runs fire
P=$ST/stacks
prog="uprobe:$P:leaf { @[ustack] = count(); }"

"$SONDE" -q --map-keys-max 20000 -c "$P 5 2" -e "$prog" > "$ST/text.out" 2> "$ST/text.err"
got=$(awk '/^@\[$/ { n++ } /^@\[\]/ { empty++ } /^\]: / { c[$2]++ } END { printf "%d stacks, %d empty, counts:", n, empty; for (k in c) printf " %s x%d", k, c[k]; print "" }' "$ST/text.out")
expect_eq stacks:text_all_once "9330 stacks, 0 empty, counts: 2 x9330" "$got"
expect_eq stacks:text_distinct 9330 "$(awk '/^@\[$/ { k = ""; next } /^\]: / { print k; next } { k = k "|" $0 }' "$ST/text.out" | sort -u | wc -l)"
expect_eq stacks:nothing_reported_lost "" "$(grep -i 'lost' "$ST/text.err")"

"$SONDE" -q -f json --map-keys-max 20000 -c "$P 5 2" -e "$prog" > "$ST/json.out" 2> "$ST/json.err"
got=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    pairs = []
    rec = json.loads(line, object_pairs_hook=lambda p: pairs.append(p) or dict(p))
    if isinstance(rec, dict) and rec.get("type") == "map":	# (the workload prints a number)
        keys = [k for k, _ in pairs[0]]	# the innermost object: the entries
        print(len(keys), len(set(keys)), sum(v for _, v in pairs[0]))
' "$ST/json.out" 2>&1)
expect_eq stacks:json_unique_keys "9330 9330 18660" "$got"

if command -v bpftrace >/dev/null; then
	BPFTRACE_MAP_KEYS_MAX=20000 timeout 60 bpftrace -c "$P 5 2" -e "$prog" > "$ST/bpftrace.out" 2>/dev/null
	bt_kept=$(awk '/^\]: 2$/ { n++ } END { print n + 0 }' "$ST/bpftrace.out")
	s_kept=$(awk '/^\]: 2$/ { n++ } END { print n + 0 }' "$ST/text.out")
	echo "    stacks kept of 9330: sonde $s_kept, bpftrace 0.17 $bt_kept"
	if [ "$bt_kept" -gt 0 ] && [ "$s_kept" -ge "$bt_kept" ]; then pass stacks:no_more_lost_than_bpftrace
	else fail stacks:no_more_lost_than_bpftrace; fi
else
	skip stacks:no_more_lost_than_bpftrace "bpftrace (the oracle) is not installed"
fi

# a kernel before 5.11 (hash keys of 512 bytes at most; SONDE_NO_FEATURES
# says so here): 127-frame stacks go to a STACK_TRACE map, 42 paths print
out=$(SONDE_NO_FEATURES=big_keys "$SONDE" -q -c "$P 2 1" -e "$prog" 2>&1)
expect_eq stacks:before_5_11_stack_map "42 1" "$(printf '%s\n' "$out" | awk '/^@\[$/ { n++ } /^\]: / { c[$2]++ } END { for (k in c) print n, k }')"

# two processes, one stack each path: 6 entries of 2, not 12 of 1
two=$(sh_script stacks_twice "$P 1 1 300 >/dev/null; $P 1 1 300 >/dev/null")
out=$("$SONDE" -q -c "$two" -e "$prog" 2>&1)
expect_eq stacks:two_processes_merged "6 2" "$(printf '%s\n' "$out" | awk '/^@\[$/ { n++ } /^\]: / { c[$2]++ } END { for (k in c) print n, k }')"

# sonde and the workload in a PID namespace of their own (bpftrace's
# pid_namespace.ustack_inside): the frames are named from /proc/NSPID/maps,
# the pid sonde's namespace gives the process, not the initial one's,
# which its /proc does not hold (before: bare addresses).  At leaf's first
# instruction the call-frame information names its caller, step (frame
# pointers skipped it: "leaf f0 step")
if command -v unshare > /dev/null; then
	out=$(unshare -p -f --mount-proc timeout 60 "$SONDE" -q -c "$P 1 1" \
		-e "uprobe:$P:leaf { print(ustack(3)); print(usym(reg(\"ip\"))); exit(); }" 2>&1)
	expect_eq stacks:named_in_own_pid_namespace "leaf step f0 leaf" \
		"$(printf '%s\n' "$out" | sed -n 's/^ *\([a-z0-9_]*\)+[0-9]*$/\1/p; t; /^leaf$/p' | xargs)"
else
	skip stacks:named_in_own_pid_namespace "no unshare(1) to make a PID namespace"
fi

# frames in the vDSO are named from its image, as perf names them: a loop
# of clock_gettime (tests/workloads/vdso_loop.c, ~0.5 s of CPU in 20M
# calls, nearly all in __vdso_clock_gettime) under a 999 Hz sampler, in
# text (perf mode shows the [vdso] module), folded, flame graph and pprof.
# The vDSO exports clock_gettime as a weak alias of the global
# __vdso_clock_gettime (arm64's: __kernel_clock_gettime), which names the
# frame; libc's own clock_gettime is the frame under it.
build_workload vdso_loop -fno-omit-frame-pointer
VL="$B/vdso_loop 20000000"
vprog='profile:hz:999 /pid == cpid/ { @[ustack, comm] = count(); }'
out=$("$SONDE" -q -c "$VL" -e 'profile:hz:999 /pid == cpid/ { @[ustack(perf)] = count(); }' 2>&1)
expect_match stacks:vdso_frame_text '^[[:space:]]*[0-9a-f]+ __(vdso|kernel)_clock_gettime\+[0-9]+ \(\[vdso\]\)$' "$out"
out=$("$SONDE" -q -f folded -c "$VL" -e "$vprog" 2>&1)
expect_match stacks:vdso_frame_folded '^vdso_loop;.*;__(vdso|kernel)_clock_gettime [0-9]+$' "$out"
rm -f "$ST/vdso.svg"
"$SONDE" -q -f flamegraph -o "$ST/vdso.svg" -c "$VL" -e "$vprog" > /dev/null 2>&1
expect_match stacks:vdso_frame_flamegraph '<title>__(vdso|kernel)_clock_gettime \([0-9]+, ' "$(cat "$ST/vdso.svg" 2>&1)"
if command -v go >/dev/null; then
	rm -f "$ST/vdso.pb.gz"
	"$SONDE" -q -f pprof -o "$ST/vdso.pb.gz" -c "$VL" -e "$vprog" > /dev/null 2>&1
	expect_match stacks:vdso_frame_pprof ' __(vdso|kernel)_clock_gettime$' \
		"$(GOCACHE=$ST/gocache HOME=${HOME:-/root} go tool pprof -top "$ST/vdso.pb.gz" 2>&1)"
else
	skip stacks:vdso_frame_pprof "go (golang-go, for go tool pprof) is not installed"
fi

# config show_debug_info (the newest bpftrace's): each user frame with its
# source file:line from DWARF (libdw), a function inlined at a frame's
# address a frame of its own, "[inlined] name@file:line", innermost first;
# a caller's line is its call's.  dwinline (built -g): main -> outer ->
# [inlined] mid_inl -> leaf; ustack(3) keeps 3 addresses, 4 lines.  The
# offsets are the return addresses objdump shows after each call.  Also
# ustack(build_id) ("<build-id> 0x<file offset>" a frame, as the newest
# release prints it), dw_ustack and unstable_dw_ustack as it spells them.
build_workload dwinline -fno-omit-frame-pointer
DW=$B/dwinline
src=$top/tests/workloads/dwinline.c
ln() { grep -n -- "$1" "$src" | head -1 | cut -d: -f1; }
# the offset in function $1 of the instruction after its call to $2
ret_off() {
	local a
	a=$(objdump -d --no-show-raw-insn "$DW" | awk -v f="<$1>:" -v c="<$2>" '
		$2 == f { print $1; on = 1; next }
		on && /^$/ { on = 0 }
		on && want { sub(":", "", $1); print $1; exit }
		on && $0 ~ "call.*" c { want = 1 }' | xargs)
	set -- $a
	echo $((16#$2 - 16#$1))
}
sym_addr() { echo $((16#$(nm "$DW" | awk -v s="$1" '$3 == s { print $1 }'))); }
dprog="config = { show_debug_info = 1; unstable_dw_ustack = enable } uprobe:$DW:leaf"
out=$("$SONDE" -q -c "$DW" -e "$dprog { print(ustack(3)); print(ustack(perf, 2)); print(ustack(build_id, 2)); print(dw_ustack(1)); }" 2>&1)
expect_eq stacks:show_debug_info_inlined "        leaf+0@$src:$(($(ln 'int leaf(int x)') + 1))
        [inlined] mid_inl@$src:$(ln L_mid)
        outer+$(ret_off outer leaf)@$src:$(ln L_outer)
        main+$(ret_off main outer)@$src:$(ln L_main)" "$(printf '%s\n' "$out" | sed -n 2,5p)"
# perf mode: no file:line; the inlined frame at its function's address
pa=$(printf '%s\n' "$out" | sed -n 8,10p | awk '{ print $1 }' | xargs)
expect_eq stacks:show_debug_info_perf "leaf+0 ($DW)|mid_inl (inlined)|outer+$(ret_off outer leaf) ($DW)|same address: yes" \
	"$(printf '%s\n' "$out" | sed -n 8,10p | sed 's/^\t[0-9a-f]* //' | paste -sd'|')|same address: $([ "$(echo $pa | cut -d' ' -f2)" = "$(echo $pa | cut -d' ' -f3)" ] && echo yes || echo no)"
bid=$(readelf -n "$DW" | awk '/Build ID/ { print $3 }')
# a PIE's text: file offsets are its addresses
expect_eq stacks:build_id_mode "$bid 0x$(printf %x $(sym_addr leaf))|$bid 0x$(printf %x $(($(sym_addr outer) + $(ret_off outer leaf))))" \
	"$(printf '%s\n' "$out" | sed -n 13,14p | paste -sd'|')"
expect_eq stacks:dw_ustack "        leaf+0@$src:$(($(ln 'int leaf(int x)') + 1))" "$(printf '%s\n' "$out" | sed -n 17p)"
# raw mode: one address a frame, no inlined ones added
out=$("$SONDE" -q -c "$DW" -e "$dprog { print(ustack(raw, 3)); }" 2>&1)
expect_eq stacks:show_debug_info_raw 3 "$(printf '%s\n' "$out" | grep -cE '^[0-9a-f]+$')"
# JSON: the same lines in the key's text
out=$("$SONDE" -q -f json -c "$DW" -e "$dprog { @[ustack(2)] = count(); }" 2>&1)
expect_eq stacks:show_debug_info_json "{\"type\": \"map\", \"data\": {\"@\": {\"\\n    leaf+0@$src:$(($(ln 'int leaf(int x)') + 1))\\n    [inlined] mid_inl@$src:$(ln L_mid)\\n    outer+$(ret_off outer leaf)@$src:$(ln L_outer)\\n\": 1}}}" \
	"$(printf '%s\n' "$out" | grep '"type": "map"')"
out=$("$SONDE" -q -c "$DW" -e "config = { show_debug_info = 0 } uprobe:$DW:leaf { print(ustack(1)); }" 2>&1)
expect_eq stacks:show_debug_info_off "
        leaf+0" "$out"
)
