/*
 * dwline.c - an address's source file, line and inlined functions, for
 * `config = { show_debug_info = 1 }` (the newest bpftrace's ustack frames
 * "func+off@file:line", inlined ones "[inlined] name@file:line").
 *
 * libdw reads them, through the file's libdwfl session that dwarf.c opens
 * once per file (the file's own DWARF, or a separate debug file found by
 * build-id or debuglink): the unit holding the address, its line-table
 * row, and the scopes around it (dwarf_getscopes), whose
 * DW_TAG_inlined_subroutine entries are the inlined calls, innermost
 * first, each carrying the file and line it was called from
 * (DW_AT_call_file, DW_AT_call_line), which is where its caller stood.
 */
#include "host/dwarf.h"
#include "host/host_int.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"

static struct {
	Dwarf_Die *(*nextcu)(Dwfl *, Dwarf_Die *, Dwarf_Addr *);
	Dwarf_Die *(*addrdie)(Dwfl *, Dwarf_Addr, Dwarf_Addr *);
	Dwarf_Line *(*getsrc_die)(Dwarf_Die *, Dwarf_Addr);
	const char *(*linesrc)(Dwarf_Line *, Dwarf_Word *, Dwarf_Word *);
	int (*lineno)(Dwarf_Line *, int *);
	int (*getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
	int (*tag)(Dwarf_Die *);
	const char *(*diename)(Dwarf_Die *);
	Dwarf_Attribute *(*attr_integrate)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	int (*formudata)(Dwarf_Attribute *, Dwarf_Word *);
	int (*getsrcfiles)(Dwarf_Die *, Dwarf_Files **, size_t *);
	const char *(*filesrc)(Dwarf_Files *, size_t, Dwarf_Word *, Dwarf_Word *);
	Dwarf_Die *(*diecu)(Dwarf_Die *, Dwarf_Die *, uint8_t *, uint8_t *);
	int (*getscopes_die)(Dwarf_Die *, Dwarf_Die **);
} lw;

static bool lw_load(void)
{
	static int state;	/* 0: not tried, 1: loaded, -1: not there */
	if (state)
		return state > 0;
	state = -1;
	void **slots[] = {
		(void **)&lw.nextcu, (void **)&lw.addrdie, (void **)&lw.getsrc_die, (void **)&lw.linesrc,
		(void **)&lw.lineno, (void **)&lw.getscopes, (void **)&lw.tag, (void **)&lw.diename,
		(void **)&lw.attr_integrate, (void **)&lw.formudata, (void **)&lw.getsrcfiles,
		(void **)&lw.filesrc, (void **)&lw.diecu, (void **)&lw.getscopes_die,
	};
	static const char *const names[] = {
		"dwfl_nextcu", "dwfl_addrdie", "dwarf_getsrc_die", "dwarf_linesrc", "dwarf_lineno",
		"dwarf_getscopes", "dwarf_tag", "dwarf_diename", "dwarf_attr_integrate",
		"dwarf_formudata", "dwarf_getsrcfiles", "dwarf_filesrc", "dwarf_diecu", "dwarf_getscopes_die",
	};
	_Static_assert(sizeof(slots) / sizeof(slots[0]) == sizeof(names) / sizeof(names[0]),
		       "a name per slot");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*slots[i] = hdw_libdw_sym(names[i])))
			return false;
	state = 1;
	return true;
}

/* an inlined call's DW_AT_call_file and DW_AT_call_line, from its unit's
 * file table */
static void call_site(Dwarf_Die *inl, Dwarf_Die *cu, struct hdw_srcframe *fr, struct arena *a)
{
	Dwarf_Attribute at;
	Dwarf_Word v = 0;
	fr->file = "";
	fr->line = 0;
	Dwarf_Files *files;
	size_t nfiles;
	if (lw.attr_integrate(inl, DW_AT_call_file, &at) && !lw.formudata(&at, &v) &&
	    !lw.getsrcfiles(cu, &files, &nfiles) && v < nfiles) {
		const char *s = lw.filesrc(files, v, NULL, NULL);
		fr->file = s ? arena_strdup(a, s) : "";
	}
	if (lw.attr_integrate(inl, DW_AT_call_line, &at) && !lw.formudata(&at, &v))
		fr->line = (unsigned)v;
}

int hdw_srcframes(const char *path, uint64_t vaddr, struct hdw_srcframe *out, int max,
		  struct arena *a)
{
	struct hdw_file *f;
	char err[256];
	if (max < 1 || hdw_open(path, &f, err, sizeof(err)) || !lw_load())
		return 0;
	Dwfl *dwfl = hdw_file_dwfl(f);
	Dwarf_Addr bias = 0;
	/* one module: its first unit gives where libdwfl placed it */
	if (!dwfl || !lw.nextcu(dwfl, NULL, &bias))
		return 0;
	Dwarf_Addr cubias;
	Dwarf_Die *cu = lw.addrdie(dwfl, vaddr + bias, &cubias);
	if (!cu)
		return 0;
	Dwarf_Addr addr = vaddr + bias - cubias;	/* in the DWARF's own layout */
	Dwarf_Line *line = lw.getsrc_die(cu, addr);
	if (!line)
		return 0;
	int lineno = 0;
	const char *src = lw.linesrc(line, NULL, NULL);
	lw.lineno(line, &lineno);
	int n = 0;
	out[n++] = (struct hdw_srcframe){.file = arena_strdup(a, src ? src : ""),
					 .line = (unsigned)lineno};
	/* the innermost function or inlined instance around addr; the scopes
	 * dwarf_getscopes gives past an inlined instance are its abstract
	 * definition's, so each caller is found from the instance's own
	 * place in the tree (dwarf_getscopes_die), as eu-addr2line -i does */
	Dwarf_Die *scopes = NULL;
	int ns = lw.getscopes(cu, addr, &scopes);
	Dwarf_Die cur;
	bool inl = false;
	for (int i = 0; i < ns; i++) {
		int tag = lw.tag(&scopes[i]);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			cur = scopes[i];
			inl = tag == DW_TAG_inlined_subroutine;
			break;
		}
	}
	free(scopes);
	while (inl && n < max) {
		/* the frame so far is this inline's; its caller stood at the
		 * call site */
		const char *name = lw.diename(&cur);
		out[n - 1].name = arena_strdup(a, name ? name : "[unknown]");
		call_site(&cur, cu, &out[n], a);
		out[n].name = NULL;
		n++;
		scopes = NULL;
		ns = lw.getscopes_die(&cur, &scopes);
		inl = false;
		for (int i = 1; i < ns; i++) {
			int tag = lw.tag(&scopes[i]);
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
				cur = scopes[i];
				inl = tag == DW_TAG_inlined_subroutine;
				break;
			}
		}
		free(scopes);
	}
	return n;
}
