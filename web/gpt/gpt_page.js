// gpt_page.js: the GPT page's glue (web/gpt/gpt.html): reads the settings from the URL query,
// asks the engine (gpt.js: gpt_generate, gpt_attention, gpt_asset) for JSON, shows the generated
// text and hands the attention data to the CLI page's renderer (assets/attention.js's
// renderAttention), keeping its layer, head and query in the URL. Leaves out: any arithmetic of
// the model (the C++ computes, attention.js draws and traces).

// One closure: gpt.js's runtime defines globals of its own (run, ...).
(() => {
  const form = document.getElementById('controls');
  const FIELDS = ['prompt', 'n', 'seed', 'temperature', 'top_k'];
  // The renderer's view (undefined: its default) and the last generated text.
  const view = { layer: undefined, head: undefined, query: undefined, perRow: true, generated: null };

  function engine(name, types, args) {
    const d = JSON.parse(Module.ccall(name, 'string', types, args));
    if (d.error) throw new Error(d.error);
    return d;
  }

  function addAsset(tag, name) {  // a <script> or <style> of assets/ in the head
    const e = document.createElement(tag);
    e.textContent = engine('gpt_asset', ['string'], [name]).text;
    document.head.append(e);
  }

  // --- settings <-> URL query ------------------------------------------------------------------
  function readQuery() {
    const q = new URLSearchParams(location.search);
    for (const f of FIELDS) if (q.has(f)) form.elements[f].value = q.get(f);
    for (const k of ['layer', 'head', 'query']) if (q.has(k)) view[k] = Number(q.get(k));
    view.perRow = q.get('scale') !== 'abs';
  }

  function writeQuery() {
    const q = new URLSearchParams();
    for (const f of FIELDS) q.set(f, form.elements[f].value);
    for (const k of ['layer', 'head', 'query']) if (view[k] !== undefined) q.set(k, view[k]);
    if (!view.perRow) q.set('scale', 'abs');
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

  // --- attention: the renderer's, on the engine's data -------------------------------------------
  function attend(text) {
    const d = engine('gpt_attention', ['string'], [text]);
    document.getElementById('gpt-attention-data').textContent = JSON.stringify(d);
    document.getElementById('model').textContent =
        `This one: ${d.n_layer} layers, ${d.n_head} heads, ${d.n_embd} wide, context ` +
        `${d.block_size} characters.`;
    const keep = s => {
      Object.assign(view, { layer: s.layer, head: s.head, query: s.query, perRow: s.perRow });
      writeQuery();
    };
    const root = document.getElementById('attention');
    renderAttention(root, d, { layer: view.layer, head: view.head, query: view.query,
                               perRow: view.perRow, onChange: keep });
    const drawn = root.querySelector('section.trace').dataset;  // the view as clamped
    keep({ layer: Number(drawn.layer), head: Number(drawn.head), query: Number(drawn.query),
           perRow: view.perRow });
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

  form.addEventListener('submit', ev => { ev.preventDefault(); view.query = undefined; run(); });
  document.getElementById('use-generated').addEventListener('click', () => {
    view.query = undefined;
    if (view.generated) attend(view.generated);
  });

  // gpt.js (loaded after this file) calls start() once the engine is ready.
  function start() {
    addAsset('script', 'page.js');  // el, svg, fixed: shared with the CLI's pages
    addAsset('script', 'attention.js');  // renderAttention
    addAsset('style', 'attention.css');
    readQuery();
    run();
    document.body.dataset.ready = '1';  // for tests: generation and attention are drawn
  }
  window.Module = { onRuntimeInitialized: start };
})();
