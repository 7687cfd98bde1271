# tests/tests.mk - test targets, included by the Makefile.
#
#   make test             generator (pytest), generated-tree check, C tests (CMocka) with $(CC),
#                         a -Werror build of everything with the other compiler, the package
#                         (makefiles, exported ABI, cdef headers, installed-tree consumers).
#   make test SAN=...     the C tests under a sanitizer (build/san-*/).

TEST_BUILD := $(BUILD)/test
MOCK_DIR := $(TEST_BUILD)/mock
HALF_MOCK_DIR := $(TEST_BUILD)/mock-half
RECORDER := $(MOCK_DIR)/libcubind_mock_recorder.so
MOCKS := $(foreach l,$(CUBIND_LIBRARIES),$(MOCK_DIR)/$(CUBIND_SONAME_$(l)))
HALF_MOCKS := $(foreach l,$(CUBIND_LIBRARIES),$(HALF_MOCK_DIR)/$(CUBIND_SONAME_$(l)))

TEST_CFLAGS := $(ALL_CFLAGS) -DCUBIND_NO_DEPRECATION_WARNINGS $(INCLUDES) -Itests -Itests/mock -I$(GENERATED)/tests
# Relative run paths: the test binaries also run from a copy of build/ on a GPU machine.
# CMocka is found in $(TEST_BUILD)/lib first when a GPU run carried it there.
TEST_LIBS := -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/lib' $(LDFLAGS_SAN)
MOCK_LIBS := -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$ORIGIN/mock'
CUDA_RUNTIME_CFLAGS := -isystem $(CUDA_PATH)/include
CUDA_RUNTIME_LIBS := -L$(CUDA_PATH)/lib64 -lcudart -Wl,-rpath,$(CUDA_PATH)/lib64
MOCK_ENV := $(foreach l,$(CUBIND_LIBRARIES),$(CUBIND_ENV_$(l))=$(abspath $(MOCK_DIR))/$(CUBIND_SONAME_$(l)))

# The ABI check programs (see test-abi). Defined before any rule names them: make expands a
# rule's prerequisites where it reads the rule (`make test-makefiles` catches a late definition).
ABI_UNITS := $(patsubst $(GENERATED)/tests/abi_%.c,%,$(wildcard $(GENERATED)/tests/abi_*.c))
ABI_PROGRAMS := $(foreach u,$(ABI_UNITS),$(TEST_BUILD)/abi/$(u)-cubind $(TEST_BUILD)/abi/$(u)-nvidia $(TEST_BUILD)/abi/$(u)-cxx)

# Unit tests of the loader on mocks, and of the real CUDA libraries.
C_TESTS := $(TEST_BUILD)/test_loader $(TEST_BUILD)/test_real $(TEST_BUILD)/test_libraries $(TEST_BUILD)/test_trace \
           $(TEST_BUILD)/test_trace-inline \
           $(TEST_BUILD)/test_unload
# Each library's facts and two calls, generated from the configuration (tests/library_cases.h).
LIBRARY_CASES := $(TEST_BUILD)/obj/$(GENERATED)/tests/library_cases.o
PASSTHROUGH := $(TEST_BUILD)/passthrough
PASSTHROUGH_OBJECTS := $(patsubst %.c,$(TEST_BUILD)/obj/%.o,tests/passthrough_main.c \
                         $(wildcard $(GENERATED)/tests/passthrough_*.c))
# The same tests through the inline form of the wrappers (CUBIND_INLINE, cubind/inline.h).
PASSTHROUGH_INLINE := $(TEST_BUILD)/passthrough-inline
PASSTHROUGH_INLINE_OBJECTS := $(TEST_BUILD)/obj/tests/passthrough_main.o \
                              $(patsubst %.c,$(TEST_BUILD)/obj-inline/%.o,$(wildcard $(GENERATED)/tests/passthrough_*.c))

# Linked binaries depend on the makefiles: their flags (run paths) live there.
LINK_FLAGS_FILES := Makefile tests/tests.mk

# The fault tests' variables (REENTRANT_MOCK, SLOW_MOCK) are used by test-valgrind below.
include tests/faults.mk
# Embedding: subsets, the amalgamation, the CMake subdirectory, two copies in one process.
include tests/embed/embed.mk

OTHER_CC := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),gcc,clang)
OTHER_CXX := $(if $(findstring clang,$(OTHER_CC)),clang++,g++)

