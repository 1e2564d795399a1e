// The "Many devices" settings (tensor, pipeline and data parallel degrees,
// micro-batches): their defaults, their part of the share link (tp, pp, dp,
// mb) and the request's "parallel" object (docs/parallel.md). State, not
// view: state.js and the panel (parallel.js) both read it.
export const PARALLEL_DEFAULTS = Object.freeze({ tp: 1, pp: 1, dp: 1, mb: 1 });
export const PARALLEL_PARAM_KEYS = ['tp', 'pp', 'dp', 'mb'];
// The core's ranges (core/src/parallel.c): tp and pp up to 1024, dp and micro-batches up to 65536.
export const PARALLEL_MAX = Object.freeze({ tp: 1024, pp: 1024, dp: 65536, mb: 65536 });

export function parallelDefaultState() { return { ...PARALLEL_DEFAULTS }; }

// The groups the "Several devices" view shows beside one device (tensor
// parallel over the chosen device's links): all three unless the link's grp
// says which ('grp=2,8'; 'grp=none' for none).
export const GROUP_SIZES = Object.freeze([2, 4, 8]);
export const GROUP_PARAM = 'grp';
export function groupsDefaultState() { return [...GROUP_SIZES]; }

export function groupsToParams(groups, p) {
  const sorted = GROUP_SIZES.filter((n) => groups.includes(n));
  if (sorted.length !== GROUP_SIZES.length) p.set(GROUP_PARAM, sorted.length ? sorted.join(',') : 'none');
}

/** The link's grp into st.groups; bad(name, why) names what is ignored. */
export function groupsFromParams(p, st, bad) {
  if (!p.has(GROUP_PARAM)) return;
  const s = p.get(GROUP_PARAM);
  if (s === 'none') { st.groups = []; return; }
  const list = s.split(',').map(Number);
  if (list.length && list.every((n) => GROUP_SIZES.includes(n))) st.groups = GROUP_SIZES.filter((n) => list.includes(n));
  else bad(GROUP_PARAM, `must be some of ${GROUP_SIZES.join(', ')} (comma-separated), or none`);
}

/** Whether a profile's "interconnect" links it to other devices: the core's
 * rule (core/src/hw_blocks.c), topology "none" is one device. */
export function hasChipLinks(interconnect) { return !!interconnect && interconnect.topology !== 'none'; }

/** The settings into the share link (only what differs from one device). */
export function parallelToParams(par, p) {
  if (!par) return;
  for (const k of PARALLEL_PARAM_KEYS) if (par[k] !== PARALLEL_DEFAULTS[k]) p.set(k, String(par[k]));
}

/** The link's settings into par; bad(name, why) names what is ignored. */
export function parallelFromParams(p, par, bad) {
  for (const k of PARALLEL_PARAM_KEYS) {
    if (!p.has(k)) continue;
    const s = p.get(k);
    const n = /^\d{1,6}$/.test(s) ? Number(s) : NaN;
    if (n >= 1 && n <= PARALLEL_MAX[k]) par[k] = n; else bad(k, `must be a whole number from 1 to ${PARALLEL_MAX[k]}`);
  }
}

/** The number of devices the settings ask for. */
export function devicesOf(par) { return par ? par.tp * par.pp * par.dp : 1; }

/** The request's "parallel" object, or null for one device (no plan asked). */
export function parallelRequestMember(par) {
  if (!par || (devicesOf(par) === 1 && par.mb === 1)) return null;
  return { tp: par.tp, pp: par.pp, dp: par.dp, micro_batches: par.mb };
}

// A compared entry over several devices: 'ID@tp=T[+pp=P][+dp=D]' (the CLI's
// --compare syntax; '+' since ',' separates the entries of the link's cmp).
const DEVICE_KEYS = ['tp', 'pp', 'dp'];

/** 'tp=8+pp=2' -> {tp: 8, pp: 2}, within the core's ranges; null when it is not of that form. */
export function parseDevices(spec) {
  const out = {};
  for (const part of spec.split('+')) {
    const m = /^(tp|pp|dp)=(\d{1,6})$/.exec(part);
    if (!m || m[1] in out) return null;
    const n = Number(m[2]);
    if (!(n >= 1 && n <= PARALLEL_MAX[m[1]])) return null;
    out[m[1]] = n;
  }
  return out;
}

/** {tp: 8} -> 'tp=8' (the counts that differ from 1, tp always). */
export function devicesSpec(par) {
  return DEVICE_KEYS.filter((k) => k === 'tp' || (par[k] ?? 1) !== 1).map((k) => `${k}=${par[k] ?? 1}`).join('+');
}
