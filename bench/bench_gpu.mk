# bench/bench_gpu.mk - the GPU benchmarks of issue 8 ("On the GPU"), included by bench/bench.mk.
#
#   make bench-gpu-build  compiles bench/gpu/*.c into $(BUILD)/bench/gpu/ (no GPU needed; test-bench-build
#                         builds it, and checks the sources with the other compiler too)
#   make bench-gpu        on a GPU machine: builds, then bench/gpu/run.sh, which prints a Markdown section for
#                         docs/benchmarks.md (kept in $(BUILD)/bench/gpu/results.md)
#
# A GPU machine without a compiler needs only $(BUILD)/lib and $(BUILD)/bench/gpu: sh bench/gpu/run.sh BUILD.
#   calls          cheap calls through cubind and directly, in one process: linked to libcubind and to
#                  libcublas and libcudart
#   epilog         the fused epilogues, every call through cubind: linked to libcubind only
#   epilog_direct  the same source with -DCUBIND_BENCH_DIRECT (bench/gpu/direct.h): NVIDIA's functions, linked
#                  directly (libcuda through the toolkit's link stub; the driver's own at run time)

BENCH_GPU_DIR := $(BENCH_DIR)/gpu
BENCH_GPU_PROGRAMS := $(addprefix $(BENCH_GPU_DIR)/,calls epilog epilog_direct)
BENCH_GPU_DEPS = bench/gpu/bench_gpu.h bench/gpu/direct.h examples/check.h $(LIBRARY_SO) $(BUILT_HEADERS) \
                 bench/bench_gpu.mk
BENCH_GPU_CUBIND_LIBS = -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../../lib'
BENCH_GPU_CUDA_LIBS = -L$(CUDA_PATH)/lib64 -Wl,-rpath,$(CUDA_PATH)/lib64
# Each program's source and compiler flags (also used for the other compiler's check below).
BENCH_GPU_SOURCE_calls := bench/gpu/calls.c bench/gpu/calls_inline.c
BENCH_GPU_SOURCE_epilog := bench/gpu/epilog.c
BENCH_GPU_SOURCE_epilog_direct := bench/gpu/epilog.c
BENCH_GPU_FLAGS_calls = -I$(BUILD)/include -Ibench/gpu -Iexamples -isystem $(CUDA_PATH)/include
BENCH_GPU_FLAGS_epilog = -I$(BUILD)/include -Ibench/gpu -Iexamples
BENCH_GPU_FLAGS_epilog_direct = -DCUBIND_BENCH_DIRECT -Ibench/gpu -isystem $(CUDA_PATH)/include

.PHONY: bench-gpu-build bench-gpu

$(BENCH_GPU_DIR)/calls: bench/gpu/calls.c bench/gpu/calls_inline.c bench/gpu/calls.h $(BENCH_GPU_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(BENCH_GPU_FLAGS_calls) $< bench/gpu/calls_inline.c -o $@ $(BENCH_GPU_CUBIND_LIBS) $(BENCH_GPU_CUDA_LIBS) \
	    -lcublas -lcudart $(LDFLAGS_SAN)

$(BENCH_GPU_DIR)/epilog: bench/gpu/epilog.c $(BENCH_GPU_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(BENCH_GPU_FLAGS_epilog) $< -o $@ $(BENCH_GPU_CUBIND_LIBS) -lm $(LDFLAGS_SAN)

$(BENCH_GPU_DIR)/epilog_direct: bench/gpu/epilog.c $(BENCH_GPU_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(BENCH_GPU_FLAGS_epilog_direct) $< -o $@ $(BENCH_GPU_CUDA_LIBS) \
	    -L$(CUDA_PATH)/lib64/stubs -lcublasLt -lcudart -lnvrtc -lcuda -lm $(LDFLAGS_SAN)

# What the results name as the build: the commit (and whether the tree had uncommitted changes) and the compiler.
$(BENCH_GPU_DIR)/build-info.txt: $(BENCH_GPU_PROGRAMS)
	{ git rev-parse --short HEAD 2>/dev/null || echo "unknown commit"; } | tr -d '\n' > $@
	@if [ -n "$$(git status --porcelain 2>/dev/null)" ]; then printf ' + uncommitted changes' >> $@; fi
	printf ', %s\n' "$$($(CC) --version | head -n 1)" >> $@

bench-gpu-build: $(BENCH_GPU_PROGRAMS) $(BENCH_GPU_DIR)/build-info.txt
	@if command -v $(OTHER_CC) > /dev/null; then \
	    $(foreach p,calls epilog epilog_direct,$(OTHER_CC) $(WARNINGS) $(CFLAGS) -fsyntax-only $(BENCH_GPU_FLAGS_$(p)) \
	        $(BENCH_GPU_SOURCE_$(p)) &&) echo "bench-gpu-build: the sources compile with $(OTHER_CC) -Werror too"; \
	else echo "bench-gpu-build: no $(OTHER_CC), built with $(CC) only"; fi

test-bench-build: bench-gpu-build

bench-gpu: bench-gpu-build
	sh bench/gpu/run.sh $(BUILD) > $(BENCH_GPU_DIR)/results.md; status=$$?; cat $(BENCH_GPU_DIR)/results.md; \
	    echo "bench-gpu: the section above is in $(BENCH_GPU_DIR)/results.md"; exit $$status
