/*
 * dwarf.c - a user-space binary's functions and types from its DWARF.
 *
 * `sonde -lv uprobe:BIN:func` lists a function's parameters, and
 * `uprobe:BIN:func { args.n->id }` reads one by name: both need what the
 * compiler wrote with -g, in the binary or in a separate debug file
 * (/usr/lib/debug/.build-id/..., a distribution's -dbgsym/-debuginfo
 * package).  elfutils' libdw reads it: DWARF 2 to 5, type units, split and
 * dwz-compressed debug info, and the standard places separate debug
 * files are found (libdwfl's find_debuginfo), which a reader of our own
 * would have to redo and keep up with compilers.
 *
 * libdw is opened with dlopen() on first use, not linked: only a script
 * that names a uprobe argument, and -lv of uprobes, need it, and every
 * other run keeps its startup cost (its relocations and those of the
 * libraries it pulls in) off.  Without it the error names the package.
 *
 * What the rest of sonde gets is independent of libdw: struct hdw_type,
 * a graph of the types a function's parameters reach, each DIE converted
 * once (structs that point to themselves are cycles in the graph), and
 * for -lv the C type names as bpftrace prints them.  An open file stays
 * open until the process ends: sema reads a struct's members while it
 * checks the script.  A file without DWARF (or a run without libdw) is
 * read from its .BTF section instead when it has one (ubtf.c: `pahole
 * -J`, kept by `objcopy --strip-debug`).
 */

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* after libdw.h: hdw_unit_die */
#include "host/host_int.h"

#include "common/arena.h"

/* the libdw functions used here, from the library opened on first use;
 * each name below is the libdw function of that name */
static struct {
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	void (*end)(Dwfl *);
	Dwfl_Module *(*report_offline)(Dwfl *, const char *, const char *, int);
	int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *),
			  void *);
	Dwarf_Die *(*nextcu)(Dwfl *, Dwarf_Die *, Dwarf_Addr *);
	int (*errno_)(void);
	const char *(*errmsg)(int);
	int (*child)(Dwarf_Die *, Dwarf_Die *);
	int (*siblingof)(Dwarf_Die *, Dwarf_Die *);
	int (*tag)(Dwarf_Die *);
	const char *(*diename)(Dwarf_Die *);
	Dwarf_Attribute *(*attr_integrate)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	int (*hasattr_integrate)(Dwarf_Die *, unsigned int);
	Dwarf_Die *(*formref_die)(Dwarf_Attribute *, Dwarf_Die *);
	int (*formudata)(Dwarf_Attribute *, Dwarf_Word *);
	int (*formsdata)(Dwarf_Attribute *, Dwarf_Sword *);
	int (*formflag)(Dwarf_Attribute *, bool *);
	const char *(*formstring)(Dwarf_Attribute *);
	int (*aggregate_size)(Dwarf_Die *, Dwarf_Word *);
	int (*find_debuginfo)(Dwfl_Module *, void **, const char *, Dwarf_Addr, const char *,
			      const char *, GElf_Word, char **);
	int (*section_address)(Dwfl_Module *, void **, const char *, Dwarf_Addr, const char *,
			       GElf_Word, const GElf_Shdr *, Dwarf_Addr *);
	int (*cu_info)(Dwarf_CU *, Dwarf_Half *, uint8_t *, Dwarf_Die *, Dwarf_Die *, uint64_t *,
		       uint8_t *, uint8_t *);
} dw;

#define DW_SONAME "libdw.so.1"

static void *dw_handle;

