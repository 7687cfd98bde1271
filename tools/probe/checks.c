/*
 * cubind-probe: whether what is loaded fits together (cubind_check_count, cubind_check_get): one
 * line per check with its verdict and reason; the worst verdict decides the exit status.
 */
#include <stdio.h>

#include "cubind/cubind.h"

#include "machine.h"
#include "output.h"

int checks_text(void)
{
    size_t n = cubind_check_count(), i;
    int worst = CUBIND_CHECK_OK;
    printf("\nchecks      %zu\n", n);
    for (i = 0; i < n; ++i) {
        struct cubind_check c = {.size = sizeof c};
        if (cubind_check_get(i, &c) != CUBIND_OK)
            continue;
        if ((int)c.verdict > worst)
            worst = (int)c.verdict;
        printf("    %-8s %s %s: ", cubind_verdict_name(c.verdict),
               c.library == CUBIND_LIB_NONE ? "machine" : cubind_library_name(c.library), c.name);
        text_string(c.reason);
        putchar('\n');
    }
    return worst;
}

int checks_json(void)
{
    size_t n = cubind_check_count(), i;
    int worst = CUBIND_CHECK_OK;
    printf(",\"checks\":[");
    for (i = 0; i < n; ++i) {
        struct cubind_check c = {.size = sizeof c};
        if (cubind_check_get(i, &c) != CUBIND_OK)
            continue;
        if ((int)c.verdict > worst)
            worst = (int)c.verdict;
        printf("%s{\"name\":", i ? "," : "");
        json_string(c.name);
        json_member("library", c.library == CUBIND_LIB_NONE ? NULL : cubind_library_name(c.library));
        json_member("verdict", cubind_verdict_name(c.verdict));
        json_member("reason", c.reason);
        putchar('}');
    }
    putchar(']');
    return worst;
}

int checks_exit_status(int worst, int strict)
{
    return worst >= CUBIND_CHECK_ERROR || (strict && worst >= CUBIND_CHECK_WARNING) ? 3 : 0;
}
