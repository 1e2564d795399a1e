// Number formatting: engineering units for display, exact values for titles,
// shares, ratios and changes. Every number the page writes goes through this
// file (the one JS formatter; the core's rl_json_add_num writes the figures).

const PREFIX = [
  [1e18, 'E'], [1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'],
  [1, ''], [1e-3, 'm'], [1e-6, 'µ'], [1e-9, 'n'], [1e-12, 'p'], [1e-15, 'f'],
];

const SUBUNIT = new Set(['s', 'J', 'W', 'B/s', 'FLOP/s', 'FLOP/J']);

/** 1234567, 'FLOP' -> '1.23 MFLOP'. Non-finite or null -> '–'. */
export function eng(v, unit = '', digits = 3) {
  if (v === null || v === undefined || typeof v !== 'number' || !Number.isFinite(v)) return '–';
  if (v === 0) return unit ? `0 ${unit}` : '0';
  const a = Math.abs(v);
  // Sub-unit prefixes only for physical units (ms, µJ); 0.405 FLOP/B stays so.
  if (a < 1 && a >= 1e-3 && !SUBUNIT.has(unit)) return `${Number(v.toPrecision(digits))}${unit ? ' ' + unit : ''}`;
  let [scale, p] = PREFIX[PREFIX.length - 1];
  for (const [s, q] of PREFIX) if (a >= s * 0.9995) { scale = s; p = q; break; }
  if (a >= 1e21) { scale = 1; p = ''; return `${v.toExponential(2)}${unit ? ' ' + unit : ''}`; }
  const x = v / scale;
  const s = Number(x.toPrecision(digits)).toString();
  return unit || p ? `${s} ${p}${unit}` : s;
}

/** 1234567 -> '1,234,567' (toLocaleString is slow in hot table rendering). */
function group(v) {
  const s = String(Math.abs(v));
  return (v < 0 ? '-' : '') + (/e/.test(s) ? s : s.replace(/\B(?=(\d{3})+(?!\d))/g, ','));
}

/** The value for a tooltip (a title attribute): integers in full, other
 * numbers to 6 significant digits (357.697 W, not 357.69672681546064 W). */
export function exact(v, unit = '') {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'number') return String(v);
  const s = Number.isInteger(v) && Math.abs(v) < 1e21 ? group(v) : String(Number(v.toPrecision(6)));
  return unit ? `${s} ${unit}` : s;
}

/** Integer count with thousands separators. */
export function count(v) { return typeof v === 'number' ? (Number.isInteger(v) ? group(v) : String(v)) : '–'; }

/** A share: 0.1234 -> '12.3 %' (one more place under 10 %); `places`
 * decimals at or above 10 % (0 for a terse column). Non-finite -> '–'. */
export function pct(x, places = 1) {
  return Number.isFinite(x) ? `${(x * 100).toFixed(x < 0.1 ? places + 1 : places)} %` : '–';
}

/** A relative change with its sign, 3 significant digits, never in
 * exponent form: 0.0981 -> '+9.81 %', -0.5 -> '−50.0 %', 15 -> '+1,500 %'. */
export function signedPct(ratio) {
  if (!Number.isFinite(ratio)) return '–';
  const a = Math.abs(100 * ratio);
  const s = a >= 1000 ? group(Number(a.toPrecision(3))) : a.toPrecision(3);
  return `${ratio > 0 ? '+' : '−'}${s} %`;
}

/** How far a read has got, in whole per cent (never over 100). */
export function progressPct(offset, total) {
  return `${Math.floor(100 * Math.min(offset, total) / total)} %`;
}

/** A ratio of two times: 1.2345 -> '1.23×'. Non-finite -> '–×'. */
export function times(x) {
  return `${Number.isFinite(x) ? x.toPrecision(3) : '–'}×`;
}

/** A value in an editable field, without binary noise: 14.700000000000001 -> '14.7'. */
export function plain(v) {
  return String(Number(v.toPrecision(12)));
}

/** A tensor list [{name, dtype, shape}] as "f32[1,3,224,224], ...". */
export function shapes(list) {
  if (!Array.isArray(list)) return '';
  return list.map((t) => `${t.dtype ?? '?'}${t.shape ? '[' + t.shape.map((d) => d ?? '?').join(',') + ']' : '[?]'}`).join(', ');
}

export function bytesSize(n) { return eng(n, 'B'); }