.PHONY: test-passthrough test-loader test-unload test-real test-abi test-probe test-link test-install test-valgrind \
        test-trace test-build gpu-build test-gpu test-package test-makefiles test-exports test-cdef test-consumers \
        abi-baseline

test: deps
	$(MAKE) test-generator
	$(MAKE) check-generated
	$(MAKE) test-c
	$(MAKE) test-package
	$(MAKE) compilers
	$(MAKE) test-c SAN=address,undefined
	$(MAKE) test-c SAN=thread
	$(MAKE) test-valgrind

test-generator: deps-generator deps-test
	$(PYTHON) -m pytest -q tests/generator

test-c: test-abi test-headers test-passthrough test-loader test-trace test-unload test-real test-probe test-link test-install \
        test-examples test-bench-build

test-build: all $(MOCKS) $(HALF_MOCKS) $(PASSTHROUGH) $(PASSTHROUGH_INLINE) $(C_TESTS) $(TEST_BUILD)/sgemm $(ABI_PROGRAMS)

# A -Werror build of the library, the probe, the mocks and the tests with the other compiler.
compilers:
	$(MAKE) CC=$(OTHER_CC) CXX=$(OTHER_CXX) BUILD=build/$(OTHER_CC) SAN= test-build
	@n=$$(ls build/$(OTHER_CC)/test/abi/ | grep -c -E -e '-(cubind|nvidia|cxx)$$'); \
	    if [ "$$n" -ne $(words $(ABI_PROGRAMS)) ]; then \
	        echo "compilers: $$n of $(words $(ABI_PROGRAMS)) ABI programs built with $(OTHER_CC)"; exit 1; fi; \
	    echo "compilers: library, probe, mocks, tests and $$n ABI programs built with $(OTHER_CC)"

