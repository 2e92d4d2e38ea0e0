/*
 * diagnose_script.h - the script `sonde diagnose` runs for one service
 * (diagnose_script.c).
 */
#ifndef SONDE_CLI_DIAGNOSE_SCRIPT_H
#define SONDE_CLI_DIAGNOSE_SCRIPT_H

struct arena;
struct dx_py;
struct dx_cudalibs;

/* BEGIN's and the window's last printf: the cli reads the kernel's
 * counters when it handles them */
#define DX_BEGIN_MARK "sonde-diagnose: begin"
#define DX_END_MARK "sonde-diagnose: end"

struct dx_script {
	const int *tids, *pids;		/* the service's threads at the start, and their processes */
	int n;
	int child;			/* -c: the command, traced from its exec; 0 without */
	struct dx_py *py;		/* its Python processes (diagnose_gil.c) */
	const struct dx_cudalibs *cu;	/* the CUDA libraries they map (diagnose_cuda.c) */
	unsigned seconds;		/* the window; 0: until stopped (--serve) */
};

/* the script's text, in a */
char *dx_script(struct arena *a, const struct dx_script *x);

#endif
