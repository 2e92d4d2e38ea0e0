/*
 * test_stdlib_usdt.c - the pure parts of usdt: probes: SDT argument
 * formats ("-4@%edi 8@-8(%rbp) -4@$5 -8@glob(%rip)"), x86-64 register
 * names for USDT operands and for reg(), probe-name matching, and reading
 * the notes of an ELF file (an object assembled here with the same note
 * layout <sys/sdt.h> writes, when gcc is available).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/arena.h"
#include "host/host.h"

static int parse(struct arena *a, const char *text, struct usdt_arg *args, char *err)
{
	return usdt_parse_args(a, text, args, USDT_MAX_ARGS, err, 256);
}

static void test_registers_constants_memory(void **state)
{
	struct arena *a = arena_new();
	struct usdt_arg g[USDT_MAX_ARGS];
	char err[256] = "";
	assert_int_equal(parse(a, "-4@%edi 8@-8(%rbp) -4@$5 1@%dil 8@%r12 -2@16(%rsp) 4@$-7 8@$0x10", g, err), 8);
	assert_int_equal(g[0].kind, USDT_ARG_REG);
	assert_int_equal(g[0].size, 4);
	assert_true(g[0].is_signed);
	assert_int_equal(g[0].reg_off, 112);	/* di */
	assert_int_equal(g[0].reg_size, 4);
	assert_int_equal(g[1].kind, USDT_ARG_MEM);
	assert_int_equal(g[1].size, 8);
	assert_false(g[1].is_signed);
	assert_int_equal(g[1].reg_off, 32);	/* bp */
	assert_int_equal(g[1].val, -8);
	assert_null(g[1].sym);
	assert_int_equal(g[2].kind, USDT_ARG_CONST);
	assert_int_equal(g[2].val, 5);
	assert_int_equal(g[3].reg_size, 1);
	assert_int_equal(g[3].reg_off, 112);
	assert_int_equal(g[4].reg_off, 24);	/* r12 */
	assert_int_equal(g[5].kind, USDT_ARG_MEM);
	assert_int_equal(g[5].size, 2);
	assert_int_equal(g[5].reg_off, 152);	/* sp */
	assert_int_equal(g[5].val, 16);
	assert_int_equal(g[6].val, 4294967289);	/* 4@$-7: an unsigned 4-byte -7 */
	assert_int_equal(g[7].val, 16);
	arena_free(a);
}

static void test_rip_symbols_and_bare_forms(void **state)
{
	struct arena *a = arena_new();
	struct usdt_arg g[USDT_MAX_ARGS];
	char err[256] = "";
	assert_int_equal(parse(a, "-8@glob(%rip) 4@counter+8(%rip) (%rax) %ecx", g, err), 4);
	assert_int_equal(g[0].kind, USDT_ARG_MEM);
	assert_string_equal(g[0].sym, "glob");
	assert_int_equal(g[0].reg_off, 128);	/* ip */
	assert_int_equal(g[0].val, 0);
	assert_string_equal(g[1].sym, "counter");
	assert_int_equal(g[1].val, 8);
	/* no SIZE@: 8 bytes, unsigned (SDT v1) */
	assert_int_equal(g[2].kind, USDT_ARG_MEM);
	assert_int_equal(g[2].size, 8);
	assert_int_equal(g[2].reg_off, 80);
	assert_int_equal(g[2].val, 0);
	assert_int_equal(g[3].kind, USDT_ARG_REG);
	assert_int_equal(g[3].reg_size, 4);
	assert_int_equal(parse(a, "", g, err), 0);
	assert_int_equal(parse(a, "   ", g, err), 0);
	arena_free(a);
}

static void test_errors(void **state)
{
	struct arena *a = arena_new();
	struct usdt_arg g[USDT_MAX_ARGS];
	char err[256];
	assert_int_equal(parse(a, "3@%eax", g, err), -22);
	assert_string_equal(err, "bad size in argument '3@%eax'");
	assert_int_equal(parse(a, "4@%xmm0", g, err), -22);
	assert_string_equal(err, "unsupported register '%xmm0'");
	assert_int_equal(parse(a, "8@8(%rax,%rbx,4)", g, err), -22);
	assert_string_equal(err, "indexed operand '8@8(%rax,%rbx,4)' is not supported");
	assert_int_equal(parse(a, "8@$x", g, err), -22);
	assert_string_equal(err, "bad constant in argument '8@$x'");
	assert_int_equal(parse(a, "8@16(%rip)", g, err), -22);
	assert_string_equal(err, "unsupported %rip operand '8@16(%rip)' (only symbol(%rip))");
	assert_int_equal(parse(a, "8@glob(%rax)", g, err), -22);
	assert_int_equal(parse(a, "8@%eax junk", g, err), -22);
	/* past <sys/sdt.h>'s 12: a note of 13 arguments is read whole */
	assert_int_equal(parse(a, "1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 8@%rdi",
			       g, err), 13);
	assert_int_equal(g[12].reg_off, 112);
	char many[33 * 6 + 1] = "";
	for (int i = 0; i < 33; i++)
		strcat(many, "1@%al ");
	assert_int_equal(parse(a, many, g, err), -22);
	assert_string_equal(err, "more than 32 arguments");
	arena_free(a);
}

