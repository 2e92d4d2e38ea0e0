# sonde - a bpftrace-style tracing compiler.
#
#   make          build build/sonde (release) 
#   make deps     install the Debian packages the build and tests need
#   make check    deps, build, every test (unit under ASan/UBSan, e2e, differential)
#   make demo     deps, build, run a recipe for a few seconds and print it
#
# Objects go under build/ (build/rel and build/asan); flex and bison output
# goes under build/gen.  The LLVM 16 BPF backend is linked statically: the
# dynamic libLLVM costs ~65 ms and ~58 MB RSS at startup.

LLVM_CONFIG ?= llvm-config-16
CC      := gcc
CXX     := g++
BUILD   := build
GEN     := $(BUILD)/gen

DEPS_PKGS := llvm-16-dev libbpf-dev libelf-dev flex bison libcmocka-dev \
	zlib1g-dev libzstd-dev libz3-dev libxml2-dev libncurses-dev \
	bpftrace gcc g++ binutils lld make util-linux procps time iproute2 pkg-config systemtap-sdt-dev python3 \
	libmicrohttpd-dev libcapstone-dev libdw-dev dwarves prometheus bpftool \
	qemu-system-x86 busybox-static \
	protobuf-c-compiler libprotobuf-c-dev chromium golang-go clang-14 llvm-16 python3.11 python3.11-dbg \
	python3-fastapi python3-uvicorn python3-torch

