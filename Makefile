# cubind - build, generate, test. `make help` lists the targets.
#
# The generated tree (generated/) is checked in: building needs only a C11
# compiler. Generating needs libclang's Python bindings and Jinja2, testing
# CMocka and pytest; `make generate` and `make test` install them (Debian
# packages) when they are missing.

PYTHON := /usr/bin/python3
CUDA_PATH ?= /usr/local/cuda
# Header directories searched before $(CUDA_PATH)/include (NCCL or cuDNN installed outside the toolkit).
INCLUDE_DIRS ?=
# The newest release's headers of the units a toolkit may lack (toolkit_may_lack in
# generator/libraries.toml: nvjpeg.h, nvFatbin.h, nvml.h, cufile.h, which a partial CUDA 13.0 install
# lacks), searched after $(CUDA_PATH)/include. Unset, or without them, make generate and
# check-generated take those units from generated/ir and say so; the tests that compile NVIDIA's
# headers find them here too (exported: generator/release_headers.py reads it).
CUDA_EXTRA_INCLUDE ?=
export CUDA_EXTRA_INCLUDE
PREFIX ?= /usr/local
DESTDIR ?=
# SAN=address,undefined or SAN=thread builds everything with that sanitizer, in its own tree.
SAN ?=
# The generated tree to build: the checked-in generated/, or any tree the generator wrote
# (`make generate LIBRARIES="cufft cublas" OUT=dir`, then `make GENERATED=dir`), built in its own
# build/tree-<dir>. TRACE=0 builds without call tracing (CUBIND_NO_TRACE: loader/trace.h), in
# its own build tree too.
GENERATED ?= generated
TRACE ?= 1
TREE_BUILD := build$(if $(filter-out generated,$(GENERATED)),/tree-$(notdir $(abspath $(GENERATED))))$(if $(filter 0,$(TRACE)),/no-trace)
TRACE_FLAGS = $(if $(filter 0,$(TRACE)),-D$(MACRO_PREFIX)_NO_TRACE)

ifeq ($(SAN),)
BUILD ?= $(TREE_BUILD)
SAN_FLAGS :=
else
BUILD ?= $(TREE_BUILD)/san-$(subst $(comma),-,$(SAN))
SAN_FLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
comma := ,
empty :=
space := $(empty) $(empty)

BUILD_DEPS := gcc libc6-dev make
GENERATOR_DEPS := python3-clang-14 python3-jinja2
# Besides CMocka and pytest: the ABI baseline check (libclang), the installed-tree consumers
# (pkg-config, CMake, LuaJIT, cffi, Rust through bindgen, which formats with rustfmt, and through
# the crate cubind-sys, built offline by Debian's cargo), the IR schema (jsonschema), strace
# (test-embed-from-ir: a subset reads no file of the releases cache nor any CUDA header), the
# other compilers (clang: make compilers, the amalgamation and the examples; g++ and clang++: the
# headers as C++), valgrind (test-valgrind), Debian's aarch64 cross toolchain and qemu
# (test-aarch64: tests/aarch64/aarch64.mk). nvcc is the CUDA toolkit's (check-toolkit).
TEST_DEPS := libcmocka-dev python3-pytest python3-clang-14 pkg-config cmake luajit python3-cffi bindgen rustc cargo \
             rustfmt python3-jsonschema strace clang g++ valgrind gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# Every package `make test` uses, installed in one apt transaction before anything runs in
# parallel (MPI_DEPS: examples/examples.mk, test-launcher's).
ALL_DEPS = $(BUILD_DEPS) $(GENERATOR_DEPS) $(TEST_DEPS) $(MPI_DEPS)

