/*
 * loader/platform_posix.c - the platform seam (platform.h) on Linux with glibc: POSIX threads,
 * secure_getenv, the exit handler of the copy's own object (__cxa_atexit), libgcc_s's unwinder,
 * fork for the child process, and glibc's dynamic loader (dlopen, dlmopen, dlinfo, dladdr1,
 * dl_iterate_phdr and the main namespace's link maps). What is read of ELF is platform_elf.c's.
 * Layer 0, the platform seam: calls libc, libpthread, libdl and platform_elf.c only.
 */
#if !defined(_WIN32)
#define _GNU_SOURCE
#include "platform.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform_elf.h"

/* ---- threads ---- */

void cubind__once(cubind__once_flag *flag, void (*routine)(void))
{
    int state = cubind__cancel_off();
    pthread_once(flag, routine);
    cubind__cancel_restore(state);
}

void cubind__mutex_lock(cubind__mutex *mutex)
{
    pthread_mutex_lock(mutex);
}

void cubind__mutex_unlock(cubind__mutex *mutex)
{
    pthread_mutex_unlock(mutex);
}

int cubind__cancel_off(void)
{
    int state = PTHREAD_CANCEL_ENABLE;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
    return state;
}

void cubind__cancel_restore(int state)
{
    pthread_setcancelstate(state, NULL);
}

void cubind__at_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    pthread_atfork(prepare, parent, child);
}

long cubind__thread_id(void)
{
    return (long)syscall(SYS_gettid);
}

/* ---- the process ---- */

const char *cubind__getenv(const char *name)
{
    return secure_getenv(name);
}

enum { UNWATCHED = 0, WATCHED = 1, EXITING = 2 };

static cubind__once_flag watch_once = CUBIND__ONCE_INIT;
static atomic_int watch_state = UNWATCHED;

/* What atexit registers, said outright: the handler belongs to the object this copy is part of
 * (__dso_handle), so closing the object runs and removes it. A sanitizer's atexit registers for no
 * object, and its handler, left behind when the object closes, would be called unmapped at exit. */
/* default visibility: the C runtime's, even where the amalgamation makes every declaration hidden */
extern int __cxa_atexit(void (*handler)(void *), void *arg, void *dso) __attribute__((visibility("default")));
extern void *__dso_handle __attribute__((visibility("hidden")));

static void note_exit(void *unused)
{
    (void)unused;
    atomic_store_explicit(&watch_state, EXITING, memory_order_relaxed);
}

static void watch(void)
{
    if (__cxa_atexit(note_exit, NULL, __dso_handle) == 0)
        atomic_store_explicit(&watch_state, WATCHED, memory_order_relaxed);
}

void cubind__unload_watch(void)
{
    cubind__once(&watch_once, watch);
}

int cubind__unloading(void)
{
    return atomic_load_explicit(&watch_state, memory_order_relaxed) == WATCHED;
}

/* The stack walk: libgcc_s's unwinder, looked up at run time (a program that never needs it does not
 * load libgcc_s at start-up), and used only once found. libgcc's unwinder finds its tables with
 * _dl_find_object or dl_iterate_phdr, which a dlopen in progress does not hold. */
#if defined(__GNUC__) || defined(__clang__)
#include <unwind.h>

struct unwinder {
    _Unwind_Reason_Code (*backtrace)(_Unwind_Trace_Fn trace, void *data);
    _Unwind_Ptr (*get_ip)(struct _Unwind_Context *context);
    void *(*find_enclosing_function)(void *pc);
};

static struct unwinder unwinder;
static _Atomic(const struct unwinder *) unwinder_found; /* &unwinder once it is filled, else NULL */
static cubind__once_flag find_once = CUBIND__ONCE_INIT;

static int unwinder_symbol(void *lib, const char *name, void *out, size_t size)
{
    void *address = dlsym(lib, name);
    memcpy(out, &address, size);
    return address != NULL;
}

