/*
 * test_report.c - sonde diagnose's analysis and report (output/report.c):
 * grouping threads by process and name, the throttled share of a wait,
 * which threads count as the busiest, the ranking of the blind spots, and
 * both printers, from reports built by hand; the GIL's verdict and the
 * stacks where time was lost (output/report_gil.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/arena.h"
#include "output/output.h"

#define MS 1000000ull

static struct dx_thread thread(int pid, int tid, const char *comm, uint64_t wall_ms)
{
	struct dx_thread t = {.pid = pid, .tid = tid, .comm = comm, .cgroup = -1};
	t.wall_ns = wall_ms * MS;
	return t;
}

static char *text_of(const struct dx_report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(json ? dx_print_json : dx_print_text)(f, r);
	fclose(f);
	return buf;
}

/* a worker that waits for a CPU most of the time, beside an idle API
 * thread asleep in a futex: the verdict is the run queue, named after the
 * worker, and the idle thread does not dilute the share */
static void test_runqueue_verdict(void **state)
{
	struct arena *a = arena_new();
	struct dx_thread t[3] = {thread(10, 10, "engine", 1000), thread(10, 11, "api", 1000),
				 thread(10, 12, "engine", 1000)};
	t[0].ns[DX_RUN] = 300 * MS, t[0].ns[DX_RUNQ] = 700 * MS, t[0].wait_max_ns = 40 * MS;
	t[2].ns[DX_RUN] = 400 * MS, t[2].ns[DX_RUNQ] = 600 * MS;
	t[1].ns[DX_FUTEX] = 1000 * MS;
	struct dx_other inst[] = {{"loop", 99, 900 * MS}};
	struct dx_report r = {.target = "pid 10 (engine)", .seconds = 1, .threads = t, .nthreads = 3,
			      .instead = inst, .ninstead = 1};
	dx_analyse(a, &r);
	assert_int_equal(r.ngroups, 2);
	assert_string_equal(r.groups[0].comm, "engine");
	assert_int_equal(r.groups[0].nthreads, 2);
	assert_true(r.groups[0].busy);
	assert_false(r.groups[1].busy);
	assert_int_equal(r.nfindings, 1);
	assert_int_equal(r.findings[0].cat, DX_RUNQ);
	assert_true(r.findings[0].share > 0.64 && r.findings[0].share < 0.66);
	char *text = text_of(&r, false);
	assert_non_null(strstr(text, "1. waiting for a CPU: 65 % of the busiest threads' time"));
	assert_non_null(strstr(text, "loop (pid 99) held the CPU longest meanwhile"));
	assert_non_null(strstr(text, "api (pid 10), 1 thread, 1.00 s of thread time (mostly idle)"));
	free(text);
	arena_free(a);
}

/* cpu.stat's throttled time is taken out of the waits of the cgroup's
 * threads, in proportion to them, and ranks above what is left */
