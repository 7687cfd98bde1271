# dropin/mocks.mk - the mock CUDA libraries as a product (docs/mocks.md), included by the Makefile.
#
# $(BUILD)/mocks/<release>/ holds a mock of each library of that CUDA release, named by that release's soname,
# and answering its version query as that release does (the headers' release: built with
# CUBIND_MOCK_AS_RELEASED; the older ones: their generated mocks, tests/mock_<lib>-r<release>.c).
# A library with no release data (NCCL, cuDNN, NVML: versioned apart from CUDA) is in every
# folder, built for it (CUBIND_MOCK_CUDA_MAJOR and _MINOR: the CUDA release its version getters of
# CUDA's release answer); one that a release lacks (nvJitLink before 12.0) is not in its folder. A mock
# of a library whose NVIDIA file exports its functions in a version node named after its soname
# (cudaMalloc@@libcudart.so.13; CUBIND_VERSIONED_SYMBOLS) does the same, so that a program linked
# with NVIDIA's file (nvcc's registration calls, @libcudart.so.13) binds to it. Every mock links
# $(BUILD)/mocks/libcubind_mock_recorder.so, whose environment scripts statuses and logs calls
# (tests/mock/recorder.h). A program finds them as it finds NVIDIA's: LD_LIBRARY_PATH=<folder>.

-include $(GENERATED)/dropin/release.mk

MOCKS_BUILD := $(BUILD)/mocks
MOCKS_RECORDER := $(MOCKS_BUILD)/libcubind_mock_recorder.so
MOCK_RELEASES := $(CUBIND_CUDA_RELEASE) $(subst _,.,$(CUBIND_RELEASES))
# The libraries in a release's folder: those with that release, or with no release data.
mock_libraries_of = $(foreach l,$(CUBIND_LIBRARIES),$(if $(or $(filter $(subst .,_,$(1)),$(CUBIND_RELEASES_$(l))),$(if $(CUBIND_RELEASES_$(l)),,x),$(filter $(1),$(CUBIND_CUDA_RELEASE))),$(l)))
# mock_soname(lib, release): that release's soname of the library (libcublas.so.12 for 12.4), its
# mock's file name and DT_SONAME, as NVIDIA's file of that release has (generated/build.mk).
mock_soname = $(or $(CUBIND_RELEASE_SONAME_$(1)_$(subst .,_,$(2))),$(CUBIND_SONAME_$(1)))
PRODUCT_MOCKS := $(foreach r,$(MOCK_RELEASES),$(foreach l,$(call mock_libraries_of,$(r)),$(MOCKS_BUILD)/$(r)/$(call mock_soname,$(l),$(r))))
MOCK_CFLAGS = $(ALL_CFLAGS) -fPIC -shared -D$(MACRO_PREFIX)_NO_DEPRECATION_WARNINGS $(INCLUDES) $(TEST_SUPPORT_INCLUDES)

$(MOCKS_RECORDER): $(RECORDER_SOURCES) $(RECORDER_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_SUPPORT_INCLUDES) -fPIC -shared -Wl,-soname,libcubind_mock_recorder.so -o $@ \
	    $(RECORDER_SOURCES) -lpthread $(LDFLAGS_SAN)

# mock_source(lib, release): an older release's own mock where the library has one, else the plain mock.
mock_source = $(GENERATED)/tests/mock_$(1)$(if $(filter $(subst .,_,$(2)),$(CUBIND_RELEASES_$(1))),-r$(subst .,_,$(2))).c
# mock_node(lib, release): the version script giving every export the node of the soname, where
# NVIDIA's file has one.
mock_node = $(if $(filter $(1),$(CUBIND_VERSIONED_SYMBOLS)),-Wl$(comma)--version-script=$(MOCKS_BUILD)/nodes/$(2)/$(call mock_soname,$(1),$(2)).map)
comma := ,
define product_mock_rule
$(MOCKS_BUILD)/$(2)/$(call mock_soname,$(1),$(2)): $(call mock_source,$(1),$(2)) $(MOCKS_RECORDER) $(PUBLIC_HEADERS) $(GENERATED)/build.mk $(GENERATED)/dropin/release.mk
	@mkdir -p $$(dir $$@)
	$(if $(call mock_node,$(1),$(2)),@mkdir -p $(MOCKS_BUILD)/nodes/$(2) && printf '%s {\n    global: *;\n};\n' '$(call mock_soname,$(1),$(2))' \
	    > $(MOCKS_BUILD)/nodes/$(2)/$(call mock_soname,$(1),$(2)).map)
	$$(CC) $$(MOCK_CFLAGS) -DCUBIND_MOCK_AS_RELEASED -DCUBIND_MOCK_CUDA_MAJOR=$(word 1,$(subst ., ,$(2))) \
	    -DCUBIND_MOCK_CUDA_MINOR=$(word 2,$(subst ., ,$(2))) -Wl,-soname,$(call mock_soname,$(1),$(2)) \
	    $(call mock_node,$(1),$(2)) -o $$@ $$< -L$(MOCKS_BUILD) -lcubind_mock_recorder -Wl,-rpath,'$$$$ORIGIN/..' $$(LDFLAGS_SAN)
endef
$(foreach r,$(MOCK_RELEASES),$(foreach l,$(call mock_libraries_of,$(r)),$(eval $(call product_mock_rule,$(l),$(r)))))

mocks: $(PRODUCT_MOCKS)
# `make` builds them: make install copies them (and compiles nothing).
all: $(if $(TREE_PREFIX),,mocks)

# Part of make install: <prefix>/lib/cubind/mocks/<release>/ (copies only).
install-mocks: mocks
	install -d $(DESTDIR)$(PREFIX)/lib/cubind/mocks $(DESTDIR)$(PREFIX)/include/cubind/mock
	install -m 755 $(MOCKS_RECORDER) $(DESTDIR)$(PREFIX)/lib/cubind/mocks/
	$(foreach r,$(MOCK_RELEASES),install -d $(DESTDIR)$(PREFIX)/lib/cubind/mocks/$(r) && \
	    install -m 755 $(filter $(MOCKS_BUILD)/$(r)/%,$(PRODUCT_MOCKS)) $(DESTDIR)$(PREFIX)/lib/cubind/mocks/$(r)/ &&) true
	install -m 644 tests/mock/recorder.h $(DESTDIR)$(PREFIX)/include/cubind/mock/

.PHONY: mocks install-mocks
