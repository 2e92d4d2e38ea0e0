/* usdt N: fires the USDT probe sonde:tick(i, i * 2) and sonde:done(n) N
 * times / once, then wide:many once: 10 values 1..10 and two constants of
 * 4 and 2 bytes (4@$-7, an unsigned -7; -2@$-3), 12 arguments as
 * <sys/sdt.h> allows.  The probe notes are written by hand below (the shape of
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
	volatile long v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	SDT_PROBE("wide", "many", "-8@%0 -8@%1 -8@%2 -8@%3 -8@%4 -8@%5 -8@%6 -8@%7 -8@%8 -8@%9 4@$-7 -2@$-3",
		  "m"(v[0]), "m"(v[1]), "m"(v[2]), "m"(v[3]), "m"(v[4]), "m"(v[5]), "m"(v[6]),
		  "m"(v[7]), "m"(v[8]), "m"(v[9]));
	return 0;
}
