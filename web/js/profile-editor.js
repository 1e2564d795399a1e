// Hardware profile editor: a form with one field per figure of the profile
// (every {"value": number} leaf and plain number, plus id and name) beside
// the whole profile as JSON text. Every change is validated by the core
// (rl_check_hardware in the worker) before it is applied, so the page never
// analyses with a profile the CLI would refuse; the applied profile becomes
// the state's custom profile (it travels in the share link) and can be
// downloaded as a JSON file usable with the CLI's --hw FILE.
import { download } from './export.js';
import { el } from './dom.js';
import { plain } from './format.js';

// The unit a field is edited in, by key name (the profile itself is in SI
// units, hw/README.md): [pattern, unit shown, SI value of one unit].
const UNITS = [
  [/_Bps$/, 'GB/s', 1e9], [/^bandwidth/, 'GB/s', 1e9], [/_bytes$/, 'GB', 1e9], [/_hz$/, 'GHz', 1e9], [/_s$/, 'µs', 1e-6],
  [/^flop_j$/, 'pJ/FLOP', 1e-12], [/^byte_j$/, 'pJ/B', 1e-12], [/_w$/, 'W', 1], [/^(matrix|vector)$/, 'TFLOP/s', 1e12],
];
const unitOf = (key) => {
  const u = UNITS.find(([re]) => re.test(key));
  return u ? { unit: u[1], scale: u[2] } : { unit: '', scale: 1 };
};
/** A value in its display unit, without binary noise (14.700000000000001). */
const shown = (v, scale) => plain(v / scale);

/** The profile as it is exported (link, download): without the catalogue's
 * free-text notes, which describe the original device, not the edit. */
export function exportable(obj) {
  const { notes: _notes, ...rest } = obj;
  return rest;
}

/** The editable number leaves of a profile: [{path: [keys], value, unit}]. */
export function profileFields(obj) {
  const out = [];
  const walk = (v, path) => {
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'number' && path.length) out.push({ path, value: v, ...unitOf(String(path.at(-1))) });
      return;
    }
    if (!Array.isArray(v) && typeof v.value === 'number') {
      out.push({ path: [...path, 'value'], value: v.value, ...unitOf(String(path.at(-1))), kind: v.kind, source: v.source });
      return;
    }
    for (const [k, x] of Object.entries(v)) walk(x, [...path, Array.isArray(v) ? Number(k) : k]);
  };
  walk(obj, []);
  return out.filter((f) => f.path[0] !== 'schema');
}

function setPath(obj, path, value) {
  let o = obj;
  for (const k of path.slice(0, -1)) o = o[k];
  o[path.at(-1)] = value;
}

/** A human label of a field path without its first `skip` parts; list
 * items are named (memory[0] by the level's name). */
function labelOf(obj, path, skip = 0) {
  const parts = [];
  let o = obj;
  for (const k of path) {
    if (k === 'value') break;
    if (typeof k === 'number') {
      const item = o[k];
      parts.push(item?.name || item?.id || `#${k + 1}`);
    } else if (k !== 'overrides') parts.push(String(k).replace(/_(Bps|bytes|hz|s|w)$/, ''));   // the unit stands beside the field
    // a matrix peak the profile gives at one of two rates says which ("fp16 › matrix, FP32 accumulate")
    if (k === 'matrix' && typeof o?.accumulate === 'string') parts[parts.length - 1] += `, ${o.accumulate.toUpperCase()} accumulate`;
    o = o?.[k];
  }
  return parts.slice(skip).join(' › ').replace(/_/g, ' ');
}

const pathKey = (path) => path.join('.');

export class ProfileEditor {
  /**
   * @param {HTMLElement} root the editor's <details>
   * @param {object} host the page's host (host.js): client, catalog, state(), applyProfile(profile), showError(err, context)
   */
  constructor(root, host) {
    this.root = root;
    this.h = host;
    this.obj = null;
    this.checkSeq = 0;
    this.q = (sel) => root.querySelector(sel);
    this.wire();
  }

