# borne: one plain GNU Makefile.  See README.md.
.SUFFIXES:

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# planenc --profile NAME: the installed profiles (also looked for beside
# the binary, BIN/../share/borne/profiles, wherever it was installed).
SHAREDIR ?= $(PREFIX)/share/borne
PROFILEDIR ?= $(SHAREDIR)/profiles
SCDOC ?= scdoc
PROVE ?= prove

# Build variants share the sources and differ in compiler and flags:
#   dyn     the default build (glibc, shared libraries)
#   asan    ASan + UBSan, for make check
#   static  fully static, musl-gcc against libraries rebuilt for musl
VARIANT ?= dyn
B := .build/$(VARIANT)

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
BASE_CFLAGS := -std=c17 -D_GNU_SOURCE -Icommon -ffunction-sections -fdata-sections -MMD -MP
BASE_LDFLAGS := -Wl,--gc-sections
LIBS := -lseccomp -lcap -lnettle -ljansson
# Ed25519 for signed notes (common/note.c): nettle's hogweed, linked only
# into what signs or verifies them; hogweed needs GMP, which the static
# build links statically too (contrib/build-static-deps.sh).
HOGWEED_LIBS := -lseccomp -lcap -lhogweed -lnettle \
	$(if $(filter static,$(VARIANT)),-lgmp) -ljansson
# journalchain serve's HTTP (libmicrohttpd), linked into journalchain only
# (with hogweed: its LIBS below).

MUSL_PREFIX := $(CURDIR)/.build/musl/prefix

ifeq ($(VARIANT),asan)
CC := clang
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
BASE_CFLAGS += $(SAN)
BASE_LDFLAGS += $(SAN)
endif
ifeq ($(VARIANT),static)
CC := musl-gcc
BASE_CFLAGS += -isystem $(MUSL_PREFIX)/kinc -I$(MUSL_PREFIX)/include
BASE_LDFLAGS += -static -L$(MUSL_PREFIX)/lib
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(WARN) $(CFLAGS)

# --version: the repository's version, embedded in the cmd/ objects only
# (common/usage.h has the fallback), so that a new commit rebuilds no
# library object.
BORNE_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
ALL_LDFLAGS = $(BASE_LDFLAGS) $(LDFLAGS)

