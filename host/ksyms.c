/*
 * ksyms.c - kernel symbolization from /proc/kallsyms.
 *
 * ksym(), kstack and func in kernel probes turn addresses into names.  The
 * table is built from one read of /proc/kallsyms into one buffer that is
 * parsed in place: names are NUL-terminated where they stand and entries
 * refer to them by offset, so the ~120k symbols of a kernel cost two
 * allocations, not one per line.  Text symbols are moved to the front of
 * the entry array and sorted by address for binary search; the others stay
 * behind them for ksyms_find (kaddr of a data symbol).  When kptr_restrict
 * hides addresses every line reads as zero; that is reported as EPERM
 * rather than answering every lookup with the first symbol.
 */
#include "host/host.h"
#include "common/file.h"
#include "common/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ksym_ent {
	uint64_t addr;
	uint32_t name;	/* offset into buf */
	uint32_t line;	/* file order, to break ties between equal addresses */
};

struct ksyms {
	char *buf;
	struct ksym_ent *ents;	/* text symbols sorted by address, then the rest */
	size_t ntext, nents;
	struct ksym_ent *data;	/* data symbols in the kernel's half, by address */
	size_t ndata;
};

/* d D b B r R: variables, bss, read-only data (not absolute or per-CPU
 * offsets, which are not addresses) */