WARNINGS := -std=c11 -Wall -Wextra -Werror -pedantic
# A sanitizer build at -O1 (what ASan's and TSan's manuals advise): the sanitizers check the same at
# either level, and -O2's optimizer is most of the time spent compiling the generated wrappers.
CFLAGS ?= $(if $(SAN),-O1,-O2) -g
ALL_CFLAGS := $(WARNINGS) $(CFLAGS) $(SAN_FLAGS)
LDFLAGS_SAN := $(SAN_FLAGS)
INCLUDES = $(if $(TREE_PREFIX),,-Iinclude) -I$(GENERATED)/include

# Set by the build.mk of a tree generated with a prefix (below); empty for any other tree.
CUBIND_PREFIX ?=
# Set by the build.mk of a subset (make generate LIBRARIES=...); empty for the whole configuration.
CUBIND_SELECTION ?=
include $(GENERATED)/build.mk

# A tree generated with a prefix (make generate API_PREFIX=mylib: CUBIND_PREFIX in its build.mk)
# holds its own loader, headers (include/<prefix>/), test sources and version script, every
# identifier of cubind's own renamed (docs/embedding.md): it is built from those, not the checkout's.
TREE_PREFIX := $(CUBIND_PREFIX)
OWN_SOURCES := $(if $(TREE_PREFIX),$(GENERATED)/)
LOADER_DIR := $(OWN_SOURCES)loader
HEADER_DIR := $(or $(TREE_PREFIX),cubind)
MACRO_PREFIX := $(if $(TREE_PREFIX),$(shell echo '$(TREE_PREFIX)' | tr a-z A-Z),CUBIND)
# The passthrough tests' own sources and the mocks' recorder.
TEST_SUPPORT := $(if $(TREE_PREFIX),$(GENERATED)/support/,tests/)
TEST_SUPPORT_INCLUDES := $(if $(TREE_PREFIX),-I$(GENERATED)/support,-Itests -Itests/mock) -I$(GENERATED)/src
RECORDER_SOURCE := $(if $(TREE_PREFIX),$(GENERATED)/support/recorder.c,tests/mock/recorder.c)
# The recorder is its source and the names its rules may use (generated from the IR: tests/mock/names.h).
RECORDER_SOURCES := $(RECORDER_SOURCE) $(GENERATED)/tests/mock_names.c
RECORDER_HEADERS := $(RECORDER_SOURCE:.c=.h) $(dir $(RECORDER_SOURCE))names.h

