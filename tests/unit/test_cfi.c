/*
 * test_cfi.c - host/cfi.c: a file's call-frame information as unwind rows.
 *
 * The fixture is an assembly file with known CFI directives, built here
 * into a shared object: a frame-pointer prologue (CFA rsp+8, rsp+16 with
 * rbp saved at CFA-16, then rbp+16), the outermost frame (the return
 * address undefined), a gap between FDEs, an expression the walker does
 * not apply.  Its rows must be exactly those, and the same when the CFI
 * is in .debug_frame, or in that of a separate debug file (by build-id);
 * then the rows of it and of libc.so.6 must agree, row for row, with
 * binutils' own reading of the same CFI (readelf
 * --debug-dump=frames-interp).  And the rule classifier alone: the shapes
 * libdw gives for glibc's signal trampoline and the PLT.  A read given up
 * when sonde ends (hcfi_build_until).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/cfi.h"

static char tmpdir[256], fixture[512], fixture_dbg[512];

static const char asm_text[] =
	"\t.text\n"
	"\t.globl f_fp\n\t.type f_fp,@function\n"
	"f_fp:\n\t.cfi_startproc\n"
	"\tpush %rbp\n\t.cfi_def_cfa_offset 16\n\t.cfi_offset %rbp, -16\n"
	"\tmov %rsp, %rbp\n\t.cfi_def_cfa_register %rbp\n"
	"\tnop\n\tnop\n"
	"\tpop %rbp\n\t.cfi_def_cfa %rsp, 8\n"
	"\tret\n\t.cfi_endproc\n"
	/* no CFI here: a gap */
	"\t.globl f_gap\nf_gap:\n\tnop\n\tnop\n\tnop\n\tret\n"
	"\t.globl f_outer\nf_outer:\n\t.cfi_startproc\n\t.cfi_undefined %rip\n"
	"\tnop\n\tret\n\t.cfi_endproc\n"
	"\t.globl f_big\nf_big:\n\t.cfi_startproc\n"
	"\tsub $4000, %rsp\n\t.cfi_adjust_cfa_offset 4000\n"
	"\tadd $4000, %rsp\n\t.cfi_adjust_cfa_offset -4000\n"
	"\tret\n\t.cfi_endproc\n"
	/* CFA = *(rsp + 8): an expression the walker does not apply */
	"\t.globl f_expr\nf_expr:\n\t.cfi_startproc\n"
	"\tnop\n\t.cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06\n"
	"\tret\n\t.cfi_endproc\n";

static int group_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sonde-cfi-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	char src[512], cmd[2048];
	snprintf(src, sizeof(src), "%s/f.s", tmpdir);
	snprintf(fixture, sizeof(fixture), "%s/libf.so", tmpdir);
	FILE *f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(asm_text, f);
	fclose(f);
	/* the same CFI in .debug_frame, as a binary built without unwind
	 * tables (-fno-asynchronous-unwind-tables -g) has it */
	char src2[512];
	snprintf(src2, sizeof(src2), "%s/g.s", tmpdir);
	snprintf(fixture_dbg, sizeof(fixture_dbg), "%s/libg.so", tmpdir);
	f = fopen(src2, "w");
	if (!f)
		return -1;
	fputs("\t.cfi_sections .debug_frame\n", f);
	fputs(asm_text, f);
	fclose(f);
	/* and in a separate debug file, found by build-id under tmpdir/dbg */
	snprintf(cmd, sizeof(cmd),
		 "gcc -shared -nostdlib -o %s %s && gcc -shared -nostdlib -Wl,--build-id -o %s %s && "
		 "cd %s && objcopy --only-keep-debug libg.so g.debug && "
		 "objcopy --remove-section=.debug_frame libg.so libs.so && "
		 "id=$(readelf -n libg.so | sed -n 's/.*Build ID: //p') && "
		 "mkdir -p dbg/.build-id/${id%%${id#??}} && mv g.debug dbg/.build-id/${id%%${id#??}}/${id#??}.debug",
		 fixture, src, fixture_dbg, src2, tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static uint64_t sym(const char *name)
{
	char cmd[1024], line[256];
	snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"%s\" { print $1 }'", fixture, name);
	FILE *p = popen(cmd, "r");
	uint64_t v = 0;
	if (p && fgets(line, sizeof(line), p))
		v = strtoull(line, NULL, 16);
	if (p)
		pclose(p);
	return v;
}

static void build(const char *path, struct hcfi_rows *r)
{
	char err[256] = "";
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	int rc = hcfi_build(fd, r, err, sizeof(err));
	close(fd);
	if (rc == -ENOSYS)
		skip();	/* no libdw */
	if (rc)
		fail_msg("%s: %s", path, err);
}

