/*
 * settings.c - BPFTRACE_* / SONDE_* settings and config blocks (see
 * settings.h).
 *
 * One table row per setting: its name without the prefix, its name in a
 * script's config block, the default, the accepted range or words, and
 * the line -h prints.  A SONDE_ name wins over the BPFTRACE_ one so a user
 * can override what an inherited environment says, and either wins over
 * the script's config block (bpftrace's order).  Settings live in statics:
 * they are process-wide, read once at startup (settings_load, then the
 * config block), and read without a load (unit tests) they are the
 * defaults.
 */
#include "common/settings.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/suggest.h"

struct setting_def {
	const char *name;	/* after BPFTRACE_ / SONDE_ (bpftrace 0.17's name) */
	const char *config;	/* in a config block */
	const char *alias;	/* the newest bpftrace's name after BPFTRACE_, or NULL */
	const char *config_alias;	/* its config name where it differs, or NULL */
	const char *sdef;	/* a string setting: its default (min and max unused) */
	int64_t def, min, max;
	const char *const *words;	/* accepted words (value = index), or NULL */
	const char *what;	/* what a word names, for the error */
	bool pow2;		/* a power of two (0 stays the default) */
	const char *help;
};

static const char *const stack_modes[] = {"bpftrace", "perf", "raw", NULL};
static const char *const missing_words[] = {"warn", "ignore", "error", NULL};
static const char *const bool_words[] = {"false", "true", NULL};
/* the licences the kernel counts as GPL-compatible (license_is_gpl_compatible):
 * the BPF helpers sonde's programs call need one */
static const char *const license_words[] = {"GPL", "GPL v2", "GPL and additional rights",
					    "Dual BSD/GPL", "Dual MIT/GPL", "Dual MPL/GPL", NULL};
static const char *const unstable_words[] = {"warn", "enable", "error", NULL};
static const char *const unwind_words[] = {"fp", "cfi", "auto", NULL};

/* Rows name the limits as bpftrace 0.17 did, with the newest release's
 * names as aliases.  max_strlen keeps 0.17's default of 64 (the newest
 * has 1024): bpftrace 0.17 is the oracle of the differential tests, and a
 * 1024-byte str() in every key and event costs memory a one-liner never
 * needs; up to 32768 is allowed (the newest release's str_big tests use
 * 9999): such strings live in the per-CPU scratch map, whose value the
 * kernel keeps under 32 KiB.  on_stack_limit: the newest keeps values above
 * 32 bytes off the stack; sonde's default of 128 keeps 0.17's strings and
 * keys on it, where they are cheapest.  str_trunc_trailer is '' (the
 * newest: '..'), so that str() prints as 0.17 prints it unless the script
 * asks for a trailer. */
