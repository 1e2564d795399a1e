/* The op families; each ops/<family>.c defines rl_family_<family>. */
#ifndef ROOFLENS_FAMILIES_H
#define ROOFLENS_FAMILIES_H
#include "../internal.h"

#define RL_FAMILY(fam, arr) const rl_op_family rl_family_##fam = {arr, sizeof arr / sizeof *arr}

extern const rl_op_family rl_family_elementwise, rl_family_matmul, rl_family_conv,
    rl_family_pool, rl_family_norm, rl_family_reduce, rl_family_rnn, rl_family_views,
    rl_family_layout, rl_family_indexing, rl_family_generators, rl_family_sampling,
    rl_family_sequences, rl_family_control, rl_family_quant, rl_family_attention, rl_family_misc,
    rl_family_ml;

#define RL_FAMILY_LIST                                                                           \
    &rl_family_elementwise, &rl_family_matmul, &rl_family_conv, &rl_family_pool,                 \
        &rl_family_norm, &rl_family_reduce, &rl_family_rnn, &rl_family_views, &rl_family_layout, \
        &rl_family_indexing, &rl_family_generators, &rl_family_sampling, &rl_family_sequences,   \
        &rl_family_control, &rl_family_quant, &rl_family_attention, &rl_family_misc, &rl_family_ml
#endif
