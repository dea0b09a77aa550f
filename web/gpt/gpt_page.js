// gpt_page.js: the GPT page's glue (web/gpt/gpt.html): reads the settings from the URL query,
// asks the engine (gpt.js: gpt_generate, gpt_attention, gpt_trace, gpt_asset) for JSON, and
// draws: the attention with the CLI page's renderer (assets/attention.js, through showAttention
// below), the chosen query's computation as a table. Leaves out: any arithmetic of the model (the
// C++ does it all; the only sums here check the engine's numbers against each other).

// One closure: gpt.js's runtime defines globals of its own (run, ...).
(() => {
  const form = document.getElementById('controls');
  const FIELDS = ['prompt', 'n', 'seed', 'temperature', 'top_k'];
  const view = { layer: 0, head: 0, pos: null, text: null, data: null };

  function engine(name, types, args) {
    const d = JSON.parse(Module.ccall(name, 'string', types, args));
    if (d.error) throw new Error(d.error);
    return d;
  }

  const asset = name => engine('gpt_asset', ['string'], [name]).text;
  function addAsset(tag, name) {  // a <script> or <style> of assets/ in the head
    const e = document.createElement(tag);
    e.textContent = asset(name);
    document.head.append(e);
  }

  // --- the attention renderer of assets/attention.js -------------------------------------------
  // Today's attention.js draws the page it is embedded in when it loads: it runs here once per
  // drawing with `document` narrowed to `root`. An attention.js that defines renderAttention(root,
  // data) is loaded as it is and called instead (then the legacy branch can go).
  let legacy = null;
  function showAttention(root, data) {
    if (legacy === null) {
      legacy = { js: asset('attention.js'), html: asset('attention.html') };
      addAsset('style', 'attention.css');
      if (/\bfunction renderAttention\b/.test(legacy.js)) addAsset('script', 'attention.js');
    }
    if (typeof renderAttention === 'function') return renderAttention(root, data);
    root.innerHTML = legacy.html;
    const island = JSON.stringify(data);
    const scoped = { body: root, querySelector: s => root.querySelector(s),
                     querySelectorAll: s => root.querySelectorAll(s),
                     getElementById: id => (id === 'attention-data' ? { textContent: island } : null) };
    new Function('document', legacy.js)(scoped);
  }

  // --- settings <-> URL query ------------------------------------------------------------------
  function readQuery() {
    const q = new URLSearchParams(location.search);
    for (const f of FIELDS) if (q.has(f)) form.elements[f].value = q.get(f);
    for (const k of ['layer', 'head', 'pos']) if (q.has(k)) view[k] = Number(q.get(k));
  }

  function writeQuery() {
    const q = new URLSearchParams();
    for (const f of FIELDS) q.set(f, form.elements[f].value);
    for (const k of ['layer', 'head', 'pos']) if (view[k] !== null) q.set(k, view[k]);
    history.replaceState(null, '', '?' + q.toString());
  }

  // --- generation --------------------------------------------------------------------------------
  function generate() {
    const e = form.elements, status = document.getElementById('status');
    const d = engine('gpt_generate', ['string', 'number', 'number', 'number', 'number'],
                     [e.prompt.value, Number(e.n.value), Number(e.seed.value),
                      Number(e.temperature.value), Number(e.top_k.value)]);
    const out = document.getElementById('generated');
    out.textContent = '';
    out.append(el('b', {}, e.prompt.value), d.text.slice(e.prompt.value.length));
    view.generated = d.text;
    document.getElementById('gpt-generated-data').textContent = JSON.stringify(d);
    status.textContent = d.note.trim();
  }

  // --- attention: overview, one head, the trace --------------------------------------------------
  function attend(text) {
    view.text = text;
    view.data = engine('gpt_attention', ['string'], [text]);
    document.getElementById('gpt-attention-data').textContent = JSON.stringify(view.data);
    const d = view.data, T = d.ids.length;
    document.getElementById('model').textContent =
        `This one: ${d.n_layer} layers, ${d.n_head} heads, ${d.n_embd} wide, context ` +
        `${d.block_size} characters.`;
    view.layer = Math.min(view.layer, d.n_layer - 1);
    view.head = Math.min(view.head, d.n_head - 1);
    if (view.pos === null || view.pos >= T) view.pos = T - 1;
    const overview = document.getElementById('overview');
    showAttention(overview, d);
    overview.style.setProperty('--heads', d.n_head);
    // Small multiples: each heatmap scaled so that a layer's heads fit the page's width.
    overview.querySelectorAll('.panel svg.heatmap').forEach(s => {
      const fit = (overview.clientWidth / d.n_head - 20) / Number(s.getAttribute('width'));
      s.style.zoom = Math.min(0.4, fit).toFixed(3);
    });
    for (const id of ['layer', 'head']) {
      const s = document.getElementById(id), n = id === 'layer' ? d.n_layer : d.n_head;
      s.replaceChildren(...Array.from({ length: n }, (_, i) => el('option', { value: i }, `${id} ${i}`)));
    }
    drawHead();
  }

  function drawHead() {
    const d = view.data, l = view.layer, h = view.head;
    document.getElementById('layer').value = l;
    document.getElementById('head').value = h;
    document.querySelectorAll('#overview .panel').forEach(p =>
      p.classList.toggle('picked', Number(p.dataset.layer) === l && Number(p.dataset.head) === h));
    const one = { ...d, n_layer: 1, n_head: 1, weights: [[d.weights[l][h]]] };
    const chosen = document.getElementById('chosen');
    showAttention(chosen, one);
    const panel = chosen.querySelector('.panel');  // the renderer numbered it layer 0, head 0
    if (panel) {
      panel.dataset.layer = l;
      panel.dataset.head = h;
      panel.querySelector('h3').textContent = `layer ${l}, head ${h}`;
    }
    drawTrace();
    writeQuery();
  }

  const f4 = x => fixed(x, 4), f6 = x => fixed(x, 6);
  const vec = v => el('span', { class: 'vec' }, '[' + v.map(f4).join(', ') + ']');

  function drawTrace() {
    const d = view.data, t = view.pos, tr = engine('gpt_trace', ['number', 'number', 'number'],
                                                   [view.layer, view.head, t]);
    document.getElementById('gpt-trace-data').textContent = JSON.stringify(tr);
    const tok = i => el('code', { class: 'tok' }, d.tokens[i]);
    document.getElementById('trace-title').textContent =
        `Query ${t} (${d.tokens[t]}) in layer ${tr.layer}, head ${tr.head}, traced`;
    const root = document.getElementById('trace');
    root.replaceChildren();
    const scores = tr.dots.map(x => x * tr.scale), max = Math.max(...scores);
    const exps = scores.map(s => Math.exp(s - max)), sum = exps.reduce((a, b) => a + b, 0);
    const best = tr.weights.slice(0, t + 1).indexOf(Math.max(...tr.weights.slice(0, t + 1)));
    const par = x => (x < 0 ? `(${f4(x)})` : f4(x));
    const terms = tr.q.slice(0, 3).map((q, i) => `${par(q)}\u00d7${par(tr.keys[best][i])}`);
    root.append(
        el('p', {}, '1. The query of ', tok(t), ` (c_attn's first ${tr.head_size} numbers of this head): q = `, vec(tr.q)),
        el('p', {}, `2. Each key k_j (j \u2264 ${t}) is dotted with q; worked for the key it weighs most, `, tok(best),
           `: q\u00b7k = ${terms.join(' + ')} + \u2026 = ${f4(tr.dots[best])}.`),
        el('p', {}, `3. Scale by 1/\u221a${tr.head_size} = ${f6(tr.scale)}, mask the future (\u2212\u221e), ` +
           'softmax the row: e^(s\u2212max) / \u03a3. 4. The output is \u03a3 weight \u00d7 v_j.'));
    const table = el('table', { class: 'trace' });
    table.append(el('tr', {}, ...['j', 'key token', 'k_j', 'q\u00b7k_j', 'scaled', 'softmax', '', 'v_j']
      .map(x => el('th', {}, x))));
    for (let j = 0; j < d.ids.length; ++j) {
      const masked = j > t, w = tr.weights[j];
      const bar = el('span', { class: 'bar', style: `width:${masked ? 0 : (80 * w / tr.weights[best]).toFixed(1)}px` });
      table.append(el('tr', { class: masked ? 'masked' : '', 'data-pos': j },
        el('td', {}, String(j)), el('td', {}, tok(j)),
        el('td', {}, masked ? '' : vec(tr.keys[j])),
        el('td', {}, masked ? '' : f4(tr.dots[j])),
        el('td', {}, masked ? '\u2212\u221e (future)' : f4(scores[j])),
        el('td', { class: 'w' }, masked ? '0' : f6(w)), el('td', {}, bar),
        el('td', {}, masked ? '' : vec(tr.values[j]))));
    }
    root.append(table);
    const err = Math.max(...exps.map((e, j) => Math.abs(e / sum - tr.weights[j])));
    root.append(el('p', {}, '5. Output for this head = \u03a3 softmax \u00d7 v_j = ', vec(tr.out),
                   ` (the engine's y; softmax of the scaled column above matches the engine's weights to ${err.toExponential(1)}).`));
  }

  // --- wiring ---------------------------------------------------------------------------------------
  function run() {
    const status = document.getElementById('status');
    try {
      generate();
      attend(form.elements.prompt.value);
    } catch (e) {
      status.textContent = 'error: ' + e.message;
    }
    writeQuery();
  }

  form.addEventListener('submit', ev => { ev.preventDefault(); view.pos = null; run(); });
  document.getElementById('use-generated').addEventListener('click', () => {
    view.pos = null;
    if (view.generated) attend(view.generated);
  });
  document.getElementById('layer').addEventListener('change', e => { view.layer = Number(e.target.value); drawHead(); });
  document.getElementById('head').addEventListener('change', e => { view.head = Number(e.target.value); drawHead(); });
  document.addEventListener('click', e => {
    const panel = e.target.closest('#overview .panel');
    const token = e.target.closest('[data-pos]');
    if (token && (token.closest('#chosen') || token.closest('#trace') || token.closest('#overview .tokens'))) {
      view.pos = Number(token.dataset.pos);
      drawTrace();
      writeQuery();
    } else if (panel) {
      view.layer = Number(panel.dataset.layer);
      view.head = Number(panel.dataset.head);
      drawHead();
    }
  });

  // gpt.js (loaded after this file) calls start() once the engine is ready.
  function start() {
    addAsset('script', 'page.js');  // el, svg, fixed: shared with the CLI's pages
    readQuery();
    run();
    document.body.dataset.ready = '1';  // for tests: generation and attention are drawn
  }
  window.Module = { onRuntimeInitialized: start };
})();