static const struct setting_def defs[SET__COUNT] = {
	[SET_STRLEN] = {"STRLEN", "max_strlen", "MAX_STRLEN", NULL, NULL, 64, 1, 32768, NULL, NULL,
			false, "bytes of a str() value"},
	[SET_CAT_BYTES_MAX] = {"CAT_BYTES_MAX", "cat_bytes_max", "MAX_CAT_BYTES", "max_cat_bytes",
			       NULL, 10240, 1, 1 << 30, NULL, NULL, false,
			       "bytes cat() prints of a file"},
	[SET_STACK_MODE] = {"STACK_MODE", "stack_mode", NULL, NULL, NULL, 0, 0, 2, stack_modes, "a stack mode", false,
			    "ustack/kstack format without a mode: bpftrace, perf or raw"},
	[SET_MAX_PROBES] = {"MAX_PROBES", "max_probes", NULL, NULL, NULL, 512, 1, 1 << 20, NULL, NULL, false,
			    "attach points a script may have"},
	[SET_MAX_BPF_PROGS] = {"MAX_BPF_PROGS", "max_bpf_progs", NULL, NULL, NULL, 512, 1, 1 << 20, NULL, NULL, false,
			       "BPF programs a script may generate"},
	/* hist and lhist maps hold 16 slots a key, which must fit a u32 */
	[SET_MAP_KEYS_MAX] = {"MAP_KEYS_MAX", "max_map_keys", "MAX_MAP_KEYS", NULL, NULL, 4096, 1, 1 << 24, NULL, NULL, false,
			      "keys a map holds (also --map-keys-max)"},
	[SET_PERF_RB_PAGES] = {"PERF_RB_PAGES", "perf_rb_pages", NULL, NULL, NULL, 0, 1, 1 << 18, NULL, NULL, true,
			       "event ring pages per CPU (also --rb-pages; default: a second's burst)"},
	[SET_MISSING_PROBES] = {"MISSING_PROBES", "missing_probes", NULL, NULL, NULL,
				SET_MISSING_WARN, 0, 2,
				missing_words, "a missing-probes policy", false,
				"an attach point a uprobe cannot find: warn, ignore or error"},
	[SET_PRINT_MAPS_ON_EXIT] = {"PRINT_MAPS_ON_EXIT", "print_maps_on_exit", NULL, NULL, NULL, 1,
				    0, 1, bool_words, "true or false", false, "print the maps at exit"},
	[SET_STR_TRUNC_TRAILER] = {"STR_TRUNC_TRAILER", "str_trunc_trailer", NULL, NULL, "", 0, 0,
				   0, NULL, NULL, false,
				   "printed after a str() that filled max_strlen (it may go on)"},
	[SET_LAZY_SYMBOLICATION] = {"LAZY_SYMBOLICATION", "lazy_symbolication", NULL, NULL, NULL, 0,
				    0, 1, bool_words, "true or false", false,
				    "read symbols when first printed (sonde does so either way)"},
	[SET_ON_STACK_LIMIT] = {"ON_STACK_LIMIT", "on_stack_limit", NULL, NULL, NULL, 32, 0, 4096,
				NULL, NULL, false,
				"values above this many bytes live in per-CPU memory, not the stack"},
	[SET_LICENSE] = {"LICENSE", "license", NULL, NULL, NULL, 0, 0, 5, license_words,
			 "a GPL-compatible licence (the BPF helpers need one)", false,
			 "the programs' licence, as the kernel reads it"},
	/* the newest release warns when an unstable feature is used without
	 * its setting; sonde does not (warn and enable are the same) */
	[SET_UNSTABLE_MAP_DECL] = {"UNSTABLE_MAP_DECL", "unstable_map_decl", NULL, NULL, NULL,
				   SET_UNSTABLE_WARN, 0, 2, unstable_words, "warn, enable or error",
				   false, "map declarations (let @m = hash(N)): error refuses them"},
	[SET_UNSTABLE_ADDR] = {"UNSTABLE_ADDR", "unstable_addr", NULL, NULL, NULL, SET_UNSTABLE_WARN,
			       0, 2, unstable_words, "warn, enable or error", false,
			       "the address-of operator &: error refuses it"},
	[SET_UNWIND] = {"UNWIND", "unwind", NULL, NULL, NULL, SET_UNWIND_AUTO, 0, 2, unwind_words,
			"fp, cfi or auto", false,
			"how ustack walks user stacks: fp (frame pointers), cfi (call-frame information), auto"},
	[SET_FOLDED_OFFSETS] = {"FOLDED_OFFSETS", "folded_offsets", NULL, NULL, NULL, 0, 0, 1,
				bool_words, "true or false", false,
				"-f folded: frames with offsets (main+22) and addresses, not one a function"},
	/* the newest release's default is on where it is built with blazesym;
	 * sonde's is off, so stacks print as bpftrace 0.17 prints them */
	[SET_SHOW_DEBUG_INFO] = {"SHOW_DEBUG_INFO", "show_debug_info", NULL, NULL, NULL, 0, 0, 1,
				 bool_words, "true or false", false,
				 "ustack frames with their source file:line and inlined functions as frames (DWARF)"},
	/* sonde's ustack walks call-frame information itself (config unwind),
	 * so the newest release's gate of its dw_ustack() is accepted and has
	 * nothing to gate */
	[SET_UNSTABLE_DW_USTACK] = {"UNSTABLE_DW_USTACK", "unstable_dw_ustack", NULL, NULL, NULL,
				    SET_UNSTABLE_WARN, 0, 2, unstable_words, "warn, enable or error",
				    false, "accepted as the newest bpftrace spells it (ustack unwinds by CFI: config unwind)"},
};

