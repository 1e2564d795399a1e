// The headline figures of an analysis, read from the core's response in ONE
// place. The summary, the whole-model star, the Markdown review and the PNG
// titles all read them here, so every surface shows the same numbers, and a
// change of the response's layout changes only this file. No figure is
// computed here: each is a field of the response (or null when it has none).
//
// The contract of the "one answer" issue moves every headline figure into
// sol.chosen (time_s, lower/upper_bound_s, energy_j, avg_power_w, bound,
// kernels, launch_floor_s, power_capped); until that lands, the bounds are
// top-level in sol and the kernels and launch floor in totals.

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** @returns {{model, granularity, time_s, lower_bound_s, upper_bound_s, energy_j,
 *   avg_power_w, bound, kernels, launch_floor_s, power_capped, precision,
 *   requested_precision}} */
export function headline(res) {
  const sol = res?.sol || {}, ch = sol.chosen || {}, t = res?.totals || {}, ro = res?.roofline || {};
  return {
    model: ch.model ?? null,
    granularity: ch.granularity ?? null,
    time_s: num(ch.time_s),
    lower_bound_s: num(ch.lower_bound_s ?? sol.lower_bound_s),
    upper_bound_s: num(ch.upper_bound_s ?? sol.upper_bound_s),
    energy_j: num(ch.energy_j ?? t.energy_j),
    avg_power_w: num(ch.avg_power_w),
    bound: ch.bound ?? null,
    kernels: num(ch.kernels ?? t.kernels),
    launch_floor_s: num(ch.launch_floor_s ?? t.launch_floor_s),
    power_capped: ch.power_capped === true,
    precision: ro.precision ?? res?.options?.precision ?? null,
    requested_precision: ro.requested_precision ?? null,   // set when it differs (after the contract)
  };
}

/** The bound as a user reads it. */
export function boundLabel(bound) {
  return { overhead: 'launch overhead', compute: 'compute', memory: 'memory', power: 'power budget' }[bound] || '–';
}