static void test_throttled_split(void **state)
{
	struct arena *a = arena_new();
	struct dx_thread t[2] = {thread(20, 20, "svc", 1000), thread(20, 21, "svc", 1000)};
	t[0].ns[DX_RUN] = 200 * MS, t[0].ns[DX_RUNQ] = 800 * MS, t[0].cgroup = 0;
	t[1].ns[DX_RUN] = 600 * MS, t[1].ns[DX_RUNQ] = 400 * MS, t[1].cgroup = 0;
	struct dx_cgroup cg = {.path = "/sys/fs/cgroup/cpu/svc", .quota = "20000/100000 us",
			       .nr_periods = 10, .nr_throttled = 9, .throttled_ns = 900 * MS};
	struct dx_report r = {.target = "t", .seconds = 1, .threads = t, .nthreads = 2,
			      .cgroups = &cg, .ncgroups = 1};
	dx_analyse(a, &r);
	assert_int_equal(t[0].ns[DX_THROTTLED], 600 * MS);
	assert_int_equal(t[0].ns[DX_RUNQ], 200 * MS);
	assert_int_equal(t[1].ns[DX_THROTTLED], 300 * MS);
	assert_int_equal(r.nfindings, 2);
	assert_int_equal(r.findings[0].cat, DX_THROTTLED);
	assert_int_equal(r.findings[1].cat, DX_RUNQ);
	char *text = text_of(&r, false);
	assert_non_null(strstr(text, "was throttled in 9 of 10 periods"));
	free(text);
	/* JSON lists every cgroup, one without a quota first too */
	struct dx_cgroup two[2] = {{.path = "/sys/fs/cgroup/cpu/", .quota = "none"}, cg};
	r.cgroups = two;
	r.ncgroups = 2;
	char *json = text_of(&r, true);
	assert_non_null(strstr(json, "\"cgroups\": [{\"path\": \"/sys/fs/cgroup/cpu/\", \"quota\": \"none\""));
	assert_non_null(strstr(json, "}, {\"path\": \"/sys/fs/cgroup/cpu/svc\""));
	free(json);
	arena_free(a);
}

/* a thread that runs or sleeps by its own choice: nothing to report */
static void test_healthy(void **state)
{
	struct arena *a = arena_new();
	struct dx_thread t[1] = {thread(30, 30, "loop", 2000)};
	t[0].ns[DX_RUN] = 1950 * MS, t[0].ns[DX_RUNQ] = 40 * MS, t[0].ns[DX_SLEEP] = 10 * MS;
	struct dx_report r = {.target = "t", .seconds = 2, .threads = t, .nthreads = 1};
	dx_analyse(a, &r);
	assert_int_equal(r.nfindings, 0);
	char *text = text_of(&r, false);
	assert_non_null(strstr(text, "no host-side bottleneck found"));
	free(text);
	arena_free(a);
}

/* the JSON report: one object, every category, the GPU calls by name */
/* four threads of one name that wait for the GIL 70 % of their time: the
 * GIL ranks first, named after the holder the waits were spent on most
 * and the innermost frame of the holder stack seen most; the three
 * heaviest stacks print under it, four frames each, and JSON carries
 * them with the holders */
