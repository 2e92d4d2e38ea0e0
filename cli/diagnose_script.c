/*
 * diagnose_script.c - the sonde script `sonde diagnose` writes for one
 * service: the scheduler's raw tracepoints that keep each thread's state
 * (running, waiting for a CPU, blocked and in what), the syscalls, block
 * requests and ioctls beside them, and the GIL's (diagnose_gil.c) and
 * CUDA's (diagnose_cuda.c) probes; cli/diagnose.c runs it and reads its
 * maps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "cli/diagnose_cuda.h"
#include "cli/diagnose_gil.h"
#include "cli/diagnose_script.h"
#include "common/arena.h"
#include "host/host.h"
#include "stdlib/decode.h"

/* the field that holds a task's state: __state since 5.14, state before */
static const char *task_state_field(void)
{
	const struct btf *btf = host_kernel_btf();
	int id = btf ? btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), "__state"))
			return "__state";
	return "state";
}

/*
 * Maps, each keyed by thread id unless said otherwise:
 *   @svt        a thread of the service          @tgid, @tcomm  its process and name
 *               (at each switch-out and exec)
 *   @st @ts     its state (0 not seen yet, 1 running, 2 waiting for a CPU, 3 blocked,
 *               4 ended) and since when
 *   @bsc @bd    the syscall + 1 (0: none) it blocked in, and whether in D
 *   @run @wait  time running, waiting for a CPU  @waitmax @waith  longest wait, histogram (us)
 *   @blk[tid, syscall + 1, d]  time blocked, by syscall and D
 *   @wcpu       the CPU + 1 it waits on          @nwait[cpu]  service threads waiting there
 *   @since[cpu] when the current task there was switched in
 *   @instead[comm, pid]  time tasks (other threads of the service too) ran on a CPU where
 *               a service thread waited
 *   @born @dead when a thread started or ended inside the window
 *   @rdk        the kernel's run_delay (schedstat's) at its last switch-out
 *   @sc @sct    the syscall + 1 in progress and its start
 *   @ioc_n @ioc_ns[tid, fd, cmd, rm cmd]  ioctls and their time
 *   @bioq[dev, sector] = tid; @rqs[dev, sector] = issue time; @bio_n @bio_ns @bio_h
 *   @rw_n @rw_ns[tid, syscall]  the read and write family's calls and time
 *   @majx @minx the fault counters of threads that exited
 *   @cu_n @cu_ns[tid, func]  CUDA runtime and driver calls and their time, each call
 *               once (@cud its depth, @cus its start: diagnose_cuda.c)
 */
/* the syscalls whose latency is the thread's view of its I/O */
static const char *const rw_calls[] = {
	"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev",
	"preadv2", "pwritev2", "fsync", "fdatasync",
};

