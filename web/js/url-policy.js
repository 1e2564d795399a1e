// Which model URLs the page may fetch. A share link is pasted from anywhere,
// so a model URL in it is untrusted: the page fetches it only after the user
// confirms the host (unless it is the page's own origin), and never from a
// private, loopback or link-local address, which would let a link probe the
// reader's own network, unless the page itself is served from such a machine
// (a developer running tools/serve.sh).
//
// The browser's URL parser has already normalised every spelling of an IPv4
// address (decimal 2130706433, octal 0177.0.0.1, hex 0x7f.1, short 127.1) to
// dotted decimal, and IPv6 to its compressed form, so the checks below look
// at one spelling. A public name that resolves to a private address (DNS
// rebinding) cannot be seen from a page: the confirmation names the host.

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain)$/;

function ipv4(host) {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m ? m.slice(1).map(Number) : null;
}

/** Why an IPv4 address is not public, or null. */
function privateV4([a, b]) {
  if (a === 127) return 'a loopback address';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private network address';
  if (a === 169 && b === 254) return 'a link-local address';
  if (a === 100 && b >= 64 && b <= 127) return 'a shared (carrier-grade NAT) address';
  if (a === 0) return 'a "this network" address';
  if (a >= 224) return 'a multicast or reserved address';
  return null;
}

/** The 8 groups of an IPv6 address (host without brackets), or null. */
function ipv6Groups(h) {
  if (!h.includes(':')) return null;
  let tail = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (v4) {
    const q = ipv4(v4[1]);
    if (!q) return null;
    tail = [(q[0] << 8) | q[1], (q[2] << 8) | q[3]];
    h = h.slice(0, -v4[1].length).replace(/:$/, ':0').replace(/::0$/, '::');
    if (h.endsWith(':') && !h.endsWith('::')) h = h.slice(0, -1);
  }
  const [left, right] = h.split('::');
  const part = (s) => (s ? s.split(':').filter((x) => x !== '').map((x) => parseInt(x, 16)) : []);
  const l = part(left), r = right === undefined ? [] : part(right);
  const fill = 8 - tail.length - l.length - r.length;
  const groups = h.includes('::') ? [...l, ...Array(Math.max(0, fill)).fill(0), ...r, ...tail] : [...l, ...tail];
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function privateV6(g) {
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'a loopback address';
  if (g.every((x) => x === 0)) return 'an unspecified address';
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64
  // (64:ff9b::a.b.c.d) addresses carry an IPv4 address: judge that one.
  const embedded = (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) ||
    (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0));
  if (embedded) {
    const why = privateV4([g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255]);
    if (why) return why;
  }
  if ((g[0] & 0xfe00) === 0xfc00) return 'a private network address';
  if ((g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xffc0) === 0xfec0) return 'a link-local address';
  if ((g[0] & 0xff00) === 0xff00) return 'a multicast address';
  return null;
}

/** Why a URL hostname (as URL.hostname gives it) is not a public internet
 * host, or null when it is. */
export function privateHostReason(hostname) {
  let h = String(hostname).toLowerCase().replace(/\.+$/, '');
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === '') return 'an empty host';
  const v4 = ipv4(h);
  if (v4) return privateV4(v4);
  const v6 = ipv6Groups(h);
  if (v6) return privateV6(v6);
  if (h.includes(':')) return 'an address the page cannot read';
  if (LOCAL_NAMES.test(h)) return 'a local network name';
  if (!h.includes('.')) return 'a name without a domain (an intranet name)';
  return null;
}

/** Whether the page itself runs on this machine (tools/serve.sh, tests). */
export function pageIsLocal(loc = globalThis.location) {
  const h = String(loc?.hostname || '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '[::1]';
}

/** Why the page must not fetch a model from URL `s`, or null.
 * opts.pageLocal: the page is served from this machine, so loopback and
 * private hosts (and http:// to them) are allowed. */
export function modelUrlProblem(s, { pageLocal = false } = {}) {
  if (s.length > 4096) return 'longer than 4096 characters';
  let u;
  try { u = new URL(s); } catch { return 'not a URL'; }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return `only https:// URLs can be opened, not ${u.protocol.slice(0, 16)}`;
  if (u.username || u.password) return 'a URL with a user name or password';
  const why = privateHostReason(u.hostname);
  if (why && !pageLocal) return `${u.hostname.slice(0, 64)} is ${why}; a link may only name public hosts`;
  // The CSP's connect-src allows http:// only to this machine, by these two names.
  const cspLocal = u.hostname === 'localhost' || u.hostname === '127.0.0.1';
  if (u.protocol === 'http:' && !(pageLocal && cspLocal)) return 'only https:// URLs can be opened, not http:';
  return null;
}

/** Whether fetching `s` needs the user's confirmation: any host but the page's own origin. */
export function needsConfirmation(s, loc = globalThis.location) {
  try { return new URL(s).origin !== loc.origin; } catch { return true; }
}