static void test_gil_verdict(void **state)
{
	struct arena *a = arena_new();
	struct dx_thread t[4];
	for (int i = 0; i < 4; i++) {
		t[i] = thread(10, 11 + i, "AnyIO worker thread", 1000);
		t[i].ns[DX_RUN] = 250 * MS, t[i].ns[DX_GIL] = 700 * MS, t[i].ns[DX_RUNQ] = 50 * MS;
		t[i].gil_held_ns = 240 * MS;
	}
	struct dx_holder h[] = {{10, 13, "AnyIO worker thread", 900 * MS}, {10, 11, "AnyIO worker thread", 800 * MS}};
	struct dx_stack st[] = {
		{DX_GIL, "tok (/srv/pre.py:12)\npreprocess (/srv/pre.py:30)\ninfer (/srv/app.py:8)\n"
			 "run (/x.py:1)\nouter (/x.py:2)", 70, true},
		{DX_GIL, "other (/srv/pre.py:40)", 20, true},
		{DX_GIL, "third (/srv/pre.py:50)", 5, true},
		{DX_GIL, "fourth (/srv/pre.py:60)", 5, true},
		{DX_RUNQ, "loop (/srv/x.py:1)", 10, false},
	};
	struct dx_report r = {.target = "pid 10 (python3)", .seconds = 1, .threads = t, .nthreads = 4,
			      .holders = h, .nholders = 2, .stacks = st, .nstacks = 5};
	dx_analyse(a, &r);
	assert_int_equal(r.ngroups, 1);
	assert_int_equal(r.groups[0].gil_held_ns, 960 * MS);
	assert_int_equal(r.nfindings, 1);
	assert_int_equal(r.findings[0].cat, DX_GIL);
	assert_string_equal(r.findings[0].evidence,
			    "AnyIO worker thread (pid 10) waited for the GIL 70 % of its time; the GIL was "
			    "held meanwhile most by AnyIO worker thread (tid 13, pid 10: 53 % of the waits), "
			    "running tok (/srv/pre.py:12)");
	char *text = text_of(&r, false);
	assert_non_null(strstr(text, "    waiting for the GIL          2800.0 ms   70.0 %\n"));
	assert_non_null(strstr(text, "    held the GIL on a CPU (sampled): 960.0 ms, 24.0 %\n"));
	assert_non_null(strstr(text, "     Seen most (the GIL holder's stack, sampled):\n"
				     "        70 %  tok (/srv/pre.py:12)\n"
				     "              preprocess (/srv/pre.py:30)\n"
				     "              infer (/srv/app.py:8)\n"
				     "              run (/x.py:1)\n"
				     "        20 %  other (/srv/pre.py:40)\n"
				     "         5 %  third (/srv/pre.py:50)\n"));
	assert_null(strstr(text, "fourth"));
	assert_null(strstr(text, "outer"));
	free(text);
	char *json = text_of(&r, true);
	assert_non_null(strstr(json, "\"stacks\": [{\"frames\": [\"tok (/srv/pre.py:12)\", "
				     "\"preprocess (/srv/pre.py:30)\", \"infer (/srv/app.py:8)\", "
				     "\"run (/x.py:1)\", \"outer (/x.py:2)\"], \"weight\": 70, \"unit\": \"samples\"}"));
	assert_non_null(strstr(json, "\"gil_holders\": [{\"pid\": 10, \"tid\": 13, \"thread\": "
				     "\"AnyIO worker thread\", \"waited_ns\": 900000000}"));
	assert_non_null(strstr(json, "\"gil\": 700000000"));
	free(json);
	arena_free(a);
}

static void test_json(void **state)
{
	struct arena *a = arena_new();
	struct dx_thread t[1] = {thread(40, 40, "feed\"er", 1000)};
	t[0].ns[DX_RUN] = 100 * MS, t[0].ns[DX_FAULT] = 900 * MS, t[0].majflt = 5000;
	t[0].wait_hist[3] = 2;
	struct dx_ioctl io = {.pid = 40, .comm = "feeder", .path = "/dev/nvidiactl",
			      .name = "NV_ESC_RM_ALLOC", .cmd = 0xc030462b, .n = 3, .ns = 3000};
	struct dx_report r = {.target = "pid 40", .seconds = 1, .threads = t, .nthreads = 1,
			      .ioctls = &io, .nioctls = 1};
	dx_analyse(a, &r);
	assert_int_equal(r.findings[0].cat, DX_FAULT);
	char *json = text_of(&r, true);
	assert_non_null(strstr(json, "{\"type\": \"diagnose\", \"data\": {\"target\": \"pid 40\""));
	assert_non_null(strstr(json, "\"comm\": \"feed\\\"er\""));
	assert_non_null(strstr(json, "\"major_faults\": 900000000"));
	assert_non_null(strstr(json, "\"wait_hist_us\": {\"[2, 4)\": 2}"));
	assert_non_null(strstr(json, "\"request\": \"NV_ESC_RM_ALLOC\", \"cmd\": 3224389163, \"calls\": 3"));
	assert_non_null(strstr(json, "\"verdict\": [{\"spot\": \"major_faults\", \"share\": 0.9000"));
	assert_string_equal(json + strlen(json) - 4, "]}}\n");
	free(json);
	arena_free(a);
}

/* CUDA calls by kind: the runtime's and the driver's, graph launches
 * apart from kernel launches, per-thread-stream variants folded */
