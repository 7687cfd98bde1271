/*
 * loader/error.h - the thread-local error record and the error handler. Layer 2: includes
 * strbuf.h (1).
 */
#ifndef CUBIND_LOADER_ERROR_H
#define CUBIND_LOADER_ERROR_H

#include "cubind/core.h"
#include "strbuf.h"

/* Fill the calling thread's record (message from `format`, control characters and bytes
 * that are not valid UTF-8 escaped as \xNN) and call the handler. `status` and its name are
 * kept only for the kinds that carry one (STATUS, LIBRARY_NOT_FOUND, SYMBOL_NOT_FOUND). */
/* The copy is being unloaded (cubind__unloading, loader/platform.h): no handler installed, every one kept freed. */
void cubind__error_unload(void);

void cubind__error_record(cubind_error_kind kind, cubind_library library, const char *function, int status,
                          const char *format, ...) CUBIND_PRINTF(5, 6);


#endif /* CUBIND_LOADER_ERROR_H */
