/* The roofline and energy formulas of docs/model.md §2-§6, as pure functions so
 * the tests check exactly what the analysis uses. Units: FLOP, bytes,
 * seconds, FLOP/s, bytes/s, joules, watts. */
#ifndef ROOFLENS_ROOFLINE_H
#define ROOFLENS_ROOFLINE_H

/* Time on a roofline: the larger of compute time and memory time. */
static inline double rl_roof_time(double t_compute, double t_memory) {
    return t_compute > t_memory ? t_compute : t_memory;
}
/* Compute time of work split across the matrix and vector units. */
double rl_compute_time(double matrix_flops, double vector_flops, double peak_matrix, double peak_vector);
/* Ridge point β = peak / bandwidth (FLOP/byte). */
double rl_time_balance(double peak_flops, double bandwidth);
/* Energy of work W and traffic Q taking time T: ε_flop·W + ε_mop·Q + π0·T. */
double rl_energy(double e_flop, double e_byte, double static_w, double flops, double bytes, double t);
/* Energy balance points (Pagoda eq. 5): without static power ε_mop/ε_flop;
 * with it (ε_mop + π0/BW) / (ε_flop + 2·π0/peak). */
double rl_energy_balance_no_static(double e_flop, double e_byte);
double rl_energy_balance(double e_flop, double e_byte, double static_w, double peak_flops, double bandwidth);
/* Peak energy efficiency (FLOP/J): 1/ε_flop, and 1/(ε_flop + π0/peak) with static power. */
double rl_peak_flop_per_j_no_static(double e_flop);
double rl_peak_flop_per_j(double e_flop, double static_w, double peak_flops);
/* The energy roof (docs/model.md): the most FLOP per joule at arithmetic
 * intensity I (FLOP/B), work done at the roofline's time: 1 / (ε_flop +
 * ε_mop/I + π0·max(1/peak, 1/(BW·I))). static_w = 0 gives the roof
 * without static power. */
double rl_flop_per_j(double e_flop, double e_byte, double static_w, double peak_flops, double bandwidth,
                     double intensity);
#endif
