/*
 * loader/platform.h - the platform seam: everything the loader asks of the operating system, its
 * threads and its dynamic loader, as one small interface; not installed. Layer 0: includes no
 * loader header.
 *
 * The rest of loader/ is platform-free: it includes no dlfcn.h, pthread.h, link.h or elf.h, and
 * calls none of their functions (tests/check_loader_layers.py checks both). Linux (glibc) implements
 * this header in two files: platform_posix.c (threads, the environment, the copy's unloading, the
 * stack walk, the child process, the dynamic loader) and platform_elf.c (ELF files and the ELF tables
 * of the loaded objects; platform_elf.h, which the probe shares). A second platform implements this
 * header again (docs/loader-internals.md, "The platform seam", says what each part becomes on
 * Windows): the loader's logic does not change.
 *
 * A library is named by its handle (void *): what opening it returned, valid until it is closed.
 * Every text a function returns stays valid while the object it describes stays loaded.
 */
#ifndef CUBIND_LOADER_PLATFORM_H
#define CUBIND_LOADER_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* ---- threads ------------------------------------------------------------------------------ */

/* A mutex and a once-only flag, initialized statically. Windows: an SRWLOCK and an INIT_ONCE, whose
 * static initializers are a null pointer too; the implementation converts. */
#if defined(_WIN32)
typedef struct cubind__mutex {
    void *opaque;
} cubind__mutex;
#define CUBIND__MUTEX_INIT {0}
typedef struct cubind__once_flag {
    void *opaque;
} cubind__once_flag;
#define CUBIND__ONCE_INIT {0}
#else
#include <pthread.h>
typedef pthread_mutex_t cubind__mutex;
#define CUBIND__MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
typedef pthread_once_t cubind__once_flag;
#define CUBIND__ONCE_INIT PTHREAD_ONCE_INIT
#endif

/* A thread's own object (C11's _Thread_local; MSVC spells it its own way). */
#if defined(_MSC_VER) && !defined(__clang__)
#define CUBIND__THREAD_LOCAL __declspec(thread)
#else
#define CUBIND__THREAD_LOCAL _Thread_local
#endif

/* Run `routine` once per `flag` in the process; every caller returns after it has run. It runs with
 * thread cancellation disabled: a once routine left by a thread cancelled inside it (at a cancellation
 * point: open, read, dlopen, a library's I/O) stays in progress for good under some runtimes
 * (ThreadSanitizer's pthread_once), and every other caller waits; a cancellation requested meanwhile
 * acts at the thread's next cancellation point after it. */
void cubind__once(cubind__once_flag *flag, void (*routine)(void));

void cubind__mutex_lock(cubind__mutex *mutex);
void cubind__mutex_unlock(cubind__mutex *mutex);

/* Disable the calling thread's cancellation (nothing done until cubind__cancel_restore may be a
 * cancellation point that leaves a lock held); returns the state cubind__cancel_restore puts back.
 * A platform without thread cancellation returns 0 and restores nothing. */
int cubind__cancel_off(void);
void cubind__cancel_restore(int state);

/* Run `prepare` before fork() in the forking thread, `parent` after it there, `child` in the child
 * (pthread_atfork). A platform without fork registers nothing. */
void cubind__at_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

/* The calling thread's id as the system shows it (Linux: gettid), for trace lines. */
long cubind__thread_id(void);

/* ---- the process -------------------------------------------------------------------------- */

/* Every environment variable the loader reads goes through this: a set-user-ID or set-group-ID
 * program (secure_getenv: AT_SECURE) sees none of them. */
const char *cubind__getenv(const char *name);

/* Whether this copy of cubind is being unloaded (a dlclose of a library that embeds it) rather than
 * the process exiting: cubind__unload_watch registers, once, a handler that runs at exit before
 * every destructor but, when the copy's object is closed, after the object's own destructors;
 * a destructor of the copy then asks cubind__unloading(): 1 when it runs because the object is
 * closed (free what the copy keeps, or it is left unreachable once unmapped), 0 at exit (another
 * thread may still call cubind) or when the watch could not be registered. */
void cubind__unload_watch(void);
int cubind__unloading(void);

/* How a stack walk ended. */
enum {
    CUBIND__WALK_NO_UNWINDER = -1, /* none found: nothing walked */
    CUBIND__WALK_STOPPED = 0,      /* `visit` stopped it */
    CUBIND__WALK_END = 1,          /* the whole stack walked */
    CUBIND__WALK_CUT = 2           /* the unwinder could go no further (a frame without unwind tables) */
};

