/*
 * bench/callee.c - an empty stand-in for libcublas.so.13: the callee of the
 * overhead rows of `make bench` (bench/calls.c), so that what is counted is the
 * binding and not cuBLAS. Each function does nothing but return a status.
 * Plain C types: the ABI of cublasHandle_t (a pointer) and of cuBLAS's enums (int).
 */
int cublasGetProperty(int type, int *value);
int cublasGetPointerMode_v2(void *handle, int *mode);
int cublasSetPointerMode_v2(void *handle, int mode);
int cublasGetMathMode(void *handle, int *mode);

/* MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL: 13.0.0, the version cubind expects. */
int cublasGetProperty(int type, int *value)
{
    *value = type == 0 ? 13 : 0;
    return 0;
}

/* The success path: CUBLAS_STATUS_SUCCESS. */
int cublasGetPointerMode_v2(void *handle, int *mode)
{
    (void)handle;
    (void)mode;
    return 0;
}

/* The second function of an already loaded library. */
int cublasSetPointerMode_v2(void *handle, int mode)
{
    (void)handle;
    (void)mode;
    return 0;
}

/* The failing path: CUBLAS_STATUS_NOT_INITIALIZED. */
int cublasGetMathMode(void *handle, int *mode)
{
    (void)handle;
    (void)mode;
    return 1;
}
