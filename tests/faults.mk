# tests/faults.mk - the loader's fault, bad-input and concurrency tests (tests/test_faults.c),
# included by tests/tests.mk.
#
#   make test-faults                      every case, and 200 rounds of 64 threads racing first calls
#   CUBIND_TEST_ROUNDS=20 make test-faults   fewer rounds (under TSan, say)

REENTRANT_MOCK := $(TEST_BUILD)/mock-reentrant/libcublas.so.13
SLOW_MOCK := $(TEST_BUILD)/mock-slow/libcufft.so.12
FAULTS_OBJECTS := $(TEST_BUILD)/obj/tests/test_faults.o $(TEST_BUILD)/obj/tests/scenario.o \
                  $(TEST_BUILD)/obj/tests/loader_support.o $(LIBRARY_CASES)

.PHONY: test-faults

test-c: test-faults
test-build: $(TEST_BUILD)/test_faults $(REENTRANT_MOCK) $(SLOW_MOCK)

# Like test_loader, it counts dlopen calls by defining dlopen itself: it must be exported.
$(TEST_BUILD)/test_faults: $(FAULTS_OBJECTS) $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES) tests/faults.mk
	$(CC) -o $@ $(FAULTS_OBJECTS) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread

# A mock libcublas whose constructor calls cubind while cubind is loading it.
$(REENTRANT_MOCK): $(GENERATED)/tests/mock_cublas.c tests/mock/reentrant_constructor.c tests/mock/reentrant_constructor.h \
                   $(RECORDER) $(LIBRARY_SO) $(PUBLIC_HEADERS) tests/faults.mk
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -fPIC -shared -Wl,-soname,libcublas.so.13 -o $@ $(GENERATED)/tests/mock_cublas.c \
	    tests/mock/reentrant_constructor.c -L$(MOCK_DIR) -lcubind_mock_recorder -L$(BUILD)/lib -lcubind \
	    -Wl,-rpath,'$$ORIGIN/../mock' -Wl,-rpath,'$$ORIGIN/../../lib' $(LDFLAGS_SAN)

# A mock libcufft whose constructor sleeps (fork while another thread loads it).
$(SLOW_MOCK): $(GENERATED)/tests/mock_cufft.c tests/mock/slow_constructor.c $(RECORDER) $(PUBLIC_HEADERS) tests/faults.mk
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -fPIC -shared -Wl,-soname,libcufft.so.12 -o $@ $(GENERATED)/tests/mock_cufft.c \
	    tests/mock/slow_constructor.c -L$(MOCK_DIR) -lcubind_mock_recorder -Wl,-rpath,'$$ORIGIN/../mock' \
	    $(LDFLAGS_SAN)

test-faults: $(TEST_BUILD)/test_faults $(MOCKS) $(HALF_MOCKS) $(REENTRANT_MOCK) $(SLOW_MOCK)
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    $(RESULTS) run test_faults cmocka -- $(TEST_BUILD)/test_faults

# Issue 7's fault classes (tests/test_hardening.c), and the set-user-ID helper it runs as nobody.
HARDENING_OBJECTS := $(TEST_BUILD)/obj/tests/test_hardening.o $(TEST_BUILD)/obj/tests/scenario.o $(LIBRARY_CASES) \
                     $(TEST_BUILD)/obj/tests/loader_support.o
SETUID_HELPER := $(TEST_BUILD)/setuid_helper

.PHONY: test-hardening
test-c: test-hardening
HANDLER_THROW := $(TEST_BUILD)/handler_throw
test-build: $(TEST_BUILD)/test_hardening $(SETUID_HELPER) $(HANDLER_THROW)

$(TEST_BUILD)/test_hardening: $(HARDENING_OBJECTS) $(LIBRARY_SO) $(RECORDER) $(LINK_FLAGS_FILES) tests/faults.mk
	$(CC) -o $@ $(HARDENING_OBJECTS) $(TEST_LIBS) $(MOCK_LIBS) -Wl,--export-dynamic -lcmocka -ldl -lpthread

# Static: a set-user-ID program's run path may not use $ORIGIN.
$(SETUID_HELPER): tests/setuid_helper.c $(LIBRARY_A) $(PUBLIC_HEADERS) tests/faults.mk
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INCLUDES) $< -o $@ $(LIBRARY_A) -ldl -lpthread $(LDFLAGS_SAN)

# A C++ error handler that throws: the exception crosses cubind's C frames (unwind tables).
$(HANDLER_THROW): tests/handler_throw.cpp $(LIBRARY_SO) $(PUBLIC_HEADERS) $(LINK_FLAGS_FILES) tests/faults.mk
	@mkdir -p $(dir $@)
	$(CXX) $(CXX_WARNINGS) $(CFLAGS) $(SAN_FLAGS) $(INCLUDES) $< -o $@ $(TEST_LIBS)

test-hardening: $(TEST_BUILD)/test_hardening $(SETUID_HELPER) $(HANDLER_THROW) $(MOCKS) $(HALF_MOCKS) $(SLOW_MOCK)
	CUBIND_TEST_MOCK_DIR=$(abspath $(MOCK_DIR)) CUBIND_TEST_HALF_MOCK_DIR=$(abspath $(HALF_MOCK_DIR)) \
	    $(RESULTS) run test_hardening cmocka -- $(TEST_BUILD)/test_hardening
	CUBIND_CUFFT_PATH=/nonexistent/libcufft.so.12 $(HANDLER_THROW)