/* Find the unwinder, once (Linux: libgcc_s's, among the objects loaded, else by loading
 * libgcc_s.so.1, so that a program that never needs it does not load it at start-up). It may wait
 * for the dynamic loader's lock: call it only where no thread can hold that lock while waiting for
 * this one, before the walks that need it. 1 when there is one. */
int cubind__unwinder_find(void);

/* Walk the calling thread's stack, innermost frame first: `visit` gets each frame's instruction
 * address (in a caller's frame, its return address, just past the call) and stops the walk by
 * returning nonzero. Only the unwinder found before is used, so a walk never waits for a lock of
 * the dynamic loader. */
int cubind__stack_walk(int (*visit)(uintptr_t address, void *data), void *data);

/* The start of the function holding `address` (the unwinder's tables), or 0. */
uintptr_t cubind__enclosing_function(uintptr_t address);

/* How cubind__in_child ended. */
enum {
    CUBIND__CHILD_ANSWERED = 0,  /* `answer` holds the child's */
    CUBIND__CHILD_NO_PIPE = 1,   /* no channel to the child: `reason` says the system's why */
    CUBIND__CHILD_NO_CHILD = 2,  /* no child process: `reason` says the system's why */
    CUBIND__CHILD_NO_ANSWER = 3, /* the child ended without writing its whole answer */
    CUBIND__CHILD_TIMED_OUT = 4  /* no answer in time: the child was killed */
};

typedef struct cubind__child_outcome {
    int outcome;      /* CUBIND__CHILD_* */
    int signal;       /* the signal that ended a child that gave no answer, else 0 */
    char reason[128]; /* NO_PIPE, NO_CHILD: the system's reason ("Resource temporarily unavailable") */
} cubind__child_outcome;

/* Run `routine(context, answer)` in a child process, where nothing it loads or breaks reaches this
 * one (a forked copy: its standard streams go to /dev/null), and bring back the `size` bytes it
 * leaves in `answer` (zeroed for it first). Waits at most `timeout_ms` for them, kills a child that
 * has not answered, and always reaps it. */
void cubind__in_child(void (*routine)(void *context, void *answer), void *context, void *answer, size_t size,
                      int timeout_ms, cubind__child_outcome *out);

/* The path of the file `path` names, every symbolic link resolved, into `out` (PATH_MAX bytes); NULL
 * when it cannot be told (no such file). */
char *cubind__real_path(const char *path, char *out);

/* The same for the open file `fd`, from the descriptor (what was opened, whatever the path names
 * now); 0, or -1 when the system cannot tell (Linux: /proc not mounted, the file deleted). */
int cubind__real_path_of(int fd, char *out, size_t size);

/* ---- libraries ---------------------------------------------------------------------------- */

/* Open the library at the absolute `path`: every symbol bound now, none of them made global.
 * NULL when it cannot be, with why in cubind__lib_error(). */
void *cubind__lib_open(const char *path);

/* The library already loaded under the name `name` (a soname, or the name it was loaded by): no
 * file is searched for or opened. NULL when none is. */
void *cubind__lib_open_loaded(const char *name);

/* Why the calling thread's last open failed (the system's text, which may repeat the path: any
 * byte), or NULL. */
const char *cubind__lib_error(void);

/* Let go of a handle an open returned (the object stays loaded while other handles hold it). */
void cubind__lib_close(void *handle);

/* The address of `symbol` in the library `handle` and the objects it depends on, as the dynamic
 * loader resolves it (it may take the dynamic loader's lock); NULL when none defines it. */
void *cubind__lib_symbol(void *handle, const char *symbol);

/* What the system says of the loaded library `handle`: the name it was loaded by ("" for the
 * program), its soname (NULL when it has none) and where it is mapped. 0, or -1 when `handle` names
 * no loaded object. */
typedef struct cubind__segment {
    uintptr_t start, size;
    int executable;
} cubind__segment;

#define CUBIND__SEGMENTS_MAX 16

typedef struct cubind__lib_facts {
    const char *name;
    const char *soname;
    size_t segment_count; /* its loadable segments, at most CUBIND__SEGMENTS_MAX */
    cubind__segment segment[CUBIND__SEGMENTS_MAX];
} cubind__lib_facts;

int cubind__lib_facts_of(void *handle, cubind__lib_facts *out);

/* The handle of the loaded object that holds `address`, or NULL. */
void *cubind__lib_holding(const void *address);

/* The name of a pseudo-handle ("RTLD_DEFAULT", "RTLD_NEXT": handles that name no object), or NULL
 * when `handle` is none. */