static int dw_load(void)
{
	static int state;	/* 0: not tried, 1: loaded, -1: not there */
	if (state)
		return state > 0 ? 0 : -ENOSYS;
	state = -1;
	void *h = dw_handle = dlopen(DW_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -ENOSYS;
	void **slots[] = {
		(void **)&dw.begin, (void **)&dw.end, (void **)&dw.report_offline, (void **)&dw.report_end,
		(void **)&dw.nextcu, (void **)&dw.errno_, (void **)&dw.errmsg, (void **)&dw.child,
		(void **)&dw.siblingof, (void **)&dw.tag, (void **)&dw.diename,
		(void **)&dw.attr_integrate, (void **)&dw.hasattr_integrate, (void **)&dw.formref_die,
		(void **)&dw.formudata, (void **)&dw.formsdata, (void **)&dw.formflag,
		(void **)&dw.formstring, (void **)&dw.aggregate_size, (void **)&dw.find_debuginfo,
		(void **)&dw.section_address, (void **)&dw.cu_info,
	};
	static const char *const names[] = {
		"dwfl_begin", "dwfl_end", "dwfl_report_offline", "dwfl_report_end", "dwfl_nextcu", "dwfl_errno",
		"dwfl_errmsg", "dwarf_child", "dwarf_siblingof", "dwarf_tag", "dwarf_diename",
		"dwarf_attr_integrate", "dwarf_hasattr_integrate", "dwarf_formref_die",
		"dwarf_formudata", "dwarf_formsdata", "dwarf_formflag", "dwarf_formstring",
		"dwarf_aggregate_size", "dwfl_standard_find_debuginfo", "dwfl_offline_section_address",
		"dwarf_cu_info",
	};
	_Static_assert(sizeof(slots) / sizeof(slots[0]) == sizeof(names) / sizeof(names[0]),
		       "a name per slot");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*slots[i] = dlsym(h, names[i])))
			return -ENOSYS;
	state = 1;
	return 0;
}

void *hdw_libdw_sym(const char *name)
{
	return dw_load() ? NULL : dlsym(dw_handle, name);
}

/* --debuginfo: libdwfl's search path for separate debug files, NULL for
 * its default (":.debug:/usr/lib/debug") */
static char *search_path;

int hdw_set_debuginfo_path(const char *const *dirs, int n)
{
	size_t len = sizeof(HDW_DEFAULT_DEBUGINFO);
	for (int i = 0; i < n; i++)
		len += strlen(dirs[i]) + 1;
	char *p = malloc(len);
	if (!p)
		return -ENOMEM;
	*p = 0;
	for (int i = 0; i < n; i++) {
		strcat(p, dirs[i]);
		strcat(p, ":");
	}
	/* then libdwfl's own ("" first: the binary's own directory) */
	strcat(p, HDW_DEFAULT_DEBUGINFO);
	free(search_path);
	search_path = p;
	return 0;
}

const char *hdw_debuginfo_path(void)
{
	return search_path ? search_path : HDW_DEFAULT_DEBUGINFO;
}

Dwarf_Die *hdw_unit_die(Dwarf_Die *cu, Dwarf_Die *buf)
{
	uint8_t type = 0;
	Dwarf_Die sub;
	memset(&sub, 0, sizeof(sub));
	if (dw.cu_info(cu->cu, NULL, &type, NULL, &sub, NULL, NULL, NULL) || type != DW_UT_skeleton ||
	    !sub.addr)
		return cu;
	*buf = sub;
	return buf;
}

/* converted DIEs by their address in the mapped debug data (unique across
 * a file and the files it refers to), open addressing, at most half full */
struct memo {
	const void *key;
	struct hdw_type *type;
};

/* a function's definition by name (and C++ linkage name), found once */
struct func_entry {
	const char *name;	/* NULL: an empty slot */
	Dwarf_Die die;
	struct hdw_func *fn;	/* converted on first lookup */
};

struct hdw_file {
	struct hdw_file *next;
	const char *path;
	int rc;			/* not 0: opening it failed so, with msg */
	const char *msg;
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	struct arena *a;
	struct memo *memo;
	size_t memo_cap, memo_n;
	struct func_entry *funcs;	/* open addressing, a power of two of slots */
	size_t funcs_cap;
	struct hubtf *btf;	/* no DWARF: the file's .BTF (ubtf.c) answers */
	/* split units libdw did not find, read from PATH.dwp (dwp.c) */
	Dwarf_Die *dwp;
	size_t ndwp;
	bool dwp_tried;
};

/* a skeleton unit of f whose split unit libdw did not find, false when
 * none (its DIE in *out) */
