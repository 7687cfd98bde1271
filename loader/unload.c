/*
 * loader/unload.c - whether this copy of cubind is being unloaded or the process exits (see
 * unload.h). Layer 1: libc only.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "unload.h"

enum { UNWATCHED = 0, WATCHED = 1, EXITING = 2 };

static pthread_once_t watch_once = PTHREAD_ONCE_INIT;
static atomic_int watch_state = UNWATCHED;

static void note_exit(void)
{
    atomic_store_explicit(&watch_state, EXITING, memory_order_relaxed);
}

static void watch(void)
{
    if (atexit(note_exit) == 0)
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
