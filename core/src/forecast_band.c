/* The forecast's error band (forecast_band.h; docs/model.md §12.8). */
#include <math.h>
#include <stdio.h>

#include "forecast_band.h"
#include "json.h"
#include "words.h"

rl_band rl_forecast_band(const rl_hw *hw, double forecast_s, double floor_s) {
    const rl_forecast_band_params *b = &hw->fc.band;
    rl_band out = {false, NAN, NAN};
    /* a model with no work is forecast 0 s: its band is exactly [0, 0] */
    if (!b->known || !isfinite(forecast_s) || forecast_s < 0) return out;
    double low = forecast_s * b->low;
    /* the floor is a time no run beats: the band never reaches below it */
    if (isfinite(floor_s) && floor_s > low) low = floor_s < forecast_s ? floor_s : forecast_s;
    out.known = true, out.low_s = low, out.high_s = forecast_s * b->high;
    return out;
}

void rl_forecast_band_put(cJSON *o, const char *low_key, const char *high_key, rl_band b) {
    rl_json_add_num(o, low_key, b.known ? b.low_s : NAN);
    rl_json_add_num(o, high_key, b.known ? b.high_s : NAN);
}

const char *rl_forecast_track_record(const rl_hw *hw, char *buf, size_t size) {
    const rl_forecast_band_params *b = &hw->fc.band;
    if (!b->known) snprintf(buf, size, "%s", rl_word_name(RL_WORD_TERM, "no_track_record"));
    else
        snprintf(buf, size, "checked against %.0f %s, median error %.0f %%, worst %.0f %%", b->runs,
                 rl_value_name(RL_LIST_BAND_BASIS, b->basis),
                 100 * b->median_error, 100 * b->worst_error);
    return buf;
}

void rl_forecast_band_record_json(cJSON *o, const rl_hw *hw) {
    const rl_forecast_band_params *b = &hw->fc.band;
    char sentence[160];
    cJSON_AddStringToObject(o, "track_record", rl_forecast_track_record(hw, sentence, sizeof sentence));
    if (!b->known) {
        cJSON_AddNullToObject(o, "band");
        return;
    }
    cJSON *r = cJSON_AddObjectToObject(o, "band");
    rl_json_add_num(r, "runs", b->runs);
    if (b->models > 0) rl_json_add_num(r, "models", b->models);
    rl_json_add_num(r, "median_error", b->median_error);
    rl_json_add_num(r, "worst_error", b->worst_error);
    cJSON_AddStringToObject(r, "basis", rl_value_id(RL_LIST_BAND_BASIS, b->basis));
    cJSON_AddStringToObject(r, "source", b->source);
    rl_json_add_num(r, "low", b->low);
    rl_json_add_num(r, "high", b->high);
}
