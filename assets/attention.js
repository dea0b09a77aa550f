// attention.js: renderAttention(root, data, options) draws a GPT's attention on a prompt into root:
// one layer and head at a time (a picker, and a small-multiples overview of every layer x head to
// click), its weights as a heatmap (rows: query, columns: key; the masked future hatched, never in
// the weights' blue) and as lines query -> key, a colour legend, shading per row (each row / its
// own max, so long prompts stay visible) or absolute, and for the clicked query token the whole
// computation of the chosen head: q, every k, q.k, the scale, the mask, the softmax, the weighted
// sum of the values. Needs page.js (el, svg, fixed). Leaves out: anything fetched, editing.
//
// data (run/attention.h's attention_page_data writes it; every float array is a string of
// float32 little-endian values in base64):
//   checkpoint: string; n_layer, n_head, n_embd, block_size, head_size: ints (L, NH, C, the
//   context, HS)
//   scale: HS ** -0.5; tokenizer: string; ids: [T] ints; tokens: [T] strings as shown
//   weights: [L][NH] base64, the softmax rows' lower triangle: query i's keys 0..i at i*(i+1)/2
//   qkv: [L] base64, (T, 3C): q in columns [0, C), k in [C, 2C), v in [2C, 3C); head h at h*HS
// Head h's output for query i is computed here: sum_j w_j v_j (the engine's y; the test checks it).
// options (each optional): layer, head, query (ints), perRow (bool, default true), onChange(state)
// called after every pick (the CLI page keeps the state in its URL's #fragment).

const BLUE = '#1f5fbf';  // the weights' colour; the masked future is grey hatching, never blue
const LABEL = 70;        // room for the token labels, px
let attentionUid = 0;    // ids of each render's <pattern>s, unique in the document

// A base64 string of float32 little-endian values as a Float32Array.
function floats(b64) {
  const s = atob(b64), view = new DataView(new ArrayBuffer(s.length));
  for (let i = 0; i < s.length; ++i) view.setUint8(i, s.charCodeAt(i));
  const out = new Float32Array(s.length / 4);
  for (let i = 0; i < out.length; ++i) out[i] = view.getFloat32(4 * i, true);
  return out;
}

// The numbers of data, decoded once, with the accessors the drawing uses.
function model(d) {
  const T = d.ids.length, C = d.n_embd, HS = d.head_size;
  const W = d.weights.map(layer => layer.map(floats));
  const qkv = d.qkv.map(floats);
  const weight = (l, h, i, j) => (j > i ? 0 : W[l][h][i * (i + 1) / 2 + j]);
  const row = (l, h, i) => Array.from({ length: T }, (_, j) => weight(l, h, i, j));
  const part = (l, t, which, h) => {  // which: 0 q, 1 k, 2 v; head h's HS numbers of token t
    const at = t * 3 * C + which * C + h * HS;
    return Array.from(qkv[l].subarray(at, at + HS));
  };
  return { d, T, HS, weight, row, part };
}

// A weight's shade, 0..1: per row, the weight over its row's largest; else the weight itself.
function shader(m, l, h, perRow) {
  const maxes = Array.from({ length: m.T }, (_, i) => Math.max(...m.row(l, h, i)));
  const w = (i, j) => m.weight(l, h, i, j);
  return (i, j) => (perRow ? (maxes[i] > 0 ? w(i, j) / maxes[i] : 0) : w(i, j));
}

// The hatch of the masked future, defined once per render.
function hatchDefs(id) {
  const p = svg('pattern', { id, width: '6', height: '6', patternUnits: 'userSpaceOnUse',
                             patternTransform: 'rotate(45)' });
  p.append(svg('rect', { width: '6', height: '6', fill: '#f3f3f3' }),
           svg('line', { x1: '0', y1: '0', x2: '0', y2: '6', stroke: '#c4c4c4',
                         'stroke-width': '2' }));
  const s = svg('svg', { width: '0', height: '0', style: 'position:absolute' });
  s.append(svg('defs', {}, p));
  return s;
}

