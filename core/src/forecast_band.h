/* The forecast's error band (docs/model.md §12.8): how far off a forecast
 * may be, from the stack's track record (the profile's "forecast.band":
 * measured / forecast over held-out runs). Every figure that carries a
 * forecast (the model's total, the studies' rows, the LLM view's phases,
 * the plans over several devices) gets its band here and nowhere else.
 *
 * Ownership: nothing is allocated but the cJSON members added to the
 * caller's object. */
#ifndef ROOFLENS_FORECAST_BAND_H
#define ROOFLENS_FORECAST_BAND_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "hw.h"

/* A forecast's likely range; known false (and both NAN) when the profile
 * gives no track record or the forecast is not a finite time >= 0 (0 s, a
 * model without work, has the band [0, 0]). */
typedef struct rl_band {
    bool known;
    double low_s, high_s;
} rl_band;

/* The band of forecast_s on hw's stack:
 *   low_s  = max(floor_s, forecast_s × low), never above forecast_s;
 *   high_s = forecast_s × high.
 * So floor_s <= low_s <= forecast_s <= high_s whenever the floor is at or
 * below the forecast (as every forecast is). floor_s NAN or <= 0: no floor
 * holds the low end up. A rate (tokens/s) takes the band of its time
 * inverted: its low is rate × forecast_s / high_s. */
rl_band rl_forecast_band(const rl_hw *hw, double forecast_s, double floor_s);

/* o[low_key] = b.low_s and o[high_key] = b.high_s, or null for both when
 * the band is not known. */
void rl_forecast_band_put(cJSON *o, const char *low_key, const char *high_key, rl_band b);

/* The track record in one sentence, as every surface writes it: "checked
 * against 29 published runs, median error 14 %, worst 92 %" (or "... 9
 * held-out runs of its fit ..."), or the core's words for none: "no track
 * record for this stack". Returns buf. */
const char *rl_forecast_track_record(const rl_hw *hw, char *buf, size_t size);

/* o["band"] = the track record the band rests on: {runs, median_error,
 * worst_error, basis, source, low, high} (docs/api.md, "Forecast"), or null
 * when the profile has none; and o["track_record"], its sentence. */
void rl_forecast_band_record_json(cJSON *o, const rl_hw *hw);
#endif
