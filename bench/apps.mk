# Sample MPI applications for `mpilens scale run` (dot product, matrix-vector, matrix
# multiplication, Jacobi), each built from one bench/apps/NAME.c into $(BUILD)/bin/apps/NAME.
# They print "mpilens-time: SECONDS" (see bench/apps/app.h). Built without sanitizers: they
# run under mpirun, where Open MPI's own allocations would drown the reports.
APPS_SRC := $(sort $(wildcard bench/apps/*.c))
APPS_BIN := $(APPS_SRC:bench/apps/%.c=$(BUILD)/bin/apps/%)

$(BUILD)/bin/apps/%: bench/apps/%.c bench/apps/app.h
	@mkdir -p $(dir $@)
	@echo "  MPICC   $@"
	@$(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) $< -o $@ -lm

bench-all: $(APPS_BIN)
