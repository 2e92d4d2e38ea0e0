/*
 * elfsym.c - function symbols of ELF files, for placing uprobes and for
 * naming addresses.
 *
 * A uprobe is placed at a *file offset*, but a symbol's st_value is a
 * virtual address in the file's own link-time layout; the PT_LOAD program
 * headers say which file bytes land at which vaddr (off = vaddr - p_vaddr +
 * p_offset).  Going the other way, an address in a live process becomes a
 * file offset through the /proc/PID/maps line that covers it, then a vaddr
 * through PT_LOAD again, then a symbol.  That works alike for PIE
 * executables, shared libraries and fixed-address executables, and it never
 * needs the load bias.
 *
 * Symbols come from .symtab and .dynsym and, like bpftrace (bcc), from a
 * separate debug file found under /usr/lib/debug by build-id or
 * .gnu_debuglink (checked by build-id or CRC, inside the same root as the
 * file), because Debian's libc.so.6 keeps only .dynsym.  Aliases (malloc,
 * __libc_malloc, __malloc) share an address; the preferred name comes first.
 *
 * The symbol cache for usym()/ustack over these is in symcache.c.
 */
#include "host/host_int.h"
#include "common/arena.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct rs_load {
	uint64_t vaddr, off, filesz;
	bool exec;
};

struct rs_elf {
	struct arena *ar;
	const char *name;
	struct rs_sym *syms;
	size_t nsyms;
	struct rs_load *loads;
	size_t nloads;
	unsigned char build_id[64];
	size_t build_id_len;
	const char *debuglink;	/* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;
	bool has_symtab;	/* a .symtab (here or in the debug file): not stripped */
	const char **needed;	/* DT_NEEDED sonames, in order */
	size_t nneeded;
};

/* ---- reading ---------------------------------------------------------- */


static bool elf_ready(void)
{
	static int state;	/* 0 unknown, 1 ok, -1 failed */
	if (!state)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

static int push_sym(struct rs_elf *e, const struct rs_sym *s)
{
	e->syms = vec_grow(e->syms, e->nsyms, sizeof(*e->syms));
	e->syms[e->nsyms++] = *s;
	return 0;
}

/* Function symbols of one file: .symtab always, .dynsym unless symtab_only
 * (a debug file's .dynsym is a stripped duplicate at best). */
static int collect_syms(struct rs_elf *e, Elf *elf, bool symtab_only)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t entsz, n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB &&
		    (symtab_only || sh.sh_type != SHT_DYNSYM))
			continue;
		e->has_symtab |= sh.sh_type == SHT_SYMTAB;
		d = elf_getdata(scn, NULL);
		entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		if (!d || !entsz)
			continue;
		n = d->d_size / entsz;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			const char *name;
			int type;
			struct rs_sym rs;

			if (!gelf_getsym(d, (int)i, &s))
				break;
			type = GELF_ST_TYPE(s.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC)
				continue;
			if (s.st_shndx == SHN_UNDEF || s.st_value == 0)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			rs.name = arena_strdup(e->ar, name);
			rs.vaddr = s.st_value;
			rs.size = s.st_size;
			rs.bind = (uint8_t)GELF_ST_BIND(s.st_info);
			rs.ifunc = type == STT_GNU_IFUNC;
			if (push_sym(e, &rs))
				return -ENOMEM;
		}
	}
	return 0;
}

static int read_build_id(Elf *elf, unsigned char *out, size_t cap, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz > 0 && nh.n_descsz <= cap) {
				memcpy(out, (char *)d->d_buf + doff, nh.n_descsz);
				*len = nh.n_descsz;
				return 0;
			}
		}
	}
	return -ENOENT;
}

int rs_elf_build_id_fd(int fd, unsigned char *out, size_t cap, size_t *len)
{
	if (!elf_ready())
		return -ENOTSUP;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -EIO;
	int rc = elf_kind(elf) == ELF_K_ELF ? read_build_id(elf, out, cap, len) : -ENOEXEC;
	elf_end(elf);
	return rc;
}

/* each DT_NEEDED entry of the dynamic section, in order: the libraries
 * the dynamic linker loads with this one, where it looks for what this
 * one lacks */
static void each_needed(Elf *elf, void (*cb)(const char *name, void *ctx), void *ctx)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Dyn dyn;
			const char *name;
			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_NEEDED &&
			    (name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) && *name)
				cb(name, ctx);
		}
		return;
	}
}

static void keep_needed(const char *name, void *ctx)
{
	struct rs_elf *e = ctx;
	e->needed = arena_grow(e->ar, e->needed, e->nneeded, sizeof(*e->needed));
	e->needed[e->nneeded++] = arena_strdup(e->ar, name);
}