static int64_t values[SET__COUNT];
static char svalues[SET__COUNT][256];	/* string settings */
static char sources[SET__COUNT][64];	/* the variable that set it, "": default */
static bool loaded;

static void defaults(void)
{
	for (int i = 0; i < SET__COUNT; i++) {
		values[i] = defs[i].def;
		snprintf(svalues[i], sizeof(svalues[i]), "%s", defs[i].sdef ? defs[i].sdef : "");
		sources[i][0] = '\0';
	}
	loaded = true;
}

/* the value of SONDE_NAME, else BPFTRACE_NAME, else the newest release's
 * BPFTRACE_ALIAS; *var names the one used */
static const char *lookup(const struct setting_def *d, char *var, size_t len)
{
	static const char *const prefixes[] = {"SONDE_", "BPFTRACE_", "BPFTRACE_"};
	for (size_t p = 0; p < 3; p++) {
		const char *name = p < 2 ? d->name : d->alias;
		if (!name)
			continue;
		snprintf(var, len, "%s%s", prefixes[p], name);
		const char *v = getenv(var);
		if (v && *v)
			return v;
	}
	return NULL;
}

/* "a, b or c" of a word list */
static void join_words(const char *const *w, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; w[k] && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k == 0 ? "" : w[k + 1] ? ", " : " or ",
				      w[k]);
}

/* v as setting d's value into *out; else -EINVAL and why in msg, which
 * starts with who (a variable or a config name) */