static void find_unwinder(void)
{
    void *lib = dlsym(RTLD_DEFAULT, "_Unwind_Backtrace") != NULL ? RTLD_DEFAULT : NULL;
    if (lib == NULL)
        lib = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL); /* kept: its functions are kept */
    if (lib != NULL && unwinder_symbol(lib, "_Unwind_Backtrace", &unwinder.backtrace, sizeof unwinder.backtrace) &&
        unwinder_symbol(lib, "_Unwind_GetIP", &unwinder.get_ip, sizeof unwinder.get_ip) &&
        unwinder_symbol(lib, "_Unwind_FindEnclosingFunction", &unwinder.find_enclosing_function,
                        sizeof unwinder.find_enclosing_function))
        atomic_store_explicit(&unwinder_found, &unwinder, memory_order_release);
}

int cubind__unwinder_find(void)
{
    cubind__once(&find_once, find_unwinder); /* dlopen is a cancellation point */
    return atomic_load_explicit(&unwinder_found, memory_order_acquire) != NULL;
}

struct walk {
    const struct unwinder *u;
    int (*visit)(uintptr_t address, void *data);
    void *data;
    int stopped;
};

static _Unwind_Reason_Code visit_frame(struct _Unwind_Context *context, void *data)
{
    struct walk *walk = data;
    uintptr_t ip = (uintptr_t)walk->u->get_ip(context);
    if (ip != 0 && walk->visit(ip, walk->data)) {
        walk->stopped = 1;
        return _URC_NORMAL_STOP;
    }
    return _URC_NO_REASON;
}

int cubind__stack_walk(int (*visit)(uintptr_t address, void *data), void *data)
{
    struct walk walk;
    _Unwind_Reason_Code reached;
    walk.u = atomic_load_explicit(&unwinder_found, memory_order_acquire);
    if (walk.u == NULL)
        return CUBIND__WALK_NO_UNWINDER;
    walk.visit = visit;
    walk.data = data;
    walk.stopped = 0;
    reached = walk.u->backtrace(visit_frame, &walk);
    if (walk.stopped)
        return CUBIND__WALK_STOPPED;
    return reached == _URC_END_OF_STACK ? CUBIND__WALK_END : CUBIND__WALK_CUT;
}

uintptr_t cubind__enclosing_function(uintptr_t address)
{
    const struct unwinder *u = atomic_load_explicit(&unwinder_found, memory_order_acquire);
    return u != NULL ? (uintptr_t)u->find_enclosing_function((void *)address) : 0;
}

#else /* no unwinder to look up: no walk */
int cubind__unwinder_find(void)
{
    return 0;
}

int cubind__stack_walk(int (*visit)(uintptr_t address, void *data), void *data)
{
    (void)visit;
    (void)data;
    return CUBIND__WALK_NO_UNWINDER;
}

uintptr_t cubind__enclosing_function(uintptr_t address)
{
    (void)address;
    return 0;
}
#endif

