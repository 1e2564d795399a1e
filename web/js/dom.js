// The page's one DOM helper. Every string from a model, a profile or a link
// reaches the page through textContent or setAttribute, never as HTML.

export const $ = (id) => document.getElementById(id);

/** A new element: el('td', 'text', {class: 'n'}). `text` null/undefined = none. */
export function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  return e;
}
