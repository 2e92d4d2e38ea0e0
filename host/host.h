/*
 * host.h - what sonde learns from the machine it runs on.
 *
 * Used by the compiler (sema, codegen, stdlib) and by the runtime alike:
 * tracefs and tracepoint formats, perf software events, /proc/kallsyms,
 * USDT notes, ELF symbols, /proc/PID/maps, containers and cgroups, and
 * uprobe target resolution.  host/ depends only on common/.  Each topic has
 * its header, which this one gathers (a file may include only the one it
 * needs):
 *
 *   tracefs.h   tracefs.c    tfs_   tracefs, tracepoint formats, -l for tracepoints
 *   ksyms.h     ksyms.c      ksyms_ /proc/kallsyms
 *   usdt.h      usdt.c       usdt_  SDT notes and their argument strings
 *   resolve.h   procmaps.c, elfsym.c, vdso.c, insn.c, container.c, uresolve.c,
 *               usites.c, zip.c  rs_  uprobe targets, symbols, containers, zip members
 *   dwarf.h     dwarf.c      hdw_   a user-space binary's DWARF (libdw), for uprobe args
 *               ubtf.c       hubtf_ (host_int.h) the same from its .BTF when it has no DWARF
 *   btf.h       btf.c        host_  the kernel's BTF, for kernel types
 *   kfuncs.h    kfuncs.c     kfn_   kernel functions kprobes and fentry can attach to
 *   features.h  features.c   host_feature  what the kernel's BPF accepts (probed once)
 *   list.h      list.c       host_list_  `sonde -l` for each probe provider
 *   kube.h      kube.c       kube_  Kubernetes names
 *   proc.h      proc.c       host_proc_  /proc/PID read one way (not gathered here:
 *               include it where processes are read)
 */
#ifndef SONDE_HOST_H
#define SONDE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host/tracefs.h"
#include "host/ksyms.h"
#include "host/usdt.h"
#include "host/resolve.h"
#include "host/dwarf.h"
#include "host/btf.h"
#include "host/kfuncs.h"
#include "host/features.h"
#include "host/list.h"
#include "host/kube.h"

#endif
