/* The measuring kernels of rooflens calibrate, with runtime dispatch: each
 * x86 variant is compiled for its instruction set with a target attribute
 * and chosen by what the CPU reports, so the binary still runs on a CPU
 * without AVX. Elsewhere a portable kernel (GCC vector extensions) is used. */
#include "calibrate_kernels.h"

#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RL_X86 1
#endif

/* Chains of dependent FMAs, CHAINS of them in flight: enough independent
 * accumulators to cover the FMA latency (4-5 cycles) on two pipes. The
 * multiplier is just below 1 and the addend tiny, so values stay normal. */
#define CHAINS 12

#ifdef RL_X86
__attribute__((target("avx512f"))) static double fma_avx512(long iters) {
    __m512 acc[CHAINS];
    const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
    for (int k = 0; k < CHAINS; k++) acc[k] = _mm512_set1_ps(1.0f + (float)k);
    for (long i = 0; i < iters; i++)
        for (int k = 0; k < CHAINS; k++) acc[k] = _mm512_fmadd_ps(acc[k], m, c);
    __m512 s = acc[0];
    for (int k = 1; k < CHAINS; k++) s = _mm512_add_ps(s, acc[k]);
    return (double)_mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters) {
    __m256 acc[CHAINS];
    const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
    for (int k = 0; k < CHAINS; k++) acc[k] = _mm256_set1_ps(1.0f + (float)k);
    for (long i = 0; i < iters; i++)
        for (int k = 0; k < CHAINS; k++) acc[k] = _mm256_fmadd_ps(acc[k], m, c);
    __m256 s = acc[0];
    for (int k = 1; k < CHAINS; k++) s = _mm256_add_ps(s, acc[k]);
    float out[8];
    _mm256_storeu_ps(out, s);
    double t = 0;
    for (int k = 0; k < 8; k++) t += out[k];
    return t;
}

/* SSE2 has no FMA: a multiply and an add, two instructions per two FLOPs. */
static double mul_add_sse2(long iters) {
    __m128 acc[CHAINS];
    const __m128 m = _mm_set1_ps(0.9999999f), c = _mm_set1_ps(1e-7f);
    for (int k = 0; k < CHAINS; k++) acc[k] = _mm_set1_ps(1.0f + (float)k);
    for (long i = 0; i < iters; i++)
        for (int k = 0; k < CHAINS; k++) acc[k] = _mm_add_ps(_mm_mul_ps(acc[k], m), c);
    __m128 s = acc[0];
    for (int k = 1; k < CHAINS; k++) s = _mm_add_ps(s, acc[k]);
    float out[4];
    _mm_storeu_ps(out, s);
    return (double)out[0] + out[1] + out[2] + out[3];
}
#else
typedef float v4f __attribute__((vector_size(16)));
static double mul_add_generic(long iters) {
    v4f acc[CHAINS];
    const v4f m = {0.9999999f, 0.9999999f, 0.9999999f, 0.9999999f}, c = {1e-7f, 1e-7f, 1e-7f, 1e-7f};
    for (int k = 0; k < CHAINS; k++) acc[k] = (v4f){1.0f + k, 1.0f + k, 1.0f + k, 1.0f + k};
    for (long i = 0; i < iters; i++)
        for (int k = 0; k < CHAINS; k++) acc[k] = acc[k] * m + c;
    double t = 0;
    for (int k = 0; k < CHAINS; k++) t += acc[k][0] + acc[k][1] + acc[k][2] + acc[k][3];
    return t;
}
#endif

rl_fma_kernel rl_pick_fma_kernel(void) {
#ifdef RL_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return (rl_fma_kernel){fma_avx512, "AVX-512F FMA", (double)CHAINS * 16 * 2};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return (rl_fma_kernel){fma_avx2, "AVX2 FMA", (double)CHAINS * 8 * 2};
    return (rl_fma_kernel){mul_add_sse2, "SSE2 multiply + add", (double)CHAINS * 4 * 2};
#else
    return (rl_fma_kernel){mul_add_generic, "128-bit vector multiply-add", (double)CHAINS * 4 * 2};
#endif
}

rl_isa_bound rl_isa_flops_per_cycle(void) {
#ifdef RL_X86
    __builtin_cpu_init();
    /* two FMA ports is the most any x86 core has; a core with fewer (one
     * 512-bit unit on some Xeons, 128-bit units on Zen 1) stays under it */
    if (__builtin_cpu_supports("avx512f"))
        return (rl_isa_bound){64, "AVX-512F: 2 FMA units x 16 FP32 lanes x 2 FLOP = 64 FLOP per cycle per core "
                                  "(the most an x86 core issues; a core with one 512-bit FMA unit reaches half)"};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return (rl_isa_bound){32, "AVX2 + FMA: 2 FMA units x 8 FP32 lanes x 2 FLOP = 32 FLOP per cycle per core"};
    if (__builtin_cpu_supports("avx"))
        return (rl_isa_bound){16, "AVX without FMA: 1 multiply + 1 add unit x 8 FP32 lanes = 16 FLOP per cycle per core"};
    return (rl_isa_bound){8, "SSE2: 1 multiply + 1 add unit x 4 FP32 lanes = 8 FLOP per cycle per core"};
#else
    return (rl_isa_bound){0, "no FLOP-per-cycle bound known for this instruction set"};
#endif
}

bool rl_cycle_loop(long iters) {
#if defined(__x86_64__) && defined(__GNUC__)
    unsigned long x = 1, y = (unsigned long)iters | 1;
    for (long i = 0; i < iters; i++)
        /* register + register: no core removes these at rename as it can
         * an add of a small constant, so each takes its cycle */
        __asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
                         "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
                         : "+r"(x)
                         : "r"(y));
    return true;
#else
    (void)iters;
    return false;
#endif
}

/* STREAM's triad a = b + s c; the compiler vectorises it for each clone. */
#if defined(RL_X86) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void rl_triad(double *restrict a, const double *restrict b, const double *restrict c, double s, size_t n) {
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
