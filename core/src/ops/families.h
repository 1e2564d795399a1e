/* The op families; each ops/<family>.c defines rl_family_<family>. */
#ifndef ROOFLENS_FAMILIES_H
#define ROOFLENS_FAMILIES_H
#include "../internal.h"

#define RL_FAMILY(fam, arr) const rl_op_family rl_family_##fam = {arr, sizeof arr / sizeof *arr}

/* The one list of families, in the order the operator table searches them:
 * the declarations and RL_FAMILY_LIST (optable.c's table) both expand it.
 * A new family is one word here and one ops/<family>.c. */
#define RL_FAMILIES(X)                                                                        \
    X(elementwise) X(matmul) X(conv) X(pool) X(norm) X(reduce) X(rnn) X(views) X(layout)      \
    X(indexing) X(generators) X(sampling) X(sequences) X(control) X(quant) X(attention) X(misc) \
    X(ml)

#define RL_FAMILY_DECLARE(fam) extern const rl_op_family rl_family_##fam;
RL_FAMILIES(RL_FAMILY_DECLARE)
#undef RL_FAMILY_DECLARE

#define RL_FAMILY_ADDRESS(fam) &rl_family_##fam,
#define RL_FAMILY_LIST RL_FAMILIES(RL_FAMILY_ADDRESS)
#endif
