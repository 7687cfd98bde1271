# examples/examples.mk - the examples, included by the Makefile.
#
#   make examples        every examples/*.c into $(BUILD)/examples/, linked with -lcubind only
#   make test-examples   builds them (also with clang -Werror, into $(BUILD)/examples/clang/, when there
#                        is a clang), and fails when an example needs a CUDA library (readelf -d):
#                        they must reach CUDA through cubind alone.
# They run from a copied build/ ($$ORIGIN/../lib); on a GPU machine tests/gpu/run.sh runs them.

EXAMPLE_SOURCES := $(wildcard examples/*.c)
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SOURCES))
EXAMPLE_HEADERS := $(wildcard examples/*.h)
# Only cubind's headers (the built tree) and only libcubind: no NVIDIA header, no -lcudart.
EXAMPLE_CFLAGS = $(WARNINGS) $(CFLAGS) -I$(BUILD)/include
EXAMPLE_LIBS = -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../lib' -lm
# Libraries an example must not need (readelf -d NEEDED): it would bypass cubind's loader.
CUDA_LIBRARY_PATTERN := lib(cudart|cuda|cublas|cublasLt|cufft|curand|cusolver|cusolverMg|cusparse|nvrtc|nvJitLink|nccl|cudnn)[._]

.PHONY: examples test-examples

examples: $(EXAMPLES)

$(BUILD)/examples/%: examples/%.c $(EXAMPLE_HEADERS) $(LIBRARY_SO) $(BUILT_HEADERS) Makefile examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) $(SAN_FLAGS) $< -o $@ $(EXAMPLE_LIBS) $(LDFLAGS_SAN)

test-examples: $(EXAMPLES)
	@if command -v clang > /dev/null; then \
	    mkdir -p $(BUILD)/examples/clang; \
	    for src in $(EXAMPLE_SOURCES); do \
	        clang $(EXAMPLE_CFLAGS) $$src -o $(BUILD)/examples/clang/$$(basename $$src .c) $(EXAMPLE_LIBS) || exit 1; \
	    done; echo "examples: built with clang -Werror too"; \
	else echo "examples: no clang, built with $(CC) only"; fi
	@for example in $(EXAMPLES); do \
	    needed=$$(readelf -d $$example | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' '); \
	    if echo "$$needed" | tr ' ' '\n' | grep -E '^$(CUDA_LIBRARY_PATTERN)'; then \
	        echo "$$example needs a CUDA library: $$needed"; exit 1; fi; \
	    echo "$$example needs: $$needed"; \
	done
	@$(RESULTS) passed test-examples
