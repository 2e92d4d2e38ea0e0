/* argv ARGS...: prints each argument in brackets, so a test sees how a
 * command line was split into words ([a][][b] for "a  b"). */
#include <stdio.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("[%s]", argv[i]);
	printf("\n");
	return 0;
}
