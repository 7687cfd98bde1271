# tests/cplusplus/cplusplus.mk - NVIDIA's C++ conveniences under cubind's names (make test-cplusplus),
# included by tests/tests.mk.
#
# tests/cplusplus/nvidia_style.cpp, a program written for cuda_runtime.h with only the names changed
# (default arguments left out, typed allocations, a channel description by type, occupancy and launch
# templates), built with g++ and clang++ (-Wall -Wextra -Werror -pedantic, C++11 and C++17) against
# cubind's headers alone and with CUDA's include directory given as -I, out-of-line and inline
# form; each build is linked with libcubind alone and run against the mocks, whose recorder says
# which NVIDIA function each call reached. generated/'s IR check is tests/generator/test_cplusplus.py.

CPLUSPLUS_TEST_DIR := $(TEST_BUILD)
# Under a sanitizer, the compiler's own only: clang's ASan and TSan runtimes are not gcc's, which
# libcubind's sanitizer build links (the plain step builds and runs the clang ones).
CPLUSPLUS_VARIANTS := g++-alone g++-cuda g++-inline $(if $(SAN),,clang++-alone clang++-cuda clang++-inline)
CPLUSPLUS_TESTS := $(foreach v,$(CPLUSPLUS_VARIANTS),$(CPLUSPLUS_TEST_DIR)/nvidia_style-$(v))
# tests/cplusplus/nvidia_style_c.c, its C counterpart (flags by name, a captured graph, cuBLASXt, the
# profiler APIs, cuComplex.h's arithmetic: -lm, as with NVIDIA's header), with gcc and clang, cubind's headers alone and with CUDA's include directory.
C_STYLE_VARIANTS := gcc-alone gcc-cuda $(if $(SAN),,clang-alone clang-cuda)
C_STYLE_TESTS := $(foreach v,$(C_STYLE_VARIANTS),$(CPLUSPLUS_TEST_DIR)/nvidia_style_c-$(v))
# tests/cplusplus/nvidia_style_nvcc.cu, a CUDA program built by nvcc, where the toolkit has it (CI's
# does, at $(CUDA_PATH)/bin/nvcc): the templates cuda_runtime.h declares for nvcc only (#if
# defined(__CUDACC__)) and those on a kernel for every compiler, under cubind's names, out-of-line
# and inline form, warnings as errors; linked with libcubind, run against the mocks. Not under a
# sanitizer (nvcc's host compiler, its flags of its own).
CPLUSPLUS_NVCC := $(wildcard $(CUDA_PATH)/bin/nvcc)
NVCC_STYLE_TESTS := $(if $(CPLUSPLUS_NVCC),$(if $(SAN),,$(foreach v,outline inline,$(CPLUSPLUS_TEST_DIR)/nvidia_style_nvcc-$(v))))
cplusplus_compiler = $(firstword $(subst -, ,$(1)))
cplusplus_flags = $(if $(findstring -cuda,$(1)),-I$(CUDA_PATH)/include)$(if $(findstring -inline,$(1)), -DCUBIND_INLINE)

.PHONY: test-cplusplus

$(CPLUSPLUS_TEST_DIR)/nvidia_style-%: tests/cplusplus/nvidia_style.cpp tests/cplusplus/reached.h $(LIBRARY_SO) $(BUILT_HEADERS) $(RECORDER) \
                                       tests/cplusplus/cplusplus.mk
	@mkdir -p $(dir $@)
	$(call cplusplus_compiler,$*) $(if $(findstring -alone,$*),-std=c++11,-std=c++17) -Wall -Wextra -Werror -pedantic \
	    -I$(BUILD)/include $(call cplusplus_flags,$*) -Itests $< -o $@ $(TEST_LIBS) $(MOCK_LIBS)

$(CPLUSPLUS_TEST_DIR)/nvidia_style_c-%: tests/cplusplus/nvidia_style_c.c $(LIBRARY_SO) $(BUILT_HEADERS) $(RECORDER) \
                                         tests/cplusplus/cplusplus.mk
	@mkdir -p $(dir $@)
	$(call cplusplus_compiler,$*) $(WARNINGS) $(SAN_FLAGS) -I$(BUILD)/include $(call cplusplus_flags,$*) -Itests $< -o $@ \
	    $(TEST_LIBS) $(MOCK_LIBS) -lm

$(CPLUSPLUS_TEST_DIR)/nvidia_style_nvcc-%: tests/cplusplus/nvidia_style_nvcc.cu tests/cplusplus/reached.h $(LIBRARY_SO) $(BUILT_HEADERS) $(RECORDER) \
                                            tests/cplusplus/cplusplus.mk
	@mkdir -p $(dir $@)
	$(CPLUSPLUS_NVCC) -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I$(BUILD)/include \
	    $(if $(findstring inline,$*),-DCUBIND_INLINE) -Itests $< -o $@ -L$(BUILD)/lib -lcubind -L$(MOCK_DIR) \
	    -lcubind_mock_recorder -Xlinker -rpath,'$$ORIGIN/../lib' -Xlinker -rpath,'$$ORIGIN/mock'

test-cplusplus: $(CPLUSPLUS_TESTS) $(C_STYLE_TESTS) $(NVCC_STYLE_TESTS) $(MOCKS)
	@[ -n "$(CPLUSPLUS_NVCC)" ] || echo "test-cplusplus: no $(CUDA_PATH)/bin/nvcc: tests/cplusplus/nvidia_style_nvcc.cu not built"
	@for p in $(CPLUSPLUS_TESTS) $(C_STYLE_TESTS) $(NVCC_STYLE_TESTS); do \
	    env $(MOCK_ENV) $$p || { echo "test-cplusplus: $$p failed"; exit 1; }; \
	done
	@$(RESULTS) passed test-cplusplus

# The GPU run (tests/gpu/cplusplus.sh, from tests/gpu/run.sh): every build of both programs, made
# here (the GPU machine has no C++ compiler to count on), on NVIDIA's real libraries; there
# nvidia_style.cpp launches its kernel from PTX (cudaLibraryLoadData) instead of a host function.
gpu-build: $(CPLUSPLUS_TESTS) $(C_STYLE_TESTS)
