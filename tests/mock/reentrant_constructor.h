/* tests/mock/reentrant_constructor.h - what the re-entrant mock's constructor saw. */
#ifndef CUBIND_TEST_REENTRANT_CONSTRUCTOR_H
#define CUBIND_TEST_REENTRANT_CONSTRUCTOR_H

struct reentrant_call {
    int result;  /* what the cubind call returned */
    int kind;    /* the error record right after it (cleared before the call) */
    int status;
    char function[64];
    char message[1024];
};

struct reentrant_report {
    int ran, done;
    struct reentrant_call cublas_create;   /* cubind_cublas_create */
    double cublas_seconds;                  /* how long it took */
    struct reentrant_call cublas_load;     /* cubind_load(CUBIND_LIB_CUBLAS) */
    struct reentrant_call cublas_info;     /* cubind_library_info(CUBIND_LIB_CUBLAS) */
    int cublas_info_found;
    struct reentrant_call cublas_set_path; /* cubind_set_library_path(CUBIND_LIB_CUBLAS) */
    int cublas_available;                  /* cubind_function_available("cublasCreate") */
    struct reentrant_call cufft_create;    /* cubind_cufft_create */
    struct reentrant_call cufft_info;      /* cubind_library_info(CUBIND_LIB_CUFFT) */
    int cufft_info_found;
};

#endif /* CUBIND_TEST_REENTRANT_CONSTRUCTOR_H */
