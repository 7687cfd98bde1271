/* tests/dropin/check.h - how the drop-in test programs (written for NVIDIA's headers only) stop on
 * a failing call: they print which call failed and its status, and exit 1. */
#ifndef DROPIN_CHECK_H
#define DROPIN_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        int check_status_ = (int)(call);                                                            \
        if (check_status_ != 0) {                                                                   \
            fprintf(stderr, "%s:%d: %s failed: status %d\n", __FILE__, __LINE__, #call, check_status_); \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

#endif
