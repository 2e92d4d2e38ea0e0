# t_secure.sh - issue 14's hardening: recipe lookup, -o files, system()
# without a shell, hostile input sizes and nesting, maps only deleted.

sec=$B/secure
rm -rf "$sec"
mkdir -p "$sec"

# -- a bare name is an installed recipe, never a file of the cwd -------------
printf 'BEGIN { printf("HIJACKED\\n"); exit(); }\n' > "$sec/runqlat"
cp "$sec/runqlat" "$sec/notarecipe"
out=$(cd "$sec" && SONDE_SCRIPTS="$top/scripts" "$SONDE" --emit ast runqlat 2>&1)
if printf '%s\n' "$out" | grep -q HIJACKED; then fail secure:recipe_not_cwd; else pass secure:recipe_not_cwd; fi
out=$(cd "$sec" && "$SONDE" notarecipe 2>&1; echo "rc=$?")
expect_eq secure:bare_name_is_recipe_only "sonde: 'notarecipe' is not an installed recipe; to run the file of that name here, give its path: sonde ./notarecipe
rc=1" "$out"
out=$(cd "$sec" && "$SONDE" --emit ast ./notarecipe 2>&1)
expect_match secure:dot_slash_runs_file 'HIJACKED' "$out"

# -- the front end on hostile sizes: compiled or refused, never a crash -----
fe_ok() { expect_eq "secure:$1" "rc=0" "$("$SONDE" --emit ast "$2" 2>&1 >/dev/null; echo "rc=$?")"; }
long=$(head -c 1048576 /dev/zero | tr '\0' a)
blanks=$(head -c 1048576 /dev/zero | tr '\0' ' ')
printf 'BEGIN { $%s = 1; exit(); }\n' "$long" > "$sec/token.bt"
fe_ok huge_token "$sec/token.bt"
printf 'BEGIN { exit(); } /*%s*/\n// %s\n' "$long" "$long" > "$sec/comment.bt"
fe_ok huge_comment "$sec/comment.bt"
printf 'BEGIN { exit(); }%17000s\n' "" > "$sec/spaces.bt"
fe_ok trailing_spaces "$sec/spaces.bt"
printf 'BEGIN { printf("%s"); exit(); }\n' "$long" > "$sec/string.bt"
fe_ok huge_string "$sec/string.bt"
printf 'BEGIN /%s 1/ { exit(); }\n' "$blanks" > "$sec/pred.bt"
fe_ok huge_blank_in_predicate "$sec/pred.bt"
printf 'BEGIN { $x = (u32%s *)0; exit(); }\n' "$blanks" > "$sec/cast.bt"
fe_ok huge_blank_in_cast "$sec/cast.bt"

# -- deep nesting: one limit, a located error (the ASan build's stack is the
#    tight one) -------------------------------------------------------------
deep() { local i; for ((i = 0; i < $2; i++)); do printf '%s' "$1"; done; }
# the first line of the message (the source line after it is 15 KB)
deep_err() { (cd "$sec" && "$SONDE" --emit ast "$1" 2>&1 >/dev/null; echo "rc=$?") | sed -n '1p;$p' | tr '\n' ' '; }
printf 'BEGIN { $x = %s1; exit(); }\n' "$(deep '(uint64)' 2500)" > "$sec/casts.bt"
expect_match secure:deep_casts '^casts\.bt:1:[0-9]+: error: nested deeper than [0-9]+ levels.* rc=1 $' "$(deep_err casts.bt)"
printf 'BEGIN { $x = %s1%s; exit(); }\n' "$(deep '(1 + ' 2000)" "$(deep ')' 2000)" > "$sec/parens.bt"
expect_match secure:deep_parens '^parens\.bt:1:[0-9]+: error: nested deeper than [0-9]+ levels.* rc=1 $' "$(deep_err parens.bt)"
printf 'BEGIN { %s exit(); %s }\n' "$(deep 'if (1) { ' 2000)" "$(deep '} ' 2000)" > "$sec/ifs.bt"
expect_match secure:deep_blocks '^ifs\.bt:1:[0-9]+: error: nested deeper than [0-9]+ levels.* rc=1 $' "$(deep_err ifs.bt)"
printf 'BEGIN { $x = %s1%s; exit(); }\n' "$(deep '(1 + ' 150)" "$(deep ')' 150)" > "$sec/ok.bt"
out=$("$SONDE" --emit ast "$sec/ok.bt" 2>&1 >/dev/null; echo "rc=$?")
expect_eq secure:nesting_150_is_fine "rc=0" "$out"

if need_root secure:bpf; then