TOOLS := $(notdir $(wildcard cmd/*))
COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(B)/%.o)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPERS := $(HELPER_SRC:tests/helpers/%.c=$(B)/helpers/%)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNITS := $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)
BINS := $(TOOLS:%=$(B)/bin/%)
MAN_SRC := $(wildcard man/*.scd)
MANS := $(MAN_SRC:man/%.scd=.build/man/%)
FUZZ_SRC := $(wildcard tests/fuzz/*.c)
FUZZERS := $(FUZZ_SRC:tests/fuzz/%.c=.build/fuzz/%)
FUZZ_SECONDS ?= 20

# The profiles and egress-for beside each variant's bin/ as make install
# puts them beside its bin/ (planenc --profile NAME looks in
# BIN/../share/borne/profiles first): the build tree works as installed.
SHARE := $(patsubst contrib/profiles/%,$(B)/share/borne/profiles/%,\
	$(wildcard contrib/profiles/*.profile)) $(B)/share/borne/egress-for

, installed beside confexec: static
# (glibc's libc.a here, musl's in the static variant), no library but
# libc, never sanitized (it runs inside the plans it probes).
CANARY := $(B)/bin/confexec-canary
CANARY_CFLAGS := -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra \
	-Wno-unused-parameter $(if $(filter 1,$(WERROR)),-Werror)
ifeq ($(VARIANT),static)
CANARY_CFLAGS += -isystem $(MUSL_PREFIX)/kinc
endif

all: $(BINS) $(CANARY) $(MANS) $(SHARE)

$(CANARY): cmd/confexec/canary/canary.c cmd/confexec/canary/probes.def
	@mkdir -p $(@D)
	$(CC) $(CANARY_CFLAGS) -static -o $@ $<

# Test builds of confexec with one layer left out at compile time
# (BORNE_WEAK_LANDLOCK, BORNE_WEAK_MOUNTVIEW: cmd/confexec/child.c), which
# the canaries must catch; the probe program beside them, as confexec
# finds its own.
WEAK_LAYERS := landlock mountview
CONFEXEC_OBJ := $(addprefix $(B)/,$(addsuffix .o,$(basename $(wildcard cmd/confexec/*.c))))
$(B)/weak/child-%.o: cmd/confexec/child.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DBORNE_WEAK_$$(echo $* | tr a-z A-Z) -c -o $@ $<

$(B)/helpers/confexec-weak-%: $(filter-out %/child.o,$(CONFEXEC_OBJ)) $(B)/weak/child-%.o $(B)/libcommon.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(B)/libcommon.a $(LIBS) -pthread

$(B)/helpers/confexec-canary: $(CANARY)
	@mkdir -p $(@D)
	cp $< $@

# And one without the check of the rw trees for privileged files
# (BORNE_WEAK_PRIVCHECK: cmd/confexec/privileged.c finds, never strips),
# which the canary's rw-privileged probe must catch; the bench compares
# launches with and without the check.
$(B)/weak/privileged-privcheck.o: cmd/confexec/privileged.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DBORNE_WEAK_PRIVCHECK -c -o $@ $<

$(B)/helpers/confexec-weak-privcheck: $(filter-out %/privileged.o,$(CONFEXEC_OBJ)) $(B)/weak/privileged-privcheck.o $(B)/libcommon.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(B)/libcommon.a $(LIBS) -pthread

WEAK_HELPERS := $(WEAK_LAYERS:%=$(B)/helpers/confexec-weak-%) \
	$(B)/helpers/confexec-weak-privcheck $(B)/helpers/confexec-canary

$(B)/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/cmd/%.o: cmd/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DBORNE_VERSION='"$(BORNE_VERSION)"' \
	    -DBORNE_PROFILE_DIR='"$(PROFILEDIR)"' -c -o $@ $<

# The source directories too: a file removed there relinks without it.
$(B)/libcommon.a: $(COMMON_OBJ) common
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $(filter %.o,$^)

.SECONDEXPANSION:
$(B)/bin/%: $$(addprefix $(B)/,$$(addsuffix .o,$$(basename $$(wildcard cmd/$$*/*.c)))) $(B)/libcommon.a cmd/$$*
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(B)/libcommon.a $(LIBS) -pthread

$(B)/helpers/%: tests/helpers/%.c $(B)/libcommon.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(B)/libcommon.a $(LIBS) -pthread

$(B)/unit/%: tests/unit/%.c $(B)/libcommon.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(B)/libcommon.a $(LIBS) -pthread

$(B)/unit/note: LIBS = $(HOGWEED_LIBS)
$(B)/bin/journalchain: LIBS = -lmicrohttpd $(HOGWEED_LIBS)

# The payload's seccomp programs are compiled with libseccomp at build
# time, one per socket grant (common/gen/sysfilter-gen.c): libseccomp's
# cold compile would otherwise cost confexec milliseconds per run.
$(B)/gen/sysfilter-gen: common/gen/sysfilter-gen.c common/sysfilter.c common/sysfilter.h common/plan.h common/uapi.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DSF_GENERATOR $(ALL_LDFLAGS) -o $@ common/gen/sysfilter-gen.c common/sysfilter.c -lseccomp

$(B)/gen/sysfilter-bpf.h: $(B)/gen/sysfilter-gen
	$< >$@.tmp && mv $@.tmp $@

$(B)/common/sysfilter.o: $(B)/gen/sysfilter-bpf.h
$(B)/common/sysfilter.o: ALL_CFLAGS += -I$(B)/gen

$(B)/share/borne/profiles/%.profile: contrib/profiles/%.profile
	@mkdir -p -m 755 $(@D)
	install -m 644 $< $@

$(B)/share/borne/egress-for: contrib/egress-for.sh
	@mkdir -p -m 755 $(@D)
	install -m 755 $< $@

.build/man/%: man/%.scd
	@mkdir -p $(@D)
	$(SCDOC) < $< > $@

helpers: $(HELPERS) $(WEAK_HELPERS)
units: $(UNITS)

# ---- tests ----
deps:
	@sh contrib/install-deps.sh check

