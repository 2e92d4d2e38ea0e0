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
 *
 * dwarf_getscopes walks the unit's tree from its root, which in a large
 * unit (libpython's ceval.c) costs far more than the rest: a stack's
 * callers repeat across stacks and prints, so each (file, address) is
 * looked up once and kept (CACHE_MAX of them; past that, looked up each
 * time), its strings for the whole run.  And the function around an
 * address is found in an index of each unit's functions by address range
 * (built when the unit is first met), whose subtree alone is walked down
 * to the innermost inlined instance: a python3 profile printed folded
 * with its DWARF (python3.11-dbg) takes as long as one without
 * show_debug_info (8.5 s against 8.3 s), 21 s with the cache alone, 42 s
 * with neither; and it finds what binutils' addr2line -i finds, where
 * dwarf_getscopes missed the inlined instances of LTO-built python3.11.
 * A unit the index cannot place the address in falls back to
 * dwarf_getscopes.
 */
#include "host/dwarf.h"

#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* after libdw.h: hdw_unit_die */
#include "host/host_int.h"
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"

#define FRAMES_MAX 16		/* inlined levels kept for one address */
#define CACHE_MAX (1u << 18)	/* (file, address) pairs kept */

struct cached {
	const char *path;	/* NULL: an empty slot */
	uint64_t vaddr;
	int n;
	struct hdw_srcframe *fr;
};

static struct {
	struct arena *a;
	struct cached *slots;
	size_t cap, used;
} cache;

/* a unit's functions by address range, sorted by lo */
struct fnrange {
	Dwarf_Addr lo, hi;
	Dwarf_Die die;
};
struct cuindex {
	const void *key;	/* the unit DIE's address in the debug data; NULL: empty */
	struct fnrange *r;
	size_t n;
};
static struct {
	struct cuindex *slots;
	size_t cap, used;
} units;

#define INLINE_DEPTH 64		/* nested scopes walked down one function */

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
	int (*child)(Dwarf_Die *, Dwarf_Die *);
	int (*siblingof)(Dwarf_Die *, Dwarf_Die *);
	ptrdiff_t (*ranges)(Dwarf_Die *, ptrdiff_t, Dwarf_Addr *, Dwarf_Addr *, Dwarf_Addr *);
	int (*haspc)(Dwarf_Die *, Dwarf_Addr);
	const char *(*formstring)(Dwarf_Attribute *);
} lw;

/* each of libdw's functions names[i] into *slots[i]: false when one is
 * missing */
static bool load_syms(void **const slots[], const char *const names[], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(*slots[i] = hdw_libdw_sym(names[i])))
			return false;
	return true;
}

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
		(void **)&lw.child, (void **)&lw.siblingof, (void **)&lw.ranges, (void **)&lw.haspc,
		(void **)&lw.formstring,
	};
	static const char *const names[] = {
		"dwfl_nextcu", "dwfl_addrdie", "dwarf_getsrc_die", "dwarf_linesrc", "dwarf_lineno",
		"dwarf_getscopes", "dwarf_tag", "dwarf_diename", "dwarf_attr_integrate",
		"dwarf_formudata", "dwarf_getsrcfiles", "dwarf_filesrc", "dwarf_diecu", "dwarf_getscopes_die",
		"dwarf_child", "dwarf_siblingof", "dwarf_ranges", "dwarf_haspc",
		"dwarf_formstring",
	};
	_Static_assert(sizeof(slots) / sizeof(slots[0]) == sizeof(names) / sizeof(names[0]),
		       "a name per slot");
	if (!load_syms(slots, names, sizeof(names) / sizeof(names[0])))
		return false;
	state = 1;
	return true;
}

/* a source file's name as the line table has it, under the unit's
 * DW_AT_comp_dir when relative ("../Modules/getpath.c" of a Debian
 * package's build), as addr2line names it */
static const char *src_path(Dwarf_Die *cu, const char *name, struct arena *a)
{
	if (!name)
		return "";
	Dwarf_Attribute at;
	const char *dir;
	if (name[0] == '/' || !lw.attr_integrate(cu, DW_AT_comp_dir, &at) ||
	    !(dir = lw.formstring(&at)) || !*dir)
		return arena_strdup(a, name);
	return arena_printf(a, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
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
		fr->file = src_path(cu, lw.filesrc(files, v, NULL, NULL), a);
	}
	if (lw.attr_integrate(inl, DW_AT_call_line, &at) && !lw.formudata(&at, &v))
		fr->line = (unsigned)v;
}

