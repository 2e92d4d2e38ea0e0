/*
 * settings.c - BPFTRACE_* / SONDE_* environment settings (see settings.h).
 *
 * One table row per setting: its name without the prefix, the default, the
 * accepted range, and the line -h prints.  A SONDE_ name wins over the
 * BPFTRACE_ one so a user can override what an inherited environment says.
 * Settings live in statics: they are process-wide, read once at startup
 * (settings_load), and read without a load (unit tests) they are the
 * defaults.
 */
#include "common/settings.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct setting_def {
	const char *name;	/* after BPFTRACE_ / SONDE_ */
	int64_t def, min, max;
	const char *const *words;	/* accepted words (value = index), or NULL */
	const char *help;
};

static const char *const stack_modes[] = {"bpftrace", "perf", "raw", NULL};

static const struct setting_def defs[SET__COUNT] = {
	[SET_STRLEN] = {"STRLEN", 64, 1, 200, NULL, "bytes of a str() value"},
	[SET_CAT_BYTES_MAX] = {"CAT_BYTES_MAX", 10240, 1, 1 << 30, NULL,
			       "bytes cat() prints of a file"},
	[SET_STACK_MODE] = {"STACK_MODE", 0, 0, 2, stack_modes,
			    "ustack/kstack format without a mode: bpftrace, perf or raw"},
	[SET_MAX_PROBES] = {"MAX_PROBES", 512, 1, 1 << 20, NULL, "attach points a script may have"},
	[SET_MAX_BPF_PROGS] = {"MAX_BPF_PROGS", 512, 1, 1 << 20, NULL,
			       "BPF programs a script may generate"},
};

static int64_t values[SET__COUNT];
static char sources[SET__COUNT][64];	/* the variable that set it, "": default */
static bool loaded;

static void defaults(void)
{
	for (int i = 0; i < SET__COUNT; i++)
		values[i] = defs[i].def;
	loaded = true;
}

/* the value of SONDE_NAME, else BPFTRACE_NAME; *var names the one used */
static const char *lookup(const char *name, char *var, size_t len)
{
	static const char *const prefixes[] = {"SONDE_", "BPFTRACE_"};
	for (size_t p = 0; p < 2; p++) {
		snprintf(var, len, "%s%s", prefixes[p], name);
		const char *v = getenv(var);
		if (v && *v)
			return v;
	}
	return NULL;
}

int settings_load(FILE *err)
{
	defaults();
	for (int i = 0; i < SET__COUNT; i++) {
		const struct setting_def *d = &defs[i];
		char var[64];
		const char *v = lookup(d->name, var, sizeof(var));
		if (!v)
			continue;
		snprintf(sources[i], sizeof(sources[i]), "%s", var);
		if (d->words) {
			int k = 0;
			while (d->words[k] && strcmp(d->words[k], v))
				k++;
			if (!d->words[k]) {
				fprintf(err, "sonde: %s: '%s' is not a stack mode (bpftrace, perf or raw)\n", var, v);
				return -EINVAL;
			}
			values[i] = k;
			continue;
		}
		char *end;
		errno = 0;
		long long n = strtoll(v, &end, 10);
		if (errno || *end || end == v || n < d->min || n > d->max) {
			fprintf(err, "sonde: %s: '%s' is not a number from %lld to %lld\n", var, v,
				(long long)d->min, (long long)d->max);
			return -EINVAL;
		}
		values[i] = n;
	}
	return 0;
}

int64_t settings_int(enum setting s)
{
	if (!loaded)
		defaults();
	return values[s];
}

void settings_usage(FILE *out)
{
	fprintf(out, "ENVIRONMENT (BPFTRACE_NAME, or SONDE_NAME which wins):\n");
	for (int i = 0; i < SET__COUNT; i++) {
		const struct setting_def *d = &defs[i];
		char def[32];
		if (d->words)
			snprintf(def, sizeof(def), "%s", d->words[d->def]);
		else
			snprintf(def, sizeof(def), "%lld", (long long)d->def);
		fprintf(out, "    %-16s [default: %s] %s\n", d->name, def, d->help);
	}
}

void settings_dump(FILE *out)
{
	for (int i = 0; i < SET__COUNT; i++) {
		const struct setting_def *d = &defs[i];
		fprintf(out, "  %s: ", d->name);
		if (d->words)
			fprintf(out, "%s", d->words[settings_int((enum setting)i)]);
		else
			fprintf(out, "%lld", (long long)settings_int((enum setting)i));
		fprintf(out, sources[i][0] ? " (from %s)\n" : "%s\n", sources[i]);
	}
}
