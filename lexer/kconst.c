/*
 * kconst.c - the integer constants a kernel header gives a script.
 *
 * bpftrace runs a script's #include <linux/fs.h> through clang with the
 * kernel's headers, and every macro of everything they include is there:
 * DT_REG (vfssize.bt, writesync.bt), AF_INET (so1stbyte.bt), EPERM
 * (soaccept.bt), ICMPV6_ECHO_REQUEST (superping.bt).  sonde reads no
 * kernel headers (the kernel's types come from BTF, and most machines
 * have no headers installed), so an #include of a kernel header defines
 * these, the kernel's ABI values on x86-64, unless the script or a header
 * read before defined the name.  Enumerators (TASK_*, BPF_*, IPPROTO_*)
 * come from BTF in sema.
 */
#include <stdint.h>
#include <string.h>

#include "parser.h"

#include "lexer/lex_int.h"

struct kconst {
	const char *name;
	uint64_t value;
};

static const struct kconst kconsts[] = {
	/* errno (include/uapi/asm-generic/errno-base.h, errno.h) */
	{"EPERM", 1}, {"ENOENT", 2}, {"ESRCH", 3}, {"EINTR", 4}, {"EIO", 5}, {"ENXIO", 6},
	{"E2BIG", 7}, {"ENOEXEC", 8}, {"EBADF", 9}, {"ECHILD", 10}, {"EAGAIN", 11},
	{"EWOULDBLOCK", 11}, {"ENOMEM", 12}, {"EACCES", 13}, {"EFAULT", 14}, {"ENOTBLK", 15},
	{"EBUSY", 16}, {"EEXIST", 17}, {"EXDEV", 18}, {"ENODEV", 19}, {"ENOTDIR", 20},
	{"EISDIR", 21}, {"EINVAL", 22}, {"ENFILE", 23}, {"EMFILE", 24}, {"ENOTTY", 25},
	{"ETXTBSY", 26}, {"EFBIG", 27}, {"ENOSPC", 28}, {"ESPIPE", 29}, {"EROFS", 30},
	{"EMLINK", 31}, {"EPIPE", 32}, {"EDOM", 33}, {"ERANGE", 34}, {"EDEADLK", 35},
	{"ENAMETOOLONG", 36}, {"ENOLCK", 37}, {"ENOSYS", 38}, {"ENOTEMPTY", 39}, {"ELOOP", 40},
	{"ENOMSG", 42}, {"ENODATA", 61}, {"ETIME", 62}, {"EOVERFLOW", 75}, {"EILSEQ", 84},
	{"ENOTSOCK", 88}, {"EDESTADDRREQ", 89}, {"EMSGSIZE", 90}, {"EPROTOTYPE", 91},
	{"ENOPROTOOPT", 92}, {"EPROTONOSUPPORT", 93}, {"ESOCKTNOSUPPORT", 94},
	{"EOPNOTSUPP", 95}, {"EPFNOSUPPORT", 96}, {"EAFNOSUPPORT", 97}, {"EADDRINUSE", 98},
	{"EADDRNOTAVAIL", 99}, {"ENETDOWN", 100}, {"ENETUNREACH", 101}, {"ENETRESET", 102},
	{"ECONNABORTED", 103}, {"ECONNRESET", 104}, {"ENOBUFS", 105}, {"EISCONN", 106},
	{"ENOTCONN", 107}, {"ESHUTDOWN", 108}, {"ETOOMANYREFS", 109}, {"ETIMEDOUT", 110},
	{"ECONNREFUSED", 111}, {"EHOSTDOWN", 112}, {"EHOSTUNREACH", 113}, {"EALREADY", 114},
	{"EINPROGRESS", 115}, {"ESTALE", 116}, {"EDQUOT", 122}, {"ECANCELED", 125},
	/* the kernel's own (include/linux/errno.h) */
	{"ERESTARTSYS", 512}, {"ERESTARTNOINTR", 513}, {"ENOIOCTLCMD", 515},
	{"ENOTSUPP", 524},
	/* address families (include/linux/socket.h) */
	{"AF_UNSPEC", 0}, {"AF_UNIX", 1}, {"AF_LOCAL", 1}, {"AF_INET", 2}, {"AF_INET6", 10},
	{"AF_NETLINK", 16}, {"AF_PACKET", 17}, {"AF_VSOCK", 40}, {"AF_XDP", 44},
	{"PF_UNSPEC", 0}, {"PF_UNIX", 1}, {"PF_INET", 2}, {"PF_INET6", 10},
	{"SOCK_STREAM", 1}, {"SOCK_DGRAM", 2}, {"SOCK_RAW", 3},
	/* directory entry types (include/linux/fs_types.h) */
	{"DT_UNKNOWN", 0}, {"DT_FIFO", 1}, {"DT_CHR", 2}, {"DT_DIR", 4}, {"DT_BLK", 6},
	{"DT_REG", 8}, {"DT_LNK", 10}, {"DT_SOCK", 12}, {"DT_WHT", 14},
	/* file modes (include/uapi/linux/stat.h) */
	{"S_IFMT", 0170000}, {"S_IFSOCK", 0140000}, {"S_IFLNK", 0120000}, {"S_IFREG", 0100000},
	{"S_IFBLK", 060000}, {"S_IFDIR", 040000}, {"S_IFCHR", 020000}, {"S_IFIFO", 010000},
	/* open flags on x86-64 (include/uapi/asm-generic/fcntl.h) */
	{"O_RDONLY", 0}, {"O_WRONLY", 1}, {"O_RDWR", 2}, {"O_ACCMODE", 3}, {"O_CREAT", 0100},
	{"O_EXCL", 0200}, {"O_NOCTTY", 0400}, {"O_TRUNC", 01000}, {"O_APPEND", 02000},
	{"O_NONBLOCK", 04000}, {"O_DSYNC", 010000}, {"O_DIRECT", 040000},
	{"O_LARGEFILE", 0100000}, {"O_DIRECTORY", 0200000}, {"O_NOFOLLOW", 0400000},
	{"O_NOATIME", 01000000}, {"O_CLOEXEC", 02000000}, {"O_SYNC", 04010000},
	{"O_PATH", 010000000}, {"O_TMPFILE", 020200000},
	/* signals on x86-64 (arch/x86/include/uapi/asm/signal.h) */
	{"SIGHUP", 1}, {"SIGINT", 2}, {"SIGQUIT", 3}, {"SIGILL", 4}, {"SIGTRAP", 5},
	{"SIGABRT", 6}, {"SIGIOT", 6}, {"SIGBUS", 7}, {"SIGFPE", 8}, {"SIGKILL", 9},
	{"SIGUSR1", 10}, {"SIGSEGV", 11}, {"SIGUSR2", 12}, {"SIGPIPE", 13}, {"SIGALRM", 14},
	{"SIGTERM", 15}, {"SIGSTKFLT", 16}, {"SIGCHLD", 17}, {"SIGCONT", 18}, {"SIGSTOP", 19},
	{"SIGTSTP", 20}, {"SIGTTIN", 21}, {"SIGTTOU", 22}, {"SIGURG", 23}, {"SIGXCPU", 24},
	{"SIGXFSZ", 25}, {"SIGVTALRM", 26}, {"SIGPROF", 27}, {"SIGWINCH", 28}, {"SIGIO", 29},
	{"SIGPOLL", 29}, {"SIGPWR", 30}, {"SIGSYS", 31},
	/* ICMP types (include/uapi/linux/icmp.h, icmpv6.h) */
	{"ICMP_ECHOREPLY", 0}, {"ICMP_DEST_UNREACH", 3}, {"ICMP_ECHO", 8},
	{"ICMP_TIME_EXCEEDED", 11}, {"ICMPV6_DEST_UNREACH", 1}, {"ICMPV6_TIME_EXCEED", 3},
	{"ICMPV6_ECHO_REQUEST", 128}, {"ICMPV6_ECHO_REPLY", 129},
	/* ethernet protocols (include/uapi/linux/if_ether.h) */
	{"ETH_P_IP", 0x0800}, {"ETH_P_ARP", 0x0806}, {"ETH_P_IPV6", 0x86DD},
};

void lex_kernel_consts(struct lexer *lx)
{
	for (size_t k = 0; k < sizeof(kconsts) / sizeof(kconsts[0]); k++) {
		const struct kconst *c = &kconsts[k];
		if (lex_find_define(lx, c->name, strlen(c->name)))
			continue;
		struct lex_tok *t = arena_new_obj(lx->arena, struct lex_tok);
		t->kind = TOK_INT;
		t->val.ival = c->value;
		t->text = arena_printf(lx->arena, "%llu", (unsigned long long)c->value);
		lex_add_define(lx, c->name, t, false);
	}
}
