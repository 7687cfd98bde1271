/*
 * cubind-probe: whether what is loaded fits together (cubind_check_count, cubind_check_get): one
 * line per check with its verdict and reason (in the text, the same check of several libraries with
 * the same reason but for the library's name is one line); the worst verdict decides the exit status.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubind/cubind.h"

#include "output.h"
#include "probe.h"

/* A check's reason with its library's file name ("libcublas", the soname up to ".so") in it replaced by
 * "each", into `out`: checks of several libraries that differ only by it are said once. */
static void shared_reason(const struct cubind_check *c, char *out, size_t size)
{
    struct cubind_library_info info = {.size = sizeof info};
    const char *at, *end;
    size_t stem;
    snprintf(out, size, "%s", c->reason != NULL ? c->reason : "");
    if (c->reason == NULL || c->library == CUBIND_LIB_NONE || cubind_library_info(c->library, &info) != CUBIND_OK ||
        info.soname == NULL || (end = strstr(info.soname, ".so")) == NULL)
        return;
    stem = (size_t)(end - info.soname);
    /* the first place where the stem stands alone ("libcublas", not "libcublasLt" nor "libcublas.so.13") */
    for (at = c->reason; (at = strstr(at, "lib")) != NULL; ++at)
        if (strncmp(at, info.soname, stem) == 0 && !isalnum((unsigned char)at[stem]) && at[stem] != '_' &&
            at[stem] != '.')
            break;
    if (at != NULL)
        snprintf(out, size, "%.*s%s%s", (int)(at - c->reason), c->reason, "each", at + stem);
}

/* Whether check `i` is the first of `all` (of those `covered`) with its verdict and name. */
static int first_of_name(const struct cubind_check *all, const char *covered, size_t i)
{
    size_t j;
    for (j = 0; j < i; ++j)
        if (covered[j] && all[j].verdict == all[i].verdict && strcmp(all[j].name, all[i].name) == 0)
            return 0;
    return 1;
}

/* Without --verbose, the checks whose verdict is ok in one line: each name once, with how many. */
static void ok_summary(const struct cubind_check *all, const char *covered, size_t n, size_t ok)
{
    size_t i, j, names = 0;
    if (ok == 0)
        return;
    fprintf(probe_out, "    %-8s", cubind_verdict_name(CUBIND_CHECK_OK));
    for (i = 0; i < n; ++i) {
        size_t count = 0;
        if (!covered[i] || all[i].verdict != CUBIND_CHECK_OK || !first_of_name(all, covered, i))
            continue;
        for (j = i; j < n; ++j)
            count += covered[j] && all[j].verdict == CUBIND_CHECK_OK && strcmp(all[j].name, all[i].name) == 0;
        fprintf(probe_out, "%s %s (%zu)", names++ ? "," : "", all[i].name, count);
    }
    fprintf(probe_out, " (--verbose says each)\n");
}

/* The checks, the same check of several libraries whose reasons differ only by the library's name
 * in one line; without --verbose, those whose verdict is ok summed up (ok_summary). */
static int checks_text(const struct probe *probe)
{
    size_t n = cubind_check_count(), i, j, shown = 0, by_verdict[3] = {0, 0, 0};
    int worst = CUBIND_CHECK_OK;
    struct cubind_check *all = calloc(n ? n : 1, sizeof *all);
    char (*shared)[1024] = calloc(n ? n : 1, sizeof *shared);
    char *said = calloc(n ? n : 1, 1), *covered = calloc(n ? n : 1, 1);
    if (all == NULL || shared == NULL || said == NULL || covered == NULL) {
        free(all), free(shared), free(said), free(covered);
        return CUBIND_CHECK_OK;
    }
    for (i = 0; i < n; ++i) {
        all[i].size = sizeof all[i];
        if (cubind_check_get(i, &all[i]) != CUBIND_OK ||
            (all[i].library != CUBIND_LIB_NONE && !probe_covers(probe, all[i].library)) || (unsigned)all[i].verdict > 2) {
            said[i] = 1;
            continue;
        }
        covered[i] = 1;
        ++shown;
        ++by_verdict[all[i].verdict];
        if ((int)all[i].verdict > worst)
            worst = (int)all[i].verdict;
        said[i] = all[i].verdict == CUBIND_CHECK_OK && !probe->verbose; /* summed up below */
        shared_reason(&all[i], shared[i], sizeof shared[i]);
    }
    fprintf(probe_out, "\nchecks      %zu checks: %zu error%s, %zu warning%s, %zu ok\n", shown,
            by_verdict[CUBIND_CHECK_ERROR], by_verdict[CUBIND_CHECK_ERROR] == 1 ? "" : "s",
            by_verdict[CUBIND_CHECK_WARNING], by_verdict[CUBIND_CHECK_WARNING] == 1 ? "" : "s",
            by_verdict[CUBIND_CHECK_OK]);
    for (i = 0; i < n; ++i) {
        size_t group = 1;
        if (said[i])
            continue;
        said[i] = 1;
        /* the checks of other libraries with the same name, verdict and reason but for the library */
        for (j = i + 1; j < n; ++j)
            group += !said[j] && all[j].library != CUBIND_LIB_NONE && all[i].library != CUBIND_LIB_NONE &&
                     all[j].verdict == all[i].verdict && strcmp(all[j].name, all[i].name) == 0 &&
                     strcmp(shared[j], shared[i]) == 0 && strcmp(shared[i], all[i].reason) != 0;
        if (group == 1) {
            fprintf(probe_out, "    %-8s %s %s: ", cubind_verdict_name(all[i].verdict),
                   all[i].library == CUBIND_LIB_NONE ? "machine" : cubind_library_name(all[i].library), all[i].name);
            text_string(all[i].reason);
            probe_char('\n');
            continue;
        }
        fprintf(probe_out, "    %-8s %s, %zu libraries (%s", cubind_verdict_name(all[i].verdict), all[i].name, group,
               cubind_library_name(all[i].library));
        for (j = i + 1; j < n; ++j)
            if (!said[j] && all[j].library != CUBIND_LIB_NONE && all[j].verdict == all[i].verdict &&
                strcmp(all[j].name, all[i].name) == 0 && strcmp(shared[j], shared[i]) == 0) {
                said[j] = 1;
                fprintf(probe_out, ", %s", cubind_library_name(all[j].library));
            }
        fprintf(probe_out, "): ");
        text_string(shared[i]);
        probe_char('\n');
    }
    if (!probe->verbose)
        ok_summary(all, covered, n, by_verdict[CUBIND_CHECK_OK]);
    free(all), free(shared), free(said), free(covered);
    return worst;
}

static int checks_json(const struct probe *probe)
{
    size_t n = cubind_check_count(), i;
    int worst = CUBIND_CHECK_OK;
    int first = 1;
    probe_char('[');
    for (i = 0; i < n; ++i) {
        struct cubind_check c = {.size = sizeof c};
        if (cubind_check_get(i, &c) != CUBIND_OK || (c.library != CUBIND_LIB_NONE && !probe_covers(probe, c.library)))
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
    int worst = probe->json ? checks_json(probe) : checks_text(probe);
    if (worst >= CUBIND_CHECK_ERROR || (probe->strict && worst >= CUBIND_CHECK_WARNING))
        probe_status(probe, PROBE_EXIT_CHECKS);
}
