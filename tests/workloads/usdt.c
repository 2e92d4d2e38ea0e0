/* usdt N: fires the USDT probe sonde:tick(i, i * 2) and sonde:done(n) N
 * times / once.  The probe notes are written by hand below (the shape of
 * <sys/sdt.h>'s STAP_PROBE2), so the tests need no systemtap headers. */
#include <stdlib.h>

#define SDT_PROBE(provider, name, argfmt, ...)                                  \
	__asm__ __volatile__(                                                   \
		"990: nop\n"                                                    \
		".pushsection .note.stapsdt,\"?\",\"note\"\n"                   \
		".balign 4\n"                                                   \
		".4byte 992f-991f, 994f-993f, 3\n"                              \
		"991: .asciz \"stapsdt\"\n"                                     \
		"992: .balign 4\n"                                              \
		"993: .8byte 990b\n"                                            \
		".8byte _.stapsdt.base\n"                                       \
		".8byte 0\n"                                                    \
		".asciz \"" provider "\"\n"                                     \
		".asciz \"" name "\"\n"                                         \
		".asciz \"" argfmt "\"\n"                                       \
		"994: .balign 4\n"                                              \
		".popsection\n"                                                 \
		".ifndef _.stapsdt.base\n"                                      \
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		".weak _.stapsdt.base\n"                                        \
		".hidden _.stapsdt.base\n"                                      \
		"_.stapsdt.base: .space 1\n"                                    \
		".size _.stapsdt.base, 1\n"                                     \
		".popsection\n"                                                 \
		".endif\n"                                                      \
		:: __VA_ARGS__)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	for (long i = 0; i < n; i++) {
		long a = i, b = i * 2;
		SDT_PROBE("sonde", "tick", "-8@%0 -8@%1", "nor"(a), "nor"(b));
	}
	SDT_PROBE("sonde", "done", "-8@%0", "nor"(n));
	return 0;
}