static bool is_data(char type)
{
	return strchr("dDbBrR", type) != NULL;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Parse buf (len bytes plus a NUL, owned by the result) in place.  Text
 * symbols fill ents from the front, others from the back; the back part
 * is reversed afterwards to restore file order. */
static struct ksyms *parse_owned(char *buf, size_t len)
{
	struct ksyms *ks;
	size_t nlines = 1, front = 0, back, nother;
	bool any_addr = false;
	char *s = buf, *end = buf + len;

	if (len > UINT32_MAX) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	for (char *p = buf; p < end; p++)
		nlines += *p == '\n';
	ks = calloc(1, sizeof(*ks));
	if (ks)
		ks->ents = malloc(nlines * sizeof(*ks->ents));
	if (!ks || !ks->ents) {
		free(ks);
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	ks->buf = buf;
	back = nlines;

	for (uint32_t line = 0; s < end; line++) {
		char *nl = memchr(s, '\n', (size_t)(end - s)), *name, *p = s;
		uint64_t addr = 0;
		int digits = 0, h;
		char type;

		if (!nl)
			nl = end;
		/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
		while ((h = text_hexdigit((unsigned char)*p)) >= 0 && digits < 16) {
			addr = addr << 4 | (uint64_t)h;
			p++;
			digits++;
		}
		if (!digits || p + 3 > nl || p[0] != ' ' || p[2] != ' ')
			goto next;
		type = p[1];
		name = p + 3;
		p = name;
		while (p < nl && *p != '\t' && *p != ' ')
			p++;
		if (p == name)
			goto next;
		*p = '\0';
		if (addr)
			any_addr = true;
		if (is_text(type))
			ks->ents[front++] = (struct ksym_ent){ addr, (uint32_t)(name - buf), line };
		else
			ks->ents[--back] = (struct ksym_ent){ addr, (uint32_t)(name - buf),
							     line | (is_data(type) && addr >> 63 ?
								     1u << 31 : 0) };
next:
		s = nl + 1;
	}

	if (!any_addr) {
		int err = front || back < nlines ? EPERM : ENOENT;

		ksyms_free(ks);
		errno = err;
		return NULL;
	}

	/* close the gap between the two parts, others in file order: the
	 * back part reversed in place, then moved (copying it backwards into
	 * the gap overwrote entries not yet copied when the other symbols
	 * outnumber the gap, as with CONFIG_KALLSYMS_ALL's data symbols) */
	nother = nlines - back;
	for (size_t i = 0; i < nother / 2; i++) {
		struct ksym_ent tmp = ks->ents[back + i];
		ks->ents[back + i] = ks->ents[nlines - 1 - i];
		ks->ents[nlines - 1 - i] = tmp;
	}
	memmove(ks->ents + front, ks->ents + back, nother * sizeof(*ks->ents));
	ks->ntext = front;
	ks->nents = front + nother;

	/* the data symbols, by address, for ksym() of a variable's address
	 * (the top bit of line marked them) */
	ks->data = malloc((nother ? nother : 1) * sizeof(*ks->data));
	for (size_t i = 0; ks->data && i < nother; i++) {
		struct ksym_ent *e = &ks->ents[front + i];
		if (e->line >> 31) {
			e->line &= ~(1u << 31);
			ks->data[ks->ndata++] = *e;
		}
	}
	if (ks->data)
		qsort(ks->data, ks->ndata, sizeof(*ks->data), cmp_ent);

	/* vmlinux's text is already in order; modules may not be */
	for (size_t i = 1; i < ks->ntext; i++) {
		if (cmp_ent(&ks->ents[i - 1], &ks->ents[i]) > 0) {
			qsort(ks->ents, ks->ntext, sizeof(*ks->ents), cmp_ent);
			break;
		}
	}
	return ks;
}

struct ksyms *ksyms_parse(const char *text, size_t len)
{
	char *buf = malloc(len + 1);

	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	return parse_owned(buf, len);
}

struct ksyms *ksyms_load(void)
{
	char *buf;
	size_t n;
	int err = file_read_all("/proc/kallsyms", 8u << 20, &buf, &n);
	if (err) {
		errno = -err;
		return NULL;
	}
	return parse_owned(buf, n);
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->ents);
	free(ks->data);
	free(ks->buf);
	free(ks);
}

/* the entry of v (n, sorted by address) containing addr: the nearest at
 * or below it, the first of several at one address; NULL below the first */
static const struct ksym_ent *nearest(const struct ksym_ent *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	/* first entry above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	lo--;
	while (lo > 0 && v[lo - 1].addr == v[lo].addr)
		lo--;
	return &v[lo];
}

const char *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
			 uint64_t *offset)
{
	const struct ksym_ent *e = nearest(ks->ents, ks->ntext, addr);
	if (!e)
		return NULL;
	if (offset)
		*offset = addr - e->addr;
	return ks->buf + e->name;
}

const char *ksyms_lookup_any(const struct ksyms *ks, uint64_t addr, uint64_t *offset)
{
	const struct ksym_ent *t = nearest(ks->ents, ks->ntext, addr);
	const struct ksym_ent *d = nearest(ks->data, ks->ndata, addr);
	const struct ksym_ent *e = d && (!t || d->addr > t->addr) ? d : t;
	if (!e)
		return NULL;
	if (offset)
		*offset = addr - e->addr;
	return ks->buf + e->name;
}

int ksyms_find(const struct ksyms *ks, const char *name, uint64_t *addr)
{
	const struct ksym_ent *best = NULL;

	/* text entries are in address order, so find the earliest line */
	for (size_t i = 0; i < ks->ntext; i++)
		if (!strcmp(ks->buf + ks->ents[i].name, name) &&
		    (!best || ks->ents[i].line < best->line))
			best = &ks->ents[i];
	for (size_t i = ks->ntext; !best && i < ks->nents; i++)
		if (!strcmp(ks->buf + ks->ents[i].name, name))
			best = &ks->ents[i];
	if (!best)
		return -ENOENT;
	*addr = best->addr;
	return 0;
}

size_t ksyms_find_all(const struct ksyms *ks, const char *name, uint64_t *addrs, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < ks->ntext; i++)
		if (!strcmp(ks->buf + ks->ents[i].name, name)) {
			if (n < max)
				addrs[n] = ks->ents[i].addr;
			n++;
		}
	return n;
}

size_t ksyms_count(const struct ksyms *ks)
{
	return ks->ntext;
}

size_t ksyms_data_count(const struct ksyms *ks)
{
	return ks->ndata;
}
