// book.js: one lesson page of the lesson book. Reads the page's settings from its URL query, runs
// the lesson in the C++ compiled to WebAssembly (lessons.js: lesson_json, the same record as
// `scratchgpt lesson NAME --json`), and draws each step: its sentences, its lines, each tensor as a
// labelled grid. Leaves out: any arithmetic of its own (every number comes from the C++).
'use strict';

const DECIMALS = 4;        // every float is shown with this many decimals
const MAX_ROWS = 64;       // a grid shows at most this many rows and columns ...
const MAX_COLS = 64;       // ... and says how many it left out
const MAX_MATRICES = 32;   // a tensor of rank 3 or more shows at most this many matrices
const FLAG_NAMES = {       // the CLI's flag -> the texts' name (the URL query's key)
  'B': 'B', 'T': 'T', 'C': 'C', 'head-size': 'head_size', 'n-head': 'n_head',
  'block-size': 'block_size', 'd-in': 'd_in', 'd-out': 'd_out', 'seed': 'seed', 'trace': 'trace',
};
const FLAG_HELP = {
  'B': 'batch size', 'T': 'time steps (tokens)', 'C': 'channels (n_embd)',
  'head-size': 'size of each head', 'n-head': 'number of heads', 'block-size': 'longest T',
  'd-in': 'embedding size', 'd-out': 'output size', 'seed': 'torch.manual_seed',
  'trace': 'every intermediate of one head',
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The flags of this lesson the page offers (the CLI's --html writes a file: not here).
function pageFlags(lesson) {
  return lesson.flags.filter(f => f !== 'html' && FLAG_NAMES[f]);
}

// A lesson with --trace shows its trace unless the query says trace=0 (issue 42: head.html?B=1&...
// shows that shape's trace, the numbers of `scratchgpt lesson head --B 1 ... --trace`).
const TRACE_OFF = ['0', 'false', 'off', 'no'];

// {flag: text} from the URL query, accepting head_size and head-size alike; trace is '1' or '0'.
function readQuery(flags) {
  const query = new URLSearchParams(window.location.search);
  const settings = {};
  for (const [key, value] of query) {
    const flag = key.replace(/_/g, '-');
    if (flags.includes(flag) && value !== '') settings[flag] = value;
  }
  if (flags.includes('trace')) settings.trace = TRACE_OFF.includes(settings.trace) ? '0' : '1';
  return settings;
}

// What the C++ is given: the settings without trace when it is off.
function lessonSettings(settings) {
  const s = Object.assign({}, settings);
  if (s.trace === '0') delete s.trace;
  return s;
}

// The query for the settings (texts' names), and the same settings as a command line.
function writeQuery(name, settings) {
  const query = new URLSearchParams();
  let cli = 'scratchgpt lesson ' + name;
  for (const [flag, value] of Object.entries(settings)) {
    if (flag === 'trace') {
      if (value === '0') query.set('trace', '0'); else cli += ' --trace';  // on: the default
    } else {
      query.set(FLAG_NAMES[flag], value);
      cli += ' --' + flag + ' ' + value;
    }
  }
  const search = query.toString();
  try {
    history.replaceState(null, '', search ? '?' + search : window.location.pathname);
  } catch (e) { /* some browsers refuse replaceState on file:// pages: the view still updates */ }
  return cli;
}

function buildControls(lesson, settings, onChange) {
  const form = document.getElementById('controls');
  const inputs = {};
  for (const flag of pageFlags(lesson)) {
    const label = el('label', 'control');
    label.appendChild(el('span', 'name', FLAG_NAMES[flag]));
    const input = el('input');
    if (flag === 'trace') {
      input.type = 'checkbox';
      input.checked = settings.trace === '1';
    } else {
      input.type = 'number';
      input.min = flag === 'seed' ? '0' : '1';
      // The text's own value when the box is empty (C/n-head: computed from the others).
      const given = lesson.defaults && lesson.defaults[flag];
      input.placeholder = given && /^[0-9]+$/.test(given) ? given : 'text';
      input.value = settings[flag] || '';
    }
    input.title = FLAG_HELP[flag] + (flag === 'trace' ? '' : '; empty: the text\'s own value');
    input.addEventListener(flag === 'trace' ? 'change' : 'input', onChange);
    label.appendChild(input);
    form.appendChild(label);
    inputs[flag] = input;
  }
  const reset = el('button', 'reset', 'the text\'s values');
  reset.type = 'button';
  reset.addEventListener('click', () => {
    for (const input of Object.values(inputs)) {
      if (input.type === 'checkbox') input.checked = true; else input.value = '';
    }
    onChange();
  });
  if (Object.keys(inputs).length) form.appendChild(reset);
  return inputs;
}

function readControls(inputs) {
  const settings = {};
  for (const [flag, input] of Object.entries(inputs)) {
    if (input.type === 'checkbox') {
      settings[flag] = input.checked ? '1' : '0';
    } else if (input.value.trim() !== '') {
      settings[flag] = input.value.trim();
    }
  }
  return settings;
}

// A cell's text: integers as they are, floats with DECIMALS, a non-finite value as PyTorch
// printed it ("-inf", "nan").
function cellText(item, i) {
  const v = item.values[i];
  if (v === null || v === undefined) return item.cells[i].trim();
  return item.integer ? String(v) : v.toFixed(DECIMALS);
}

// The background of a cell: red for positive, blue for negative, stronger with |v| / scale.
function cellColour(v, scale) {
  if (v === null || !isFinite(v) || scale === 0) return '';
  const a = Math.min(1, Math.abs(v) / scale) * 0.55;
  return v >= 0 ? `rgba(214, 69, 65, ${a.toFixed(3)})` : `rgba(52, 120, 198, ${a.toFixed(3)})`;
}

// The largest |value| among the cells of one matrix that are drawn unmasked.
function colourScale(item, start, count) {
  let scale = 0;
  for (let i = start; i < start + count; ++i) {
    const v = item.values[i];
    if (v !== null && isFinite(v) && !(item.masked && item.masked[i])) scale = Math.max(scale, Math.abs(v));
  }
  return scale;
}

// Row or column labels: the record's own (rows/cols) when it has them, else indices.
function axisLabels(given, n) {
  if (Array.isArray(given) && given.length === n) return given.map(String);
  return Array.from({length: n}, (_, i) => String(i));
}

// One matrix (rows x cols) of the tensor, starting at element `start`, as a table.
function matrixTable(item, start, rows, cols) {
  const table = el('table', 'grid');
  const scale = colourScale(item, start, rows * cols);
  const rowLabels = axisLabels(item.rows, rows), colLabels = axisLabels(item.cols, cols);
  const head = el('tr');
  const corner = el('th', 'corner');
  if (item.row_axis || item.col_axis)
    corner.textContent = (item.row_axis || '') + ' \u2193 ' + (item.col_axis || '') + ' \u2192';
  head.appendChild(corner);
  for (let c = 0; c < Math.min(cols, MAX_COLS); ++c) head.appendChild(el('th', 'col', colLabels[c]));
  table.appendChild(head);
  for (let r = 0; r < Math.min(rows, MAX_ROWS); ++r) {
    const tr = el('tr');
    tr.appendChild(el('th', 'row', rowLabels[r]));
    for (let c = 0; c < Math.min(cols, MAX_COLS); ++c) {
      const i = start + r * cols + c;
      const masked = item.masked && item.masked[i];
      const td = el('td', masked ? 'v masked' : 'v', cellText(item, i));
      if (!masked) td.style.background = cellColour(item.values[i], scale);
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
  return table;
}

// "showing 64 of 100 rows" when a matrix is cut.
function cutNote(rows, cols) {
  const parts = [];
  if (rows > MAX_ROWS) parts.push(`the first ${MAX_ROWS} of ${rows} rows`);
  if (cols > MAX_COLS) parts.push(`the first ${MAX_COLS} of ${cols} columns`);
  return parts.length ? el('p', 'cut', 'showing ' + parts.join(' and ')) : null;
}

// A tensor of any rank: a scalar as text, a vector as one row, a matrix as a grid, and a
// higher-rank tensor as one grid per index of its leading dimensions ("[0, 1]").
function tensorBlock(item) {
  const box = el('div', 'tensor');
  const label = el('div', 'label');
  label.appendChild(el('span', 'name', item.text));
  label.appendChild(el('span', 'shape', item.shape.length ? '(' + item.shape.join(', ') + ')' : ''));
  if (item.shape.length === 0) {
    label.appendChild(document.createTextNode(' '));
    label.appendChild(el('span', 'v scalar', cellText(item, 0)));
    box.appendChild(label);
    return box;
  }
  box.appendChild(label);
  const shape = item.shape;
  const cols = shape[shape.length - 1], rows = shape.length >= 2 ? shape[shape.length - 2] : 1;
  const lead = shape.slice(0, -2), count = lead.reduce((a, b) => a * b, 1);
  for (let m = 0; m < Math.min(count, MAX_MATRICES); ++m) {
    const wrap = el('div', 'matrix');
    if (lead.length) {
      let rest = m;
      const index = lead.map((_, d) => lead.slice(d + 1).reduce((a, b) => a * b, 1))
                        .map(stride => { const k = Math.floor(rest / stride); rest %= stride; return k; });
      wrap.appendChild(el('div', 'index', '[' + index.join(', ') + ']'));
    }
    const scroll = el('div', 'scroll');
    scroll.appendChild(matrixTable(item, m * rows * cols, rows, cols));
    wrap.appendChild(scroll);
    const note = cutNote(rows, cols);
    if (note) wrap.appendChild(note);
    box.appendChild(wrap);
  }
  if (count > MAX_MATRICES) box.appendChild(el('p', 'cut', `showing the first ${MAX_MATRICES} of ${count} matrices`));
  return box;
}

// One item of a step: a sentence, a line printed as it is, a tensor (with the code that made it
// when the record names it) or a size.
function itemBlock(item) {
  if (item.kind === 'say') return el('p', 'say', item.text);
  if (item.kind === 'text') return el('pre', 'line', item.text);
  if (item.kind === 'size') {
    const p = el('p', 'size');
    p.appendChild(el('span', 'name', item.text + ' '));
    const code = el('code', 'shape-text', 'torch.Size([' + item.shape.join(', ') + '])');
    code.dataset.shape = item.shape.join(',');
    p.appendChild(code);
    return p;
  }
  const box = tensorBlock(item);
  if (item.op) box.insertBefore(el('pre', 'op', item.op), box.firstChild);
  return box;
}

function drawSteps(record) {
  const main = document.getElementById('steps');
  main.textContent = '';
  for (const step of record.steps) {
    const section = el('section', 'step');
    if (step.title) section.appendChild(el('h2', 'title', step.title));
    for (const item of step.items) section.appendChild(itemBlock(item));
    main.appendChild(section);
  }
}

// Runs the lesson at the settings and draws it, or shows its one-line error.
function show(module, name, settings) {
  const cli = writeQuery(name, settings);
  document.getElementById('cli').textContent = cli;
  const error = document.getElementById('error');
  let record;
  try {
    record = JSON.parse(module.lesson_json(name, JSON.stringify(lessonSettings(settings))));
  } catch (e) {
    record = {error: String(e)};
  }
  if (record.error) {
    error.textContent = record.error + '  (the same settings on the command line: ' + cli + ')';
    error.hidden = false;
    document.getElementById('steps').textContent = '';
  } else {
    error.hidden = true;
    drawSteps(record);
  }
  document.body.dataset.ready = '1';
}

function start(module) {
  const name = document.body.dataset.lesson;
  const lesson = JSON.parse(module.lessons_json()).find(l => l.name === name);
  const flags = pageFlags(lesson);
  let timer = null, inputs = null;
  const onChange = () => {
    clearTimeout(timer);
    timer = setTimeout(() => show(module, name, readControls(inputs)), 120);
  };
  const settings = readQuery(flags);
  inputs = buildControls(lesson, settings, onChange);
  show(module, name, settings);
}

// The module compiles synchronously (-sWASM_ASYNC_COMPILATION=0: headless Chromium's virtual
// time does not wait for a background compile), so the factory returns it ready, or its promise.
function loadLessons() {
  const m = createLessons();
  return typeof m.then === 'function' ? m : m.ready || Promise.resolve(m);
}

window.addEventListener('DOMContentLoaded', () => {
  loadLessons().then(start, e => {
    const error = document.getElementById('error');
    error.textContent = 'the lessons\' WebAssembly did not load: ' + e;
    error.hidden = false;
  });
});