static const struct unw_row *row_at(const struct hcfi_rows *r, uint64_t pc)
{
	const struct unw_row *best = NULL;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->rows[i].pc <= pc)
			best = &r->rows[i];
	return best;
}

static void test_known_rows(void **state)
{
	struct hcfi_rows r;
	build(fixture, &r);
	assert_string_equal(r.source, ".eh_frame");
	uint64_t fp = sym("f_fp"), gap = sym("f_gap"), outer = sym("f_outer"), big = sym("f_big"),
		 ex = sym("f_expr");
	assert_true(fp && gap && outer && big && ex);
	/* f_fp: push rbp (1 byte), mov rsp,rbp (3), nop, nop, pop rbp (1), ret */
	const struct unw_row *a = row_at(&r, fp), *b = row_at(&r, fp + 1), *c = row_at(&r, fp + 4),
			     *d = row_at(&r, fp + 7);
	assert_int_equal(a->kind, UNW_RSP);
	assert_int_equal(a->cfa_off, 8);
	assert_int_equal(a->rbp, UNW_RBP_SAME);
	assert_int_equal(b->kind, UNW_RSP);
	assert_int_equal(b->cfa_off, 16);
	assert_int_equal(b->rbp, UNW_RBP_CFA);
	assert_int_equal(b->rbp_off, -16);
	assert_int_equal(c->kind, UNW_RBP);
	assert_int_equal(c->cfa_off, 16);
	assert_int_equal(c->rbp_off, -16);
	assert_int_equal(d->kind, UNW_RSP);
	assert_int_equal(d->cfa_off, 8);
	assert_int_equal(row_at(&r, gap)->kind, UNW_NONE);
	assert_int_equal(row_at(&r, gap + 3)->kind, UNW_NONE);
	assert_int_equal(row_at(&r, outer)->kind, UNW_STOP);
	assert_int_equal(row_at(&r, big + 7)->cfa_off, 4008);
	assert_int_equal(row_at(&r, big + 7)->kind, UNW_RSP);
	assert_int_equal(row_at(&r, ex)->kind, UNW_RSP);
	assert_int_equal(row_at(&r, ex + 1)->kind, UNW_UNSUP);
	/* after the last FDE: nothing */
	assert_int_equal(r.rows[r.n - 1].kind, UNW_NONE);
	/* sorted, no two equal neighbours */
	for (uint32_t i = 1; i < r.n; i++) {
		assert_true(r.rows[i].pc > r.rows[i - 1].pc);
		assert_false(r.rows[i].kind == r.rows[i - 1].kind &&
			     r.rows[i].cfa_off == r.rows[i - 1].cfa_off &&
			     r.rows[i].rbp == r.rows[i - 1].rbp &&
			     r.rows[i].rbp_off == r.rows[i - 1].rbp_off);
	}
	int64_t delta = -1;
	assert_int_equal(hcfi_exec_delta(&r, &delta), 0);
	hcfi_free(&r);
}

/* readelf's table as rows: "LOC CFA ... rbp ... ra" lines under each FDE;
 * returns how many of ours it checked, or -1 after a message */
