/*
 * explain.c - the catalogue of refusals, and its pages.
 *
 * One row per class: the code printed with the error, the sentence that
 * says what went wrong in the script's terms, the page `sonde --explain`
 * prints, and two scripts: one that triggers the class and the same one
 * fixed.  The e2e suite runs both scripts of every row (t_errors.sh), and
 * docs/errors.md is this table printed by `sonde --explain --all`, so the
 * pages, the tests and the docs cannot drift apart.
 */
#include "common/explain.h"

#include <string.h>
#include <strings.h>

static const struct explain table[EX_COUNT] = {
	[EX_UNKNOWN] = {
		"S0100", "a refusal sonde has no class for",
		"the kernel refused the program for a reason sonde does not recognise yet",
		"The kernel's verifier proves, before a program runs, that it terminates, reads only "
		"memory it may read and calls only helpers it may call. This refusal is none of the "
		"classes sonde knows. sonde still names the script line of the instruction the "
		"verifier stopped on and quotes the verifier's last line, which says what it could not "
		"prove; `-v` shows the whole log. Please report the script: a class gets its own code.",
		NULL, NULL, NULL},
	[EX_BUDGET] = {
		"S0101", "the verifier's instruction budget",
		"the verifier walked its budget of 1,000,000 instructions without finishing the program",
		"The verifier does not run the program: it walks every path through it, and a loop once "
		"per iteration it can tell apart. It gives up after 1,000,000 instructions walked "
		"(\"BPF program is too large. Processed 1000001 insn\"). A loop with a large bound, a "
		"loop whose bound the verifier cannot see, nested loops and big unroll() bodies use the "
		"budget up. Bound loops by small constants (a few thousand iterations of a small body), "
		"move work out of the loop, or let user space do it: aggregate in a map and print at "
		"exit.",
		"BEGIN { $i = 0; while ($i < 100000000) { $i++; } exit(); }",
		"BEGIN { $i = 0; while ($i < 1000) { $i++; } exit(); }", NULL},
	[EX_LOOP] = {
		"S0102", "a loop the verifier cannot bound",
		"the verifier cannot prove that this loop ends within its limits",
		"A BPF program must end, so the verifier follows each loop iteration by iteration until "
		"it sees the exit condition hold. A loop bounded by a value the program reads at run "
		"time (a syscall argument, a map value) has no bound the verifier can see, and a loop "
		"with map updates or branches in its body multiplies the paths it must keep: it stops at "
		"8,192 pending branches (\"The sequence of 8193 jumps is too complex\"), at a back-edge "
		"it cannot prove finite (\"infinite loop detected\", \"back-edge from insn\"), or when "
		"the budget of S0101 runs out. Add a constant bound to the condition (`$i < args->count "
		"&& $i < 100`), keep loop bodies small, or use unroll() with a small count.",
		"tracepoint:syscalls:sys_enter_read { $i = 0; while ($i < args->count) { $i++; } }",
		"tracepoint:syscalls:sys_enter_read { $i = 0; while ($i < args->count && $i < 100) { "
		"$i++; } }", NULL},
	[EX_STACK] = {
		"S0103", "more than 512 bytes of stack",
		"this probe needs more than the 512 bytes of stack a BPF program may use",
		"A BPF program has 512 bytes of stack for everything it holds at once: each $variable, "
		"map key and value being built, and the arguments of printf() while it is formatted. "
		"Integers take 8 bytes, a string max_strlen bytes (64 unless the config block says "
		"otherwise), a tuple the sum of its members; values above on_stack_limit bytes (32 "
		"unless the config block says otherwise) live in per-CPU memory instead. sonde reports "
		"it when LLVM lays the stack out; the kernel says \"combined stack size\" or \"invalid "
		"write to stack\". Keep fewer strings alive at once: print or store a string before "
		"making the next, use a smaller max_strlen or on_stack_limit, or key a map by fewer "
		"strings.",
		"config = { on_stack_limit = 512 } "
		"tracepoint:syscalls:sys_enter_openat { $a = str(args->filename); $b = "
		"str(args->filename); $c = str(args->filename); $d = str(args->filename); $e = "
		"str(args->filename); $f = str(args->filename); $g = str(args->filename); $h = "
		"str(args->filename); $i = str(args->filename); printf(\"%s%s%s%s%s%s%s%s%s\\n\", $a, "
		"$b, $c, $d, $e, $f, $g, $h, $i); }",
		"config = { on_stack_limit = 512 } "
		"tracepoint:syscalls:sys_enter_openat { $a = str(args->filename); printf(\"%s\\n\", "
		"$a); }", NULL},
	[EX_NULL] = {
		"S0104", "a pointer that may be NULL, used without a check",
		"the program uses a pointer that may be NULL without checking it first",
		"Some helpers return a pointer or NULL: a map lookup returns NULL when the key is not "
		"there. The verifier tracks such a value as \"map_value_or_null\" (or \"..._or_null\") "
		"and refuses any access through it until a branch has compared it with NULL "
		"(\"invalid mem access 'map_value_or_null'\"). sonde checks every pointer it gets "
		"from a helper, so a script cannot reach this class; if you see it, the generated code "
		"is wrong: report the script with `--emit asm`.",
		NULL, NULL, NULL},
	[EX_MEMORY] = {
		"S0105", "memory the program may not read directly",
		"the program reads memory the kernel does not let it read directly",
		"A tracing program may dereference only the memory the verifier knows: its context "
		"(a tracepoint's args, a probe's registers), its stack and map values. Kernel and user "
		"memory behind a pointer must be copied with bpf_probe_read_kernel() or "
		"bpf_probe_read_user(), which may fail and return zeros instead of faulting (\"invalid "
		"mem access 'scalar'\", \"invalid bpf_context access\"). sonde emits those copies for "
		"every dereference, str() and buf(), choosing user or kernel memory from the probe type "
		"and the pointer's type: a pointer into user memory read as kernel memory (or the other "
		"way round) reads nothing. Cast a user pointer as uptr() or a kernel one as kptr() when "
		"sonde cannot tell. The context itself has a size: a raw tracepoint passes a fixed "
		"number of arguments, and a read past them is refused when the probe attaches; sonde "
		"checks argN against the kernel's BTF first.",
		"rawtracepoint:sys_enter { @ = arg5; }", "rawtracepoint:sys_enter { @ = arg1; }", NULL},
	[EX_HELPER] = {
		"S0106", "a helper this probe type may not call",
		"this probe type may not call the helper this function needs",
		"Each kind of BPF program may call a fixed set of kernel helpers (\"program of this type "
		"cannot use helper\", \"unknown func\"): a helper that acts on the current task, reads "
		"its registers or sends it a signal makes sense only where a task is current and "
		"stopped at a known place. sonde refuses such calls before the kernel sees them: "
		"signal() in an interval or profile probe would hit whichever task happens to be "
		"running, and reg() needs a probe with registers. Call the function from a probe where "
		"it means something (a tracepoint, a uprobe, a kprobe), or save what you need in a map "
		"there. (signal() also needs --unsafe.)",
		"interval:s:1 { signal(9); }",
		"tracepoint:syscalls:sys_enter_kill { signal(\"SIGURG\"); }", NULL},
	[EX_MAP_SIZE] = {
		"S0107", "a map key or value too large",
		"a map key or value is larger than the kernel or sonde allows",
		"A map's key and value sizes are fixed when it is created. The key is built on the "
		"stack (see S0103), a key has at most 16 members, and the kernel refuses a per-CPU value "
		"over 32 KiB and an access past the end of a value (\"invalid access to map value\"). "
		"Key maps by fewer or shorter values (an id rather than a string, a smaller "
		"max_strlen), or split one map into several.",
		"BEGIN { @x[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] = 1; }",
		"BEGIN { @x[1, 2, 3, 4, 5, 6, 7, 8] = 1; @y[9, 10, 11, 12, 13, 14, 15, 16, 17] = 1; }",
		NULL},
	[EX_DIVZERO] = {
		"S0108", "division by zero",
		"the divisor is zero",
		"The kernel refuses a program that divides by the constant zero (\"div by zero\"), and "
		"a BPF division by a register that holds zero at run time gives 0 rather than a fault "
		"(modulo gives the dividend): a silent wrong number. sonde refuses a divisor it can "
		"compute to be zero, as bpftrace does. Divide by a value that cannot be zero, or guard "
		"the division: `$d != 0 ? $n / $d : 0`.",
		"BEGIN { $n = 10; printf(\"%d\\n\", $n / 0); exit(); }",
		"BEGIN { $n = 10; $d = 0; printf(\"%d\\n\", $d != 0 ? $n / $d : 0); exit(); }", NULL},
	[EX_PROG_SIZE] = {
		"S0109", "a program too large for BPF",
		"the program for this probe has more instructions than BPF allows",
		"The kernel loads at most 1,000,000 instructions in one program, and a BPF jump reaches "
		"at most 32,767 instructions forward or back (\"Branch target out of insn range\", "
		"\"jump out of range\"). unroll() copies its body once per count, so nested unrolls "
		"multiply: unroll(100) { unroll(100) { unroll(100) { ... } } } is a million copies, "
		"which sonde refuses before compiling, with the arithmetic. Use a while loop instead of "
		"a big unroll, make counts smaller, or split the work across several probes.",
		"BEGIN { unroll(100) { unroll(100) { unroll(100) { @x = @x + 1; } } } }",
		"BEGIN { $i = 0; while ($i < 1000) { @x = @x + 1; $i++; } exit(); }", NULL},
	[EX_PERMISSION] = {
		"S0110", "not allowed to load BPF programs",
		"this process may not load BPF programs",
		"Loading tracing programs needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN (root has "
		"them, unless a container or a capability bounding set took them away). "
		"kernel.unprivileged_bpf_disabled keeps other users out whatever the program, and "
		"kernel lockdown (integrity or confidentiality mode, often under Secure Boot), a "
		"security module or a seccomp filter can forbid it even to root. Run sonde as root, "
		"give it the capabilities (`setcap cap_bpf,cap_perfmon+ep`), and check "
		"/sys/kernel/security/lockdown. A refusal that holds the verifier's verdict is not "
		"this class: it is reported with the script line.",
		"BEGIN { exit(); }", "BEGIN { exit(); }", "no capabilities"},
	[EX_KFUNC] = {
		"S0201", "a kernel function that cannot be probed",
		"the kernel will not place a probe on this function",
		"A kprobe needs a function the kernel can stop in: a function that was inlined into "
		"its callers has no address of its own, a notrace function or one on the kprobe "
		"blacklist (/sys/kernel/debug/kprobes/blacklist: the exception and NMI paths) is "
		"refused, and a static function may exist only under another name (foo.isra.0). Probe "
		"the caller, a tracepoint near it, or the name `sonde -l 'kprobe:foo*'` lists.",
		"kprobe:exc_page_fault { }", "kprobe:do_nanosleep { }", "kprobes"},
	[EX_TRACEPOINT] = {
		"S0202", "a tracepoint this kernel does not have",
		"this kernel has no such tracepoint",
		"Tracepoints are the kernel's stable hooks, but each kernel version adds, renames and "
		"removes some, and a configuration may leave a subsystem out. sonde lists what this "
		"kernel has (/sys/kernel/tracing/events) and offers the nearest names. `sonde -l "
		"'tracepoint:syscalls:*open*'` lists candidates.",
		"tracepoint:syscalls:sys_enter_opnat { }", "tracepoint:syscalls:sys_enter_openat { }",
		NULL},
	[EX_NOSYMS] = {
		"S0203", "a uprobe target without symbols",
		"the binary has no symbol table, so its functions cannot be found by name",
		"A uprobe is placed at a file offset, which sonde finds from the function's name in the "
		"ELF symbol table. Distribution binaries are stripped: only the exported dynamic "
		"symbols remain (a library's API, not an executable's main or static functions). "
		"Install the debug symbols (Debian: the -dbgsym package, or debuginfod), probe an "
		"exported function or a library function the binary calls (uprobe:libc:NAME), or "
		"give an address (`uprobe:/bin/true:0x2a50`) found with `objdump -d` or a debugger.",
		"uprobe:/bin/true:main { }", "uprobe:libc:getpid { }", NULL},
	[EX_MAP_CREATE] = {
		"S0204", "the kernel refused to create a map",
		"the kernel refused to create a map",
		"A map's memory is charged when it is created. Since 5.11 that memory counts against "
		"the memory cgroup of the process (a container's limit, or a systemd unit's "
		"MemoryMax=); older kernels count it against RLIMIT_MEMLOCK (`ulimit -l`), which sonde "
		"raises when it may. A map of many keys of large values is the usual cause. Ask for "
		"fewer keys (--map-keys-max), smaller keys and values, raise the cgroup's limit, or run "
		"sonde outside the limited cgroup.",
		"config = { max_map_keys = 4000000 } tracepoint:syscalls:sys_enter_getppid { @[tid] = "
		"count(); }",
		"tracepoint:syscalls:sys_enter_getppid { @[tid] = count(); }",
		"a memory cgroup limited to 200 MB"},
};

