// unwind_cxx GO: a C++ workload for ustack without frame pointers
// (tests/e2e/t_unwind.sh), built with -O2 -fomit-frame-pointer.  After
// the file GO appears, thrower() throws; the destructor of its Guard runs
// on the exception's way out (a landing pad, which GCC puts in a .cold
// part of the function with call-frame information of its own) and calls
// mark(), which prints glibc's backtrace() as tests/workloads/unwind.c does.
#include <stdexcept>
#include <stdio.h>
#include <unistd.h>

#include "unwind_mark.h"

#define NOINLINE __attribute__((noinline))

struct Guard {
	~Guard() { mark(); }
};

NOINLINE void thrower(int x)
{
	Guard g;
	if (x)
		throw std::runtime_error("unwinding");
	sink++;
}

NOINLINE int middle(int x)
{
	thrower(x + 1);
	return sink;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	printf("ready\n");
	fflush(stdout);
	while (access(argv[1], F_OK))
		usleep(1000);
	try {
		middle(argc);
	} catch (const std::exception &e) {
		printf("caught %s\n", e.what());
	}
	return 0;
}
