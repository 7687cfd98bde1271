# tests/tests.mk - test targets, included by the Makefile.
#
#   make test             generator (pytest), generated-tree check, C tests (CMocka) with $(CC),
#                         a -Werror build of everything with the other compiler, the package
#                         (makefiles, exported ABI, cdef headers, installed-tree consumers).
#   make test SAN=...     the C tests under a sanitizer (build/san-*/).

TEST_BUILD := $(BUILD)/test

# Under a sanitizer (make test-c SAN=...) test-c runs the tests whose code runs: the loader's state,
# threads and memory. Those that only compile, link or compare text and symbols (a header alone, the
# ABI layouts, the layering, the install tree, the amalgamation, docs/embedding.md's snippets, the
# prefixed names) find nothing more under one: $(call plain_only,...) names them in the plain step only.
plain_only = $(if $(SAN),,$(1))
MOCK_DIR := $(TEST_BUILD)/mock
HALF_MOCK_DIR := $(TEST_BUILD)/mock-half
RECORDER := $(MOCK_DIR)/libcubind_mock_recorder.so
MOCKS := $(foreach l,$(CUBIND_LIBRARIES),$(MOCK_DIR)/$(CUBIND_SONAME_$(l)))
HALF_MOCKS := $(foreach l,$(CUBIND_LIBRARIES),$(HALF_MOCK_DIR)/$(CUBIND_SONAME_$(l)))

TEST_CFLAGS := $(ALL_CFLAGS) -D$(MACRO_PREFIX)_NO_DEPRECATION_WARNINGS $(INCLUDES) $(TEST_SUPPORT_INCLUDES) -I$(GENERATED)/tests
# Relative run paths: the test binaries also run from a copy of build/ on a GPU machine.
# CMocka is found in $(TEST_BUILD)/lib first when a GPU run carried it there.
TEST_LIBS := -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/lib' $(LDFLAGS_SAN)
MOCK_LIBS := -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$ORIGIN/mock'
CUDA_RUNTIME_CFLAGS := -isystem $(CUDA_PATH)/include
CUDA_RUNTIME_LIBS := -L$(CUDA_PATH)/lib64 -lcudart -Wl,-rpath,$(CUDA_PATH)/lib64
MOCK_ENV := $(foreach l,$(CUBIND_LIBRARIES),$(CUBIND_ENV_$(l))=$(abspath $(MOCK_DIR))/$(CUBIND_SONAME_$(l)))

# The ABI check programs (see test-abi). Defined before any rule names them: make expands a
# rule's prerequisites where it reads the rule (`make test-makefiles` catches a late definition).
# NVIDIA's headers of the units a toolkit may lack (toolkit_may_lack: nvjpeg.h, nvFatbin.h, nvml.h,
# cufile.h): CUDA_EXTRA_INCLUDE after the toolkit's (-idirafter) where it has them, the feature macros
# those headers need of a program (cufile.h: -D_DEFAULT_SOURCE), and -DCUBIND_TEST_WITHOUT_<unit> for a
# unit whose headers neither has, which the tests that compile NVIDIA's headers then leave out, saying so
# (`python3 -m generator.release_headers without-headers report`).
# ($(shell) does not see make's exports: CUDA_EXTRA_INCLUDE is given to it as to the recipes.)
NVIDIA_EXTRA_INCLUDES = $(shell CUDA_EXTRA_INCLUDE='$(CUDA_EXTRA_INCLUDE)' $(PYTHON) -m generator.release_headers \
                          unit-includes $(CUDA_PATH))
WITHOUT_HEADERS = CUDA_EXTRA_INCLUDE='$(CUDA_EXTRA_INCLUDE)' $(PYTHON) -m generator.release_headers without-headers
# The switches (CUBIND_SELF_CONTAINED_<MODULE>) of the modules whose headers the toolkit lacks.
NVIDIA_MISSING_SWITCHES = $(shell $(PYTHON) -m generator.release_headers unit-switches $(CUDA_PATH))
# For a C build of NVIDIA's headers that only C++ can include (cupti_profiler_host.h's <string>):
# the C++ library headers they include, as empty files (libraries.toml: cplusplus_only).
NVIDIA_C_STAND_INS := -I$(GENERATED)/tests/stand_ins
ABI_UNITS := $(patsubst $(GENERATED)/tests/abi_%.c,%,$(wildcard $(GENERATED)/tests/abi_*.c))
ABI_PROGRAMS := $(foreach u,$(ABI_UNITS),$(TEST_BUILD)/abi/$(u)-cubind $(TEST_BUILD)/abi/$(u)-nvidia $(TEST_BUILD)/abi/$(u)-cxx)

# Unit tests of the loader on mocks, and of the real CUDA libraries.
C_TESTS := $(TEST_BUILD)/test_loader $(TEST_BUILD)/test_copies $(TEST_BUILD)/test_real $(TEST_BUILD)/test_libraries $(TEST_BUILD)/test_trace \
           $(TEST_BUILD)/test_trace-inline \
           $(TEST_BUILD)/test_unload $(TEST_BUILD)/test_machine
# The conversion tables' test (test-conversions, below).
CONVERSIONS_TEST := $(TEST_BUILD)/conversions
# Each library's facts and two calls, generated from the configuration (tests/library_cases.h).
LIBRARY_CASES := $(TEST_BUILD)/obj/$(GENERATED)/tests/library_cases.o
PASSTHROUGH := $(TEST_BUILD)/passthrough
PASSTHROUGH_MAIN := $(TEST_BUILD)/obj/$(TEST_SUPPORT)passthrough_main.o
PASSTHROUGH_OBJECTS := $(PASSTHROUGH_MAIN) $(patsubst %.c,$(TEST_BUILD)/obj/%.o,$(wildcard $(GENERATED)/tests/passthrough_*.c))
# The same tests through the inline form of the wrappers (CUBIND_INLINE, cubind/inline.h).
PASSTHROUGH_INLINE := $(TEST_BUILD)/passthrough-inline
PASSTHROUGH_INLINE_OBJECTS := $(PASSTHROUGH_MAIN) \
                              $(patsubst %.c,$(TEST_BUILD)/obj-inline/%.o,$(wildcard $(GENERATED)/tests/passthrough_*.c))

# Linked binaries depend on the makefiles: their flags (run paths) live there.
LINK_FLAGS_FILES := Makefile tests/tests.mk

# make test's last line sums what every suite counted (tests/summary/results.py): a suite's recipe runs it
# through $(RESULTS) run (CMocka and pytest output is parsed) or ends with $(RESULTS) passed (a check).
# One file per suite and build tree in $(RESULTS_DIR): the order of -j does not matter, and a subset
# tree's suites (test-embed's, their own BUILD) are counted beside the main tree's, not over them.
RESULTS_DIR := build/test-results
RESULTS = $(PYTHON) tests/summary/results.py --dir $(RESULTS_DIR) --target $@ $(if $(SAN),--variant $(SAN)) --tree $(BUILD)

# The fault tests' variables (REENTRANT_MOCK, SLOW_MOCK) are used by test-valgrind below.
include tests/faults.mk
# Embedding: subsets, the amalgamation, the CMake subdirectory, two copies in one process.
include tests/embed/embed.mk
include tests/cplusplus/cplusplus.mk
include tests/julia/julia.mk

OTHER_CC := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),gcc,clang)
OTHER_CXX := $(if $(findstring clang,$(OTHER_CC)),clang++,g++)

.PHONY: test-semantic test-conversions test-copies test-copies-c test-machine test-layering test-passthrough test-loader test-unload test-real test-real-toolkit test-abi test-probe test-census test-link test-install test-valgrind \
        test-trace test-build gpu-build test-gpu test-package test-makefiles test-exports test-cdef test-consumers \
        test-docs abi-baseline

# Every step runs (make -k), a failure does not hide what the later steps find; the last line is
# `cubind: N passed, M failed`, preceded by each suite's counts, and make test fails if M is not 0.
TEST_STEPS := test-generator check-generated test-c test-releases test-package compilers "test-c SAN=address,undefined" \
              "test-c SAN=thread" test-valgrind test-aarch64
test: deps check-toolkit
	@rm -rf $(RESULTS_DIR)
	@status=0; for step in $(TEST_STEPS); do \
	    $(PYTHON) tests/summary/results.py --dir $(RESULTS_DIR) step "$$step" -- $(MAKE) -k $$step || status=1; \
	done; \
	$(PYTHON) tests/summary/results.py --dir $(RESULTS_DIR) summary && [ $$status -eq 0 ]

