# wakebench: GNU Make with pkg-config.
#
#   make              build ./wakebench
#   make run          install missing build dependencies, build, run the main job
#   make check        install missing test dependencies, build, run every test (prove)
#   make check SANITIZE=1   the same with ASan + UBSan (objects in build-san/)
#   make DEVELOPER=1  warnings are errors
#   make V=1          every command in full (CPPFLAGS, CFLAGS, LDFLAGS are honoured)
#   make format       clang-format every C file; make format-check: fail on any that would change
#   make install PREFIX=/usr/local DESTDIR=
#   make deb          Debian packages in build-deb/ (this architecture; amd64 also builds arm64)
#   make fuzz FUZZ_SECONDS=30   the libFuzzer targets (clang; build-fuzz/), 30 s each
#   make CROSS_COMPILE=aarch64-linux-gnu-   arm64 wakebench and unit tests in build-aarch64/
#   make check-arm64  the arm64 build's tests under qemu-user (doc/cross.md)

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man/man1

CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
PKGS := sqlite3 json-c yajl yaml-0.1 uuid gsl libbpf zlib libcrypto
TEST_PKGS := cmocka
FAKEFS_PKGS := fuse3

WARN := -std=gnu11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wwrite-strings -Wundef -Wvla -Wpointer-arith -Wcast-qual
ifeq ($(DEVELOPER),1)
WARN += -Werror
endif

ifeq ($(SANITIZE),1)
BUILD := build-san
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD := build
SAN :=
endif

# Cross-build for arm64 (doc/cross.md): Debian's cross gcc, the arm64 libraries
# from multiarch (/usr/lib/aarch64-linux-gnu) plus the sysroot of
# scripts/arm64-sysroot.sh for what multiarch cannot co-install (GSL), in
# build-aarch64/ so that it never mixes with the native objects.
CROSS_COMPILE ?=
ifneq ($(CROSS_COMPILE),)
ifneq ($(CROSS_COMPILE),aarch64-linux-gnu-)
$(error CROSS_COMPILE='$(CROSS_COMPILE)': only aarch64-linux-gnu- is supported)
endif
CROSS_TRIPLET := aarch64-linux-gnu
CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
SYSROOT ?= $(shell sh scripts/arm64-sysroot.sh --path)
PKG_CONFIG := PKG_CONFIG_LIBDIR=$(SYSROOT)/usr/lib/$(CROSS_TRIPLET)/pkgconfig:/usr/lib/$(CROSS_TRIPLET)/pkgconfig:/usr/share/pkgconfig pkg-config
CROSS_CFLAGS := -idirafter $(SYSROOT)/usr/include
CROSS_LDFLAGS := -L$(SYSROOT)/usr/lib/$(CROSS_TRIPLET) -Wl,-rpath-link,$(SYSROOT)/usr/lib/$(CROSS_TRIPLET)
BUILD := $(BUILD:build%=build-aarch64%)
endif

# pkg-config runs once, when a compile line first needs it (not for make deps or
# clean), and what it says about a missing package is shown.
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(shell $$(PKG_CONFIG) --cflags $$(PKGS)))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $$(shell $$(PKG_CONFIG) --libs $$(PKGS)))$(PKG_LIBS)
# CPPFLAGS, CFLAGS and LDFLAGS are the packager's (dpkg-buildflags: _FORTIFY_SOURCE,
# hardening); V=1 shows every command in full instead of its one-word summary.
# Symbols are bound at load time (-z now), as hardening=+all binds them: a
# messaging task sheds the libraries it never calls (sys/image.h), which a
# lazily bound first call would look its symbol up in.
ALL_CFLAGS = $(WARN) $(CPPFLAGS) $(CFLAGS) $(SAN) -D_GNU_SOURCE -iquote src $(PKG_CFLAGS) \
	$(CROSS_CFLAGS) -MMD -MP
ALL_LDFLAGS = -Wl,-z,relro -Wl,-z,now $(LDFLAGS) $(SAN) $(CROSS_LDFLAGS)
LIBS = $(PKG_LIBS) -lm -lpthread
ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @echo
endif

