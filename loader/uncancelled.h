/*
 * loader/uncancelled.h - a routine run with thread cancellation disabled; not installed. Layer 0:
 * includes no loader header.
 *
 * What cubind does once (pthread_once) must not be left half done by a thread cancelled at a
 * cancellation point inside it (open, read, dlopen, NVML's and the driver's I/O): a once routine
 * left by cancellation stays in progress for good under some runtimes (ThreadSanitizer's
 * pthread_once), and every other caller waits for it. A cancellation requested meanwhile acts at the
 * thread's next cancellation point after the routine.
 */
#ifndef CUBIND_LOADER_UNCANCELLED_H
#define CUBIND_LOADER_UNCANCELLED_H

#include <pthread.h>

static inline void cubind__uncancelled(void (*routine)(void))
{
    int state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
    routine();
    pthread_setcancelstate(state, NULL);
}

#endif /* CUBIND_LOADER_UNCANCELLED_H */
