# tests/embed/embed.mk - embedding (docs/embedding.md), included by tests/tests.mk; `make test-c` runs it.
#
#   make test-embed   a subset generated apart (its own library, mocks and passthrough tests, pinned
#                     ids, the libraries it leaves out reported absent); the amalgamation compiled
#                     alone; docs/embedding.md's examples as printed; two embedders in one process;
#                     the shared traced path on every kind of argument; prefixed trees (API_PREFIX), two
#                     of them linked into one library; a subset picked the three ways (make generate,
#                     the amalgamation, CMake) with nothing to fetch, the same files as from the headers

EMBED_DIR := $(TEST_BUILD)/embed
# The subset the tests generate, and its own tree and build.
EMBED_SELECTION := cufft
EMBED_TREE := $(EMBED_DIR)/tree-$(subst $(space),-,$(EMBED_SELECTION))
EMBED_TREE_BUILD := $(EMBED_DIR)/build-$(subst $(space),-,$(EMBED_SELECTION))
# (rendered from the checked-in IR, as make generate LIBRARIES=... does: test-embed-from-ir checks
# that this is what the headers give, with nothing fetched)
GENERATOR_SOURCES := $(wildcard generator/*.py generator/*.toml templates/*.j2 generated/ir/*.json)

.PHONY: test-embed test-embed-subset

test-c: test-embed
test-embed: test-embed-subset

$(EMBED_TREE)/build.mk: $(GENERATOR_SOURCES) | deps-generator
	$(PYTHON) -m generator generate --from-ir $(CHECKED_IN_IR) \
	    --libraries $(EMBED_SELECTION) --out $(EMBED_TREE)

# The subset's library against the full one: the same id for every library's name; those left out
# reported absent, those kept not. Then the subset's own mocks and passthrough tests.
test-embed-subset: $(EMBED_TREE)/build.mk $(LIBRARY_SO) tests/embed/subset_check.c
	@mkdir -p $(EMBED_DIR)
	@# (a dry run, `make -n`, has not generated the tree: the sub-make would find no build.mk)
	[ ! -f $(EMBED_TREE)/build.mk ] || $(MAKE) --no-print-directory GENERATED=$(EMBED_TREE) BUILD=$(EMBED_TREE_BUILD) \
	    SAN=$(SAN) $(EMBED_TREE_BUILD)/lib/libcubind.so $(EMBED_TREE_BUILD)/lib/libcubind.a test-passthrough
	$(CC) $(ALL_CFLAGS) -Iinclude -I$(EMBED_TREE)/include tests/embed/subset_check.c -o $(EMBED_DIR)/subset_check \
	    -L$(EMBED_TREE_BUILD)/lib -lcubind -Wl,-rpath,$(abspath $(EMBED_TREE_BUILD)/lib) $(LDFLAGS_SAN)
	$(CC) $(ALL_CFLAGS) $(INCLUDES) tests/embed/subset_check.c -o $(EMBED_DIR)/subset_check-full \
	    -L$(BUILD)/lib -lcubind -Wl,-rpath,$(abspath $(BUILD)/lib) $(LDFLAGS_SAN)
	$(EMBED_DIR)/subset_check ids > $(EMBED_DIR)/ids-subset.txt
	$(EMBED_DIR)/subset_check-full ids > $(EMBED_DIR)/ids-full.txt
	@cmp -s $(EMBED_DIR)/ids-subset.txt $(EMBED_DIR)/ids-full.txt || \
	    { echo "test-embed: the subset's library ids differ from the full library's:"; \
	      diff $(EMBED_DIR)/ids-full.txt $(EMBED_DIR)/ids-subset.txt; exit 1; }
	$(EMBED_DIR)/subset_check absent $(EMBED_SELECTION) > $(EMBED_DIR)/absent.txt || { cat $(EMBED_DIR)/absent.txt; exit 1; }
	@echo "test-embed: subset $(EMBED_SELECTION): the $$(wc -l < $(EMBED_DIR)/ids-full.txt) ids of the full library; \
	$$(grep -c ': absent' $(EMBED_DIR)/absent.txt) libraries left out, each reported absent by cubind_library_info"

# --- the amalgamation: the subset above, with and without a prefix, compiled alone ---------------
# (cc -c and nothing else: no include path, C11, -Wall -Wextra -Werror -pedantic, gcc and clang).
EMBED_AMALGAMATION := $(EMBED_DIR)/amalgamation
.PHONY: test-embed-amalgamation
test-embed: $(call plain_only,test-embed-amalgamation)
test-embed-amalgamation: $(EMBED_TREE)/build.mk | deps-generator
	$(PYTHON) -m generator amalgamate --tree $(EMBED_TREE) --out $(EMBED_AMALGAMATION)
	$(PYTHON) -m generator amalgamate --tree $(EMBED_TREE) --prefix embedded --out $(EMBED_AMALGAMATION)
	@for name in cubind embedded; do for cc in gcc clang; do \
	    (cd $(EMBED_AMALGAMATION) && $$cc -std=c11 -Wall -Wextra -Werror -pedantic -O2 -fPIC -c $$name.c \
	        -o $$name-$$cc.o) || exit 1; \
	    if readelf -s -W $(EMBED_AMALGAMATION)/$$name-$$cc.o | awk '$$5 == "GLOBAL" && $$7 != "UND"' | \
	        grep -v " HIDDEN "; then echo "test-embed: $$name.c ($$cc) defines symbols that are not hidden (above)"; exit 1; fi; \
	done; done
	@if readelf -s -W $(EMBED_AMALGAMATION)/embedded-gcc.o | awk '{print $$8}' | grep -i cubind; then \
	    echo "test-embed: the prefixed amalgamation still names cubind symbols (above)"; exit 1; fi
	@echo "test-embed: the $(EMBED_SELECTION) amalgamation, plain and prefixed, compiles alone with gcc and clang \
	($$(wc -l < $(EMBED_AMALGAMATION)/cubind.c) + $$(wc -l < $(EMBED_AMALGAMATION)/cubind.h) lines); every symbol hidden"

# --- the examples of docs/embedding.md, run as printed (tests/embed/snippets.py) -----------------
# The shared library's program prints its version; each library built the three other ways exports
# its own function only (nothing of cubind); the CMake target holds the selection, hidden.
EMBED_DOCS := $(EMBED_DIR)/docs
.PHONY: test-embed-docs
test-embed: $(call plain_only,test-embed-docs)
test-embed-docs: docs/embedding.md tests/embed/snippets.py | deps-generator deps-test
	$(MAKE) --no-print-directory SAN= GENERATED=generated TRACE=1 BUILD=build all
	rm -rf $(EMBED_DOCS)
	$(PYTHON) tests/embed/snippets.py docs/embedding.md $(EMBED_DOCS) .
	@grep -q "through cubind $(VERSION)$$" $(EMBED_DOCS)/run-1.log || \
	    { echo "test-embed: the shared library's example printed:"; cat $(EMBED_DOCS)/run-1.log; exit 1; }
	@for lib in libmylib.so libmylib_prefixed.so libmylib_vendored.so build/libmylib.so; do \
	    exported=$$(nm -D --defined-only $(EMBED_DOCS)/$$lib | awk '{print $$3}' | tr '\n' ' '); \
	    [ "$$exported" = "mylib_cufft_version " ] || \
	        { echo "test-embed: $$lib exports $$exported (only mylib_cufft_version expected)"; exit 1; }; \
	done
	@archive=$$(find $(EMBED_DOCS)/build -name 'libcubind_embedded.a'); \
	    readelf -s -W $$archive | awk '$$5 == "GLOBAL" && $$7 != "UND" {print $$6, $$8}' > $(EMBED_DOCS)/cmake-symbols.txt; \
	    grep -q " cubind_cufft_plan1d$$" $(EMBED_DOCS)/cmake-symbols.txt && ! grep -q " cubind_cublas_" $(EMBED_DOCS)/cmake-symbols.txt && \
	    ! grep -v "^HIDDEN " $(EMBED_DOCS)/cmake-symbols.txt || \
	    { echo "test-embed: cubind::embedded is not the cuFFT selection, all hidden ($(EMBED_DOCS)/cmake-symbols.txt)"; exit 1; }
	@echo "test-embed: docs/embedding.md's examples run as printed; libmylib.so built four ways exports \
	mylib_cufft_version only; cubind::embedded holds the cuFFT selection, hidden"

# --- two embedders in one process (tests/embed/two_embedders.c) ----------------------------------
# embedder_a: the cuFFT subset's libcubind.a, this version. embedder_b: the amalgamation of another
# selection (cuFFT and cuRAND) from a copy of cubind whose minor version is one more, prefixed
# embedb. Both loaded together, linked and with dlopen; neither exports anything of cubind.
EMBED_TWO := $(EMBED_DIR)/two
EMBED_NEXT_VERSION := $(VERSION_MAJOR).$(shell echo $$(($(VERSION_MINOR) + 1))).$(VERSION_PATCH)
EMBED_TREE_B := $(EMBED_DIR)/tree-cufft-curand
.PHONY: test-embed-two
test-embed: test-embed-two

$(EMBED_TREE_B)/build.mk: $(GENERATOR_SOURCES) | deps-generator
	$(PYTHON) -m generator generate --from-ir $(CHECKED_IN_IR) \
	    --libraries cufft curand --out $(EMBED_TREE_B)

# cubind's next minor version: a copy of the sources with version.h's minor raised.
$(EMBED_TWO)/next/embedb.c: $(EMBED_TREE_B)/build.mk $(wildcard include/cubind/*.h loader/*.c loader/*.h) $(GENERATOR_SOURCES)
	rm -rf $(EMBED_TWO)/next && mkdir -p $(EMBED_TWO)/next
	cp -R include loader generator templates $(EMBED_TWO)/next/
	sed -i 's/^#define CUBIND_VERSION_MINOR $(VERSION_MINOR)$$/#define CUBIND_VERSION_MINOR $(word 2,$(subst ., ,$(EMBED_NEXT_VERSION)))/' \
	    $(EMBED_TWO)/next/include/cubind/version.h
	grep -q "^#define CUBIND_VERSION_MINOR $(word 2,$(subst ., ,$(EMBED_NEXT_VERSION)))$$" $(EMBED_TWO)/next/include/cubind/version.h
	cd $(EMBED_TWO)/next && $(PYTHON) -m generator amalgamate --tree $(abspath $(EMBED_TREE_B)) --prefix embedb --out .

$(EMBED_TWO)/libembedder_a.so: tests/embed/embedder.c test-embed-subset
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -shared -DEMBEDDER=embedder_a -Iinclude -I$(EMBED_TREE)/include \
	    $< $(EMBED_TREE_BUILD)/lib/libcubind.a -o $@ -ldl -lpthread
$(EMBED_TWO)/libembedder_b.so: tests/embed/embedder.c $(EMBED_TWO)/next/embedb.c
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -shared -DEMBEDDER=embedder_b -DEMBEDDER_PREFIXED \
	    -I$(EMBED_TWO)/next $< $(EMBED_TWO)/next/embedb.c -o $@ -ldl -lpthread

test-embed-two: $(EMBED_TWO)/libembedder_a.so $(EMBED_TWO)/libembedder_b.so tests/embed/two_embedders.c
	@for lib in a b; do \
	    readelf --dyn-syms -W $(EMBED_TWO)/libembedder_$$lib.so | awk '$$1 ~ /^[0-9]+:$$/ && $$7 != "UND" && $$5 != "LOCAL" {print $$8}' \
	        > $(EMBED_TWO)/exports-$$lib.txt; \
	    if grep -v "^embedder_$${lib}_" $(EMBED_TWO)/exports-$$lib.txt; then \
	        echo "test-embed: libembedder_$$lib.so exports more than its own embedder_$${lib}_* (above)"; exit 1; fi; \
	done
	mkdir -p $(EMBED_TWO)/mock-a $(EMBED_TWO)/mock-b
	for d in mock-a mock-b; do cp $(EMBED_TREE_BUILD)/test/mock/libcufft.so.12 \
	    $(EMBED_TREE_BUILD)/test/mock/libcubind_mock_recorder.so $(EMBED_TWO)/$$d/; done
	$(CC) $(ALL_CFLAGS) -Iinclude -I$(EMBED_TREE)/include -DEMBEDDERS_LINKED tests/embed/two_embedders.c -o $(EMBED_TWO)/linked \
	    -L$(EMBED_TWO) -lembedder_a -lembedder_b -Wl,-rpath,$(abspath $(EMBED_TWO)) $(LDFLAGS_SAN)
	$(CC) $(ALL_CFLAGS) -Iinclude -I$(EMBED_TREE)/include tests/embed/two_embedders.c -o $(EMBED_TWO)/opened -ldl $(LDFLAGS_SAN)
	$(EMBED_TWO)/linked $(VERSION) $(EMBED_NEXT_VERSION) $(abspath $(EMBED_TWO))/mock-a/$(CUBIND_SONAME_cufft) \
	    $(abspath $(EMBED_TWO))/mock-b/$(CUBIND_SONAME_cufft)
	@# under SAN=address the leak check is on: the copy in libembedder_a frees what it keeps when
	@# dlclose unloads it (cubind__unloading, loader/platform.h)
	$(EMBED_TWO)/opened $(VERSION) $(EMBED_NEXT_VERSION) $(abspath $(EMBED_TWO))/mock-a/$(CUBIND_SONAME_cufft) \
	    $(abspath $(EMBED_TWO))/mock-b/$(CUBIND_SONAME_cufft) \
	    $(abspath $(EMBED_TWO))/libembedder_a.so $(abspath $(EMBED_TWO))/libembedder_b.so
	@echo "test-embed: two embedders in one process (linked, and dlopen + dlclose + fork): each its own state; \
	each exports $$(wc -l < $(EMBED_TWO)/exports-a.txt) functions of its own, nothing of cubind"

# --- the shared traced path on every kind of a description (tests/embed/trace_log_check.c) --------
.PHONY: test-embed-trace
test-embed: test-embed-trace
test-embed-trace: tests/embed/trace_log_check.c test-embed-subset
	$(CC) $(ALL_CFLAGS) -Iinclude -I$(EMBED_TREE)/include -Iloader $< -o $(EMBED_DIR)/trace_log_check \
	    $(EMBED_TREE_BUILD)/lib/libcubind.a -ldl -lpthread $(LDFLAGS_SAN)
	rm -f $(EMBED_DIR)/trace.txt
	CUBIND_TRACE=1 CUBIND_TRACE_FILE=$(abspath $(EMBED_DIR))/trace.txt $(EMBED_DIR)/trace_log_check $(EMBED_DIR)/trace.txt

# --- the version node: a program linked against this libcubind.so refuses one of another minor -----
# (a stand-in libcubind.so.0 whose only export, cubind_version, is under the next minor's node).
EMBED_NODE := $(EMBED_DIR)/node
EMBED_NEXT_NODE := CUBIND_$(VERSION_MAJOR).$(word 2,$(subst ., ,$(EMBED_NEXT_VERSION)))
.PHONY: test-embed-version
test-embed: test-embed-version
test-embed-version: tests/embed/print_version.c $(LIBRARY_SO) $(VERSION_SCRIPT)
	@mkdir -p $(EMBED_NODE)/next
	$(CC) $(ALL_CFLAGS) $(INCLUDES) $< -o $(EMBED_NODE)/print_version -L$(BUILD)/lib -lcubind $(LDFLAGS_SAN)
	sed 's/^$(VERSION_NODE) {$$/$(EMBED_NEXT_NODE) {/' $(VERSION_SCRIPT) > $(EMBED_NODE)/next/libcubind.map
	printf 'const char *cubind_version(void);\nconst char *cubind_version(void) { return "$(EMBED_NEXT_VERSION)"; }\n' \
	    > $(EMBED_NODE)/next/version.c
	$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(EMBED_NODE)/next/libcubind.map \
	    $(EMBED_NODE)/next/version.c -o $(EMBED_NODE)/next/$(SONAME) $(LDFLAGS_SAN)
	LD_LIBRARY_PATH=$(abspath $(BUILD)/lib) $(EMBED_NODE)/print_version | grep -q -x "$(VERSION)"
	@if LD_LIBRARY_PATH=$(abspath $(EMBED_NODE)/next) $(EMBED_NODE)/print_version > $(EMBED_NODE)/next.log 2>&1; then \
	    echo "test-embed: a program linked against $(VERSION_NODE) ran with a $(EMBED_NEXT_NODE) libcubind:"; \
	    cat $(EMBED_NODE)/next.log; exit 1; fi
	@grep -q "version \`$(VERSION_NODE)' not found" $(EMBED_NODE)/next.log || { cat $(EMBED_NODE)/next.log; exit 1; }
	@echo "test-embed: linked against $(VERSION_NODE), a program refuses a libcubind.so.0 of $(EMBED_NEXT_NODE): \
	$$(cat $(EMBED_NODE)/next.log)"

# --- prefixed trees (make generate API_PREFIX=...), two of them linked into one library ----------
# Each tree (the cuFFT subset with the prefix embedpa; cuFFT and cuRAND with embedpb) is built from
# its own loader and headers and runs its own passthrough tests on its own mocks; no symbol of its
# library or archive is named cubind, and the library exports <prefix>_* only. Then tests/embed/
# embedder.c on each tree, both archives in one shared library: each copy keeps its own state
# (tests/embed/two_embedders.c, linked).
EMBED_PREFIXED := $(EMBED_DIR)/prefixed
EMBED_PREFIXES := embedpa embedpb
EMBED_PREFIX_LIBRARIES_embedpa := cufft
EMBED_PREFIX_LIBRARIES_embedpb := cufft curand
EMBED_PREFIX_SOURCES := $(GENERATOR_SOURCES) $(wildcard include/cubind/*.h loader/*.c loader/*.h abi/libcubind.map) \
                        tests/passthrough_main.c tests/passthrough.h tests/mock/recorder.c tests/mock/recorder.h tests/mock/names.h
.PHONY: test-embed-prefix
test-embed: $(call plain_only,test-embed-prefix)

$(foreach p,$(EMBED_PREFIXES),$(EMBED_DIR)/tree-$(p)/build.mk): $(EMBED_DIR)/tree-%/build.mk: $(EMBED_PREFIX_SOURCES) | deps-generator
	$(PYTHON) -m generator generate --from-ir $(CHECKED_IN_IR) \
	    --libraries $(EMBED_PREFIX_LIBRARIES_$*) --prefix $* --out $(EMBED_DIR)/tree-$*

test-embed-prefix: $(foreach p,$(EMBED_PREFIXES),$(EMBED_DIR)/tree-$(p)/build.mk) $(EMBED_TREE)/build.mk tests/embed/embedder.c \
                   tests/embed/two_embedders.c
	@mkdir -p $(EMBED_PREFIXED)
	@for p in $(EMBED_PREFIXES); do \
	    [ ! -f $(EMBED_DIR)/tree-$$p/build.mk ] || $(MAKE) --no-print-directory GENERATED=$(EMBED_DIR)/tree-$$p \
	        BUILD=$(EMBED_DIR)/build-$$p SAN=$(SAN) $(EMBED_DIR)/build-$$p/lib/libcubind.so \
	        $(EMBED_DIR)/build-$$p/lib/libcubind.a test-passthrough || exit 1; \
	done
	@# (apart from the builds above, which `make -n` runs: it reads no file the dry run did not make;
	@# section symbols are left out: .note.cubind, the embedding's note the probe reads, keeps its name)
	@for p in $(EMBED_PREFIXES); do \
	    for lib in libcubind.so libcubind.a; do \
	        if readelf -s -W $(EMBED_DIR)/build-$$p/lib/$$lib | awk '$$1 ~ /^[0-9]+:$$/ && $$4 != "SECTION" {print $$8}' | grep -i cubind; then \
	            echo "test-embed: $$p's $$lib has symbols named cubind (above)"; exit 1; fi; \
	    done; \
	    if nm -D --defined-only $(EMBED_DIR)/build-$$p/lib/libcubind.so | awk '{print $$3}' | grep -v "^$${p}_.*@@$$(echo $$p | tr a-z A-Z)_" | \
	        grep -v "^$$(echo $$p | tr a-z A-Z)_"; then echo "test-embed: $$p's libcubind.so exports more than $${p}_* (above)"; exit 1; fi; \
	done
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -DEMBEDDER=embedder_a -DEMBEDDER_TREE=embedpa -DEMBEDDER_TREE_UPPER=EMBEDPA \
	    -I$(EMBED_DIR)/tree-embedpa/include tests/embed/embedder.c -o $(EMBED_PREFIXED)/embedder_a.o
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -DEMBEDDER=embedder_b -DEMBEDDER_TREE=embedpb -DEMBEDDER_TREE_UPPER=EMBEDPB \
	    -I$(EMBED_DIR)/tree-embedpb/include tests/embed/embedder.c -o $(EMBED_PREFIXED)/embedder_b.o
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(EMBED_PREFIXED)/embedder_a.o $(EMBED_PREFIXED)/embedder_b.o \
	    $(EMBED_DIR)/build-embedpa/lib/libcubind.a $(EMBED_DIR)/build-embedpb/lib/libcubind.a \
	    -o $(EMBED_PREFIXED)/libtwo_prefixes.so -ldl -lpthread $(LDFLAGS_SAN)
	@if readelf --dyn-syms -W $(EMBED_PREFIXED)/libtwo_prefixes.so | awk '$$1 ~ /^[0-9]+:$$/ && $$7 != "UND" && $$5 != "LOCAL" {print $$8}' | \
	    grep -v "^embedder_[ab]_"; then echo "test-embed: libtwo_prefixes.so exports more than the embedders' functions (above)"; exit 1; fi
	$(CC) $(ALL_CFLAGS) -Iinclude -I$(EMBED_TREE)/include -DEMBEDDERS_LINKED tests/embed/two_embedders.c \
	    -o $(EMBED_PREFIXED)/linked -L$(EMBED_PREFIXED) -ltwo_prefixes -Wl,-rpath,$(abspath $(EMBED_PREFIXED)) $(LDFLAGS_SAN)
	mkdir -p $(EMBED_PREFIXED)/mock-a $(EMBED_PREFIXED)/mock-b
	for d in mock-a mock-b; do cp $(EMBED_DIR)/build-embedpa/test/mock/$(CUBIND_SONAME_cufft) \
	    $(EMBED_DIR)/build-embedpa/test/mock/libcubind_mock_recorder.so $(EMBED_PREFIXED)/$$d/; done
	$(EMBED_PREFIXED)/linked $(VERSION) $(VERSION) $(abspath $(EMBED_PREFIXED))/mock-a/$(CUBIND_SONAME_cufft) \
	    $(abspath $(EMBED_PREFIXED))/mock-b/$(CUBIND_SONAME_cufft)
	@echo "test-embed: trees prefixed $(EMBED_PREFIXES) built and passthrough-tested on their own, no symbol named cubind; \
	both in one library, each copy its own state"

# --- small by default: cubind::embedded in an ordinary CMake project (tests/embed/cmake) ----------
# A project that adds no flag of its own vendors the tree of cuFFT and cuRAND: its program and
# its STATIC library call cuFFT only, and no cuRAND wrapper is left in what they link (the
# archive's one section a function, and the --gc-sections that cubind::embedded carries). The
# static library is installed with install(EXPORT), cubind_embedded beside it, and a program that
# finds it with find_package links and runs, no cuRAND wrapper in it either.
EMBED_CMAKE := $(EMBED_DIR)/cmake
EMBED_CMAKE_SOURCES := $(wildcard tests/embed/cmake/*.c tests/embed/cmake/*.h tests/embed/cmake/*/CMakeLists.txt) \
                       CMakeLists.txt
