// report.js: draws 'scratchgpt report's page from its data island (run/report.cpp): a table row
// per run, and into each <svg data-chart> of the page its series as one <path data-run="R"
// data-series="NAME"> per run, a point per logged line, over shared axes (five ticks each; the
// loss-log chart on log10 of y). Needs page.js. Leaves out: anything fetched.

const COLOURS = ['#1f5fbf', '#d9480f', '#2b8a3e', '#862e9c', '#c92a2a', '#0b7285'];
const CONFIG_KEYS = ['preset', 'n_layer', 'n_head', 'n_embd', 'block_size', 'batch_size',
                     'grad_accum', 'lr', 'dropout', 'max_iters', 'seed'];
// Each chart's series; val_loss (one point per evaluation) is drawn thick.
const SERIES = { 'loss': ['train_loss', 'val_loss'], 'loss-log': ['train_loss', 'val_loss'],
                 'lr': ['lr'], 'grad_norm': ['grad_norm'], 'tokens_per_s': ['tokens_per_s'] };
const num = v => general(v, 4);
const min = (a, b) => (b < a ? b : a), max = (a, b) => (a < b ? b : a);  // as std::min, std::max
const cRound = v => Math.sign(v) * Math.round(Math.abs(v));               // as std::round

// The axes and the lines ({run, name, pts: [[step, value]]}) of one chart; logY draws log10(y)
// (y > 0 only).
function drawChart(s, lines, logY) {
  const W = 540, H = 260, left = 78, right = 12, top = 28, bottom = 36;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  const fy = y => (logY ? Math.log10(y) : y);
  for (const l of lines)
    for (const [x, y] of l.pts) {
      if (logY && !(y > 0)) continue;
      x0 = min(x0, x), x1 = max(x1, x), y0 = min(y0, fy(y)), y1 = max(y1, fy(y));
    }
  if (!(x0 <= x1)) return s.append(svg('text', { x: '60', y: '120' }, 'no data'));
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) y0 -= 0.5, y1 += 0.5;
  const pad = (y1 - y0) * 0.05;
  y0 -= pad, y1 += pad;
  const px = x => left + (x - x0) / (x1 - x0) * (W - left - right);
  const py = y => top + (y1 - fy(y)) / (y1 - y0) * (H - top - bottom);
  s.append(svg('rect', { class: 'frame', x: num(left), y: num(top), width: num(W - left - right),
                         height: num(H - top - bottom) }));
  for (let k = 0; k <= 4; ++k) {  // five ticks on each axis
    const xv = x0 + (x1 - x0) * k / 4, yv = y0 + (y1 - y0) * k / 4;
    const X = px(xv), Y = top + (y1 - yv) / (y1 - y0) * (H - top - bottom);
    s.append(svg('text', { class: 'tick', x: num(X), y: num(H - bottom + 14), 'text-anchor': 'middle' },
                 num(cRound(xv))),
             svg('text', { class: 'tick', x: num(left - 4), y: num(Y + 4), 'text-anchor': 'end' },
                 num(logY ? 10 ** yv : yv)),
             svg('line', { class: 'grid', x1: num(left), x2: num(W - right), y1: num(Y), y2: num(Y) }));
  }
  s.append(svg('text', { class: 'tick', x: num(W - right), y: num(H - 4), 'text-anchor': 'end' }, 'step'));
  for (const l of lines) {
    let d = '';
    for (const [x, y] of l.pts) {
      if (logY && !(y > 0)) continue;
      d += (d === '' ? 'M' : ' L') + num(px(x)) + ' ' + num(py(y));
    }
    const width = l.name === 'val_loss' ? { 'stroke-width': '2.2' }
                                        : { 'stroke-width': '1', 'stroke-opacity': '0.7' };
    const path = svg('path', { 'data-run': l.run, 'data-series': l.name, fill: 'none',
                               stroke: COLOURS[l.run % 6], ...width, d });
    path.append(svg('title', {}, l.name));
    s.append(path);
  }
}

// "preset \"shakespeare-char\", n_layer 6, ...": the config's keys that say what the run was.
function configText(config) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return '(no checkpoint)';
  let text = '';
  for (const key of CONFIG_KEYS)
    if (Object.hasOwn(config, key)) {
      const v = config[key];
      text += (text ? ', ' : '') + key + ' ' + (typeof v === 'number' ? num(v) : JSON.stringify(v));
    }
  return text;
}

function draw(d) {
  const table = document.querySelector('table tbody');
  d.runs.forEach((r, i) => {
    const swatch = el('span', { class: 'swatch', style: 'background:' + COLOURS[i % 6] });
    table.append(el('tr', { 'data-run': i }, el('td', {}, swatch, r.dir), el('td', {}, String(r.steps)),
                    el('td', {}, r.best_val === null ? '-' : num(r.best_val)),
                    el('td', {}, configText(r.config))),
                 '\n');
  });
  document.querySelectorAll('svg[data-chart]').forEach(s => {
    const lines = [];
    d.runs.forEach((r, run) => SERIES[s.dataset.chart].forEach(name =>
      lines.push({ run, name, pts: r.series[name] })));
    drawChart(s, lines, s.classList.contains('log'));
  });
}

draw(JSON.parse(document.getElementById('report-data').textContent));
document.getElementById('log').addEventListener('change', e =>
  document.body.classList.toggle('log', e.target.checked));