static bool split_missing(struct hdw_file *f, Dwarf_Die **out)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	while ((cu = dw.nextcu(f->dwfl, cu, &bias))) {
		uint8_t type = 0;
		Dwarf_Die sub;
		memset(&sub, 0, sizeof(sub));
		if (!dw.cu_info(cu->cu, NULL, &type, NULL, &sub, NULL, NULL, NULL) &&
		    type == DW_UT_skeleton && !sub.addr) {
			*out = cu;
			return true;
		}
	}
	return false;
}

/* the units of PATH.dwp, once, when libdw left a skeleton without its
 * split unit (elfutils before 0.191 reads no package) */
static void load_dwp(struct hdw_file *f)
{
	Dwarf_Die *cu;
	if (f->dwp_tried)
		return;
	f->dwp_tried = true;
	if (!split_missing(f, &cu))
		return;
	const char *pkg = arena_printf(f->a, "%s.dwp", f->path);
	if (hdw_dwp_units(pkg, f->a, &f->dwp, &f->ndwp))
		f->ndwp = 0;
}

/* the i-th unit DIE whose entries f's lookups walk: libdwfl's units (a
 * skeleton's split unit in its place), then the package's; NULL past the
 * last.  *it is libdwfl's cursor, buf room for a split DIE. */
static Dwarf_Die *next_unit(struct hdw_file *f, Dwarf_Die **it, size_t *pkg, Dwarf_Die *buf)
{
	Dwarf_Addr bias;
	if (*pkg == 0 && (*it = dw.nextcu(f->dwfl, *it, &bias)))
		return hdw_unit_die(*it, buf);
	load_dwp(f);
	return *pkg < f->ndwp ? &f->dwp[(*pkg)++] : NULL;
}

/* every file opened, and every one that failed (-lv asks once per line) */
static struct hdw_file *files;

static struct hdw_type **memo_slot(struct hdw_file *f, const void *key)
{
	if (2 * (f->memo_n + 1) > f->memo_cap) {
		size_t cap = f->memo_cap ? 2 * f->memo_cap : 256;
		struct memo *m = calloc(cap, sizeof(*m));
		if (!m)
			return NULL;
		for (size_t i = 0; i < f->memo_cap; i++) {
			if (!f->memo[i].key)
				continue;
			size_t j = ((uintptr_t)f->memo[i].key >> 3) & (cap - 1);
			while (m[j].key)
				j = (j + 1) & (cap - 1);
			m[j] = f->memo[i];
		}
		free(f->memo);
		f->memo = m;
		f->memo_cap = cap;
	}
	size_t j = ((uintptr_t)key >> 3) & (f->memo_cap - 1);
	while (f->memo[j].key && f->memo[j].key != key)
		j = (j + 1) & (f->memo_cap - 1);
	if (!f->memo[j].key) {
		f->memo[j].key = key;
		f->memo_n++;
	}
	return &f->memo[j].type;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	return dw.attr_integrate(die, DW_AT_type, &at) && dw.formref_die(&at, out);
}

static uint64_t udata(Dwarf_Die *die, unsigned name, uint64_t dflt)
{
	Dwarf_Attribute at;
	Dwarf_Word v;
	if (!dw.attr_integrate(die, name, &at) || dw.formudata(&at, &v))
		return dflt;
	return v;
}

static bool flag(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute at;
	bool v = false;
	return dw.attr_integrate(die, name, &at) && !dw.formflag(&at, &v) && v;
}

static const char *die_name(struct hdw_file *f, Dwarf_Die *die)
{
	const char *n = dw.diename(die);
	return n && *n ? arena_strdup(f->a, n) : NULL;
}

/* the definition of struct/union `name` (tag) in any unit, for a unit
 * that only declares it; false when none defines it */
static bool find_definition(struct hdw_file *f, int tag, const char *name, Dwarf_Die *out)
{
	Dwarf_Die *it = NULL, *cu, split;
	size_t pkg = 0;
	while ((cu = next_unit(f, &it, &pkg, &split))) {
		Dwarf_Die c;
		if (dw.child(cu, &c))
			continue;
		do {
			const char *n;
			if (dw.tag(&c) == tag && !flag(&c, DW_AT_declaration) &&
			    (n = dw.diename(&c)) && !strcmp(n, name)) {
				*out = c;
				return true;
			}
		} while (!dw.siblingof(&c, &c));
	}
	return false;
}