# -- delete() of a map nothing assigns: refused with a located error, as
#    bpftrace's "Undefined map" (it once crashed codegen: a NULL key layout)
out=$("$SONDE" --dry-run -e 'BEGIN { delete(@x[1, 2]); delete(@y["a", 2, 3]); exit(); }' 2>&1; echo "rc=$?")
expect_eq secure:delete_unassigned_multikey "stdin:1:16: error: map '@x' is used but never assigned
BEGIN { delete(@x[1, 2]); delete(@y[\"a\", 2, 3]); exit(); }
               ^~~~~~~~
stdin:1:34: error: map '@y' is used but never assigned
BEGIN { delete(@x[1, 2]); delete(@y[\"a\", 2, 3]); exit(); }
                                 ^~~~~~~~~~~~~
rc=1" "$out"

# -- a script of more programs than one LLVM module holds (48) is compiled
#    in parts and linked: every probe still counts exactly ----------------------
build_workload named
{
	for i in $(seq 1 50); do echo "t:syscalls:sys_enter_getppid /pid == cpid/ { @own_$i = count(); }"; done
	for i in $(seq 1 50); do echo "t:syscalls:sys_exit_getppid /pid == cpid/ { @shared = count(); }"; done
} > "$sec/split.bt"
out=$("$SONDE" -q -c "$B/named split 10" "$sec/split.bt" 2>&1)
expect_eq secure:split_compile_counts "50 @shared: 500" \
	"$(printf '%s\n' "$out" | grep -c '^@own_[0-9]*: 10$') $(printf '%s\n' "$out" | grep '^@shared')"

# -- -o: 0600, no final symlink in a sticky world-writable directory, write
#    errors are an exit status ----------------------------------------------
tmpd=$(mktemp -d /tmp/sonde-sticky.XXXXXX)
chmod 1777 "$tmpd"
echo precious > "$sec/victim"
ln -s "$sec/victim" "$tmpd/out"
out=$("$SONDE" -q -o "$tmpd/out" -e 'BEGIN { printf("x\n"); exit(); }' 2>&1; echo "rc=$?")
expect_eq secure:o_no_symlink_in_sticky_dir "sonde: -o $tmpd/out: a symbolic link in the world-writable directory $tmpd: not following it (give the real path)
rc=1 precious" "$out $(cat "$sec/victim")"
rm -f "$tmpd/out"
touch "$tmpd/theirs"; chown 65534 "$tmpd/theirs"
out=$("$SONDE" -q -o "$tmpd/theirs" -e 'BEGIN { printf("x\n"); exit(); }' 2>&1; echo "rc=$?")
expect_eq secure:o_not_others_file_in_sticky_dir "sonde: -o $tmpd/theirs: the file belongs to uid 65534 in the world-writable directory $tmpd: not writing to it
rc=1" "$out"
"$SONDE" -q -o "$tmpd/mine" -e 'BEGIN { printf("x\n"); exit(); }' >/dev/null 2>&1
expect_eq secure:o_created_0600 "600 x" "$(stat -c %a "$tmpd/mine") $(head -1 "$tmpd/mine")"
rm -rf "$tmpd"
out=$("$SONDE" -q -o /dev/full -e 'BEGIN { printf("x\n"); exit(); }' 2>&1; echo "rc=$?")
expect_eq secure:o_dev_full "sonde: writing /dev/full: No space left on device
rc=1" "$out"
out=$("$SONDE" -q -e 'BEGIN { printf("x\n"); exit(); }' 2>&1 >/dev/full; echo "rc=$?")
expect_eq secure:stdout_dev_full "sonde: writing standard output failed: output was lost
rc=1" "$out"

# -- system(): sh -c, as bpftrace, and each substituted value quoted for the
#    shell: a hostile comm is printed, never run (issue 19) ---------------------
build_workload named
sys_named() {	# COMM SCRIPT-BODY: the output of one system() for a process named COMM
	local wl
	wl=$(sh_script sec_named "exec $B/named \"\$SEC_NAME\" 1")
	(cd "$sec" && SEC_NAME=$1 "$SONDE" -q --unsafe -c "$wl" \
		-e "tracepoint:syscalls:sys_enter_getppid /pid == cpid && comm != \"sec_named.sh\"/ { $2 exit(); }" 2>&1 | grep -v '^$')
}
rm -f "$sec/pwned"
out=$(sys_named 'a;touch pwned' 'system("echo %s | tr a-z A-Z; echo %.3s%d", comm, comm, 5);')
expect_eq secure:system_shell_quoted "A;TOUCH PWNED
a;t5
no file" "$out
$( [ -e "$sec/pwned" ] && echo PWNED || echo no file)"
out=$(sys_named "'\$(touch pwned)" 'system("printf \"%%s|%%s\\n\" %s %-4s", comm, "x");')
expect_eq secure:system_quote_in_value "'\$(touch pwned)|x   
no file" "$out
$( [ -e "$sec/pwned" ] && echo PWNED || echo no file)"

# -- misleading messages: root without the capabilities, -l as a user who
#    cannot read a mounted tracefs, a probed file rewritten in place --------
if command -v setpriv >/dev/null; then
	out=$(setpriv --inh-caps=-all --bounding-set=-bpf,-perfmon,-sys_admin \
		"$SONDE" --dry-run -e 'tracepoint:sched:sched_switch { @ = count(); }' 2>&1; echo "rc=$?")
	expect_eq secure:root_without_caps "sonde: loading BPF programs needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): this process runs as root without them (a container or a capability bounding set took them away) [S0110]
note: This process may not load BPF programs.
note: sonde --explain S0110 tells more
rc=1" "$out"
	if [ -d /sys/kernel/tracing/events ]; then
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$SONDE" -l 'tracepoint:sched:*' 2>&1; echo "rc=$?")
		expect_eq secure:list_tracefs_unreadable "sonde: -l: tracefs is mounted, but this user cannot read it (Permission denied): listing tracepoints needs root
rc=1" "$out"
	else
		skip secure:list_tracefs_unreadable "tracefs is not at /sys/kernel/tracing"
	fi
else
	skip secure:root_without_caps "no setpriv (util-linux)"
fi

gcc -shared -fPIC -O1 -o "$sec/libchg.so" "$top/tests/workloads/libsondetest.c"
gcc -shared -fPIC -O1 -DSONDE_PAD=4096 -fno-toplevel-reorder -o "$sec/libchg2.so" "$top/tests/workloads/libsondetest.c"
# (sonde runs until the warning is out, however slowly it looks: the
# file is checked once a second)
rm -f "$sec/chg.err"	# wait_for must not find the last run's lines
"$SONDE" -v -e "uprobe:$sec/libchg.so:sonde_target { }" >/dev/null 2>"$sec/chg.err" &
chg=$!
wait_for "$sec/chg.err" '^Attached' 60
cp "$sec/libchg2.so" "$sec/libchg.so"	# in place: same inode
wait_for "$sec/chg.err" 'changed on disk' 60
kill -INT "$chg"; wait "$chg"
expect_match secure:probed_file_rewritten "^sonde: warning: uprobe:$sec/libchg.so:sonde_target: $sec/libchg.so changed on disk after it was probed \(same file, rewritten in place" "$(cat "$sec/chg.err")"

# a rebuild of the same size with its mtime put back (cp -p, rsync -t):
# only the build-id tells; and a touch of the same build is no change
gcc -shared -fPIC -O1 -DSONDE_PAD=16 -fno-toplevel-reorder -o "$sec/libbid.so" "$top/tests/workloads/libsondetest.c"
gcc -shared -fPIC -O1 -DSONDE_PAD=32 -fno-toplevel-reorder -o "$sec/libbid2.so" "$top/tests/workloads/libsondetest.c"
touch -r "$sec/libbid.so" "$sec/libbid2.so"
cp -p "$sec/libbid.so" "$sec/libbid3.so"
# bid_watch LIB ACTION [warns]: sonde -v's warnings after ACTION on the
# probed LIB; with warns, sonde runs until the warning is out, else 2.5 s
# (at least two of its once-a-second checks)
bid_watch() {
	local prog="uprobe:$1:sonde_target { }"
	[ "$3" = warns ] || prog="$prog interval:ms:2500 { exit(); }"
	rm -f "$sec/bid.err"
	"$SONDE" -v -e "$prog" >/dev/null 2>"$sec/bid.err" &
	local pid=$!
	wait_for "$sec/bid.err" '^Attached' 60
	eval "$2"
	if [ "$3" = warns ]; then
		wait_for "$sec/bid.err" 'changed on disk' 60
		kill -INT $pid
	fi
	wait $pid
	grep '^sonde: warning' "$sec/bid.err"
}
out=$(bid_watch "$sec/libbid.so" 'cp -p "$sec/libbid2.so" "$sec/libbid.so"' warns)
bid_same=$( [ "$(stat -c '%s %y' "$sec/libbid.so")" = "$(stat -c '%s %y' "$sec/libbid3.so")" ] && echo same || echo other)
expect_eq secure:rebuilt_same_size_and_mtime "same size and mtime: sonde: warning: uprobe:$sec/libbid.so:sonde_target: $sec/libbid.so changed on disk after it was probed (same file, rewritten in place with another build-id)" \
	"$bid_same size and mtime: $(printf '%s\n' "$out" | sed 's/: its probes.*//')"
out=$(bid_watch "$sec/libbid3.so" 'touch "$sec/libbid3.so"')
expect_eq secure:touched_same_build "" "$out"

fi