TEST_ENV = BORNE_BIN=$(CURDIR)/$(B)/bin BORNE_HELPERS=$(CURDIR)/$(B)/helpers \
	BORNE_VARIANT=$(VARIANT) BORNE_TOP=$(CURDIR)
ALL_TESTS := $(sort $(wildcard tests/t-*.sh))
# Suites that put the static build in a container image (an image has no
# libc of the host's): they prove the static binaries, so they run once,
# in the static stage of check, not against the dynamic and ASan builds
# too.  Run alone in another variant, they use .build/static (or skip
# when it is not built).
STATIC_ONLY_TESTS := tests/t-confexec-docker.sh tests/t-confexec-podman.sh
TESTS ?= $(filter-out $(STATIC_ONLY_TESTS),$(ALL_TESTS))

# The test files run TEST_JOBS at a time, the slowest first (a long file
# started last would make the whole wait for it), except SERIAL_TESTS,
# which run alone afterwards.  A file may run beside others when it
# keeps its state to itself: files, journals and cgroups under its own
# $$TMP or named with its pid, ports the kernel chose, interfaces and
# addresses named after its pid, /etc/subuid and /etc/subgid edited only
# under /run/lock/borne-subid.lock, the shared image cache used as any
# set of concurrent runs would.  t-confexec-stress (90 s of hundreds of
# runs, reapers and kills at random; each run's and reaper's cgroup its
# own) is such a file: the others run beside it, under its load.
# Serial:
#   t-suidstrip-docker      the docker daemon's containers and images
#   t-confexec-canary-docker
#                           a docker daemon of its own
#   t-suidstrip             its time budget is asserted (--budget 3)
#   t-confexec-control      stops are asserted "at once" (< 3 s)
#   t-confexec-docker, t-confexec-podman
#                           a container engine each, and the static
#                           build's image (the static stage only)
#   t-confexec-handoff-docker
#                           a container engine (seconds: every stage)
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$((n + 1)))
SLOW_TESTS ?= tests/t-confexec-stress.sh tests/t-imgcache.sh \
	tests/t-confexec.sh tests/t-confexec-root.sh \
	tests/t-confexec-egress.sh tests/t-confexec-supervise.sh \
	tests/t-man-examples.sh tests/t-confexec-view.sh tests/t-workloads.sh \
	tests/t-journalchain.sh tests/t-confexec-denials.sh tests/t-jobs.sh
SERIAL_TESTS ?= tests/t-suidstrip-docker.sh tests/t-suidstrip.sh \
	tests/t-confexec-control.sh tests/t-confexec-canary-docker.sh \
	tests/t-confexec-handoff-docker.sh \
	$(STATIC_ONLY_TESTS)
PAR_TESTS = $(foreach t,$(SLOW_TESTS),$(filter $(t),$(TESTS))) \
	$(filter-out $(SLOW_TESTS) $(SERIAL_TESTS),$(TESTS))

# Run the unit tests and the sh tests of one variant: both prove runs
# always run; the target fails when either does.  --timer: each file says
# how long it took (the slow ones are the ones to start first).
test: $(BINS) $(HELPERS) $(UNITS) $(SHARE)
	@rc=0; set -x; \
	$(TEST_ENV) $(PROVE) --timer $(PROVE_FLAGS) -j$(TEST_JOBS) $(PAR_TESTS) \
	    $(UNITS) || rc=1; \
	$(if $(filter $(SERIAL_TESTS),$(TESTS)),$(TEST_ENV) $(PROVE) --timer \
	    $(PROVE_FLAGS) $(filter $(SERIAL_TESTS),$(TESTS)) || rc=1;) \
	exit $$rc

# Every stage (dyn, asan, static: build and tests; fuzz) runs even when
# one before it failed; tests/check.sh prints each one's result, test
# counts and time, and fails when any failed.
check: deps
	@MAKE="$(MAKE)" STATIC_TESTS="$(STATIC_TESTS)" sh tests/check.sh

# The static binaries are proven by the same tests as the dynamic ones,
# tool by tool, and by the container suites (TESTS given on the command
# line: those alone).
STATIC_TESTS ?= $(if $(filter command line,$(origin TESTS)),$(TESTS),$(ALL_TESTS))

