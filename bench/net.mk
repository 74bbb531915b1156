# mpilens-bench: the MPI collector (all-pairs cube and p2p sweep), built with $(MPICC).
# Only these files: the trace collector (bench/trace/) has bench/trace.mk, the sample applications samples.mk.
BENCH_SRC := $(addprefix bench/net/,main.c opts.c estimate.c estimate_run.c job.c ctx.c schedule.c mode.c allpairs.c p2p.c p2p_out.c stats.c fatal.c retest.c bisection.c bisect_run.c)
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/obj/%.o)
MPILENS_BENCH := $(BUILD)/bin/mpilens-bench

$(BENCH_OBJ): $(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  MPICC   $<"
	@$(MPICC) $(CFLAGS) -c $< -o $@

$(MPILENS_BENCH): $(BENCH_OBJ) $(LIBMPILENS)
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(MPICC) $(LDFLAGS) -o $@ $(BENCH_OBJ) $(LIBMPILENS) $(LIBS)

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
