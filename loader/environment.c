/*
 * loader/environment.c - environment variables, read with secure_getenv (see environment.h).
 * Layer 1: calls libc only.
 */
#define _GNU_SOURCE
#include "environment.h"

#include <stdlib.h>

const char *cubind__getenv(const char *name)
{
    return secure_getenv(name);
}
