# dropin/dropin.mk - the drop-in link library (docs/dropin.md), included by the Makefile.
#
# libcubind-dropin.so.<major> exports the symbols a program compiled against NVIDIA's headers
# references (cublasSgemm_v2, cuMemAlloc_v2, ...), each a forwarder to cubind's wrapper
# ($(GENERATED)/dropin/<library>.c, generated from the IR), and needs libcubind.so.<major>.
# Its own soname, never NVIDIA's: NVIDIA's libraries name each other's sonames in DT_NEEDED and in
# version nodes (cublasLtMatmul@libcublasLt.so.13 in libcublas), and a file that took one of those
# names would be loaded or bound as that library. Every export carries the version node
# CUBIND_DROPIN_<major>.<minor>: such a versioned reference is not satisfied by it, where an
# unversioned definition would be (docs/dropin.md, "Interposition", has the measurement).

DROPIN_SONAME := libcubind-dropin.so.$(VERSION_MAJOR)
DROPIN_REALNAME := libcubind-dropin.so.$(VERSION)
DROPIN_REAL := $(BUILD)/lib/$(DROPIN_REALNAME)
DROPIN_LINK := $(BUILD)/lib/$(DROPIN_SONAME)
DROPIN_SO := $(BUILD)/lib/libcubind-dropin.so
DROPIN_NODE := $(subst CUBIND_,CUBIND_DROPIN_,$(VERSION_NODE))
DROPIN_MAP := $(BUILD)/dropin/libcubind-dropin.map
DROPIN_SOURCES := $(wildcard $(GENERATED)/dropin/*.c)
DROPIN_OBJECTS := $(patsubst %.c,$(BUILD)/obj/%.o,$(DROPIN_SOURCES))
DROPIN_PC := $(BUILD)/pkgconfig/cubind-dropin.pc
DROPIN_CMAKE := $(BUILD)/cmake/cubind-dropin.cmake

# A forwarder is a tail call through the PLT: a program's call costs its own PLT jump, the
# forwarder's jump and the PLT's, then the wrapper's code (make bench: "drop-in"). Not -fno-plt,
# which saves the PLT jump but binds all the drop-in's references when it is loaded: measured with
# callgrind, a program that does nothing took 3,129,621 instructions so, 202,529 with the PLT
# (lazy binding), 144,065 linking libcubind alone.

$(DROPIN_MAP): $(GENERATED)/dropin/libcubind-dropin.map.in include/cubind/version.h
	@mkdir -p $(dir $@)
	sed 's/@VERSION_NODE@/$(DROPIN_NODE)/' $< > $@

# $ORIGIN: libcubind.so.<major> is found beside it, wherever both are installed.
$(DROPIN_REAL): $(DROPIN_OBJECTS) $(DROPIN_MAP) $(LIBRARY_SONAME) $(LIBRARY_SO)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(DROPIN_SONAME) -Wl,--version-script=$(DROPIN_MAP) -Wl,--no-undefined \
	    -Wl,-z,nodynamic-undefined-weak -Wl,-z,lazy -Wl,-rpath,'$$ORIGIN' $(LDFLAGS_SAN) -o $@ $(DROPIN_OBJECTS) \
	    -L$(BUILD)/lib -lcubind

$(DROPIN_LINK): $(DROPIN_REAL)
	ln -sf $(DROPIN_REALNAME) $@

$(DROPIN_SO): $(DROPIN_LINK)
	ln -sf $(DROPIN_SONAME) $@

dropin: $(DROPIN_SO)
all: $(if $(TREE_PREFIX),,dropin)

$(DROPIN_PC): dropin/cubind-dropin.pc.in include/cubind/version.h
	@mkdir -p $(dir $@)
	$(TEMPLATE_SED) $< > $@

# (the toolkit's include directory, CUDA_PATH's: where cubind::dropin finds NVIDIA's headers when CMake's
# CUDAToolkit does not)
$(DROPIN_CMAKE): dropin/cubind-dropin.cmake.in include/cubind/version.h $(LIBRARY_REAL) dropin/dropin.mk
	@mkdir -p $(dir $@)
	$(TEMPLATE_SED) -e 's|@CUDA_INCLUDE_DIR@|$(abspath $(CUDA_PATH))/include|g' $< > $@

# Part of make install (the Makefile's install target depends on it); copies only.
install-dropin: dropin $(DROPIN_PC) $(DROPIN_CMAKE)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/cubind
	install -m 755 $(DROPIN_REAL) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(DROPIN_REALNAME) $(DESTDIR)$(PREFIX)/lib/$(DROPIN_SONAME)
	ln -sf $(DROPIN_SONAME) $(DESTDIR)$(PREFIX)/lib/libcubind-dropin.so
	install -m 644 $(DROPIN_PC) $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 $(DROPIN_CMAKE) $(DESTDIR)$(PREFIX)/lib/cmake/cubind/

.PHONY: dropin install-dropin