const struct explain *explain_get(enum ex_code c)
{
	return &table[c < EX_COUNT ? c : EX_UNKNOWN];
}

const struct explain *explain_find(const char *code)
{
	for (int i = 0; i < EX_COUNT; i++)
		if (!strcasecmp(code, table[i].code))
			return &table[i];
	return NULL;
}

const struct explain *explain_of(const char *msg)
{
	size_t n = msg ? strlen(msg) : 0;
	if (n < 7 || msg[n - 1] != ']' || msg[n - 7] != '[' || msg[n - 6] != 'S')
		return NULL;
	char code[6];
	memcpy(code, msg + n - 6, 5);
	code[5] = '\0';
	return explain_find(code);
}

/* the summary as a sentence: capital first, full stop */
static void sentence(char *out, size_t cap, const char *s)
{
	snprintf(out, cap, "%s.", s);
	if (out[0] >= 'a' && out[0] <= 'z')
		out[0] = (char)(out[0] - 'a' + 'A');
}

void explain_note(FILE *out, const struct explain *e, bool said_summary)
{
	char first[512];
	sentence(first, sizeof(first), e->summary);
	if (!said_summary)
		fprintf(out, "note: %s\n", first);
	fprintf(out, "note: sonde --explain %s tells more\n", e->code);
}

