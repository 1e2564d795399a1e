/* Measuring kernels for rooflens calibrate (calibrate_kernels.c). */
#ifndef ROOFLENS_CALIBRATE_KERNELS_H
#define ROOFLENS_CALIBRATE_KERNELS_H
#include <stddef.h>

/* A floating-point peak kernel: fn(iters) runs iters × flops_per_iter FP32
 * FLOPs in registers and returns a value the caller must use (so the work
 * cannot be optimised away). */
typedef struct rl_fma_kernel {
    double (*fn)(long iters);
    const char *isa;        /* what was selected at run time, for the provenance */
    double flops_per_iter;
} rl_fma_kernel;

/* The widest FMA kernel this CPU runs. */
rl_fma_kernel rl_pick_fma_kernel(void);

/* a[i] = b[i] + s·c[i] for i < n (reads 16 B, writes 8 B per element). */
void rl_triad(double *restrict a, const double *restrict b, const double *restrict c, double s, size_t n);
#endif
