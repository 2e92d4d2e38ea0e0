/*
 * info.c - sonde --info: what this kernel offers BPF, and how sonde was built.
 *
 * The kernel half asks the kernel itself: sonde's own feature table
 * (host/features.c: the features sonde depends on, each a tiny program
 * loaded the way sonde uses it), libbpf's probes for the rest
 * (libbpf_probe_bpf_prog_type, _map_type, _helper: each loads a tiny
 * program or creates a tiny map), and the perf event sources in sysfs
 * (kprobe, uprobe, a hardware PMU).  libbpf 1.1's helper probe reads the
 * verifier's log for the wording of older kernels and says "yes" for a
 * helper that 6.x refuses with newer words, so override_return is answered
 * by the table's real load, and d_path (which no kprobe-type program may
 * call) by a real fentry program in the table.  So a "no" here is what the kernel answered, not a guess from a
 * version number.  The sections follow bpftrace --info, so the two read
 * side by side.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <llvm/Config/llvm-config.h>

#include "cli/cli.h"
#include "common/settings.h"
#include "host/host.h"
#include "runtime/runtime.h"
#include "stdlib/stdlib.h"

static const char *yes_no(int probe)
{
	return probe > 0 ? "yes" : probe == 0 ? "no" : "unknown";
}

static bool have_file(const char *path)
{
	return access(path, F_OK) == 0;
}

struct named { const char *name; int id; int feature; };

static const char *feature_text(enum host_feature f)
{
	enum host_answer a = host_feature_answer(f);
	return a == HF_YES ? "yes" : a == HF_NO ? "no" : "unknown";
}

void cli_info(FILE *out, const char *version)
{
	struct utsname u;
	if (!uname(&u))
		fprintf(out, "System\n  OS: %s %s %s\n  Arch: %s\n\n", u.sysname, u.release, u.version,
			u.machine);

	int cs_major = 0, cs_minor = 0;
	bool have_cs = insn_capstone_version(&cs_major, &cs_minor) == 0;
	fprintf(out, "Build\n  version: v%s\n", version);
	fprintf(out, "  LLVM: %s (C API, BPF target linked statically)\n", LLVM_VERSION_STRING);
	fprintf(out, "  libbpf: %s\n", libbpf_version_string());
	if (have_cs)
		fprintf(out, "  capstone: %d.%d (uprobe offsets checked against instruction "
			"boundaries)\n", cs_major, cs_minor);
	else
		fprintf(out, "  capstone: not found (uprobe offsets cannot be checked)\n");
	/* skboutput()'s pcap files; opened with dlopen() when a script asks */
	const char *pcap = rt_pcap_version();
	fprintf(out, "  libpcap: %s\n", pcap ? pcap : "not found (skboutput() cannot write pcap files)");
	fprintf(out, "  compiler: gcc %s%s\n", __VERSION__,
#if defined(__SANITIZE_ADDRESS__)
		", AddressSanitizer"
#else
		""
#endif
	);
	fprintf(out, "\n");

	static const struct named helpers[] = {
		{"probe_read", BPF_FUNC_probe_read},
		{"probe_read_str", BPF_FUNC_probe_read_str},
		{"probe_read_user", BPF_FUNC_probe_read_user},
		{"probe_read_user_str", BPF_FUNC_probe_read_user_str},
		{"probe_read_kernel", BPF_FUNC_probe_read_kernel},
		{"probe_read_kernel_str", BPF_FUNC_probe_read_kernel_str},
		{"get_current_cgroup_id", BPF_FUNC_get_current_cgroup_id},
		{"send_signal", BPF_FUNC_send_signal},
		{"override_return", BPF_FUNC_override_return, HF_OVERRIDE_RETURN + 1},
		{"get_boot_ns", BPF_FUNC_ktime_get_boot_ns},
		{"get_numa_node_id", BPF_FUNC_get_numa_node_id},
		{"get_stackid", BPF_FUNC_get_stackid},
		{"ringbuf_output", BPF_FUNC_ringbuf_output},
		{"for_each_map_elem", BPF_FUNC_for_each_map_elem},
	};
	fprintf(out, "Kernel helpers (from a kprobe-type program)\n");
	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		fprintf(out, "  %s: %s\n", helpers[i].name, helpers[i].feature ?
			feature_text((enum host_feature)(helpers[i].feature - 1)) :
			yes_no(libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, helpers[i].id, NULL)));
	fprintf(out, "\n");

	fprintf(out, "Kernel features\n");
	fprintf(out, "  tracefs: %s\n", tfs_root() ? "yes" : "no (cannot mount it)");
	fprintf(out, "  kprobe event source: %s\n", tfs_have_kprobes() ? "yes" : "no");
	fprintf(out, "  uprobe event source: %s\n",
		have_file("/sys/bus/event_source/devices/uprobe") ? "yes" : "no");
	/* the line bpftrace's documentation greps for: with uprobe reference
	 * counters the kernel sets a USDT probe's semaphore in every process
	 * (sonde attaches USDT probes so; --usdt-file-activation is not needed) */
	fprintf(out, "  uprobe refcount (USDT semaphores): %s\n",
		have_file("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset") ? "yes" : "no");
	fprintf(out, "  hardware PMU (hardware: probes): %s\n", tfs_have_pmu() ? "yes" : "no");
	for (int f = 0; f < HF__COUNT; f++)
		fprintf(out, "  %s: %s (%s, Linux %s)\n", host_feature_name((enum host_feature)f),
			feature_text((enum host_feature)f), host_feature_what((enum host_feature)f),
			host_feature_since((enum host_feature)f));
	fprintf(out, "  ustack unwinding: %s\n",
		stdlib_unwind_cfi() ? "cfi (call-frame information, frame pointers where a file has none)"
				    : "frame pointers");
	/* the newest bpftrace's feature name for dw_ustack() */
	fprintf(out, "  dwunwind: %s\n", stdlib_cfi_available()
		? "yes (dw_ustack: ustack unwound by call-frame information)" : "no");
	fprintf(out, "\n");

	static const struct named maps[] = {
		{"hash", BPF_MAP_TYPE_HASH},
		{"percpu hash", BPF_MAP_TYPE_PERCPU_HASH},
		{"lru hash", BPF_MAP_TYPE_LRU_HASH},
		{"array", BPF_MAP_TYPE_ARRAY},
		{"percpu array", BPF_MAP_TYPE_PERCPU_ARRAY},
		{"stack_trace", BPF_MAP_TYPE_STACK_TRACE},
		{"perf_event_array", BPF_MAP_TYPE_PERF_EVENT_ARRAY},
		{"ringbuf", BPF_MAP_TYPE_RINGBUF},
	};
	fprintf(out, "Map types\n");
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		fprintf(out, "  %s: %s\n", maps[i].name,
			yes_no(libbpf_probe_bpf_map_type((enum bpf_map_type)maps[i].id, NULL)));
	fprintf(out, "\n");

	static const struct named progs[] = {
		{"kprobe", BPF_PROG_TYPE_KPROBE},
		{"tracepoint", BPF_PROG_TYPE_TRACEPOINT},
		{"raw_tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT},
		{"perf_event", BPF_PROG_TYPE_PERF_EVENT},
		{"tracing (kfunc/fentry)", BPF_PROG_TYPE_TRACING},
	};
	fprintf(out, "Program types\n");
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		fprintf(out, "  %s: %s\n", progs[i].name,
			yes_no(libbpf_probe_bpf_prog_type((enum bpf_prog_type)progs[i].id, NULL)));
	fprintf(out, "\n");

	fprintf(out, "Settings (environment)\n");
	settings_dump(out);
}
