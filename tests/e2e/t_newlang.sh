# t_newlang.sh - the syntax of bpftrace 0.20-0.26 (issue #21): lower-case
# begin/end and scripts that end by themselves, let, for loops, duration
# literals, macros, block expressions, map declarations.  Expected output
# is the reference guide's and tests/runtime's (0.17 has none of these);
# where 0.17 has the construct the case is differential (tests/diff).

if need_root newlang:bpf; then

# run PROGRAM: sonde -q -e PROGRAM, stdout and stderr; a script that should
# end by itself and hangs is cut off (and fails its comparison)
nl_run() { timeout 60 "$SONDE" -q -e "$1" 2>&1; }

# -- begin/end: lower case, any case for provider names, and a script of
#    only begin/end probes ends by itself after them ---------------------
out=$(nl_run 'begin { printf("hi\n"); @a = 1; } end { printf("bye\n"); }')
expect_eq newlang:begin_end_ends_itself $'hi\nbye\n\n\n@a: 1' "$out"
out=$(nl_run 'begin { @x = 1 } Interval:ms:1 { @n = count(); if (@n == 3) { exit() } }')
expect_eq newlang:provider_any_case $'\n\n@n: 3\n@x: 1' "$out"
# BEGIN as 0.17 writes it keeps 0.17's behaviour: it runs until Ctrl-C
f=$B/newlang-langa-begin.out
"$SONDE" -q -e 'BEGIN { printf("up\n"); }' > "$f" 2>&1 &
p=$!
if wait_for "$f" '^up$' && sleep 0.3 && kill -0 $p 2>/dev/null; then
	kill -INT $p; wait $p; rc=$?
	expect_eq newlang:BEGIN_waits_as_017 "up rc=0" "$(cat "$f") rc=$rc"
else
	fail newlang:BEGIN_waits_as_017; cat "$f" | sed 's/^/    /'; kill_reap $p
fi
rm -f "$f"

fi
