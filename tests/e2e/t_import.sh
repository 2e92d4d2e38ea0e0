# t_import.sh - `import "PATH";` (parser/import.c, codegen/cimport.c): a
# script imports scripts (.bt: probes, macros, map declarations), headers
# (.h: struct definitions, #defines), BPF C (.bpf.c: compiled by clang,
# linked, its functions called from the script) and directories of them,
# nested and repeated; sonde's stdlib module stdlib/test; and every refusal
# says what and where.  All output is from BEGIN probes: exact bytes.
#
# The files live in $B/import (mode 755: an import from a directory anyone
# may write is refused, as /tmp would be).

if need_root import:bpf; then
D="$B/import"
rm -rf "$D"
mkdir -p "$D/lib/deeper" "$D/sub" "$D/ww"
chmod 755 "$D" "$D/lib" "$D/sub"
chmod 777 "$D/ww"

cat > "$D/helpers.bt" <<'EOF'
// helpers.bt: a macro, a map declaration and a probe of its own
macro greet() { printf("hello\n") }
let @seen = hash(16);
BEGIN { printf("helpers BEGIN\n"); @seen[1] = 1; }
EOF
cat > "$D/my_c_lib.bpf.c" <<'EOF'
int __add_one(int val) { return 1 + val; }
unsigned int __big(void) { return 4000000000u; }
int __neg(void) { return -5; }
int __first(const char *s) { return s[0]; }
void __nothing(long x) { }
struct pt { int x, y; };
int __by_value(struct pt p) { return p.x; }
EOF
cat > "$D/main.bt" <<'EOF'
import "helpers.bt";
import "my_c_lib.bpf.c";
BEGIN {
	greet();
	printf("%d %u %d %d\n", __add_one(1), __big(), __neg(), __first("abc"));
	__nothing(1);
	exit();
}
EOF
out=$("$SONDE" -q "$D/main.bt" 2>&1)
expect_eq import:bt_and_c "helpers BEGIN
hello
2 4000000000 -5 97


@seen[1]: 1" "$out"

# the release's documented example, and its runtime test interop
out=$("$SONDE" -q -e "import \"$D/my_c_lib.bpf.c\"; BEGIN { print(__add_one(1)); exit(); }" 2>&1)
expect_eq import:doc_example "2" "$(printf '%s\n' "$out" | sed '/^$/d')"
out=$("$SONDE" -q -e 'import "stdlib/test"; BEGIN { print(__always_true()); exit(); }' 2>&1)
expect_eq import:stdlib_test "1" "$(printf '%s\n' "$out" | sed '/^$/d')"

# imported C with a map of its own and helpers (libbpf's bpf_helpers.h),
# linked into every module of a script split into several (over 48 programs):
# one map, shared, and the license every module keeps (str() calls a GPL-only
# helper)
cat > "$D/counter.bpf.c" <<'EOF'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long);
} counter SEC(".maps");
long __bump(void) { int k = 0; long *v = bpf_map_lookup_elem(&counter, &k); if (!v) return -1; *v += 1; return *v; }
unsigned long long __tgid(void) { return bpf_get_current_pid_tgid() >> 32; }
EOF
{ echo 'import "counter.bpf.c";'; for i in $(seq 1 55); do echo 'BEGIN { __bump(); }'; done
  echo 'BEGIN { $s = str(0); printf("%d %d\n", __bump(), __tgid() == pid); exit(); }'; } > "$D/split.bt"
out=$("$SONDE" -q "$D/split.bt" 2>&1)
expect_eq import:c_map_split "56 1" "$(printf '%s\n' "$out" | sed '/^$/d')"

# imported C beside the CFI stack walker (codegen/unwind.c), both linked
# into one module: their "Dwarf Version" flags differ in behaviour (clang's
# Max 5, the walker's Warning 4), which LLVM 16 links; the verifier takes it
out=$("$SONDE" --dry-run -q -e 'import "stdlib/test"; profile:hz:99 { @[ustack] = count(); @n = __always_true(); }' 2>&1)
expect_eq import:c_with_walker "rc=0" "$out${out:+
}rc=$?"