static struct hdw_type *convert(struct hdw_file *f, Dwarf_Die *die);

static struct hdw_type *void_type(struct hdw_file *f)
{
	struct hdw_type *t = arena_new_obj(f->a, struct hdw_type);
	*t = (struct hdw_type){.kind = HDW_VOID};
	return t;
}

static void add_members(struct hdw_file *f, Dwarf_Die *die, struct hdw_type *t)
{
	Dwarf_Die c;
	if (dw.child(die, &c))
		return;
	do {
		if (dw.tag(&c) != DW_TAG_member)
			continue;
		Dwarf_Die mt;
		if (!type_of(&c, &mt))
			continue;
		t->members = arena_grow(f->a, t->members, (size_t)t->nmembers, sizeof(*t->members));
		struct hdw_member *m = &t->members[t->nmembers++];
		*m = (struct hdw_member){.name = die_name(f, &c)};
		uint64_t bit_size = udata(&c, DW_AT_bit_size, 0);
		uint64_t off = udata(&c, DW_AT_data_member_location, 0);
		if (bit_size) {
			uint64_t bit;
			if (dw.hasattr_integrate(&c, DW_AT_data_bit_offset)) {
				bit = udata(&c, DW_AT_data_bit_offset, 0);
			} else {
				/* DWARF 2/3: from the storage unit's high bit (big-endian view) */
				uint64_t unit = udata(&c, DW_AT_byte_size, 0);
				Dwarf_Word sz;
				if (!unit)
					unit = dw.aggregate_size(&mt, &sz) ? 4 : sz;
				bit = off * 8 + unit * 8 - udata(&c, DW_AT_bit_offset, 0) - bit_size;
			}
			off = bit / 8;
			m->bit_off = (uint8_t)(bit % 8);
			m->bit_size = (uint8_t)bit_size;
		}
		m->offset = off;
		m->type = convert(f, &mt);
	} while (!dw.siblingof(&c, &c));
}

static void add_enumerators(struct hdw_file *f, Dwarf_Die *die, struct hdw_type *t)
{
	Dwarf_Die c;
	int n = 0;
	if (!dw.child(die, &c))
		do
			n += dw.tag(&c) == DW_TAG_enumerator;
		while (!dw.siblingof(&c, &c));
	t->enum_names = arena_new_array(f->a, const char *, n ? n : 1);
	t->enum_values = arena_new_array(f->a, uint64_t, n ? n : 1);
	if (dw.child(die, &c))
		return;
	do {
		if (dw.tag(&c) != DW_TAG_enumerator)
			continue;
		Dwarf_Attribute at;
		Dwarf_Sword v = 0;
		if (dw.attr_integrate(&c, DW_AT_const_value, &at))
			dw.formsdata(&at, &v);
		t->enum_names[t->nenum] = die_name(f, &c);
		t->enum_values[t->nenum++] = (uint64_t)v;
	} while (!dw.siblingof(&c, &c));
}

/* an array's dimensions (its subranges, outermost first, at most max);
 * a flexible or unknown bound is 0 */
static int array_dims(Dwarf_Die *die, uint64_t *dims, int max)
{
	Dwarf_Die c;
	int n = 0;
	if (dw.child(die, &c))
		return 0;
	do {
		if (dw.tag(&c) != DW_TAG_subrange_type || n == max)
			continue;
		uint64_t k = udata(&c, DW_AT_count, 0);
		Dwarf_Attribute at;
		Dwarf_Word ub;
		if (!k && dw.attr_integrate(&c, DW_AT_upper_bound, &at) && !dw.formudata(&at, &ub))
			k = ub + 1 - udata(&c, DW_AT_lower_bound, 0);
		dims[n++] = k;
	} while (!dw.siblingof(&c, &c));
	return n;
}

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

