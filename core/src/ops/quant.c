/* Op family: quant. */
#include "../graph.h"
#include "families.h"

static const rl_op_def ops[] = {
    {"", "", 0, -1, NULL, NULL, 0, 0, ""}, /* placeholder: never matches (until < since) */
};
RL_FAMILY(quant, ops);
