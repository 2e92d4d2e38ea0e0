/*
 * block.c - disk(dev): a block device number printed as the disk's name.
 *
 * Block tracepoints (block:block_rq_issue, block_rq_complete ...) carry
 * the kernel's dev_t, major << 20 | minor.  BPF keeps the number; the name
 * comes from /sys/dev/block/MAJ:MIN/uevent (DEVNAME=vda) when the value
 * prints, or "MAJ:MIN" when sysfs has no such device (it went away).
 */
#include <stdio.h>
#include <string.h>

#include "common/arena.h"
#include "stdlib/decode.h"
#include "stdlib/stdlib_int.h"

const char *disk_text(struct arena *a, const char *sys_root, uint64_t dev)
{
	unsigned major = (unsigned)(dev >> 20) & 0xfff, minor = (unsigned)(dev & 0xfffff);
	char path[256], line[256];
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/uevent", sys_root ? sys_root : "/sys",
		 major, minor);
	FILE *f = fopen(path, "r");
	const char *name = NULL;
	while (f && !name && fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			if (line[8])
				name = arena_strdup(a, line + 8);
		}
	if (f)
		fclose(f);
	return name ? name : arena_printf(a, "%u:%u", major, minor);
}

static const char *render_disk(struct arena *a, uint64_t v)
{
	return disk_text(a, NULL, v);
}

static const struct type_decoder disk_decoder = {"disk", true, render_disk};

static void check_disk(struct sema_ctx *s, struct ast_node *n)
{
	stdlib_check_decoded(s, n, &disk_decoder);
}

static LLVMValueRef lower_disk(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_expr(cg, n->call.args);
}

const struct builtin stdlib_block[] = {
	{.name = "disk", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_disk,
	 .lower = lower_disk,
	 .summary = "a block device number (args->dev of block tracepoints) printed as the disk's name"},
	{0},
};