static int by_lo(const void *x, const void *y)
{
	const struct fnrange *a = x, *b = y;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* the functions under parent (and under its namespaces, classes and
 * structures: C++'s member functions), each of its address ranges */
static void index_walk(Dwarf_Die *parent, struct fnrange **r, size_t *n, size_t *cap, int depth)
{
	Dwarf_Die c;
	if (depth > 16 || lw.child(parent, &c))
		return;
	do {
		int tag = lw.tag(&c);
		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = lw.ranges(&c, off, &base, &lo, &hi)) > 0) {
				if (*n == *cap) {
					size_t nc = *cap ? *cap * 2 : 256;
					struct fnrange *g = realloc(*r, nc * sizeof(**r));
					if (!g)
						return;
					*r = g;
					*cap = nc;
				}
				(*r)[(*n)++] = (struct fnrange){.lo = lo, .hi = hi, .die = c};
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_module) {
			index_walk(&c, r, n, cap, depth + 1);
		}
	} while (!lw.siblingof(&c, &c));
}

static size_t unit_slot(const void *key, size_t cap)
{
	size_t j = ((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15u & (cap - 1);
	while (units.slots[j].key && units.slots[j].key != key)
		j = (j + 1) & (cap - 1);
	return j;
}

/* the index of cu, built the first time; NULL when memory ran out */
static struct cuindex *unit_index(Dwarf_Die *cu)
{
	if (units.cap && units.slots[unit_slot(cu->addr, units.cap)].key)
		return &units.slots[unit_slot(cu->addr, units.cap)];
	if ((units.used + 1) * 2 > units.cap) {
		size_t ncap = units.cap ? units.cap * 2 : 64;
		struct cuindex *old = units.slots, *ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return NULL;
		size_t ocap = units.cap;
		units.slots = ns;
		units.cap = ncap;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].key)
				ns[unit_slot(old[i].key, ncap)] = old[i];
		free(old);
	}
	struct cuindex *u = &units.slots[unit_slot(cu->addr, units.cap)];
	size_t cap = 0;
	*u = (struct cuindex){.key = cu->addr};
	index_walk(cu, &u->r, &u->n, &cap, 0);
	if (u->n)
		qsort(u->r, u->n, sizeof(*u->r), by_lo);
	units.used++;
	return u;
}

/* the function of cu whose range holds addr, false when none does */
static bool unit_function(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	struct cuindex *u = unit_index(cu);
	if (!u || !u->n)
		return false;
	size_t lo = 0, hi = u->n;	/* the last range with lo <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->r[mid].lo <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (u->r[lo].lo > addr || addr >= u->r[lo].hi)
		return false;
	*out = u->r[lo].die;
	return true;
}

/* the inlined instances around addr under die, outermost first */
static int inline_chain(Dwarf_Die *die, Dwarf_Addr addr, Dwarf_Die *chain, int max)
{
	int n = 0;
	Dwarf_Die cur = *die, c;
	for (int depth = 0; depth < INLINE_DEPTH; depth++) {
		if (lw.child(&cur, &c))
			break;
		bool found = false;
		do {
			int tag = lw.tag(&c);
			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
			     tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
			    lw.haspc(&c, addr) > 0) {
				if (tag == DW_TAG_inlined_subroutine && n < max)
					chain[n++] = c;
				found = true;
				break;
			}
		} while (!lw.siblingof(&c, &c));
		if (!found)
			break;
		cur = c;
	}
	return n;
}

static int lookup(const char *path, uint64_t vaddr, struct hdw_srcframe *out, int max,
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
	out[n++] = (struct hdw_srcframe){.file = src_path(cu, src, a),
					 .line = (unsigned)lineno};
	/* split DWARF: the functions are in the split unit, the line table in
	 * the skeleton */
	Dwarf_Die split;
	cu = hdw_unit_die(cu, &split);
	Dwarf_Die fn, chain[FRAMES_MAX];
	if (unit_function(cu, addr, &fn)) {
		int nc = inline_chain(&fn, addr, chain, FRAMES_MAX);
		for (int j = nc - 1; j >= 0 && n < max; j--) {
			/* the frame so far is this inline's; its caller stood
			 * at the call site */
			const char *name = lw.diename(&chain[j]);
			out[n - 1].name = arena_strdup(a, name ? name : "[unknown]");
			call_site(&chain[j], cu, &out[n], a);
			out[n].name = NULL;
			n++;
		}
		return n;
	}
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

static size_t slot_of(const char *path, uint64_t vaddr, size_t cap)
{
	size_t h = 14695981039346656037u;
	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	h ^= vaddr * 0x9e3779b97f4a7c15u;
	h ^= h >> 29;
	size_t j = h & (cap - 1);
	while (cache.slots[j].path && (cache.slots[j].vaddr != vaddr || strcmp(cache.slots[j].path, path)))
		j = (j + 1) & (cap - 1);
	return j;
}

/* room for one more entry (at most half full), false when the cache is
 * at CACHE_MAX or memory ran out */
static bool cache_room(void)
{
	if (!cache.a && !(cache.a = arena_new()))
		return false;
	if ((cache.used + 1) * 2 <= cache.cap)
		return true;
	if (cache.used >= CACHE_MAX)
		return false;
	size_t ncap = cache.cap ? cache.cap * 2 : 1024;
	struct cached *old = cache.slots, *ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return false;
	size_t ocap = cache.cap;
	cache.slots = ns;
	cache.cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].path)
			ns[slot_of(old[i].path, old[i].vaddr, ncap)] = old[i];
	free(old);
	return true;
}