SRCS := $(sort $(shell find src -name '*.c' ! -name main.c ! -name '*.bpf.c'))
OBJS := $(SRCS:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libwakebench.a
BIN := $(BUILD)/wakebench

UNIT_SRCS := $(sort $(wildcard tests/unit/t-*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
FAKEFS := $(BUILD)/tests/wakebench-fakefs
SKIP_ONLY := $(BUILD)/tests/skip-only
E2E := $(sort $(wildcard tests/e2e/t[0-9]*.sh))

.PHONY: all run check check-build check-run check-stress unit e2e deps deps-test install clean \
	format format-check docs fuzz fuzz-build fuzz-corpus deps-arm64 check-arm64 deb deb-check

ifeq ($(CROSS_COMPILE),)
all: wakebench
else
# A cross-build makes the binary and its unit tests, and leaves ./wakebench alone.
all: $(BIN) unit
endif

wakebench: $(BIN)
ifeq ($(SANITIZE)$(CROSS_COMPILE),)
	@cp $(BIN) wakebench
endif

$(BIN): $(BUILD)/src/main.o $(LIB)
	$(msg) "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(LIB): $(OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(msg) "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The BPF tracer (doc/evidence.md): src/sys/bpf/sched-trace.bpf.c built by clang's
# BPF target (little-endian, the same object for x86-64 and arm64: it names only
# CO-RE-relocated fields, from src/sys/bpf/core.h rather than a vmlinux.h dumped from
# this machine's kernel) and embedded through a bpftool skeleton generated in
# $(BUILD)/gen. Both are host tools, so a cross build gets the same object. Without
# them wakebench still builds and --trace=bpf says why it cannot trace.
BPF_CLANG ?= clang
BPFTOOL ?= $(firstword $(shell command -v bpftool 2>/dev/null) $(wildcard /usr/sbin/bpftool /sbin/bpftool))
# (the build directory mapped away: the object, embedded, is the same wherever it is built)
BPF_CFLAGS := -target bpfel -g -O2 -Wall -Werror -I src/sys/bpf -ffile-prefix-map=$(CURDIR)=.
BPF_OBJ := $(BUILD)/bpf/sched-trace.bpf.o
BPF_SKEL := $(BUILD)/gen/sched-trace.skel.h
BPF_MISSING := $(if $(shell command -v $(BPF_CLANG) 2>/dev/null),,$(BPF_CLANG) not found)
BPF_MISSING += $(if $(BPFTOOL),,bpftool not found)
BPF_MISSING += $(if $(wildcard /usr/include/bpf/bpf_helpers.h),,libbpf-dev's bpf_helpers.h not found)
BPF_MISSING := $(strip $(BPF_MISSING))
ifeq ($(BPF_MISSING),)
$(BUILD)/src/sys/trace-bpf.o: $(BPF_SKEL)
$(BUILD)/src/sys/trace-bpf.o: ALL_CFLAGS += -DWAKEBENCH_BPF -I $(BUILD)/gen
else
$(BUILD)/src/sys/trace-bpf.o: ALL_CFLAGS += -DWAKEBENCH_BPF_MISSING='"$(BPF_MISSING) at build time"'
endif

$(BPF_OBJ): src/sys/bpf/sched-trace.bpf.c src/sys/bpf/sched-trace.h src/sys/bpf/core.h
	@mkdir -p $(@D)
	$(msg) "  BPF     $@"
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BPF_SKEL): $(BPF_OBJ)
	@mkdir -p $(@D)
	$(msg) "  GEN     $@"
	$(Q)$(BPFTOOL) gen skeleton $< name sched_trace_bpf >$@.tmp && mv $@.tmp $@

$(BUILD)/tests/t-%: tests/unit/t-%.c tests/unit/harness.h $(LIB)
	@mkdir -p $(@D)
	$(msg) "  CCLD    $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS)) -o $@ $< $(LIB) \
		$(ALL_LDFLAGS) $(shell $(PKG_CONFIG) --libs $(TEST_PKGS)) $(LIBS)

$(SKIP_ONLY): tests/unit/skip-only.c tests/unit/harness.h $(LIB)
	@mkdir -p $(@D)
	$(msg) "  CCLD    $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS)) -o $@ $< $(LIB) \
		$(ALL_LDFLAGS) $(shell $(PKG_CONFIG) --libs $(TEST_PKGS)) $(LIBS)

$(FAKEFS): tests/fakefs/fakefs.c
	@mkdir -p $(@D)
	$(msg) "  CCLD    $@"
	$(Q)$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) $(SAN) -D_GNU_SOURCE \
		$(shell $(PKG_CONFIG) --cflags $(FAKEFS_PKGS)) \
		-o $@ $< $(ALL_LDFLAGS) $(shell $(PKG_CONFIG) --libs $(FAKEFS_PKGS))

deps:
	@sh scripts/deps.sh build

deps-test:
	@sh scripts/deps.sh test

# The main job: the report's workload with wakebench's defaults, then one line
# on what to try next here.
run: deps
	@$(MAKE) --no-print-directory wakebench
	./wakebench run pipe
	@sh scripts/next-step.sh ./wakebench

unit: $(UNIT_BINS) $(SKIP_ONLY)

# The tests run in two lanes (tests/README.md): most of them CHECK_JOBS at a time
# (prove -j), then, one at a time and alone on the machine, those that need it to
# themselves: guests booted under TCG, whose boot timeouts are wall time (t6001,
# t6002, t6010, t6020, t7004, t9002), the tests that time signals and reactions or
# compare two tracers' clocks (t1050, t1093, t1131, t2030, t2031, t3005,
# t-trace-bpf), t4005, which asserts that no BPF program of wakebench's is
# left loaded on the machine, and t0004, which runs t4005 again (with the
# other tests that run wakebench as another user).
CHECK_JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
SERIAL_TESTS := t-trace-bpf t0004 t1050 t1093 t1131 t2030 t2031 t3005 t4005 t6001 t6002 t6010 t6020 \
	t7004 t9002
serial_of = $(filter $(foreach t,$(SERIAL_TESTS),%/$(t) tests/e2e/$(t)-%),$(1))
PROVE := prove -f --timer --exec 'sh tests/unit/tap-exec.sh'
# run_lanes ENV,FILES: the parallel lane, then the serial one; fails if either does
run_lanes = rc=0; \
	$(1) $(PROVE) -j$(CHECK_JOBS) $(filter-out $(call serial_of,$(2)),$(2)) || rc=1; \
	$(if $(call serial_of,$(2)),$(1) $(PROVE) $(call serial_of,$(2)) || rc=1;) \
	exit $$rc

# The sanitizer pass leaves out what it adds nothing to, since the code under
# test is not the host's wakebench or is the same as in a test it keeps:
# t9002 bisects over four kernels booted under TCG, whose guests run their own
# wakebench (the host side is t9001's); t6010 boots the arm64 build (not the
# sanitized one; the host side is t6002's); t7004 runs a LAVA job whose guest
# runs wakebench and whose log import is t7002's; t6020 runs campaigns inside a
# guest (the host side's start, step and abort are t9701's and t9702's); t8004
# screenshots in Chromium
# the report that t8001 builds under the sanitizers; t0004 reruns as a copy the
# tests that the pass runs anyway; t3036 imports 100,000 samples through the
# parser that t-import, t3035 and the fuzz targets run under the sanitizers.
E2E_NO_SANITIZE := $(foreach t,t0004 t3036 t6010 t6020 t7004 t8004 t9002,$(filter tests/e2e/$(t)-%,$(E2E)))
CHECK_E2E = $(if $(filter 1,$(SANITIZE)),$(filter-out $(E2E_NO_SANITIZE),$(E2E)),$(E2E))
# t3015's 200 rounds of eight commands run natively; under the sanitizers,
# whose processes start several times slower, 40 of them.
CHECK_ENV = WAKEBENCH=$(abspath $(BIN)) WAKEBENCH_FAKEFS=$(abspath $(FAKEFS)) \
	WAKEBENCH_SRC=$(CURDIR) $(if $(filter 1,$(SANITIZE)),WB_T3015_ROUNDS=40)

# Every test, unit (cmocka, turned into TAP by tap-exec.sh with each failing
# assertion's message) and end-to-end (TAP shell scripts), through prove.
check: check-build
	@$(MAKE) --no-print-directory check-run

check-build: deps-test
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) wakebench unit \
		$(if $(wildcard tests/fakefs/fakefs.c),$(FAKEFS))

# The tests alone, on what check-build built (check-stress runs it N times).
check-run:
	@$(call run_lanes,$(CHECK_ENV),$(UNIT_BINS) $(CHECK_E2E))

# The flake hunt: the whole suite N times with every CPU kept busy, then each
# test file that failed at least once with its failing assertions.
N ?= 3
check-stress: check-build
	@sh scripts/check-stress.sh $(N) $(MAKE) --no-print-directory check-run

# The arm64 build's tests on this (x86-64) machine, under qemu-user: every unit
# test and the end-to-end tests in ARM64_E2E, with WAKEBENCH an arm64 wakebench.
# Each arm64 binary gets a wrapper in build-aarch64/qemu/ (same layout as
# build-aarch64/) that runs it with qemu-aarch64-static -L <sysroot>, so no
# binfmt_misc registration is needed. What qemu-user lacks (perf_event_open,
# PR_SET_CHILD_SUBREAPER, ptrace) is a TAP skip with the reason (doc/cross.md).
QEMU_AARCH64 ?= qemu-aarch64-static
ARM64_BUILD := build-aarch64
ARM64_SYSROOT = $(shell sh scripts/arm64-sysroot.sh --path)
ARM64_WRAP := $(ARM64_BUILD)/qemu
ARM64_UNIT := $(UNIT_SRCS:tests/unit/%.c=$(ARM64_WRAP)/tests/%)
# Not here: t1090 (builds natively with make), t2030 (signal timing and the
# journal owner's identity under emulation), t2031 (qemu-user keeps some
# real-time signals for itself and renumbers the others), t1091 (the CPUs of threads
# and /proc/PID/task/TID/children, which qemu-user's /proc does not give), t1132 (another
# process's /proc/PID/maps, which shows the emulator's mappings; t-image checks the
# shed from inside, which qemu-user's /proc/self/maps shows), t1092 and
# t3001 (they run wakebench as another user, who cannot read root's sysroot
# cache), t4001/t4002/t4004 (perf events and tracepoints, which qemu-user lacks), t6xxx, t7004 and t9002 (vm, the LAVA job and bisect run boot
# guests from the host: see check-arm64-vm in doc/cross.md), t9001 (bisect step
# runs wakebench again by /proc/self/exe, which under qemu-user is the arm64
# binary, and the host cannot exec it without binfmt_misc; so do campaign start
# and step in t9701 and t9702), t0006 (the documentation's
# examples interleave stdout and stderr as a terminal shows them, through stdbuf, which
# reaches qemu-user's stdio but not the guest program's), t3036 (100,000 samples through
# the import parser that t-import and t3035 run here: only size, 4 minutes emulated).
# t3015 runs 20 of its 200 rounds here (1,600 emulated processes took 4.6 minutes).
ARM64_E2E_SKIP := t0006 t1090 t1091 t1092 t1132 t2030 t2031 t3001 t3036 t4001 t4002 t4004 t7004 \
	t9001 t9002 t9701 t9702
ARM64_E2E ?= $(filter-out tests/e2e/t6% $(foreach t,$(ARM64_E2E_SKIP),tests/e2e/$(t)-%),$(E2E))

deps-arm64:
	@sh scripts/deps.sh arm64

check-arm64: deps-arm64
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) CROSS_COMPILE=aarch64-linux-gnu- all
	@$(MAKE) --no-print-directory $(if $(wildcard tests/fakefs/fakefs.c),$(FAKEFS))
	@mkdir -p $(ARM64_WRAP)/tests
	@for b in wakebench $(patsubst $(ARM64_WRAP)/%,%,$(ARM64_UNIT)) tests/skip-only; do \
		printf '#!/bin/sh\nexec %s -L %s %s "$$@"\n' '$(QEMU_AARCH64)' \
			'$(ARM64_SYSROOT)' '$(abspath $(ARM64_BUILD))/'"$$b" >$(ARM64_WRAP)/$$b; \
		chmod +x $(ARM64_WRAP)/$$b; \
	done
	@$(call run_lanes,WAKEBENCH=$(abspath $(ARM64_WRAP)/wakebench) \
		WAKEBENCH_EMULATOR=qemu-user WAKEBENCH_FAKEFS=$(abspath $(FAKEFS)) \
		WAKEBENCH_SRC=$(CURDIR) WB_T3015_ROUNDS=20,$(ARM64_UNIT) $(ARM64_E2E))

COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions

install: wakebench
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/wakebench
	install -m 0644 doc/wakebench.1 $(DESTDIR)$(MANDIR)/wakebench.1
	install -m 0644 contrib/completion/wakebench.bash $(DESTDIR)$(COMPLETIONDIR)/wakebench

# doc/commands.md and doc/wakebench.1 from the binary's -h and list, and every
# output example in README.md and doc/*.md from the binary (scripts/doc-examples.sh:
# the synthetic stores need t-store, the features examples the FUSE stand-in).
docs: wakebench $(BUILD)/tests/t-store $(if $(wildcard tests/fakefs/fakefs.c),$(FAKEFS))
	WAKEBENCH_FAKEFS=$(abspath $(FAKEFS)) sh scripts/gen-docs.sh $(abspath $(BIN))

# Every C file of the tree, formatted by Debian's clang-format against .clang-format;
# format-check (CI) fails on any file that clang-format would change, and says which.
FORMAT_FILES = $(sort $(shell find src tests fuzz bench -name '*.[ch]'))
CLANG_FORMAT ?= clang-format

format:
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check:
	@sh scripts/deps.sh format
	@$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES) || \
		{ echo "format-check: run 'make format' (clang-format $$($(CLANG_FORMAT) --version | \
			sed -n 's/.*version \([0-9.]*\).*/\1/p'))" >&2; exit 1; }