# (the releases' headers: the generator's tests read them, as make generate does)
test-generator: deps-generator deps-test fetch-releases
	$(RESULTS) run tests/generator pytest -- $(PYTHON) -m pytest -q tests/generator

# The CUDA toolkit the tests read and run (its headers, libraries and nvcc: test-abi, test-real,
# test-dropin's .cu program, docs/dropin.md) is the one thing make test does not install: it says so.
TOOLKIT_FILES := include/cuda.h include/cuda_runtime_api.h bin/nvcc
.PHONY: check-toolkit
check-toolkit:
	@for f in $(TOOLKIT_FILES); do [ -e "$(CUDA_PATH)/$$f" ] || { \
	    echo "make test: the CUDA toolkit at CUDA_PATH=$(CUDA_PATH) has no $$f: install NVIDIA's CUDA toolkit" \
	         "(cuda-toolkit), or name its folder: make test CUDA_PATH=..."; exit 1; }; done
	@echo "make test: the CUDA toolkit at $(CUDA_PATH): $$($(CUDA_PATH)/bin/nvcc --version | sed -n 's/.*release \([0-9.]*\).*/nvcc \1/p')"

# Under TSan only the tests whose code runs threads (THREAD_TESTS; test-faults and test-hardening
# join test-c in tests/faults.mk): the others, every wrapper against the mocks included, run in
# one thread, and building them under TSan is most of that step's time.
THREAD_TESTS := test-loader test-trace test-unload test-machine test-copies-c test-dropin-self test-mock-script
test-c: $(if $(filter thread,$(SAN)),$(THREAD_TESTS),test-passthrough test-semantic test-conversions test-cplusplus test-loader test-trace \
        test-no-status test-mock-script \
        test-unload test-real test-real-toolkit test-probe test-machine test-examples \
        $(if $(SAN),test-copies-c test-dropin-self,test-copies) $(call plain_only,test-layering test-abi test-headers test-link test-install \
        test-bench-build test-census test-dropin))

# The loader is a one-way stack on a platform seam (docs/loader-internals.md): each file's includes and
# its object's calls go to lower layers only, the platform only behind the seam; and a loader file
# includes what it uses (the median loader file preprocessed: at most 6,000 lines).
LOADER_OBJECTS := $(filter $(BUILD)/obj/loader/%,$(LIB_OBJECTS))
test-layering: $(LOADER_OBJECTS)
	$(PYTHON) tests/check_loader_layers.py loader $(BUILD)/obj/loader docs/loader-internals.md
	$(PYTHON) tests/check_loader_sizes.py loader include/cubind -- $(CC) $(LIB_CFLAGS)
	@$(RESULTS) passed test-layering

test-build: all $(MOCKS) $(HALF_MOCKS) $(PASSTHROUGH) $(PASSTHROUGH_INLINE) $(C_TESTS) $(CONVERSIONS_TEST) $(TEST_BUILD)/sgemm $(ABI_PROGRAMS)

# A -Werror build of the library, the probe, the mocks and the tests with the other compiler. Unoptimized
# when that is clang, whose warnings all come from its front end (gcc's -Wmaybe-uninitialized and
# kin need the optimizer: the plain build is gcc's at -O2 whichever compiler this step uses).
OTHER_CC_CFLAGS := $(if $(findstring clang,$(OTHER_CC)),-O0,-O2)
compilers:
	$(MAKE) CC=$(OTHER_CC) CXX=$(OTHER_CXX) BUILD=build/$(OTHER_CC) SAN= CFLAGS=$(OTHER_CC_CFLAGS) test-build
	@n=$$(ls build/$(OTHER_CC)/test/abi/ | grep -c -E -e '-(cubind|nvidia|cxx)$$'); \
	    if [ "$$n" -ne $(words $(ABI_PROGRAMS)) ]; then \
	        echo "compilers: $$n of $(words $(ABI_PROGRAMS)) ABI programs built with $(OTHER_CC)"; exit 1; fi; \
	    echo "compilers: library, probe, mocks, tests and $$n ABI programs built with $(OTHER_CC)"
	@$(RESULTS) passed compilers

