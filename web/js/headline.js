// The headline figures of an analysis, read from one place of the core's
// answer: sol.chosen (the request's speed-of-light model, docs/model.md).
// The summary, the Markdown export and anything else that shows "the time"
// or "the energy" read them here, so the page cannot show two answers.

/** The chosen model's time, bounds, energy, power, bound and kernels. */
export function headline(res) {
  const ch = res.sol.chosen;
  return {
    model: ch.model, granularity: ch.granularity,
    time_s: ch.time_s, lower_bound_s: ch.lower_bound_s, upper_bound_s: ch.upper_bound_s,
    energy_j: ch.energy_j ?? null, avg_power_w: ch.avg_power_w ?? null, power_capped: ch.power_capped,
    bound: ch.bound, kernels: ch.kernels, launch_floor_s: ch.launch_floor_s,
    flops: ch.flops, bytes: ch.bytes, intensity: ch.bytes > 0 ? ch.flops / ch.bytes : 0,
    power_budget_w: res.hardware.power_budget_w ?? null,
    precision: res.roofline.precision, requested_precision: res.roofline.requested_precision,
    batch: res.options.batch ?? null, batch_applied: res.options.batch_applied ?? null,
  };
}

/** The three speed-of-light models, each with its own time, bounds and kernels. */
export function solRows(res) {
  return ['unfused', 'fused', 'fused_prefetched'].filter((m) => res.sol[m]).map((model) => {
    const s = res.sol[model];
    return { model, time_s: s.time_s, lower_bound_s: s.lower_bound_s, upper_bound_s: s.upper_bound_s,
      granularity: s.granularity, kernels: s.kernels, launch_floor_s: s.launch_floor_s, bound: s.bound,
      energy_j: s.energy_j ?? null };
  });
}

export const BOUND_WORDS = { overhead: 'kernel launches', compute: 'compute', memory: 'memory', power: 'power budget' };