// The chosen head's heatmap: rows are queries, columns keys; the future hatched.
function heatmap(m, st, hatch) {
  const T = m.T, cell = Math.max(10, Math.min(24, Math.floor(560 / T)));
  const size = fixed(LABEL + T * cell, 0), shade = shader(m, st.layer, st.head, st.perRow);
  const s = svg('svg', { class: 'heatmap', width: size, height: size, role: 'img',
                         style: `font-size:${Math.min(11, cell)}px` });
  s.append(svg('text', { class: 'axis', x: '2', y: '12' }, 'query \u2193 key \u2192'));
  for (let j = 0; j < T; ++j) {  // key labels along the top, rotated
    const x = fixed(LABEL + j * cell + cell / 2 + 3, 0), y = fixed(LABEL - 4, 0);
    s.append(svg('text', { class: 'key', 'data-pos': j, x, y, transform: `rotate(-60 ${x} ${y})` },
                 m.d.tokens[j]));
  }
  for (let i = 0; i < T; ++i) {
    const g = svg('g', { class: 'row', 'data-row': i });
    g.append(svg('text', { class: 'query', 'data-pos': i, x: fixed(LABEL - 4, 0),
                           y: fixed(LABEL + i * cell + cell * 0.75, 0), 'text-anchor': 'end' },
                 m.d.tokens[i]));
    for (let j = 0; j < T; ++j) {
      const box = { x: fixed(LABEL + j * cell, 0), y: fixed(LABEL + i * cell, 0),
                    width: fixed(cell - 1, 0), height: fixed(cell - 1, 0) };
      if (j > i) {
        g.append(svg('rect', { class: 'masked', ...box, fill: `url(#${hatch})` }));
        continue;
      }
      const r = svg('rect', { class: 'cell', 'data-col': j, ...box, fill: BLUE,
                              'fill-opacity': fixed(shade(i, j), 3) });
      r.append(svg('title', {}, `query ${i} ${m.d.tokens[i]} \u2192 key ${j} ${m.d.tokens[j]}: ` +
                                `${fixed(m.weight(st.layer, st.head, i, j), 4)}`));
      g.append(r);
    }
    s.append(g);
  }
  if (st.query !== null)
    s.append(svg('rect', { class: 'row-outline', x: fixed(LABEL - 1, 0),
                           y: fixed(LABEL + st.query * cell - 1, 0), width: fixed(T * cell + 1, 0),
                           height: fixed(cell + 1, 0) }));
  return s;
}

// The chosen head's weights as lines from each query (left) to the keys it attends to (right),
// thickness and opacity by shade; the selected query's lines in orange, the rest faded.
function lines(m, st) {
  const T = m.T, rowH = T > 32 ? 13 : 18, width = 2 * LABEL + 150, top = 22;
  const shade = shader(m, st.layer, st.head, st.perRow), y = i => top + i * rowH + rowH / 2;
  const s = svg('svg', { class: 'lines', width: fixed(width, 0),
                         height: fixed(top + T * rowH + 4, 0), role: 'img' });
  const text = (x, anchor, label, attrs = {}) =>
    svg('text', { ...attrs, x: fixed(x, 0), 'text-anchor': anchor }, label);
  s.append(text(LABEL - 4, 'end', 'query', { class: 'axis', y: '12' }),
           text(width / 2, 'middle', '\u2192', { class: 'axis', y: '12' }),
           text(width - LABEL + 4, 'start', 'key', { class: 'axis', y: '12' }));
  for (let i = 0; i < T; ++i) {
    const at = { 'data-pos': i, y: fixed(y(i) + 4, 1) };
    s.append(text(LABEL - 4, 'end', `${m.d.tokens[i]} ${i}`, { class: 'query', ...at }),
             text(width - LABEL + 4, 'start', `${i} ${m.d.tokens[i]}`, { class: 'key', ...at }));
  }
  for (let i = 0; i < T; ++i)
    for (let j = 0; j <= i; ++j) {
      const v = shade(i, j);
      if (v < 0.02) continue;
      const cls = st.query === null ? 'link' : i === st.query ? 'link hi' : 'link dim';
      s.append(svg('line', { class: cls, 'data-row': i, x1: fixed(LABEL, 0), y1: fixed(y(i), 1),
                             x2: fixed(width - LABEL, 0), y2: fixed(y(j), 1),
                             'stroke-width': fixed(0.5 + 3 * v, 2),
                             'stroke-opacity': fixed(0.1 + 0.9 * v, 3) }));
    }
  return s;
}

