/*
 * agent.h - what sonde and libsonde-agent.so agree on: the socket
 * protocol, the layout of the shared memory that carries the probe program
 * and its maps, and the key table both sides walk.
 *
 * One shared memory file (a memfd sonde creates) per traced process:
 *
 *   struct sa_shm   header: sizes, counters, table offsets
 *   struct sa_map   [nmaps]  map descriptors (kernel fd, sizes, offsets)
 *   struct sa_prog  [nprogs] bytecode location and length
 *   struct sa_site  [nsites] where to patch, which program, result
 *   data            bytecode, key tables, value shards, the event ring
 *
 * A map is one key table shared by every thread of the process (inserted
 * lock-free: a slot goes EMPTY -> BUSY -> READY by compare-and-swap and a
 * key never moves) plus one value array per shard.  Per-CPU maps in the
 * kernel are per-shard maps here: a thread owns a shard while it lives, so
 * an aggregation is a plain read-modify-write with no lock and no atomic,
 * and sonde folds the shards as it folds CPUs.  Plain maps have one shard.
 *
 * Protocol (SOCK_SEQPACKET, one message each way per request):
 *   sonde -> agent  SA_ATTACH + the memfd (SCM_RIGHTS); the agent maps it,
 *                   patches every site and writes each site's status;
 *   agent -> sonde  SA_ATTACHED (number of sites installed);
 *   sonde -> agent  SA_GO (no reply) once BEGIN ran;
 *   sonde -> agent  SA_DETACH, or the connection closes: the agent restores
 *                   the entries and stops running programs;
 *   agent -> sonde  SA_DETACHED.
 * The agent serves one sonde at a time; a second one is told SA_BUSY.
 */
#ifndef SONDE_AGENT_H
#define SONDE_AGENT_H

#include <stdint.h>

#define SA_MAGIC	0x65646e6f73ULL	/* "sonde" */
#define SA_VERSION	1
#define SA_RUN_DIR	"/run/sonde"	/* default; SONDE_RUN_DIR or --agent-dir */
#define SA_RUN_ENV	"SONDE_RUN_DIR"
#define SA_SOCK_PREFIX	"agent-"	/* agent-<pid>.sock */
#define SA_NSHARDS	64		/* threads that can hold a shard at once */

enum sa_msg_kind {
	SA_ATTACH = 1,
	SA_ATTACHED,
	SA_DETACH,
	SA_DETACHED,
	SA_BUSY,
	SA_ERROR,
	SA_GO,		/* sonde ran BEGIN: a process waiting in its
			 * constructor (SONDE_AGENT_WAIT=1, sonde -c) goes on */
};

struct sa_msg {
	uint32_t kind;		/* enum sa_msg_kind */
	int32_t value;		/* ATTACHED: sites installed; ERROR: -errno */
	char text[248];		/* ERROR: why */
};

enum sa_map_type {
	SA_MAP_HASH = 1,	/* one shard, values shared by all threads */
	SA_MAP_PERCPU_HASH,	/* a shard per thread */
	SA_MAP_ARRAY,		/* keys are u32 indexes, one shard */
	SA_MAP_PERCPU_ARRAY,
	SA_MAP_RINGBUF,		/* the event ring */
};

struct sa_map {
	uint32_t type;		/* enum sa_map_type */
	int32_t kfd;		/* the fd the bytecode names this map by */
	uint32_t key_size, value_size;
	uint32_t cap;		/* key table slots, a power of two */
	uint32_t stride;	/* value bytes per entry, multiple of 8 */
	uint32_t nshards;	/* 1 or SA_NSHARDS */
	uint32_t pad;
	uint64_t off_keys;	/* cap × (8-byte state + key_size rounded to 8) */
	uint64_t off_vals;	/* nshards × cap × stride */
	uint64_t used;		/* key slots taken (never decreases) */
	uint64_t full;		/* inserts refused: table full */
};

struct sa_prog {
	uint64_t off_insns;	/* struct bpf_insn[ninsns], maps by index */
	uint32_t ninsns;
	uint32_t pad;
};

enum sa_site_flags { SA_SITE_RET = 1 };

enum sa_site_status {
	SA_SITE_PENDING = 0,
	SA_SITE_INSTALLED = 1,
	SA_SITE_REFUSED = 2,
};

struct sa_site {
	uint64_t addr;		/* the function's address in the agent's process */
	uint64_t size;		/* the function's size (from its ELF symbol) */
	uint64_t cookie;	/* bpf_get_attach_cookie() */
	uint32_t prog;		/* index into the program table */
	uint32_t flags;		/* enum sa_site_flags */
	uint32_t status;	/* written by the agent: enum sa_site_status */
	int32_t err;		/* -errno when refused */
	char why[112];		/* refused: one sentence */
};

