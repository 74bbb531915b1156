# The one kit of sample MPI applications, samples/apps/NAME.c, each built into
# $(BUILD)/bin/samples/NAME: the programs `mpilens scale run` measures (dot, matvec, matmul,
# jacobi; they print "mpilens-time: SECONDS", see samples/apps/app.h), the two Jacobi versions
# of Dergunov's experiment and one program per performance problem. Built without sanitizers
# (they run under mpirun, where Open MPI's own allocations would drown the reports), with -g so
# call sites resolve to lines.
SAMPLES_SRC := $(sort $(wildcard samples/apps/*.c))
SAMPLES_BIN := $(SAMPLES_SRC:samples/apps/%.c=$(BUILD)/bin/samples/%)

$(BUILD)/bin/samples/%: samples/apps/%.c $(wildcard samples/apps/*.h)
	@mkdir -p $(dir $@)
	@echo "  MPICC   $@"
	@$(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) $< -o $@ -lm

bench-all: $(SAMPLES_BIN)
