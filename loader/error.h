/*
 * loader/error.h - the thread-local error record and the error handler.
 */
#ifndef CUBIND_ERROR_H
#define CUBIND_ERROR_H

#include "cubind/cubind.h"
#include "strbuf.h"

/* Fill the calling thread's record (message from `format`) and call the handler. */
void cubind__error_record(cubind_error_kind kind, cubind_library library, const char *function, int status,
                          const char *format, ...) CUBIND_PRINTF(5, 6);

/* The kind of the calling thread's last error. */
cubind_error_kind cubind__error_kind(void);

#endif /* CUBIND_ERROR_H */
