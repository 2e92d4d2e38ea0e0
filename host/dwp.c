/*
 * dwp.c - the split units of a DWARF package (BINARY.dwp: gcc
 * -gsplit-dwarf's .dwo files packed by dwp or llvm-dwp), for a binary
 * whose skeleton units libdw cannot match with their split units.
 *
 * elfutils reads DWARF packages from 0.191 on; Debian 12's 0.188 does not,
 * and then a split binary's functions and types (args by name, -lv) are
 * not found.  A package holds the units of many .dwo files side by side:
 * .debug_info.dwo, .debug_abbrev.dwo, .debug_str_offsets.dwo ... each the
 * concatenation of every unit's part, and .debug_cu_index says where each
 * unit's part of each section is (DWARF 5 section 7.3.5, and the GNU
 * version 2 index before it).  Each unit's parts are laid out here as an
 * ELF file of their own in memory (a memfd, written by libelf), the .dwo
 * it came from, whose units libdw reads as it reads a .dwo: the unit, its
 * abbreviations, its string offsets over the shared .debug_str.dwo.  Only
 * what has no address is read from them (names, types, parameters): the
 * address of a split unit's entry needs its skeleton's .debug_addr, which
 * libdw links only for the split units it found itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

/* after libdw.h: hdw_dwp_units */
#include "host/host_int.h"

#include "common/arena.h"

#define MAX_COLS 8

/* a section of the package, by name */
struct sect {
	const char *name;
	const uint8_t *data;
	size_t size;
};

/* the section a column of the index names (DW_SECT_*), by index version */
static const char *column_section(unsigned version, uint32_t id)
{
	static const char *const v5[] = {NULL, ".debug_info.dwo", NULL, ".debug_abbrev.dwo",
					 ".debug_line.dwo", ".debug_loclists.dwo",
					 ".debug_str_offsets.dwo", ".debug_macro.dwo",
					 ".debug_rnglists.dwo"};
	static const char *const v2[] = {NULL, ".debug_info.dwo", ".debug_types.dwo",
					 ".debug_abbrev.dwo", ".debug_line.dwo", ".debug_loc.dwo",
					 ".debug_str_offsets.dwo", ".debug_macinfo.dwo",
					 ".debug_macro.dwo"};
	if (id > 8)
		return NULL;
	return version == 5 ? v5[id] : v2[id];
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const struct sect *find_sect(const struct sect *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].name && !strcmp(s[i].name, name))
			return &s[i];
	return NULL;
}

/* one unit's .dwo as an ELF file in a memfd: the parts parts[i] of the
 * sections names[i], and the whole .debug_str.dwo; the fd or -errno */