static void test_cuda_kinds(void **state)
{
	struct arena *a = arena_new();
	assert_string_equal(dx_cuda_base(a, "cudaGraphLaunch_ptsz"), "cudaGraphLaunch");
	assert_string_equal(dx_cuda_base(a, "cudaMemcpy_ptds"), "cudaMemcpy");
	assert_string_equal(dx_cuda_base(a, "cuLaunchKernel"), "cuLaunchKernel");
	assert_int_equal(dx_cuda_func("cuGraphLaunch")->kind, DX_CU_GRAPH);
	assert_true(dx_cuda_func("cuGraphLaunch")->driver);
	assert_false(dx_cuda_func("cudaLaunchKernelExC")->driver);
	assert_null(dx_cuda_func("cudaGetDevice"));
	struct dx_thread t[1] = {thread(50, 50, "engine", 1000)};
	t[0].ns[DX_RUN] = 500 * MS, t[0].ns[DX_GPU] = 500 * MS;
	struct dx_cuda cu[] = {{"cudaGraphLaunch", 3, 1000}, {"cuGraphLaunch", 2, 1000},
			       {"cudaLaunchKernel", 5, 1000}, {"cuLaunchKernelEx", 1, 1000},
			       {"cudaStreamSynchronize", 11, 400 * MS}, {"cuCtxSynchronize", 9, 1000}};
	struct dx_report r = {.target = "t", .seconds = 2, .threads = t, .nthreads = 1, .cuda = cu,
			      .ncuda = 6, .cudart = "/lib/libcudart.so.13", .libcuda = "/lib/libcuda.so.1"};
	dx_analyse(a, &r);
	char *text = text_of(&r, false);
	assert_non_null(strstr(text, "    runtime: /lib/libcudart.so.13\n    driver:  /lib/libcuda.so.1\n"));
	assert_non_null(strstr(text, "    kernel launches                       6 calls      3.0/s"));
	assert_non_null(strstr(text, "    CUDA graph launches                   5 calls      2.5/s"));
	assert_non_null(strstr(text, "    synchronisations                     20 calls     10.0/s       400.0 ms in all"));
	/* by kind, the runtime's first */
	char *g1 = strstr(text, "cudaGraphLaunch "), *g2 = strstr(text, "cuGraphLaunch (driver)");
	char *l1 = strstr(text, "cudaLaunchKernel ");
	assert_true(l1 && g1 && g2 && l1 < g1 && g1 < g2);
	assert_non_null(strstr(text, "(20 synchronisations took 400.0 ms; 6 kernel launches, 5 graph launches)"));
	free(text);
	char *json = text_of(&r, true);
	assert_non_null(strstr(json, "{\"func\": \"cuGraphLaunch\", \"api\": \"driver\", \"kind\": "
			       "\"graph_launch\", \"calls\": 2, \"ns\": 1000}"));
	assert_non_null(strstr(json, "\"cuda_kinds\": {\"launch\": {\"calls\": 6, \"per_second\": 3.000, "
			       "\"ns\": 2000}, \"graph_launch\": {\"calls\": 5"));
	assert_non_null(strstr(json, "\"cuda_runtime\": \"/lib/libcudart.so.13\", \"cuda_driver\": "
			       "\"/lib/libcuda.so.1\""));
	free(json);
	arena_free(a);
}