void cubind__in_child(void (*routine)(void *context, void *answer), void *context, void *answer, size_t size,
                      int timeout_ms, cubind__child_outcome *out)
{
    int fds[2], status = 0;
    struct pollfd wait_for;
    pid_t pid;
    memset(out, 0, sizeof *out);
    if (pipe2(fds, O_CLOEXEC) != 0) {
        out->outcome = CUBIND__CHILD_NO_PIPE;
        snprintf(out->reason, sizeof out->reason, "%s", strerror(errno));
        return;
    }
    pid = fork();
    if (pid < 0) {
        out->outcome = CUBIND__CHILD_NO_CHILD;
        snprintf(out->reason, sizeof out->reason, "%s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) { /* the child: its output goes nowhere, its answer to the pipe */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        close(fds[0]);
        memset(answer, 0, size);
        routine(context, answer);
        if (write(fds[1], answer, size) != (ssize_t)size)
            _exit(1);
        _exit(0);
    }
    close(fds[1]);
    wait_for.fd = fds[0];
    wait_for.events = POLLIN;
    out->outcome = CUBIND__CHILD_NO_ANSWER;
    for (;;) {
        int ready = poll(&wait_for, 1, timeout_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready > 0) {
            ssize_t n;
            do
                n = read(fds[0], answer, size);
            while (n < 0 && errno == EINTR);
            if (n == (ssize_t)size)
                out->outcome = CUBIND__CHILD_ANSWERED;
        } else {
            kill(pid, SIGKILL);
            out->outcome = CUBIND__CHILD_TIMED_OUT;
        }
        break;
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (out->outcome != CUBIND__CHILD_ANSWERED && WIFSIGNALED(status))
        out->signal = WTERMSIG(status);
}

char *cubind__real_path(const char *path, char *out)
{
    return realpath(path, out);
}

int cubind__real_path_of(int fd, char *out, size_t size)
{
    char link[32] = "/proc/self/fd/", digits[16];
    size_t n = 0, at = strlen(link);
    ssize_t got;
    unsigned value = (unsigned)fd;
    do
        digits[n++] = (char)('0' + value % 10);
    while ((value /= 10) != 0 && n < sizeof digits);
    while (n > 0)
        link[at++] = digits[--n];
    link[at] = '\0';
    out[0] = '\0';
    got = readlink(link, out, size - 1);
    if (got <= 0 || (size_t)got >= size - 1 || out[0] != '/') {
        out[0] = '\0';
        return -1;
    }
    out[got] = '\0';
    if (got >= 10 && strcmp(out + got - 10, " (deleted)") == 0) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

/* ---- libraries ---- */

void *cubind__lib_open(const char *path)
{
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

void *cubind__lib_open_loaded(const char *name)
{
    return dlopen(name, RTLD_NOW | RTLD_NOLOAD);
}

const char *cubind__lib_error(void)
{
    return dlerror();
}

void cubind__lib_close(void *handle)
{
    dlclose(handle);
}

void *cubind__lib_symbol(void *handle, const char *symbol)
{
    dlerror();
    return dlsym(handle, symbol);
}

/* A loaded object as dl_iterate_phdr shows it, in the seam's terms. */
static void describe(const struct dl_phdr_info *info, cubind__object *out)
{
    size_t i;
    out->name = info->dlpi_name != NULL ? info->dlpi_name : "";
    out->base = info->dlpi_addr;
    out->soname = NULL;
    out->tables = NULL;
    out->segment_count = 0;
    for (i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC && out->tables == NULL) {
            out->tables = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
            out->soname = cubind__elf_memory_soname(out->tables, info->dlpi_addr);
        } else if (ph->p_type == PT_LOAD && out->segment_count < CUBIND__SEGMENTS_MAX) {
            out->segment[out->segment_count].start = info->dlpi_addr + ph->p_vaddr;
            out->segment[out->segment_count].size = ph->p_memsz;
            out->segment[out->segment_count].executable = (ph->p_flags & PF_X) != 0;
            out->segment_count++;
        }
    }
}

struct each {
    int (*visit)(const cubind__object *object, void *data);
    void *data;
};

static int each_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct each *each = data;
    cubind__object object;
    (void)size;
    describe(info, &object);
    return each->visit(&object, each->data);
}

void cubind__objects_each(int (*visit)(const cubind__object *object, void *data), void *data)
{
    struct each each;
    each.visit = visit;
    each.data = data;
    dl_iterate_phdr(each_object, &each);
}

/* The object of link map `map`: its load address and name as dl_iterate_phdr reports them. */
struct facts_search {
    const struct link_map *map;
    cubind__lib_facts *out;
};

static int facts_of(struct dl_phdr_info *info, size_t size, void *data)
{
    struct facts_search *search = data;
    cubind__object object;
    (void)size;
    if (info->dlpi_addr != search->map->l_addr ||
        strcmp(info->dlpi_name, search->map->l_name != NULL ? search->map->l_name : "") != 0)
        return 0;
    describe(info, &object);
    search->out->segment_count = object.segment_count;
    memcpy(search->out->segment, object.segment, sizeof object.segment);
    return 1;
}

int cubind__lib_facts_of(void *handle, cubind__lib_facts *out)
{
    struct link_map *map = NULL;
    struct facts_search search;
    memset(out, 0, sizeof *out);
    if (handle == NULL || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL)
        return -1;
    out->name = map->l_name != NULL ? map->l_name : "";
    out->soname = cubind__elf_memory_soname(map->l_ld, (uintptr_t)map->l_addr);
    search.map = map;
    search.out = out;
    dl_iterate_phdr(facts_of, &search);
    return 0;
}

void *cubind__lib_holding(const void *address)
{
    Dl_info info;
    void *map = NULL;
    if (dladdr1(address, &info, &map, RTLD_DL_LINKMAP) == 0)
        return NULL;
    return map;
}

const char *cubind__lib_pseudo_name(void *handle)
{
    return handle == RTLD_DEFAULT ? "RTLD_DEFAULT" : handle == RTLD_NEXT ? "RTLD_NEXT" : NULL;
}

/* dl_iterate_phdr reports the program first: the r_debug the dynamic loader publishes through
 * the program's DT_DEBUG entry (what debuggers read) starts the main namespace's list. */
static int program_link_map(struct dl_phdr_info *info, size_t size, void *data)
{
    size_t i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            for (; dyn->d_tag != DT_NULL; ++dyn)
                if (dyn->d_tag == DT_DEBUG && dyn->d_un.d_ptr != 0)
                    *(struct link_map **)data = ((const struct r_debug *)dyn->d_un.d_ptr)->r_map;
        }
    return 1; /* the program only */
}

/* The first link map of the main namespace (the program's own), or NULL only if the dynamic
 * loader cannot say: from DT_DEBUG; in a program without one, dlinfo of what dlopen(NULL) returns.
 * The program is never unloaded, so this is asked once, and that handle is not closed. Its l_next
 * list may be followed only inside a dl_iterate_phdr callback (which holds the loader's lock). */
static struct link_map *main_map(void)
{
    static _Atomic(struct link_map *) cached;
    struct link_map *map = atomic_load_explicit(&cached, memory_order_acquire);
    if (map == NULL) {
        dl_iterate_phdr(program_link_map, &map);
        if (map == NULL) {
            void *program = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
            if (program == NULL || dlinfo(program, RTLD_DI_LINKMAP, &map) != 0)
                return NULL;
        }
        atomic_store_explicit(&cached, map, memory_order_release);
    }
    return map;
}

struct handle_search {
    const void *handle;
    const struct link_map *head; /* main_map() */
    int found;
    char **soname, **name;       /* copies wanted, or NULL */
};

/* Called by dl_iterate_phdr, which holds the loader's lock: the link-map list cannot change while
 * it is walked. Only the first call does the work. */
static int find_handle(struct dl_phdr_info *info, size_t size, void *data)
{
    struct handle_search *search = data;
    const struct link_map *l;
    (void)info;
    (void)size;
    for (l = search->head; l != NULL; l = l->l_next)
        if ((const void *)l == search->handle) {
            const char *soname = cubind__elf_memory_soname(l->l_ld, (uintptr_t)l->l_addr);
            search->found = 1;
            if (search->soname != NULL)
                *search->soname = soname != NULL ? strdup(soname) : NULL;
            if (search->name != NULL)
                *search->name = strdup(l->l_name != NULL && l->l_name[0] != '\0' ? l->l_name : "the main program");
            break;
        }
    return 1;
}

int cubind__lib_in_main_namespace(void *handle, char **soname, char **name)
{
    struct handle_search search;
    if (soname != NULL)
        *soname = NULL;
    if (name != NULL)
        *name = NULL;
    if (cubind__lib_pseudo_name(handle) != NULL)
        return 0;
    search.handle = handle;
    search.head = main_map();
    search.found = 0;
    search.soname = soname;
    search.name = name;
    dl_iterate_phdr(find_handle, &search);
    return search.found;
}

/* An object of cubind's own: its address tells which loaded object is cubind. */
static const char own_object[] = "cubind";

struct own_search {
    uintptr_t address;
    struct link_map *head, *self;
};

/* cubind's own link map is the main namespace's link map with the load address and name
 * dl_iterate_phdr reports for the object holding `own_object` (it hands out the link map's l_name). */
static int find_own(struct dl_phdr_info *info, size_t size, void *data)
{
    struct own_search *search = data;
    size_t i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && search->address - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz) {
            struct link_map *l;
            for (l = search->head; l != NULL && search->self == NULL; l = l->l_next)
                if (l->l_addr == info->dlpi_addr && l->l_name == info->dlpi_name)
                    search->self = l;
            return 1;
        }
    }
    return 0;
}

