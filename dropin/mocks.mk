# dropin/mocks.mk - the mock CUDA libraries as a product (docs/mocks.md), included by the Makefile.
#
# $(BUILD)/mocks/<release>/ holds a mock of each library of that CUDA release, named by that release's soname,
# and answering its version query as that release does (the headers' release: built with
# CUBIND_MOCK_AS_RELEASED; the older ones: their generated mocks, tests/mock_<lib>-r<release>.c).
# A library with no release data (NCCL, cuDNN, NVML: versioned apart from CUDA) is in every
# folder; one that a release lacks (nvJitLink before 12.0) is not in its folder. Every mock links
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

$(MOCKS_RECORDER): $(RECORDER_SOURCE) tests/mock/recorder.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -Wl,-soname,libcubind_mock_recorder.so -o $@ $< -lpthread $(LDFLAGS_SAN)

# mock_source(lib, release): an older release's own mock where the library has one, else the plain mock.
mock_source = $(GENERATED)/tests/mock_$(1)$(if $(filter $(subst .,_,$(2)),$(CUBIND_RELEASES_$(1))),-r$(subst .,_,$(2))).c
define product_mock_rule
$(MOCKS_BUILD)/$(2)/$(call mock_soname,$(1),$(2)): $(call mock_source,$(1),$(2)) $(MOCKS_RECORDER) $(PUBLIC_HEADERS) $(GENERATED)/build.mk
	@mkdir -p $$(dir $$@)
	$$(CC) $$(MOCK_CFLAGS) -DCUBIND_MOCK_AS_RELEASED -Wl,-soname,$(call mock_soname,$(1),$(2)) -o $$@ $$< \
	    -L$(MOCKS_BUILD) -lcubind_mock_recorder -Wl,-rpath,'$$$$ORIGIN/..' $$(LDFLAGS_SAN)
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
