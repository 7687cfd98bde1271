/* tests/dropin/self/library.c - a fixture standing for a library cubind binds that is not linked
 * -Bsymbolic (NVML, NCCL: docs/dropin.md) and calls one of its own exports by its exported name,
 * through the global scope, where the drop-in's forwarder of that name comes first: the call comes
 * back to cubind while cubind is loading this library (dlopen: its constructor; or asking its
 * version query: its init).
 * Built with -DQUERY (the library's version query, "encoded" through an int *), -DVERSION (what it
 * answers), -DINIT and -DFINI when the query has an init and a fini (generator/libraries.toml), and
 * -DSHAPE, where the own call is made:
 *   1  in the init                       (NVML's nvmlInit_v2 calls nvmlInitWithFlags)
 *   2  in a thread the init starts and joins
 *   3  in the constructor                (NCCL's ncclGetVersion from a constructor)
 *   4  in a thread the constructor starts and joins
 * The own call is to the fini when there is one, else to the query. It must reach this file's
 * definition and get its answer, as it would linked without the drop-in; when it does not, the
 * query fails, and the version is not asked of it (tests/dropin/self/run.sh). */
#include <pthread.h>
#include <stdatomic.h>

int QUERY(int *version);
#ifdef INIT
int INIT(void);
int FINI(void);
#endif

#ifdef INIT
static int initialized;
#endif
static atomic_int reached;      /* calls of the own call's target */
static atomic_int own_calls_ok = 1; /* 0 once an own call did not reach it, or got another answer */

/* One call of an own export by its exported name (a call to a function of the same file, not to
 * itself, or the compiler binds it inside), checked. */
static void own_call(void)
{
    int before = atomic_load(&reached), status;
#ifdef INIT
    status = FINI();
#else
    int version = 0;
    status = QUERY(&version);
    if (status == 0 && version != VERSION)
        status = -1;
#endif
    if (status != 0 || atomic_load(&reached) != before + 1)
        atomic_store(&own_calls_ok, 0);
}

#if SHAPE == 2 || SHAPE == 4
static void *own_call_thread(void *unused)
{
    (void)unused;
    own_call();
    return NULL;
}

/* The own call from another thread, waited for: that thread must not wait for this one. */
static void own_call_in_a_thread(void)
{
    pthread_t thread;
    if (pthread_create(&thread, NULL, own_call_thread, NULL) != 0 || pthread_join(thread, NULL) != 0)
        atomic_store(&own_calls_ok, 0);
}
#endif

#if SHAPE == 3
__attribute__((constructor)) static void constructor(void)
{
    own_call();
}
#elif SHAPE == 4
__attribute__((constructor)) static void constructor(void)
{
    own_call_in_a_thread();
}
#endif

#ifdef INIT
int INIT(void)
{
#if SHAPE == 1
    own_call();
#elif SHAPE == 2
    own_call_in_a_thread();
#endif
    initialized = 1;
    return 0;
}

int FINI(void)
{
    atomic_fetch_add(&reached, 1);
    initialized = 0;
    return 0;
}
#endif

int QUERY(int *version)
{
#ifdef INIT
    if (!initialized)
        return 1;
#else
    atomic_fetch_add(&reached, 1);
#endif
    if (!atomic_load(&own_calls_ok))
        return 2;
    *version = VERSION;
    return 0;
}
