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

/* Chains of dependent FMAs, `chains` of them in flight. CHAINS covers the
 * FMA latency (4-5 cycles) on two pipes: the peak. DEPTHWISE_CHAINS is the
 * accumulators ONNX Runtime's NCHWc depthwise kernel keeps in flight (MLAS,
 * SconvKernelAvx512F.S: 6 outputs of a row, one accumulator each), which
 * wait on the latency where the core has more pipes than they fill. The
 * multiplier is just below 1 and the addend tiny, so values stay normal. */
#define CHAINS 12
#define DEPTHWISE_CHAINS 6

/* One FMA loop of a vector type: its body, then every lane summed into the
 * value returned (so that no chain can be optimised away). */
#define FMA_LOOP(VEC, SET1, FMA, STORE, LANES, N)                                                                     \
    VEC acc[N];                                                                                                      \
    const VEC m = SET1(0.9999999f), c = SET1(1e-7f);                                                                 \
    for (int k = 0; k < N; k++) acc[k] = SET1(1.0f + (float)k);                                                      \
    for (long i = 0; i < iters; i++)                                                                                 \
        for (int k = 0; k < N; k++) acc[k] = FMA(acc[k], m, c);                                                      \
    float out[LANES];                                                                                                \
    double t = 0;                                                                                                    \
    for (int k = 0; k < N; k++) {                                                                                    \
        STORE(out, acc[k]);                                                                                          \
        for (int j = 0; j < LANES; j++) t += out[j];                                                                 \
    }                                                                                                                \
    return t

#ifdef RL_X86
__attribute__((target("avx512f"))) static double fma_avx512(long iters) {
    FMA_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps, 16, CHAINS);
}
__attribute__((target("avx512f"))) static double fma_avx512_depthwise(long iters) {
    FMA_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps, 16, DEPTHWISE_CHAINS);
}
__attribute__((target("avx2,fma"))) static double fma_avx2(long iters) {
    FMA_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps, 8, CHAINS);
}
__attribute__((target("avx2,fma"))) static double fma_avx2_depthwise(long iters) {
    FMA_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps, 8, DEPTHWISE_CHAINS);
}
/* SSE2 has no FMA: a multiply and an add, two instructions per two FLOPs. */
static inline __m128 mul_add_sse2_ps(__m128 a, __m128 m, __m128 c) { return _mm_add_ps(_mm_mul_ps(a, m), c); }
static double mul_add_sse2(long iters) { FMA_LOOP(__m128, _mm_set1_ps, mul_add_sse2_ps, _mm_storeu_ps, 4, CHAINS); }
static double mul_add_sse2_depthwise(long iters) {
    FMA_LOOP(__m128, _mm_set1_ps, mul_add_sse2_ps, _mm_storeu_ps, 4, DEPTHWISE_CHAINS);
}
#else
typedef float v4f __attribute__((vector_size(16)));
static inline v4f v4f_set1(float x) { return (v4f){x, x, x, x}; }
static inline v4f v4f_mul_add(v4f a, v4f m, v4f c) { return a * m + c; }
static inline void v4f_store(float *out, v4f v) { memcpy(out, &v, sizeof v); }
static double mul_add_generic(long iters) { FMA_LOOP(v4f, v4f_set1, v4f_mul_add, v4f_store, 4, CHAINS); }
static double mul_add_generic_depthwise(long iters) {
    FMA_LOOP(v4f, v4f_set1, v4f_mul_add, v4f_store, 4, DEPTHWISE_CHAINS);
}
#endif

rl_fma_kernel rl_pick_fma_kernel(void) {
#ifdef RL_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return (rl_fma_kernel){fma_avx512, fma_avx512_depthwise, "AVX-512F FMA", (double)CHAINS * 16 * 2,
                                (double)DEPTHWISE_CHAINS * 16 * 2};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return (rl_fma_kernel){fma_avx2, fma_avx2_depthwise, "AVX2 FMA", (double)CHAINS * 8 * 2,
                                (double)DEPTHWISE_CHAINS * 8 * 2};
    return (rl_fma_kernel){mul_add_sse2, mul_add_sse2_depthwise, "SSE2 multiply + add", (double)CHAINS * 4 * 2,
                           (double)DEPTHWISE_CHAINS * 4 * 2};
#else
    return (rl_fma_kernel){mul_add_generic, mul_add_generic_depthwise, "128-bit vector multiply-add",
                           (double)CHAINS * 4 * 2, (double)DEPTHWISE_CHAINS * 4 * 2};
#endif
}

rl_isa_bound rl_isa_flops_per_cycle(void) {
#ifdef RL_X86
    __builtin_cpu_init();
    /* two FMA ports is the most any x86 core has; a core with fewer (one
     * 512-bit unit on some Xeons, 128-bit units on Zen 1) stays under it */
    if (__builtin_cpu_supports("avx512f"))
        return (rl_isa_bound){64, "AVX-512F: 2 FMA units x 16 FP32 lanes x 2 FLOP = 64 FLOP per cycle per core "
                                  "(the most an x86 core issues; a core with one 512-bit FMA unit reaches half)", 16};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return (rl_isa_bound){32, "AVX2 + FMA: 2 FMA units x 8 FP32 lanes x 2 FLOP = 32 FLOP per cycle per core", 8};
    if (__builtin_cpu_supports("avx"))
        return (rl_isa_bound){16, "AVX without FMA: 1 multiply + 1 add unit x 8 FP32 lanes = 16 FLOP per cycle per core", 8};
    return (rl_isa_bound){8, "SSE2: 1 multiply + 1 add unit x 4 FP32 lanes = 8 FLOP per cycle per core", 1};
#else
    return (rl_isa_bound){0, "no FLOP-per-cycle bound known for this instruction set", 0};
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