SRCDIRS := common host lexer parser sema codegen stdlib output runtime
LIB_SRCS := $(foreach d,$(SRCDIRS),$(wildcard $(d)/*.c))
CLI_SRCS := $(wildcard cli/*.c)
GEN_SRCS := $(GEN)/lexer.c $(GEN)/parser.c $(GEN)/profile.pb-c.c

WARN    := -Wall -Wextra -Wswitch-enum -Wshadow -Wmissing-prototypes -Wwrite-strings \
	-Wstrict-prototypes -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wno-format-truncation -Werror
BASEFLAGS := -std=gnu11 -g -D_GNU_SOURCE -I. -I$(GEN) -DSONDE_GEN_DIR='"$(GEN)"' \
	$(shell $(LLVM_CONFIG) --cflags 2>/dev/null | sed 's/-D_GNU_SOURCE//')
REL_CFLAGS  := $(BASEFLAGS) -O2 -fno-pie -ffunction-sections -fdata-sections
# no PIE: the dynamic relocations of ~25 MB of static LLVM would be
# written at startup (~5 MB of RSS); gc-sections drops unused LLVM code;
# lld for its symbol ordering file (hot code first, below); libstdc++ (only
# LLVM uses it) static: the parts LLVM runs join the hot code, where the
# shared library kept ~1.2 MB resident
RELLDFLAGS  := -no-pie -fuse-ld=lld -Wl,--gc-sections -Wl,--as-needed -static-libstdc++ -static-libgcc
ASAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_CFLAGS := $(BASEFLAGS) -O1 $(ASAN_FLAGS)
# lld links the ASan binaries (build/asan/sonde, ~47 unit tests, fuzz-smoke,
# each with the static LLVM): 0.3 s of CPU a unit test where GNU ld took 1.6
ASAN_LDFLAGS := $(ASAN_FLAGS) -fuse-ld=lld

LLVM_LIBS := $(shell $(LLVM_CONFIG) --link-static --libs bpf core target bitreader linker 2>/dev/null)
LLVM_SYS  := $(shell $(LLVM_CONFIG) --link-static --system-libs 2>/dev/null)
LDLIBS    := -L$(shell $(LLVM_CONFIG) --libdir 2>/dev/null) $(LLVM_LIBS) \
	-lbpf -lelf -lprotobuf-c $(LLVM_SYS) -lz -lzstd -lpthread -lm -ldl

REL_OBJS  := $(patsubst %.c,$(BUILD)/rel/%.o,$(LIB_SRCS)) \
	$(BUILD)/rel/gen/lexer.o $(BUILD)/rel/gen/parser.o $(BUILD)/rel/gen/profile.pb-c.o
ASAN_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(LIB_SRCS)) \
	$(BUILD)/asan/gen/lexer.o $(BUILD)/asan/gen/parser.o $(BUILD)/asan/gen/profile.pb-c.o
REL_CLI   := $(patsubst %.c,$(BUILD)/rel/%.o,$(CLI_SRCS))
ASAN_CLI  := $(patsubst %.c,$(BUILD)/asan/%.o,$(CLI_SRCS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRCS))

.PHONY: all deps check check-run demo unit e2e diff fuzz fuzz-dryrun clean install asan layers vm
all: $(BUILD)/sonde $(BUILD)/libsonde-agent.so

# ---- generated front end ------------------------------------------------
$(GEN)/parser.c $(GEN)/parser.h: parser/grammar.y
	@mkdir -p $(GEN)
	bison -Wall -Werror --defines=$(GEN)/parser.h -o $(GEN)/parser.c $<

$(GEN)/lexer.c: lexer/lexer.l $(GEN)/parser.h
	@mkdir -p $(GEN)
	flex -o $@ $<

# the pprof wire format (output/pprof.c): protobuf-c's code for output/profile.proto
$(GEN)/profile.pb-c.c $(GEN)/profile.pb-c.h: output/profile.proto
	@mkdir -p $(GEN)
	protoc-c --proto_path=output --c_out=$(GEN) $<
$(BUILD)/rel/output/pprof.o $(BUILD)/asan/output/pprof.o $(BUILD)/fuzz/output/pprof.o: $(GEN)/profile.pb-c.h

# ---- objects ------------------------------------------------------------
$(BUILD)/rel/gen/%.o: $(GEN)/%.c $(GEN)/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) -MMD -c -o $@ $<
$(BUILD)/asan/gen/%.o: $(GEN)/%.c $(GEN)/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -MMD -c -o $@ $<
$(BUILD)/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) $(WARN) -MMD -c -o $@ $<
$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) $(WARN) -MMD -c -o $@ $<

# parser/ and lexer/ sources include the bison header
$(filter $(BUILD)/rel/parser/% $(BUILD)/asan/parser/% $(BUILD)/rel/lexer/% $(BUILD)/asan/lexer/%,$(REL_OBJS) $(ASAN_OBJS)): $(GEN)/parser.h

# the user stack walker in BPF C (codegen/bpfc/, codegen/unwind.c embeds it):
# clang to LLVM bitcode, its "Dwarf Version" module flag made sonde's
# (behaviour Warning, 4), as LLVM's linker refuses two behaviours for one flag
$(GEN)/unwind.bc: codegen/bpfc/unwind.bpf.c host/cfi_abi.h
	@mkdir -p $(GEN)
	clang-14 -target bpfel -O2 -g -I. -I/usr/include/$(shell $(CC) -dumpmachine) -Wall -Werror \
		-emit-llvm -c -o $@.raw $<
	llvm-dis-16 $@.raw -o - | \
		sed 's/!{i32 7, !"Dwarf Version", i32 5}/!{i32 2, !"Dwarf Version", i32 4}/' | \
		llvm-as-16 -o $@
$(BUILD)/rel/codegen/unwind.o $(BUILD)/asan/codegen/unwind.o $(BUILD)/fuzz/codegen/unwind.o: $(GEN)/unwind.bc

# syscall_name(): this architecture's syscall numbers, from the kernel
# headers the build sees (linux-libc-dev), so the table is never stale
$(GEN)/syscall_names.h:
	@mkdir -p $(GEN)
	echo '#include <asm/unistd.h>' | $(CC) -E -dM - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$$/[\2] = "\1",/p' > $@
$(BUILD)/rel/stdlib/syscalls.o $(BUILD)/asan/stdlib/syscalls.o: $(GEN)/syscall_names.h

# (build/vm holds unpacked kernels and apt's *.d folders: not ours)
-include $(shell find $(BUILD) -path $(BUILD)/vm -prune -o -name '*.d' -type f -print 2>/dev/null)

# ---- binaries -----------------------------------------------------------
# Hot code first.  A compile runs ~3.4 MB of the ~12.8 MB of code (mostly LLVM)
# linked in, scattered all through it, and the kernel maps the cached pages
# around each one a process touches (fault-around, 64 KiB by default), so 11.7 MB of
# text was resident for `BEGIN { exit(); }`.  So build/sonde is linked
# twice: tools/hotcode.so (LD_PRELOAD) lists the functions the first link
# runs compiling `BEGIN { exit(); }` and then tools/hotcode.sonde (--emit
# asm: no root needed), and lld's symbol ordering file puts them first,
# together (peak RSS 18.9 -> 10.9 MB): the first program's functions, then
# the second's others, each set sorted by name (the order they first run
# in varies a little with the heap's addresses; the sets do not).  A local
# name several objects define orders each of them, also those gc-sections
# dropped: lld's warning about those is left off.
HOT := $(BUILD)/rel/hot
$(BUILD)/rel/sonde-unordered: $(REL_OBJS) $(REL_CLI)
	$(CXX) $(RELLDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/rel/hotcode.so: tools/hotcode.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O2 -D_GNU_SOURCE -fPIC -shared $(WARN) -o $@ $<
$(HOT).order: $(BUILD)/rel/sonde-unordered $(BUILD)/rel/hotcode.so tools/hotcode.sonde
	nm --defined-only $< > $(HOT).nm
	rm -f $(HOT).begin $(HOT).more
	HOTCODE_SYMS=$(HOT).nm HOTCODE_OUT=$(HOT).begin LD_PRELOAD=$(CURDIR)/$(BUILD)/rel/hotcode.so \
		$< --emit asm -e 'BEGIN { exit(); }' > /dev/null
	HOTCODE_SYMS=$(HOT).nm HOTCODE_OUT=$(HOT).more LD_PRELOAD=$(CURDIR)/$(BUILD)/rel/hotcode.so \
		$< --emit asm tools/hotcode.sonde > /dev/null
	(LC_ALL=C sort -u $(HOT).begin; LC_ALL=C sort -u $(HOT).more) | awk '!seen[$$0]++' > $@.tmp
	mv $@.tmp $@
$(BUILD)/sonde: $(REL_OBJS) $(REL_CLI) $(HOT).order
	$(CXX) $(RELLDFLAGS) -Wl,--symbol-ordering-file=$(HOT).order -Wl,--no-warn-symbol-ordering \
		-o $@ $(REL_OBJS) $(REL_CLI) $(LDLIBS)

$(BUILD)/asan/sonde: $(ASAN_OBJS) $(ASAN_CLI)
	$(CXX) $(ASAN_LDFLAGS) -o $@ $^ $(LDLIBS)
asan: $(BUILD)/asan/sonde

# ---- the user-space probe agent (LD_PRELOAD; agent/agent.h) ---------------
# Its own flags: position-independent, only its constructor visible.
AGENT_SRCS := $(wildcard agent/*.c) agent/tramp.S
AGENT_HDRS := $(wildcard agent/*.h)
AGENT_CFLAGS := -std=gnu11 -g -O2 -D_GNU_SOURCE -I. -fPIC -fvisibility=hidden $(WARN)
$(BUILD)/libsonde-agent.so: $(AGENT_SRCS) $(AGENT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(AGENT_CFLAGS) -shared -Wl,-z,now -o $@ $(AGENT_SRCS) -lcapstone -lpthread
# the unit test drives the patcher and the interpreter directly (no socket)
AGENT_CORE := agent/patch.c agent/stop.c agent/interp.c agent/tramp.S
$(BUILD)/unit/test_agent: tests/unit/test_agent.c $(AGENT_CORE) $(AGENT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) $(WARN) -pthread -o $@ tests/unit/test_agent.c $(AGENT_CORE) -lcapstone -lcmocka

$(BUILD)/unit/%: tests/unit/%.c $(ASAN_OBJS)
	@mkdir -p $(dir $@)
	$(CXX) -x c $(ASAN_CFLAGS) $(WARN) -std=gnu11 -o $@.o -c $<
	$(CXX) $(ASAN_LDFLAGS) -o $@ $@.o $(ASAN_OBJS) $(LDLIBS) -lcmocka

# ---- tests ----------------------------------------------------------------
# Each suite appends "PASS|FAIL|SKIP suite:name [reason]" lines to
# $(BUILD)/results; tests/summary.sh prints the totals and fails on any FAIL.
RESULTS := $(BUILD)/results

# every binary runs; a FAIL among their results fails the target (make
# check runs the other suites all the same, with -k, and totals them)
unit: $(UNIT_BINS)
	@mkdir -p $(BUILD); : > $(RESULTS).unit
	@for t in $(UNIT_BINS); do tests/run-unit.sh $$t $(RESULTS).unit || true; done
	@if grep -q '^FAIL' $(RESULTS).unit; then \
		echo "unit: failed:"; grep '^FAIL' $(RESULTS).unit | sed 's/^/  /'; exit 1; fi

e2e: $(BUILD)/asan/sonde $(BUILD)/libsonde-agent.so
	@: > $(RESULTS).e2e
	SONDE=$(CURDIR)/$(BUILD)/asan/sonde RESULTS=$(CURDIR)/$(RESULTS).e2e tests/e2e/run.sh

diff: $(BUILD)/sonde
	@: > $(RESULTS).diff
	SONDE=$(CURDIR)/$(BUILD)/sonde RESULTS=$(CURDIR)/$(RESULTS).diff tests/diff/run.sh

# the kernel suite: tests/vm/t_*.sh in a QEMU guest of each kernel of the
# matrix (5.10, 6.1, 6.12; fetched into build/vm on first use): tests/vm/README.md
vm: $(BUILD)/sonde $(BUILD)/libsonde-agent.so
	@: > $(RESULTS).vm
	@tests/vm/suite.sh $(CURDIR)/$(RESULTS).vm

# the import graph runs one way (common -> host -> lexer -> parser -> sema
# -> codegen -> stdlib -> output -> runtime -> cli): docs/architecture.md
layers:
	@mkdir -p $(BUILD); : > $(RESULTS).layers
	@tests/layers.sh $(RESULTS).layers || true

# make check: the release build (-j as many as there are CPUs), then the
# kernel suite starts in the background (its guests are CPU-bound under
# TCG: tests/vm/suite.sh, VM_PAR at a time) while the ASan build, the unit
# tests and fuzz-smoke are built and the host suites run one after the
# other (the e2e files among themselves E2E_JOBS at a time:
# tests/e2e/run.sh); they mostly wait, and the guests run at nice 10 until
# they have ended (their timing-sensitive tests keep their CPU), then at 0.
# -k: a suite that fails (make unit
# does on a FAIL) does not keep the others from running; the summary totals
# them all, prints each part's wall and CPU time ($(RESULTS).times) and
# fails when a suite or a build failed.
NPROC := $(shell nproc 2>/dev/null || echo 2)
HOST_SUITES := layers unit fuzz-smoke e2e diff
check: deps
	@mkdir -p $(BUILD); : > $(RESULTS).times
	@st=0; CHECK_TIMES=$(CURDIR)/$(RESULTS).times tests/timed.sh total $(CURDIR)/$(RESULTS).times \
		$(MAKE) --no-print-directory check-run || st=$$?; \
	tests/summary.sh --times $(RESULTS).times $(RESULTS).layers $(RESULTS).unit $(RESULTS).e2e \
		$(RESULTS).diff $(RESULTS).fuzz $(RESULTS).vm && exit $$st

# (check's body: CHECK_TIMES is the file of times each part appends to)
# (the kernels are fetched meanwhile: network and decompression, mostly)
check-run:
	@mkdir -p $(BUILD); tests/vm/suite.sh --fetch > $(BUILD)/vm-fetch.log 2>&1 & fetch=$$!; \
	st=0; tests/timed.sh build "$$CHECK_TIMES" $(MAKE) --no-print-directory -k -j$(NPROC) all || st=1; \
	tests/vm/suite.sh --renice 10; \
	tests/timed.sh vm "$$CHECK_TIMES" $(MAKE) --no-print-directory vm & vm=$$!; \
	tests/timed.sh build-asan "$$CHECK_TIMES" $(MAKE) --no-print-directory -k -j$(NPROC) \
		asan $(UNIT_BINS) $(BUILD)/fuzz-smoke $(BUILD)/fuzz-smoke-python || st=1; \
	for s in $(HOST_SUITES); do \
		tests/timed.sh $$s "$$CHECK_TIMES" $(MAKE) --no-print-directory $$s || st=1; \
	done; \
	tests/vm/suite.sh --renice 0; \
	wait $$vm || st=1; wait $$fetch; exit $$st

demo: deps
	$(MAKE) all
	@scripts/demo.sh $(BUILD)/sonde

deps:
	@missing=""; for p in $(DEPS_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	else echo "deps: all installed"; fi

# ---- fuzzing the front end -----------------------------------------------
# fuzz-smoke replays the corpus plus a few thousand mutated inputs through
# the ASan build of lexer+parser+sema; fuzz runs libFuzzer for as long as you like.
# fuzz-smoke-python does the same for what sonde decodes from a Python
# process's memory (tests/fuzz/fuzz_python.c, corpus-python).
FUZZ_SRCS := tests/fuzz/fuzz_frontend.c
$(BUILD)/fuzz-smoke: $(FUZZ_SRCS) tests/fuzz/driver.c $(ASAN_OBJS)
	$(CXX) -x c $(ASAN_CFLAGS) -c -o $@.o tests/fuzz/fuzz_frontend.c
	$(CXX) -x c $(ASAN_CFLAGS) -c -o $@.drv.o tests/fuzz/driver.c
	$(CXX) $(ASAN_LDFLAGS) -o $@ $@.o $@.drv.o $(ASAN_OBJS) $(LDLIBS)
$(BUILD)/fuzz-smoke-python: tests/fuzz/fuzz_python.c tests/fuzz/driver.c $(ASAN_OBJS)
	$(CXX) -x c $(ASAN_CFLAGS) -c -o $@.o tests/fuzz/fuzz_python.c
	$(CXX) -x c $(ASAN_CFLAGS) -c -o $@.drv.o tests/fuzz/driver.c
	$(CXX) $(ASAN_LDFLAGS) -o $@ $@.o $@.drv.o $(ASAN_OBJS) $(LDLIBS)
fuzz-smoke: $(BUILD)/fuzz-smoke $(BUILD)/fuzz-smoke-python
	@: > $(RESULTS).fuzz
	@if LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp $(BUILD)/fuzz-smoke tests/fuzz/corpus 3000 \
		>$(BUILD)/fuzz.log 2>&1; then \
		echo "PASS fuzz:frontend" >> $(RESULTS).fuzz; echo "PASS fuzz:frontend"; \
	else echo "FAIL fuzz:frontend (see $(BUILD)/fuzz.log)" >> $(RESULTS).fuzz; tail -20 $(BUILD)/fuzz.log; fi
	@if $(BUILD)/fuzz-smoke-python tests/fuzz/corpus-python 20000 >$(BUILD)/fuzz-python.log 2>&1; then \
		echo "PASS fuzz:python" >> $(RESULTS).fuzz; echo "PASS fuzz:python"; \
	else echo "FAIL fuzz:python (see $(BUILD)/fuzz-python.log)" >> $(RESULTS).fuzz; \
		tail -20 $(BUILD)/fuzz-python.log; fi

# Optional, not part of check: libFuzzer (clang-14) over the whole front
# end - lexer, preprocessor, parser, sema, and codegen when FUZZ_CODEGEN=1
# (it makes each input ~100x slower: LLVM's BPF backend runs) - for
# FUZZ_RUNS inputs (0: until FUZZ_TIME seconds).  Every library source is
# built again with clang under $(BUILD)/fuzz (libFuzzer and gcc's ASan do
# not mix).  New inputs go to $(BUILD)/fuzz-corpus; crashes to
# $(BUILD)/fuzz-crash-*; libFuzzer's figures to $(BUILD)/fuzz-run.log.
FUZZ_RUNS ?= 10000000
FUZZ_TIME ?= 0
FUZZ_CODEGEN ?= 0
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -I. -I$(GEN) \
	$(shell $(LLVM_CONFIG) --cflags 2>/dev/null | sed 's/-D_GNU_SOURCE//') \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	-fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt
FUZZ_OBJS := $(patsubst %.c,$(BUILD)/fuzz/%.o,$(LIB_SRCS)) \
	$(BUILD)/fuzz/gen/lexer.o $(BUILD)/fuzz/gen/parser.o $(BUILD)/fuzz/gen/profile.pb-c.o
$(BUILD)/fuzz/gen/%.o: $(GEN)/%.c $(GEN)/parser.h
	@mkdir -p $(dir $@)
	clang-14 $(FUZZ_CFLAGS) -MMD -c -o $@ $<
$(BUILD)/fuzz/%.o: %.c $(GEN)/parser.h $(GEN)/syscall_names.h
	@mkdir -p $(dir $@)
	clang-14 $(FUZZ_CFLAGS) -MMD -c -o $@ $<
$(BUILD)/fuzz-frontend: tests/fuzz/fuzz_frontend.c $(FUZZ_OBJS)
	clang-14 $(FUZZ_CFLAGS) -c -o $@.o tests/fuzz/fuzz_frontend.c
	clang++-14 -fsanitize=fuzzer,address,undefined -o $@ $@.o $(FUZZ_OBJS) $(LDLIBS)
ifeq ($(FUZZ_MODE),dryrun)
fuzz: fuzz-dryrun
else
fuzz: $(BUILD)/fuzz-frontend
	@mkdir -p $(BUILD)/fuzz-corpus
	@echo "fuzzing: progress in $(BUILD)/fuzz-run.log"
	@FUZZ_CODEGEN=$(FUZZ_CODEGEN) LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp \
		$(BUILD)/fuzz-frontend -runs=$(FUZZ_RUNS) \
		-max_total_time=$(FUZZ_TIME) -max_len=8192 -print_final_stats=1 \
		-artifact_prefix=$(BUILD)/fuzz-crash- $(BUILD)/fuzz-corpus tests/fuzz/corpus \
		> $(BUILD)/fuzz-run.log 2>&1; rc=$$?; \
		grep -v '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|pulse\)' $(BUILD)/fuzz-run.log | tail -25; exit $$rc
endif

# Optional, not part of check: the whole pipeline under mutation, to the
# kernel's verifier.  `make fuzz-dryrun` (or `make fuzz FUZZ_MODE=dryrun`)
# mutates tests/fuzz/dryrun/ - a seed script for every probe type (BEGIN/
# END, tracepoint, rawtracepoint, uprobe/uretprobe, usdt, interval,
# profile, software, hardware, kprobe) and the language - and the corpus,
# and runs FUZZ_DRYRUN_RUNS inputs through the ASan build's `--dry-run`
# (parse, sema, codegen, load by the verifier, attach, detach; needs root).
# An input passes when sonde runs it or refuses it with a message; a
# signal, a sanitizer report, an LLVM fatal error or an internal error is
# kept as $(BUILD)/fuzz-dryrun-crash-N.bt.  One input takes ~0.3 s.
FUZZ_DRYRUN_RUNS ?= 2000
FUZZ_DRYRUN_SEED ?= 1
fuzz-dryrun: $(BUILD)/asan/sonde
	@nice -n 10 python3 tests/fuzz/dryrun.py $(BUILD)/asan/sonde $(FUZZ_DRYRUN_RUNS) $(FUZZ_DRYRUN_SEED)

PREFIX ?= /usr/local
# docs/errors.md is the catalogue of error codes in common/explain.c, as
# `sonde --explain --all` prints it (e2e:errors checks it is current)
docs/errors.md: $(BUILD)/sonde
	$(BUILD)/sonde --explain --all > $@

install: $(BUILD)/sonde $(BUILD)/libsonde-agent.so
	install -D -m 755 $(BUILD)/sonde $(DESTDIR)$(PREFIX)/bin/sonde
	install -D -m 755 $(BUILD)/libsonde-agent.so $(DESTDIR)$(PREFIX)/lib/sonde/libsonde-agent.so
	install -d $(DESTDIR)$(PREFIX)/share/sonde/scripts
	install -m 644 scripts/*.sonde $(DESTDIR)$(PREFIX)/share/sonde/scripts/

clean:
	rm -rf $(BUILD)
