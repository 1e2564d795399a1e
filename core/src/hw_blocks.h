/* The optional blocks of a hardware profile (hw_blocks.c), which
 * rl_hw_parse (hw.c) reads with the rest: the interconnect and the
 * forecast. Read with the toolkit of hw_fields.h; nothing but hw.c
 * includes this. */
#ifndef ROOFLENS_HW_BLOCKS_H
#define ROOFLENS_HW_BLOCKS_H
#include <cjson/cJSON.h>

#include "hw.h"
#include "hw_fields.h"

/* "interconnect": the chip-to-chip links. "none" carries no figures (one
 * device); any other topology needs links, link_bandwidth_Bps and
 * latency_s. Read from the base profile only (a mode cannot change it). */
int hw_apply_interconnect(const parse_ctx *x, const cJSON *ic, rl_hw *hw);

/* The forecast of a profile without a "forecast" block: generic fractions
 * per op class, no tile quantization, the launch overhead as the fixed cost
 * per kernel (kernel_s = -1 until the mode's overhead is known). */
void hw_forecast_defaults(rl_hw *hw);

/* The profile's "forecast" block (NULL: none) over the defaults; its
 * cache_level must name one of hw's memory levels, so the memory is read
 * first. */
int hw_apply_forecast(const parse_ctx *x, const cJSON *fc, rl_hw *hw);
#endif
