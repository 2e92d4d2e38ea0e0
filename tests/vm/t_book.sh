# t_book.sh - the kprobe tools of the book "BPF Performance Tools"
# (tests/vm/book: copies, SOURCES says from where) on 6.12: each one under
# `sonde --dry-run` (compiled, through the verifier, attached, detached),
# held to tests/vm/book/EXPECT, which says which must load and why each
# of the others cannot; a tool listed as unable that loads fails too.  A
# "gone" or "notrace" claim is checked against this kernel's
# available_filter_functions and kallsyms, with the modules that hold the
# tools' functions loaded first.  A few run for real against
# tests/workloads/kcalls.c (N reads of 7 bytes from /dev/zero, N opens of
# /dev/null) with exact counts.  The tools' functions are 6.12's: the
# other kernels of the matrix skip.  Two dry runs at a time where the
# guest has two CPUs (each is 1.5-2.5 s of emulation).

if [ "$VMK" != 6.12 ]; then
	skip book:tools "tests/vm/book/EXPECT describes 6.12; this is $VMK"
else
	book_t0=$SECONDS
	build_workload kcalls
	book=tests/vm/book
	bt=$(mktemp -d /tmp/book.XXXXXX)

	# the modules whose functions the tools probe
	modprobe -a ext4 xfs sch_cbs sch_codel sch_fq sch_red sch_tbf scsi_mod mac80211 2>&1 |
		sed 's/^/    modprobe: /'
	aff=/sys/kernel/tracing/available_filter_functions
	awk '{ print $1 }' "$aff" | sort -u > "$bt/traceable"
	awk '$2 ~ /^[tTwW]$/ { print $3 }' /proc/kallsyms | sort -u > "$bt/text"

	# lanes of tools run one after the other, a lane a CPU (at most 2)
	lanes=1
	[ "$(nproc)" -ge 2 ] && lanes=2
	pids=()
	for ((l = 0; l < lanes; l++)); do
		(i=0
		 for f in "$book"/*.bt; do
			t=$(basename "$f")
			[ $((i++ % lanes)) = "$l" ] || continue
			"$SONDE" --dry-run "$f" > "$bt/$t.out" 2>&1
			echo $? > "$bt/$t.rc"
		 done) &
		pids+=($!)
	done
	wait "${pids[@]}"

	# every tool has a line, every line a tool
	expect_eq book:expect_lists_every_tool "$(cd "$book" && ls ./*.bt | sed 's|^\./||')" \
		"$(grep -v '^#' "$book/EXPECT" | awk 'NF { print $1 }')"

	# book_check TOOL STATUS ARG...: the dry run of TOOL against its line
	book_check() {
		local t=$1 status=$2 rc out fn why=""
		shift 2
		rc=$(cat "$bt/$t.rc" 2>/dev/null || echo none)
		out=$(cat "$bt/$t.out" 2>/dev/null)
		case $status in
		load)
			[ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q 'dry run: [0-9]* probes\? loaded and attached' ||
				why="listed as loading, but exit $rc" ;;
		gone | notrace)
			[ "$rc" != 0 ] || why="listed as unable ($status $*), but it loads"
			printf '%s\n' "$out" | grep -qE "($(IFS='|'; echo "$*"))" ||
				why="${why:-the failure names none of $*}"
			for fn in "$@"; do
				if grep -qx -- "$fn" "$bt/traceable"; then
					why="$fn is in available_filter_functions"
				elif [ "$status" = gone ] && grep -qx -- "$fn" "$bt/text"; then
					why="$fn is in /proc/kallsyms"
				elif [ "$status" = notrace ] && ! grep -qx -- "$fn" "$bt/text"; then
					why="$fn is not in /proc/kallsyms at all"
				fi
			done ;;
		field)
			[ "$rc" != 0 ] || why="listed as unable (struct $1 has no $2), but it loads"
			printf '%s\n' "$out" | grep -q "struct $1 has no field '$2'" ||
				why="${why:-the failure is not the missing field $2 of struct $1}" ;;
		*)	why="unknown status '$status' in EXPECT" ;;
		esac
		if [ -z "$why" ]; then
			pass "book:${t%.bt}"
		else
			fail "book:${t%.bt}"
			echo "    $t: $why"
			printf '%s\n' "$out" | grep -v '^ *\^' | head -8 | sed 's/^/    /'
		fi
	}
	while read -r t status rest; do
		case $t in '' | '#'*) continue ;; esac
		book_check "$t" "$status" ${rest%%--*}
	done < "$book/EXPECT"

	# for real: filetype counts the 5 reads of /dev/zero as a character
	# device's vfs_read by kcalls (the loader's reads are of regular files)
	out=$("$SONDE" -q -c "$B/kcalls 5" "$book/filetype.bt" 2>&1)
	expect_match book:filetype_run '^@\[character, vfs_read, kcalls\]: 5$' "$out"

	# vfssize: the 5 reads returned 7 bytes, keyed by the file's name
	out=$("$SONDE" -q -c "$B/kcalls 5" "$book/vfssize.bt" 2>&1)
	expect_match book:vfssize_run '^\[4, 8\) +5 \|@+\|$' \
		"$(printf '%s\n' "$out" | grep -A1 '^@\[kcalls, zero\]: *$')"

	# vfscount, every vfs_* function of the guest: at least kcalls's own
	# 300 reads and 300 opens (the guest's other processes add to them)
	out=$("$SONDE" -q -c "$B/kcalls 300" "$book/vfscount.bt" 2>&1)
	r=$(printf '%s\n' "$out" | sed -n 's/^@\[vfs_read\]: //p')
	o=$(printf '%s\n' "$out" | sed -n 's/^@\[vfs_open\]: //p')
	expect_eq book:vfscount_run "reads>=300 opens>=300" \
		"reads$([ "${r:-0}" -ge 300 ] && echo '>=' || echo "=${r:-none} <")300 opens$([ "${o:-0}" -ge 300 ] && echo '>=' || echo "=${o:-none} <")300"

	# elfsnoop: kretprobe:load_elf_binary, a name kallsyms has twice
	# (binfmt_elf and its compat copy), which 6.12 refuses by name: the
	# exec of kcalls, its file as interpreter and file, returning 0
	out=$("$SONDE" -q -c "$B/kcalls 1" "$book/elfsnoop.bt" 2>&1)
	expect_match book:elfsnoop_run " $B/kcalls +$B/kcalls +[^ ]+ +[0-9]+ +0\$" "$out"

	rm -rf "$bt"
	echo "    t_book: $((SECONDS - book_t0)) s, $lanes lane(s) of dry runs"
	unset -f book_check
	unset -v bt book lanes pids l r o out book_t0
fi
