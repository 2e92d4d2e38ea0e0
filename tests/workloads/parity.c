/* parity N: the workload of the parity tests (issue 9), N rounds of:
 *   mac(m)      with m pointing at the 6 bytes 00:1b:21:ab:cd:ef, for macaddr();
 *   hop()       an assembly function of known instruction lengths, for
 *               uprobes at hop+OFFSET and at absolute addresses:
 *               +0 nop (1 byte), +1 mov $7,%eax (5 bytes), +6 ret;
 *               hop+1 and hop+6 are instruction boundaries, hop+2 is not;
 *   errfn(e)    returns -e, for strerror(-retval);
 *   name(s)     a string with bytes outside ASCII, for buf() and %r;
 *   stackargs(1, 2, 3, 4, 5, 6, 77, 88): the last two on the stack, for sargN.
 * Built with symbols (the tests read hop's address with nm). */
#include <stdlib.h>

__asm__(".text\n"
	".globl hop\n"
	".type hop, @function\n"
	"hop:\n"
	"	nop\n"
	"	movl $7, %eax\n"
	"	ret\n"
	".size hop, .-hop\n");
int hop(void);

__attribute__((noinline)) int mac(const unsigned char *m)
{
	__asm__ volatile("" ::: "memory");
	return m[0];
}

__attribute__((noinline)) long errfn(long e)
{
	__asm__ volatile("" ::: "memory");
	return -e;
}

__attribute__((noinline)) int name(const char *s)
{
	__asm__ volatile("" ::: "memory");
	return s[0];
}

__attribute__((noinline)) long stackargs(long a, long b, long c, long d, long e, long f, long g,
				       long h)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + d + e + f + g + h;
}

int main(int argc, char **argv)
{
	static const unsigned char m[6] = {0x00, 0x1b, 0x21, 0xab, 0xcd, 0xef};
	static const char s[] = "caf\xc3\xa9\x01z";
	long n = argc > 1 ? atol(argv[1]) : 1, t = 0;
	/* touch the data first: a uprobe reading a page not yet faulted in
	 * reads zeros (probe_read cannot fault pages in) */
	volatile unsigned char touch = m[5] + (unsigned char)s[6];
	(void)touch;
	for (long i = 0; i < n; i++)
		t += mac(m) + hop() + errfn(2) + name(s) + stackargs(1, 2, 3, 4, 5, 6, 77, 88);
	return t == 12345;
}
