#!/usr/bin/env node
// Renders one of the project's generated Markdown documents (docs/operators.md,
// docs/conformance.md) as a static HTML page for the site. Only the subset
// those generators write is understood: headings, paragraphs, indented code,
// tables, **bold**, `code` and [links](url). All text is escaped.
//   node tools/make-docs/md-to-html.mjs IN.md OUT.html "Page title"
import { readFileSync, writeFileSync } from 'node:fs';

const [src, dst, title = 'rooflens'] = process.argv.slice(2);
if (!src || !dst) { console.error('usage: tools/make-docs/md-to-html.mjs IN.md OUT.html [TITLE]'); process.exit(2); }

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
function inline(text) {
  // Split on code spans first so their contents stay literal.
  return text.split(/(`[^`]*`)/).map((part) => {
    if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return `<code>${esc(part.slice(1, -1))}</code>`;
    let h = esc(part).replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>').replace(/\*([^*]+)\*/g, '<em>$1</em>');
    // Only relative links and http(s) survive.
    h = h.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (m, label, url) => {
      if (!/^(https?:|[\w./#-]+$)/.test(url)) return label;
      // The documents rendered beside this one link to each other as .html.
      const sib = /(?:^|\/)(operators|conformance|validation)\.md(#.*)?$/.exec(url);
      return `<a href="${sib ? sib[1] + '.html' + (sib[2] || '') : url}">${label}</a>`;
    });
    return h;
  }).join('');
}
const cells = (line) => line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

const lines = readFileSync(src, 'utf8').split('\n');
const out = [];
for (let i = 0; i < lines.length;) {
  const line = lines[i];
  if (!line.trim()) { i++; continue; }
  const h = /^(#{1,4})\s+(.*)$/.exec(line);
  // an id as GitHub makes it, so that a link to a heading (the page's track
  // record: validation.html#track-record-...) lands on it
  const slug = (t) => t.toLowerCase().replace(/[^\w\s-]/g, '').trim().replace(/\s/g, '-');
  if (h) { out.push(`<h${h[1].length} id="${esc(slug(h[2]))}">${inline(h[2])}</h${h[1].length}>`); i++; continue; }
  if (line.startsWith('    ')) {
    const code = [];
    while (i < lines.length && (lines[i].startsWith('    ') || !lines[i].trim())) code.push(lines[i++].slice(4));
    out.push(`<pre><code>${esc(code.join('\n').trimEnd())}</code></pre>`);
    continue;
  }
  if (line.startsWith('|') && /^\|[\s|:-]+\|$/.test((lines[i + 1] || '').trim())) {
    const head = cells(line);
    i += 2;
    const rows = [];
    while (i < lines.length && lines[i].startsWith('|')) rows.push(cells(lines[i++]));
    out.push('<table><thead><tr>' + head.map((c) => `<th>${inline(c)}</th>`).join('') + '</tr></thead><tbody>' +
      rows.map((r) => '<tr>' + r.map((c) => `<td>${inline(c)}</td>`).join('') + '</tr>').join('\n') + '</tbody></table>');
    continue;
  }
  const para = [];
  while (i < lines.length && lines[i].trim() && !/^(#|\||    )/.test(lines[i])) para.push(lines[i++]);
  if (para.length) out.push(`<p>${inline(para.join(' '))}</p>`);
  else out.push(`<p>${inline(lines[i++])}</p>`);
}

writeFileSync(dst, `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'">
<title>${esc(title)} — rooflens</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="css/style.css">
</head>
<body class="doc">
<header><p><a href="./">← rooflens</a></p></header>
<main>
${out.join('\n')}
</main>
</body>
</html>
`);
