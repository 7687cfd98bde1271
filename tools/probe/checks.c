/*
 * cubind-probe: whether what is loaded fits together (cubind_check_count, cubind_check_get): one
 * line per check with its verdict and reason; the worst verdict decides the exit status.
 */
#include <stdio.h>

#include "cubind/cubind.h"

#include "output.h"
#include "probe.h"

static int checks_text(void)
{
    size_t n = cubind_check_count(), i;
    int worst = CUBIND_CHECK_OK;
    fprintf(probe_out, "\nchecks      %zu\n", n);
    for (i = 0; i < n; ++i) {
        struct cubind_check c = {.size = sizeof c};
        if (cubind_check_get(i, &c) != CUBIND_OK)
            continue;
        if ((int)c.verdict > worst)
            worst = (int)c.verdict;
        fprintf(probe_out, "    %-8s %s %s: ", cubind_verdict_name(c.verdict),
               c.library == CUBIND_LIB_NONE ? "machine" : cubind_library_name(c.library), c.name);
        text_string(c.reason);
        probe_char('\n');
    }
    return worst;
}

static int checks_json(void)
{
    size_t n = cubind_check_count(), i;
    int worst = CUBIND_CHECK_OK;
    int first = 1;
    probe_char('[');
    for (i = 0; i < n; ++i) {
        struct cubind_check c = {.size = sizeof c};
        if (cubind_check_get(i, &c) != CUBIND_OK)
            continue;
        if ((int)c.verdict > worst)
            worst = (int)c.verdict;
        fprintf(probe_out, "%s{\"name\":", first ? "" : ",");
        first = 0;
        json_string(c.name);
        json_member("library", c.library == CUBIND_LIB_NONE ? NULL : cubind_library_name(c.library));
        json_member("verdict", cubind_verdict_name(c.verdict));
        json_member("reason", c.reason);
        probe_char('}');
    }
    probe_char(']');
    return worst;
}

/* The checks; an error, or under --strict a warning, makes the exit status PROBE_EXIT_CHECKS. */
void checks_section(struct probe *probe)
{
    int worst = probe->json ? checks_json() : checks_text();
    if (worst >= CUBIND_CHECK_ERROR || (probe->strict && worst >= CUBIND_CHECK_WARNING))
        probe_status(probe, PROBE_EXIT_CHECKS);
}