int hdw_srcframes(const char *path, uint64_t vaddr, struct hdw_srcframe *out, int max)
{
	if (max < 1)
		return 0;
	if (cache.cap) {
		struct cached *c = &cache.slots[slot_of(path, vaddr, cache.cap)];
		if (c->path) {
			int n = c->n < max ? c->n : max;
			memcpy(out, c->fr, (size_t)n * sizeof(*out));
			return n;
		}
	}
	if (!cache_room()) {	/* uncached: strings in a scratch arena would die here */
		static struct arena *spill;
		if (!spill && !(spill = arena_new()))
			return 0;
		return lookup(path, vaddr, out, max, spill);
	}
	struct hdw_srcframe fr[FRAMES_MAX];
	int n = lookup(path, vaddr, fr, FRAMES_MAX, cache.a);
	struct cached *c = &cache.slots[slot_of(path, vaddr, cache.cap)];
	*c = (struct cached){.path = arena_strdup(cache.a, path), .vaddr = vaddr, .n = n > 0 ? n : 0};
	c->fr = arena_new_array(cache.a, struct hdw_srcframe, n > 0 ? n : 1);
	if (n > 0)
		memcpy(c->fr, fr, (size_t)n * sizeof(*fr));
	cache.used++;
	n = c->n < max ? c->n : max;
	memcpy(out, c->fr, (size_t)n * sizeof(*out));
	return n;
}

/* ---- a source line's address (uprobe:BIN@FILE:LINE) --------------------- */

static struct {
	int (*getsrclines)(Dwarf_Die *, Dwarf_Lines **, size_t *);
	Dwarf_Line *(*onesrcline)(Dwarf_Lines *, size_t);
	int (*linecol)(Dwarf_Line *, int *);
	int (*lineaddr)(Dwarf_Line *, Dwarf_Addr *);
	Dwfl_Module *(*cumodule)(Dwarf_Die *);
	Elf *(*module_getelf)(Dwfl_Module *, GElf_Addr *);
} la;

static bool la_load(void)
{
	static int state;
	if (state)
		return state > 0;
	state = -1;
	if (!lw_load())
		return false;
	void **slots[] = {(void **)&la.getsrclines, (void **)&la.onesrcline, (void **)&la.linecol,
			  (void **)&la.lineaddr, (void **)&la.cumodule, (void **)&la.module_getelf};
	static const char *const names[] = {"dwarf_getsrclines", "dwarf_onesrcline", "dwarf_linecol",
					    "dwarf_lineaddr", "dwfl_cumodule", "dwfl_module_getelf"};
	_Static_assert(sizeof(slots) / sizeof(slots[0]) == sizeof(names) / sizeof(names[0]),
		       "a name per slot");
	if (!load_syms(slots, names, sizeof(names) / sizeof(names[0])))
		return false;
	state = 1;
	return true;
}

/* the last path component of s[0, *end), moving *end before it; false
 * when none is left ("." components are skipped in suffixes) */
static bool last_component(const char *s, size_t *end, const char **comp, size_t *len)
{
	size_t e = *end;
	while (e && s[e - 1] == '/')
		e--;
	if (!e)
		return false;
	size_t b = e;
	while (b && s[b - 1] != '/')
		b--;
	*comp = s + b;
	*len = e - b;
	*end = b;
	return true;
}

