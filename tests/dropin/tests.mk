# tests/dropin/tests.mk - make test-dropin (part of test-c): programs written for NVIDIA's headers,
# linked with the drop-in alone, run on the installable mocks of every release (tests/dropin/run.sh).
# nvcc, when the toolkit has it, builds tests/dropin/kernel.cu with the drop-in too, and once per
# release linked with that release's libcudart (the releases cache), run on its mocks; the examples'
# twins with NVIDIA's names (generated/examples/nvidia/) are built with it into $(BUILD)/examples/nvidia/
# (examples/examples.mk) and run on the mocks, and tests/gpu/dropin.sh runs them on a GPU (make
# gpu-build carries them).
DROPIN_NVCC := $(wildcard $(CUDA_PATH)/bin/nvcc)

test-dropin: $(DROPIN_SO) $(BUILT_HEADERS) $(PRODUCT_MOCKS) $(if $(DROPIN_NVCC),fetch-release-libs) tests/dropin/run.sh docs/dropin.md $(wildcard tests/dropin/*.c tests/dropin/*.h tests/dropin/*.cu tests/dropin/real/*.c tests/dropin/self/*.c examples/nvidia/*) \
             test-dropin-self
	CC="$(CC)" TWINS="$(EXAMPLE_TWINS)" TWIN_MPI="$(TWIN_MPI_EXAMPLE)" CUDA_PATH="$(CUDA_PATH)" NVCC="$(DROPIN_NVCC)" RELEASES="$(MOCK_RELEASES)" IR=$(GENERATED)/ir DOC=docs/dropin.md \
	    SONAMES="$(foreach l,$(CUBIND_LIBRARIES),$(CUBIND_SONAME_$(l)))" \
	    NVCC_SONAMES="$(foreach r,$(MOCK_RELEASES),$(r):$(call mock_soname,$(CUBIND_NVCC_LIBRARY),$(r)))" \
	    NVCC_LIBRARY="$(CUBIND_NVCC_LIBRARY)" RELEASES_CACHE="$(RELEASES_CACHE)" \
	    tests/dropin/run.sh $(TEST_BUILD)/dropin $(abspath $(BUILD)/lib) $(abspath $(MOCKS_BUILD))
	@$(RESULTS) passed test-dropin

# A library calling its own export through the drop-in while cubind loads it (tests/dropin/self/run.sh):
# part of test-dropin, and run on its own under a sanitizer (test-c SAN=...) and valgrind
# (test-valgrind-dropin-self), each fixture and program built with the sanitizer's flags.
DROPIN_SELF_DEPS := $(DROPIN_SO) $(BUILT_HEADERS) $(wildcard tests/dropin/self/*) generator/libraries.toml docs/reliability.md
DROPIN_SELF_RUN = CC="$(CC)" CFLAGS="$(CFLAGS) $(SAN_FLAGS)" LDFLAGS="$(LDFLAGS_SAN)" TOML=generator/libraries.toml \
    IR=$(GENERATED)/ir DOC=docs/reliability.md tests/dropin/self/run.sh
test-dropin-self: $(DROPIN_SELF_DEPS)
	$(DROPIN_SELF_RUN) $(TEST_BUILD)/dropin-self $(abspath $(BUILD)/lib) $(abspath $(BUILD)/include)
	@$(RESULTS) passed test-dropin-self

test-valgrind-dropin-self: $(DROPIN_SELF_DEPS)
	RUN="$(VALGRIND)" $(DROPIN_SELF_RUN) $(TEST_BUILD)/dropin-self-valgrind $(abspath $(BUILD)/lib) $(abspath $(BUILD)/include)
	@$(RESULTS) --variant valgrind passed test-valgrind-dropin-self

.PHONY: test-dropin test-dropin-self test-valgrind-dropin-self
