// attention.js: draws 'scratchgpt attention's page from its data island (run/attention.cpp): the
// prompt's tokens, then per layer and head a heatmap (rows: queries, columns: keys, the future
// hatched) and the same weights as lines from each query to the keys it attends to; hovering or
// clicking a token follows its row. Needs page.js. Leaves out: anything fetched.

const CELL = 22;   // heatmap cell, px
const LABEL = 70;  // room for the token labels, px

// One panel's heatmap: rows are queries, columns keys; the future is masked.
function heatmap(w, T, labels) {
  const size = fixed(LABEL + T * CELL, 0);
  const s = svg('svg', { class: 'heatmap', width: size, height: size, role: 'img' });
  for (let j = 0; j < T; ++j) {  // key labels along the top, rotated
    const x = fixed(LABEL + j * CELL + Math.trunc(CELL / 2), 0), y = fixed(LABEL - 4, 0);
    s.append(svg('text', { class: 'key', 'data-pos': j, x, y,
                           transform: `rotate(-60 ${x} ${y})` }, labels[j]));
  }
  for (let i = 0; i < T; ++i) {
    const g = svg('g', { class: 'row', 'data-row': i });
    g.append(svg('text', { class: 'query', 'data-pos': i, x: fixed(LABEL - 4, 0),
                           y: fixed(LABEL + i * CELL + CELL * 0.7, 0), 'text-anchor': 'end' },
                 labels[i]));
    for (let j = 0; j < T; ++j) {
      const box = { x: fixed(LABEL + j * CELL, 0), y: fixed(LABEL + i * CELL, 0),
                    width: fixed(CELL - 1, 0), height: fixed(CELL - 1, 0) };
      if (j > i) {
        g.append(svg('rect', { class: 'masked', ...box }));
      } else {
        const v = w[i * T + j];
        const r = svg('rect', { class: 'cell', ...box, 'fill-opacity': fixed(Math.max(0.03, v), 4) });
        r.append(svg('title', {}, `${labels[i]} \u2192 ${labels[j]}: ${fixed(v, 4)}`));
        g.append(r);
      }
    }
    s.append(g);
  }
  return s;
}

// The same weights as lines from each query (left) to the keys it attends to (right).
function lines(w, T, labels) {
  const row = 18, width = 2 * LABEL + 160, height = T * row + 8;
  const s = svg('svg', { class: 'lines', width: fixed(width, 0), height: fixed(height, 0), role: 'img' });
  for (let i = 0; i < T; ++i) {
    const y = fixed(4 + i * row + row / 2 + 4, 1);
    s.append(svg('text', { class: 'query', 'data-pos': i, x: fixed(LABEL - 4, 0), y,
                           'text-anchor': 'end' }, labels[i]));
    s.append(svg('text', { class: 'key', 'data-pos': i, x: fixed(width - LABEL + 4, 0), y },
                 labels[i]));
  }
  for (let i = 0; i < T; ++i)
    for (let j = 0; j <= i; ++j) {
      const v = w[i * T + j];
      if (v < 0.01) continue;
      s.append(svg('line', { 'data-row': i, x1: fixed(LABEL, 0), y1: fixed(4 + i * row + row / 2, 1),
                             x2: fixed(width - LABEL, 0), y2: fixed(4 + j * row + row / 2, 1),
                             'stroke-width': fixed(0.5 + 4 * v, 2),
                             'stroke-opacity': fixed(0.15 + 0.85 * v, 3) }));
    }
  return s;
}

function draw(d) {
  const T = d.ids.length, labels = d.tokens;
  document.body.className = 'view-both';
  document.querySelector('h1').append(' ' + d.checkpoint);
  document.querySelector('p.config').prepend(
      `${d.n_layer} layers, ${d.n_head} heads, ${d.n_embd} wide, context ${d.block_size}, ` +
      `tokenizer ${d.tokenizer}. `);
  const tokens = document.querySelector('div.tokens');
  for (let t = 0; t < T; ++t)
    tokens.append(el('span', { 'data-pos': t, title: `id ${d.ids[t]}` }, labels[t]));
  const grid = document.querySelector('div.grid');
  d.weights.forEach((layer, l) => layer.forEach((w, h) => {
    const panel = el('section', { class: 'panel', 'data-layer': l, 'data-head': h });
    panel.append(el('h3', {}, `layer ${l}, head ${h}`), heatmap(w, T, labels), lines(w, T, labels));
    grid.append(panel, '\n');
  }));
}

function select(pos) {
  document.querySelectorAll('.selected').forEach(e => e.classList.remove('selected'));
  document.querySelectorAll('g.row, line').forEach(e => {
    e.classList.remove('hi', 'dim');
    if (pos === null) return;
    e.classList.add(e.dataset.row == pos ? 'hi' : 'dim');
  });
  if (pos === null) return;
  document.querySelectorAll('[data-pos="' + pos + '"]').forEach(e => e.classList.add('selected'));
}

draw(JSON.parse(document.getElementById('attention-data').textContent));
let pinned = null;
document.querySelectorAll('[data-pos]').forEach(e => {
  e.addEventListener('mouseenter', () => { if (pinned === null) select(e.dataset.pos); });
  e.addEventListener('mouseleave', () => { if (pinned === null) select(null); });
  e.addEventListener('click', () => { pinned = pinned === e.dataset.pos ? null : e.dataset.pos; select(pinned); });
});
document.querySelectorAll('input[name=view]').forEach(r => r.addEventListener('change', () => {
  document.body.className = 'view-' + r.value;
}));
