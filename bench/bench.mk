# bench/bench.mk - benchmarks, included by the Makefile. Not part of `make test`, which
# only builds the programs (test-bench-build), so that they keep compiling.
#
#   make bench           every row of docs/benchmarks.md (callgrind, strace, timings), and
#                        rewrites that file with the figures, the machine, the date and the command
#   make bench-generate  only the `make generate` timing (BENCH_GENERATE_RUNS runs, median)
#   make bench-ffi       only the FFI start rows: the CPU time cffi and LuaJIT take to parse
#                        cdef/cubind.h and cdef/common.h + cdef/$(BENCH_FFI_MODULE).h (BENCH_FFI_RUNS
#                        fresh processes each, median)
#   make bench-size      only the size rows: stripped sizes of the full library, subsets and a program
#                        embedding the cuFFT-only amalgamation, with and without tracing (bench/sizes.py)

BENCH_DIR := $(BUILD)/bench
BENCH_CALLEE := $(BENCH_DIR)/callee/libcublas.so.13
BENCH_CFLAGS := $(ALL_CFLAGS) -I$(BUILD)/include -Ibench
BENCH_CUBIND_LIBS := -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../lib' $(LDFLAGS_SAN)
BENCH_PROGRAMS := $(addprefix $(BENCH_DIR)/,calls census empty empty_cubind cufft_cubind cufft_bare wrapper_overhead \
                  calls_dropin empty_dropin)
BENCH_GENERATE_RUNS ?= 5
BENCH_FFI_RUNS ?= 5
BENCH_FFI_MODULE ?= cufft
BENCH_FFI_ARGS = --ffi-runs $(BENCH_FFI_RUNS) --ffi-module $(BENCH_FFI_MODULE)

.PHONY: bench bench-generate bench-ffi test-bench-build deps-bench deps-bench-ffi

# An empty libcublas.so.13: the callee of the per-call rows.
$(BENCH_CALLEE): bench/callee.c $(LINK_FLAGS_FILES) bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libcublas.so.13 -o $@ $< $(LDFLAGS_SAN)

$(BENCH_DIR)/calls: bench/calls.c bench/calls_inline.c $(BENCH_CALLEE) $(LIBRARY_SO) $(BUILT_HEADERS) bench/bench.mk
	$(CC) $(BENCH_CFLAGS) $< bench/calls_inline.c -o $@ -L$(dir $(BENCH_CALLEE)) -l:libcublas.so.13 -Wl,-rpath,'$$ORIGIN/callee' \
	    $(BENCH_CUBIND_LIBS) -ldl

$(BENCH_DIR)/census $(BENCH_DIR)/cufft_cubind $(BENCH_DIR)/wrapper_overhead: $(BENCH_DIR)/%: bench/%.c bench/maps.h \
        $(LIBRARY_SO) $(BUILT_HEADERS) bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) $< -o $@ $(BENCH_CUBIND_LIBS) -ldl

$(BENCH_DIR)/cufft_bare: bench/cufft_bare.c bench/maps.h bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) $< -o $@ -ldl $(LDFLAGS_SAN)

# The same empty program, not linked to libcubind and linked to it (never called: --no-as-needed),
# both with the run path that finds build/lib: the difference is libcubind's, not the run path's.
$(BENCH_DIR)/empty: bench/empty.c bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $< -o $@ -Wl,-rpath,'$$ORIGIN/../lib' $(LDFLAGS_SAN)
$(BENCH_DIR)/empty_cubind: bench/empty.c $(LIBRARY_SO) bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $< -o $@ -Wl,--no-as-needed $(BENCH_CUBIND_LIBS)

# The drop-in's rows (docs/dropin.md): a call by NVIDIA's name through libcubind-dropin, and the
# empty program linked to it (never called).
$(BENCH_DIR)/calls_dropin: bench/calls_dropin.c $(DROPIN_SO) $(BUILT_HEADERS) bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) $< -o $@ -L$(BUILD)/lib -lcubind-dropin $(BENCH_CUBIND_LIBS)
$(BENCH_DIR)/empty_dropin: bench/empty.c $(DROPIN_SO) bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $< -o $@ -Wl,--no-as-needed -L$(BUILD)/lib -lcubind-dropin $(BENCH_CUBIND_LIBS)

test-bench-build: $(BENCH_PROGRAMS)
	@$(RESULTS) passed test-bench-build

bench: deps-generator deps-bench deps-bench-ffi $(BENCH_PROGRAMS)
	$(PYTHON) bench/report.py --build $(BUILD) --generate-runs $(BENCH_GENERATE_RUNS) $(BENCH_FFI_ARGS) --out docs/benchmarks.md

# Stripped sizes of the full library, subsets and an embedding program, traced and not (bench/sizes.py).
bench-size: deps-generator
	$(PYTHON) bench/sizes.py --build $(BUILD) --out $(BENCH_DIR)/size.md

bench-generate: deps-generator
	$(PYTHON) bench/report.py --generate-only --generate-runs $(BENCH_GENERATE_RUNS) --out $(BENCH_DIR)/generate.md

bench-ffi: deps-bench-ffi
	$(PYTHON) bench/report.py --ffi-only $(BENCH_FFI_ARGS) --out $(BENCH_DIR)/ffi.md

deps-bench:
	@sh tools/install-deps.sh valgrind strace binutils
deps-bench-ffi:
	@sh tools/install-deps.sh luajit python3-cffi

# On the GPU (issue 8): make bench-gpu-build (test-bench-build builds it too), make bench-gpu.
include bench/bench_gpu.mk