bool hdw_path_ends_with(const char *path, const char *suffix)
{
	while (suffix[0] == '.' && suffix[1] == '/')
		for (suffix += 2; *suffix == '/'; suffix++)
			;
	size_t pe = strlen(path), se = strlen(suffix);
	const char *pc, *sc;
	size_t pl, sl;
	bool any = false;
	while (last_component(suffix, &se, &sc, &sl)) {
		if (!last_component(path, &pe, &pc, &pl) || pl != sl || memcmp(pc, sc, sl))
			return false;
		any = true;
	}
	/* "/x.c" names the root's x.c */
	if (any && suffix[0] == '/' && last_component(path, &pe, &pc, &pl))
		return false;
	return any;
}

int hdw_line_addr(const char *path, const char *src, unsigned line, unsigned col, uint64_t *vaddr,
		  char *err, size_t errlen)
{
	struct hdw_file *f;
	int rc = hdw_open(path, &f, err, errlen);
	if (rc)
		return rc;
	Dwfl *dwfl = hdw_file_dwfl(f);
	if (!la_load() || !dwfl) {
		snprintf(err, errlen, "%s: a source line's address needs its DWARF line table%s", path,
			 dwfl ? " (libdw lacks the functions that read it)" : ", and it has BTF only");
		return -ENOSYS;
	}
	/* the first unit whose file table names a file ending with src; a
	 * second file of another path is ambiguous */
	/* libdwfl's own unit DIEs, which live as long as the session
	 * (dwfl_cumodule takes one of them, not a copy) */
	Dwarf_Die *cu = NULL, *match = NULL;
	Dwarf_Addr bias, match_bias = 0;
	const char *match_path = NULL;
	struct arena *a = arena_new();
	while ((cu = lw.nextcu(dwfl, cu, &bias))) {
		Dwarf_Files *files;
		size_t nfiles;
		if (lw.getsrcfiles(cu, &files, &nfiles))
			continue;
		for (size_t i = 0; i < nfiles; i++) {
			const char *name = lw.filesrc(files, i, NULL, NULL);
			if (!name || !hdw_path_ends_with(name, src))
				continue;
			if (!match_path) {
				match = cu;
				match_bias = bias;
				match_path = arena_strdup(a, name);
			} else if (strcmp(name, match_path)) {
				snprintf(err, errlen, "'%s' names two source files of %s, %s and %s: "
					 "give more of its path", src, path, match_path, name);
				arena_free(a);
				return -EINVAL;
			}
		}
	}
	if (!match) {
		snprintf(err, errlen, "no source file '%s' in the DWARF of %s (it names the files it "
			 "was compiled from: give the file's name or the end of its path)", src, path);
		arena_free(a);
		return -ENOENT;
	}
	Dwarf_Lines *lines;
	size_t nlines;
	rc = -ENOENT;
	if (la.getsrclines(match, &lines, &nlines)) {
		snprintf(err, errlen, "the unit of %s in %s has no line table", match_path, path);
		arena_free(a);
		return -ENOENT;
	}
	char cols[96] = "";	/* the line's columns, for an error */
	size_t clen = 0;
	int seen[8], nseen = 0;
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = la.onesrcline(lines, i);
		int ln, lc;
		const char *ls;
		Dwarf_Addr addr;
		if (!l || lw.lineno(l, &ln) || la.linecol(l, &lc) || !(ls = lw.linesrc(l, NULL, NULL)))
			continue;
		if ((unsigned)ln != line || !hdw_path_ends_with(ls, match_path))
			continue;
		if (col && (unsigned)lc != col) {
			bool dup = false;
			for (int k = 0; k < nseen; k++)
				dup |= seen[k] == lc;
			if (!dup && nseen < 8) {
				seen[nseen++] = lc;
				clen += (size_t)snprintf(cols + clen, sizeof(cols) - clen, "%s%d",
							 clen ? ", " : "", lc);
			}
			continue;
		}
		if (la.lineaddr(l, &addr))
			continue;
		/* the DWARF's address into the ELF file's own layout (a debug
		 * file of a prelinked binary may differ) */
		GElf_Addr elf_bias = match_bias;
		Dwfl_Module *mod = la.cumodule(match);
		if (mod)
			la.module_getelf(mod, &elf_bias);
		*vaddr = addr + match_bias - elf_bias;
		rc = 0;
		break;
	}
	if (rc && clen)
		snprintf(err, errlen, "line %u of %s has no code at column %u in %s (its code starts "
			 "at column %s)", line, match_path, col, path, cols);
	else if (rc)
		snprintf(err, errlen, "line %u of %s has no code in %s (a line where a statement "
			 "begins does: an empty line, a comment or a declaration without an initialiser "
			 "has none)", line, match_path, path);
	arena_free(a);
	return rc;
}
