/*
 * loader/trace_log.c - a traced call's line from its function's description (see trace_log.h).
 * Layer 3: calls trace (2) and the generated tables (symbol tables, status names); called by the
 * generated wrappers' slow paths.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tables.h"
#include "trace_log.h"

/* Longer parameter names are cut in the line (CUDA's longest has 26 characters). */
#define NAME_MAX_ 64

/* One value of the variadic list, read by its kind. */
typedef struct traced_value {
    char kind; /* 'i', 'u', 'p', 'f', 'r', 'e', 's' */
    unsigned which; /* the enum's number for 'e' */
    union {
        long long i;
        unsigned long long u;
        uintptr_t p;
        double f;
    } as;
} traced_value;

static const cubind__trace_table *trace_table(const cubind__symbol_table *table)
{
    return table->trace_at != 0 ? (const cubind__trace_table *)((const char *)table + table->trace_at) : NULL;
}

/* Constant `i` of the library's enum values (int or long long, as the table holds them). */
static long long value_at(const cubind__symbol_table *table, const cubind__trace_table *t, size_t i)
{
    const char *values = (const char *)table + t->values;
    return t->value_size == sizeof(int) ? ((const int *)values)[i] : ((const long long *)values)[i];
}

const char *cubind__trace_enum_name(const cubind__symbol_table *table, unsigned which, long long value,
                                    const char **prefix)
{
    const cubind__trace_table *t = trace_table(table);
    const cubind__trace_enum_range *e;
    const unsigned short *names;
    const char *strings;
    size_t low, high;
    if (t == NULL || which >= t->enum_count)
        return NULL;
    strings = (const char *)table + t->strings;
    e = (const cubind__trace_enum_range *)((const char *)table + t->enums) + which;
    names = (const unsigned short *)((const char *)table + t->value_names) + e->first;
    low = 0;
    high = e->count;
    while (low < high) { /* ascending values */
        size_t middle = low + (high - low) / 2;
        long long at = value_at(table, t, e->first + middle);
        if (at == value) {
            *prefix = strings + e->prefix;
            return strings + names[middle];
        }
        if (at < value)
            low = middle + 1;
        else
            high = middle;
    }
    return NULL;
}

/* The kind at `*p` (and an enum's number), `*p` moved past it. */
static traced_value kind_at(const char **p)
{
    traced_value v = {0};
    v.kind = *(*p)++;
    if (v.kind == 'e') {
        char *end;
        v.which = (unsigned)strtoul(*p, &end, 10);
        *p = *end == ':' ? end + 1 : end;
    }
    return v;
}

static void read_value(traced_value *v, va_list *ap)
{
    switch (v->kind) {
    case 'i':
    case 'e':
        v->as.i = (long long)va_arg(*ap, cubind__word);
        break;
    case 's':
        v->as.i = va_arg(*ap, int);
        break;
    case 'u':
        v->as.u = va_arg(*ap, cubind__word);
        break;
    case 'p':
        v->as.p = (uintptr_t)va_arg(*ap, cubind__word);
        break;
    case 'f':
        v->as.f = va_arg(*ap, double);
        break;
    default: /* 'r', 'v': no argument */
        break;
    }
}

static void write_value(cubind__trace_call *call, const char *name, const traced_value *v)
{
    switch (v->kind) {
    case 'i':
        cubind__trace_signed(call, name, v->as.i);
        break;
    case 'u':
        cubind__trace_unsigned(call, name, v->as.u);
        break;
    case 'p':
        cubind__trace_pointer(call, name, v->as.p);
        break;
    case 'f':
        cubind__trace_floating(call, name, v->as.f);
        break;
    case 'e': {
        const char *prefix = "";
        const char *constant = cubind__trace_enum_name(call->table, v->which, v->as.i, &prefix);
        cubind__trace_enum(call, name, prefix, constant, v->as.i);
        break;
    }
    case 's':
        cubind__trace_status(call, (int)v->as.i);
        break;
    case 'r':
        cubind__trace_record(call, name);
        break;
    default: /* 'v' */
        break;
    }
}

/* The parameter name at `p` (`*length` bytes): itself, or the name the table holds when it is one
 * byte from 0x80, `*length` then its length. */
static const char *table_name(const cubind__symbol_table *table, const char *p, size_t *length)
{
    const cubind__trace_table *t = trace_table(table);
    unsigned number = (unsigned char)*p - 0x80u;
    const char *name;
    if (*length != 1 || (unsigned char)*p < 0x80u || t == NULL || number >= t->name_count)
        return p;
    name = (const char *)table + t->strings + ((const unsigned short *)((const char *)table + t->names))[number];
    *length = strlen(name);
    return name;
}

/* The line begun: the function's name, then each parameter as `description` says, read from `ap`. */
static int trace_arguments(cubind__trace_call *call, const cubind__symbol_table *table, size_t index,
                           const char *description, va_list *ap)
{
    const char *p = description;
    int saved_errno = errno;
    call->table = NULL; /* cubind__trace_result: not traced */
    if (!cubind__trace_begin(call, table->library))
        return 0;
    call->table = table;
    call->result = p;
    cubind__trace_head(call, cubind__function_name(table, index));
    kind_at(&p); /* the result's, read after the call */
    if (*p == ';')
        p++;
    while (*p != '\0') {
        traced_value v = kind_at(&p);
        char name[NAME_MAX_];
        size_t n = strcspn(p, ";"), length = n;
        const char *text = table_name(table, p, &length);
        snprintf(name, sizeof name, "%.*s", (int)length, text);
        p += n + (p[n] == ';');
        read_value(&v, ap);
        write_value(call, name, &v);
    }
    clock_gettime(CLOCK_MONOTONIC, &call->start); /* the call's time, not its arguments' formatting */
    errno = saved_errno;
    return 1;
}

int cubind__trace_described(cubind__trace_call *call, const cubind__symbol_table *table, size_t index,
                            const char *description, ...)
{
    va_list ap;
    int traced;
    va_start(ap, description);
    traced = trace_arguments(call, table, index, description, &ap);
    va_end(ap);
    return traced;
}

int cubind__trace_args(cubind__trace_call *call, unsigned id, ...)
{
    const cubind__symbol_table *table = cubind__symbols((cubind_library)(id & 0xff));
    const cubind__trace_table *t = table != NULL ? trace_table(table) : NULL;
    size_t index = id >> 8;
    va_list ap;
    int traced;
    call->table = NULL; /* cubind__trace_result: not traced */
    if (!cubind__tracing() || t == NULL || index >= table->count)
        return 0;
    va_start(ap, id);
    traced = trace_arguments(call, table, index,
                             (const char *)table + t->strings +
                                 ((const unsigned short *)((const char *)table + t->descriptions))[index],
                             &ap);
    va_end(ap);
    return traced;
}

void cubind__trace_result(cubind__trace_call *call, ...)
{
    const char *p = call->result;
    const cubind__symbol_table *table = call->table;
    traced_value result;
    int saved_errno, failed = 0;
    va_list ap;
    if (table == NULL)
        return;
    saved_errno = errno;
    result = kind_at(&p);
    va_start(ap, call);
    read_value(&result, &ap);
    va_end(ap);
    if (result.kind == 's')
        failed = (int)result.as.i != cubind__libraries[table->library].status_success &&
                 !cubind__status_informational(table->library, (int)result.as.i);
    if (cubind__trace_wanted(failed)) {
        write_value(call, NULL, &result);
        cubind__trace_end(call);
    }
    errno = saved_errno;
}