static void test_register_names(void **state)
{
	int size;
	assert_int_equal(usdt_asm_reg("rax", &size), 80);
	assert_int_equal(size, 8);
	assert_int_equal(usdt_asm_reg("ax", &size), 80);
	assert_int_equal(size, 2);
	assert_int_equal(usdt_asm_reg("sil", &size), 104);
	assert_int_equal(size, 1);
	assert_int_equal(usdt_asm_reg("r9d", &size), 64);
	assert_int_equal(size, 4);
	assert_int_equal(usdt_asm_reg("r15w", &size), 0);
	assert_int_equal(size, 2);
	assert_int_equal(usdt_asm_reg("r10b", &size), 56);
	assert_int_equal(size, 1);
	assert_int_equal(usdt_asm_reg("rip", &size), 128);
	assert_int_equal(usdt_asm_reg("r16", &size), -1);
	assert_int_equal(usdt_asm_reg("ah", &size), -1);
	/* reg() takes struct pt_regs names */
	assert_int_equal(usdt_ptregs_offset("ip"), 128);
	assert_int_equal(usdt_ptregs_offset("sp"), 152);
	assert_int_equal(usdt_ptregs_offset("orig_ax"), 120);
	assert_int_equal(usdt_ptregs_offset("r8"), 72);
	assert_int_equal(usdt_ptregs_offset("rip"), -1);
}

static void test_match(void **state)
{
	struct usdt_note n = {.provider = "sondet", .name = "step"};
	assert_true(usdt_match(&n, "step"));
	assert_true(usdt_match(&n, "st*"));
	assert_true(usdt_match(&n, "*"));
	assert_true(usdt_match(&n, "sondet:step"));
	assert_true(usdt_match(&n, "sond*:*"));
	assert_false(usdt_match(&n, "other:step"));
	assert_false(usdt_match(&n, "steps"));
	assert_false(usdt_match(&n, "sondet:done"));
}

/* a probe site the way <sys/sdt.h> writes one, with a semaphore */
static const char *note_src =
	"#define SDT(prov, name, args, ...) __asm__ __volatile__(\"990: nop\\n\" \\\n"
	"  \".pushsection .note.stapsdt,\\\"?\\\",\\\"note\\\"\\n.balign 4\\n\" \\\n"
	"  \".4byte 992f-991f, 994f-993f, 3\\n991: .asciz \\\"stapsdt\\\"\\n992: .balign 4\\n\" \\\n"
	"  \"993: .8byte 990b\\n.8byte _.stapsdt.base\\n.8byte \" #prov \"_\" #name \"_semaphore\\n\" \\\n"
	"  \".asciz \\\"\" #prov \"\\\"\\n.asciz \\\"\" #name \"\\\"\\n.asciz \\\"\" args \"\\\"\\n994: .balign 4\\n.popsection\\n\" \\\n"
	"  \".ifndef _.stapsdt.base\\n.pushsection .stapsdt.base,\\\"aG\\\",\\\"progbits\\\",.stapsdt.base,comdat\\n\" \\\n"
	"  \".weak _.stapsdt.base\\n.hidden _.stapsdt.base\\n_.stapsdt.base: .space 1\\n.size _.stapsdt.base, 1\\n.popsection\\n.endif\\n\" \\\n"
	"  :: __VA_ARGS__)\n"
	"unsigned short prov_tick_semaphore __attribute__((section(\".probes\"), used));\n"
	"long glob = 42;\n"
	"int main(int argc, char **argv) { long a = argc;\n"
	"  SDT(prov, tick, \"-8@%0 -8@glob(%%rip)\", \"r\"(a));\n"
	"  return 0; }\n";

static void test_read_notes(void **state)
{
	char dir[] = "/tmp/sonde-test-usdt-XXXXXX", src[128], bin[128], cmd[512];
	if (access("/usr/bin/gcc", X_OK)) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/n.c", dir);
	snprintf(bin, sizeof(bin), "%s/n", dir);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fputs(note_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -O1 -o %s %s 2>&1", bin, src);
	assert_int_equal(system(cmd), 0);

	struct arena *a = arena_new();
	struct usdt_note *notes;
	size_t n;
	char err[256];
	assert_int_equal(usdt_read_notes(a, bin, &notes, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(notes[0].provider, "prov");
	assert_string_equal(notes[0].name, "tick");
	assert_null(notes[0].args_err);
	assert_int_equal(notes[0].nargs, 2);
	assert_int_equal(notes[0].args[0].kind, USDT_ARG_REG);
	assert_true(notes[0].pc != 0);
	assert_true(notes[0].sema != 0);
	assert_true(notes[0].sema_off != 0);
	/* glob(%rip) became the distance from the probe site to glob */
	assert_string_equal(notes[0].args[1].sym, "glob");
	assert_int_not_equal(notes[0].args[1].val, 0);

	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	assert_int_equal(usdt_list(m, bin, "*", err, sizeof(err)), 0);
	fclose(m);
	char want[256];
	snprintf(want, sizeof(want), "usdt:%s:prov:tick\n", bin);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(usdt_read_notes(a, "/nonexistent/x", &notes, &n, err, sizeof(err)), -2);
	assert_int_equal(usdt_read_notes(a, src, &notes, &n, err, sizeof(err)), -8);
	arena_free(a);
	unlink(bin);
	unlink(src);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers_constants_memory),
		cmocka_unit_test(test_rip_symbols_and_bare_forms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_register_names),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_read_notes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
