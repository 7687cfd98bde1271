/*
 * loader/trace_log.c - a traced call's line from its description (see trace_log.h).
 * Layer 3: calls trace (2); called by the generated wrappers' traced copies.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        v->as.i = va_arg(*ap, long long);
        break;
    case 's':
        v->as.i = va_arg(*ap, int);
        break;
    case 'u':
        v->as.u = va_arg(*ap, unsigned long long);
        break;
    case 'p':
        v->as.p = va_arg(*ap, uintptr_t);
        break;
    case 'f':
        v->as.f = va_arg(*ap, double);
        break;
    default: /* 'r', 'v': no argument */
        break;
    }
}

static void write_value(cubind__trace_call *call, const char *name, const traced_value *v, cubind__trace_lookup lookup)
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
    case 'e':
        cubind__trace_enum(call, name, lookup != NULL ? lookup(v->which, v->as.i) : NULL, v->as.i);
        break;
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

void cubind__trace_log(cubind__trace_call *call, const cubind__symbol_table *table, size_t index, int failed,
                       cubind__trace_lookup lookup, const char *description, ...)
{
    const char *p = description;
    traced_value result;
    va_list ap;
    if (!cubind__trace_wanted(call, cubind__function_name(table, index), failed))
        return;
    va_start(ap, description);
    result = kind_at(&p);
    read_value(&result, &ap);
    if (*p == ';')
        p++;
    while (*p != '\0') {
        traced_value v = kind_at(&p);
        char name[NAME_MAX_];
        size_t n = strcspn(p, ";");
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        p += n + (p[n] == ';');
        read_value(&v, &ap);
        write_value(call, name, &v, lookup);
    }
    va_end(ap);
    write_value(call, NULL, &result, lookup);
    cubind__trace_end(call);
}
