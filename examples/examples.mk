# examples/examples.mk - the examples, included by the Makefile.
#
#   make examples        every examples/*.c into $(BUILD)/examples/, linked with -lcubind only (and the
#                        units of examples/common/ it uses)
#   make test-examples   builds them (also with clang -Werror, into $(BUILD)/examples/clang/, when there
#                        is a clang), and fails when an example needs a CUDA library (readelf -d):
#                        they must reach CUDA through cubind alone.
# They run from a copied build/ ($$ORIGIN/../lib); on a GPU machine tests/gpu/run.sh runs them.

EXAMPLE_SOURCES := $(wildcard examples/*.c)
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SOURCES))
EXAMPLE_HEADERS := $(wildcard examples/*.h examples/common/*.h)
CLANG := $(shell command -v clang 2> /dev/null)
CLANG_EXAMPLES := $(if $(CLANG),$(patsubst examples/%.c,$(BUILD)/examples/clang/%,$(EXAMPLE_SOURCES)))
# Only cubind's headers (the built tree) and only libcubind: no NVIDIA header, no -lcudart.
EXAMPLE_CFLAGS = $(WARNINGS) $(CFLAGS) -I$(BUILD)/include
EXAMPLE_LIBS = -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../lib' -lm
EXAMPLE_DEPS = $(EXAMPLE_HEADERS) $(LIBRARY_SO) $(BUILT_HEADERS) Makefile examples/examples.mk
# Libraries an example must not need (readelf -d NEEDED): it would bypass cubind's loader.
CUDA_LIBRARY_PATTERN := lib(cudart|cuda|cublas|cublasLt|cufft|curand|cusolver|cusolverMg|cusparse|nvrtc|nvJitLink|nccl|cudnn)[._]

# The units of examples/common/ that an example is built with besides its own source.
SLAB_UNIT := examples/common/allreduce_slab.c
$(BUILD)/examples/allreduce_matmul $(BUILD)/examples/clang/allreduce_matmul: $(SLAB_UNIT)

.PHONY: examples test-examples

examples: $(EXAMPLES)

$(BUILD)/examples/%: examples/%.c $(EXAMPLE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) $(SAN_FLAGS) $(filter %.c,$^) -o $@ $(EXAMPLE_LIBS) $(LDFLAGS_SAN)

$(BUILD)/examples/clang/%: examples/%.c $(EXAMPLE_DEPS)
	@mkdir -p $(dir $@)
	clang $(EXAMPLE_CFLAGS) $(filter %.c,$^) -o $@ $(EXAMPLE_LIBS)

test-examples: $(EXAMPLES) $(CLANG_EXAMPLES)
	@if [ -n "$(CLANG)" ]; then echo "examples: built with clang -Werror too"; \
	else echo "examples: no clang, built with $(CC) only"; fi
	@for example in $(EXAMPLES); do \
	    needed=$$(readelf -d $$example | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' '); \
	    if echo "$$needed" | tr ' ' '\n' | grep -E '^$(CUDA_LIBRARY_PATTERN)'; then \
	        echo "$$example needs a CUDA library: $$needed"; exit 1; fi; \
	    echo "$$example needs: $$needed"; \
	done
