#!/bin/bash
# End-to-end tests: build/sonde (the ASan build in make check) with real BPF
# on this kernel, against workloads these tests compile themselves.
cd "$(dirname "$0")"
. ./lib.sh
for t in t_*.sh; do
	echo "== $t"
	. "./$t"
done
exit 0
