# t_newtools.sh - issue #21's tools check, the part this machine's kernel
# cannot run: bpftrace's tools that need kprobes (tests/e2e/tools/newest,
# shared with tests/e2e/t_newtools.sh, unchanged; SOURCES names the commit
# of each) load under `sonde --dry-run` in the 6.12 guest, one run each
# (newtools_load.sh: at least the probes each attaches there).  loads.bt
# joins them: its kaddr("avenrun") needs a kallsyms that lists variables,
# which this machine's kernel lacks and Debian's has.  The tools are
# written for current kernels (block_io_start, cfs_rq.nr_queued ...), so
# the older kernels of the matrix skip them.

if [ "$VMK" != 6.12 ]; then
	skip newtools:dry_run "bpftrace's newest tools are checked on the newest kernel of the matrix (6.12), not $VMK"
else
	. "$top/tests/e2e/newtools_load.sh"
	# mdflush.bt and xfsdist.bt probe functions of modules (md_mod, xfs)
	# that nothing in the guest loads
	for m in md_mod xfs; do
		modprobe "$m" 2>/dev/null
	done
	for tp in biolatency-kp:2 capable:3 dcsnoop:4 mdflush:2 oomkill:2 swapin:2 tcpaccept:2 \
		tcpconnect:2 tcplife:3 tcpretrans:3 tcpsynbl:4 undump:3 vfscount:50 vfsstat:10 \
		xfsdist:10 loads:2; do
		newtools_load "${tp%%:*}" "${tp#*:}"
	done
fi
