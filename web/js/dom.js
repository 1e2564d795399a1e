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

/** A menu whose choice opens something only once confirmed: with Enter in
 * the menu or a click on `button` (enabled while a choice is made). A
 * closed <select> changes on every arrow key, so acting on `change` would
 * act on the first item the keyboard passes and leave the others out of
 * reach. `open(value)` is called with the choice; the menu then goes back
 * to its first, empty item. */
export function confirmChoice(menu, button, open) {
  const confirm = () => {
    const value = menu.value;
    if (!value) return;
    menu.value = '';
    button.disabled = true;
    open(value);
  };
  button.disabled = !menu.value;
  menu.addEventListener('change', () => { button.disabled = !menu.value; });
  menu.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    ev.preventDefault();
    confirm();
  });
  button.addEventListener('click', confirm);
}