int rs_elf_needed_fd(int fd, void (*cb)(const char *name, void *ctx), void *ctx)
{
	if (!elf_ready())
		return -ENOTSUP;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -EIO;
	if (elf_kind(elf) == ELF_K_ELF)
		each_needed(elf, cb, ctx);
	elf_end(elf);
	return 0;
}

const char *const *rs_elf_needed(const struct rs_elf *e, size_t *n)
{
	*n = e->nneeded;
	return e->needed;
}

static void read_debuglink(struct rs_elf *e, Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sname;
		Elf_Data *d;
		size_t nlen, crcoff;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || d->d_size < 8)
			return;
		nlen = strnlen(d->d_buf, d->d_size);
		crcoff = (nlen + 4) & ~(size_t)3;
		if (nlen == 0 || crcoff + 4 > d->d_size || strchr(d->d_buf, '/'))
			return;
		e->debuglink = arena_strndup(e->ar, d->d_buf, nlen);
		memcpy(&e->debuglink_crc, (char *)d->d_buf + crcoff, 4);
		return;
	}
}

/* The CRC-32 .gnu_debuglink uses (zlib's polynomial). */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	static uint32_t table[256];
	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static bool file_crc_is(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uint32_t crc = 0;
	off_t pos = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), pos)) > 0) {
		crc = crc32_update(crc, buf, (size_t)n);
		pos += n;
	}
	return n == 0 && crc == want;
}

static int open_debug_candidate(const char *root, const char *path)
{
	if (!root || !*root)
		return open(path, O_RDONLY | O_CLOEXEC);
	return rs_open_in_root(root, path, O_RDONLY);
}

/* Merge the .symtab of a separate debug file, if one is found and is
 * provably this file's (same build-id, or the debuglink CRC). */
static void merge_debug_file(struct rs_elf *e, const char *debug_root)
{
	char path[RS_PATH_MAX];
	const char *cands[5];
	char bufs[3][RS_PATH_MAX];
	int ncand = 0;

	if (e->build_id_len >= 2) {
		int n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/",
				 e->build_id[0]);
		for (size_t i = 1; i < e->build_id_len && n < (int)sizeof(path) - 8; i++)
			n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x",
				      e->build_id[i]);
		snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
		cands[ncand++] = path;
	}
	if (e->debuglink && e->name[0] == '/' &&
	    strlen(e->name) + strlen(e->debuglink) + 32 < RS_PATH_MAX) {
		const char *slash = strrchr(e->name, '/');
		int dl = (int)(slash - e->name);
		/* lengths checked above, so none of these truncates */
		snprintf(bufs[0], RS_PATH_MAX, "%.*s/%s", dl, e->name, e->debuglink);
		snprintf(bufs[1], RS_PATH_MAX, "%.*s/.debug/%s", dl, e->name,
			 e->debuglink);
		snprintf(bufs[2], RS_PATH_MAX, "/usr/lib/debug%.*s/%s", dl, e->name,
			 e->debuglink);
		for (int i = 0; i < 3; i++)
			cands[ncand++] = bufs[i];
	}
	/* a container's file may have its debug file on the host: by build-id
	 * that is as safe as the container's own, so try it second */
	if (e->build_id_len >= 2 && debug_root && *debug_root)
		cands[ncand++] = NULL;
	for (int i = 0; i < ncand; i++) {
		int fd = cands[i] ? open_debug_candidate(debug_root, cands[i])
				  : open_debug_candidate(NULL, path);
		Elf *elf;
		bool ok = false;

		if (fd < 0)
			continue;
		elf = elf_begin(fd, ELF_C_READ, NULL);
		if (elf && elf_kind(elf) == ELF_K_ELF) {
			unsigned char id[64];
			size_t idlen = 0;
			if (e->build_id_len) {
				/* also for debuglink candidates: the id is stronger */
				ok = read_build_id(elf, id, sizeof(id), &idlen) == 0 &&
				     idlen == e->build_id_len &&
				     memcmp(id, e->build_id, idlen) == 0;
			} else {
				ok = file_crc_is(fd, e->debuglink_crc);
			}
			if (ok)
				collect_syms(e, elf, true);
		}
		if (elf)
			elf_end(elf);
		close(fd);
		if (ok)
			return;
	}
}

/* ---- ordering ----------------------------------------------------------- */

