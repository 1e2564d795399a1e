/* Roofline and energy formulas; see roofline.h and docs/model.md. */
#include "roofline.h"

double rl_compute_time(double matrix_flops, double vector_flops, double peak_matrix, double peak_vector) {
    double tm = peak_matrix > 0 ? matrix_flops / peak_matrix : 0;
    double tv = peak_vector > 0 ? vector_flops / peak_vector : 0;
    return tm > tv ? tm : tv;
}

double rl_time_balance(double peak_flops, double bandwidth) { return peak_flops / bandwidth; }

double rl_energy(double e_flop, double e_byte, double static_w, double flops, double bytes, double t) {
    return e_flop * flops + e_byte * bytes + static_w * t;
}

double rl_energy_balance_no_static(double e_flop, double e_byte) { return e_byte / e_flop; }

double rl_energy_balance(double e_flop, double e_byte, double static_w, double peak_flops, double bandwidth) {
    return (e_byte + static_w / bandwidth) / (e_flop + 2 * static_w / peak_flops);
}

double rl_peak_flop_per_j_no_static(double e_flop) { return 1.0 / e_flop; }

double rl_peak_flop_per_j(double e_flop, double static_w, double peak_flops) {
    return 1.0 / (e_flop + static_w / peak_flops);
}

double rl_flop_per_j(double e_flop, double e_byte, double static_w, double peak_flops, double bandwidth,
                     double intensity) {
    double s_per_flop = 1.0 / peak_flops, memory_s_per_flop = 1.0 / (bandwidth * intensity);
    if (memory_s_per_flop > s_per_flop) s_per_flop = memory_s_per_flop;
    return 1.0 / (e_flop + e_byte / intensity + static_w * s_per_flop);
}
