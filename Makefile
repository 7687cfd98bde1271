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
PREFIX ?= /usr/local
# SAN=address,undefined or SAN=thread builds everything with that sanitizer, in its own tree.
SAN ?=

ifeq ($(SAN),)
BUILD ?= build
SAN_FLAGS :=
else
BUILD ?= build/san-$(subst $(comma),-,$(SAN))
SAN_FLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
comma := ,

GENERATOR_DEPS := python3-clang-14 python3-jinja2
TEST_DEPS := libcmocka-dev python3-pytest

WARNINGS := -std=c11 -Wall -Wextra -Werror -pedantic
CFLAGS ?= -O2 -g
ALL_CFLAGS := $(WARNINGS) $(CFLAGS) $(SAN_FLAGS)
LDFLAGS_SAN := $(SAN_FLAGS)
INCLUDES := -Iinclude -Igenerated/include

include generated/build.mk

LIB_SOURCES := $(wildcard loader/*.c) $(wildcard generated/src/*.c)
LIB_OBJECTS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SOURCES))
PUBLIC_HEADERS := $(wildcard include/cubind/*.h) $(wildcard generated/include/cubind/*.h)
BUILT_HEADERS := $(addprefix $(BUILD)/include/cubind/,$(notdir $(PUBLIC_HEADERS)))

LIBRARY_SO := $(BUILD)/lib/libcubind.so
LIBRARY_SONAME := $(BUILD)/lib/libcubind.so.0
LIBRARY_A := $(BUILD)/lib/libcubind.a
PROBE := $(BUILD)/bin/cubind-probe

.PHONY: bench all help deps deps-generator deps-test generate check-generated probe test test-generator \
        test-c compilers install clean

all: $(LIBRARY_SO) $(LIBRARY_A) $(PROBE) $(BUILT_HEADERS)

help:
	@echo "make                  build $(LIBRARY_SO), $(LIBRARY_A), $(PROBE), $(BUILD)/include"
	@echo "make generate         CUDA headers ($(CUDA_PATH)) -> generated/ (IR, headers, sources, mocks, tests)"
	@echo "make check-generated  fail if generated/ differs from what the generator produces"
	@echo "make probe            set up, generate, build and print what this machine has"
	@echo "make test             every test (SAN=address,undefined or SAN=thread for a sanitizer build)"
	@echo "make install PREFIX=  install the library, headers and probe"
	@echo "make bench            call overhead, start-up, census, make generate time (docs/benchmarks.md)"
	@echo "make bench-generate   only the make generate timing (median of runs)"

# --- set-up -----------------------------------------------------------------------------------
deps: deps-generator deps-test
deps-generator:
	@sh tools/install-deps.sh $(GENERATOR_DEPS)
deps-test:
	@sh tools/install-deps.sh $(TEST_DEPS)

# --- generator --------------------------------------------------------------------------------
generate: deps-generator
	$(PYTHON) -m generator generate --cuda-path $(CUDA_PATH) $(addprefix --include-dir ,$(INCLUDE_DIRS)) --out generated

check-generated: deps-generator
	$(PYTHON) -m generator check --cuda-path $(CUDA_PATH) $(addprefix --include-dir ,$(INCLUDE_DIRS)) --out generated

# --- library ----------------------------------------------------------------------------------
$(BUILD)/obj/%.o: %.c $(PUBLIC_HEADERS) $(wildcard loader/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(INCLUDES) -Iloader -c $< -o $@

$(LIBRARY_SONAME): $(LIB_OBJECTS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libcubind.so.0 -Wl,--no-undefined $(LDFLAGS_SAN) -o $@ $^ -ldl -lpthread

$(LIBRARY_SO): $(LIBRARY_SONAME)
	ln -sf libcubind.so.0 $@

$(LIBRARY_A): $(LIB_OBJECTS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/include/cubind/%.h: include/cubind/%.h
	@mkdir -p $(dir $@)
	cp $< $@
$(BUILD)/include/cubind/%.h: generated/include/cubind/%.h
	@mkdir -p $(dir $@)
	cp $< $@

$(PROBE): tools/cubind_probe.c $(LIBRARY_SO) $(BUILT_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include $< -o $@ -L$(BUILD)/lib -lcubind -Wl,-rpath,'$$ORIGIN/../lib'

probe: deps-generator
	$(MAKE) generate
	$(MAKE) all
	$(PROBE)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/cubind $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LIBRARY_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBRARY_SONAME) $(DESTDIR)$(PREFIX)/lib/libcubind.so.0
	ln -sf libcubind.so.0 $(DESTDIR)$(PREFIX)/lib/libcubind.so
	install -m 644 $(BUILT_HEADERS) $(DESTDIR)$(PREFIX)/include/cubind/
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/include tools/cubind_probe.c -o $(DESTDIR)$(PREFIX)/bin/cubind-probe \
	    -L$(BUILD)/lib -lcubind -Wl,-rpath,$(PREFIX)/lib

include tests/tests.mk
include examples/examples.mk

# --- benchmarks: make bench rewrites docs/benchmarks.md (figures, machine, date, command) -----
include bench/bench.mk

clean:
	rm -rf build