  wire() {
    this.root.addEventListener('toggle', () => { if (this.root.open && !this.obj) this.prefill(); });
    this.q('#profile-form').addEventListener('change', (ev) => this.onField(ev.target));
    this.q('#custom-apply').addEventListener('click', () => this.applyText());
    this.q('#custom-json').addEventListener('input', () => {
      clearTimeout(this.typing);
      this.typing = setTimeout(() => this.checkText(), 400);
    });
    this.q('#profile-download').addEventListener('click', () => {
      if (!this.obj) return;
      const name = String(this.obj.id || 'profile').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64);
      download(`${name}.json`, JSON.stringify(exportable(this.obj), null, 2) + '\n', 'application/json');
    });
    this.q('#profile-reset').addEventListener('click', () => this.prefill(true));
  }

  status(text, bad = false) {
    const s = this.q('#profile-status');
    s.textContent = text;
    s.classList.toggle('bad', bad);
    s.dataset.valid = bad ? '0' : '1';
  }

  /** Loads the current profile (the edited one, or the chosen device's as
   * a copy named <id>-custom). `fresh`: start again from the device. */
  async prefill(fresh = false) {
    const st = this.h.state();
    let p;
    try {
      if (st.hw === 'custom' && st.custom && !fresh) p = st.custom;
      else {
        let id = st.hw;
        if (id === 'custom') {
          const base = String(st.custom?.id || '').replace(/-custom$/, '');
          id = this.h.catalog.byId.has(base) ? base : this.h.catalog.list[0]?.id;
        }
        const dev = await this.h.catalog.profile(id);
        p = { ...exportable(structuredClone(dev)), id: `${dev.id}-custom`, name: `${dev.name} (edited)` };
      }
    } catch (e) { this.h.showError(e, 'Could not load the profile'); return; }
    this.load(p);
    this.status(st.hw === 'custom' && !fresh ? 'Showing the edited profile in use.' : 'A copy of the chosen device: change a figure to apply it.');
  }

  load(p) {
    this.obj = structuredClone(p);
    this.q('#custom-json').value = JSON.stringify(this.obj, null, 2);
    this.renderForm();
  }

  renderForm() {
    const form = this.q('#profile-form');
    form.textContent = '';
    const obj = this.obj;
    const head = el('fieldset');
    head.appendChild(el('legend', 'Profile'));
    for (const k of ['id', 'name']) {
      const l = el('label');
      l.appendChild(el('span', k, { class: 'pf-name' }));
      const i = el('input', null, { type: 'text', 'data-path': k, 'data-testid': `pf-${k}`, maxlength: '200' });
      i.value = String(obj[k] ?? '');
      l.appendChild(i);
      head.appendChild(l);
    }
    form.appendChild(head);
    // Top-level figures (clock, launch overhead) join id and name.
    const groups = new Map([['profile', []]]);
    for (const f of profileFields(obj)) {
      const top = f.path.length <= 2 ? 'profile' : String(f.path[0]);
      const g = top === 'power_modes' ? `power mode ${obj.power_modes[f.path[1]]?.id ?? f.path[1]}` : top;
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(f);
    }
    for (const [g, fields] of groups) {
      let fs = head;
      if (g !== 'profile') {
        fs = el('fieldset');
        fs.appendChild(el('legend', g.replace(/_/g, ' ')));
      }
      for (const f of fields) {
        const key = pathKey(f.path);
        const name = labelOf(obj, f.path, g === 'profile' ? 0 : g.startsWith('power mode') ? 2 : 1) || g;
        const l = el('label', null, { title: [f.kind, f.source].filter(Boolean).join(': ') });
        l.appendChild(el('span', name, { class: 'pf-name' }));
        const i = el('input', null, { type: 'text', inputmode: 'decimal', 'data-path': key, 'data-testid': `pf-${key}`, spellcheck: 'false',
          'data-scale': String(f.scale), 'data-label': `${g === 'profile' ? '' : g.replace(/_/g, ' ') + ' › '}${name}`, 'aria-describedby': `pf-err-${key}` });
        i.value = shown(f.value, f.scale);
        l.appendChild(i);
        l.appendChild(el('span', f.unit, { class: 'pf-unit' }));
        l.appendChild(el('span', null, { class: 'pf-error', id: `pf-err-${key}`, role: 'status' }));
        fs.appendChild(l);
      }
      if (fs !== head) form.appendChild(fs);
    }
  }

  /** Marks a field invalid with a message naming it, or clears the mark. */
  mark(input, message) {
    const err = this.root.querySelector(`#${CSS.escape(`pf-err-${input.dataset.path}`)}`);
    if (message) {
      input.setAttribute('aria-invalid', 'true');
      if (err) err.textContent = message;
      this.status(message, true);
    } else {
      input.removeAttribute('aria-invalid');
      if (err) err.textContent = '';
    }
  }

  async onField(input) {
    const key = input.dataset.path;
    if (!key || !this.obj) return;
    const label = input.dataset.label || key;
    const next = structuredClone(this.obj);
    if (key === 'id' || key === 'name') next[key] = input.value;
    else {
      const path = key.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));
      const text = input.value.trim().replace(/,/g, '.');
      const v = Number(text) * Number(input.dataset.scale || 1);
      if (text === '' || !Number.isFinite(v)) {
        this.mark(input, `${label}: “${input.value}” is not a number (write e.g. 1.5).`);
        return;
      }
      setPath(next, path, v);
      // The figure is no longer the catalogue's: say so in its provenance.
      const leaf = path.at(-1) === 'value' ? path.slice(0, -1) : null;
      if (leaf) {
        let o = next;
        for (const k of leaf) o = o[k];
        if (o && typeof o === 'object') { o.kind = 'estimated'; o.source = 'edited in the rooflens page'; }
      }
    }
    const err = await this.apply(next, label);
    this.mark(input, err ? `${label}: ${err}` : null);
  }

  /** Asks the core whether a profile is valid: null if so, else the error. */
  async check(obj) {
    const { promise } = this.h.client.send({ type: 'check-hardware', profile: JSON.stringify(obj) });
    const msg = await promise;
    const res = JSON.parse(msg.json);
    return res.ok ? null : res.error;
  }

  async checkText() {
    let obj;
    try { obj = JSON.parse(this.q('#custom-json').value); } catch (e) { this.status(`Not valid JSON: ${e.message}`, true); return null; }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) { this.status('The profile must be a JSON object.', true); return null; }
    const seq = ++this.checkSeq;
    let err;
    try { err = await this.check(obj); } catch (e) { err = e.core || { message: e.message, code: 'internal' }; }
    if (seq !== this.checkSeq) return null;
    if (err) { this.status(`The core refuses this profile: ${err.message}${err.where ? ' at ' + err.where : ''}`, true); return null; }
    this.status('Valid profile: “Apply edited profile” to use it.');
    return obj;
  }

  async applyText() {
    const obj = await this.checkText();
    if (!obj) return;
    this.obj = structuredClone(obj);
    this.renderForm();
    this.h.applyProfile(structuredClone(exportable(obj)));
    this.status(`Applied: ${obj.name || obj.id}.`);
  }

  /** Validates and applies; the form and text follow. Returns null on
   * success, else why the core refused the change. */
  async apply(next, label = '') {
    const seq = ++this.checkSeq;
    let err;
    try { err = await this.check(next); } catch (e) { err = e.core || { message: e.message, code: 'internal' }; }
    if (seq !== this.checkSeq) return 'superseded by a newer change';
    if (err) {
      const why = `the core refuses this value: ${err.message}`;
      this.status(`${label ? label + ': ' : ''}${why}`, true);
      return why;
    }
    this.obj = next;
    this.q('#custom-json').value = JSON.stringify(next, null, 2);
    this.h.applyProfile(structuredClone(next));
    this.status(`Applied: ${next.name || next.id}.`);
    return null;
  }
}