struct sa_shm {
	uint64_t magic;
	uint32_t version;
	uint32_t nmaps, nprogs, nsites;
	uint64_t size;		/* of the whole file */
	uint64_t off_maps, off_progs, off_sites;
	uint64_t host_pid;	/* the agent's pid as sonde sees it */
	uint64_t cgroup_id;	/* its cgroup v2 id, as bpf_get_current_cgroup_id */
	uint64_t active;	/* 0: programs do not run (detached) */
	uint64_t shard_owner[SA_NSHARDS];	/* tid holding each shard, 0 free */
	uint64_t no_shard;	/* hits dropped: every shard taken */
	uint64_t faults;	/* probe reads of bad addresses */
	uint64_t helper_errors;	/* helpers the agent does not have */
	uint64_t ring_lost;	/* events that did not fit the ring */
	uint64_t cgroup_ancestors[16];	/* bpf_get_current_ancestor_cgroup_id(level) */
	uint64_t uid_gid;	/* bpf_get_current_uid_gid */
};

/* the event ring (SA_MAP_RINGBUF): records of {u32 len | DONE, u32 0,
 * data rounded to 8}, written by many threads, read by sonde.  head and
 * tail count bytes; a writer reserves with a CAS on head and publishes by
 * storing the header last; sonde zeroes what it consumed, so a reserved
 * record not yet published reads 0.  A record never wraps: a PAD record
 * (its header holds its own length) fills the end. */
struct sa_ring {
	uint64_t head;		/* reserved up to */
	uint64_t tail;		/* consumed up to (sonde) */
	uint64_t size;		/* data bytes, a power of two */
	uint64_t pad;
	/* data follows */
};
#define SA_REC_DONE	0x80000000u
#define SA_REC_PAD	0x40000000u

/* bytes of one key slot: an 8-byte state word, then the key */
static inline uint32_t sa_key_slot(const struct sa_map *m)
{
	return 8 + ((m->key_size + 7) & ~7u);
}

/* DEAD: the key was deleted (delete(@m[k])); it keeps its slot so that
 * probing never breaks, and an update makes it READY again */
enum { SA_SLOT_EMPTY = 0, SA_SLOT_BUSY = 1, SA_SLOT_READY = 2, SA_SLOT_DEAD = 3 };

static inline uint64_t sa_hash(const uint8_t *k, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* the index of key's slot in m's table (at base), or -1: with insert, a
 * new slot is taken for a missing key (-1 when the table is full).
 * Readers and writers may run at once: see the file comment. */
static inline int64_t sa_key_find(uint8_t *base, struct sa_map *m, const uint8_t *key, int insert)
{
	uint8_t *tab = base + m->off_keys;
	uint32_t slot = sa_key_slot(m), mask = m->cap - 1;
	uint64_t i = sa_hash(key, m->key_size) & mask;
	for (uint32_t probes = 0; probes < m->cap; probes++, i = (i + 1) & mask) {
		uint64_t *state = (uint64_t *)(tab + i * slot);
		uint8_t *k = (uint8_t *)(state + 1);
		uint64_t s = __atomic_load_n(state, __ATOMIC_ACQUIRE);
		if (s == SA_SLOT_EMPTY) {
			if (!insert)
				return -1;
			uint64_t expect = SA_SLOT_EMPTY;
			if (__atomic_compare_exchange_n(state, &expect, SA_SLOT_BUSY, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				for (uint32_t j = 0; j < m->key_size; j++)
					k[j] = key[j];
				__atomic_store_n(state, SA_SLOT_READY, __ATOMIC_RELEASE);
				__atomic_fetch_add(&m->used, 1, __ATOMIC_RELAXED);
				return (int64_t)i;
			}
			s = expect;
		}
		/* another thread is writing this key: it is done in a few ns */
		while (s == SA_SLOT_BUSY) {
			__builtin_ia32_pause();
			s = __atomic_load_n(state, __ATOMIC_ACQUIRE);
		}
		uint32_t j = 0;
		while (j < m->key_size && k[j] == key[j])
			j++;
		if (j == m->key_size)
			return (int64_t)i;
	}
	if (insert)
		__atomic_fetch_add(&m->full, 1, __ATOMIC_RELAXED);
	return -1;
}

static inline uint64_t *sa_key_state(uint8_t *base, const struct sa_map *m, uint64_t slot)
{
	return (uint64_t *)(base + m->off_keys + slot * sa_key_slot(m));
}

static inline uint8_t *sa_value(uint8_t *base, const struct sa_map *m, uint32_t shard, uint64_t slot)
{
	return base + m->off_vals + ((uint64_t)shard * m->cap + slot) * m->stride;
}

#endif
