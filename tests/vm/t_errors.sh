# t_errors.sh - refusals that need kprobes (issue #24): a kernel function
# that cannot be probed is S0201 with the reason, and its --explain page's
# example triggers it while the fixed script loads, on each kernel.

ex=$("$SONDE" --explain S0201 | awk '/^This script triggers it/ {f = 1; next} f && /^    / {sub(/^    /, ""); print; exit}')
fixed=$("$SONDE" --explain S0201 | awk '/^Fixed:/ {f = 1; next} f && /^    / {sub(/^    /, ""); print; exit}')
out=$("$SONDE" --dry-run -e "$ex" 2>&1; echo "rc=$?")
expect_match errors_kfunc_example_triggers "^stdin:1:1: error: kprobe:exc_page_fault cannot be probed: .*blacklist.* \[S0201\]$" "$out"
expect_match errors_kfunc_example_first_sentence "^note: The kernel will not place a probe on this function\.$" "$out"
expect_match errors_kfunc_example_fails '^rc=1$' "$out"
out=$("$SONDE" --dry-run -e "$fixed" 2>&1)
expect_match errors_kfunc_fixed_loads "dry run: 1 probe loaded and attached" "$out"
out=$("$SONDE" --dry-run -e 'kprobe:sonde_no_such_function { }' 2>&1)
expect_match errors_kfunc_missing "'sonde_no_such_function' is no function of this kernel that kprobes can reach .*\[S0201\]$" "$out"

# the verifier's wording of an unbounded loop on each kernel: located, S0102
out=$("$SONDE" --dry-run -e 'tracepoint:syscalls:sys_enter_read { $i = 0; while ($i < args->count) { $i++; } }' 2>&1)
expect_match errors_loop_located '^stdin:1:[0-9]+: error: .*cannot prove that this loop ends.* \[S0102\]$' "$out"