// The colour legend: the shade scale (per row or absolute), the masked future, the selected row.
function legend(st, hatch) {
  const gid = hatch + '-scale', s = svg('svg', { width: '520', height: '46', role: 'img' });
  const grad = svg('linearGradient', { id: gid });
  grad.append(svg('stop', { offset: '0', 'stop-color': BLUE, 'stop-opacity': '0' }),
              svg('stop', { offset: '1', 'stop-color': BLUE, 'stop-opacity': '1' }));
  const swatch = (cls, x, width, fill) =>
    svg('rect', { class: cls, x, y: '4', width, height: '14', fill, stroke: '#999' });
  s.append(svg('defs', {}, grad), swatch('scale', '1', '160', `url(#${gid})`),
           svg('text', { x: '1', y: '32' }, '0'),
           svg('text', { x: '161', y: '32', 'text-anchor': 'end' },
               st.perRow ? "the row's max" : '1'),
           swatch('masked', '200', '14', `url(#${hatch})`),
           svg('text', { x: '220', y: '15' }, 'future: masked (weight 0)'),
           svg('rect', { class: 'row-outline', x: '380', y: '4', width: '14', height: '14' }),
           svg('text', { x: '400', y: '15' }, 'the clicked query'));
  return el('div', { class: 'legend' }, s, el('p', {}, st.perRow
      ? 'Per-row shading: each query row is divided by its own largest weight, so every row has ' +
        'one darkest cell however many tokens it spreads over. Hover a cell for its real weight.'
      : 'Absolute shading: the weight itself, 0 white to 1 darkest; rows that spread over many ' +
        'tokens look pale.'));
}

// Every layer x head as a small heatmap (a canvas, one pixel a cell), the chosen one framed;
// clicking one picks it.
function overview(m, st, pick) {
  const d = m.d, T = m.T, box = el('div', { class: 'overview' });
  for (let l = 0; l < d.n_layer; ++l) {
    const row = el('div', { class: 'thumb-row' },
                   el('span', { class: 'thumb-label' }, `layer ${l}`));
    for (let h = 0; h < d.n_head; ++h) {
      const c = el('canvas', { class: 'thumb', width: String(T), height: String(T), 'data-layer': l,
                               'data-head': h, title: `layer ${l}, head ${h}` });
      if (l === st.layer && h === st.head) c.classList.add('chosen');
      const g = c.getContext('2d'), shade = shader(m, l, h, st.perRow);
      for (let i = 0; i < T; ++i)
        for (let j = 0; j < T; ++j) {
          g.fillStyle = j > i ? '#e4e4e4' : `rgba(31,95,191,${shade(i, j)})`;
          g.fillRect(j, i, 1, 1);
        }
      c.addEventListener('click', () => pick({ layer: l, head: h }));
      row.append(el('figure', {}, c, el('figcaption', {}, `head ${h}`)));
    }
    box.append(row);
  }
  return box;
}

// A vector's numbers as the page shows them, 4 decimals (class: what it is, for the tests).
const vec = (x, cls) => el('div', { class: 'vec ' + cls }, x.map(v => fixed(v, 4)).join(' '));
const dot = (a, b) => a.reduce((s, v, e) => s + v * b[e], 0);