# ---- fuzzing (fuzz/README.md) ----
# libwakebench again, built by clang with coverage for libFuzzer plus ASan and UBSan, in its
# own directory; each fuzz/fuzz-NAME.c links with it into build-fuzz/fuzz-NAME. `make fuzz`
# runs every target for FUZZ_SECONDS on a copy of its seed corpus fuzz/corpus/NAME/ and
# fails on any crash, leak, timeout or sanitizer report (fuzz/run.sh).
FUZZ_CC ?= clang
FUZZ_CFLAGS ?= -O1 -g
FUZZ_SECONDS ?= 30
FUZZ_SEED ?= 1
FUZZ_BUILD := build-fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_ALL_CFLAGS = $(WARN) $(CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_SAN) -D_GNU_SOURCE -iquote src $(PKG_CFLAGS) -MMD -MP
FUZZ_OBJS := $(SRCS:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_LIB := $(FUZZ_BUILD)/libwakebench.a
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz-*.c))
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=$(FUZZ_BUILD)/%)

$(FUZZ_BUILD)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(msg) "  CC      $@"
	$(Q)$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz-%: fuzz/fuzz-%.c fuzz/fuzz.h fuzz/import.h $(FUZZ_LIB)
	$(msg) "  CCLD    $@"
	$(Q)$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LDFLAGS) $(LIBS)

