/*
 * loader/unload.c - whether this copy of cubind is being unloaded or the process exits (see
 * unload.h). Layer 1: libc only.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "unload.h"

enum { UNWATCHED = 0, WATCHED = 1, EXITING = 2 };

static pthread_once_t watch_once = PTHREAD_ONCE_INIT;
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
    pthread_once(&watch_once, watch);
}

int cubind__unloading(void)
{
    return atomic_load_explicit(&watch_state, memory_order_relaxed) == WATCHED;
}
