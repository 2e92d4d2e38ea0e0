#!/bin/bash
# tests/e2e/bt026/run.sh [NAME-REGEX] - bpftrace's runtime tests (runtime/*,
# see README.md) under sonde, by this project's runner check.py.
#   SONDE=build/asan/sonde   the tracer (default build/sonde)
#   BT026_WORK=DIR           where testprogs/ are built (default build/e2e/bt026)
#   BT026_PREFIX=e2e:bt026:  what each result's name starts with
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
mkdir -p "$work/testprogs" "$work/bin"
# testprogs: each built when its source is newer than it
for c in "$here"/testprogs/*.c "$here"/testprogs/*.cpp; do
	n=$(basename "${c%.*}")
	cc=gcc; [ "${c##*.}" = cpp ] && cc=g++
	flags="-g -O0"
	case $n in uprobe_loop|uprobe_symres*) flags="$flags -fno-omit-frame-pointer -no-pie" ;; esac
	[ "$work/testprogs/$n" -nt "$c" ] && continue
	$cc $flags -o "$work/testprogs/$n" "$c" -lpthread 2>"$work/testprogs/$n.log" ||
		echo "run.sh: cannot build testprogs/$n (see $work/testprogs/$n.log)" >&2
done
# hello_rust.rs (languages), in a debug build that keeps fun1 a function
# of its own, when rustc is here; without it that test skips on its REQUIRES
if command -v rustc > /dev/null && [ ! "$work/testprogs/hello_rust" -nt "$here/testprogs/hello_rust.rs" ]; then
	rustc -g -C opt-level=0 -o "$work/testprogs/hello_rust" "$here/testprogs/hello_rust.rs" \
		2>"$work/testprogs/hello_rust.log" ||
		echo "run.sh: cannot build testprogs/hello_rust (see $work/testprogs/hello_rust.log)" >&2
fi
ln -sfn "$here/runtime" "$work/runtime"
ln -sfn "$sonde" "$work/bin/bpftrace"
# the files whose stored version is of bpftrace's older format, where EXPECT
# is a regex (README.md): none of them uses EXPECT_REGEX or the like
regex_files=array,call,delete_wildcard,file-output,intcast,intptrcast,struct,tuples,variable
cd "$work" || exit 2
PATH=$work/bin:$PATH exec python3 "$here/check.py" --tracer "$work/bin/bpftrace" --work "$work" \
	--skips "$here/skips.txt" --regex-expect "$regex_files" --prefix "${BT026_PREFIX:-}" ${1:+--only "$1"} "$here"/runtime/[a-z]*
