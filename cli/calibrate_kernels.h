/* Measuring kernels for rooflens calibrate (calibrate_kernels.c). */
#ifndef ROOFLENS_CALIBRATE_KERNELS_H
#define ROOFLENS_CALIBRATE_KERNELS_H
#include <stdbool.h>
#include <stddef.h>

/* A floating-point peak kernel: fn(iters) runs iters × flops_per_iter FP32
 * FLOPs in registers and returns a value the caller must use (so the work
 * cannot be optimised away). */
typedef struct rl_fma_kernel {
    double (*fn)(long iters);
    /* the same loop with the 6 chains of ONNX Runtime's NCHWc depthwise
     * kernel in flight (calibrate_kernels.c): what the chains' latency
     * leaves of the peak */
    double (*depthwise_fn)(long iters);
    const char *isa;        /* what was selected at run time, for the provenance */
    double flops_per_iter, depthwise_flops_per_iter;
} rl_fma_kernel;

/* The widest FMA kernel this CPU runs. */
rl_fma_kernel rl_pick_fma_kernel(void);

/* The FP32 FLOPs per cycle per core that no kernel can exceed on this CPU's
 * widest vector instruction set: FMA (or multiply and add) units × lanes ×
 * FLOP per instruction. flops_per_cycle is 0 where the instruction set is
 * not known (then there is no bound to state). */
typedef struct rl_isa_bound {
    double flops_per_cycle;
    const char *how; /* the derivation in words, for the profile's source */
    /* the FP32 lanes of the vector register ONNX Runtime's NCHWc kernels
     * (MLAS) run on this CPU, the channels of one block of that layout:
     * 16 with AVX-512F, 8 with AVX or AVX2; 1 below AVX, where MLAS has
     * no blocked layout; 0 where not known */
    int channel_block;
} rl_isa_bound;

rl_isa_bound rl_isa_flops_per_cycle(void);

/* A chain of dependent integer adds, RL_CYCLE_ADDS per iteration: each
 * waits for the one before, so it retires one a cycle at most and the
 * iterations a second tell the core's clock. Returns false where there is
 * no such loop for this architecture. */
#define RL_CYCLE_ADDS 8
bool rl_cycle_loop(long iters);

/* a[i] = b[i] + s·c[i] for i < n (reads 16 B, writes 8 B per element). */
void rl_triad(double *restrict a, const double *restrict b, const double *restrict c, double s, size_t n);
#endif
