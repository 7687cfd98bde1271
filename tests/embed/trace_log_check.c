/*
 * tests/embed/trace_log_check.c - the shared traced path (loader/trace_log.c) on every kind of a
 * description: unsigned and signed integers, floating point, a record, an enum with and without a
 * name, a pointer; a status, a value and no result; and a function's description and enum names
 * as generated in its table. Linked with libcubind.a (cubind__trace_args is hidden, not exported);
 * run with CUBIND_TRACE=1 and CUBIND_TRACE_FILE=FILE, FILE its argument.
 */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cubind/cubind.h"
#include "internal.h"
#include "trace_log.h"

static int failures;

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
    const char *prefix = "";
    const char *subformat = table != NULL ? cubind__trace_enum_name(table, 3, 1, &prefix) : NULL;
    char subformat_name[128];
    FILE *trace;
    if (argc != 2 || table == NULL || table->count == 0 ||
        !cubind__trace_described(&call, table, 0, "s;uun;ineg;fx;rrec;e3:mode;e3:other;pptr;",
                                 (cubind__word)UINT64_MAX, (cubind__word)-7LL, 2.5, (cubind__word)1, (cubind__word)9,
                                 (cubind__word)0xabc)) {
        fprintf(stderr, "usage: CUBIND_TRACE=1 CUBIND_TRACE_FILE=FILE trace_log_check FILE (with cuFFT built)\n");
        return 2;
    }
    /* cuFFT's enum 3 of its descriptions is cufftXtSubFormat, read from the generated table: its
     * constants' names after the prefix they share */
    snprintf(subformat_name, sizeof subformat_name, "%s%s", prefix, subformat != NULL ? subformat : "unnamed");
    if (subformat == NULL || strcmp(subformat_name, "CUFFT_XT_FORMAT_OUTPUT") != 0 || strlen(prefix) == 0 ||
        cubind__trace_enum_name(table, 3, 9, &prefix) != NULL || cubind__trace_enum_name(table, 99, 1, &prefix) != NULL) {
        fprintf(stderr, "trace_log_check: cuFFT's enum 3, value 1, is %s (CUFFT_XT_FORMAT_OUTPUT expected)\n",
                subformat_name);
        failures++;
    }
    cubind__trace_result(&call, 2);
    cubind__trace_described(&call, table, 0, "f;e0:mode;", (cubind__word)1);
    cubind__trace_result(&call, 0.25);
    cubind__trace_described(&call, table, 0, "v;");
    cubind__trace_result(&call);
    cubind__trace_described(&call, table, 0, "e3:;");
    cubind__trace_result(&call, (cubind__word)1);
    /* the generated description of cufftPlan1d (the first function of cuFFT's table) */
    cubind__trace_args(&call, CUBIND__FUNCTION_ID(CUBIND_LIB_CUFFT, 0), (cubind__word)0x10, (cubind__word)64,
                       (cubind__word)0x2a, (cubind__word)1);
    cubind__trace_result(&call, 0);
    trace = fopen(argv[1], "r");
    if (trace == NULL) {
        perror(argv[1]);
        return 1;
    }
    {
        char name[256], pattern[1024];
        const char *status = cubind_status_name(CUBIND_LIB_CUFFT, 2);
        snprintf(name, sizeof name, "%s", cubind__function_name(table, 0));
        snprintf(pattern, sizeof pattern,
                 "^cubind-trace: tid=[0-9]+ cufft %s\\(un=18446744073709551615, neg=-7, x=2\\.5, rec=\\{\\.\\.\\.\\}, "
                 "mode=CUFFT_XT_FORMAT_OUTPUT, other=9, ptr=0xabc\\) -> %s [0-9]+\\.[0-9]{3} us$", name,
                 status != NULL ? status : "2");
        expect_line(trace, pattern);
        snprintf(pattern, sizeof pattern, "^cubind-trace: tid=[0-9]+ cufft %s\\(mode=1\\) -> 0\\.25 [0-9]+\\.[0-9]{3} us$",
                 name);
        expect_line(trace, pattern);
        snprintf(pattern, sizeof pattern, "^cubind-trace: tid=[0-9]+ cufft %s\\(\\) [0-9]+\\.[0-9]{3} us$", name);
        expect_line(trace, pattern);
        snprintf(pattern, sizeof pattern,
                 "^cubind-trace: tid=[0-9]+ cufft %s\\(\\) -> CUFFT_XT_FORMAT_OUTPUT [0-9]+\\.[0-9]{3} us$", name);
        expect_line(trace, pattern);
        expect_line(trace, "^cubind-trace: tid=[0-9]+ cufft cufftPlan1d\\(plan=0x10, nx=64, type=CUFFT_R2C, batch=1\\) "
                           "-> CUFFT_SUCCESS [0-9]+\\.[0-9]{3} us$");
    }
    fclose(trace);
    if (failures == 0)
        printf("trace_log_check: every kind of a description traced as the wrappers trace it; cuFFT's generated "
               "descriptions and enum names read from its table\n");
    return failures == 0 ? 0 : 1;
}