/* the waits were for the service's own threads: it competes with itself */
static void test_self_contention(void **state)
{
	struct arena *a = arena_new();
	struct dx_thread t[2] = {thread(60, 61, "worker", 1000), thread(60, 62, "worker", 1000)};
	t[0].ns[DX_RUN] = 500 * MS, t[0].ns[DX_RUNQ] = 500 * MS;
	t[1].ns[DX_RUN] = 500 * MS, t[1].ns[DX_RUNQ] = 500 * MS;
	struct dx_other inst[] = {{"worker", 60, 990 * MS}, {"cron", 7, 10 * MS}};
	struct dx_report r = {.target = "t", .seconds = 1, .threads = t, .nthreads = 2,
			      .instead = inst, .ninstead = 2, .ncpus = 1};
	dx_analyse(a, &r);
	assert_true(inst[0].self);
	assert_false(inst[1].self);
	assert_int_equal(r.findings[0].cat, DX_RUNQ);
	assert_non_null(strstr(r.findings[0].evidence, "the service competes with itself, CPU-bound on "
			       "the 1 CPU it may run on"));
	assert_null(strstr(r.findings[0].advice, "ran instead elsewhere"));
	char *text = text_of(&r, false);
	assert_non_null(strstr(text, "worker           pid 60            990.0 ms  (the service itself)"));
	free(text);
	char *json = text_of(&r, true);
	assert_non_null(strstr(json, "\"pid\": 60, \"ns\": 990000000, \"self\": true}"));
	assert_non_null(strstr(json, "\"cpus\": 1, \"memory_cgroups\": []"));
	free(json);
	/* others held most of it: the advice stays */
	inst[0].ns = 10 * MS, inst[1].ns = 990 * MS;
	dx_analyse(a, &r);
	assert_null(strstr(r.findings[0].evidence, "competes with itself"));
	assert_non_null(strstr(r.findings[0].advice, "move the tasks that ran instead elsewhere"));
	arena_free(a);
}

/* major faults under a memory cgroup's limit: the limit and the reclaim
 * counters beside them */
static void test_memcg(void **state)
{
	struct arena *a = arena_new();
	struct dx_thread t[1] = {thread(70, 70, "loader", 1000)};
	t[0].ns[DX_RUN] = 300 * MS, t[0].ns[DX_FAULT] = 700 * MS, t[0].majflt = 9000;
	int pids[] = {70};
	struct dx_memcg m = {.path = "/sys/fs/cgroup/svc", .limit_file = "memory.max", .limit = 80 << 20,
			     .high = -1, .usage = 79 << 20, .pids = pids, .npids = 1, .ncounts = 3,
			     .counts = {{"memory.events max", 120}, {"memory.stat pgsteal", 8800},
					{"memory.events oom", 0}}};
	struct dx_report r = {.target = "t", .seconds = 1, .threads = t, .nthreads = 1, .memcgs = &m,
			      .nmemcgs = 1};
	dx_analyse(a, &r);
	assert_int_equal(r.findings[0].cat, DX_FAULT);
	assert_non_null(strstr(r.findings[0].evidence, "; its memory cgroup /sys/fs/cgroup/svc is limited to "
			       "80.0 MB (memory.max), 79.0 MB in use, and reclaimed under it in the window "
			       "(memory.events max 120, memory.stat pgsteal 8800)"));
	assert_non_null(strstr(r.findings[0].advice, "raise the memory cgroup's limit"));
	char *text = text_of(&r, false);
	assert_non_null(strstr(text, "memory cgroup /sys/fs/cgroup/svc: limit 80.0 MB (memory.max), 79.0 MB in "
			       "use\n    reclaim over the window: memory.events max 120, memory.stat pgsteal 8800\n"));
	free(text);
	char *json = text_of(&r, true);
	assert_non_null(strstr(json, "\"memory_cgroups\": [{\"path\": \"/sys/fs/cgroup/svc\", \"limit_file\": "
			       "\"memory.max\", \"limit_bytes\": 83886080, \"high_bytes\": -1, \"usage_bytes\": "
			       "82837504, \"pids\": [70], \"counters\": {\"memory.events max\": 120, "
			       "\"memory.stat pgsteal\": 8800, \"memory.events oom\": 0}}]"));
	free(json);
	/* no limit: nothing said beside the faults */
	m.limit = -1;
	dx_analyse(a, &r);
	assert_null(strstr(r.findings[0].evidence, "memory cgroup"));
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runqueue_verdict),
		cmocka_unit_test(test_throttled_split),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_gil_verdict),
		cmocka_unit_test(test_cuda_kinds),
		cmocka_unit_test(test_self_contention),
		cmocka_unit_test(test_memcg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