/* text wrapped at 80 columns, after `indent` spaces */
static void wrap(FILE *out, const char *s, int indent)
{
	while (*s) {
		int col = indent, last = -1, i = 0;
		for (; s[i] && col < 80; i++, col++)
			if (s[i] == ' ')
				last = i;
		int n = !s[i] || last < 0 ? i : last;
		fprintf(out, "%*s%.*s\n", indent, "", n, s);
		s += n;
		while (*s == ' ')
			s++;
	}
}

void explain_page(FILE *out, const struct explain *e, bool markdown)
{
	if (markdown) {
		fprintf(out, "## %s: %s\n\n%s.\n\n%s\n\n", e->code, e->title, e->summary, e->body);
		if (e->example) {
			fprintf(out, "Triggers it%s%s%s:\n\n```\n%s\n```\n\nFixed:\n\n```\n%s\n```\n\n",
				e->needs ? " (needs " : "", e->needs ? e->needs : "",
				e->needs ? ")" : "", e->example, e->fixed);
		}
		return;
	}
	fprintf(out, "%s: %s\n\n", e->code, e->title);
	char first[512];
	sentence(first, sizeof(first), e->summary);
	wrap(out, first, 0);
	fputc('\n', out);
	wrap(out, e->body, 0);
	if (e->example) {
		fprintf(out, "\nThis script triggers it%s%s%s:\n\n", e->needs ? " (needs " : "",
			e->needs ? e->needs : "", e->needs ? ")" : "");
		fprintf(out, "    %s\n\nFixed:\n\n    %s\n", e->example, e->fixed);
	}
}

