# tests/aarch64/aarch64.mk - Linux aarch64 (Arm servers, Jetson), cross-built and run under qemu;
# included by tests/tests.mk.
#
#   make test-aarch64   libcubind.so, cubind-probe, the mocks and the loader's C tests built with
#                       Debian's aarch64 toolchain (CC=aarch64-linux-gnu-gcc) into build/aarch64/,
#                       run under qemu-aarch64: the loader on the mocks (test_loader, test_libraries,
#                       test_elf_symbol, test_no_gpu, test_faults, test_hardening), the probe on the
#                       mocks, and CUDA 12.4's arm64 libraries (Debian's) with no GPU (test_real,
#                       test_real_toolkit). Not the passthrough of every wrapper: the same generated
#                       code as on x86-64, whose run takes minutes there.
#
# The toolchain and qemu are Debian packages of this machine (TEST_DEPS); the target's own libraries
# the tests link (CMocka) are Debian's arm64 packages, fetched under a private apt state into the
# releases cache (tools/fetch-debian-packages.sh): the system's dpkg never learns the architecture.

AARCH64_CC := aarch64-linux-gnu-gcc
AARCH64_BUILD := build/aarch64
AARCH64_TEST := $(AARCH64_BUILD)/test
# Debian's arm64 C library (libc6-arm64-cross): the emulator's root for the target's own files.
AARCH64_LIBC := /usr/aarch64-linux-gnu
QEMU_AARCH64 := /usr/bin/qemu-aarch64
# The target's packages the tests need (CMocka, as this machine's libcmocka-dev) and where they come from.
AARCH64_PACKAGES := libcmocka0=1.1.5-2.1 libcmocka-dev=1.1.5-2.1
AARCH64_SOURCES := deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
AARCH64_TARGET = $(RELEASES_CACHE)/aarch64-target
AARCH64_TARGET_LIBS = $(AARCH64_TARGET)/tree/usr/lib/aarch64-linux-gnu
# CUDA's arm64 libraries the real-library tests load ([release.architecture.arm64] in generator/libraries.toml).
AARCH64_RELEASE := 12.4
AARCH64_CUDA = $(RELEASES_CACHE)/$(AARCH64_RELEASE)/lib-arm64

# The cross build is this Makefile's own with CC and BUILD set: CMocka's header and library through
# the compiler's command, its runtime copy in $(AARCH64_TEST)/lib (the tests' $ORIGIN/lib run path).
AARCH64_MAKE = $(MAKE) --no-print-directory CC="$(AARCH64_CC) -isystem $(AARCH64_TARGET)/tree/usr/include \
               -L$(AARCH64_TARGET_LIBS)" BUILD=$(AARCH64_BUILD) SAN=

# Each program runs under qemu with the target's C library; a test re-executing itself for a scenario
# does it through the emulator (tests/scenario.h: CUBIND_TEST_EMULATOR).
AARCH64_RUN := QEMU_LD_PREFIX=$(AARCH64_LIBC) CUBIND_TEST_EMULATOR=$(QEMU_AARCH64) CUBIND_TEST_EMULATOR_ROOT=$(AARCH64_LIBC)
AARCH64_MOCK_ENV = CUBIND_TEST_MOCK_DIR=$(abspath $(AARCH64_TEST))/mock CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(AARCH64_TEST))/mock-half
AARCH64_RESULTS = $(PYTHON) tests/summary/results.py --dir $(RESULTS_DIR) --target $@ --variant aarch64

.PHONY: test-aarch64 aarch64-build aarch64-cross aarch64-cuda aarch64-target test-aarch64-loader test-aarch64-faults test-aarch64-probe \
        test-aarch64-real

test-aarch64: test-aarch64-loader test-aarch64-faults test-aarch64-probe test-aarch64-real

# The target's packages, once (the stamp lists them: a change fetches again).
aarch64-target:
	@want="$(AARCH64_PACKAGES)"; root=$(AARCH64_TARGET); \
	if [ "$$(cat $$root/.stamp 2>/dev/null)" != "$$want" ]; then \
	    echo "cubind: fetching $$want (arm64) into $$root"; \
	    rm -rf $$root/tree && mkdir -p $$root/apt && echo '$(AARCH64_SOURCES)' > $$root/apt/sources.list && \
	    sh tools/fetch-debian-packages.sh $$root/apt $$root/apt/sources.list arm64 $$root/tree './*' $$want > /dev/null && \
	    echo "$$want" > $$root/.stamp; \
	fi

# What the cross build makes, named in the sub-make (whose BUILD is $(AARCH64_BUILD)).
aarch64-build: $(LIBRARY_SO) $(PROBE) $(BUILT_HEADERS) $(MOCKS) $(HALF_MOCKS) $(REENTRANT_MOCK) $(SLOW_MOCK) \
               $(TEST_BUILD)/test_loader $(TEST_BUILD)/test_libraries $(TEST_BUILD)/test_elf_symbol \
               $(TEST_BUILD)/test_no_gpu $(TEST_BUILD)/test_faults $(TEST_BUILD)/test_hardening \
               $(TEST_BUILD)/test_real $(TEST_BUILD)/test_real_toolkit