LIB_SOURCES := $(wildcard $(LOADER_DIR)/*.c) $(wildcard $(GENERATED)/src/*.c)
LIB_OBJECTS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SOURCES))
# The static library's: the same sources compiled for embedding (CUBIND_EMBEDDED: cubind/platform.h
# makes the API hidden), so a shared library that links libcubind.a exports none of cubind's symbols.
EMBEDDED_OBJECTS := $(patsubst %.c,$(BUILD)/obj-embedded/%.o,$(LIB_SOURCES))
PUBLIC_HEADERS := $(if $(TREE_PREFIX),,$(wildcard include/cubind/*.h)) $(wildcard $(GENERATED)/include/$(HEADER_DIR)/*.h)
BUILT_HEADERS := $(addprefix $(BUILD)/include/$(HEADER_DIR)/,$(notdir $(PUBLIC_HEADERS)))

# cubind's version: include/cubind/version.h is its only source.
version_part = $(shell sed -n 's/^\#define CUBIND_VERSION_$(1) \([0-9][0-9]*\)$$/\1/p' include/cubind/version.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION_MINOR := $(call version_part,MINOR)
VERSION_PATCH := $(call version_part,PATCH)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
SONAME := libcubind.so.$(VERSION_MAJOR)
REALNAME := libcubind.so.$(VERSION)
# Only cubind_* is exported (abi/libcubind.map); abi/symbols.txt and abi/layout.txt are the baseline.
VERSION_SCRIPT := $(OWN_SOURCES)abi/libcubind.map
# The version node of every export (abi/libcubind.map): CUBIND_0.<MINOR> while the major version is
# 0 (a minor release may change the ABI), CUBIND_<MAJOR> from 1.0 on.
VERSION_NODE := CUBIND_$(VERSION_MAJOR)$(if $(filter 0,$(VERSION_MAJOR)),.$(VERSION_MINOR))

LIBRARY_SO := $(BUILD)/lib/libcubind.so
LIBRARY_SONAME := $(BUILD)/lib/$(SONAME)
LIBRARY_REAL := $(BUILD)/lib/$(REALNAME)
LIBRARY_A := $(BUILD)/lib/libcubind.a
PROBE := $(BUILD)/bin/cubind-probe

.PHONY: bench all help deps deps-build deps-generator deps-test fetch-releases fetch-release-libs generate \
        check-generated probe test amalgamation \
        test-generator test-c compilers install install-strip clean

# Everything `make install` copies, so that install compiles nothing after `make`: the drop-in and
# the mocks are added by dropin/dropin.mk and dropin/mocks.mk (the probe is cubind's own program: a
# prefixed tree has none of the three).
all: $(LIBRARY_SO) $(LIBRARY_A) $(if $(TREE_PREFIX),,$(PROBE)) $(BUILT_HEADERS)

help:
	@echo "make                  build $(LIBRARY_SO), $(LIBRARY_A), $(PROBE), $(BUILD)/include, the drop-in, the mocks"
	@echo "make generate         CUDA headers ($(CUDA_PATH)) -> generated/ (IR, headers, sources, mocks, tests)"
	@echo "make generate CUDA_EXTRA_INCLUDE=dir   the headers the toolkit lacks (nvjpeg.h, nvml.h, ...) from dir"
	@echo "make generate LIBRARIES=\"cufft cublas\" OUT=dir   only those libraries (ids kept), into dir"
	@echo "make generate ... API_PREFIX=mylib OUT=dir   a tree whose identifiers are mylib_* (its own loader and headers)"
	@echo "                      (both from the checked-in IR, generated/ir: no header read, nothing fetched;"
	@echo "                      FROM_HEADERS=1: from the headers, as make generate does for generated/)"
	@echo "make GENERATED=dir    build (and test: make test-passthrough GENERATED=dir) another generated tree"
	@echo "make TRACE=0          build without call tracing (CUBIND_TRACE), in $(BUILD)/no-trace"
	@echo "make amalgamation LIBRARIES=cufft API_PREFIX=mylib OUT=dir   one .h and one .c to vendor"
	@echo "make check-generated  fail if generated/ differs from what the generator produces"
	@echo "make fetch-releases   the older CUDA releases' headers (Debian packages) -> the releases cache"
	@echo "make fetch-release-libs  their shared libraries (for the tests) -> the releases cache"
	@echo "make probe            set up, build from the checked-in tree and print what this machine has"
	@echo "make fresh-machine    README.md's set-up commands in a new Debian 12 chroot (FRESH_COMMANDS=1: make probe only)"
	@echo "make test             every test (SAN=address,undefined or SAN=thread for a sanitizer build)"
	@echo "make test-package     makefiles, exported ABI (abi/), cdef headers, consumers of an installed tree"
	@echo "make test-docs        every code block of README.md and docs/, run as printed; the facts they state"
	@echo "make doc-facts        write the counts, versions and library names of the docs' fact markers"
	@echo "make test-copies      every copy of every library: cubind-probe --all, cubind/copies.h, CUDA_PATH, the Python switch"
	@echo "make install PREFIX=  install the library, headers, pkg-config and CMake files, probe, cdef, IR, Rust crate, Julia module, docs (DESTDIR too)"
	@echo "make install-strip    the same, the installed library and probe stripped of debug information"
	@echo "make abi-baseline     accept the exported ABI as it is now (abi/symbols.txt, abi/layout.txt)"
	@echo "make bench            call overhead, start-up, census, make generate time (docs/benchmarks.md)"
	@echo "make bench-generate   only the make generate timing (median of runs)"

# --- set-up -----------------------------------------------------------------------------------
# `make deps` (what make test runs first) installs every package at once; the narrow targets name
# the part they need, and tools/install-deps.sh runs one apt-get at a time whatever make -j starts.
deps:
	@sh tools/install-deps.sh $(ALL_DEPS)
deps-build:
	@sh tools/install-deps.sh $(BUILD_DEPS)
deps-generator:
	@sh tools/install-deps.sh $(GENERATOR_DEPS)
deps-test:
	@sh tools/install-deps.sh $(TEST_DEPS)

# README.md's set-up commands on a fresh Debian 12 (tests/fresh/run.sh): a minbase chroot with git,
# make and gcc, the toolkit bind-mounted read-only, a clean clone of HEAD; FRESH_COMMANDS=1 runs the
# first command only (make probe). Not part of make test: it runs make test.
FRESH_DIR := build/fresh-machine
FRESH_COMMANDS ?=
.PHONY: fresh-machine
fresh-machine:
	@sh tools/install-deps.sh debootstrap
	CUDA_PATH=$(CUDA_PATH) PYTHON=$(PYTHON) sh tests/fresh/run.sh $(FRESH_DIR) $(FRESH_COMMANDS)

# The facts README.md and docs/ state in prose (counts, versions, the library names: tests/docs/facts.py),
# written from the configuration, the IR and version.h into their markers; make test-docs checks them.
.PHONY: doc-facts
doc-facts: deps-generator
	$(PYTHON) tests/docs/facts.py --write README.md CHANGES.md $(wildcard docs/*.md)

# --- generator --------------------------------------------------------------------------------
# The headers of the older CUDA releases (generator/libraries.toml, [[release]]) are fetched into
# the releases cache (docs/releases.md) when it lacks them; the fetch does nothing when it has them.
fetch-releases:
	@PYTHON=$(PYTHON) sh tools/fetch-cuda-releases.sh headers

# The releases' shared libraries, for the tests that load them (never needed to generate).
fetch-release-libs:
	@PYTHON=$(PYTHON) sh tools/fetch-cuda-releases.sh libraries

# OUT: the tree to write or check (default $(GENERATED)); LIBRARIES: a subset of the configured
# libraries (their ids kept), which a tree records (CUBIND_SELECTION in its build.mk) for checking;
# API_PREFIX: every identifier of cubind's own under that prefix (CUBIND_PREFIX in its build.mk).
# A subset or a prefixed tree is rendered from the checked-in IR (generated/ir, which holds every
# release's facts): no CUDA header is read and nothing is fetched. FROM_HEADERS=1 makes it from
# the headers instead, as generated/ is (the same files; for changing cubind: docs/regenerating.md).
OUT ?= $(GENERATED)
LIBRARIES ?= $(CUBIND_SELECTION)
API_PREFIX ?=
TREE_API_PREFIX = $(or $(API_PREFIX),$(CUBIND_PREFIX))
FROM_HEADERS ?=
CHECKED_IN_IR := $(CURDIR)/generated/ir
# Whether what is generated comes from the checked-in IR (1) or from the headers (empty).
FROM_IR = $(if $(FROM_HEADERS),,$(if $(strip $(LIBRARIES)$(TREE_API_PREFIX)),1))
GENERATOR_ARGS = $(if $(FROM_IR),--from-ir $(CHECKED_IN_IR),--cuda-path $(CUDA_PATH) $(addprefix --include-dir ,$(INCLUDE_DIRS)) \
                   $(if $(CUDA_EXTRA_INCLUDE),--extra-include $(CUDA_EXTRA_INCLUDE))) \
                 $(if $(LIBRARIES),--libraries $(LIBRARIES))
generate: deps-generator $(if $(FROM_IR),,fetch-releases)
	@if [ -n "$(LIBRARIES)$(TREE_API_PREFIX)" ] && [ "$(abspath $(OUT))" = "$(abspath generated)" ]; then \
	    echo "make generate: generated/ is the whole configuration, unprefixed; a subset (LIBRARIES=...) or a prefix (API_PREFIX=...) needs its own OUT=dir"; \
	    exit 1; fi
	$(PYTHON) -m generator generate $(GENERATOR_ARGS) $(if $(TREE_API_PREFIX),--prefix $(TREE_API_PREFIX)) --out $(OUT)

# generated/ is checked twice: from the headers, and from its own IR alone (what a subset is made
# from: the IR must hold every fact the templates use, so that a subset is what the headers give).
# A unit whose headers the toolkit and CUDA_EXTRA_INCLUDE lack is checked from the IR in both: the
# first names each such unit and where it came from.
check-generated: deps-generator $(if $(FROM_IR),,fetch-releases)
	$(PYTHON) -m generator check $(GENERATOR_ARGS) $(if $(TREE_API_PREFIX),--prefix $(TREE_API_PREFIX)) --out $(OUT)
	$(if $(FROM_IR),,$(PYTHON) -m generator check --from-ir $(CHECKED_IN_IR) $(if $(LIBRARIES),--libraries $(LIBRARIES)) \
	    $(if $(TREE_API_PREFIX),--prefix $(TREE_API_PREFIX)) --out $(OUT))

# --- library ----------------------------------------------------------------------------------
# TLS descriptors where the compiler has them (gcc; not clang 14): the thread-local error record
# is reached without __tls_get_addr.
TLS_DIALECT := $(shell $(CC) -mtls-dialect=gnu2 -E -x c /dev/null > /dev/null 2>&1 && echo -mtls-dialect=gnu2)
# clang makes a switch that returns constants (status names, tracing's enum names, the table
# lookups of generated/src/libraries.c) a table of pointers, each relocated at start-up (650 in
# all); gcc's jump tables hold offsets. Without them clang's switches are compare trees: cold code.
SWITCH_FLAGS := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),-fno-jump-tables)
LIB_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(TLS_DIALECT) $(SWITCH_FLAGS) $(TRACE_FLAGS) $(INCLUDES) -I$(LOADER_DIR) -I$(GENERATED)/src
$(BUILD)/obj/%.o: %.c $(PUBLIC_HEADERS) $(wildcard $(LOADER_DIR)/*.h) $(GENERATED)/src/release_rules.h $(GENERATED)/src/library_dirs.h
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@
# The archive's objects: one section a function and a datum, so that the link of whoever embeds
# it with --gc-sections (pkg-config --static, cubind::cubind_static and cubind::embedded add it)
# keeps only the wrappers called and what they reach.
EMBEDDED_SECTION_FLAGS := -ffunction-sections -fdata-sections
$(BUILD)/obj-embedded/%.o: %.c $(PUBLIC_HEADERS) $(wildcard $(LOADER_DIR)/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(EMBEDDED_SECTION_FLAGS) -D$(MACRO_PREFIX)_EMBEDDED -c $< -o $@

# -Bsymbolic-functions: calls inside libcubind to its own exported functions are direct, not
# through its PLT. Nothing links libgcc_s (loader/error.c looks the unwinder up when it first
# needs it), so a program linking libcubind does not load it at start-up.
# -z nodelete: dlclose never unmaps libcubind. It registers fork handlers (pthread_atfork) and
# keeps the CUDA libraries it opened, so unmapping it would leave those pointing at nothing.
# -z nodynamic-undefined-weak: the C runtime's start files refer weakly to symbols no program
# defines (_ITM_*, __gmon_start__) and to __cxa_finalize, only needed to unload a library; they
# are settled as absent when linking instead of searched for in every loaded object at start-up.
LIBRARY_LDFLAGS := -Wl,-Bsymbolic-functions -Wl,-z,nodelete -Wl,-z,nodynamic-undefined-weak
$(LIBRARY_REAL): $(LIB_OBJECTS) $(VERSION_SCRIPT)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(VERSION_SCRIPT) -Wl,--no-undefined \
	    $(LIBRARY_LDFLAGS) $(LDFLAGS_SAN) -o $@ $(LIB_OBJECTS) -ldl -lpthread

$(LIBRARY_SONAME): $(LIBRARY_REAL)
	ln -sf $(REALNAME) $@

$(LIBRARY_SO): $(LIBRARY_SONAME)
	ln -sf $(SONAME) $@

$(LIBRARY_A): $(EMBEDDED_OBJECTS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

ifeq ($(TREE_PREFIX),)
$(BUILD)/include/cubind/%.h: include/cubind/%.h
	@mkdir -p $(dir $@)
	cp $< $@
endif
$(BUILD)/include/$(HEADER_DIR)/%.h: $(GENERATED)/include/$(HEADER_DIR)/%.h
	@mkdir -p $(dir $@)
	cp $< $@

# The Linux implementation of the loader's platform seam (loader/platform.h), which tests of single
# loader files build in.
PLATFORM_SOURCES := loader/platform_posix.c loader/platform_elf.c loader/platform.h loader/platform_elf.h

# The probe: one file a section of the report (tools/probe/); it shares the loader's UTF-8
# decoder (loader/strbuf.c) and ELF reader (loader/platform_elf.c), hidden in libcubind.so.
PROBE_SOURCES := $(wildcard tools/probe/*.c)
PROBE_LOADER_SOURCES := loader/strbuf.c loader/platform_elf.c
$(PROBE): $(PROBE_SOURCES) $(wildcard tools/probe/*.h) $(PROBE_LOADER_SOURCES) loader/strbuf.h loader/platform_elf.h \
          loader/platform.h $(LIBRARY_SO) $(BUILT_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include -Iloader -Itools/probe $(PROBE_SOURCES) $(PROBE_LOADER_SOURCES) -o $@ \
	    -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../lib'

# Builds the checked-in tree (never regenerates: that is `make generate`'s job) and runs the probe.
probe: deps-build
	$(MAKE) all
	$(PROBE)

# --- amalgamation: make amalgamation [LIBRARIES="cufft"] [API_PREFIX=mylib] [OUT=dir] ------------
# cubind as <name>.h and <name>.c (name: API_PREFIX, else cubind) that compile alone, for projects
# that vendor it (docs/embedding.md): the tree $(GENERATED), or a subset generated for LIBRARIES
# given here (from the checked-in IR: nothing fetched; FROM_HEADERS=1: from the headers); API_PREFIX
# renames cubind's identifiers (two copies in one linked object).
AMALGAMATION_OUT := $(if $(filter command line environment,$(origin OUT)),$(OUT),$(BUILD)/amalgamation)
AMALGAMATION_TREE := $(if $(filter command line,$(origin LIBRARIES)),$(BUILD)/amalgamation-tree/$(subst $(space),-,$(strip $(LIBRARIES))),$(GENERATED))
amalgamation: deps-generator $(if $(and $(FROM_HEADERS),$(filter command line,$(origin LIBRARIES))),fetch-releases)
	$(if $(filter command line,$(origin LIBRARIES)),$(PYTHON) -m generator generate $(GENERATOR_ARGS) --out $(AMALGAMATION_TREE))
	$(PYTHON) -m generator amalgamate --tree $(AMALGAMATION_TREE) $(if $(API_PREFIX),--prefix $(API_PREFIX)) \
	    --out $(AMALGAMATION_OUT)

# --- install: make install PREFIX=/opt/cubind [DESTDIR=/stage] -------------------------------------
# Copies what `make` built (after `make` nothing is compiled here; no package is installed: a C11
# compiler and sed are all it takes) and the data files for FFI authors and packagers: pkg-config and CMake
# package files (from templates, by sed), flat cdef declarations, the IR and its JSON schema, the
# documentation. `make install` keeps the library as built (with -g, its debug information);
# `make install-strip` installs, then strips what it installed, as autotools and CMake do.
PC_FILE := $(BUILD)/pkgconfig/cubind.pc
CMAKE_FILES := $(BUILD)/cmake/cubindConfig.cmake $(BUILD)/cmake/cubindConfigVersion.cmake
CDEF_FILES := $(wildcard $(GENERATED)/cdef/*.h $(GENERATED)/cdef/*.txt)
CONSTANTS_FILE := $(GENERATED)/constants.json
FFI_EXAMPLES := tests/consumers/ctypes_example.py
IR_FILES := $(wildcard $(GENERATED)/ir/*.json)
# The Rust crate cubind-sys (generated from the IR: docs/languages.md), as source: share/cubind/rust/.
RUST_CRATE := $(GENERATED)/rust/cubind-sys
RUST_CRATE_FILES := $(wildcard $(RUST_CRATE)/Cargo.toml $(RUST_CRATE)/build.rs)
RUST_CRATE_SOURCES := $(wildcard $(RUST_CRATE)/src/*.rs)
# The Julia module Cubind (docs/languages.md#julia-the-module-cubind), rendered from the IR when installed (Python 3 and
# Jinja2: generator/julia.py, templates/julia/), never checked in: share/cubind/julia/Cubind/.
# A prefixed tree has none (its functions are not cubind_*).
JULIA_DIR := $(BUILD)/share/cubind/julia
JULIA_RENDERED := $(JULIA_DIR)/.rendered
IR_SCHEMA := ir.schema.json
# The schema of cubind-probe --json (docs/probe.md links it; tools validate against it).
PROBE_SCHEMA := docs/probe.schema.json
INSTALL_DATA := $(PC_FILE) $(CMAKE_FILES)
STRIP ?= strip
# The documentation, as laid out in the checkout so that its relative links hold: README.md, CHANGES.md,
# the manual (docs/), the API reference and the library table (generated/docs/), the examples.
DOC_DIR := $(PREFIX)/share/doc/cubind
DOC_PAGES := $(wildcard docs/*.md)
DOC_API := $(wildcard generated/docs/api/*.md)
DOC_EXAMPLES := $(wildcard $(addprefix examples/*.,c h py lua rs))
# The library's pointer size, from its ELF class (byte 4: 1 is 32-bit, 2 is 64-bit): CMake refuses
# a package built for another one.
SIZEOF_VOID_P = $(shell od -An -tu1 -j4 -N1 $(LIBRARY_REAL) 2>/dev/null | awk '{print $$1 * 4}')
TEMPLATE_SED = sed -e 's/@VERSION@/$(VERSION)/g' -e 's/@VERSION_MAJOR@/$(VERSION_MAJOR)/g' \
                   -e 's/@VERSION_MINOR@/$(VERSION_MINOR)/g' -e 's/@SIZEOF_VOID_P@/$(SIZEOF_VOID_P)/g'

$(PC_FILE): tools/cubind.pc.in include/cubind/version.h
	@mkdir -p $(dir $@)
	$(TEMPLATE_SED) $< > $@

$(BUILD)/cmake/%.cmake: tools/cmake/%.cmake.in include/cubind/version.h $(LIBRARY_REAL)
	@mkdir -p $(dir $@)
	$(TEMPLATE_SED) $< > $@

$(JULIA_RENDERED): $(IR_FILES) $(CONSTANTS_FILE) generator/julia.py generator/ctype_spelling.py generator/config.py \
                   generator/libraries.toml $(wildcard templates/julia/*.j2)
	$(PYTHON) -m generator.julia --ir $(GENERATED)/ir --constants $(CONSTANTS_FILE) --soname $(SONAME) --out $(JULIA_DIR)
	@touch $@

install: all $(INSTALL_DATA) $(if $(TREE_PREFIX),,install-dropin install-mocks $(JULIA_RENDERED))
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/cubind \
	    $(DESTDIR)$(PREFIX)/include/cubind $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/cubind/cdef $(DESTDIR)$(PREFIX)/share/cubind/ir \
	    $(DESTDIR)$(DOC_DIR)/docs/api $(DESTDIR)$(DOC_DIR)/generated/docs $(DESTDIR)$(DOC_DIR)/examples
	install -m 644 $(LIBRARY_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBRARY_REAL) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(REALNAME) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libcubind.so
	install -m 644 $(BUILT_HEADERS) $(DESTDIR)$(PREFIX)/include/cubind/
	install -m 644 $(PC_FILE) $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 $(CMAKE_FILES) $(DESTDIR)$(PREFIX)/lib/cmake/cubind/
	install -m 755 $(PROBE) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(CDEF_FILES) $(DESTDIR)$(PREFIX)/share/cubind/cdef/
	install -m 644 $(CONSTANTS_FILE) $(DESTDIR)$(PREFIX)/share/cubind/
	install -d $(DESTDIR)$(PREFIX)/share/doc/cubind/examples
	install -m 644 $(FFI_EXAMPLES) $(DESTDIR)$(PREFIX)/share/doc/cubind/examples/
	install -m 644 $(IR_FILES) $(DESTDIR)$(PREFIX)/share/cubind/ir/
	install -m 644 $(IR_SCHEMA) $(PROBE_SCHEMA) $(DESTDIR)$(PREFIX)/share/cubind/
	$(if $(RUST_CRATE_SOURCES),install -d $(DESTDIR)$(PREFIX)/share/cubind/rust/cubind-sys/src && \
	    install -m 644 $(RUST_CRATE_FILES) $(DESTDIR)$(PREFIX)/share/cubind/rust/cubind-sys/ && \
	    install -m 644 $(RUST_CRATE_SOURCES) $(DESTDIR)$(PREFIX)/share/cubind/rust/cubind-sys/src/)
	$(if $(TREE_PREFIX),,install -d $(DESTDIR)$(PREFIX)/share/cubind/julia/Cubind/src && \
	    install -m 644 $(JULIA_DIR)/Cubind/Project.toml $(DESTDIR)$(PREFIX)/share/cubind/julia/Cubind/ && \
	    install -m 644 $(JULIA_DIR)/Cubind/src/*.jl $(DESTDIR)$(PREFIX)/share/cubind/julia/Cubind/src/)
	install -m 644 README.md CHANGES.md $(DESTDIR)$(DOC_DIR)/
	install -m 644 $(DOC_PAGES) $(PROBE_SCHEMA) $(DESTDIR)$(DOC_DIR)/docs/
	install -m 644 $(DOC_API) $(DESTDIR)$(DOC_DIR)/docs/api/
	install -m 644 generated/docs/libraries.md $(DESTDIR)$(DOC_DIR)/generated/docs/
	install -m 644 $(DOC_EXAMPLES) $(DESTDIR)$(DOC_DIR)/examples/

# libtool's choice: shared objects and programs lose every symbol not needed to link or load them
# (--strip-unneeded keeps the dynamic symbols), the archive only its debug information.
install-strip: install
	$(STRIP) --strip-unneeded $(DESTDIR)$(PREFIX)/lib/$(REALNAME) $(DESTDIR)$(PREFIX)/bin/cubind-probe \
	    $(if $(TREE_PREFIX),,$(DESTDIR)$(PREFIX)/lib/$(DROPIN_REALNAME))
	$(STRIP) --strip-debug $(DESTDIR)$(PREFIX)/lib/libcubind.a

include dropin/dropin.mk
include dropin/mocks.mk
include tests/tests.mk
include examples/examples.mk

# --- benchmarks: make bench rewrites docs/benchmarks.md (figures, machine, date, command) -----
include bench/bench.mk

clean:
	rm -rf build