# Each boundary broken on purpose, one break at a time (tests/mutate.list),
# in a copy of the tree under .build/mutate: every break must make an
# end-to-end test file fail.  Not part of check (README.md, Tests).
mutate:
	@MAKE="$(MAKE)" sh tests/mutate.sh

# ---- static (musl) ----
$(MUSL_PREFIX)/.done: contrib/build-static-deps.sh
	sh contrib/build-static-deps.sh $(CURDIR)/.build/musl

static: $(MUSL_PREFIX)/.done
	$(MAKE) VARIANT=static $(TOOLS:%=.build/static/bin/%) \
	    .build/static/bin/confexec-canary \
	    $(WEAK_LAYERS:%=.build/static/helpers/confexec-weak-%) \
	    .build/static/helpers/confexec-weak-privcheck \
	    .build/static/helpers/confexec-canary \
	    $(HELPER_SRC:tests/helpers/%.c=.build/static/helpers/%) \
	    $(UNIT_SRC:tests/unit/%.c=.build/static/unit/%)

# ---- VM tier: the static build on Debian's own kernels, in qemu ----
# tests/vm/kernels.sh fetches each series' kernel image (never installed),
# tests/vm/run.sh boots it on a busybox initramfs with a pure cgroup v2
# hierarchy, runs tests/vm/guest-tests.sh and the host suites listed in
# tests/vm/guest.list, and writes one TAP file per suite to
# .build/vm/linux-SERIES/tap/; prove judges them here, then the counts per
# suite and series are printed.
VM_KERNELS ?= 6.1 6.12
VM_TAP = $(VM_KERNELS:%=.build/vm/linux-%/tap/*.tap)
check-vm: static
	@sh contrib/install-deps.sh vm
	sh tests/vm/kernels.sh .build/vm $(VM_KERNELS)
	@set -e; for k in $(VM_KERNELS); do sh tests/vm/run.sh .build/vm $$k; done
	@rc=0; $(PROVE) $(PROVE_FLAGS) -e cat $(VM_TAP) || rc=$$?; \
	    echo "== VM tier, per suite"; \
	    cat $(VM_KERNELS:%=.build/vm/linux-%/summary); exit $$rc

# ---- fuzzing (clang libFuzzer + ASan + UBSan) ----
FUZZ_CFLAGS := -std=c17 -D_GNU_SOURCE -Icommon -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# common/ is compiled once for every target; sysfilter.c embeds the
# seccomp programs the generator compiled.
FUZZ_OBJ := $(COMMON_SRC:%.c=.build/fuzz/%.o)
.build/fuzz/common/%.o: common/%.c .build/dyn/gen/sysfilter-bpf.h
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -MMD -MP -I.build/dyn/gen -c -o $@ $<

.build/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(FUZZ_INC) -o $@ $< $(FUZZ_EXTRA) $(FUZZ_OBJ) \
	    $(HOGWEED_LIBS) -pthread

# journalchain serve's AG-UI request and stream: its own sources beside
# common/.
.build/fuzz/agui: FUZZ_INC := -Icmd/journalchain
.build/fuzz/agui: FUZZ_EXTRA := cmd/journalchain/agui.c cmd/journalchain/runs.c \
    cmd/journalchain/runview.c cmd/journalchain/events.c
.build/fuzz/agui: cmd/journalchain/agui.c cmd/journalchain/runs.c \
    cmd/journalchain/runview.c cmd/journalchain/events.c

# journalchain show's lines: its own sources beside common/.
.build/fuzz/show: FUZZ_INC := -Icmd/journalchain
.build/fuzz/show: FUZZ_EXTRA := cmd/journalchain/show.c \
    cmd/journalchain/events.c cmd/journalchain/verdict.c
.build/fuzz/show: cmd/journalchain/show.c cmd/journalchain/events.c \
    cmd/journalchain/verdict.c

ifneq ($(VARIANT),dyn)
.build/dyn/gen/sysfilter-bpf.h:
	$(MAKE) VARIANT=dyn $@
endif

fuzzers: $(FUZZERS)

# Each fuzzer runs FUZZ_SECONDS on its seed corpus (tests/fuzz/<name>/);
# one target per job (make -j2 fuzz-smoke: two at a time).
fuzz-smoke: $(FUZZERS:%=%.smoke)

.build/fuzz/%.smoke: .build/fuzz/% FORCE
	@c=.build/fuzz/corpus-$*; mkdir -p $$c; \
	echo "fuzz: $* for $(FUZZ_SECONDS)s"; \
	$< -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    $$c tests/fuzz/seeds-$* 2>.build/fuzz/$*.log || \
	    { tail -n 40 .build/fuzz/$*.log; echo "fuzz: $*: FAILED"; exit 1; }; \
	echo "fuzz: $*: $$(grep -E 'stat::number_of_executed_units' \
	    .build/fuzz/$*.log)"

FORCE:

# ---- benchmarks (not tests) ----
# bench/floor: the static vfork+exec floor the launch benchmark compares
# with (not a product binary), linked with glibc's libc.a and, where
# musl-gcc is, with musl's (the libc of the static confexec).
.build/bench/floor: bench/floor.c
	@mkdir -p $(@D)
	$(CC) -O2 -static -o $@ $<
	@if command -v musl-gcc >/dev/null; then \
		echo "musl-gcc -O2 -static -o $@-musl $<"; \
		musl-gcc -O2 -static -o $@-musl $<; \
	else rm -f $@-musl; fi

bench:
	@sh contrib/install-deps.sh bench
	$(MAKE) all helpers .build/bench/floor
	@set -e; for b in bench/*.sh; do \
		echo "== $$b"; $(TEST_ENV) sh $$b; done

demo:
	@sh contrib/install-deps.sh demo
	$(MAKE) all helpers
	$(TEST_ENV) sh contrib/demo.sh

# ---- install ----
# The static build is what gets installed once it has been built (`make
# static`, brought up to date here): no dynamic loader, fewer pages
# touched, a faster launch (README.md, Building).  Otherwise the dynamic
# one.
install: all
	@if [ -d .build/static/bin ]; then \
		$(MAKE) VARIANT=static $(TOOLS:%=.build/static/bin/%) \
		    .build/static/bin/confexec-canary; fi
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	@src=$(B)/bin; [ -d .build/static/bin ] && src=.build/static/bin; \
	echo "install: the binaries of $$src"; \
	for t in $(TOOLS) confexec-canary; do \
		install -m 755 $$src/$$t $(DESTDIR)$(BINDIR)/$$t || exit 1; done
	for m in $(MANS); do s=$${m##*.}; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	$(MAKE) install-profiles

# The planenc profiles (--profile NAME) and the script that derives
# --egress lines from a package manager's own configuration.
install-profiles:
	mkdir -p $(DESTDIR)$(PROFILEDIR)
	for p in contrib/profiles/*.profile; do \
		install -m 644 $$p $(DESTDIR)$(PROFILEDIR)/ || exit 1; done
	install -m 755 contrib/egress-for.sh $(DESTDIR)$(SHAREDIR)/egress-for

uninstall:
	for t in $(TOOLS) confexec-canary; do rm -f $(DESTDIR)$(BINDIR)/$$t; done
	rm -f $(DESTDIR)$(PROFILEDIR)/*.profile $(DESTDIR)$(SHAREDIR)/egress-for
	-rmdir $(DESTDIR)$(PROFILEDIR) $(DESTDIR)$(SHAREDIR)
	for m in $(MANS); do s=$${m##*.}; \
		rm -f $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); done

clean:
	rm -rf .build/dyn .build/asan .build/static .build/man .build/fuzz

# Also drops the rebuilt musl libraries (slow to rebuild).
distclean: clean
	rm -rf .build

format:
	clang-format -i cmd/*/*.c common/*.[ch] tests/helpers/*.c tests/unit/*.c

.PHONY: all helpers units deps test check mutate check-vm static fuzzers fuzz-smoke bench \
	demo install install-profiles uninstall clean distclean format FORCE

# No object is an intermediate file to delete after a link: the next make
# would compile it again (its .d names it).
.SECONDARY:

-include $(shell find .build -name '*.d' 2>/dev/null)
