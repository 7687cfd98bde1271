/*
 * bench/maps.h - the shared libraries mapped into this process, from /proc/self/maps:
 * how many, and which of them are CUDA's (any not of the system's library directories
 * nor cubind's own). Used by the cuFFT programs of bench/report.py (row h).
 */
#ifndef CUBIND_BENCH_MAPS_H
#define CUBIND_BENCH_MAPS_H

#include <stdio.h>
#include <string.h>

static void print_mapped_libraries(void)
{
    char line[4096], seen[64][512];
    int count = 0, cuda = 0, i;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL)
        return;
    while (fgets(line, sizeof line, maps) != NULL) {
        char *path = strchr(line, '/');
        if (path == NULL || strstr(path, ".so") == NULL)
            continue;
        path[strcspn(path, "\n")] = '\0';
        for (i = 0; i < count && strcmp(seen[i], path) != 0; ++i)
            ;
        if (i < count || count == 64)
            continue;
        snprintf(seen[count++], sizeof seen[0], "%s", path);
        if (strncmp(path, "/lib/", 5) != 0 && strncmp(path, "/usr/lib/", 9) != 0 && strstr(path, "libcubind") == NULL) {
            printf("cuda library mapped: %s\n", path);
            ++cuda;
        }
    }
    fclose(maps);
    printf("libraries mapped: %d; CUDA libraries mapped: %d\n", count, cuda);
}

#endif
