/*
 * loader/unwinder.c - the calling thread's stack walked with libgcc_s's unwinder (see unwinder.h).
 * Layer 1: calls libc and the dynamic loader only (uncancelled.h, layer 0, is a header).
 */
#define _GNU_SOURCE
#include "unwinder.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "uncancelled.h"

#if defined(__GNUC__) || defined(__clang__)
#include <unwind.h>

struct unwinder {
    _Unwind_Reason_Code (*backtrace)(_Unwind_Trace_Fn trace, void *data);
    _Unwind_Ptr (*get_ip)(struct _Unwind_Context *context);
    void *(*find_enclosing_function)(void *pc);
};

static struct unwinder unwinder;
static _Atomic(const struct unwinder *) found; /* &unwinder once it is filled, else NULL */
static pthread_once_t find_once = PTHREAD_ONCE_INIT;

static int symbol(void *lib, const char *name, void *out, size_t size)
{
    void *address = dlsym(lib, name);
    memcpy(out, &address, size);
    return address != NULL;
}

static void find(void)
{
    void *lib = dlsym(RTLD_DEFAULT, "_Unwind_Backtrace") != NULL ? RTLD_DEFAULT : NULL;
    if (lib == NULL)
        lib = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL); /* kept: its functions are kept */
    if (lib != NULL && symbol(lib, "_Unwind_Backtrace", &unwinder.backtrace, sizeof unwinder.backtrace) &&
        symbol(lib, "_Unwind_GetIP", &unwinder.get_ip, sizeof unwinder.get_ip) &&
        symbol(lib, "_Unwind_FindEnclosingFunction", &unwinder.find_enclosing_function,
               sizeof unwinder.find_enclosing_function))
        atomic_store_explicit(&found, &unwinder, memory_order_release);
}

/* The once routine: dlopen is a cancellation point (uncancelled.h says why that matters). */
static void find_uncancelled(void)
{
    cubind__uncancelled(find);
}

int cubind__unwinder_find(void)
{
    pthread_once(&find_once, find_uncancelled);
    return atomic_load_explicit(&found, memory_order_acquire) != NULL;
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
    walk.u = atomic_load_explicit(&found, memory_order_acquire);
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
    const struct unwinder *u = atomic_load_explicit(&found, memory_order_acquire);
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