// The trace's table: a row per key j: q.k_j, times the scale, the mask, the softmax, then k_j and
// v_j in full (the table scrolls sideways).
function traceTable(m, st, s) {
  const { layer: l, head: h, query: i } = st, d = m.d;
  const head = ['key j', 'token', 'q\u00b7k_j', '\u00d7 scale', 'mask', 'softmax w_j', 'k_j',
                'v_j'];
  const t = el('table', { class: 'trace-table' }, el('tr', {}, ...head.map(x => el('th', {}, x))));
  for (let j = 0; j < m.T; ++j) {
    const future = j > i, td = (cls, text) => el('td', { class: cls }, text);
    const cells = [td('pos', String(j)), td('tok', d.tokens[j]), td('dot', fixed(s.dots[j], 4)),
                   td('scaled', fixed(s.scaled[j], 4)),
                   td('masked-score', future ? '\u2212\u221e (future)' : fixed(s.scaled[j], 4)),
                   td('weight', fixed(s.w[j], 4)), td('', vec(m.part(l, j, 1, h), 'k')),
                   td('', vec(m.part(l, j, 2, h), 'v'))];
    t.append(el('tr', { 'data-key': j, class: future ? 'future' : '' }, ...cells));
  }
  return t;
}

// For the chosen layer, head and query: q.k, scaled, masked, softmax (recomputed here, to check
// the engine's weights) and the weighted sum of the values, the head's output.
function traceNumbers(m, st) {
  const { layer: l, head: h, query: i } = st, q = m.part(l, i, 0, h);
  const dots = Array.from({ length: m.T }, (_, j) => dot(q, m.part(l, j, 1, h)));
  const scaled = dots.map(x => x * m.d.scale), past = scaled.slice(0, i + 1);
  const top = Math.max(...past), z = past.reduce((a, x) => a + Math.exp(x - top), 0);
  const w = m.row(l, h, i), again = past.map(x => Math.exp(x - top) / z);
  const sum = new Array(m.HS).fill(0);
  w.forEach((wj, j) => m.part(l, j, 2, h).forEach((v, e) => { sum[e] += wj * v; }));
  const dw = Math.max(...again.map((x, j) => Math.abs(x - w[j])));
  return { q, dots, scaled, top, z, w, sum, dw };
}

function trace(m, st) {
  const { layer: l, head: h, query: i } = st, d = m.d, HS = m.HS, C = d.n_embd;
  const s = traceNumbers(m, st), tok = `\u201c${d.tokens[i]}\u201d`;
  const cols = base => `columns ${base + h * HS}\u2013${base + h * HS + HS - 1}`;
  const sec = el('section', { class: 'trace', 'data-layer': l, 'data-head': h, 'data-query': i });
  sec.append(
    el('h3', {}, `The computation of layer ${l}, head ${h} for query ${i} ${tok}`),
    el('p', {}, `1. Its query q (head ${h}'s part of the layer's q, ${cols(0)} of c_attn's ` +
                `output; HS = ${HS}):`),
    vec(s.q, 'q'),
    el('p', {}, `2. Each token's key k_j (${cols(C)}), its dot product with q, times the scale ` +
                `HS^\u22120.5 = 1/\u221a${HS} = ${fixed(d.scale, 4)}; 3. the mask: keys ` +
                `after ${i} are the future, set to \u2212\u221e; 4. softmax over the row: w_j = ` +
                'exp(s_j \u2212 m) / \u03a3 exp(s_k \u2212 m), with m = ' +
                `${fixed(s.top, 4)} and \u03a3 = ${fixed(s.z, 4)}. (w_j is the engine's weight; ` +
                `recomputed here from q and k it differs by at most ${s.dw.toExponential(1)}.)`),
    el('div', { class: 'scroll' }, traceTable(m, st, s)),
    el('p', {}, `5. The head's output for ${tok}, the weighted sum \u03a3_j w_j v_j (values v_j: ` +
                `${cols(2 * C)}); it goes on, beside the other heads', into c_proj:`),
    vec(s.sum, 'out-sum'));
  return sec;
}

const LOOK = 'What to look for: a previous-token head has its dark cells just left of the ' +
  'diagonal (each token looks at the one before it); some heads rest on the first token or on ' +
  'spaces and newlines when nothing else matters; diffuse heads spread evenly over the past, an ' +
  'average. Click a token to trace its row: q, the keys, q\u00b7k, the scale, the mask, the ' +
  "softmax and the weighted sum of the values, with this head's own numbers.";

