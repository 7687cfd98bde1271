/*
 * loader/unload.h - whether this copy of cubind is being unloaded; not installed.
 * Layer 1: includes no loader header.
 *
 * A copy of cubind keeps what it learns (paths, messages, the error handlers) for as long as it is
 * loaded. One that is part of an object a program closes (dlclose of a library that embeds
 * libcubind.a or the amalgamation) frees it all when it is unloaded (loader/info.c's destructor),
 * so that nothing it kept is left behind, unreachable, when its memory is unmapped. At exit it
 * frees nothing: another thread may still be calling cubind, and nothing is unmapped.
 *
 * The two are told apart by an exit handler registered (__cxa_atexit, for the object the copy is part
 * of) before the copy keeps anything: at exit it runs before any object's destructors; when the
 * object is closed, its destructors run first and its exit handlers after them (__cxa_finalize,
 * called from the C runtime's last destructor).
 */
#ifndef CUBIND_LOADER_UNLOAD_H
#define CUBIND_LOADER_UNLOAD_H

/* Before keeping anything: the exit handler registered, once. */
void cubind__unload_watch(void);

/* In a destructor: 1 when the copy is being unloaded while the process goes on, 0 at exit (or
 * when the exit handler could not be registered, or nothing was ever kept). */
int cubind__unloading(void);

#endif /* CUBIND_LOADER_UNLOAD_H */
