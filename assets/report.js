// report.js: draws 'scratchgpt report's page from its data island (run/report.cpp): a table row
// per run, and into each <svg data-chart> of the page its series as one <path data-run="R"
// data-series="NAME"> per run, a point per logged line (val loss also a <circle class="marker">
// at each evaluation), over shared axes with ticks at round values (1, 2, 5 x 10^k; the loss-log
// chart on log10 of y; an axis of values that are never negative starts at 0 at most). Needs page.js. Leaves out: anything fetched.

const COLOURS = ['#1f5fbf', '#d9480f', '#2b8a3e', '#862e9c', '#c92a2a', '#0b7285'];
const CONFIG_KEYS = ['preset', 'n_layer', 'n_head', 'n_embd', 'block_size', 'batch_size',
                     'grad_accum', 'lr', 'dropout', 'max_iters', 'seed'];
// Each chart's series; val_loss (one point per evaluation) is drawn thick.
const SERIES = { 'loss': ['train_loss', 'val_loss'], 'loss-log': ['train_loss', 'val_loss'],
                 'lr': ['lr'], 'grad_norm': ['grad_norm'], 'tokens_per_s': ['tokens_per_s'] };
const num = v => general(v, 4);
const tick = v => general(v, 6);  // a round value in full: 10000, not 1e+04
const min = (a, b) => (b < a ? b : a), max = (a, b) => (a < b ? b : a);  // as std::min, std::max

// Ticks at round values: the multiples of a step 1, 2 or 5 x 10^k that fall in [lo, hi], the
// step the smallest giving at most `most` of them.
function niceTicks(lo, hi, most) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  let step = 10 ** Math.floor(Math.log10(span / most));
  for (const f of [1, 2, 5, 10]) if (span / (f * step) <= most) { step *= f; break; }
  const ticks = [];
  for (let k = Math.ceil(lo / step); k * step <= hi + step * 1e-9; ++k) ticks.push(k * step);
  return ticks;
}

// Ticks of a log axis over [10^lo, 10^hi] (lo, hi in log10): 1-2-5 of each decade when the range
// spans one or more (only the powers of ten when that is too many), else round values between.
function logTicks(lo, hi) {
  if (hi - lo < 1) return niceTicks(10 ** lo, 10 ** hi, 5);
  const each = hi - lo > 3 ? [1] : [1, 2, 5], ticks = [];
  for (let k = Math.floor(lo); k <= Math.ceil(hi); ++k)
    for (const f of each) {
      const v = f * 10 ** k;
      if (Math.log10(v) >= lo && Math.log10(v) <= hi) ticks.push(v);
    }
  return ticks;
}

// The data's range over a chart's lines; null when there is none.
function extent(lines, fy, logY) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const l of lines)
    for (const [x, y] of l.pts) {
      if (logY && !(y > 0)) continue;
      x0 = min(x0, x), x1 = max(x1, x), y0 = min(y0, fy(y)), y1 = max(y1, fy(y));
    }
  if (!(x0 <= x1)) return null;
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) y0 -= 0.5, y1 += 0.5;
  const pad = (y1 - y0) * 0.05, nonNegative = !logY && y0 >= 0;
  y0 -= pad, y1 += pad;
  if (nonNegative && y0 < 0) y0 = 0;  // a learning rate, a norm or a loss never goes below 0
  return { x0, x1, y0, y1 };
}

// One line of a chart: a path through its points; val loss (one point per evaluation) also gets a
// marker at each point, so the few evaluations do not read as a lagging curve.
function drawLine(s, l, px, py, logY) {
  let d = '';
  const val = l.name === 'val_loss', colour = COLOURS[l.run % 6];
  for (const [x, y] of l.pts) {
    if (logY && !(y > 0)) continue;
    d += (d === '' ? 'M' : ' L') + num(px(x)) + ' ' + num(py(y));
  }
  const width = val ? { 'stroke-width': '1.5', 'stroke-dasharray': '4 3' }
                    : { 'stroke-width': '1', 'stroke-opacity': '0.7' };
  const path = svg('path', { 'data-run': l.run, 'data-series': l.name, fill: 'none', stroke: colour, ...width, d });
  path.append(svg('title', {}, l.name));
  s.append(path);
  if (!val) return;
  for (const [x, y] of l.pts) {
    if (logY && !(y > 0)) continue;
    const c = svg('circle', { class: 'marker', 'data-run': l.run, 'data-series': l.name, cx: num(px(x)),
                              cy: num(py(y)), r: '4', fill: colour, stroke: '#fff', 'stroke-width': '1' });
    c.append(svg('title', {}, `step ${num(x)}: val loss ${num(y)}`));
    s.append(c);
  }
}

// The axes and the lines ({run, name, pts: [[step, value]]}) of one chart; logY draws log10(y)
// (y > 0 only).
function drawChart(s, lines, logY) {
  const W = 540, H = 260, left = 78, right = 12, top = 28, bottom = 36;
  const fy = y => (logY ? Math.log10(y) : y), e = extent(lines, fy, logY);
  if (e === null) return s.append(svg('text', { x: '60', y: '120' }, 'no data'));
  const { x0, x1, y0, y1 } = e;
  const px = x => left + (x - x0) / (x1 - x0) * (W - left - right);
  const py = y => top + (y1 - fy(y)) / (y1 - y0) * (H - top - bottom);
  s.append(svg('rect', { class: 'frame', x: num(left), y: num(top), width: num(W - left - right),
                         height: num(H - top - bottom) }));
  for (const xv of niceTicks(x0, x1, 6).filter(v => Number.isInteger(v)))
    s.append(svg('text', { class: 'tick x', x: num(px(xv)), y: num(H - bottom + 14), 'text-anchor': 'middle' }, tick(xv)));
  for (const yv of logY ? logTicks(y0, y1) : niceTicks(y0, y1, 6)) {
    const Y = py(yv);
    s.append(svg('text', { class: 'tick y', x: num(left - 4), y: num(Y + 4), 'text-anchor': 'end' }, tick(yv)),
             svg('line', { class: 'grid', x1: num(left), x2: num(W - right), y1: num(Y), y2: num(Y) }));
  }
  s.append(svg('text', { class: 'tick', x: num(W - right), y: num(H - 4), 'text-anchor': 'end' }, 'step'));
  for (const l of lines) drawLine(s, l, px, py, logY);
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
