# tests/julia/julia.mk - the Julia module (generator/julia.py, rendered by the Makefile's $(JULIA_RENDERED))
# on the mocks, with Debian bullseye's julia 1.5.3, fetched into the Julia cache under a private apt
# state (tools/fetch-julia.sh; nothing of the system's apt state read or changed). Included by tests.mk.
JULIA_PACKAGE := julia=1.5.3+dfsg-3
JULIA_SUITE := bullseye
JULIA = $(shell sh tools/fetch-julia.sh path $(JULIA_PACKAGE) $(JULIA_SUITE))
JULIA_TEST_DIR := $(TEST_BUILD)/julia

.PHONY: fetch-julia test-julia
fetch-julia:
	@sh tools/fetch-julia.sh fetch $(JULIA_PACKAGE) $(JULIA_SUITE)

# A successful call, a scripted failure thrown as a CubindError with cubind's message, a missing library;
# every constant, record layout and wrapper against constants.json and the IR (tests/julia/consumer.jl).
test-julia: $(JULIA_RENDERED) $(LIBRARY_SO) $(MOCKS) fetch-julia
	env $(MOCK_ENV) $(RESULTS) run julia julia -- sh tests/julia/run.sh $(JULIA) $(abspath $(JULIA_DIR)) \
	    $(abspath $(LIBRARY_SONAME)) $(CONSTANTS_FILE) $(GENERATED)/ir $(abspath $(JULIA_TEST_DIR))