static int write_dwo(const GElf_Ehdr *src, const char *const *names, const uint8_t *const *parts,
		     const size_t *sizes, int n, const struct sect *str)
{
	int fd = memfd_create("sonde-dwo", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	GElf_Ehdr eh;
	if (!e || !gelf_newehdr(e, src->e_ident[EI_CLASS]) || !gelf_getehdr(e, &eh))
		goto fail;
	memcpy(eh.e_ident, src->e_ident, EI_NIDENT);
	eh.e_type = ET_REL;
	eh.e_machine = src->e_machine;
	eh.e_version = EV_CURRENT;
	/* the section names: "\0" then each name and .shstrtab */
	char shstr[512];
	size_t off = 1;
	shstr[0] = 0;
	const char *all[MAX_COLS + 2];
	const uint8_t *bufs[MAX_COLS + 2];
	size_t lens[MAX_COLS + 2];
	int m = 0;
	for (int i = 0; i < n; i++, m++) {
		all[m] = names[i];
		bufs[m] = parts[i];
		lens[m] = sizes[i];
	}
	if (str) {
		all[m] = str->name;
		bufs[m] = str->data;
		lens[m++] = str->size;
	}
	for (int i = 0; i <= m; i++) {
		const char *nm = i < m ? all[i] : ".shstrtab";
		size_t l = strlen(nm) + 1;
		Elf_Scn *scn = off + l <= sizeof(shstr) ? elf_newscn(e) : NULL;
		GElf_Shdr sh;
		Elf_Data *d;
		if (!scn || !gelf_getshdr(scn, &sh) || !(d = elf_newdata(scn)))
			goto fail;
		memcpy(shstr + off, nm, l);
		sh.sh_name = (GElf_Word)off;
		off += l;
		sh.sh_type = i < m ? SHT_PROGBITS : SHT_STRTAB;
		sh.sh_addralign = 1;
		d->d_buf = i < m ? (void *)bufs[i] : shstr;
		d->d_size = i < m ? lens[i] : off;
		d->d_type = ELF_T_BYTE;
		d->d_align = 1;
		if (i == m)
			eh.e_shstrndx = (GElf_Half)elf_ndxscn(scn);
		if (!gelf_update_shdr(scn, &sh))
			goto fail;
	}
	if (!gelf_update_ehdr(e, &eh) || elf_update(e, ELF_C_WRITE) < 0)
		goto fail;
	elf_end(e);
	return fd;
fail:
	if (e)
		elf_end(e);
	close(fd);
	return -EINVAL;
}

int hdw_dwp_units(const char *path, struct arena *a, Dwarf_Die **out, size_t *nout)
{
	Dwarf *(*begin)(int, Dwarf_Cmd) = (Dwarf * (*)(int, Dwarf_Cmd)) hdw_libdw_sym("dwarf_begin");
	int (*get_units)(Dwarf *, Dwarf_CU *, Dwarf_CU **, Dwarf_Half *, uint8_t *, Dwarf_Die *,
			 Dwarf_Die *) =
		(int (*)(Dwarf *, Dwarf_CU *, Dwarf_CU **, Dwarf_Half *, uint8_t *, Dwarf_Die *,
			 Dwarf_Die *))hdw_libdw_sym("dwarf_get_units");
	*out = NULL;
	*nout = 0;
	if (!begin || !get_units)
		return -ENOSYS;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	/* read into memory, kept for the run: every unit's file points into it */
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t shstrndx;
	int rc = -EINVAL;
	struct sect secs[32];
	size_t ns = 0;
	if (!e || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx))
		goto out;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) && ns < 32;) {
		GElf_Shdr sh;
		const char *nm;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strncmp(nm, ".debug_", 7) || (sh.sh_flags & SHF_COMPRESSED) || !(d = elf_rawdata(scn, NULL)))
			continue;
		uint8_t *copy = arena_alloc(a, d->d_size ? d->d_size : 1);
		memcpy(copy, d->d_buf, d->d_size);
		secs[ns++] = (struct sect){.name = arena_strdup(a, nm), .data = copy, .size = d->d_size};
	}
	const struct sect *idx = find_sect(secs, ns, ".debug_cu_index");
	if (!idx || idx->size < 16)
		goto out;
	const uint8_t *p = idx->data;
	unsigned version = p[0] | p[1] << 8;
	uint32_t ncols = rd32(p + 4), nunits = rd32(p + 8), nslots = rd32(p + 12);
	if ((version != 5 && version != 2) || !ncols || ncols > MAX_COLS ||
	    16 + (uint64_t)nslots * 12 + ncols * 4 + (uint64_t)nunits * ncols * 8 > idx->size)
		goto out;
	const uint8_t *rows = p + 16 + (size_t)nslots * 8, *cols = rows + (size_t)nslots * 4;
	const uint8_t *offs = cols + ncols * 4, *sizes = offs + (size_t)nunits * ncols * 4;
	const struct sect *str = find_sect(secs, ns, ".debug_str.dwo");
	Dwarf_Die *dies = arena_new_array(a, Dwarf_Die, nunits ? nunits : 1);
	size_t n = 0;
	for (uint32_t slot = 0; slot < nslots; slot++) {
		uint32_t row = rd32(rows + slot * 4);
		if (!row || row > nunits)
			continue;
		row--;
		const char *names[MAX_COLS];
		const uint8_t *parts[MAX_COLS];
		size_t lens[MAX_COLS];
		int m = 0;
		bool ok = true;
		for (uint32_t c = 0; c < ncols; c++) {
			const char *nm = column_section(version, rd32(cols + c * 4));
			const struct sect *s = nm ? find_sect(secs, ns, nm) : NULL;
			uint32_t o = rd32(offs + ((size_t)row * ncols + c) * 4);
			uint32_t l = rd32(sizes + ((size_t)row * ncols + c) * 4);
			if (!s) {
				ok = !nm || !l;	/* a section the package lacks holds nothing */
				continue;
			}
			if ((uint64_t)o + l > s->size) {
				ok = false;
				break;
			}
			names[m] = nm;
			parts[m] = s->data + o;
			lens[m++] = l;
		}
		if (!ok)
			continue;
		int ufd = write_dwo(&eh, names, parts, lens, m, str);
		Dwarf *dw = ufd >= 0 ? begin(ufd, DWARF_C_READ) : NULL;
		if (!dw) {
			if (ufd >= 0)
				close(ufd);
			continue;
		}
		/* the session stays open for the run (it reads from ufd) */
		Dwarf_CU *cu = NULL, *next;
		Dwarf_Half ver;
		uint8_t type;
		Dwarf_Die cudie;
		while (!get_units(dw, cu, &next, &ver, &type, &cudie, NULL)) {
			cu = next;
			if (type == DW_UT_split_compile || type == DW_UT_compile) {
				if (n == nunits)
					break;
				dies[n++] = cudie;
			}
		}
	}
	*out = dies;
	*nout = n;
	rc = n ? 0 : -ENOENT;
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}