static struct hdw_type *convert(struct hdw_file *f, Dwarf_Die *die)
{
	/* typedefs and qualifiers are the type they name */
	Dwarf_Die cur = *die, inner;
	for (int depth = 0; is_qualifier(dw.tag(&cur)); depth++) {
		if (depth > 64 || !type_of(&cur, &inner))
			return void_type(f);	/* const void */
		cur = inner;
	}
	die = &cur;
	struct hdw_type **slot = memo_slot(f, die->addr);
	if (!slot)
		return void_type(f);
	if (*slot)
		return *slot;
	struct hdw_type *t = arena_new_obj(f->a, struct hdw_type);
	*t = (struct hdw_type){.kind = HDW_OTHER};
	*slot = t;	/* before the members: a struct that points to itself (the
			 * slot itself may move as the memo grows) */
	int tag = dw.tag(die);
	switch (tag) {
	case DW_TAG_base_type: {
		uint64_t enc = udata(die, DW_AT_encoding, 0);
		t->name = die_name(f, die);
		t->size = udata(die, DW_AT_byte_size, 0);
		t->kind = enc == DW_ATE_float || enc == DW_ATE_complex_float ? HDW_FLOAT : HDW_INT;
		t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		t->is_bool = enc == DW_ATE_boolean;
		break;
	}
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t->kind = HDW_PTR;
		t->size = 8;
		t->elem = type_of(die, &inner) ? convert(f, &inner) : void_type(f);
		break;
	case DW_TAG_array_type: {
		/* int grid[2][3]: an array of 2 arrays of 3 ints, as C has it */
		uint64_t dims[8];
		int nd = array_dims(die, dims, 8);
		const struct hdw_type *el = type_of(die, &inner) ? convert(f, &inner) : void_type(f);
		for (int d = nd - 1; d > 0; d--) {
			struct hdw_type *a = arena_new_obj(f->a, struct hdw_type);
			*a = (struct hdw_type){.kind = HDW_ARRAY, .count = dims[d], .elem = el,
					       .size = dims[d] * el->size};
			el = a;
		}
		t->kind = HDW_ARRAY;
		t->count = nd ? dims[0] : 0;
		t->elem = el;
		t->size = t->count * el->size;
		break;
	}
	case DW_TAG_enumeration_type:
		t->kind = HDW_ENUM;
		t->name = die_name(f, die);
		t->size = udata(die, DW_AT_byte_size, 4);
		/* C enums are signed unless an enumerator does not fit int */
		t->is_signed = !(type_of(die, &inner) && udata(&inner, DW_AT_encoding, 0) == DW_ATE_unsigned);
		add_enumerators(f, die, t);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type: {
		t->kind = tag == DW_TAG_union_type ? HDW_UNION : HDW_STRUCT;
		t->name = die_name(f, die);
		Dwarf_Die def;
		if (flag(die, DW_AT_declaration)) {
			if (!t->name || !find_definition(f, tag, t->name, &def)) {
				t->declared_only = true;
				break;
			}
			die = &def;
		}
		t->size = udata(die, DW_AT_byte_size, 0);
		add_members(f, die, t);
		break;
	}
	case DW_TAG_subroutine_type:
		t->kind = HDW_FUNC;
		break;
	default:
		break;
	}
	return t;
}

/* bpftrace's name of a parameter's type, as its -lv prints it: base types
 * and typedefs by name, "T*", "struct S", "const T" ("T* const" for a
 * const pointer); anything else "<unknown type>" (arrays, volatile,
 * functions) */
static void ctype_name(Dwarf_Die *die, bool have, char *buf, size_t len)
{
	char inner_buf[512];
	Dwarf_Die inner;
	int tag = have ? dw.tag(die) : -1;
	const char *n;
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		n = dw.diename(die);
		snprintf(buf, len, "%s", n ? n : "");
		return;
	case DW_TAG_pointer_type:
		if (!type_of(die, &inner)) {
			snprintf(buf, len, "void*");
			return;
		}
		ctype_name(&inner, true, inner_buf, sizeof(inner_buf));
		snprintf(buf, len, "%s*", inner_buf);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		n = dw.diename(die);
		snprintf(buf, len, "%s %s", tag == DW_TAG_structure_type ? "struct" :
			 tag == DW_TAG_union_type ? "union" : "enum", n ? n : "<anonymous>");
		return;
	case DW_TAG_const_type: {
		bool h = type_of(die, &inner);
		ctype_name(&inner, h, inner_buf, sizeof(inner_buf));
		if (h && dw.tag(&inner) == DW_TAG_pointer_type)
			snprintf(buf, len, "%s const", inner_buf);
		else
			snprintf(buf, len, "const %s", inner_buf);
		return;
	}
	default:
		snprintf(buf, len, "<unknown type>");
		return;
	}
}

