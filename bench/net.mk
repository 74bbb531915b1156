# mpilens-bench: the MPI collector (all-pairs cube and p2p sweep), built with $(MPICC).
# Only these files: the trace collector (bench/trace/) has bench/trace.mk, the sample applications samples.mk.
BENCH_SRC := $(addprefix bench/net/,main.c opts.c estimate.c estimate_run.c job.c job_prov.c ctx.c schedule.c mode.c allpairs.c p2p.c p2p_out.c stats.c fatal.c retest.c bisection.c bisect_run.c ncwrite.c)
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/obj/%.o)
MPILENS_BENCH := $(BUILD)/bin/mpilens-bench

# Parallel-NetCDF (libpnetcdf-dev, built on Open MPI like $(MPICC)): each rank writes its own
# rows of the cube (ncwrite.c). Found by pkg-config when the recipe below runs, never while make
# parses (a fresh machine has no package yet: config.mk's PKG_MK does the same); scripts/
# install-deps.sh installs it, and a machine without it builds the gather to rank 0 instead.
BENCH_PNC_MK := $(BUILD)/config.pnetcdf.mk
ifneq ($(if $(MAKECMDGOALS),$(filter-out $(NO_PKG_GOALS),$(MAKECMDGOALS)),all),)
-include $(BENCH_PNC_MK)
endif
$(BENCH_PNC_MK): $(PKG_MK) bench/net.mk
	@mkdir -p $(dir $@)
	@if pkg-config --exists pnetcdf; then \
	    printf 'BENCH_PNC_CFLAGS := -DLENS_HAVE_PNETCDF %s\nBENCH_PNC_LIBS := %s\n' \
	        "$$(pkg-config --cflags pnetcdf)" "$$(pkg-config --libs pnetcdf)"; \
	else \
	    echo "mpilens: no PnetCDF (libpnetcdf-dev): mpilens-bench gathers the cube to rank 0" >&2; \
	    printf 'BENCH_PNC_CFLAGS :=\nBENCH_PNC_LIBS :=\n'; \
	fi >$@.tmp && mv $@.tmp $@

$(BENCH_OBJ): $(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  MPICC   $<"
	@$(MPICC) $(CFLAGS) $(BENCH_PNC_CFLAGS) -c $< -o $@

# the two files that differ with and without PnetCDF follow its detection
$(BUILD)/obj/bench/net/ncwrite.o $(BUILD)/obj/bench/net/allpairs.o: $(BENCH_PNC_MK)

$(MPILENS_BENCH): $(BENCH_OBJ) $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(MPICC) $(LDFLAGS) -o $@ $(BENCH_OBJ) $(LIBMPILENS) $(BENCH_PNC_LIBS) $(LIBS)

bench-all: $(MPILENS_BENCH)

-include $(BENCH_OBJ:.o=.d)

# The schedule is serial code: its unit test links the object without MPI.
$(BUILD)/tests/test_bench_schedule: tests/test_bench_schedule.c $(BUILD)/obj/bench/net/schedule.o $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -o $@ $< $(BUILD)/obj/bench/net/schedule.o $(LIBMPILENS) $(LIBS)

# The retest choice and the bisection rounds are serial code too: their tests link the
# objects without MPI.
$(BUILD)/tests/test_bench_retest_pick: tests/test_bench_retest_pick.c $(BUILD)/obj/bench/net/retest.o $(BUILD)/obj/bench/net/stats.o $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -o $@ $< $(BUILD)/obj/bench/net/retest.o $(BUILD)/obj/bench/net/stats.o $(LIBMPILENS) $(LIBS)

$(BUILD)/tests/test_bench_bisection: tests/test_bench_bisection.c $(BUILD)/obj/bench/net/bisection.o $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -o $@ $< $(BUILD)/obj/bench/net/bisection.o $(LIBMPILENS) $(LIBS)

# The estimate's model is serial arithmetic too: its test links the object without MPI.
$(BUILD)/tests/test_bench_estimate_model: tests/test_bench_estimate_model.c $(BUILD)/obj/bench/net/estimate.o $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -o $@ $< $(BUILD)/obj/bench/net/estimate.o $(LIBMPILENS) $(LIBS)
$(BUILD)/tests/test_bench_retest_rows: tests/test_bench_retest_rows.c $(BUILD)/obj/bench/net/retest.o $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS) -o $@ $< $(BUILD)/obj/bench/net/retest.o $(LIBMPILENS) $(LIBS)