const char *cubind__lib_pseudo_name(void *handle);

/* Whether `handle` is that of an object loaded in the process's main namespace (a handle of another
 * namespace, or a pointer to anything else, is not): 1, with copies of its soname (NULL when none)
 * and of its name ("the main program" for the program) in *soname and *name when those are not NULL
 * (free them); else 0. Nothing is dereferenced that is not one of the loaded objects. */
int cubind__lib_in_main_namespace(void *handle, char **soname, char **name);

/* The directories the dynamic loader searches for a library opened by name from cubind's own object:
 * its run paths and the program's, LD_LIBRARY_PATH (unless the program runs set-user-ID), cubind's
 * runpath; in order, as the system lists them (relative entries included). A NULL-terminated array
 * (one free() frees it all), or NULL when the system cannot tell. */
char **cubind__lib_search_path(void);

/* ---- the loaded objects ------------------------------------------------------------------- */

/* One loaded object, as cubind__objects_each shows it. */
typedef struct cubind__object {
    const char *name;       /* the name it was loaded by ("" for the program) */
    const char *soname;     /* NULL when it has none */
    uintptr_t base;         /* where it is mapped */
    size_t segment_count;
    cubind__segment segment[CUBIND__SEGMENTS_MAX];
    const void *tables;     /* its own symbol tables (ELF: its dynamic section in memory), for the two below */
} cubind__object;

/* Show `visit` each object loaded in the process (every namespace), the program first, then in load
 * order, until it returns nonzero. The list cannot change meanwhile (the dynamic loader's lock is
 * held): `visit` must not open or close a library. */
void cubind__objects_each(int (*visit)(const cubind__object *object, void *data), void *data);

/* Whether `object` names `name` among the libraries it needs (ELF: DT_NEEDED). */
int cubind__object_needs(const cubind__object *object, const char *name);

/* The address of `symbol` as `object` itself defines it, read from its own tables in memory, as an
 * unversioned reference binds to it (the default version; never a hidden one): NULL when it does not
 * define it. Takes no lock: dlsym takes the dynamic loader's, which a thread inside dlopen holds
 * while the library's constructors run (a thread such a constructor waits for would wait for ever). */
void *cubind__object_symbol(const cubind__object *object, const char *symbol);

/* ---- a library's file, not loaded --------------------------------------------------------- */

/* What a library's file says of itself, read from the open file `fd` (`size` bytes) without
 * loading it: its headers, its dynamic section and its soname, each read once. */
typedef struct cubind__binary {
    char not_library[192]; /* why it is not a shared library of this process's kind ("not an ELF
                              file: a script (it starts with #!)"), "" when it is: what dlopen would
                              refuse anyway, said before anything (a child process) is spent on it */
    char refused[192];     /* what the dynamic loader handles badly in a file of this process's kind
                              (cut short: SIGBUS; built for another machine: "No such file or
                              directory"), "" when nothing: faults it reports well pass */
    int has_soname;        /* 1 with it in `soname`, 0 when it has none, -1 when that cannot be told
                              (not a file of this process's kind, unreadable, a name that does not fit) */
    char soname[256];
} cubind__binary;

void cubind__binary_inspect(int fd, long long size, cubind__binary *out);

/* Call `each` with every library the open file `fd` (`size` bytes) names as needed (DT_NEEDED), in
 * order (a name longer than 255 bytes is left out). Returns how many, or -1 when they cannot be read
 * (not a file of this process's kind, cut short, no string table). */
int cubind__binary_needed(int fd, long long size, void (*each)(const char *name, void *data), void *data);

/* ---- a child's own namespace -------------------------------------------------------------- */

/* Open `file` (a path, or a name the dynamic loader searches for) in a namespace of the loaded
 * objects apart from the process's (Linux: dlmopen's LM_ID_NEWLM, made by the first call and used by
 * every later one), so that nothing loaded before answers for what it loads; `now`: every symbol
 * bound now. For a child process only (cubind__in_child): the namespace is never closed. A sanitizer's
 * runtime serves the first namespace only: built with one, the process's own namespace. */
void *cubind__lib_open_apart(const char *file, int now);

/* The object already loaded under `name` in that namespace, or NULL (none yet, or no namespace). */
void *cubind__lib_loaded_apart(const char *name);

/* The file name of the object holding `address` (as it was loaded), or NULL. */
const char *cubind__file_holding(const void *address);

#endif /* CUBIND_LOADER_PLATFORM_H */