char *dx_script(struct arena *a, const struct dx_script *x)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	const char *st = task_state_field();
	int64_t ioctl_nr = syscall_number("ioctl");
	/* "$id == 0 || $id == 1 ..." for the syscalls that read or write data */
	char rw_cond[512] = "0";
	size_t rl = 1;
	for (size_t i = 0; i < sizeof(rw_calls) / sizeof(rw_calls[0]); i++) {
		int64_t nr = syscall_number(rw_calls[i]);
		if (nr >= 0)
			rl += (size_t)snprintf(rw_cond + rl, sizeof(rw_cond) - rl, " || $id == %" PRId64, nr);
	}
	/* the message tells the cli to read the kernel's counters again, now
	 * that the probes run (compiling and loading took a while) */
	fputs("BEGIN { @t0 = nsecs; printf(\"" DX_BEGIN_MARK "\\n\");", f);
	for (int i = 0; i < x->n; i++)
		if (x->tids[i] != x->child)
			fprintf(f, " @svt[%d] = 1; @tgid[%d] = %d;", x->tids[i], x->tids[i], x->pids[i]);
	fputs(" }\n", f);
	/* a -c command starts at its exec: before, it is sonde's child, held
	 * until the probes run and then waiting for a CPU to exec (seconds on
	 * a loaded machine); its run_delay counts from there (@rd0) */
	fprintf(f, "tracepoint:sched:sched_process_exec /!@tend && (@svt[tid] || pid == %d)/ {\n"
"	if (!@svt[tid]) {\n"
"		@svt[tid] = 1; @tgid[tid] = pid; @born[tid] = nsecs; @st[tid] = 1; @ts[tid] = nsecs;\n"
"		@rd0[tid] = curtask->sched_info.run_delay;\n"
"	}\n"
"	@tcomm[tid] = comm;\n"
"}\n", x->child);
	fprintf(f,
"rawtracepoint:sched_process_fork /!@tend/ {\n"
"	$c = (struct task_struct *)arg1;\n"
"	if (@svt[((struct task_struct *)arg0)->pid]) {\n"
"		$t = $c->pid;\n"
"		@svt[$t] = 1; @tgid[$t] = $c->tgid; @born[$t] = nsecs;\n"
"		@st[$t] = 3; @ts[$t] = nsecs; @bsc[$t] = 0; @bd[$t] = 0;\n"
"	}\n"
"}\n"
"tracepoint:sched:sched_process_exit /@svt[tid]/ {\n"
"	@majx[tid] = curtask->maj_flt; @minx[tid] = curtask->min_flt;\n"
"}\n"
		/* a wakeup of a thread still on its CPU (woken before it slept)
		 * changes nothing; of a blocked one, ends its block */
"rawtracepoint:sched_wakeup, rawtracepoint:sched_wakeup_new /!@tend/ {\n"
"	$k = (struct task_struct *)arg0; $t = $k->pid;\n"
"	if (@svt[$t]) {\n"
"		if ($k->on_cpu) {\n"
"			if (@st[$t] == 0) { @st[$t] = 1; }\n"
"		} else if (@st[$t] == 0 || @st[$t] == 3) {\n"
"			$now = nsecs;\n"
"			$b = $now - (@ts[$t] ? @ts[$t] : @t0);\n"
"			@blk[$t, @bsc[$t], @bd[$t]] = sum($b);\n"
"%s"
"			$w = $k->wake_cpu;\n"
"			@st[$t] = 2; @ts[$t] = $now; @wcpu[$t] = $w + 1; @nwait[$w]++;\n"
"		}\n"
"	}\n"
"}\n"
"rawtracepoint:sched_migrate_task /!@tend/ {\n"
"	$t = ((struct task_struct *)arg0)->pid;\n"
"	if (@wcpu[$t]) {\n"
"		$o = @wcpu[$t] - 1;\n"
"		if (@nwait[$o] > 0) { @nwait[$o]--; }\n"
"		@nwait[arg1]++; @wcpu[$t] = arg1 + 1;\n"
"	}\n"
"}\n"
		/* a switch-out ends a run, a switch-in a wait; a state that says
		 * otherwise means an event went missing, and the spell counts
		 * as what the event proves (the kernel may not report a switch
		 * now and then; see docs/diagnose.md) */
"rawtracepoint:sched_switch /!@tend/ {\n"
"	$now = nsecs;\n"
"	$pt = (struct task_struct *)arg1; $nt = (struct task_struct *)arg2;\n"
"	$p = $pt->pid; $n = $nt->pid;\n"
"	if (@nwait[cpu] > 0 && $p != 0) {\n"
"		@instead[$pt->comm, $pt->tgid] = sum($now - (@since[cpu] ? @since[cpu] : @t0));\n"
"	}\n"
"	@since[cpu] = $now;\n"
"	if (@svt[$p]) {\n"
"		$d = $now - (@ts[$p] ? @ts[$p] : @t0);\n"
"		if (@st[$p] == 3) { @blk[$p, @bsc[$p], @bd[$p]] = sum($d); } else { @run[$p] = sum($d); }\n"
"		if (@wcpu[$p]) { $c = @wcpu[$p] - 1; if (@nwait[$c] > 0) { @nwait[$c]--; } delete(@wcpu[$p]); }\n"
"		@ts[$p] = $now; @tgid[$p] = $pt->tgid; @tcomm[$p] = $pt->comm;\n"
"		@rdk[$p] = $pt->sched_info.run_delay;\n"
"		$s = $pt->%s;\n"
"		if (arg0 || ($s & 0xff) == 0) {\n"
"			@st[$p] = 2; @wcpu[$p] = cpu + 1; @nwait[cpu]++;\n"
"		} else if ($s & 0xb0) {\n"
"			@st[$p] = 4; @dead[$p] = $now;\n"
"		} else {\n"
"			@st[$p] = 3; @bsc[$p] = @sc[$p]; @bd[$p] = ($s & 2) ? 1 : 0;\n"
"		}\n"
"	}\n"
"	if (@svt[$n]) {\n"
"		$w = $now - (@ts[$n] ? @ts[$n] : @t0);\n"
"		if (@st[$n] == 3) {\n"
"			@blk[$n, @bsc[$n], @bd[$n]] = sum($w);\n"
"%s"
"		} else {\n"
"			@wait[$n] = sum($w); @waitmax[$n] = max($w); @waith[$n] = hist($w / 1000);\n"
"%s"
"		}\n"
"		if (@wcpu[$n]) { $c = @wcpu[$n] - 1; if (@nwait[$c] > 0) { @nwait[$c]--; } delete(@wcpu[$n]); }\n"
"		@st[$n] = 1; @ts[$n] = $now;\n"
"	}\n"
"}\n"
"tracepoint:raw_syscalls:sys_enter /!@tend && @svt[tid]/ {\n"
"	@sc[tid] = args->id + 1; @sct[tid] = nsecs;\n"
"%s"
"	if (args->id == %" PRId64 ") {\n"
"		@ifd[tid] = args->args[0]; @icmd[tid] = args->args[1];\n"
		/* NV_ESC_RM_CONTROL (type 'F', nr 0x2a): its struct's cmd, at 8 */
"		@irm[tid] = (args->args[1] & 0xffff) == 0x462a ? *(uint32 *)uptr(args->args[2] + 8) : 0;\n"
"	}\n"
"}\n"
"tracepoint:raw_syscalls:sys_exit /@svt[tid] && @sc[tid]/ {\n"
"	$id = @sc[tid] - 1; $d = nsecs - @sct[tid];\n"
"%s"
		/* the read and write family's latency: I/O as the thread sees it */
"	if (%s) { @rw_n[tid, $id] = count(); @rw_ns[tid, $id] = sum($d); }\n"
"	if ($id == %" PRId64 ") {\n"
"		@ioc_n[tid, @ifd[tid], @icmd[tid], @irm[tid]] = count();\n"
"		@ioc_ns[tid, @ifd[tid], @icmd[tid], @irm[tid]] = sum($d);\n"
"	}\n"
"	delete(@sc[tid]); delete(@sct[tid]);\n"
"}\n"
"tracepoint:block:block_bio_queue /@svt[tid]/ { @bioq[args->dev, args->sector] = tid; }\n"
"tracepoint:block:block_rq_issue /@bioq[args->dev, args->sector]/ {\n"
"	@rqs[args->dev, args->sector] = nsecs;\n"
"}\n"
"tracepoint:block:block_rq_complete /@rqs[args->dev, args->sector]/ {\n"
"	$t = @bioq[args->dev, args->sector];\n"
"	$d = nsecs - @rqs[args->dev, args->sector];\n"
"	@bio_n[$t] = count(); @bio_ns[$t] = sum($d); @bio_h[$t] = hist($d / 1000);\n"
"	delete(@rqs[args->dev, args->sector]); delete(@bioq[args->dev, args->sector]);\n"
"}\n", dxpy_where(x->py, "$t", "$k->tgid", false, "$b", ioctl_nr), st,
		dxpy_where(x->py, "$n", "$nt->tgid", false, "$w", ioctl_nr),
		dxpy_where(x->py, "$n", "$nt->tgid", true, "$w", ioctl_nr), dxpy_sys_enter(x->py), ioctl_nr,
		dxpy_sys_exit(x->py), rw_cond, ioctl_nr);
	dxpy_begin(f, x->py);
	dxpy_probes(f, x->py);
	dxc_script(a, f, x->cu);
	/* once: until it is detached the timer goes on firing */
	if (x->seconds)
		fprintf(f, "interval:s:%u /!@tend/ { @tend = nsecs; printf(\"" DX_END_MARK "\\n\"); exit(); }\n",
			x->seconds);
	fputs("END { if (!@tend) { @tend = nsecs; } }\n", f);
	fclose(f);
	char *copy = arena_strdup(a, text);
	free(text);
	return copy;
}
