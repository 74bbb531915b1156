# mpilens: one Makefile for the serial tool, the MPI benchmark and the tests.
# Targets: all demo check bench asan clean regen-golden deps install uninstall man
include config.mk

CFLAGS  := -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(SANFLAGS) $(PKG_CFLAGS) -MMD -MP -I.
LDFLAGS := $(SANFLAGS)
LIBS    := $(PKG_LIBS)

LIB_SRC   := $(sort $(wildcard common/*.c analysis/*/*.c render/*/*.c))
CLI_SRC   := $(sort $(wildcard cli/*.c))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# perf_*.c are timing drivers for `make bench`, built but never run by `make check`.
PERF_SRC  := $(sort $(wildcard tests/perf_*.c))
PERF_BIN  := $(PERF_SRC:tests/%.c=$(BUILD)/tests/%)
LIBMPILENS := $(BUILD)/lib/libmpilens.a
MPILENS   := $(BUILD)/bin/mpilens
CMD_TABLE := $(BUILD)/gen/commands.h

.PHONY: all deps deps-test check test-only asan demo bench clean regen-golden
all: $(MPILENS) $(TEST_BIN) $(PERF_BIN) bench-all

deps:
	@scripts/install-deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c $< -o $@

$(LIBMPILENS): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

# The subcommand table is the list of LENS_COMMAND(name, ...) lines in cli/cmd_*.c, so
# adding a subcommand is adding a file.
$(CMD_TABLE): $(CLI_SRC) Makefile
	@mkdir -p $(dir $@)
	@grep -h '^LENS_COMMAND(' $(CLI_SRC) | sed -E 's/^LENS_COMMAND\(([a-z_0-9]+),.*/X(\1)/' | sort > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/cli/main.o: $(CMD_TABLE)
$(BUILD)/obj/cli/main.o: CFLAGS += -I$(BUILD)/gen

$(MPILENS): $(CLI_OBJ) $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBMPILENS) $(LIBS)

$(BUILD)/tests/%: tests/%.c $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -o $@ $< $(LIBMPILENS) $(LIBS)

# bench/*.mk (MPI programs, the trace library, sample applications) add their own rules and
# append their outputs to bench-all; they build with $(MPICC) and may link $(LIBMPILENS).
bench-all:
-include $(sort $(wildcard bench/*.mk))

check: deps-test all
	@tests/run.sh $(BUILD)

deps-test:
	@scripts/install-deps.sh --test

# Runs the suite on a build made with AddressSanitizer and UndefinedBehaviorSanitizer.
asan:
	@scripts/install-deps.sh --test
	$(MAKE) BUILD=build-asan SAN=1 OPT="-O1 -g" all
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp UBSAN_OPTIONS=print_stacktrace=1 tests/run.sh build-asan

demo: deps all
	@scripts/demo.sh $(BUILD)

bench: deps all
	@scripts/bench.sh $(BUILD)

regen-golden: all
	@REGEN_GOLDEN=1 tests/run.sh $(BUILD)

clean:
	rm -rf build build-asan out

# ---- install / uninstall (docs/install.md) ----
# GNU conventions: PREFIX (or prefix), DESTDIR, mandir, docdir. bin/, lib/mpilens and
# share/mpilens stay under one prefix: an installed mpilens finds its files relative to its
# executable (common/datadir.h), so the installed tree can be copied or moved as a whole.
# scripts/install.sh records what it writes in share/mpilens/install-manifest for uninstall.
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
datarootdir ?= $(prefix)/share
mandir      ?= $(datarootdir)/man
docdir      ?= $(datarootdir)/doc/mpilens
INSTALL     ?= install
MAN_PAGES   := $(BUILD)/man/mpilens.1 $(BUILD)/man/mpilens-bench.1
INSTALL_ENV  = BUILD="$(BUILD)" DESTDIR="$(DESTDIR)" prefix="$(prefix)" mandir="$(mandir)" \
               docdir="$(docdir)" INSTALL="$(INSTALL)"

.PHONY: install uninstall man
man: $(MAN_PAGES)

# man pages from --help (help2man); mpilens's lists every subcommand's help
$(BUILD)/man/%.1: $(BUILD)/bin/% scripts/manpage.sh
	@echo "  MAN     $@"
	@scripts/manpage.sh $< $@

install: $(MPILENS) $(MPILENS_BENCH) $(TRACE_SO) $(TRACE_RECOVER) $(MAN_PAGES)
	@$(INSTALL_ENV) scripts/install.sh install

uninstall:
	@$(INSTALL_ENV) scripts/install.sh uninstall

# ---- fuzzing (docs/fuzz.md) ----
# Each tests/fuzz/fuzz_<target>.c defines LLVMFuzzerTestOneInput. `make all` links every one
# with tests/fuzz/replay_main.c using $(CC) (no clang needed), and tests/test_fuzz_replay.sh
# (run by make check and make asan) replays the seed corpus and every past crash through them.
# `make fuzz` builds them with clang and libFuzzer in $(FUZZ_BUILD) and runs each target for
# FUZZ_SECONDS; `make fuzz FUZZ_TARGETS="cube rules"` runs only those.
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_DEPS    := tests/fuzz/fuzz_common.h tests/synth_otf2.h
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_BUILD   ?= build/libfuzzer
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
.PHONY: fuzz fuzz-build clean-fuzz
all: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/replay_%)

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(FUZZ_DEPS) $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -o $@ $< tests/fuzz/replay_main.c $(LIBMPILENS) $(LIBS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DEPS) $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	@$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -fsanitize=fuzzer -o $@ $< $(LIBMPILENS) $(LIBS)

fuzz-build: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)

fuzz:
	@scripts/install-deps.sh --fuzz
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT="-O1 -g" SANFLAGS="$(FUZZ_SAN)" fuzz-build
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean-fuzz:
	rm -rf $(FUZZ_BUILD)

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_BIN:=.d) $(PERF_BIN:=.d)