int hdw_open(const char *path, struct hdw_file **out, char *err, size_t errlen)
{
	for (struct hdw_file *f = files; f; f = f->next)
		if (!strcmp(f->path, path)) {
			if (f->rc)
				snprintf(err, errlen, "%s", f->msg);
			*out = f->rc ? NULL : f;
			return f->rc;
		}
	struct hdw_file *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->a = arena_new();
	f->path = arena_strdup(f->a, path);
	if (dw_load()) {
		/* no libdw: the file's BTF, if it has some */
		if ((f->btf = hubtf_open(path, f->a))) {
			f->next = files;
			files = f;
			*out = f;
			return 0;
		}
		arena_free(f->a);
		free(f);
		snprintf(err, errlen, "reading DWARF needs elfutils' libdw (%s; Debian and Ubuntu: "
			 "apt install libdw1), which cannot be loaded", DW_SONAME);
		return -ENOSYS;
	}
	f->cb.find_debuginfo = dw.find_debuginfo;
	f->cb.section_address = dw.section_address;
	f->cb.debuginfo_path = &search_path;
	f->dwfl = dw.begin(&f->cb);
	Dwarf_Addr bias;
	int rc = 0;
	if (!f->dwfl || !dw.report_offline(f->dwfl, path, path, -1) ||
	    dw.report_end(f->dwfl, NULL, NULL)) {
		snprintf(err, errlen, "cannot read %s: %s", path, dw.errmsg(dw.errno_()));
		rc = -EINVAL;
	} else if (!dw.nextcu(f->dwfl, NULL, &bias)) {
		snprintf(err, errlen, "%s has no DWARF debug information: build it with -g, or "
			 "install its debug info (a -dbgsym or -debuginfo package), or give it a .BTF "
			 "section (pahole -J)", path);
		rc = -ENOENT;
	}
	f->next = files;
	files = f;
	if (rc == -ENOENT && (f->btf = hubtf_open(path, f->a)))
		rc = 0;	/* no DWARF, but BTF (pahole -J) */
	if (rc || f->btf) {
		if (f->dwfl)
			dw.end(f->dwfl);
		f->dwfl = NULL;
	}
	if (rc) {
		f->rc = rc;
		f->msg = arena_strdup(f->a, err);
	}
	*out = rc ? NULL : f;
	return rc;
}

static size_t name_hash(const char *s)
{
	size_t h = 14695981039346656037u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static struct func_entry *func_slot(struct hdw_file *f, const char *name)
{
	size_t j = name_hash(name) & (f->funcs_cap - 1);
	while (f->funcs[j].name && strcmp(f->funcs[j].name, name))
		j = (j + 1) & (f->funcs_cap - 1);
	return &f->funcs[j];
}

static void index_func(struct hdw_file *f, size_t *n, const char *name, Dwarf_Die *die)
{
	if (2 * (*n + 1) > f->funcs_cap) {
		struct func_entry *old = f->funcs;
		size_t oldcap = f->funcs_cap;
		f->funcs_cap = oldcap ? 2 * oldcap : 1024;
		f->funcs = arena_new_array(f->a, struct func_entry, f->funcs_cap);
		memset(f->funcs, 0, f->funcs_cap * sizeof(*f->funcs));
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].name)
				*func_slot(f, old[i].name) = old[i];
	}
	struct func_entry *e = func_slot(f, name);
	if (e->name)
		return;	/* the first unit's definition */
	*e = (struct func_entry){.name = name, .die = *die};
	(*n)++;
}

/* every function definition of every unit, by DW_AT_name and C++'s
 * DW_AT_linkage_name, in one pass: -lv of a whole binary asks for each */