/* cubind's own link map in the main namespace (a dlopen from cubind searches cubind's rpath, not the
 * program's runpath); where the walk cannot tell (cubind loaded in another namespace), dladdr1's;
 * NULL when neither can. */
static void *own_map(void)
{
    struct own_search search;
    Dl_info where;
    void *self = NULL;
    search.address = (uintptr_t)(const void *)own_object;
    search.head = main_map();
    search.self = NULL;
    dl_iterate_phdr(find_own, &search);
    if (search.self != NULL)
        return search.self;
    if (dladdr1(own_object, &where, &self, RTLD_DL_LINKMAP) == 0)
        self = NULL;
    return self;
}

char **cubind__lib_search_path(void)
{
    union {
        Dl_serinfo info;
        char bytes[2048];
    } small;
    Dl_serinfo size_info, *info = NULL;
    void *self = own_map();
    char **out, *text;
    size_t i, bytes;
    if (self == NULL || dlinfo(self, RTLD_DI_SERINFOSIZE, &size_info) != 0 ||
        (info = size_info.dls_size <= sizeof small ? &small.info : malloc(size_info.dls_size)) == NULL)
        return NULL;
    *info = size_info;
    if (dlinfo(self, RTLD_DI_SERINFO, info) != 0) {
        if (info != &small.info)
            free(info);
        return NULL;
    }
    bytes = (info->dls_cnt + 1) * sizeof *out;
    for (i = 0; i < info->dls_cnt; ++i)
        bytes += strlen(info->dls_serpath[i].dls_name) + 1;
    if ((out = malloc(bytes)) != NULL) {
        text = (char *)(out + info->dls_cnt + 1);
        for (i = 0; i < info->dls_cnt; ++i) {
            size_t n = strlen(info->dls_serpath[i].dls_name) + 1;
            memcpy(text, info->dls_serpath[i].dls_name, n);
            out[i] = text;
            text += n;
        }
        out[info->dls_cnt] = NULL;
    }
    if (info != &small.info)
        free(info);
    return out;
}