aarch64-cross: aarch64-target deps-test
	+$(AARCH64_MAKE) aarch64-build
	@mkdir -p $(AARCH64_TEST)/lib
	cp -L $(AARCH64_TARGET_LIBS)/libcmocka.so.0 $(AARCH64_TEST)/lib/

# The two tests built with a loader file itself have no run path to CMocka: qemu gives them one.
AARCH64_CMOCKA = -E LD_LIBRARY_PATH=$(abspath $(AARCH64_TEST))/lib

# One program of the build under qemu, its results counted as NAME (aarch64).
aarch64_run = $(AARCH64_RUN) $(2) $(AARCH64_RESULTS) run $(1) cmocka -- $(QEMU_AARCH64) $(3)

test-aarch64-loader: aarch64-cross
	$(call aarch64_run,test_loader,$(AARCH64_MOCK_ENV),$(AARCH64_TEST)/test_loader)
	$(call aarch64_run,test_libraries,$(AARCH64_MOCK_ENV),$(AARCH64_TEST)/test_libraries)
	$(call aarch64_run,test_elf_symbol,,$(AARCH64_CMOCKA) $(AARCH64_TEST)/test_elf_symbol)
	$(call aarch64_run,test_no_gpu,,$(AARCH64_CMOCKA) $(AARCH64_TEST)/test_no_gpu)

# The first-call race in a few rounds: qemu runs the 64 threads on two cores.
test-aarch64-faults: aarch64-cross
	$(call aarch64_run,test_faults,$(AARCH64_MOCK_ENV) CUBIND_TEST_ROUNDS=4,$(AARCH64_TEST)/test_faults)
	$(call aarch64_run,test_hardening,$(AARCH64_MOCK_ENV),$(AARCH64_TEST)/test_hardening)

# The probe as a user runs it (tests/probe/test_probe.py), through a script that runs it under qemu
# with CUDA 12.4's arm64 libraries in LD_LIBRARY_PATH (this machine's own libraries, x86-64's, are
# another machine's to it): on them, on the mocks and the half mocks, JSON against the schema, the
# command line; a library a test makes is made by the cross compiler.
AARCH64_PROBE := $(AARCH64_BUILD)/bin/cubind-probe-qemu
test-aarch64-probe: aarch64-cross aarch64-cuda deps-test
	printf '#!/bin/sh\nexec %s -E LD_LIBRARY_PATH=%s %s "$$@"\n' $(QEMU_AARCH64) $(AARCH64_CUDA) \
	    $(abspath $(AARCH64_BUILD))/bin/cubind-probe > $(AARCH64_PROBE)
	chmod +x $(AARCH64_PROBE)
	QEMU_LD_PREFIX=$(AARCH64_LIBC) CUBIND_PROBE=$(abspath $(AARCH64_PROBE)) CUBIND_TEST_CC=$(AARCH64_CC) \
	    $(AARCH64_MOCK_ENV) $(AARCH64_RESULTS) run tests/probe pytest -- $(PYTHON) -m pytest -q tests/probe/test_probe.py

# CUDA 12.4's arm64 libraries (Debian's), fetched once.
aarch64-cuda:
	@PYTHON=$(PYTHON) sh tools/fetch-cuda-releases.sh libraries arm64

# CUDA 12.4's arm64 libraries, Debian's, found through LD_LIBRARY_PATH (the target's only: qemu -E),
# under a CUDA_PATH without a toolkit: their versions, what they lack, handle creation without a GPU.
AARCH64_NO_TOOLKIT = CUDA_PATH=$(abspath $(AARCH64_TEST))/no-toolkit CUDA_HOME=
AARCH64_TOOLKIT_PATHS = CUBIND_NVVM_PATH=$(AARCH64_CUDA)/libnvvm.so.4 CUBIND_NVFATBIN_PATH=$(AARCH64_CUDA)/libnvfatbin.so.12 \
    CUBIND_NVJPEG_PATH=$(AARCH64_CUDA)/libnvjpeg.so.12 CUBIND_CUFILE_PATH=$(AARCH64_CUDA)/libcufile.so.0 \
    CUFILE_LOGFILE_PATH=$(abspath $(AARCH64_TEST))/cufile.log
test-aarch64-real: aarch64-cross aarch64-cuda
	@mkdir -p $(AARCH64_TEST)/no-toolkit
	$(call aarch64_run,test_real,CUBIND_TEST_RELEASE=$(AARCH64_RELEASE) $(AARCH64_NO_TOOLKIT),-E LD_LIBRARY_PATH=$(AARCH64_CUDA) $(AARCH64_TEST)/test_real)
	$(call aarch64_run,test_real_toolkit,$(AARCH64_NO_TOOLKIT) $(AARCH64_TOOLKIT_PATHS),$(AARCH64_TEST)/test_real_toolkit)
