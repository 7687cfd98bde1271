/*
 * loader/error.c - the thread-local error record, status messages and the error handler.
 *
 * The handler runs on the failing thread with no cubind lock held, on a copy of
 * the record, so it may call back into cubind; errors it causes are recorded
 * but do not call it again.
 */
#include "error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static _Thread_local cubind_error tls_error;
static _Thread_local int tls_in_handler;

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static cubind_error_handler handler_fn;
static void *handler_user;

static void fill_defaults(cubind_error *error)
{
    if (error->library_name == NULL) {
        error->library = CUBIND_LIB_NONE;
        error->library_name = "";
        error->function = "";
        error->status_name = "";
    }
}

const cubind_error *cubind_last_error(void)
{
    fill_defaults(&tls_error);
    return &tls_error;
}

void cubind_clear_error(void)
{
    tls_error.kind = CUBIND_OK;
    tls_error.library = CUBIND_LIB_NONE;
    tls_error.status = 0;
    tls_error.library_name = "";
    tls_error.function = "";
    tls_error.status_name = "";
    tls_error.message[0] = '\0';
}

void cubind_set_error_handler(cubind_error_handler handler, void *user)
{
    pthread_mutex_lock(&handler_lock);
    handler_fn = handler;
    handler_user = user;
    pthread_mutex_unlock(&handler_lock);
}

cubind_error_kind cubind__error_kind(void)
{
    return tls_error.kind;
}

void cubind__error_record(cubind_error_kind kind, cubind_library library, const char *function, int status,
                          const char *format, ...)
{
    va_list args;
    cubind_error_handler fn;
    void *user;
    const char *name = cubind_library_name(library);
    const char *status_name = name != NULL ? cubind_status_name(library, status) : NULL;

    tls_error.kind = kind;
    tls_error.library = name != NULL ? library : CUBIND_LIB_NONE;
    tls_error.status = status;
    tls_error.library_name = name != NULL ? name : "";
    tls_error.function = function != NULL ? function : "";
    tls_error.status_name = status_name != NULL ? status_name : "";
    va_start(args, format);
    vsnprintf(tls_error.message, sizeof tls_error.message, format, args);
    va_end(args);

    if (tls_in_handler)
        return;
    pthread_mutex_lock(&handler_lock);
    fn = handler_fn;
    user = handler_user;
    pthread_mutex_unlock(&handler_lock);
    if (fn != NULL) {
        cubind_error copy = tls_error;
        tls_in_handler = 1;
        fn(&copy, user);
        tls_in_handler = 0;
    }
}

CUBIND_COLD void cubind__status_error(const cubind__symbol_table *table, size_t index, int status)
{
    const char *status_name = cubind_status_name(table->library, status);
    cubind__error_record(CUBIND_ERROR_STATUS, table->library, table->names[index], status, "%s returned %s (%d)",
                         table->names[index], status_name != NULL ? status_name : "an unknown status", status);
}
