/* tests/loader_support.c - shared by the loader test binaries (see loader_support.h). */
#define _GNU_SOURCE
#include "loader_support.h"

#include <dlfcn.h>
#include <ftw.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- dlopen counting ------------------------------------------------------------------------ */

static pthread_once_t real_dlopen_once = PTHREAD_ONCE_INIT;
static void *(*real_dlopen)(const char *, int);
static pthread_mutex_t opens_lock = PTHREAD_MUTEX_INITIALIZER;
static char opened[256][512];
static int opened_count;

static void find_real_dlopen(void)
{
    void *symbol = dlsym(RTLD_NEXT, "dlopen");
    memcpy(&real_dlopen, &symbol, sizeof symbol);
}

void *dlopen(const char *file, int mode)
{
    pthread_once(&real_dlopen_once, find_real_dlopen);
    if (file != NULL && !(mode & RTLD_NOLOAD)) {
        pthread_mutex_lock(&opens_lock);
        if (opened_count < 256)
            snprintf(opened[opened_count++], sizeof opened[0], "%s", file);
        pthread_mutex_unlock(&opens_lock);
    }
    return real_dlopen(file, mode);
}

void *uncounted_dlopen(const char *file, int mode)
{
    pthread_once(&real_dlopen_once, find_real_dlopen);
    return real_dlopen(file, mode);
}

int opens_of(const char *needle)
{
    int i, n = 0;
    pthread_mutex_lock(&opens_lock);
    for (i = 0; i < opened_count; ++i)
        if (strstr(opened[i], needle) != NULL)
            n++;
    pthread_mutex_unlock(&opens_lock);
    return n;
}

/* ---- paths ------------------------------------------------------------------------------------ */

const char *beside_binary(const char *name)
{
    static _Thread_local char paths[8][4096];
    static _Thread_local int next;
    char *path = paths[next++ % 8];
    char *slash;
    ssize_t len = readlink("/proc/self/exe", path, sizeof paths[0] - 1);
    if (len <= 0)
        len = 0;
    path[len] = '\0';
    slash = strrchr(path, '/');
    if (slash != NULL)
        slash[1] = '\0';
    snprintf(path + strlen(path), sizeof paths[0] - strlen(path), "%s", name);
    return path;
}

const char *mock_dir(void)
{
    static char dir[4096];
    const char *env = getenv("CUBIND_TEST_MOCK_DIR");
    if (dir[0] == '\0')
        snprintf(dir, sizeof dir, "%s", env != NULL ? env : beside_binary("mock"));
    return dir;
}

const char *half_mock_dir(void)
{
    static char dir[4096];
    const char *env = getenv("CUBIND_TEST_HALF_MOCK_DIR");
    if (dir[0] == '\0')
        snprintf(dir, sizeof dir, "%s", env != NULL ? env : beside_binary("mock-half"));
    return dir;
}

const char *mock_path(const char *soname)
{
    static _Thread_local char paths[8][4200];
    static _Thread_local int next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", mock_dir(), soname);
    return path;
}

const char *half_mock(const char *soname)
{
    static _Thread_local char paths[8][4200];
    static _Thread_local int next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", half_mock_dir(), soname);
    return path;
}


int mapped(const char *needle)
{
    char line[4096];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL)
        return -1;
    while (!found && fgets(line, sizeof line, maps) != NULL)
        found = strstr(line, needle) != NULL;
    fclose(maps);
    return found;
}

int mocks_mapped(void)
{
    size_t i;
    int n = 0;
    for (i = 0; i < cubind_test_library_count; ++i)
        n += mapped(mock_path(cubind_test_libraries[i].mock_soname)) == 1;
    return n;
}

/* ---- checks ----------------------------------------------------------------------------------- */

int contains(const char *text, const char *needle)
{
    int found = text != NULL && strstr(text, needle) != NULL;
    if (!found)
        fprintf(stderr, "expected \"%s\" in: %s\n", needle, text != NULL ? text : "(null)");
    return found;
}

int same(const char *a, const char *b)
{
    int equal = a != NULL && b != NULL && strcmp(a, b) == 0;
    if (!equal)
        fprintf(stderr, "expected \"%s\", got \"%s\"\n", b != NULL ? b : "(null)", a != NULL ? a : "(null)");
    return equal;
}

const char *env_of(const char *name, const char *value)
{
    static char buf[16][4096];
    static int next;
    char *entry = buf[next++ % 16];
    snprintf(entry, sizeof buf[0], "%s=%s", name, value != NULL ? value : "");
    return entry;
}

const char *const *library_env(const char *(*path_of)(const char *soname), ...)
{
    static char *env[64];
    size_t n = 0, i;
    const char *extra;
    va_list extras;
    for (i = 0; env[i] != NULL; ++i) { /* the previous call's entries */
        free(env[i]);
        env[i] = NULL;
    }
    for (i = 0; i < cubind_test_library_count && n + 1 < sizeof env / sizeof env[0]; ++i) {
        const struct cubind_test_library *t = &cubind_test_libraries[i];
        const char *path = path_of(t->mock_soname);
        char *entry = malloc(strlen(t->env_var) + strlen(path) + 2); /* kept: the child's environment */
        if (entry != NULL)
            sprintf(entry, "%s=%s", t->env_var, path);
        env[n++] = entry;
    }
    va_start(extras, path_of);
    while ((extra = va_arg(extras, const char *)) != NULL && n + 1 < sizeof env / sizeof env[0])
        env[n++] = strdup(extra);
    va_end(extras);
    env[n] = NULL;
    return (const char *const *)env;
}

/* ---- a temporary directory for the faulty files ------------------------------------------------ */

char tmp_dir[256];

int make_tmp_dir(const char *name)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/%s-XXXXXX", name);
    if (mkdtemp(tmp_dir) == NULL)
        return -1;
    return chmod(tmp_dir, 0755); /* set-user-ID cases run as nobody */
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int remove_tmp_dir(void)
{
    return nftw(tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tmp_path(const char *name)
{
    static _Thread_local char paths[8][8192];
    static _Thread_local int next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", tmp_dir, name);
    return path;
}

int copy_file(const char *from, const char *to, long limit)
{
    char buf[65536];
    size_t got, total = 0;
    int ok = 1;
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (in == NULL || out == NULL) {
        if (in != NULL)
            fclose(in);
        if (out != NULL)
            fclose(out);
        return -1;
    }
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) {
        if (limit > 0 && total + got > (size_t)limit)
            got = (size_t)limit - total;
        ok &= fwrite(buf, 1, got, out) == got;
        total += got;
        if (limit > 0 && total >= (size_t)limit)
            break;
    }
    fclose(in);
    ok &= fclose(out) == 0;
    return ok ? 0 : -1;
}
