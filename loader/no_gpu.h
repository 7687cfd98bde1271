/*
 * loader/no_gpu.h - why no GPU can be used here, said after the message of every failing call
 * whose status can mean "no usable GPU" (docs/machine.md). Layer 1: libc only.
 */
#ifndef CUBIND_LOADER_NO_GPU_H
#define CUBIND_LOADER_NO_GPU_H

#include <stdatomic.h>
#include <stddef.h>

/* The reason, as every failing call's message ends with it: printable ASCII (another byte is '?'),
 * `length` bytes, then NULs to the end of `text`, so that it can be copied 16 bytes at a time. */
#define CUBIND__NO_GPU_TEXT_SIZE 512
typedef struct cubind__no_gpu_reason {
    size_t length; /* 0: nothing to say (a driver and a visible GPU, as far as is known) */
    char text[CUBIND__NO_GPU_TEXT_SIZE];
} cubind__no_gpu_reason;

/* NULL until decided; then the reason ("no CUDA driver: ...", "driver 580.159.04, no GPU visible
 * (CUDA_VISIBLE_DEVICES=)"), kept for the life of the process. */
extern _Atomic(const cubind__no_gpu_reason *) cubind__no_gpu_now;

/* Decide once, from what the kernel module shows (/proc/driver/nvidia/version, its gpus folder, the
 * /dev/nvidia<N> device files) and CUDA_VISIBLE_DEVICES, in every build (a subset without the
 * driver too: the kernel module is there or not whatever cubind binds); nothing when
 * CUBIND_DRIVER_PATH names the driver (its answers are its own). Which failures say it is the
 * library's data (libraries.toml `no_gpu`). Returns the reason kept in cubind__no_gpu_now. */
const cubind__no_gpu_reason *cubind__no_gpu_decide(void);

/* The reason once decided (one load: the failure path of every wrapper), else NULL. */
static inline const cubind__no_gpu_reason *cubind__no_gpu_known(void)
{
    return atomic_load_explicit(&cubind__no_gpu_now, memory_order_acquire);
}

/* What a higher layer found by asking the driver itself (cubind_gpu_count): replaces the decision.
 * `text` is copied, made printable ASCII and cut to fit ("" when the driver and a GPU answered). */
void cubind__no_gpu_publish(const char *text);

/* The driver release the kernel module reports ("580.159.04", from /proc/driver/nvidia/version) into
 * `out`; 0 when there is none (no module loaded), 1 when found. */
int cubind__kernel_driver_release(char *out, size_t size);

/* The GPUs the kernel module lists (the folders of /proc/driver/nvidia/gpus); 0 without it. For a
 * build without the driver API (a subset), which cannot ask the driver. */
int cubind__kernel_gpu_count(void);

/* The release in `text`, the kernel module's version line: its first whitespace-separated token of
 * digits '.' digits, optionally '.' digits ("580.159.04", never the "86" of "x86_64"), copied as
 * text into `out`; 0 when the first line has none or it does not fit in `size`. */
int cubind__driver_release_in(const char *text, char *out, size_t size);

#endif /* CUBIND_LOADER_NO_GPU_H */