static int parse_value(const struct setting_def *d, const char *who, const char *v, int64_t *out,
		       char *msg, size_t len)
{
	if (d->sdef) {
		if (strlen(v) >= sizeof(svalues[0])) {
			snprintf(msg, len, "%s: a string of at most %zu bytes", who, sizeof(svalues[0]) - 1);
			return -EINVAL;
		}
		*out = 0;
		return 0;
	}
	if (d->words) {
		for (int k = 0; d->words[k]; k++)
			if (!strcasecmp(d->words[k], v)) {
				*out = k;
				return 0;
			}
		/* bpftrace's booleans are also 0 and 1 */
		if (d->words == bool_words && (!strcmp(v, "0") || !strcmp(v, "1"))) {
			*out = v[0] == '1';
			return 0;
		}
		char words[128];
		join_words(d->words, words, sizeof(words));
		if (d->words == bool_words)
			snprintf(msg, len, "%s: '%s' is not %s", who, v, d->what);
		else
			snprintf(msg, len, "%s: '%s' is not %s (%s)", who, v, d->what, words);
		return -EINVAL;
	}
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	bool ok = !errno && !*end && end != v && n >= d->min && n <= d->max;
	if (d->pow2 && (!ok || (n & (n - 1)))) {
		snprintf(msg, len, "%s takes a number of pages that is a power of 2 (%lld to %lld), "
			 "not '%s'", who, (long long)d->min, (long long)d->max, v);
		return -EINVAL;
	}
	if (!ok) {
		snprintf(msg, len, "%s: '%s' is not a number from %lld to %lld", who, v,
			 (long long)d->min, (long long)d->max);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

int settings_load(FILE *err)
{
	defaults();
	for (int i = 0; i < SET__COUNT; i++) {
		char var[64], msg[256];
		const char *v = lookup(&defs[i], var, sizeof(var));
		if (!v)
			continue;
		if (parse_value(&defs[i], var, v, &values[i], msg, sizeof(msg))) {
			fprintf(err, "sonde: %s\n", msg);
			return -EINVAL;
		}
		if (defs[i].sdef)
			snprintf(svalues[i], sizeof(svalues[i]), "%s", v);
		snprintf(sources[i], sizeof(sources[i]), "%s", var);
	}
	return 0;
}

int settings_set(enum setting s, const char *who, const char *value, char *msg, size_t len)
{
	if (!loaded)
		defaults();
	int err = parse_value(&defs[s], who, value, &values[s], msg, len);
	if (!err && defs[s].sdef)
		snprintf(svalues[s], sizeof(svalues[s]), "%s", value);
	if (!err)
		snprintf(sources[s], sizeof(sources[s]), "%s", who);
	return err;
}

/* the row a config name stands for: "max_strlen", "BPFTRACE_STRLEN",
 * "SONDE_STRLEN", and the newest release's "max_cat_bytes",
 * "BPFTRACE_MAX_STRLEN" */
static int config_row(const char *name)
{
	for (int i = 0; i < SET__COUNT; i++) {
		const struct setting_def *d = &defs[i];
		const char *n = name;
		if (!strncmp(n, "BPFTRACE_", 9))
			n += 9;
		else if (!strncmp(n, "SONDE_", 6))
			n += 6;
		/* stack_mode, STACK_MODE and BPFTRACE_STACK_MODE are one setting */
		if (!strcmp(name, d->config) || (d->config_alias && !strcmp(name, d->config_alias)) ||
		    !strcmp(n, d->name) || (d->alias && !strcmp(n, d->alias)))
			return i;
	}
	return -1;
}

int settings_config(const char *name, const char *value, char *msg, size_t len)
{
	if (!loaded)
		defaults();
	int i = config_row(name);
	if (i < 0) {
		struct suggest sg;
		char hint[256];
		suggest_init(&sg, name);
		for (int k = 0; k < SET__COUNT; k++) {
			suggest_add(&sg, defs[k].config);
			if (defs[k].config_alias)
				suggest_add(&sg, defs[k].config_alias);
		}
		snprintf(msg, len, "unknown config '%s'%s", name, suggest_text(&sg, 3, hint, sizeof(hint)));
		return -ENOENT;
	}
	int64_t v;
	int err = parse_value(&defs[i], defs[i].config, value, &v, msg, len);
	if (err)
		return err;
	if (!sources[i][0]) {	/* the environment wins */
		values[i] = v;
		if (defs[i].sdef)
			snprintf(svalues[i], sizeof(svalues[i]), "%s", value);
		snprintf(sources[i], sizeof(sources[i]), "config %s", defs[i].config);
	}
	return 0;
}

int64_t settings_int(enum setting s)
{
	if (!loaded)
		defaults();
	return values[s];
}

const char *settings_word(enum setting s)
{
	if (!loaded)
		defaults();
	return defs[s].words ? defs[s].words[values[s]] : svalues[s];
}

const char *settings_str(enum setting s)
{
	if (!loaded)
		defaults();
	return svalues[s];
}

bool settings_given(enum setting s)
{
	return loaded && sources[s][0];
}

void settings_usage(FILE *out)
{
	fprintf(out, "ENVIRONMENT (BPFTRACE_NAME, or SONDE_NAME which wins; a script's config = { } block\n"
		"takes the second name, and the environment wins over it):\n");
	for (int i = 0; i < SET__COUNT; i++) {
		const struct setting_def *d = &defs[i];
		char def[32];
		if (d->sdef)
			snprintf(def, sizeof(def), "'%s'", d->sdef);
		else if (d->words)
			snprintf(def, sizeof(def), "%s", d->words[d->def]);
		else if (d->pow2 && !d->def)
			snprintf(def, sizeof(def), "auto");
		else
			snprintf(def, sizeof(def), "%lld", (long long)d->def);
		fprintf(out, "    %-18s %-18s [default: %s] %s\n", d->name, d->config, def, d->help);
		if (d->alias || d->config_alias)
			fprintf(out, "    %-18s %-18s (the newest bpftrace's names)\n",
				d->alias ? d->alias : d->name, d->config_alias ? d->config_alias : d->config);
	}
}

void settings_dump(FILE *out)
{
	for (int i = 0; i < SET__COUNT; i++) {
		const struct setting_def *d = &defs[i];
		int64_t v = settings_int((enum setting)i);
		fprintf(out, "  %s: ", d->name);
		if (d->sdef)
			fprintf(out, "'%s'", settings_str((enum setting)i));
		else if (d->words)
			fprintf(out, "%s", d->words[v]);
		else if (d->pow2 && !v)
			fprintf(out, "auto");
		else
			fprintf(out, "%lld", (long long)v);
		fprintf(out, sources[i][0] ? " (from %s)\n" : "%s\n", sources[i]);
	}
}