// The picker (layer, head), the shading toggle and the tokens to click as the query.
function controls(m, st, pick) {
  const d = m.d, choose = (name, n, value) => {
    const s = el('select', { class: name });
    for (let k = 0; k < n; ++k) s.append(el('option', { value: k }, String(k)));
    s.value = String(value);
    s.addEventListener('change', () => pick({ [name]: Number(s.value) }));
    return s;
  };
  const perRow = el('input', { type: 'checkbox', class: 'per-row' });
  perRow.checked = st.perRow;
  perRow.addEventListener('change', () => pick({ perRow: perRow.checked }));
  const tokens = el('div', { class: 'tokens' });
  d.tokens.forEach((t, i) => {
    const span = el('span', { 'data-pos': i, title: `position ${i}, id ${d.ids[i]}` }, t);
    if (i === st.query) span.classList.add('selected');
    tokens.append(span);
  });
  return [el('p', { class: 'controls' }, 'Layer ', choose('layer', d.n_layer, st.layer), ' head ',
             choose('head', d.n_head, st.head), ' ',
             el('label', {}, perRow, ' shade each row by its own max')),
          el('p', { class: 'hint' }, 'Query token (click one):'), tokens];
}

// The model's shape and how to read the grid.
function configLine(data, T) {
  return el('p', { class: 'config' },
            `${data.checkpoint}: ${data.n_layer} layers, ${data.n_head} heads, ${data.n_embd} ` +
            `wide (head size ${data.head_size}), context ${data.block_size}, tokenizer ` +
            `${data.tokenizer}; ${T} tokens. Rows: the query (the token asking); columns: the ` +
            'key (the token looked at).');
}

// Draws data into root (emptied first); returns nothing. See the top of this file.
function renderAttention(root, data, options = {}) {
  const m = model(data), hatch = `attention-hatch-${++attentionUid}`;
  const clamp = (v, n, dflt) => (Number.isInteger(v) && v >= 0 && v < n ? v : dflt);
  const st = { layer: clamp(options.layer, data.n_layer, 0),
               head: clamp(options.head, data.n_head, 0),
               query: clamp(options.query, m.T, m.T - 1), perRow: options.perRow !== false };
  const draw = () => {
    root.style.minHeight = `${root.offsetHeight}px`;  // the page keeps its height: no scroll jump
    root.replaceChildren();
    root.classList.add('attention');
    const pick = change => {
      Object.assign(st, change);
      draw();
      if (options.onChange) options.onChange({ ...st });
    };
    const panel = el('section', { class: 'panel', 'data-layer': st.layer, 'data-head': st.head });
    panel.append(el('h3', {}, `layer ${st.layer}, head ${st.head}`), heatmap(m, st, hatch),
                 lines(m, st));
    const all = el('div', { class: 'all' },
                   el('p', { class: 'hint' }, 'All layers \u00d7 heads (click one):'),
                   overview(m, st, pick));
    const top = el('div', { class: 'top' },
                   el('div', {}, el('p', { class: 'look' }, LOOK), ...controls(m, st, pick),
                      legend(st, hatch)),
                   all);
    root.append(hatchDefs(hatch), configLine(data, m.T), top, panel, trace(m, st));
    root.style.minHeight = '';
    root.querySelectorAll('[data-pos]').forEach(e =>
      e.addEventListener('click', () => pick({ query: Number(e.dataset.pos) })));
  };
  draw();
}

// The CLI's page (scratchgpt attention): its data island, the pick kept in the URL's #fragment
// (#layer=1&head=2&query=5&scale=abs), so a link reproduces a view.
if (document.getElementById('attention-data') && document.getElementById('attention')) {
  const hash = new URLSearchParams(location.hash.slice(1));
  const int = k => (hash.has(k) ? Number(hash.get(k)) : undefined);
  const keep = s => history.replaceState(
      null, '', `#layer=${s.layer}&head=${s.head}&query=${s.query}${s.perRow ? '' : '&scale=abs'}`);
  renderAttention(document.getElementById('attention'),
                  JSON.parse(document.getElementById('attention-data').textContent),
                  { layer: int('layer'), head: int('head'), query: int('query'),
                    perRow: hash.get('scale') !== 'abs', onChange: keep });
}
