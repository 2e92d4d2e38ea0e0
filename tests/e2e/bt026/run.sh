#!/bin/bash
# tests/e2e/bt026/run.sh [NAME-REGEX] - bpftrace's runtime tests (runtime/*,
# see README.md) under sonde, by this project's runner check.py.
#   SONDE=build/asan/sonde   the tracer (default build/sonde)
#   BT026_WORK=DIR           where testprogs/ are built (default build/e2e/bt026)
#   BT026_PREFIX=e2e:bt026:  what each result's name starts with
#   BT026_KFUNC=only         run only the tests of kprobes and fentry (the
#                            kernel VM suite's 6.12 guest, tests/vm/t_bt026.sh);
#                            default: skip them (this host has neither)
#   BT026_TIMES=1            each test's seconds on a line after its result
#   BT026_EXIT_TIMEOUT=S     the least TIMEOUT of a test whose program ends
#                            itself with exit() (the guest: 15 s; it passes as
#                            soon as it ends, only a failure waits longer)
#   BT026_BUILD_ONLY=1       build the test programs and stop (tests/vm/suite.sh
#                            builds them on the host: the guest's gcc is emulated)
# One line per test on stdout: "PASS|FAIL|SKIP PREFIX FILE.NAME" (a SKIP says
# why after ": ", a FAIL in parentheses, then its command and output).
# The tests run in a directory laid out as bpftrace's build/tests: ./runtime
# (scripts/, outputs/), ./testprogs/NAME, and the tracer as ./bpftrace, so
# that `comm` and `pkill bpftrace` of the tests name it as they expect.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
sonde=${SONDE:-$top/build/sonde}
case $sonde in /*) ;; *) sonde=$PWD/$sonde ;; esac
[ -x "$sonde" ] || { echo "run.sh: no sonde at '$sonde'" >&2; exit 2; }
work=${BT026_WORK:-$top/build/e2e/bt026}
mkdir -p "$work/testprogs" "$work/testlibs" "$work/bin"
# build OUT DEP... -- CMD...: CMD makes OUT unless OUT is newer than each DEP;
# a failure is said (the tests that need OUT then fail or skip on it)
build() {
	local out=$1 fresh=1; shift
	while [ "$1" != -- ]; do [ "$out" -nt "$1" ] || fresh=0; shift; done; shift
	[ $fresh = 1 ] && return 0
	# the log apart: a glob of the tests (testprogs/usdt_test*) must not meet it
	local log=$work/logs/${out#"$work"/}.log
	mkdir -p "$(dirname "$log")"
	"$@" 2>"$log" || { echo "run.sh: cannot build ${out#"$work"/} (see $log)" >&2; return 1; }
}
# testlibs (shared objects, not executable, as bpftrace's CMake makes them)
for c in "$here"/testlibs/*.c; do
	n=$(basename "${c%.c}")
	build "$work/testlibs/lib$n.so" "$c" -- gcc -g -O0 -shared -fPIC -I"$here/include" \
		-o "$work/testlibs/lib$n.so" "$c" && chmod -x "$work/testlibs/lib$n.so"
done
# testprogs, as tests/testprogs/CMakeLists.txt of v0.26.1 builds them: no
# PIE, frame pointers (uprobe_nofp without), NAME-pie beside
tp=$work/testprogs
for c in "$here"/testprogs/*.c "$here"/testprogs/*.cpp; do
	n=$(basename "${c%.*}")
	cc=gcc; [ "${c##*.}" = cpp ] && cc=g++
	flags="-g -O0 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
	[ "$n" = uprobe_nofp ] && flags="-g -O1 -fomit-frame-pointer -fno-optimize-sibling-calls"
	# the sources' paths in the DWARF as /bt026/...: the tests' regexes for
	# show_debug_info's file:line take [\w/]+ (a checkout's path with a '-'
	# in it, /work/ci-run4/..., is not one)
	flags="$flags -fdebug-prefix-map=$here=/bt026"
	libs=-lpthread
	[ "$n" = usdt_lib ] && libs="-fPIC -I$here/testlibs -L$work/testlibs -Wl,-rpath,$work/testlibs -lusdt_tp"
	build "$tp/$n" "$c" -- $cc $flags -I"$here/include" -no-pie -o "$tp/$n" "$c" $libs
	build "$tp/$n-pie" "$c" -- $cc $flags -I"$here/include" -fpie -pie -o "$tp/$n-pie" "$c" $libs
done
# a flat binary of false.c's main, a zip holding `true`, stripped programs
# with their debug info apart (--debuginfo DIR, ./.debug), split DWARF
# (its package by LLVM's llvm-dwp: binutils' dwp crashes on it)
mkdir -p "$tp/external_debug/dwo" "$tp/external_debug/dwp" "$tp/.debug"
build "$tp/false.bin" "$here/testprogs/false.c" -- sh -c "gcc -c -o '$tp/false.o' '$here/testprogs/false.c' &&
	objcopy -S --only-section=.text --keep-symbol=main -O binary '$tp/false.o' '$tp/false.bin'"
build "$tp/archive.zip" "$tp/true" -- python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z: z.write(sys.argv[2], "true")' "$tp/archive.zip" "$tp/true"
build "$tp/uprobe_test-stripped" "$tp/uprobe_test" -- sh -c "
	objcopy --only-keep-debug '$tp/uprobe_test' '$tp/external_debug/uprobe_test-stripped.debug' &&
	objcopy --strip-debug '$tp/uprobe_test' '$tp/uprobe_test-stripped'"
build "$tp/uprobe_separate_debug-stripped" "$tp/uprobe_separate_debug" -- sh -c "
	objcopy --only-keep-debug '$tp/uprobe_separate_debug' '$tp/.debug/uprobe_separate_debug-stripped.debug' &&
	objcopy --strip-debug '$tp/uprobe_separate_debug' '$tp/uprobe_separate_debug-stripped' &&
	objcopy --add-gnu-debuglink='$tp/.debug/uprobe_separate_debug-stripped.debug' '$tp/uprobe_separate_debug-stripped'"
build "$tp/external_debug/dwo/uprobe_test-split" "$here/testprogs/uprobe_test.c" -- sh -c "
	cd '$tp/external_debug/dwo' && gcc -g -O0 -gsplit-dwarf '$here/testprogs/uprobe_test.c' -o uprobe_test-split"
build "$tp/external_debug/dwp/uprobe_test-split" "$here/testprogs/uprobe_test.c" -- sh -c "
	cd '$tp/external_debug/dwp' && gcc -g -O0 -gsplit-dwarf '$here/testprogs/uprobe_test.c' -o uprobe_test-split &&
	/usr/lib/llvm-16/bin/llvm-dwp -e uprobe_test-split -o uprobe_test-split.dwp && rm -f ./*.dwo"
# hello_rust.rs and hello_go.go (languages) when rustc and go are here;
# without them those tests skip on their REQUIRES
if command -v rustc > /dev/null; then
	build "$tp/hello_rust" "$here/testprogs/hello_rust.rs" -- \
		rustc -C symbol_mangling_version=v0 -o "$tp/hello_rust" "$here/testprogs/hello_rust.rs"
fi
if command -v go > /dev/null; then
	build "$tp/hello_go" "$here/testprogs/hello_go.go" -- sh -c "cd '$here/testprogs' &&
		GOCACHE='$work/gocache' go build -o '$tp/hello_go' hello_go.go"
fi
[ -n "${BT026_BUILD_ONLY:-}" ] && exit 0
ln -sfn "$here/runtime" "$work/runtime"
ln -sfn "$sonde" "$work/bin/bpftrace"
# bpftool as the tests run it (probe.*_multi_wildcard: system("bpftool link
# | grep ... | wc -l")): `bpftool link` and `bpftool prog` list only what
# the tracer that runs the command holds, the nearest `bpftrace` among its
# ancestors.  bpftrace's tests count every link on the machine, and make
# check runs other tracers (other e2e files, the differential suite) beside
# this one, whose links made the count 2.  Other commands are bpftool's own.
real_bpftool=$(PATH=${PATH#"$work/bin:"} command -v bpftool)
rm -f "$work/bin/bpftool"
if [ -n "$real_bpftool" ]; then
	cat > "$work/bin/bpftool" <<EOF
#!/bin/sh
case "\$*" in
link|"link show"|"link list") kind=link ;;
prog|"prog show"|"prog list") kind=prog ;;
*) exec '$real_bpftool' "\$@" ;;
esac
p=\$PPID n=0
while [ "\$p" -gt 1 ] && [ "\$(cat /proc/\$p/comm 2>/dev/null)" != bpftrace ] && [ \$n -lt 8 ]; do
	p=\$(awk '{ print \$4 }' /proc/\$p/stat 2>/dev/null || echo 1) n=\$((n + 1))
done
ids=\$(cat /proc/\$p/fdinfo/* 2>/dev/null | awk -v k="\${kind}_id:" '\$1 == k { print \$2 }')
'$real_bpftool' "\$@" | awk -v ids="\$ids" '
	BEGIN { n = split(ids, a); for (i = 1; i <= n; i++) own[a[i]] = 1 }
	/^[0-9]+:/ { keep = (\$1 + 0) in own }
	keep'
EOF
	chmod +x "$work/bin/bpftool"
fi
cd "$work" || exit 2
PATH=$work/bin:$PATH exec python3 "$here/check.py" --tracer "$work/bin/bpftrace" --work "$work" \
	--skips "${BT026_SKIPS:-$here/skips.txt}" --prefix "${BT026_PREFIX:-}" ${1:+--only "$1"} \
	--kernel-functions "${BT026_KFUNC:-skip}" ${BT026_TIMES:+--times} \
	${BT026_EXIT_TIMEOUT:+--exit-timeout "$BT026_EXIT_TIMEOUT"} "$here"/runtime/[a-z]*