static void index_funcs(struct hdw_file *f)
{
	Dwarf_Die *it = NULL, *cu, split;
	size_t pkg = 0, n = 0;
	while ((cu = next_unit(f, &it, &pkg, &split))) {
		Dwarf_Die c;
		if (dw.child(cu, &c))
			continue;
		do {
			if (dw.tag(&c) != DW_TAG_subprogram || flag(&c, DW_AT_declaration))
				continue;
			const char *nm = dw.diename(&c), *ln;
			Dwarf_Attribute at;
			if (nm && *nm)
				index_func(f, &n, nm, &c);
			if (dw.attr_integrate(&c, DW_AT_linkage_name, &at) && (ln = dw.formstring(&at)))
				index_func(f, &n, ln, &c);
		} while (!dw.siblingof(&c, &c));
	}
	if (!f->funcs_cap)	/* none: one empty slot, so lookups end */
		index_func(f, &n, "", &(Dwarf_Die){0});
}

const struct hdw_func *hdw_func(struct hdw_file *f, const char *name)
{
	if (f->btf)
		return hubtf_func(f->btf, name);
	if (!f->funcs)
		index_funcs(f);
	struct func_entry *e = *name ? func_slot(f, name) : NULL;
	if (!e || !e->name)
		return NULL;
	if (e->fn)
		return e->fn;
	struct hdw_func *fn = arena_new_obj(f->a, struct hdw_func);
	*fn = (struct hdw_func){.name = e->name};
	e->fn = fn;
	Dwarf_Die die = e->die, c, t;
	fn->ret = type_of(&die, &t) ? convert(f, &t) : void_type(f);
	if (dw.child(&die, &c))
		return fn;
	do {
		int tag = dw.tag(&c);
		if (tag == DW_TAG_unspecified_parameters)
			fn->varargs = true;
		if (tag != DW_TAG_formal_parameter)
			continue;
		fn->params = arena_grow(f->a, fn->params, (size_t)fn->nparams, sizeof(*fn->params));
		struct hdw_param *p = &fn->params[fn->nparams++];
		char buf[1024];
		bool have = type_of(&c, &t);
		ctype_name(&t, have, buf, sizeof(buf));
		*p = (struct hdw_param){.name = die_name(f, &c), .ctype = arena_strdup(f->a, buf),
					.type = have ? convert(f, &t) : void_type(f)};
	} while (!dw.siblingof(&c, &c));
	return fn;
}

const struct hdw_type *hdw_struct_named(struct hdw_file *f, bool is_union, const char *name)
{
	Dwarf_Die die;
	if (f->btf)
		return hubtf_struct_named(f->btf, is_union, name);
	if (!find_definition(f, is_union ? DW_TAG_union_type : DW_TAG_structure_type, name, &die))
		return NULL;
	return convert(f, &die);
}

void hdw_print_params(const struct hdw_func *fn, FILE *out)
{
	for (int i = 0; i < fn->nparams; i++) {
		if (fn->params[i].name)
			fprintf(out, "    %s %s\n", fn->params[i].ctype, fn->params[i].name);
		else
			fprintf(out, "    %s\n", fn->params[i].ctype);
	}
}

void *hdw_file_dwfl(struct hdw_file *f)
{
	return f ? f->dwfl : NULL;
}

const char *hdw_split_missing(struct hdw_file *f)
{
	Dwarf_Die *cu;
	if (!f || !f->dwfl)
		return NULL;
	load_dwp(f);
	if (f->ndwp || !split_missing(f, &cu))
		return NULL;
	Dwarf_Attribute at;
	const char *dwo = NULL, *dir = NULL;
	if (dw.attr_integrate(cu, DW_AT_dwo_name, &at) || dw.attr_integrate(cu, DW_AT_GNU_dwo_name, &at))
		dwo = dw.formstring(&at);
	if (dw.attr_integrate(cu, DW_AT_comp_dir, &at))
		dir = dw.formstring(&at);
	if (dwo && dwo[0] != '/' && dir)
		return arena_printf(f->a, "the split DWARF of %s (%s/%s, or %s.dwp) cannot be found: "
				    "its functions and types are there, not in the binary", f->path, dir,
				    dwo, f->path);
	return arena_printf(f->a, "the split DWARF of %s (%s, or %s.dwp) cannot be found: its "
			    "functions and types are there, not in the binary", f->path,
			    dwo ? dwo : "a .dwo file", f->path);
}
