/*
 * host_int.h - what the files of host/ share (not a public header).
 */
#ifndef SONDE_HOST_INT_H
#define SONDE_HOST_INT_H

#include <stddef.h>

#include "host/host.h"

/* The one-sentence error convention of this layer: format into err
 * (nothing when err is NULL or errlen 0).  Shared by the rs_ files and
 * usdt.c. */
void rs_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
