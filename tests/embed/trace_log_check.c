/*
 * tests/embed/trace_log_check.c - the shared traced path (loader/trace_log.c) on every kind of a
 * description: unsigned and signed integers, floating point, a record, an enum with and without a
 * name, a pointer; a status, a value and no result. Linked with libcubind.a (cubind__trace_log is
 * hidden, not exported); run with CUBIND_TRACE=1 and CUBIND_TRACE_FILE=FILE, FILE its argument.
 */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cubind/cubind.h"
#include "internal.h"
#include "trace_log.h"

static int failures;

static const char *lookup(unsigned which, long long value)
{
    return which == 3 && value == 1 ? "MODE_ONE" : NULL;
}

/* Whether the next line of `trace` matches `pattern` (a POSIX extended regular expression). */
static void expect_line(FILE *trace, const char *pattern)
{
    char line[4096];
    regex_t re;
    if (fgets(line, sizeof line, trace) == NULL) {
        fprintf(stderr, "trace_log_check: no line for %s\n", pattern);
        failures++;
        return;
    }
    line[strcspn(line, "\n")] = '\0';
    regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (regexec(&re, line, 0, NULL, 0) != 0) {
        fprintf(stderr, "trace_log_check: got   %s\n                 wanted %s\n", line, pattern);
        failures++;
    }
    regfree(&re);
}

int main(int argc, char **argv)
{
    const cubind__symbol_table *table = cubind__symbols(CUBIND_LIB_CUFFT);
    cubind__trace_call call;
    FILE *trace;
    if (argc != 2 || table == NULL || table->count == 0 || !cubind__trace_begin(&call, CUBIND_LIB_CUFFT)) {
        fprintf(stderr, "usage: CUBIND_TRACE=1 CUBIND_TRACE_FILE=FILE trace_log_check FILE (with cuFFT built)\n");
        return 2;
    }
    cubind__trace_log(&call, table, 0, 0, lookup, "s;uun;ineg;fx;rrec;e3:mode;e3:other;pptr;",
                      2, (unsigned long long)UINT64_MAX, -7LL, 2.5, 1LL, 9LL, (uintptr_t)0xabc);
    cubind__trace_begin(&call, CUBIND_LIB_CUFFT);
    cubind__trace_log(&call, table, 0, 0, NULL, "f;e0:mode;", 0.25, 1LL);
    cubind__trace_begin(&call, CUBIND_LIB_CUFFT);
    cubind__trace_log(&call, table, 0, 0, NULL, "v;", 0);
    cubind__trace_begin(&call, CUBIND_LIB_CUFFT);
    cubind__trace_log(&call, table, 0, 0, lookup, "e3:;", 1LL);
    trace = fopen(argv[1], "r");
    if (trace == NULL) {
        perror(argv[1]);
        return 1;
    }
    /* the first function of cuFFT's table, as the wrappers name it */
    {
        char name[256], pattern[1024];
        const char *status = cubind_status_name(CUBIND_LIB_CUFFT, 2);
        snprintf(name, sizeof name, "%s", cubind__function_name(table, 0));
        snprintf(pattern, sizeof pattern,
                 "^cubind-trace: tid=[0-9]+ cufft %s\\(un=18446744073709551615, neg=-7, x=2\\.5, rec=\\{\\.\\.\\.\\}, "
                 "mode=MODE_ONE, other=9, ptr=0xabc\\) -> %s [0-9]+\\.[0-9]{3} us$", name, status != NULL ? status : "2");
        expect_line(trace, pattern);
        snprintf(pattern, sizeof pattern, "^cubind-trace: tid=[0-9]+ cufft %s\\(mode=1\\) -> 0\\.25 [0-9]+\\.[0-9]{3} us$",
                 name);
        expect_line(trace, pattern);
        snprintf(pattern, sizeof pattern, "^cubind-trace: tid=[0-9]+ cufft %s\\(\\) [0-9]+\\.[0-9]{3} us$", name);
        expect_line(trace, pattern);
        snprintf(pattern, sizeof pattern, "^cubind-trace: tid=[0-9]+ cufft %s\\(\\) -> MODE_ONE [0-9]+\\.[0-9]{3} us$",
                 name);
        expect_line(trace, pattern);
    }
    fclose(trace);
    if (failures == 0)
        printf("trace_log_check: every kind of a description traced as the formatted copies traced it\n");
    return failures == 0 ? 0 : 1;
}