.PHONY: test-embed-cmake
test-embed: $(call plain_only,test-embed-cmake)
test-embed-cmake: $(EMBED_TREE_B)/build.mk $(EMBED_CMAKE_SOURCES) | deps-test
	rm -rf $(EMBED_CMAKE) && mkdir -p $(EMBED_CMAKE)
	cmake -S tests/embed/cmake/user -B $(EMBED_CMAKE)/user -DCUBIND_SOURCE_DIR=$(abspath .) \
	    -DCUBIND_GENERATED=$(abspath $(EMBED_TREE_B)) -DCMAKE_C_COMPILER=$(CC) -DCMAKE_C_FLAGS="$(WARNINGS)" \
	    -DCMAKE_INSTALL_PREFIX=$(abspath $(EMBED_CMAKE))/prefix > $(EMBED_CMAKE)/user.log 2>&1 || \
	    { cat $(EMBED_CMAKE)/user.log; exit 1; }
	cmake --build $(EMBED_CMAKE)/user -j2 > $(EMBED_CMAKE)/user-build.log 2>&1 || { cat $(EMBED_CMAKE)/user-build.log; exit 1; }
	cmake --install $(EMBED_CMAKE)/user > $(EMBED_CMAKE)/install.log 2>&1 || \
	    { cat $(EMBED_CMAKE)/install.log; echo "test-embed: the static library linking cubind::embedded is not installable"; exit 1; }
	cmake -S tests/embed/cmake/app -B $(EMBED_CMAKE)/app -DCMAKE_PREFIX_PATH=$(abspath $(EMBED_CMAKE))/prefix \
	    -DCMAKE_C_COMPILER=$(CC) -DCMAKE_C_FLAGS="$(WARNINGS)" > $(EMBED_CMAKE)/app.log 2>&1 || \
	    { cat $(EMBED_CMAKE)/app.log; exit 1; }
	cmake --build $(EMBED_CMAKE)/app > $(EMBED_CMAKE)/app-build.log 2>&1 || { cat $(EMBED_CMAKE)/app-build.log; exit 1; }
	$(EMBED_CMAKE)/user/fft_only | grep -q '^fft_only: '
	$(EMBED_CMAKE)/app/app | grep -q '^app: '
	@for program in user/fft_only app/app; do \
	    nm $(EMBED_CMAKE)/$$program | awk '{print $$NF}' > $(EMBED_CMAKE)/$$(basename $$program).symbols; \
	    grep -q -x 'cubind_cufft_get_version' $(EMBED_CMAKE)/$$(basename $$program).symbols || \
	        { echo "test-embed: $$program has no cubind_cufft_get_version"; exit 1; }; \
	    if grep '^cubind_curand_' $(EMBED_CMAKE)/$$(basename $$program).symbols | head -n 3 | grep .; then \
	        echo "test-embed: $$program keeps the cuRAND wrappers it never calls (above: $$(grep -c '^cubind_curand_' \
	            $(EMBED_CMAKE)/$$(basename $$program).symbols) of them)"; exit 1; fi; \
	done
	@echo "test-embed: an ordinary CMake project linking cubind::embedded (cuFFT + cuRAND) keeps no cuRAND wrapper \
	(fft_only: $$(stat -c %s $(EMBED_CMAKE)/user/fft_only) bytes); its static library installs with install(EXPORT) \
	and a program linking it keeps none either ($$(stat -c %s $(EMBED_CMAKE)/app/app) bytes)"

# --- a subset with nothing to download (tests/embed/subset_from_ir.sh) ---------------------------
# cuFFT + cuBLAS through make generate LIBRARIES=..., make amalgamation LIBRARIES=... and CMake's
# CUBIND_LIBRARIES, with an empty releases cache and apt-get, curl and wget that fail: nothing
# fetched, no file of a releases cache or of the toolkit's headers looked at (strace); the same files
# as the subset made from the headers (the releases cache that make fetch-releases fills); the
# tree's passthrough tests, a CMake program and the amalgamation (gcc, clang) on the mocks.
.PHONY: test-embed-from-ir
test-embed: $(call plain_only,test-embed-from-ir)
test-embed-from-ir: tests/embed/subset_from_ir.sh $(wildcard tests/embed/from_ir/*) | deps-generator deps-test fetch-releases
	MAKE="$(MAKE)" PYTHON=$(PYTHON) CUDA_PATH=$(CUDA_PATH) CC=$(CC) sh tests/embed/subset_from_ir.sh \
	    $(EMBED_DIR)/from-ir "$$($(PYTHON) -m generator.release_headers cache)"