# a directory (its .bt, .h, .bpf.c in name order; not deeper/ nor notes),
# nested imports relative to their own file, each file once
cat > "$D/lib/a.bt" <<'EOF'
BEGIN { printf("lib/a.bt\n"); }
EOF
cat > "$D/lib/types.h" <<'EOF'
#ifndef TYPES_H
#define TYPES_H
#define MAGIC 42
struct point { int x; int y; long z; };
#endif
EOF
cat > "$D/lib/twice.bpf.c" <<'EOF'
long __twice(long v) { return 2 * v; }
EOF
echo 'not a script' > "$D/lib/notes.txt"
echo 'BEGIN { printf("deeper\n"); }' > "$D/lib/deeper/c.bt"
cat > "$D/sub/n1.bt" <<'EOF'
import "n2.bt";
import "../lib/types.h";
BEGIN { printf("n1 %d\n", sizeof(struct point)); }
EOF
echo 'BEGIN { printf("n2\n"); }' > "$D/sub/n2.bt"
cat > "$D/tree.bt" <<'EOF'
import "lib";
import "sub/n1.bt";
import "sub/n2.bt";
import "lib/types.h";
import "lib";
BEGIN { printf("%d %d\n", MAGIC, __twice(21)); exit(); }
EOF
out=$("$SONDE" -q "$D/tree.bt" 2>&1)
expect_eq import:dir_nested_once "lib/a.bt
n2
n1 16
42 42" "$(printf '%s\n' "$out" | sed '/^$/d')"

# a quoted #include in an imported script is found beside that script (not
# beside the script sonde runs: "file not found" before)
mkdir -p "$D/inc" && chmod 755 "$D/inc"
echo '#define X 1' > "$D/inc/defs.h"
printf '#include "defs.h"\nBEGIN { printf("include ok\\n"); }\n' > "$D/inc/x.bt"
out=$("$SONDE" -q -e "import \"$D/inc/x.bt\"; BEGIN { exit(); }" 2>&1)
expect_eq import:include_beside "include ok" "$(printf '%s\n' "$out" | sed '/^$/d')"

# -e: paths are relative to the current directory
out=$(cd "$D" && "$SONDE" -q -e 'import "sub/n2.bt"; BEGIN { exit(); }' 2>&1)
expect_eq import:e_cwd "n2" "$(printf '%s\n' "$out" | sed '/^$/d')"

# ---- refusals ----
cd "$D" || exit 1
err() { "$SONDE" -q -e "$1" 2>&1 >/dev/null; echo "rc=$?"; }
expect_eq import:err_missing 'stdin:1:8: error: import "nothere.bt": no such file or directory: nothere.bt (an import is looked for beside the script that imports it; for -e and stdin, in the current directory)
import "nothere.bt"; BEGIN { }
       ^~~~~~~~~~~~
rc=1' "$(err 'import "nothere.bt"; BEGIN { }')"
expect_eq import:err_position 'stdin:1:11: error: import "helpers.bt" comes after a probe: imports go after the C definitions and before the probes, macros and map declarations
BEGIN { } import "helpers.bt";
          ^~~~~~~~~~~~~~~~~~~~
rc=1' "$(err 'BEGIN { } import "helpers.bt";')"
expect_eq import:err_kind 'stdin:1:8: error: import "lib/notes.txt": unknown kind of file '"'"'notes.txt'"'"': sonde imports .bt scripts, .h headers, .bpf.c BPF C and directories of them
import "lib/notes.txt"; BEGIN { }
       ^~~~~~~~~~~~~~~
rc=1' "$(err 'import "lib/notes.txt"; BEGIN { }')"
echo 'import "cyc2.bt"; BEGIN { }' > "$D/sub/cyc1.bt"
echo 'import "cyc1.bt"; BEGIN { }' > "$D/sub/cyc2.bt"
expect_eq import:err_cycle 'sub/cyc2.bt:1:8: error: import "cyc1.bt": an import cycle: sub/cyc1.bt imports sub/cyc2.bt, which imports sub/cyc1.bt
import "cyc1.bt"; BEGIN { }
       ^~~~~~~~~
