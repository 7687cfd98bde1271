# examples/examples.mk - the examples, included by the Makefile.
#
#   make examples        every examples/*.c into $(BUILD)/examples/, linked with -lcubind only (and the
#                        units of examples/common/ it uses), and allreduce_launcher_mpi, the MPI build
#                        of allreduce_launcher, where MPI is found (examples-mpi; otherwise a note)
#   make test-examples   builds them (also with clang -Werror, into $(BUILD)/examples/clang/, when there
#                        is a clang), fails when an example needs a CUDA library (readelf -d): they
#                        must reach CUDA through cubind alone; and runs test-launcher
#   make test-launcher   the launcher units (tests/launcher/test_launcher.c, CMocka) and the launcher
#                        runs of tests/launcher/run.sh, under mpirun too: installs Open MPI (deps-mpi)
# They run from a copied build/ ($$ORIGIN/../lib); on a GPU machine tests/gpu/run.sh runs them and
# tests/gpu/launcher.sh runs allreduce_launcher's ranks under each launcher (`make gpu-build` builds
# the MPI build for it).

EXAMPLE_SOURCES := $(wildcard examples/*.c)
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SOURCES))
EXAMPLE_HEADERS := $(wildcard examples/*.h examples/common/*.h)
CLANG := $(shell command -v clang 2> /dev/null)
CLANG_EXAMPLES := $(if $(CLANG),$(patsubst examples/%.c,$(BUILD)/examples/clang/%,$(EXAMPLE_SOURCES)))
# Only cubind's headers (the built tree) and only libcubind: no NVIDIA header, no -lcudart. examples/
# is searched for check.h, which the units of examples/common/ include as "check.h": so do their
# twins, which find examples/nvidia/check.h instead.
EXAMPLE_CFLAGS = $(WARNINGS) $(CFLAGS) -Iexamples -I$(BUILD)/include
EXAMPLE_LIBS = -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../lib' -lm
EXAMPLE_DEPS = $(EXAMPLE_HEADERS) $(LIBRARY_SO) $(BUILT_HEADERS) Makefile examples/examples.mk
# Libraries an example must not need (readelf -d NEEDED): it would bypass cubind's loader.
CUDA_LIBRARY_PATTERN := lib(cudart|cuda|cublas|cublasLt|cufft|curand|cusolver|cusolverMg|cusparse|nvrtc|nvJitLink|nccl|cudnn)[._]

# The units of examples/common/ that an example is built with besides its own source.
SLAB_UNIT := examples/common/allreduce_slab.c
LAUNCHER_UNIT := examples/common/launcher.c
ID_EXCHANGE_UNIT := examples/common/id_exchange.c
LAUNCHER_MPI_UNIT := examples/common/launcher_mpi.c
ALLREDUCE_MATMUL_UNITS := $(SLAB_UNIT)
ALLREDUCE_LAUNCHER_UNITS := $(SLAB_UNIT) $(LAUNCHER_UNIT) $(ID_EXCHANGE_UNIT)
$(BUILD)/examples/allreduce_matmul $(BUILD)/examples/clang/allreduce_matmul: $(ALLREDUCE_MATMUL_UNITS)
$(BUILD)/examples/allreduce_launcher $(BUILD)/examples/clang/allreduce_launcher: $(ALLREDUCE_LAUNCHER_UNITS)

# MPI, for allreduce_launcher_mpi and the MPI test driver: `pkg-config mpi` (Debian's Open MPI and
# MPICH), else Open MPI's mpicc. Where neither is, they are not built (a GPU machine may have
# libmpi.so but no headers); test-launcher installs Open MPI first and requires them.
MPI_DEPS := libopenmpi-dev openmpi-bin
MPI_CFLAGS := $(shell pkg-config --cflags mpi 2> /dev/null || mpicc --showme:compile 2> /dev/null)
MPI_LIBS := $(shell pkg-config --libs mpi 2> /dev/null || mpicc --showme:link 2> /dev/null)
MPI_EXAMPLE := $(BUILD)/examples/allreduce_launcher_mpi
MPI_CLANG_EXAMPLE := $(if $(CLANG),$(BUILD)/examples/clang/allreduce_launcher_mpi)
# 1: a missing MPI is an error (the tests), not a note.
EXAMPLES_MPI_REQUIRED ?=

# The launcher tests (tests/launcher/): no CUDA, no cubind.
LAUNCHER_TEST_DIR := $(TEST_BUILD)/launcher
LAUNCHER_TEST := $(LAUNCHER_TEST_DIR)/test_launcher
LAUNCHER_DRIVER := $(LAUNCHER_TEST_DIR)/driver
LAUNCHER_DRIVER_MPI := $(LAUNCHER_TEST_DIR)/driver_mpi
LAUNCHER_TEST_FLAGS = $(ALL_CFLAGS) -Iexamples/common
LAUNCHER_TEST_DEPS = $(wildcard examples/common/*.h) Makefile examples/examples.mk

.PHONY: examples examples-mpi test-examples test-launcher launcher-mpi-programs deps-mpi gpu-build-mpi

examples: $(EXAMPLES) examples-mpi

$(BUILD)/examples/%: examples/%.c $(EXAMPLE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) $(SAN_FLAGS) $(filter %.c,$^) -o $@ $(EXAMPLE_LIBS) $(LDFLAGS_SAN)

$(BUILD)/examples/clang/%: examples/%.c $(EXAMPLE_DEPS)
	@mkdir -p $(dir $@)
	clang $(EXAMPLE_CFLAGS) $(filter %.c,$^) -o $@ $(EXAMPLE_LIBS)

MPI_EXAMPLE_SOURCES := examples/allreduce_launcher.c $(SLAB_UNIT) $(LAUNCHER_UNIT) $(LAUNCHER_MPI_UNIT)
$(MPI_EXAMPLE): $(MPI_EXAMPLE_SOURCES) $(EXAMPLE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -DCUBIND_EXAMPLE_MPI $(MPI_CFLAGS) $(SAN_FLAGS) $(MPI_EXAMPLE_SOURCES) -o $@ \
	    $(EXAMPLE_LIBS) $(MPI_LIBS) $(LDFLAGS_SAN)
$(BUILD)/examples/clang/allreduce_launcher_mpi: $(MPI_EXAMPLE_SOURCES) $(EXAMPLE_DEPS)
	@mkdir -p $(dir $@)
	clang $(EXAMPLE_CFLAGS) -DCUBIND_EXAMPLE_MPI $(MPI_CFLAGS) $(MPI_EXAMPLE_SOURCES) -o $@ $(EXAMPLE_LIBS) $(MPI_LIBS)

$(LAUNCHER_TEST): tests/launcher/test_launcher.c $(LAUNCHER_UNIT) $(ID_EXCHANGE_UNIT) $(LAUNCHER_TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LAUNCHER_TEST_FLAGS) $(filter %.c,$^) -o $@ -lcmocka $(LDFLAGS_SAN)
$(LAUNCHER_DRIVER): tests/launcher/driver.c $(LAUNCHER_UNIT) $(ID_EXCHANGE_UNIT) $(LAUNCHER_TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LAUNCHER_TEST_FLAGS) $(filter %.c,$^) -o $@ $(LDFLAGS_SAN)
$(LAUNCHER_DRIVER_MPI): tests/launcher/driver.c $(LAUNCHER_UNIT) $(LAUNCHER_MPI_UNIT) $(LAUNCHER_TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(LAUNCHER_TEST_FLAGS) -DCUBIND_EXAMPLE_MPI $(MPI_CFLAGS) $(filter %.c,$^) -o $@ $(MPI_LIBS) $(LDFLAGS_SAN)

ifneq ($(strip $(MPI_LIBS)),)
examples-mpi: $(MPI_EXAMPLE)
launcher-mpi-programs: $(MPI_EXAMPLE) $(MPI_CLANG_EXAMPLE) $(LAUNCHER_DRIVER_MPI)
else
examples-mpi launcher-mpi-programs:
	@echo "examples: no MPI (neither pkg-config mpi nor mpicc): $(MPI_EXAMPLE) not built"
	@$(if $(EXAMPLES_MPI_REQUIRED),exit 1,true)
endif

# The examples' twins with NVIDIA's names ($(GENERATED)/examples/nvidia/, generated from the examples by
# generator/twins.py; docs/dropin.md), into $(BUILD)/examples/nvidia/: each built as its example is, from
# the twins of its units where they have one (a unit that names nothing of cubind is its own twin),
# against NVIDIA's headers with examples/nvidia/ (its hand-written check.h) before examples/ on the
# include path, and linked with the drop-in alone. make test-dropin builds and runs them (on the
# mocks; tests/gpu/dropin.sh on a GPU); the MPI build of allreduce_launcher's twin where MPI is found.
TWIN_SOURCE_DIR := $(GENERATED)/examples/nvidia
EXAMPLE_TWINS := $(patsubst $(TWIN_SOURCE_DIR)/%.c,$(BUILD)/examples/nvidia/%,$(wildcard $(TWIN_SOURCE_DIR)/*.c))
twin_of = $(foreach unit,$(1),$(or $(wildcard $(TWIN_SOURCE_DIR)/$(unit:examples/%=%)),$(unit)))
TWIN_CFLAGS = $(WARNINGS) $(CFLAGS) -isystem $(CUDA_PATH)/include -Iexamples/nvidia -Iexamples
TWIN_LIBS = -L$(BUILD)/lib -lcubind-dropin -Wl,-rpath,'$$ORIGIN/../../lib' -lm
TWIN_DEPS = examples/nvidia/check.h $(wildcard $(TWIN_SOURCE_DIR)/common/*.h examples/common/*.h) $(DROPIN_SO) \
            Makefile examples/examples.mk
TWIN_MPI_EXAMPLE := $(if $(strip $(MPI_LIBS)),$(if $(EXAMPLE_TWINS),$(BUILD)/examples/nvidia/allreduce_launcher_mpi))

$(BUILD)/examples/nvidia/%: $(TWIN_SOURCE_DIR)/%.c $(TWIN_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TWIN_CFLAGS) $(filter %.c,$^) -o $@ $(TWIN_LIBS)
$(BUILD)/examples/nvidia/allreduce_matmul: $(call twin_of,$(ALLREDUCE_MATMUL_UNITS))
$(BUILD)/examples/nvidia/allreduce_launcher: $(call twin_of,$(ALLREDUCE_LAUNCHER_UNITS))
$(BUILD)/examples/nvidia/allreduce_launcher_mpi: $(call twin_of,$(MPI_EXAMPLE_SOURCES)) $(TWIN_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TWIN_CFLAGS) -DCUBIND_EXAMPLE_MPI $(MPI_CFLAGS) $(filter %.c,$^) -o $@ $(TWIN_LIBS) $(MPI_LIBS)
test-dropin: $(EXAMPLE_TWINS) $(TWIN_MPI_EXAMPLE)

# Only the targets that need MPI install it.
deps-mpi:
	@sh tools/install-deps.sh $(MPI_DEPS)

# A second make, so that the MPI found after deps-mpi is seen (this one looked before installing).
test-launcher: deps-mpi $(LAUNCHER_TEST) $(LAUNCHER_DRIVER) $(EXAMPLES)
	$(MAKE) --no-print-directory launcher-mpi-programs EXAMPLES_MPI_REQUIRED=1
	$(LAUNCHER_TEST)
	sh tests/launcher/run.sh $(BUILD)

test-examples: $(EXAMPLES) $(CLANG_EXAMPLES) test-launcher
	@if [ -n "$(CLANG)" ]; then echo "examples: built with clang -Werror too"; \
	else echo "examples: no clang, built with $(CC) only"; fi
	@for example in $(EXAMPLES) $(MPI_EXAMPLE); do \
	    needed=$$(readelf -d $$example | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' '); \
	    if echo "$$needed" | tr ' ' '\n' | grep -E '^$(CUDA_LIBRARY_PATTERN)'; then \
	        echo "$$example needs a CUDA library: $$needed"; exit 1; fi; \
	    echo "$$example needs: $$needed"; \
	done
	@$(RESULTS) passed test-examples

# `make compilers` builds the launcher tests with the other compiler too.
test-build: $(LAUNCHER_TEST) $(LAUNCHER_DRIVER)

# The GPU machine runs what is built here: the MPI build too (tests/gpu/launcher.sh).
gpu-build: gpu-build-mpi
gpu-build-mpi: deps-mpi examples
	$(MAKE) --no-print-directory examples-mpi EXAMPLES_MPI_REQUIRED=1