$(TEST_BUILD)/obj/%.o: %.c $(PUBLIC_HEADERS) $(wildcard tests/*.h tests/mock/*.h $(GENERATED)/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

$(RECORDER): $(RECORDER_SOURCES) $(RECORDER_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_SUPPORT_INCLUDES) -fPIC -shared -Wl,-soname,libcubind_mock_recorder.so -o $@ \
	    $(RECORDER_SOURCES) -lpthread $(LDFLAGS_SAN)

# A mock of each library, named by its soname; the half mocks export every other symbol only.
define mock_rules
$(MOCK_DIR)/$(CUBIND_SONAME_$(1)): $(GENERATED)/tests/mock_$(1).c $(RECORDER) $(PUBLIC_HEADERS)
	$(CC) $(TEST_CFLAGS) -fPIC -shared -Wl,-soname,$(CUBIND_SONAME_$(1)) -o $$@ $$< \
	    -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$$$ORIGIN' $(LDFLAGS_SAN)
$(HALF_MOCK_DIR)/$(CUBIND_SONAME_$(1)): $(GENERATED)/tests/mock_$(1).c $(RECORDER) $(PUBLIC_HEADERS)
	@mkdir -p $$(dir $$@)
	$(CC) $(TEST_CFLAGS) -D$(MACRO_PREFIX)_MOCK_HALF -fPIC -shared -Wl,-soname,$(CUBIND_SONAME_$(1)) -o $$@ $$< \
	    -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$$$ORIGIN/../mock' $(LDFLAGS_SAN)
endef
$(foreach l,$(CUBIND_LIBRARIES),$(eval $(call mock_rules,$(l))))

# The mocks of each older CUDA release a library's calls are generated for (generated/build.mk:
# CUBIND_RELEASES_<lib>), in $(TEST_BUILD)/mock-r<release>/, and the environment that names them
# (a library without that release keeps its newest mock).
RELEASE_MOCKS := $(foreach l,$(CUBIND_LIBRARIES),$(foreach r,$(CUBIND_RELEASES_$(l)),$(TEST_BUILD)/mock-r$(r)/$(CUBIND_SONAME_$(l))))
define release_mock_rules
$(TEST_BUILD)/mock-r$(2)/$(CUBIND_SONAME_$(1)): $(GENERATED)/tests/mock_$(1)-r$(2).c $(RECORDER) $(PUBLIC_HEADERS) $(GENERATED)/build.mk
	@mkdir -p $$(dir $$@)
	$(CC) $(TEST_CFLAGS) -fPIC -shared -Wl,-soname,$(or $(CUBIND_RELEASE_SONAME_$(1)_$(2)),$(CUBIND_SONAME_$(1))) -o $$@ $$< \
	    -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$$$ORIGIN/../mock' $(LDFLAGS_SAN)
endef
$(foreach l,$(CUBIND_LIBRARIES),$(foreach r,$(CUBIND_RELEASES_$(l)),$(eval $(call release_mock_rules,$(l),$(r)))))
release_env = CUBIND_TEST_RELEASE=$(subst _,.,$(1)) $(foreach l,$(CUBIND_LIBRARIES),$(CUBIND_ENV_$(l))=$(abspath \
    $(if $(filter $(1),$(CUBIND_RELEASES_$(l))),$(TEST_BUILD)/mock-r$(1),$(MOCK_DIR)))/$(CUBIND_SONAME_$(l)))

$(PASSTHROUGH): $(PASSTHROUGH_OBJECTS) $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(PASSTHROUGH_OBJECTS) $(TEST_LIBS) $(MOCK_LIBS) -lcmocka

$(TEST_BUILD)/obj-inline/%.o: %.c $(PUBLIC_HEADERS) $(wildcard tests/*.h tests/mock/*.h $(GENERATED)/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -D$(MACRO_PREFIX)_INLINE -c $< -o $@

$(PASSTHROUGH_INLINE): $(PASSTHROUGH_INLINE_OBJECTS) $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(PASSTHROUGH_INLINE_OBJECTS) $(TEST_LIBS) $(MOCK_LIBS) -lcmocka

# test_loader counts dlopen calls by defining dlopen itself: it must be exported.
$(TEST_BUILD)/test_copies: $(TEST_BUILD)/obj/tests/test_copies.o $(TEST_BUILD)/obj/tests/loader_support.o \
                           $(LIBRARY_CASES) $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread

$(TEST_BUILD)/test_loader: $(TEST_BUILD)/obj/tests/test_loader.o $(TEST_BUILD)/obj/tests/scenario.o \
                           $(TEST_BUILD)/obj/tests/loader_support.o $(LIBRARY_CASES) $(LIBRARY_SO) $(RECORDER) \
                           $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread

$(TEST_BUILD)/test_real: $(TEST_BUILD)/obj/tests/test_real.o $(LIBRARY_CASES) $(LIBRARY_SO) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) -lcmocka -ldl

$(TEST_BUILD)/test_real_toolkit: $(TEST_BUILD)/obj/tests/test_real_toolkit.o $(LIBRARY_SO) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) -lcmocka -ldl

# Every library of the configuration on its mock (tests/test_libraries.c).
$(TEST_BUILD)/test_libraries: $(TEST_BUILD)/obj/tests/test_libraries.o $(TEST_BUILD)/obj/tests/scenario.o \
                              $(TEST_BUILD)/obj/tests/loader_support.o $(LIBRARY_CASES) $(LIBRARY_SO) $(RECORDER) \
                              $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread

# libcubind opened by dlopen, closed, then fork() (tests/test_unload.c): not linked to libcubind.
$(TEST_BUILD)/test_unload: $(TEST_BUILD)/obj/tests/test_unload.o $(LIBRARY_SO) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) -Wl,-rpath,'$$ORIGIN/lib' $(LDFLAGS_SAN) -lcmocka -ldl

# Call tracing (CUBIND_TRACE) on the mocks (tests/test_trace.c); test_trace-inline: the same with its
# calls through the inline form (CUBIND_INLINE), whose calls must be traced as well.
TRACE_SUPPORT := $(TEST_BUILD)/obj/tests/scenario.o $(TEST_BUILD)/obj/tests/loader_support.o $(LIBRARY_CASES) \
                 $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES)
$(TEST_BUILD)/test_trace: $(TEST_BUILD)/obj/tests/test_trace.o $(TRACE_SUPPORT)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread
$(TEST_BUILD)/test_trace-inline: $(TEST_BUILD)/obj-inline/tests/test_trace.o $(TRACE_SUPPORT)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread

# The sgemm example (docs/install.md builds it), built like every example (examples/examples.mk): cubind's headers and -lcubind only.
$(TEST_BUILD)/sgemm: examples/sgemm.c examples/check.h $(LIBRARY_SO) $(BUILT_HEADERS) $(LINK_FLAGS_FILES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include $< -o $@ $(TEST_LIBS) -lm

# --- ABI: cubind's declarations against NVIDIA's ($(GENERATED)/tests/abi_<unit>.c) ------------------
# Each check program is built with cubind's headers alone and with NVIDIA's headers first, as C
# and as C++; the NVIDIA builds assert every wrapper's function type at compile time, and the three
# programs must print the same values, sizes, alignments and offsets.
ABI_FLAGS := -Wno-deprecated-declarations -DCUBIND_NO_DEPRECATION_WARNINGS $(INCLUDES)
CXX_WARNINGS := -std=c++17 -Wall -Wextra -Werror -pedantic

$(TEST_BUILD)/abi/%-cubind: $(GENERATED)/tests/abi_%.c $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ABI_FLAGS) $< -o $@ $(LDFLAGS_SAN)
# The flags NVIDIA's headers are found with, rewritten when they change (CUDA_EXTRA_INCLUDE given or
# not, another CUDA_PATH): the NVIDIA builds depend on it, so none is left from other flags.
# (make re-reads its time after the recipe, which writes it only then.)
NVIDIA_FLAGS := $(TEST_BUILD)/abi/nvidia-flags
.PHONY: nvidia-flags-always
nvidia-flags-always:
$(NVIDIA_FLAGS): nvidia-flags-always
	@mkdir -p $(dir $@)
	@echo '$(CUDA_PATH) $(NVIDIA_EXTRA_INCLUDES)' | cmp -s - $@ || echo '$(CUDA_PATH) $(NVIDIA_EXTRA_INCLUDES)' > $@

$(TEST_BUILD)/abi/%-nvidia: $(GENERATED)/tests/abi_%.c $(PUBLIC_HEADERS) $(NVIDIA_FLAGS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ABI_FLAGS) -DCUBIND_ABI_NVIDIA -isystem $(CUDA_PATH)/include $(NVIDIA_EXTRA_INCLUDES) \
	    $(NVIDIA_C_STAND_INS) $< -o $@ $(LDFLAGS_SAN)
$(TEST_BUILD)/abi/%-cxx: $(GENERATED)/tests/abi_%.c $(PUBLIC_HEADERS) $(NVIDIA_FLAGS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXX_WARNINGS) $(CFLAGS) $(SAN_FLAGS) $(ABI_FLAGS) -DCUBIND_ABI_NVIDIA -isystem $(CUDA_PATH)/include \
	    $(NVIDIA_EXTRA_INCLUDES) -x c++ $< -x none -o $@

test-abi: $(ABI_PROGRAMS)
	@$(WITHOUT_HEADERS) report $(CUDA_PATH) | sed 's/^/abi /'
	@without=" $$($(WITHOUT_HEADERS) units $(CUDA_PATH) | tr '\n' ' ')"; \
	for u in $(ABI_UNITS); do \
	    case "$$without" in *" $$u "*) continue;; esac; \
	    for v in cubind nvidia cxx; do $(TEST_BUILD)/abi/$$u-$$v > $(TEST_BUILD)/abi/$$u-$$v.txt || exit 1; done; \
	    cmp -s $(TEST_BUILD)/abi/$$u-cubind.txt $(TEST_BUILD)/abi/$$u-nvidia.txt && \
	    cmp -s $(TEST_BUILD)/abi/$$u-cubind.txt $(TEST_BUILD)/abi/$$u-cxx.txt || \
	    { echo "abi $$u: cubind's declarations differ from NVIDIA's:"; \
	      diff $(TEST_BUILD)/abi/$$u-nvidia.txt $(TEST_BUILD)/abi/$$u-cubind.txt; exit 1; }; \
	    echo "abi $$u: $$(wc -l < $(TEST_BUILD)/abi/$$u-cubind.txt) values, sizes and offsets identical; \
	$$(grep -c "picks the wrapper out of" $(GENERATED)/tests/abi_$$u.c) wrapper types equal to NVIDIA's"; \
	done
	@$(RESULTS) passed test-abi

# cubind's headers as programs take them (tests/test_headers.sh): each module header alone with the
# core API; cubind.h and every NVIDIA header in one program, in both orders, CUDA's include
# directory given as -I; cubind.h under every warning the compilers have; cubind.h with a toolkit
# lacking NVIDIA's headers one at a time (tests/test_headers_hidden.sh). Not one line of output.
test-headers: $(PUBLIC_HEADERS) tests/test_headers.sh $(GENERATED)/tests/header_alone.c $(GENERATED)/tests/include_order.c \
              $(GENERATED)/tests/nvidia_headers.h tests/test_header_counterparts.sh $(GENERATED)/tests/header_counterpart.c \
              tests/test_headers_hidden.sh
	@NVIDIA_EXTRA_INCLUDES="$(NVIDIA_EXTRA_INCLUDES)" tests/test_headers.sh $(CUDA_PATH) $(TEST_BUILD)/headers $(CUBIND_MODULES)
	@$(WITHOUT_HEADERS) report $(CUDA_PATH) | sed 's/^/headers: counterparts of /'
	@NVIDIA_EXTRA_INCLUDES="$(NVIDIA_EXTRA_INCLUDES)" NVIDIA_C_STAND_INS="$(NVIDIA_C_STAND_INS)" \
	    tests/test_header_counterparts.sh $(CUDA_PATH) \
	    $(filter-out $(shell $(WITHOUT_HEADERS) modules $(CUDA_PATH)),$(CUBIND_MODULES))
	@NVIDIA_EXTRA_INCLUDES="$(NVIDIA_EXTRA_INCLUDES)" NVIDIA_MISSING_SWITCHES="$(NVIDIA_MISSING_SWITCHES)" \
	    tests/test_headers_hidden.sh $(CUDA_PATH) $(TEST_BUILD)/headers-hidden
	@$(RESULTS) passed test-headers

# Under a sanitizer the out-of-line build only: the inline form's wrappers are the same code,
# compiled into each caller.
PASSTHROUGH_BUILDS := $(PASSTHROUGH) $(call plain_only,$(PASSTHROUGH_INLINE))
test-passthrough: $(PASSTHROUGH_BUILDS) $(MOCKS) $(RELEASE_MOCKS)
	@for p in $(PASSTHROUGH_BUILDS); do \
	    echo "$$(basename $$p): every wrapper against the mocks (log: $$p.log)"; \
	    env $(MOCK_ENV) $$p > $$p.log 2>&1; status=$$?; \
	    $(RESULTS) count $$(basename $$p) cmocka $$p.log --status $$status; \
	    [ $$status -eq 0 ] || { grep -v "^\[       OK \]\|^\[ RUN      \]" $$p.log; exit 1; }; \
	    grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^passthrough:" $$p.log; \
	done
	@$(foreach r,$(CUBIND_RELEASES),for p in $(PASSTHROUGH_BUILDS); do \
	    echo "$$(basename $$p): every wrapper against the mocks of CUDA $(subst _,.,$(r)) (log: $$p-r$(r).log)"; \
	    env $(call release_env,$(r)) $$p > $$p-r$(r).log 2>&1; status=$$?; \
	    $(RESULTS) count $$(basename $$p)-r$(r) cmocka $$p-r$(r).log --status $$status; \
	    [ $$status -eq 0 ] || { grep -v "^\[       OK \]\|^\[ RUN      \]" $$p-r$(r).log; exit 1; }; \
	    grep -E "^passthrough:" $$p-r$(r).log; \
	done;)

# The semantic adapters (generator/semantic.toml) against the mocks of the releases they serve
# (tests/test_semantic.c): the older entry point's arguments, what the newest form writes besides,
# and the calls refused for their arguments, which reach no mock and write nothing.
SEMANTIC_TEST := $(TEST_BUILD)/test_semantic
$(SEMANTIC_TEST): tests/test_semantic.c $(LIBRARY_SO) $(RECORDER) $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(TEST_LIBS) $(MOCK_LIBS) -lcmocka
# And no silent drop ($(GENERATED)/tests/input_fields.c): an input record's field an older release's
# adapter cannot carry, set, refuses the call naming it; one test per field, from the IR.
INPUT_FIELDS_TEST := $(TEST_BUILD)/input_fields
$(INPUT_FIELDS_TEST): $(GENERATED)/tests/input_fields.c $(LIBRARY_SO) $(RECORDER) $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(TEST_LIBS) $(MOCK_LIBS) -lcmocka
# And every semantic adapter ($(GENERATED)/tests/semantic_calls.c, from the IR): its call, each refusal
# (no mock reached, nothing written, the reason recorded) and each status it maps.
SEMANTIC_CALLS_TEST := $(TEST_BUILD)/semantic_calls
$(SEMANTIC_CALLS_TEST): $(GENERATED)/tests/semantic_calls.c $(LIBRARY_SO) $(RECORDER) $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(TEST_LIBS) $(MOCK_LIBS) -lcmocka
test-semantic: $(SEMANTIC_TEST) $(INPUT_FIELDS_TEST) $(SEMANTIC_CALLS_TEST) $(MOCKS) $(RELEASE_MOCKS)
	@$(foreach r,$(CUBIND_RELEASES),for t in $(SEMANTIC_TEST) $(INPUT_FIELDS_TEST) $(SEMANTIC_CALLS_TEST); do \
	    echo "$$(basename $$t): against the mocks of CUDA $(subst _,.,$(r)) (log: $$t-r$(r).log)"; \
	    env $(call release_env,$(r)) $$t > $$t-r$(r).log 2>&1; status=$$?; \
	    $(RESULTS) count $$(basename $$t)-r$(r) cmocka $$t-r$(r).log --status $$status; \
	    [ $$status -eq 0 ] || { grep -v "^\[       OK \]\|^\[ RUN      \]" $$t-r$(r).log; exit 1; }; \
	    grep -E "^\[  PASSED  \]|^\[  SKIPPED \]" $$t-r$(r).log; \
	done;)
	@$(RESULTS) passed test-semantic

# The conversion tables ($(GENERATED)/tests/conversions.c, from the IR): each table, with the mocks of each release it
# serves, carries an output record the mock writes in that release's layout to the caller's newest layout, and an
# input record to the mock in that release's layout, field by field (tests/mock/recorder.h: cubind_mock_record).
$(CONVERSIONS_TEST): $(GENERATED)/tests/conversions.c $(LIBRARY_SO) $(RECORDER) $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(TEST_LIBS) $(MOCK_LIBS) -lcmocka
test-conversions: $(CONVERSIONS_TEST) $(MOCKS) $(RELEASE_MOCKS)
	@$(foreach r,$(CUBIND_RELEASES),t=$(CONVERSIONS_TEST); \
	    echo "$$(basename $$t): against the mocks of CUDA $(subst _,.,$(r)) (log: $$t-r$(r).log)"; \
	    env $(call release_env,$(r)) $$t > $$t-r$(r).log 2>&1; status=$$?; \
	    $(RESULTS) count $$(basename $$t)-r$(r) cmocka $$t-r$(r).log --status $$status; \
	    [ $$status -eq 0 ] || { grep -v "^\[       OK \]\|^\[ RUN      \]" $$t-r$(r).log; exit 1; }; \
	    grep -E "^\[  PASSED  \]|^\[  SKIPPED \]" $$t-r$(r).log;)
	@$(RESULTS) passed test-conversions

# Every copy of every library (cubind-probe --all, cubind/copies.h, the discovery switch, CUDA_PATH's place):
# fixture trees of mocks, compiled located libraries and a CUDA 12.4 cuBLAS, built by the tests. The pytest
# part drives the C API through ctypes, which a sanitizer's runtime does not allow: under SAN only the
# CMocka part (test-copies-c) runs.
test-copies-c: $(TEST_BUILD)/test_copies $(MOCKS)
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) $(RESULTS) run test_copies cmocka -- $(TEST_BUILD)/test_copies

test-copies: test-copies-c $(PROBE) $(LIBRARY_SO) $(MOCKS) fetch-release-libs deps-test
	CUBIND_PROBE=$(abspath $(PROBE)) CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) \
	    CUBIND_TEST_LIBCUBIND=$(abspath $(LIBRARY_SO)) $(RESULTS) run tests/copies pytest -- \
	    $(PYTHON) -m pytest -q tests/copies

# (under AddressSanitizer, what tests/lsan-cuda.supp says LeakSanitizer cannot see: the scenarios run
# through ld.so --inhibit-cache)
test-loader: $(TEST_BUILD)/test_loader $(TEST_BUILD)/test_libraries $(TEST_BUILD)/test_elf_symbol $(MOCKS) $(HALF_MOCKS)
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    LSAN_OPTIONS=suppressions=$(abspath tests/lsan-cuda.supp) $(RESULTS) run test_loader cmocka -- $(TEST_BUILD)/test_loader
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    $(RESULTS) run test_libraries cmocka -- $(TEST_BUILD)/test_libraries
	$(RESULTS) run test_elf_symbol cmocka -- $(TEST_BUILD)/test_elf_symbol

# A symbol read from a loaded object's own tables (loader/platform_elf.c, hidden in libcubind: built with
# that file itself), against the dynamic loader (dlvsym, dlsym): the program's table a SysV one, libc's a GNU one.
$(TEST_BUILD)/test_elf_symbol: tests/test_elf_symbol.c loader/platform_elf.c loader/platform_elf.h loader/platform.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iloader -o $@ tests/test_elf_symbol.c loader/platform_elf.c -rdynamic -Wl,--hash-style=sysv \
	    $(LDFLAGS_SAN) -lcmocka -ldl

# The driver and GPU facts, "no GPU" in failing calls' messages and the checks (docs/machine.md): stand-ins
# of NVML and the driver (tests/machine/), the mocks of 13.0 and of 12.4, no driver at all.
MACHINE_DIR := $(TEST_BUILD)/machine
MACHINE_FAKES := $(MACHINE_DIR)/nvml/libnvidia-ml.so.1 $(MACHINE_DIR)/cuda/libcuda.so.1 $(MACHINE_DIR)/stub/libnvidia-ml.so
$(MACHINE_DIR)/nvml/libnvidia-ml.so.1: tests/machine/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $< $(LDFLAGS_SAN)
$(MACHINE_DIR)/stub/libnvidia-ml.so: tests/machine/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DFAKE_STUB -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $< $(LDFLAGS_SAN)
$(MACHINE_DIR)/cuda/libcuda.so.1: tests/machine/fake_cuda.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $< $(LDFLAGS_SAN)
# A mock of cuBLASLt's next major (soname and version): refused unless CUBIND_ALLOW_NEWER_MAJOR=1.
NEXT_MOCK := $(TEST_BUILD)/mock-next/$(CUBIND_NEXT_SONAME_cublasLt)
$(NEXT_MOCK): $(GENERATED)/tests/mock_cublasLt.c $(RECORDER) $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -fPIC -shared -Wl,-soname,$(notdir $@) -o $@ $< \
	    -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$ORIGIN/../mock' $(LDFLAGS_SAN)
$(TEST_BUILD)/test_machine: $(TEST_BUILD)/obj/tests/test_machine.o $(LIBRARY_CASES) $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) $(MOCK_LIBS) -lcmocka
# The kernel module's release as loader/no_gpu.c reads it: built with that file itself (its parser is hidden in libcubind).
$(TEST_BUILD)/test_no_gpu: tests/test_no_gpu.c loader/no_gpu.c loader/no_gpu.h $(PLATFORM_SOURCES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iloader -o $@ tests/test_no_gpu.c loader/no_gpu.c $(filter %.c,$(PLATFORM_SOURCES)) $(LDFLAGS_SAN) -lcmocka \
	    -ldl -lpthread
test-machine: $(TEST_BUILD)/test_machine $(TEST_BUILD)/test_no_gpu $(PROBE) $(MACHINE_FAKES) $(MOCKS) \
              $(TEST_BUILD)/mock-r12_4/$(CUBIND_SONAME_cublasLt) $(TEST_BUILD)/mock-r12_4/$(CUBIND_SONAME_cusolver) \
              $(TEST_BUILD)/mock-r12_4/$(CUBIND_SONAME_curand) \
              $(TEST_BUILD)/mock-r12_4/$(CUBIND_SONAME_runtime) $(TEST_BUILD)/mock-r12_4/$(CUBIND_SONAME_driver) $(NEXT_MOCK)
	$(RESULTS) run test_no_gpu cmocka -- $(TEST_BUILD)/test_no_gpu
	CUBIND_TEST_MACHINE_DIR=$(abspath $(MACHINE_DIR)) CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) \
	    CUBIND_TEST_RELEASE_MOCK_DIR=$(abspath $(TEST_BUILD)/mock-r12_4) CUBIND_TEST_NEXT_MOCK=$(abspath $(NEXT_MOCK)) \
	    $(RESULTS) run test_machine cmocka -- $(TEST_BUILD)/test_machine
	CUBIND_TEST_MACHINE_DIR=$(abspath $(MACHINE_DIR)) CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) \
	    CUBIND_TEST_RELEASE_MOCK_DIR=$(abspath $(TEST_BUILD)/mock-r12_4) CUBIND_PROBE=$(abspath $(PROBE)) \
	    $(RESULTS) run tests/machine pytest -- $(PYTHON) -m pytest -q tests/machine

test-unload: $(TEST_BUILD)/test_unload
	CUBIND_CUFFT_PATH=/nonexistent/libcufft.so.12 CUBIND_TEST_LIBRARY=$(abspath $(LIBRARY_SONAME)) \
	    $(RESULTS) run test_unload cmocka -- $(TEST_BUILD)/test_unload

test-trace: $(TEST_BUILD)/test_trace $(TEST_BUILD)/test_trace-inline $(MOCKS)
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) $(RESULTS) run test_trace cmocka -- $(TEST_BUILD)/test_trace
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) $(RESULTS) run test_trace-inline cmocka -- $(TEST_BUILD)/test_trace-inline

# NVIDIA's libraries keep a few allocations of a failed handle creation (no GPU): LeakSanitizer
# is told to ignore leaks allocated inside them, never ours.
test-real: $(TEST_BUILD)/test_real
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan-cuda.supp) $(RESULTS) run test_real cmocka -- $(TEST_BUILD)/test_real

# NVVM (the toolkit's), nvFatbin, nvJPEG and cuFile (CUDA 12.4's, from the releases cache: the toolkit
# here has none of them) on their real files (tests/test_real_toolkit.c); nvFatbin packs a cubin the
# toolkit's nvcc compiled, where it has one.
NVCC := $(wildcard $(CUDA_PATH)/bin/nvcc)
$(TEST_BUILD)/scale-sm_75.cubin: tests/scale_kernel.cu
	@mkdir -p $(dir $@)
	$(NVCC) -cubin -arch=sm_75 $< -o $@
.PHONY: test-real-toolkit
test-real-toolkit: $(TEST_BUILD)/test_real_toolkit fetch-release-libs $(if $(NVCC),$(TEST_BUILD)/scale-sm_75.cubin)
	CUBIND_TEST_CUBIN=$(if $(NVCC),75=$(abspath $(TEST_BUILD))/scale-sm_75.cubin) \
	CUBIND_NVFATBIN_PATH=$(RELEASES_CACHE)/12.4/lib/libnvfatbin.so.12 \
	CUBIND_NVJPEG_PATH=$(RELEASES_CACHE)/12.4/lib/libnvjpeg.so.12 \
	CUBIND_CUFILE_PATH=$(RELEASES_CACHE)/12.4/lib/libcufile.so.0 CUFILE_LOGFILE_PATH=$(abspath $(TEST_BUILD))/cufile.log \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan-cuda.supp) $(RESULTS) run test_real_toolkit cmocka -- \
	    $(TEST_BUILD)/test_real_toolkit

# The loader tests under valgrind memcheck: no error, nothing definitely lost (children traced).
# The first-call race runs a few rounds only (memcheck is slow; TSan covers the race).
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --trace-children=yes \
            --suppressions=$(abspath tests/valgrind.supp)
VALGRIND_ENV := CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR))
# One target a program, so that make -j runs them side by side.
.PHONY: test-valgrind-loader test-valgrind-libraries test-valgrind-faults
test-valgrind: test-valgrind-loader test-valgrind-libraries test-valgrind-faults test-valgrind-dropin-self test-valgrind-mock-script
test-valgrind-loader: $(TEST_BUILD)/test_loader $(MOCKS) $(HALF_MOCKS)
	$(VALGRIND_ENV) $(RESULTS) --variant valgrind run test_loader cmocka -- $(VALGRIND) $(TEST_BUILD)/test_loader
test-valgrind-libraries: $(TEST_BUILD)/test_libraries $(MOCKS) $(HALF_MOCKS)
	$(VALGRIND_ENV) $(RESULTS) --variant valgrind run test_libraries cmocka -- $(VALGRIND) $(TEST_BUILD)/test_libraries
test-valgrind-faults: $(TEST_BUILD)/test_faults $(MOCKS) $(HALF_MOCKS) $(REENTRANT_MOCK) $(SLOW_MOCK)
	$(VALGRIND_ENV) CUBIND_TEST_ROUNDS=4 $(RESULTS) --variant valgrind run test_faults cmocka -- $(VALGRIND) \
	    $(TEST_BUILD)/test_faults

# The probe as a user runs it, on this machine's libraries, on the mocks and the half mocks; --check
# on programs the tests build with $(CC) against $(BUILD) (tests/probe/test_check.py).
# The probe of a subset (test-embed's tree, which leaves the driver API out): its headline speaks of
# the machine whatever the build binds (tests/probe/test_subset.py). The sub-make is up to date at once
# when nothing changed.
SUBSET_PROBE := $(EMBED_TREE_BUILD)/bin/cubind-probe
.PHONY: subset-probe
subset-probe: $(EMBED_TREE)/build.mk
	[ ! -f $(EMBED_TREE)/build.mk ] || $(MAKE) --no-print-directory GENERATED=$(EMBED_TREE) BUILD=$(EMBED_TREE_BUILD) \
	    SAN=$(SAN) $(SUBSET_PROBE)

test-probe: $(PROBE) $(LIBRARY_A) $(MOCKS) $(HALF_MOCKS) $(DROPIN_SO) subset-probe deps-test
	CUBIND_PROBE=$(abspath $(PROBE)) CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) \
	    CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) CUBIND_TEST_BUILD=$(abspath $(BUILD)) \
	    CUBIND_TEST_CC="$(CC) $(LDFLAGS_SAN)" CUBIND_TEST_SUBSET_PROBE=$(abspath $(SUBSET_PROBE)) \
	    $(RESULTS) run tests/probe pytest -- $(PYTHON) -m pytest -q tests/probe

# Every function a bound library exports that a header of the toolkit declares is bound, or listed in
# the library's `unbound` entries with why (tests/census: the library's file, NVIDIA's headers through
# libclang, libcubind's exports).
test-census: $(LIBRARY_REAL) deps-generator deps-test
	CUBIND_LIBRARY=$(abspath $(LIBRARY_REAL)) CUDA_PATH=$(CUDA_PATH) \
	    $(RESULTS) run tests/census pytest -- $(PYTHON) -m pytest -q -s tests/census

# libcubind.so needs no CUDA library to load: it opens them itself.
test-link: $(LIBRARY_SO)
	@if readelf -d $(LIBRARY_SONAME) | grep NEEDED | grep -i -E "cu(da|blas|fft|rand|solver|sparse|dnn)|nvrtc|nvjitlink|nccl"; then \
	    echo "libcubind.so links against a CUDA library"; exit 1; fi
	@echo "libcubind.so needs: $$(readelf -d $(LIBRARY_SONAME) | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"
	@$(RESULTS) passed test-link

# An installed tree is all a user needs: its headers and library, nothing of CUDA or of this checkout.
# make install and make install-strip only copy (and strip) what `make` built, running no compiler,
# package manager, sudo or cmake; install-strip leaves no debug information (tests/install/run.sh).
# The make is named through INSTALL_TEST_MAKE, not $(MAKE): the line is then not a recursive make,
# which make -n would run.
INSTALL_TEST_MAKE = $(MAKE) --no-print-directory
test-install: all $(INSTALL_DATA) deps-test
	@MAKE="$(INSTALL_TEST_MAKE)" COMPILERS="$(CC) $(CXX) $(AR)" CC="$(CC)" CFLAGS="$(ALL_CFLAGS)" \
	    LDFLAGS="$(LDFLAGS_SAN)" sh tests/install/run.sh $(abspath $(TEST_BUILD)/install) $(LIBRARY_REAL) $(VERSION)
	@$(RESULTS) passed test-install

# --- the package: not under a sanitizer (LuaJIT, Python and CMake load the library themselves) ---
test-package: test-makefiles test-exports test-cdef test-consumers test-docs test-julia

# The code blocks of README.md and docs/*.md, run exactly as printed (tests/docs/run.py; how a block
# is marked: tests/docs/extract.py, docs/testing.md) with HOME a scratch folder where cubind is
# installed as the pages install it (PREFIX="$$HOME/.local"); then the links of the installed pages.
# DOC_WRITTEN_PAGES are written by a program (bench/report.py): measured output, nothing to run.
# DOC_OWN_RUNNER_PAGES run their blocks with a runner of their own (docs/embedding.md: make
# test-embed, tests/embed/snippets.py, which builds a project around cubind as the page does).
DOCS_DIR := $(TEST_BUILD)/docs
DOC_WRITTEN_PAGES := docs/benchmarks.md
DOC_OWN_RUNNER_PAGES := docs/embedding.md
DOC_CHECKED_PAGES := README.md CHANGES.md $(filter-out $(DOC_WRITTEN_PAGES) $(DOC_OWN_RUNNER_PAGES),$(wildcard docs/*.md))
test-docs: all $(INSTALL_DATA) examples deps-test fetch-julia
	rm -rf $(DOCS_DIR)
	$(MAKE) --no-print-directory install PREFIX=$(abspath $(DOCS_DIR))/home/.local > /dev/null
	@$(RESULTS) run tests/docs pytest -- $(PYTHON) -m pytest -q tests/docs
	@$(RESULTS) run snippets snippets -- $(PYTHON) tests/docs/run.py --checkout . --build $(BUILD) \
	    --home $(DOCS_DIR)/home --work $(DOCS_DIR)/pages --installed-docs $(DOCS_DIR)/home/.local/share/doc/cubind \
	    --tool-dir $(dir $(JULIA)) \
	    $(DOC_CHECKED_PAGES)

# The makefiles, by dry runs in an empty build tree: no variable is used before it is defined
# (make expands a rule's prerequisites where it reads the rule: ABI_PROGRAMS once was, and
# `make compilers` built no ABI program), the fault mocks are built for test-valgrind, the ABI
# programs for test-build, `make probe` builds the checked-in tree without regenerating it, and
# `make install` in a tree never built (which compiles first) installs no package and runs no sudo
# or cmake: a C11 compiler, sed and install(1) are all it needs; the packages of make deps are one
# apt-get, and the deps-* parts run one apt-get at a time (tests/install/deps.sh, on stand-ins).
# Then make test's summary (tests/summary/test_results.py).
MAKECHECK := $(MAKE) --no-print-directory -n --warn-undefined-variables BUILD=build/makecheck
test-makefiles: deps-test
	@for goal in all test-build test-valgrind test-c install install-strip probe test-docs; do \
	    if $(MAKECHECK) $$goal 2>&1 >/dev/null | grep "warning: undefined variable"; then \
	        echo "test-makefiles: make $$goal uses a variable before it is defined (above)"; exit 1; fi; \
	done
	@$(MAKECHECK) test-valgrind 2>/dev/null | grep -q -- "-o build/makecheck/test/mock-reentrant/" && \
	    $(MAKECHECK) test-valgrind 2>/dev/null | grep -q -- "-o build/makecheck/test/mock-slow/" || \
	    { echo "test-makefiles: make test-valgrind does not build the reentrant and slow mocks"; exit 1; }
	@n=$$($(MAKECHECK) test-build 2>/dev/null | grep -c -E -- "-o build/makecheck/test/abi/[^ ]*-(cubind|nvidia|cxx)( |$$)"); \
	    [ "$$n" -eq $(words $(ABI_PROGRAMS)) ] || \
	    { echo "test-makefiles: make test-build builds $$n of $(words $(ABI_PROGRAMS)) ABI programs"; exit 1; }
	@if $(MAKECHECK) probe 2>/dev/null | grep -E -- "-m generator|make.* generate( |$$)"; then \
	    echo "test-makefiles: make probe regenerates (above)"; exit 1; fi
	@for goal in install install-strip; do \
	    if $(MAKECHECK) $$goal 2>/dev/null | grep -E "^(sudo|su|apt-get|apt|dpkg|dpkg-query|cmake|sh tools/install-deps.sh)( |$$)"; then \
	        echo "test-makefiles: make $$goal runs a package manager, sudo or cmake (above)"; exit 1; fi; \
	done
	@MAKE="$(INSTALL_TEST_MAKE)" sh tests/install/deps.sh $(TEST_BUILD)/deps
	@echo "test-makefiles: no variable used before its definition; test-valgrind builds its mocks, \
	test-build its $(words $(ABI_PROGRAMS)) ABI programs; make probe does not regenerate; \
	make install needs no package manager, sudo or cmake"
	@$(RESULTS) passed test-makefiles
	@$(RESULTS) run tests/summary pytest -- $(PYTHON) -m pytest -q tests/summary

# The exported ABI against the checked-in baseline: the sorted dynamic symbols (only cubind_*, each
# with its version node, and the node itself: abi/libcubind.map) and the layout of cubind's own public types, as the compiler prints it
# (abi/layout.py writes the program). A removal or change fails; additions are reported.
EXPORTS_DIR := $(TEST_BUILD)/exports

$(EXPORTS_DIR)/symbols.txt: $(LIBRARY_REAL)
	@mkdir -p $(dir $@)
	nm -D --defined-only $< | awk '{print $$3}' | LC_ALL=C sort > $@

$(EXPORTS_DIR)/layout.c: abi/layout.py $(PUBLIC_HEADERS) | deps-generator
	@mkdir -p $(dir $@)
	$(PYTHON) abi/layout.py > $@

$(EXPORTS_DIR)/layout: $(EXPORTS_DIR)/layout.c
	$(CC) $(ALL_CFLAGS) $(INCLUDES) $< -o $@ $(LDFLAGS_SAN)

$(EXPORTS_DIR)/layout.txt: $(EXPORTS_DIR)/layout
	$< | LC_ALL=C sort > $@

test-exports: $(EXPORTS_DIR)/symbols.txt $(EXPORTS_DIR)/layout.txt
	@grep -q '^$(VERSION_NODE) {' $(VERSION_SCRIPT) || \
	    { echo "test-exports: the version node of $(VERSION_SCRIPT) is not $(VERSION_NODE) (include/cubind/version.h)"; exit 1; }
	@if grep -v -x -e 'cubind_[A-Za-z0-9_]*@@$(VERSION_NODE)' -e '$(VERSION_NODE)' $(EXPORTS_DIR)/symbols.txt; then \
	    echo "test-exports: $(LIBRARY_REAL) exports symbols other than cubind_*@@$(VERSION_NODE) (above)"; exit 1; fi
	@readelf -d $(LIBRARY_REAL) | grep -q "SONAME.*\[$(SONAME)\]" || \
	    { echo "test-exports: the soname of $(LIBRARY_REAL) is not $(SONAME)"; exit 1; }
	@sh abi/compare.sh "exported symbols" abi/symbols.txt $(EXPORTS_DIR)/symbols.txt
	@sh abi/compare.sh "public type layout" abi/layout.txt $(EXPORTS_DIR)/layout.txt
	@$(RESULTS) passed test-exports

# Accept the ABI as it is now (after an intended change: see abi/compare.sh's message).
abi-baseline: $(EXPORTS_DIR)/symbols.txt $(EXPORTS_DIR)/layout.txt
	cp $(EXPORTS_DIR)/symbols.txt abi/symbols.txt
	cp $(EXPORTS_DIR)/layout.txt abi/layout.txt

# The cdef headers: flat, valid C, accepted by LuaJIT's ffi.cdef and cffi's cdef.
test-cdef: deps-test
	@sh tests/consumers/cdef_check.sh $(CC) $(CDEF_FILES)
	@$(RESULTS) passed test-cdef

# An installed tree (DESTDIR staging, so every file must find the others relative to itself)
# and its consumers: C through pkg-config and CMake, LuaJIT, cffi, ctypes, Rust (bindgen, and the crate
# cubind-sys with Debian's cargo and rustc: CARGO, RUSTC).
PACKAGE_DIR := $(TEST_BUILD)/package
# Debian's (TEST_DEPS), by path: a rustup toolchain earlier on PATH is not what CI has.
DEBIAN_CARGO := /usr/bin/cargo
DEBIAN_RUSTC := /usr/bin/rustc
PACKAGE_PREFIX := /opt/cubind
test-consumers: all $(INSTALL_DATA) deps-test
	rm -rf $(PACKAGE_DIR)
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(PACKAGE_DIR))/stage PREFIX=$(PACKAGE_PREFIX) > /dev/null
	@cd $(PACKAGE_DIR)/stage$(PACKAGE_PREFIX) && for f in lib/$(REALNAME) lib/$(SONAME) lib/libcubind.so lib/libcubind.a \
	        lib/pkgconfig/cubind.pc lib/cmake/cubind/cubindConfig.cmake lib/cmake/cubind/cubindConfigVersion.cmake \
	        lib/$(DROPIN_REALNAME) lib/$(DROPIN_SONAME) lib/libcubind-dropin.so lib/pkgconfig/cubind-dropin.pc \
	        lib/cmake/cubind/cubind-dropin.cmake lib/cubind/mocks/libcubind_mock_recorder.so include/cubind/mock/recorder.h \
	        $(patsubst $(MOCKS_BUILD)/%,lib/cubind/mocks/%,$(PRODUCT_MOCKS)) \
	        bin/cubind-probe include/cubind/cubind.h include/cubind/version.h share/cubind/cdef/cubind.h \
	        share/cubind/ir.schema.json share/cubind/probe.schema.json $(addprefix share/cubind/cdef/,$(notdir $(CDEF_FILES))) \
	        $(addprefix share/cubind/ir/,$(notdir $(IR_FILES))) $(addprefix include/cubind/,$(notdir $(BUILT_HEADERS))) \
	        $(patsubst $(GENERATED)/%,share/cubind/%,$(RUST_CRATE_FILES) $(RUST_CRATE_SOURCES)) \
	        share/cubind/julia/Cubind/Project.toml share/cubind/julia/Cubind/src/Cubind.jl; do \
	    [ -e "$$f" ] || { echo "test-consumers: $(PACKAGE_PREFIX)/$$f not installed"; exit 1; }; done
	@[ "$$(readlink $(PACKAGE_DIR)/stage$(PACKAGE_PREFIX)/lib/$(SONAME))" = "$(REALNAME)" ] && \
	    [ "$$(readlink $(PACKAGE_DIR)/stage$(PACKAGE_PREFIX)/lib/libcubind.so)" = "$(SONAME)" ] || \
	    { echo "test-consumers: wrong library links"; exit 1; }
	$(PACKAGE_DIR)/stage$(PACKAGE_PREFIX)/bin/cubind-probe > /dev/null
	CARGO=$(DEBIAN_CARGO) RUSTC=$(DEBIAN_RUSTC) \
	    sh tests/consumers/run.sh $(abspath $(PACKAGE_DIR))/stage$(PACKAGE_PREFIX) $(abspath $(PACKAGE_DIR))/work $(VERSION) $(CC)
	@$(RESULTS) passed test-consumers

# --- GPU tests: not in `make test` (CI has no GPU) ----------------------------------------------
# `make gpu-build` here, then tests/gpu/run.sh on the GPU machine with build/ carried over;
# `make test-gpu` does both on a machine with a GPU and the toolchain.
GPU_LIB_DIR := $(TEST_BUILD)/lib

$(GPU_LIB_DIR)/libcmocka.so.0:
	@mkdir -p $(dir $@)
	cp -L $(shell $(CC) -print-file-name=libcmocka.so.0) $@

$(TEST_BUILD)/test_gpu: tests/gpu/test_gpu.c $(LIBRARY_SO) $(PUBLIC_HEADERS) $(LINK_FLAGS_FILES)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(CUDA_RUNTIME_CFLAGS) $< -o $@ $(TEST_LIBS) $(CUDA_RUNTIME_LIBS) -lcmocka -lm

# NAME=soname of each library's mock, for tests/gpu/run.sh (the paths differ on the GPU machine).
$(MOCK_DIR)/environment.txt: $(GENERATED)/build.mk
	@mkdir -p $(dir $@)
	printf '%s\n' $(foreach l,$(CUBIND_LIBRARIES),$(CUBIND_ENV_$(l))=$(CUBIND_SONAME_$(l))) > $@

# tests/gpu/no_gpu.c: "no GPU" said plainly, with the GPUs visible and with CUDA_VISIBLE_DEVICES empty.
$(TEST_BUILD)/gpu/no_gpu: tests/gpu/no_gpu.c $(LIBRARY_SO) $(BUILT_HEADERS) $(LINK_FLAGS_FILES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include $< -o $@ -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../../lib'

# tests/gpu/cupti.c: CUPTI's activity records of a cubind program's kernel and copies (tests/gpu/cupti.sh).
$(TEST_BUILD)/gpu/cupti: tests/gpu/cupti.c $(LIBRARY_SO) $(BUILT_HEADERS) $(LINK_FLAGS_FILES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include $< -o $@ -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../../lib'

gpu-build: test-build $(TEST_BUILD)/test_gpu $(GPU_LIB_DIR)/libcmocka.so.0 examples $(MOCK_DIR)/environment.txt \
           gpu-releases $(TEST_BUILD)/gpu/no_gpu $(TEST_BUILD)/gpu/cupti test-dropin gpu-toolkit

# tests/gpu/toolkit.sh: NVVM, nvFatbin and nvJPEG through cubind on the GPU (tests/gpu/toolkit.c), the
# JPEG it decodes and libjpeg's decode of it (tests/gpu/jpeg_fixture.c, run here: the GPU machine has
# no libjpeg), the cubins nvFatbin packs (tests/scale_kernel.cu, by the toolkit's nvcc: one per
# architecture of GPU_CUBIN_ARCHS, listed as ARCH=FILE in cubins.txt), NVML's getters of NVML API 13
# (tests/gpu/nvml_getters.c), and CUDA 12.4's nvFatbin, nvJPEG and cuFile, an older release of theirs,
# to travel with them; cuFile's version and driver open asked directly (tests/gpu/cufile.c) and through
# cubind (tests/gpu/cufile_cubind.c).
GPU_CUBIN_ARCHS ?= 75 80 86 89 90
.PHONY: gpu-toolkit
gpu-toolkit: $(LIBRARY_SO) $(BUILT_HEADERS) $(LINK_FLAGS_FILES) fetch-release-libs
	@mkdir -p $(TEST_BUILD)/gpu/toolkit-12.4
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include tests/gpu/toolkit.c -o $(TEST_BUILD)/gpu/toolkit \
	    -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../../lib'
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include tests/gpu/nvml_getters.c -o $(TEST_BUILD)/gpu/nvml-getters \
	    -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../../lib'
	: > $(TEST_BUILD)/gpu/cubins.txt
	for arch in $(GPU_CUBIN_ARCHS); do \
	    $(CUDA_PATH)/bin/nvcc -cubin -arch=sm_$$arch tests/scale_kernel.cu -o $(TEST_BUILD)/gpu/scale-sm_$$arch.cubin || exit 1; \
	    echo "$$arch=scale-sm_$$arch.cubin" >> $(TEST_BUILD)/gpu/cubins.txt; \
	done
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include tests/gpu/cufile_cubind.c -o $(TEST_BUILD)/gpu/cufile-cubind \
	    -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../../lib'
	$(CC) $(ALL_CFLAGS) tests/gpu/jpeg_fixture.c -o $(TEST_BUILD)/gpu/jpeg_fixture -ljpeg
	$(TEST_BUILD)/gpu/jpeg_fixture $(TEST_BUILD)/gpu/toolkit.jpg $(TEST_BUILD)/gpu/toolkit.rgb
	cp -L $(RELEASES_CACHE)/12.4/lib/libnvfatbin.so.12 $(RELEASES_CACHE)/12.4/lib/libnvjpeg.so.12 \
	    $(RELEASES_CACHE)/12.4/lib/libcufile.so.0 $(TEST_BUILD)/gpu/toolkit-12.4/
	@# cuFile, asked directly (tests/gpu/cufile.c): built against 12.4's cufile.h alone (a copy, so that its
	@# <cuda.h> is the toolkit's, not 12.4's beside it); cufile.h needs loff_t (_DEFAULT_SOURCE): gnu11
	@mkdir -p $(TEST_BUILD)/gpu/cufile-include
	cp -L $(RELEASES_CACHE)/12.4/include/cufile.h $(TEST_BUILD)/gpu/cufile-include/
	$(CC) $(subst -std=c11,-std=gnu11,$(ALL_CFLAGS)) -I$(TEST_BUILD)/gpu/cufile-include -I$(CUDA_PATH)/include \
	    tests/gpu/cufile.c -o $(TEST_BUILD)/gpu/cufile -ldl

# tests/gpu/releases.sh: tests/gpu/releases.c through cubind, and for each configured older release
# ([[release]], `python3 -m generator.release_headers names`) with a runtime in the releases cache, built
# against that release's headers and linked to its libcudart (copied beside it, to travel to the GPU
# machine); the releases carried are listed in releases.txt, which releases.sh runs every one of. A
# release whose runtime lacks the graph-edge and capture forms of the newest one (11.8: no
# cudaStreamGetCaptureInfo_v3) has no direct build. The driver's part (tests/gpu/releases_driver.c):
# through cubind, and per release against its cuda.h (linked to the toolkit's stub, the GPU machine's
# libcuda.so.1 at run time), with a driver that says it is of that release (driver_as_release.py,
# from the IR's driver calls there), libcuda.so.1.release beside that release's runtime.
RELEASES_CACHE = $(shell $(PYTHON) -m generator.release_headers cache)
.PHONY: gpu-releases
gpu-releases: $(LIBRARY_SO) $(BUILT_HEADERS) fetch-releases fetch-release-libs
	@mkdir -p $(TEST_BUILD)/gpu
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include tests/gpu/releases.c -o $(TEST_BUILD)/gpu/releases-cubind \
	    -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../../lib'
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include tests/gpu/releases_driver.c -o $(TEST_BUILD)/gpu/releases-driver-cubind \
	    -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../../lib'
	: > $(TEST_BUILD)/gpu/releases.txt
	for release in $$($(PYTHON) -m generator.release_headers names); do \
	    dir=$(RELEASES_CACHE)/$$release; lib=$$(ls $$dir/lib/libcudart.so.* 2>/dev/null | head -n 1); \
	    [ -n "$$lib" ] || continue; \
	    rm -rf $(TEST_BUILD)/gpu/cuda-$$release && mkdir -p $(TEST_BUILD)/gpu/cuda-$$release && \
	    cp -L $$lib $(TEST_BUILD)/gpu/cuda-$$release/ && \
	    $(CC) $(ALL_CFLAGS) -DCUBIND_TEST_DIRECT -I$$dir/include tests/gpu/releases.c \
	        -o $(TEST_BUILD)/gpu/releases-direct-$$release $(TEST_BUILD)/gpu/cuda-$$release/$$(basename $$lib) || exit 1; \
	    $(CC) $(ALL_CFLAGS) -DCUBIND_TEST_DIRECT -I$$dir/include tests/gpu/releases_driver.c \
	        -o $(TEST_BUILD)/gpu/releases-driver-direct-$$release -L$(CUDA_PATH)/lib64/stubs -lcuda || exit 1; \
	    $(PYTHON) tests/gpu/driver_as_release.py $(GENERATED)/ir/driver.json $$release \
	        $$(echo $$release | awk -F. '{ print $$1 * 1000 + $$2 * 10 }') > $(TEST_BUILD)/gpu/cuda-$$release/driver_as_release.c && \
	    $(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1.release $(TEST_BUILD)/gpu/cuda-$$release/driver_as_release.c \
	        -o $(TEST_BUILD)/gpu/cuda-$$release/libcuda.so.1.release || exit 1; \
	    echo $$release >> $(TEST_BUILD)/gpu/releases.txt; \
	done
	@echo "gpu-releases: the runtimes of CUDA $$(cat $(TEST_BUILD)/gpu/releases.txt | tr '\n' ' ')carried"

test-gpu: gpu-build
	sh tests/gpu/run.sh $(BUILD)

# Fault and bad-input tests of the loader, and the first-call race (tests/test_faults.c): included
# above, before test-valgrind uses its variables.

# The real libraries of every older CUDA release ([[release]] in generator/libraries.toml), fetched
# into the releases cache, loaded through libcubind (tests/releases/).
.PHONY: test-releases
test-releases: $(LIBRARY_SO) fetch-release-libs deps-test
	CUBIND_TEST_LIBCUBIND=$(abspath $(LIBRARY_SO)) $(RESULTS) run tests/releases pytest -- \
	    $(PYTHON) -m pytest -q tests/releases

include tests/dropin/tests.mk

# Every function that returns no status (tests/test_no_status.c, generated/tests/no_status_cases.c):
# its value when the call cannot be made and its mocks' answers, on the tests' mocks and on the
# installed mocks of each release; test_no_status-dropin makes each call by NVIDIA's name, through the
# drop-in.
NO_STATUS_TEST := $(TEST_BUILD)/test_no_status
NO_STATUS_SUPPORT := $(TEST_BUILD)/obj/tests/scenario.o $(TEST_BUILD)/obj/tests/loader_support.o $(LIBRARY_CASES) \
                     $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES)
$(NO_STATUS_TEST): $(TEST_BUILD)/obj/tests/test_no_status.o $(TEST_BUILD)/obj/$(GENERATED)/tests/no_status_cases.o \
                   $(NO_STATUS_SUPPORT)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread
$(TEST_BUILD)/obj-dropin/no_status_cases.o: $(GENERATED)/tests/no_status_cases.c $(PUBLIC_HEADERS) tests/no_status_cases.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -DCUBIND_TEST_DROPIN -c $< -o $@
$(NO_STATUS_TEST)-dropin: $(TEST_BUILD)/obj/tests/test_no_status.o $(TEST_BUILD)/obj-dropin/no_status_cases.o \
                          $(NO_STATUS_SUPPORT) $(DROPIN_SO)
	$(CC) -o $@ $(filter %.o,$^) -L$(BUILD)/lib -lcubind-dropin $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic \
	    -lcmocka -ldl -lpthread

.PHONY: test-no-status
test-no-status: $(NO_STATUS_TEST) $(call plain_only,$(NO_STATUS_TEST)-dropin) $(MOCKS) $(HALF_MOCKS) $(PRODUCT_MOCKS)
	@for t in $(NO_STATUS_TEST) $(call plain_only,$(NO_STATUS_TEST)-dropin); do \
	    CUBIND_TEST_MOCKS=$(abspath $(MOCKS_BUILD)) $(RESULTS) run $$(basename $$t) cmocka -- $$t || exit 1; \
	done

# The mocks' script (tests/mock/test_script.c): CUBIND_MOCK_STATUS and its file, the log, the version
# variables, what is refused and how; threads logging at once (under TSan with the thread tests).
MOCK_SCRIPT_TEST := $(TEST_BUILD)/test_mock_script
# (the names its cases pick from: the recorder's own copy is hidden)
$(MOCK_SCRIPT_TEST): $(TEST_BUILD)/obj/tests/mock/test_script.o $(TEST_BUILD)/obj/tests/scenario.o \
                     $(TEST_BUILD)/obj/$(GENERATED)/tests/mock_names.o $(RECORDER) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) $(LDFLAGS_SAN) $(MOCK_LIBS) -lcmocka -lpthread

.PHONY: test-mock-script test-valgrind-mock-script
test-mock-script: $(MOCK_SCRIPT_TEST)
	$(RESULTS) run test_mock_script cmocka -- $(MOCK_SCRIPT_TEST)
test-valgrind-mock-script: $(MOCK_SCRIPT_TEST)
	$(RESULTS) --variant valgrind run test_mock_script cmocka -- $(VALGRIND) $(MOCK_SCRIPT_TEST)

# Linux aarch64: the cross build and its tests under qemu (make test-aarch64).
include tests/aarch64/aarch64.mk
