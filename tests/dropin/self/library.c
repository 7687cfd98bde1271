/* tests/dropin/self/library.c - a fixture standing for a library cubind binds that is not linked
 * -Bsymbolic (NVML, NCCL: docs/dropin.md) and whose version init calls one of its own exports.
 * Built with -DINIT, -DQUERY, -DFINI (the library's version init, query and fini, from
 * generator/libraries.toml) and -DVERSION (what the query answers). Its init calls its fini by its
 * exported name, through the global scope, where the drop-in's forwarder of that name comes
 * first: the call comes back to cubind while cubind is loading this library. */
static int initialized;

int FINI(void);

int INIT(void);

int INIT(void)
{
    /* the library calling its own export (its fini, to start afresh), as NVML's nvmlInit_v2 calls
     * nvmlInitWithFlags: another function, as a call to itself is bound inside by the compiler */
    int status = FINI();
    if (status != 0)
        return status;
    initialized = 1;
    return 0;
}

int QUERY(int *version);

int QUERY(int *version)
{
    if (!initialized)
        return 1;
    *version = VERSION;
    return 0;
}

int FINI(void)
{
    initialized = 0;
    return 0;
}
