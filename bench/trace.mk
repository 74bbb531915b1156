# The trace collector: $(BUILD)/lib/libmpilens-trace.so (PMPI wrappers + OTF2 writer, built
# with $(MPICC) from position-independent objects of its own), the serial recovery tool
# $(BUILD)/lib/mpilens-trace-recover, and the MPI test programs tests/mpi/trace_*.c. The
# collector links mpilens-bench's provenance (bench/net/job_prov.c): one wording of the run's facts.
TRACE_SO      := $(BUILD)/lib/libmpilens-trace.so
TRACE_RECOVER := $(BUILD)/lib/mpilens-trace-recover
TRACE_SRC     := bench/trace/trace.c bench/trace/trace_wrap.c bench/trace/trace_coll.c bench/trace/trace_otf2.c bench/trace/trace_defs.c \
                 bench/trace/trace_func.c bench/trace/trace_symbols.c bench/trace/callsite.c bench/trace/clocksync.c \
                 bench/net/job_prov.c \
                 common/err.c common/alloc.c common/atomic.c common/time.c common/units.c
TRACE_PIC     := $(TRACE_SRC:%.c=$(BUILD)/pic/%.o)
TRACE_OTF2     = $(OTF2_LIBS)
TRACE_TESTS   := $(patsubst tests/mpi/%.c,$(BUILD)/tests/mpi/%,$(wildcard tests/mpi/trace_*.c))

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(TRACE_SO): $(TRACE_PIC)
	@mkdir -p $(dir $@)
	$(MPICC) -shared $(LDFLAGS) -o $@ $(TRACE_PIC) $(TRACE_OTF2) -ldl

$(TRACE_RECOVER): bench/trace/trace_recover.c bench/trace/trace_otf2.c bench/trace/trace_defs.c bench/trace/trace_symbols.c bench/trace/callsite.c $(LIBMPILENS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ bench/trace/trace_recover.c bench/trace/trace_otf2.c bench/trace/trace_defs.c bench/trace/trace_symbols.c bench/trace/callsite.c \
	    $(LIBMPILENS) $(TRACE_OTF2) -ldl

# test programs: -O1 keeps the call sites the tests look up on their source lines
$(BUILD)/tests/mpi/trace_%: tests/mpi/trace_%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -O1 -fno-inline -o $@ $<

bench-all: $(TRACE_SO) $(TRACE_RECOVER) $(TRACE_TESTS)

-include $(TRACE_PIC:.o=.d) $(TRACE_TESTS:=.d)

# the same application linked with the collector instead of preloading it
TRACE_LINKED := $(BUILD)/tests/mpi/trace_app_linked
$(TRACE_LINKED): tests/mpi/trace_app.c $(TRACE_SO)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -O1 -fno-inline -DTRACE_INIT_THREAD -o $@ $< \
	    -L$(BUILD)/lib -lmpilens-trace -Wl,-rpath,$(abspath $(BUILD)/lib)
bench-all: $(TRACE_LINKED)

# an application built with -finstrument-functions, for the collector's user-function mode
FUNC_APP := $(BUILD)/tests/mpi/func_app
$(FUNC_APP): tests/mpi/func_app.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -O1 -fno-inline -finstrument-functions -o $@ $<
bench-all: $(FUNC_APP)