void explain_all(FILE *out)
{
	fputs("# sonde's error codes\n\n"
	      "<!-- generated by `sonde --explain --all` from common/explain.c: edit the table "
	      "there, then `make docs/errors.md` -->\n\n"
	      "When the kernel (or sonde, before the kernel) refuses a script, sonde prints the "
	      "script line the refusal points at, a code and one sentence, and `sonde --explain "
	      "CODE` prints the page below:\n\n"
	      "```\n"
	      "stdin:1:42: error: the kernel's verifier refused the program for BEGIN: the verifier "
	      "walked its budget of 1,000,000 instructions without finishing the program [S0101]\n"
	      "BEGIN { $i = 0; while ($i < 100000000) { $i++; } exit(); }\n"
	      "                                         ^~~~\n"
	      "note: sonde --explain S0101 tells more\n"
	      "note: the kernel said: BPF program is too large. Processed 1000001 insn\n"
	      "note: -v shows the verifier's whole log\n"
	      "```\n\n"
	      "The line and column are those of the instruction the verifier stopped on, read from "
	      "the BPF line info in the program; `note: the kernel said:` quotes the verifier's "
	      "verdict, and `-v` shows its whole log. A refusal of a class sonde does not know is "
	      "S0100, located and quoted the same way. Each example script below really triggers "
	      "its code and each fixed script really loads: the test suite runs both (on the "
	      "kernels of the VM suite for kprobes).\n\n",
	      out);
	for (int i = 0; i < EX_COUNT; i++)
		fprintf(out, "- %s: %s\n", table[i].code, table[i].title);
	fputc('\n', out);
	for (int i = 0; i < EX_COUNT; i++)
		explain_page(out, &table[i], true);
}
