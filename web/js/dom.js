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

/** A wide table that a phone shows as one card per row (style.css,
 * table.stack-narrow): each cell is given its column's name to show above
 * its figure, so no figure sits past the screen's edge. A browser drops a
 * table's semantics once CSS no longer displays it as a table, so the
 * table, its row groups, rows, headers and cells say their roles
 * themselves: a screen reader still reads each figure with its column's
 * header. Call once the table is filled. */
export function stackOnNarrow(table) {
  table.classList.add('stack-narrow');
  table.setAttribute('role', 'table');
  const heads = [...(table.tHead?.rows[0]?.cells || [])].map((th) => th.textContent);
  for (const group of [table.tHead, ...table.tBodies]) group?.setAttribute('role', 'rowgroup');
  for (const tr of table.rows) {
    tr.setAttribute('role', 'row');
    let column = 0;
    for (const cell of tr.cells) {
      if (cell.tagName === 'TH') cell.setAttribute('role', tr.parentElement === table.tHead ? 'columnheader' : 'rowheader');
      else {
        cell.setAttribute('role', 'cell');
        // a cell over several columns (an error across the row) names none of them
        cell.dataset.label = cell.colSpan > 1 ? '' : heads[column] ?? '';
      }
      column += cell.colSpan;
    }
  }
}