fuzz-build: $(FUZZ_BINS)

fuzz:
	@sh scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) fuzz-build
	@sh fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_SEED) $(FUZZ_BINS)

# Regenerate the seeds that are not copies of fixtures (vm captures, stores): fuzz/README.md.
fuzz-corpus: $(BIN)
	@mkdir -p $(BUILD)/fuzz
	$(Q)$(CC) $(ALL_CFLAGS) -o $(BUILD)/fuzz/mkseed fuzz/mkseed.c $(LIB) $(ALL_LDFLAGS) $(LIBS)
	sh fuzz/make-corpus.sh $(BUILD)/fuzz/mkseed $(BIN)

# The Debian packages (debian/, scripts/deb.sh): this machine's architecture and,
# on amd64, arm64, built from a clean copy of the tree into build-deb/, each
# lintian-clean; deb-check (CI) also checks that two builds are identical and
# runs the package's autopkgtest in a fresh Debian root.
deb:
	@sh scripts/deb.sh build

deb-check:
	@sh scripts/deb.sh check

clean:
	rm -rf build build-san build-fuzz build-aarch64 build-aarch64-san build-deb wakebench

-include $(OBJS:.o=.d) $(BUILD)/src/main.d
ifneq ($(filter fuzz fuzz-build $(FUZZ_BUILD)/%,$(MAKECMDGOALS)),)
-include $(FUZZ_OBJS:.o=.d) $(FUZZ_BINS:=.d)
endif