/* ---- a child's own namespace ---- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* The sanitizers' runtimes serve the first namespace only: there the child loads in its own. */
void *cubind__lib_open_apart(const char *file, int now)
{
    return dlopen(file, (now ? RTLD_NOW : RTLD_LAZY) | RTLD_LOCAL);
}

void *cubind__lib_loaded_apart(const char *name)
{
    return dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
}
#else
/* The namespace: made by the first object loaded. */
static Lmid_t space = LM_ID_NEWLM;

void *cubind__lib_open_apart(const char *file, int now)
{
    void *handle = dlmopen(space, file, (now ? RTLD_NOW : RTLD_LAZY) | RTLD_LOCAL);
    if (handle != NULL && space == LM_ID_NEWLM && dlinfo(handle, RTLD_DI_LMID, &space) != 0)
        space = LM_ID_NEWLM;
    return handle;
}

void *cubind__lib_loaded_apart(const char *name)
{
    if (space == LM_ID_NEWLM)
        return NULL; /* nothing is loaded in a namespace not made yet */
    return dlmopen(space, name, RTLD_LAZY | RTLD_NOLOAD);
}
#endif

const char *cubind__file_holding(const void *address)
{
    Dl_info where;
    return dladdr(address, &where) != 0 ? where.dli_fname : NULL;
}

#endif /* !_WIN32 */