static long compare_with_readelf(const char *path, const struct hcfi_rows *r)
{
	char cmd[1024], line[4096];
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp %s 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	int col_rbp = -1, col_ra = -1;
	long checked = 0, bad = 0;
	while (fgets(line, sizeof(line), p)) {
		char *tok[64];
		int n = 0;
		/* "r3 (rbx)" is one column: a register saved in another */
		for (char *s = strtok(line, " \t\n"); s && n < 64; s = strtok(NULL, " \t\n"))
			if (s[0] != '(' || !n)
				tok[n++] = s;
		if (n >= 2 && !strcmp(tok[0], "LOC") && !strcmp(tok[1], "CFA")) {
			col_rbp = col_ra = -1;
			for (int i = 2; i < n; i++) {
				if (!strcmp(tok[i], "rbp"))
					col_rbp = i;
				if (!strcmp(tok[i], "ra"))
					col_ra = i;
			}
			continue;
		}
		if (n < 2 || strlen(tok[0]) != 16 || col_ra < 0 || col_ra >= n)
			continue;
		uint64_t pc = strtoull(tok[0], NULL, 16);
		const struct unw_row *ours = row_at(r, pc);
		if (!ours)
			continue;
		/* the walker's reading of binutils' words */
		int kind = UNW_UNSUP, cfa_off = 0, rbp = UNW_RBP_SAME, rbp_off = 0;
		if (!strncmp(tok[1], "rsp+", 4) || !strncmp(tok[1], "rbp+", 4)) {
			kind = tok[1][1] == 's' ? UNW_RSP : UNW_RBP;
			cfa_off = atoi(tok[1] + 4);
		}
		if (!strcmp(tok[col_ra], "u"))
			kind = UNW_STOP;
		else if (strcmp(tok[col_ra], "c-8"))
			kind = UNW_UNSUP;
		if (col_rbp >= 0 && col_rbp < n && tok[col_rbp][0] == 'c') {
			rbp = UNW_RBP_CFA;
			rbp_off = atoi(tok[col_rbp] + 1);
		} else if (col_rbp >= 0 && col_rbp < n && strcmp(tok[col_rbp], "u") &&
			   strcmp(tok[col_rbp], "s") && kind != UNW_STOP) {
			kind = UNW_UNSUP;	/* in a register, an expression */
		}
		bool same;
		if (!strcmp(tok[1], "exp"))	/* PLT, signal frame, or not applied */
			same = ours->kind == UNW_PLT || ours->kind == UNW_SIGNAL || ours->kind == UNW_UNSUP;
		else if (kind == UNW_STOP)
			same = ours->kind == UNW_STOP;
		else if (kind == UNW_UNSUP)
			same = ours->kind == UNW_UNSUP;
		else
			same = ours->kind == kind && ours->cfa_off == cfa_off && ours->rbp == rbp &&
			       (rbp == UNW_RBP_SAME || ours->rbp_off == rbp_off);
		checked++;
		if (!same && bad++ < 5)
			fprintf(stderr, "%s: at %#llx readelf says %s ra %s rbp %s; ours: kind %d cfa %d rbp %d %d\n",
				path, (unsigned long long)pc, tok[1], tok[col_ra],
				col_rbp >= 0 && col_rbp < n ? tok[col_rbp] : "-", ours->kind, ours->cfa_off,
				ours->rbp, ours->rbp_off);
	}
	pclose(p);
	return bad ? -1 : checked;
}

static void test_same_as_readelf(void **state)
{
	const char *files[] = {fixture, "/usr/lib/x86_64-linux-gnu/libc.so.6"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (access(files[i], R_OK))
			continue;
		struct hcfi_rows r;
		build(files[i], &r);
		long n = compare_with_readelf(files[i], &r);
		assert_true(n > (i ? 10000 : 5));
		hcfi_free(&r);
	}
}

static void test_classify_shapes(void **state)
{
	struct unw_row row;
	/* glibc's __restore_rt, as libdw gives it */
	struct hcfi_op cfa[] = {{DW_OP_breg7, 160, 0}, {DW_OP_deref, 0, 0}};
	struct hcfi_op ra[] = {{DW_OP_call_frame_cfa, 0, 0}, {DW_OP_breg7, 168, 0}};
	struct hcfi_op rbp[] = {{DW_OP_call_frame_cfa, 0, 0}, {DW_OP_breg7, 120, 0}};
	hcfi_classify(cfa, 2, ra, 2, false, rbp, 2, &row);
	assert_int_equal(row.kind, UNW_SIGNAL);
	assert_int_equal(row.cfa_off, 160);
	assert_int_equal(row.rbp_off, 120);
	/* the rip saved anywhere but CFA-8 of that shape: not applied */
	ra[1].number = 176;
	hcfi_classify(cfa, 2, ra, 2, false, rbp, 2, &row);
	assert_int_equal(row.kind, UNW_UNSUP);
	/* binutils' PLT: rsp + 8 + ((rip & 15) >= 11) << 3 */
	struct hcfi_op plt[] = {{DW_OP_breg7, 8, 0}, {DW_OP_breg16, 0, 0}, {DW_OP_lit15, 0, 0},
				{DW_OP_and, 0, 0},   {DW_OP_lit11, 0, 0}, {DW_OP_ge, 0, 0},
				{DW_OP_lit3, 0, 0},  {DW_OP_shl, 0, 0},   {DW_OP_plus, 0, 0}};
	struct hcfi_op ra8[] = {{DW_OP_call_frame_cfa, 0, 0}, {DW_OP_plus_uconst, (uint64_t)-8, 0}};
	hcfi_classify(plt, 9, ra8, 2, false, NULL, 0, &row);
	assert_int_equal(row.kind, UNW_PLT);
	assert_int_equal(row.cfa_off, 11);
	/* rbp + 16, rbp saved at CFA - 16 (libdw's DW_OP_bregx for a register rule) */
	struct hcfi_op fp[] = {{DW_OP_bregx, 6, 16}};
	struct hcfi_op at16[] = {{DW_OP_call_frame_cfa, 0, 0}, {DW_OP_plus_uconst, (uint64_t)-16, 0}};
	hcfi_classify(fp, 1, ra8, 2, false, at16, 2, &row);
	assert_int_equal(row.kind, UNW_RBP);
	assert_int_equal(row.cfa_off, 16);
	assert_int_equal(row.rbp, UNW_RBP_CFA);
	assert_int_equal(row.rbp_off, -16);
	/* the CFA in another register (r10 after a stack realignment): not applied */
	struct hcfi_op r10[] = {{DW_OP_bregx, 10, 0}};
	hcfi_classify(r10, 1, ra8, 2, false, NULL, 0, &row);
	assert_int_equal(row.kind, UNW_UNSUP);
	/* the return address undefined: the outermost frame */
	hcfi_classify(fp, 1, NULL, 0, true, NULL, 0, &row);
	assert_int_equal(row.kind, UNW_STOP);
}