static int bind_rank(uint8_t b)
{
	switch (b) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

static int underscores(const char *s)
{
	int n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* Which alias names an address: global over local, "malloc" over
 * "malloc@@GLIBC_2.2.5", "malloc" over "__libc_malloc", short over long. */
static int pref_cmp(const struct rs_sym *a, const struct rs_sym *b)
{
	int d;
	size_t la, lb;

	if ((d = bind_rank(a->bind) - bind_rank(b->bind)))
		return d;
	if ((d = (strchr(a->name, '@') != NULL) - (strchr(b->name, '@') != NULL)))
		return d;
	if ((d = underscores(a->name) - underscores(b->name)))
		return d;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_addr_name(const void *pa, const void *pb)
{
	const struct rs_sym *a = pa, *b = pb;
	int d;
	if (a->vaddr != b->vaddr)
		return a->vaddr < b->vaddr ? -1 : 1;
	if ((d = strcmp(a->name, b->name)))
		return d;
	return bind_rank(a->bind) - bind_rank(b->bind);
}

static int cmp_addr_pref(const void *pa, const void *pb)
{
	const struct rs_sym *a = pa, *b = pb;
	if (a->vaddr != b->vaddr)
		return a->vaddr < b->vaddr ? -1 : 1;
	return pref_cmp(a, b);
}

/* Dedupe (name, vaddr) pairs: .symtab repeats .dynsym, the debug file
 * repeats both. */
static void finish_syms(struct rs_elf *e)
{
	size_t w = 0;

	if (!e->nsyms)
		return;
	qsort(e->syms, e->nsyms, sizeof(*e->syms), cmp_addr_name);
	for (size_t r = 0; r < e->nsyms; r++) {
		if (w && e->syms[w - 1].vaddr == e->syms[r].vaddr &&
		    strcmp(e->syms[w - 1].name, e->syms[r].name) == 0) {
			/* keep the best binding, the larger size */
			if (e->syms[r].size > e->syms[w - 1].size)
				e->syms[w - 1].size = e->syms[r].size;
			e->syms[w - 1].ifunc |= e->syms[r].ifunc;
			continue;
		}
		e->syms[w++] = e->syms[r];
	}
	e->nsyms = w;
	qsort(e->syms, e->nsyms, sizeof(*e->syms), cmp_addr_pref);
}

/* ---- public ----------------------------------------------------------- */

int rs_elf_open_fd(int fd, const char *name, const char *debug_root,
		   struct rs_elf **out, char *err, size_t errlen)
{
	struct rs_elf *e;
	Elf *elf;
	GElf_Ehdr eh;
	size_t nph;
	int ret = 0;

	*out = NULL;
	if (!elf_ready()) {
		rs_set_err(err, errlen, "libelf is unusable: %s", elf_errmsg(-1));
		return -ENOSYS;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		rs_set_err(err, errlen, "%s is not an ELF file", name);
		if (elf)
			elf_end(elf);
		return -ENOEXEC;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		rs_set_err(err, errlen, "%s is not an executable or shared library", name);
		elf_end(elf);
		return -ENOEXEC;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		elf_end(elf);
		return -ENOMEM;
	}
	e->ar = arena_new();
	e->name = arena_strdup(e->ar, name);

	if (elf_getphdrnum(elf, &nph) == 0 && nph > 0 && nph < 65536) {
		e->loads = arena_new_array(e->ar, struct rs_load, nph);
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			e->loads[e->nloads++] = (struct rs_load){
				.vaddr = ph.p_vaddr, .off = ph.p_offset,
				.filesz = ph.p_filesz, .exec = ph.p_flags & PF_X,
			};
		}
	}
	if (!e->nloads) {
		rs_set_err(err, errlen, "%s has no loadable segments", name);
		ret = -ENOEXEC;
		goto out;
	}
	read_build_id(elf, e->build_id, sizeof(e->build_id), &e->build_id_len);
	read_debuglink(e, elf);
	each_needed(elf, keep_needed, e);
	if ((ret = collect_syms(e, elf, false))) {
		rs_set_err(err, errlen, "out of memory reading %s", name);
		goto out;
	}
	merge_debug_file(e, debug_root);
	finish_syms(e);
out:
	elf_end(elf);
	if (ret)
		rs_elf_free(e);
	else
		*out = e;
	return ret;
}

int rs_elf_open(const char *path, struct rs_elf **out, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	*out = NULL;
	if (fd < 0) {
		ret = -errno;
		rs_set_err(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	ret = rs_elf_open_fd(fd, path, NULL, out, err, errlen);
	close(fd);
	return ret;
}

void rs_elf_free(struct rs_elf *e)
{
	if (!e)
		return;
	free(e->syms);
	arena_free(e->ar);
	free(e);
}

const char *rs_elf_name(const struct rs_elf *e)
{
	return e->name;
}

bool rs_elf_stripped(const struct rs_elf *e)
{
	return !e->has_symtab;
}

const struct rs_sym *rs_elf_syms(const struct rs_elf *e, size_t *n)
{
	*n = e->nsyms;
	return e->syms;
}

/* libstdc++'s (<cxxabi.h> declares it for C++ only) */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *rs_demangle(const char *name)
{
	int status = 0;
	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	char *d = __cxa_demangle(name, NULL, NULL, &status);
	if (d && status) {
		free(d);
		return NULL;
	}
	return d;
}

/* does C++ name pattern p (ns::func, ns::*) match demangled d, written
 * whole ("ns::func(int)") or without its parameters ("ns::func")? */
static bool cpp_match(const char *p, const char *d, bool glob)
{
	if (glob ? !fnmatch(p, d, 0) : !strcmp(p, d))
		return true;
	const char *paren = strchr(d, '(');
	if (!paren)
		return false;
	char bare[512];
	snprintf(bare, sizeof(bare), "%.*s", (int)(paren - d), d);
	return glob ? !fnmatch(p, bare, 0) : !strcmp(p, bare);
}

int rs_elf_each_match(const struct rs_elf *e, const char *name,
		      int (*cb)(const struct rs_sym *s, void *ctx), void *ctx)
{
	/* uprobe:BIN:cpp:"ns::func" (the newest bpftrace's), or a name
	 * with "::" (0.17's): matched against the demangled names */
	bool cpp = !strncmp(name, "cpp:", 4);
	if (cpp)
		name += 4;
	cpp |= strstr(name, "::") != NULL;
	bool glob = strpbrk(name, "*?[") != NULL;
	int count = 0;

	for (size_t i = 0; i < e->nsyms; i++) {
		const struct rs_sym *s = &e->syms[i];
		int r;

		if (cpp) {
			char *d = rs_demangle(s->name);
			bool m = d ? cpp_match(name, d, glob) : !strcmp(name, s->name);
			free(d);
			if (!m)
				continue;
		} else if (glob) {
			/* GCC's split-off .part.N pieces are not functions a
			 * caller enters; bpftrace leaves them out of globs */
			if (strstr(s->name, ".part.") ||
			    fnmatch(name, s->name, 0) != 0)
				continue;
		} else if (strcmp(name, s->name) != 0) {
			continue;
		}
		count++;
		if (cb && (r = cb(s, ctx)))
			return r;
	}
	return count;
}

int rs_elf_vaddr_to_offset(const struct rs_elf *e, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct rs_load *l = &e->loads[i];
		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = vaddr - l->vaddr + l->off;
			return 0;
		}
	}
	return -ENOENT;
}

int rs_elf_offset_to_vaddr(const struct rs_elf *e, uint64_t off, uint64_t *vaddr)
{
	int found = -1;

	/* segments may share a file page; code wants the executable one */
	for (size_t i = 0; i < e->nloads; i++) {
		const struct rs_load *l = &e->loads[i];
		if (off >= l->off && off - l->off < l->filesz) {
			if (found < 0 || (l->exec && !e->loads[found].exec))
				found = (int)i;
		}
	}
	if (found < 0)
		return -ENOENT;
	*vaddr = off - e->loads[found].off + e->loads[found].vaddr;
	return 0;
}

const struct rs_sym *rs_elf_addr_sym(const struct rs_elf *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->nsyms, first;
	uint64_t size = 0;

	/* last symbol with st_value <= vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->syms[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	first = lo - 1;
	while (first > 0 && e->syms[first - 1].vaddr == e->syms[lo - 1].vaddr)
		first--;
	for (size_t i = first; i < lo; i++)
		if (e->syms[i].size > size)
			size = e->syms[i].size;
	if (vaddr - e->syms[first].vaddr < (size ? size : 1))
		return &e->syms[first];
	return NULL;
}

/* a symbol (name) or, with section, a section's address and size */
static int find_in(const char *path, const char *name, bool section, struct rs_elf_symbol *out)
{
	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t shstrndx = 0;
	if (!e || !gelf_getehdr(e, &eh) || (section && elf_getshdrstrndx(e, &shstrndx))) {
		if (e)
			elf_end(e);
		close(fd);
		return -ENOEXEC;
	}
	out->pie = eh.e_type == ET_DYN;
	Elf_Scn *scn = NULL;
	while (!out->found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (section) {
			const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
			if (nm && !strcmp(nm, name) && sh.sh_type != SHT_NOBITS && sh.sh_addr)
				*out = (struct rs_elf_symbol){sh.sh_addr, sh.sh_size, true, out->pie};
			continue;
		}
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t cnt = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; d && i < cnt; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			const char *nm = elf_strptr(e, sh.sh_link, sym.st_name);
			if (nm && !strcmp(nm, name)) {
				out->value = sym.st_value;
				out->size = sym.st_size;
				out->found = true;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return 0;
}

/* uaddr(): any defined symbol (not only functions), by name */
int rs_elf_find_symbol(const char *path, const char *name, struct rs_elf_symbol *out)
{
	return find_in(path, name, false, out);
}

int rs_elf_find_section(const char *path, const char *name, struct rs_elf_symbol *out)
{
	return find_in(path, name, true, out);
}