rc=1' "$(err 'import "sub/cyc1.bt"; BEGIN { }')"
echo 'BEGIN { }' > "$D/ww/x.bt"
expect_eq import:err_world_writable 'stdin:1:8: error: import "ww": cowardly refusing to import from a directory with global write permissions: ww (anyone may put a file there; chmod o-w ww)
import "ww"; BEGIN { }
       ^~~~
rc=1' "$(err 'import "ww"; BEGIN { }')"
printf 'config = { max_map_keys = 10 }\nBEGIN { }\n' > "$D/cfg.bt"
expect_eq import:err_config 'cfg.bt:1:12: error: an imported script has no config block: only the script sonde runs sets the config
config = { max_map_keys = 10 }
           ^~~~~~~~~~~~
rc=1' "$(err 'import "cfg.bt"; BEGIN { }')"
# an error sema finds in an imported file names that file and line
printf 'BEGIN {\n\tprintf("%%d\\n", nosuch);\n}\n' > "$D/semerr.bt"
expect_eq import:err_located 'semerr.bt:2:17: error: unknown identifier '"'"'nosuch'"'"'
	printf("%d\n", nosuch);
	               ^~~~~~
rc=1' "$(err 'import "semerr.bt"; BEGIN { }')"
# a message located at run time (errorf) in an imported file: its file and line
printf '\n\nBEGIN { errorf("boom %%d", 7); }\n' > "$D/ef.bt"
out=$("$SONDE" -q -e 'import "ef.bt"; BEGIN { exit(); }' 2>&1 >/dev/null)
expect_eq import:errorf_located 'ef.bt:3:9-29: ERROR: boom 7
BEGIN { errorf("boom %d", 7); }
        ~~~~~~~~~~~~~~~~~~~~' "$out"
expect_eq import:err_signature 'stdin:1:40: error: __by_value(), of my_c_lib.bpf.c, cannot be called from a script: its argument 1 is '"'"'pt'"'"' (a struct, union or array by value) (sonde passes integers and pointers)
import "my_c_lib.bpf.c"; BEGIN { print(__by_value(1)); }
                                       ^~~~~~~~~~~~~
rc=1' "$(err 'import "my_c_lib.bpf.c"; BEGIN { print(__by_value(1)); }')"
expect_eq import:err_arg 'stdin:1:50: error: __add_one(): argument 1 is string[2], and the C function takes an integer
import "my_c_lib.bpf.c"; BEGIN { print(__add_one("x")); }
                                                 ^~~
rc=1' "$(err 'import "my_c_lib.bpf.c"; BEGIN { print(__add_one("x")); }')"
expect_eq import:err_module 'stdin:1:8: error: import "stdlib/nope": no such file or directory: stdlib/nope, and sonde'"'"'s stdlib has no module of that name (it has: stdlib/test)
import "stdlib/nope"; BEGIN { }
       ^~~~~~~~~~~~~
rc=1' "$(err 'import "stdlib/nope"; BEGIN { }')"
out=$(env -u SONDE_CLANG PATH=/nonexistent "$SONDE" -q -e 'import "my_c_lib.bpf.c"; BEGIN { }' 2>&1 >/dev/null)
expect_eq import:err_no_clang 'stdin:1:8: error: import "my_c_lib.bpf.c": compiling BPF C needs clang, and none was found: looked for clang-16, clang-15, clang-14 and clang in PATH (`make deps` installs clang-14; or set SONDE_CLANG)
import "my_c_lib.bpf.c"; BEGIN { }
       ^~~~~~~~~~~~~~~~' "$out"
echo 'int f( {' > "$D/broken.bpf.c"
out=$("$SONDE" -q -e 'import "broken.bpf.c"; BEGIN { }' 2>&1 >/dev/null)
expect_match import:err_clang 'broken.bpf.c:1:8: error: .*
stdin:1:8: error: import "broken.bpf.c": .*clang.* could not compile it \(its messages are above\)' "$out"
cd - >/dev/null || true
fi