/* .debug_frame (no .eh_frame), in the file or in its debug file: the same rows */
static void test_debug_frame(void **state)
{
	struct hcfi_rows a, b;
	build(fixture, &a);
	build(fixture_dbg, &b);
	assert_string_equal(b.source, ".debug_frame");
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.rows, b.rows, a.n * sizeof(*a.rows));
	/* its .debug_frame in a separate debug file only */
	struct hcfi_rows c;
	char path[600], dir[600], err[256];
	snprintf(path, sizeof(path), "%s/libs.so", tmpdir);
	snprintf(dir, sizeof(dir), "%s/dbg", tmpdir);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(hcfi_build(fd, &c, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no call-frame information (.eh_frame or .debug_frame)");
	assert_int_equal(hcfi_build_in(fd, dir, &c, err, sizeof(err)), 0);
	close(fd);
	assert_string_equal(c.source, ".debug_frame of its debug file");
	assert_int_equal(a.n, c.n);
	assert_memory_equal(a.rows, c.rows, a.n * sizeof(*a.rows));
	hcfi_free(&a);
	hcfi_free(&b);
	hcfi_free(&c);
}

static void test_errors(void **state)
{
	struct hcfi_rows r;
	char err[256] = "";
	int fd = open("/etc/hostname", O_RDONLY);
	if (fd < 0)
		skip();
	assert_int_equal(hcfi_build(fd, &r, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, "not an ELF file");
	close(fd);
	assert_null(r.rows);
}

/* a file's CFI is untrusted: one FDE of 20,000 rows (each lookup reruns
 * its program from the start: 200 M steps) is refused once its cost
 * passes HCFI_MAX_STEPS, not read for seconds */
static void test_costly_fde(void **state)
{
	char src[512], so[512], cmd[1200];
	snprintf(src, sizeof(src), "%s/costly.s", tmpdir);
	snprintf(so, sizeof(so), "%s/libcostly.so", tmpdir);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fputs("\t.text\n\t.globl f_costly\nf_costly:\n\t.cfi_startproc\n", f);
	for (int i = 0; i < 20000; i++)
		fputs("\tnop\n\t.cfi_adjust_cfa_offset 8\n", f);
	fputs("\tret\n\t.cfi_endproc\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -shared -nostdlib -o %s %s", so, src);
	assert_int_equal(system(cmd), 0);
	struct hcfi_rows r;
	char err[256] = "";
	int fd = open(so, O_RDONLY);
	assert_true(fd >= 0);
	int rc = hcfi_build(fd, &r, err, sizeof(err));
	close(fd);
	if (rc == -ENOSYS)
		skip();
	assert_int_equal(rc, -E2BIG);
	assert_string_equal(err, "its unwind rows do not fit (call-frame information that costs too "
				 "much to read)");
	assert_null(r.rows);
}

/* sonde's end gives up a file being read (hcfi_build_until): libc's
 * 28,000 rows are not read once stop is set, and are while it is not */
static void test_build_until_stop(void **state)
{
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	int fd = open(libc, O_RDONLY);
	if (fd < 0)
		skip();
	struct hcfi_rows r, all;
	char err[256] = "";
	atomic_bool stop = true;
	int rc = hcfi_build_until(fd, &stop, &r, err, sizeof(err));
	if (rc == -ENOSYS) {
		close(fd);
		skip();
	}
	assert_int_equal(rc, -ECANCELED);
	assert_string_equal(err, "not read: sonde is ending");
	assert_null(r.rows);
	stop = false;
	assert_int_equal(hcfi_build_until(fd, &stop, &r, err, sizeof(err)), 0);
	assert_int_equal(hcfi_build(fd, &all, err, sizeof(err)), 0);
	close(fd);
	assert_int_equal(r.n, all.n);
	assert_memory_equal(r.rows, all.rows, r.n * sizeof(*r.rows));
	hcfi_free(&r);
	hcfi_free(&all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_rows),
		cmocka_unit_test(test_same_as_readelf),
		cmocka_unit_test(test_classify_shapes),
		cmocka_unit_test(test_debug_frame),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_costly_fde),
		cmocka_unit_test(test_build_until_stop),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
