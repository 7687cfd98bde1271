/*
 * loader/environment.h - the one way the loader reads its environment. Layer 1: includes no
 * loader header.
 */
#ifndef CUBIND_LOADER_ENVIRONMENT_H
#define CUBIND_LOADER_ENVIRONMENT_H

/* Every environment variable the loader reads goes through this: secure_getenv, so a
 * set-user-ID or set-group-ID program (AT_SECURE) sees none of them. */
const char *cubind__getenv(const char *name);

#endif /* CUBIND_LOADER_ENVIRONMENT_H */