$(TEST_BUILD)/obj/%.o: %.c $(PUBLIC_HEADERS) $(wildcard tests/*.h tests/mock/*.h $(GENERATED)/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

$(RECORDER): tests/mock/recorder.c tests/mock/recorder.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libcubind_mock_recorder.so -o $@ $< -lpthread $(LDFLAGS_SAN)

# A mock of each library, named by its soname; the half mocks export every other symbol only.
define mock_rules
$(MOCK_DIR)/$(CUBIND_SONAME_$(1)): $(GENERATED)/tests/mock_$(1).c $(RECORDER) $(PUBLIC_HEADERS)
	$(CC) $(TEST_CFLAGS) -fPIC -shared -Wl,-soname,$(CUBIND_SONAME_$(1)) -o $$@ $$< \
	    -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$$$ORIGIN' $(LDFLAGS_SAN)
$(HALF_MOCK_DIR)/$(CUBIND_SONAME_$(1)): $(GENERATED)/tests/mock_$(1).c $(RECORDER) $(PUBLIC_HEADERS)
	@mkdir -p $$(dir $$@)
	$(CC) $(TEST_CFLAGS) -DCUBIND_MOCK_HALF -fPIC -shared -Wl,-soname,$(CUBIND_SONAME_$(1)) -o $$@ $$< \
	    -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$$$ORIGIN/../mock' $(LDFLAGS_SAN)
endef
$(foreach l,$(CUBIND_LIBRARIES),$(eval $(call mock_rules,$(l))))

$(PASSTHROUGH): $(PASSTHROUGH_OBJECTS) $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(PASSTHROUGH_OBJECTS) $(TEST_LIBS) $(MOCK_LIBS) -lcmocka

$(TEST_BUILD)/obj-inline/%.o: %.c $(PUBLIC_HEADERS) $(wildcard tests/*.h tests/mock/*.h $(GENERATED)/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -DCUBIND_INLINE -c $< -o $@

$(PASSTHROUGH_INLINE): $(PASSTHROUGH_INLINE_OBJECTS) $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(PASSTHROUGH_INLINE_OBJECTS) $(TEST_LIBS) $(MOCK_LIBS) -lcmocka

# test_loader counts dlopen calls by defining dlopen itself: it must be exported.
$(TEST_BUILD)/test_loader: $(TEST_BUILD)/obj/tests/test_loader.o $(TEST_BUILD)/obj/tests/scenario.o \
                           $(TEST_BUILD)/obj/tests/loader_support.o $(LIBRARY_CASES) $(LIBRARY_SO) $(RECORDER) \
                           $(LINK_FLAGS_FILES)
	$(CC) -o $@ $(filter %.o,$^) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread

$(TEST_BUILD)/test_real: $(TEST_BUILD)/obj/tests/test_real.o $(LIBRARY_CASES) $(LIBRARY_SO) $(LINK_FLAGS_FILES)
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

# The README's example, built like every example (examples/examples.mk): cubind's headers and -lcubind only.
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
$(TEST_BUILD)/abi/%-nvidia: $(GENERATED)/tests/abi_%.c $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ABI_FLAGS) -DCUBIND_ABI_NVIDIA -isystem $(CUDA_PATH)/include $< -o $@ $(LDFLAGS_SAN)
$(TEST_BUILD)/abi/%-cxx: $(GENERATED)/tests/abi_%.c $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXX_WARNINGS) $(CFLAGS) $(SAN_FLAGS) $(ABI_FLAGS) -DCUBIND_ABI_NVIDIA -isystem $(CUDA_PATH)/include \
	    -x c++ $< -x none -o $@

test-abi: $(ABI_PROGRAMS)
	@for u in $(ABI_UNITS); do \
	    for v in cubind nvidia cxx; do $(TEST_BUILD)/abi/$$u-$$v > $(TEST_BUILD)/abi/$$u-$$v.txt || exit 1; done; \
	    cmp -s $(TEST_BUILD)/abi/$$u-cubind.txt $(TEST_BUILD)/abi/$$u-nvidia.txt && \
	    cmp -s $(TEST_BUILD)/abi/$$u-cubind.txt $(TEST_BUILD)/abi/$$u-cxx.txt || \
	    { echo "abi $$u: cubind's declarations differ from NVIDIA's:"; \
	      diff $(TEST_BUILD)/abi/$$u-nvidia.txt $(TEST_BUILD)/abi/$$u-cubind.txt; exit 1; }; \
	    echo "abi $$u: $$(wc -l < $(TEST_BUILD)/abi/$$u-cubind.txt) values, sizes and offsets identical; \
	$$(grep -c "picks the wrapper out of" $(GENERATED)/tests/abi_$$u.c) wrapper types equal to NVIDIA's"; \
	done

# cubind's headers and NVIDIA's in one translation unit, in both orders, as C11, C++11 and C++17,
# with both compilers ($(GENERATED)/tests/include_order.c). NVIDIA's directory is a system one, as
# in real builds: its own headers do not compile warning-free with -Werror.
HEADER_ORDER_FLAGS := -Wall -Wextra -Werror -pedantic -Wshadow $(INCLUDES) \
                      -isystem $(CUDA_PATH)/include
test-headers: $(PUBLIC_HEADERS)
	@mkdir -p $(TEST_BUILD)/headers
	@for form in outline inline; do for order in cubind-first nvidia-first; do \
	    define="$$([ $$order = nvidia-first ] && echo -DCUBIND_NVIDIA_FIRST) $$([ $$form = inline ] && echo -DCUBIND_INLINE -fPIC)"; \
	    for cc in gcc clang; do \
	        $$cc -std=c11 $(HEADER_ORDER_FLAGS) $$define $(GENERATED)/tests/include_order.c \
	            -o $(TEST_BUILD)/headers/$$cc-$$order-$$form -Wl,--unresolved-symbols=ignore-all || exit 1; done; \
	    for cxx in g++ clang++; do for std in c++11 c++17; do \
	        $$cxx -std=$$std $(HEADER_ORDER_FLAGS) $$define -x c++ $(GENERATED)/tests/include_order.c \
	            -o $(TEST_BUILD)/headers/$$cxx-$$std-$$order-$$form -Wl,--unresolved-symbols=ignore-all || exit 1; \
	    done; done; \
	done; done
	@echo "headers: cubind's and NVIDIA's compile together in both orders (C11, C++11, C++17; gcc, clang), with and without CUBIND_INLINE"

test-passthrough: $(PASSTHROUGH) $(PASSTHROUGH_INLINE) $(MOCKS)
	@for p in $(PASSTHROUGH) $(PASSTHROUGH_INLINE); do \
	    echo "$$(basename $$p): every wrapper against the mocks (log: $$p.log)"; \
	    env $(MOCK_ENV) $$p > $$p.log 2>&1 || \
	        { grep -v "^\[       OK \]\|^\[ RUN      \]" $$p.log; exit 1; }; \
	    grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^passthrough:" $$p.log; \
	done

test-loader: $(TEST_BUILD)/test_loader $(TEST_BUILD)/test_libraries $(MOCKS) $(HALF_MOCKS)
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    $(TEST_BUILD)/test_loader
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    $(TEST_BUILD)/test_libraries

test-unload: $(TEST_BUILD)/test_unload
	CUBIND_CUFFT_PATH=/nonexistent/libcufft.so.12 CUBIND_TEST_LIBRARY=$(abspath $(LIBRARY_SONAME)) \
	    $(TEST_BUILD)/test_unload

test-trace: $(TEST_BUILD)/test_trace $(TEST_BUILD)/test_trace-inline $(MOCKS)
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) $(TEST_BUILD)/test_trace
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) $(TEST_BUILD)/test_trace-inline

# NVIDIA's libraries keep a few allocations of a failed handle creation (no GPU): LeakSanitizer
# is told to ignore leaks allocated inside them, never ours.
test-real: $(TEST_BUILD)/test_real
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan-cuda.supp) $(TEST_BUILD)/test_real

# The loader tests under valgrind memcheck: no error, nothing definitely lost (children traced).
# The first-call race runs a few rounds only (memcheck is slow; TSan covers the race).
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --trace-children=yes \
            --suppressions=$(abspath tests/valgrind.supp)
test-valgrind: $(TEST_BUILD)/test_loader $(TEST_BUILD)/test_libraries $(TEST_BUILD)/test_faults $(MOCKS) $(HALF_MOCKS) $(REENTRANT_MOCK) $(SLOW_MOCK)
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    $(VALGRIND) $(TEST_BUILD)/test_loader
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    $(VALGRIND) $(TEST_BUILD)/test_libraries
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    CUBIND_TEST_ROUNDS=4 $(VALGRIND) $(TEST_BUILD)/test_faults

test-probe: $(PROBE) deps-test
	CUBIND_PROBE=$(abspath $(PROBE)) $(PYTHON) -m pytest -q tests/probe

# libcubind.so needs no CUDA library to load: it opens them itself.
test-link: $(LIBRARY_SO)
	@if readelf -d $(LIBRARY_SONAME) | grep NEEDED | grep -i -E "cu(da|blas|fft|rand|solver|sparse|dnn)|nvrtc|nvjitlink|nccl"; then \
	    echo "libcubind.so links against a CUDA library"; exit 1; fi
	@echo "libcubind.so needs: $$(readelf -d $(LIBRARY_SONAME) | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"

# An installed tree is all a user needs: its headers and library, nothing of CUDA or of this checkout.
# `make install` only copies what `make` built: a dry run after `make` shows no compiler.
test-install: all
	rm -rf $(TEST_BUILD)/install
	@if $(MAKE) --no-print-directory -n install PREFIX=$(abspath $(TEST_BUILD)/install) | \
	    grep -E '^($(CC)|$(AR)|$(CXX)) '; then echo "test-install: make install compiles (above)"; exit 1; fi
	$(MAKE) --no-print-directory install PREFIX=$(abspath $(TEST_BUILD)/install) > /dev/null
	$(CC) $(ALL_CFLAGS) -I$(TEST_BUILD)/install/include tests/install_check.c -o $(TEST_BUILD)/install/use \
	    -L$(TEST_BUILD)/install/lib -lcubind -Wl,-rpath,$(abspath $(TEST_BUILD)/install/lib) $(LDFLAGS_SAN)
	$(TEST_BUILD)/install/use
	$(TEST_BUILD)/install/bin/cubind-probe > /dev/null

# --- the package: not under a sanitizer (LuaJIT, Python and CMake load the library themselves) ---
test-package: test-makefiles test-exports test-cdef test-consumers

# The makefiles, by dry runs in an empty build tree: no variable is used before it is defined
# (make expands a rule's prerequisites where it reads the rule: ABI_PROGRAMS once was, and
# `make compilers` built no ABI program), the fault mocks are built for test-valgrind, the ABI
# programs for test-build, and `make probe` builds the checked-in tree without regenerating it.
MAKECHECK := $(MAKE) --no-print-directory -n --warn-undefined-variables BUILD=build/makecheck
test-makefiles:
	@for goal in all test-build test-valgrind test-c install probe; do \
	    if $(MAKECHECK) $$goal 2>&1 >/dev/null | grep "warning: undefined variable"; then \
	        echo "test-makefiles: make $$goal uses a variable before it is defined (above)"; exit 1; fi; \
	done
	@$(MAKECHECK) test-valgrind 2>/dev/null | grep -q -- "-o build/makecheck/test/mock-reentrant/" && \
	    $(MAKECHECK) test-valgrind 2>/dev/null | grep -q -- "-o build/makecheck/test/mock-slow/" || \
	    { echo "test-makefiles: make test-valgrind does not build the reentrant and slow mocks"; exit 1; }
	@n=$$($(MAKECHECK) test-build 2>/dev/null | grep -c -E -- "-o build/makecheck/test/abi/[^ ]*-(cubind|nvidia|cxx)( |$$)"); \
	    [ "$$n" -eq $(words $(ABI_PROGRAMS)) ] || \
	    { echo "test-makefiles: make test-build builds $$n of $(words $(ABI_PROGRAMS)) ABI programs"; exit 1; }
	@if $(MAKECHECK) probe 2>/dev/null | grep -E -- "-m generator|make.* generate"; then \
	    echo "test-makefiles: make probe regenerates (above)"; exit 1; fi
	@echo "test-makefiles: no variable used before its definition; test-valgrind builds its mocks, \
	test-build its $(words $(ABI_PROGRAMS)) ABI programs; make probe does not regenerate"

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

# Accept the ABI as it is now (after an intended change: see abi/compare.sh's message).
abi-baseline: $(EXPORTS_DIR)/symbols.txt $(EXPORTS_DIR)/layout.txt
	cp $(EXPORTS_DIR)/symbols.txt abi/symbols.txt
	cp $(EXPORTS_DIR)/layout.txt abi/layout.txt

# The cdef headers: flat, valid C, accepted by LuaJIT's ffi.cdef and cffi's cdef.
test-cdef: deps-test
	@sh tests/consumers/cdef_check.sh $(CC) $(CDEF_FILES)

# An installed tree (DESTDIR staging, so every file must find the others relative to itself)
# and its consumers: C through pkg-config and CMake, LuaJIT, cffi, ctypes, Rust (bindgen).
PACKAGE_DIR := $(TEST_BUILD)/package
PACKAGE_PREFIX := /opt/cubind
test-consumers: all deps-test
	rm -rf $(PACKAGE_DIR)
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(PACKAGE_DIR))/stage PREFIX=$(PACKAGE_PREFIX) > /dev/null
	@cd $(PACKAGE_DIR)/stage$(PACKAGE_PREFIX) && for f in lib/$(REALNAME) lib/$(SONAME) lib/libcubind.so lib/libcubind.a \
	        lib/pkgconfig/cubind.pc lib/cmake/cubind/cubindConfig.cmake lib/cmake/cubind/cubindConfigVersion.cmake \
	        bin/cubind-probe include/cubind/cubind.h include/cubind/version.h share/cubind/cdef/cubind.h \
	        share/cubind/ir.schema.json $(addprefix share/cubind/cdef/,$(notdir $(CDEF_FILES))) \
	        $(addprefix share/cubind/ir/,$(notdir $(IR_FILES))) $(addprefix include/cubind/,$(notdir $(BUILT_HEADERS))); do \
	    [ -e "$$f" ] || { echo "test-consumers: $(PACKAGE_PREFIX)/$$f not installed"; exit 1; }; done
	@[ "$$(readlink $(PACKAGE_DIR)/stage$(PACKAGE_PREFIX)/lib/$(SONAME))" = "$(REALNAME)" ] && \
	    [ "$$(readlink $(PACKAGE_DIR)/stage$(PACKAGE_PREFIX)/lib/libcubind.so)" = "$(SONAME)" ] || \
	    { echo "test-consumers: wrong library links"; exit 1; }
	$(PACKAGE_DIR)/stage$(PACKAGE_PREFIX)/bin/cubind-probe > /dev/null
	sh tests/consumers/run.sh $(abspath $(PACKAGE_DIR))/stage$(PACKAGE_PREFIX) $(abspath $(PACKAGE_DIR))/work $(VERSION) $(CC)

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

gpu-build: test-build $(TEST_BUILD)/test_gpu $(GPU_LIB_DIR)/libcmocka.so.0 examples $(MOCK_DIR)/environment.txt

test-gpu: gpu-build
	sh tests/gpu/run.sh $(BUILD)

# Fault and bad-input tests of the loader, and the first-call race (tests/test_faults.c): included
# above, before test-valgrind uses its variables.
