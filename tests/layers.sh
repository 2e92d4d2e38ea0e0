#!/bin/bash
# The import graph runs one way: a folder includes only from folders at its
# own level or before it in
#   common -> host -> lexer -> parser -> sema -> codegen -> stdlib -> output -> runtime -> cli
# agent/ (the LD_PRELOAD library) sits beside host/: it may include common/
# only.  stdlib's builtins lower themselves through codegen's BPF-domain
# layer; codegen reaches a builtin through the AST node sema resolved it on.
# Every include names its folder from the root ("host/host.h"), except the
# generated parser.h, syscall_names.h and profile.pb-c.h.  tests/ is exempt.
# Also checks that every path, file and function docs/architecture.md
# names exists (layers:docs).  Writes "PASS|FAIL layers:NAME" lines to $1
# (or stdout) and exits non-zero on any arrow back up or a name gone.
cd "$(dirname "$0")/.." || exit 2
out=${1:-/dev/stdout}
level() {
	case $1 in
	common) echo 0 ;; host|agent) echo 1 ;; lexer) echo 2 ;; parser) echo 3 ;; sema) echo 4 ;;
	codegen) echo 5 ;; stdlib) echo 6 ;; output) echo 7 ;; runtime) echo 8 ;; cli) echo 9 ;;
	*) echo -1 ;;
	esac
}
fail=0
for dir in common host agent lexer parser sema codegen stdlib output runtime cli; do
	me=$(level "$dir")
	bad=""
	# every quoted include names its folder: #include "folder/file.h"
	while IFS=: read -r file inc; do
		to=${inc%%/*}
		if [ "$to" = "$inc" ]; then
			# only generated headers (build/gen) go without a folder
			case $inc in parser.h|syscall_names.h|profile.pb-c.h) continue ;; esac
			bad="$bad $file->$inc(no folder)"
			continue
		fi
		lv=$(level "$to")
		if [ "$lv" -lt 0 ] || [ "$lv" -gt "$me" ]; then
			bad="$bad $file->$inc"
		fi
	done < <(grep -Ho '^#include "[^"]*"' "$dir"/*.[chly] 2>/dev/null |
		 sed 's/#include "\(.*\)"/\1/')
	if [ -n "$bad" ]; then
		echo "FAIL layers:$dir (includes from a later layer:$bad)" >> "$out"
		fail=1
	else
		echo "PASS layers:$dir" >> "$out"
	fi
done
# docs/architecture.md: folder/file paths, `file.c` names and name()
# functions it mentions exist (placeholders such as NAME or test_<stage>
# are not names)
doc=docs/architecture.md
src="common host agent lexer parser sema codegen stdlib output runtime cli tools"
gone=""
for p in $(grep -oE '\b(common|host|agent|lexer|parser|sema|codegen|stdlib|output|runtime|cli|tools|tests|docs|scripts|bench|deploy)/[A-Za-z0-9_.*/-]*[A-Za-z0-9_]\b' "$doc" | sort -u); do
	case $p in *[A-Z][A-Z][A-Z]*|*_) continue ;; esac
	compgen -G "$p" > /dev/null || gone="$gone $p"
done
for f in $(grep -oE '`[a-z_0-9]+\.[chly]`' "$doc" | tr -d '`' | sort -u); do
	case $f in syscall_names.h) continue ;; esac	# generated (build/gen)
	compgen -G "*/$f" > /dev/null || gone="$gone $f"
done
for f in $(grep -oE '\b[a-z_][a-z0-9_]*\(' "$doc" | tr -d '(' | sort -u); do
	# shellcheck disable=SC2086
	grep -rqw --include='*.[chly]' -e "$f" $src || gone="$gone $f()"
done
if [ -n "$gone" ]; then
	echo "FAIL layers:docs (docs/architecture.md names what does not exist:$gone)" >> "$out"
	fail=1
else
	echo "PASS layers:docs" >> "$out"
fi
exit $fail
