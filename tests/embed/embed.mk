# tests/embed/embed.mk - embedding (docs/embedding.md), included by tests/tests.mk; `make test-c` runs it.
#
#   make test-embed   a subset generated apart (its own library, mocks and passthrough tests, pinned
#                     ids, the libraries it leaves out reported absent), ...

EMBED_DIR := $(TEST_BUILD)/embed
empty :=
space := $(empty) $(empty)
# The subset the tests generate, and its own tree and build.
EMBED_SELECTION := cufft
EMBED_TREE := $(EMBED_DIR)/tree-$(subst $(space),-,$(EMBED_SELECTION))
EMBED_TREE_BUILD := $(EMBED_DIR)/build-$(subst $(space),-,$(EMBED_SELECTION))
GENERATOR_SOURCES := $(wildcard generator/*.py generator/*.toml templates/*.j2)

.PHONY: test-embed test-embed-subset

test-c: test-embed
test-embed: test-embed-subset

$(EMBED_TREE)/build.mk: $(GENERATOR_SOURCES) | deps-generator
	$(PYTHON) -m generator generate --cuda-path $(CUDA_PATH) $(addprefix --include-dir ,$(INCLUDE_DIRS)) \
	    --libraries $(EMBED_SELECTION) --out $(EMBED_TREE)

# The subset's library against the full one: the same id for every library's name; those left out
# reported absent, those kept not. Then the subset's own mocks and passthrough tests.
test-embed-subset: $(EMBED_TREE)/build.mk $(LIBRARY_SO) tests/embed/subset_check.c
	@mkdir -p $(EMBED_DIR)
	$(MAKE) --no-print-directory GENERATED=$(EMBED_TREE) BUILD=$(EMBED_TREE_BUILD) SAN=$(SAN) \
	    $(EMBED_TREE_BUILD)/lib/libcubind.so test-passthrough
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
