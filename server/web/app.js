// The flowctl dashboard: the pages of flowctl serve, over its /v1 API and
// event streams. No build step: a plain ES module.

const main = document.getElementById('main');
const live = document.getElementById('live');
const tokenKey = 'flowctl-token';
let stopPage = () => {}; // ends the page's timers and streams

// ---- API --------------------------------------------------------------

class Unauthorized extends Error {}

function headers(extra = {}) {
  const token = sessionStorage.getItem(tokenKey);
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

async function api(path, options = {}) {
  const res = await fetch(path, { ...options, headers: headers(options.headers) });
  if (res.status === 401) throw new Unauthorized();
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const msg = body.error?.message || body.message || `${res.status} ${res.statusText}`;
    const err = new Error(msg);
    err.body = body;
    throw err;
  }
  return body;
}

// events reads a run's Server-Sent Events with fetch (which, unlike
// EventSource, can send the token), calling onEvent with each; it
// reconnects after a dropped connection from the last event seen, and
// returns a function that stops it.
function events(runID, onEvent, onEnd) {
  const ctrl = new AbortController();
  let last = 0;
  let finished = false;
  (async () => {
    while (!ctrl.signal.aborted && !finished) {
      try {
        const res = await fetch(`/v1/runs/${encodeURIComponent(runID)}/events?after=${last}`,
          { headers: headers(), signal: ctrl.signal });
        if (res.status === 401) throw new Unauthorized();
        if (!res.ok || !res.body) throw new Error(`${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const chunk = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let id = 0, data = '';
            for (const line of chunk.split('\n')) {
              if (line.startsWith('id:')) id = Number(line.slice(3).trim());
              else if (line.startsWith('data:')) data += line.slice(5).trim();
            }
            if (!data) continue;
            if (id) last = id;
            const ev = JSON.parse(data);
            onEvent(ev);
            if (ev.type === 'run_finished') finished = true;
          }
        }
        if (finished) break;
      } catch (e) {
        if (ctrl.signal.aborted) return;
        if (e instanceof Unauthorized) { showToken(); return; }
      }
      await new Promise(r => setTimeout(r, 1000));
    }
    if (!ctrl.signal.aborted && onEnd) onEnd();
  })();
  return () => ctrl.abort();
}

// ---- Rendering helpers -------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const svgNS = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function status(st) {
  return h('span', { class: `status s-${st}` }, st);
}

function link(href, text) {
  return h('a', { href, 'data-link': true }, text);
}

function when(t) {
  return t ? new Date(t).toLocaleString() : '–';
}

function duration(from, to) {
  if (!from) return '–';
  const ms = (to ? new Date(to) : new Date()) - new Date(from);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

// put replaces an element's children, leaving out null, undefined and
// false (a part a page shows only sometimes).
function put(el, ...children) {
  el.replaceChildren(...children.flat().filter(c => c !== null && c !== undefined && c !== false));
}

function json(v) {
  return h('pre', {}, JSON.stringify(v, null, 2));
}

function say(text) {
  live.textContent = text;
}

// ---- Token --------------------------------------------------------------

function showToken() {
  stopPage();
  document.title = 'Token · flowctl';
  const input = h('input', { type: 'password', id: 'token', autocomplete: 'off', required: true });
  put(main,
    h('h1', {}, 'This server needs a token'),
    h('p', { class: 'muted' }, 'Give the token flowctl serve was started with (FLOWCTL_TOKEN or --token-file). It is kept for this browser tab only.'),
    h('form', {
      id: 'token-form',
      onsubmit: e => {
        e.preventDefault();
        sessionStorage.setItem(tokenKey, input.value.trim());
        render();
      },
    }, h('div', { class: 'field' }, h('label', { for: 'token' }, 'Token'), input),
    h('button', { class: 'primary', type: 'submit' }, 'Continue')));
  input.focus();
}

// ---- Pages --------------------------------------------------------------

const statuses = ['queued', 'running', 'waiting', 'ok', 'failed', 'cancelled', 'interrupted'];

async function runsPage() {
  document.title = 'Runs · flowctl';
  const params = new URLSearchParams(location.search);
  const { flows } = await api('/v1/flows');
  const flowSel = h('select', { id: 'filter-flow', onchange: () => filter() },
    h('option', { value: '' }, 'All flows'),
    flows.map(f => h('option', { value: f.name, selected: params.get('flow') === f.name }, f.name)));
  const statusSel = h('select', { id: 'filter-status', onchange: () => filter() },
    h('option', { value: '' }, 'All statuses'),
    statuses.map(st => h('option', { value: st, selected: params.get('status') === st }, st)));
  const body = h('tbody');
  put(main,
    h('h1', {}, 'Runs'),
    h('div', { class: 'filters' },
      h('div', {}, h('label', { for: 'filter-flow' }, 'Flow'), flowSel),
      h('div', {}, h('label', { for: 'filter-status' }, 'Status'), statusSel)),
    h('table', { id: 'runs' },
      h('thead', {}, h('tr', {}, ['Run', 'Flow', 'Status', 'Started', 'Duration', 'Waiting for'].map(t => h('th', { scope: 'col' }, t)))),
      body));
  function filter() {
    const q = new URLSearchParams();
    if (flowSel.value) q.set('flow', flowSel.value);
    if (statusSel.value) q.set('status', statusSel.value);
    history.replaceState(null, '', '/' + (q.size ? `?${q}` : ''));
    refresh();
  }
  async function refresh() {
    const q = new URLSearchParams({ limit: '100' });
    if (flowSel.value) q.set('flow', flowSel.value);
    if (statusSel.value) q.set('status', statusSel.value);
    const { runs } = await api(`/v1/runs?${q}`);
    put(body, ...(runs.length ? runs.map(r => h('tr', {},
      h('td', {}, link(`/runs/${r.run_id}`, r.run_id)),
      h('td', {}, link(`/flows/${encodeURIComponent(r.flow)}`, r.flow)),
      h('td', {}, status(r.status)),
      h('td', {}, when(r.started_at)),
      h('td', {}, duration(r.started_at, r.finished_at)),
      h('td', {}, (r.waiting_for || []).map(w => `${w.step}: ${w.message}`).join('; ')))) :
      [h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No runs yet.'))]));
  }
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 2000);
  return () => clearInterval(timer);
}

async function flowsPage() {
  document.title = 'Flows · flowctl';
  const { flows } = await api('/v1/flows');
  put(main, h('h1', {}, 'Flows'),
    h('table', {}, h('thead', {}, h('tr', {}, ['Flow', 'Description', 'Inputs', 'Outputs'].map(t => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, flows.map(f => h('tr', {},
        h('td', {}, link(`/flows/${encodeURIComponent(f.name)}`, f.name), f.errors ? h('div', { class: 'error' }, 'does not compile') : null),
        h('td', {}, f.description || ''),
        h('td', {}, f.inputs.map(i => i.name).join(', ')),
        h('td', {}, f.outputs.join(', ')))))));
}

// inputField is a form field for a flow input: text, number, a checkbox,
// or a JSON editor for complex types.
function inputField(inp) {
  const id = `in-${inp.name}`;
  const simple = ['string', 'number', 'bool'].includes(inp.type);
  let control;
  if (inp.type === 'bool') {
    control = h('input', { type: 'checkbox', id, name: inp.name, checked: inp.default === true });
  } else if (simple) {
    control = h('input', {
      type: inp.type === 'number' ? 'number' : (inp.sensitive ? 'password' : 'text'), id, name: inp.name,
      step: inp.type === 'number' ? 'any' : undefined, required: inp.required,
      value: inp.default !== undefined ? String(inp.default) : undefined,
    });
  } else {
    control = h('textarea', { id, name: inp.name, required: inp.required, spellcheck: 'false' },
      inp.default !== undefined ? JSON.stringify(inp.default, null, 2) : '');
  }
  return {
    el: h('div', { class: 'field' },
      h('label', { for: id }, inp.name, inp.required ? ' *' : ''),
      control,
      h('div', { class: 'hint' }, inp.type + (simple ? '' : ' (JSON)') + (inp.description ? ` — ${inp.description}` : ''))),
    value() {
      if (inp.type === 'bool') return control.checked;
      const raw = control.value;
      if (raw.trim() === '') return undefined;
      if (inp.type === 'number') return Number(raw);
      if (inp.type === 'string') return raw;
      return JSON.parse(raw);
    },
  };
}

async function flowPage(name) {
  document.title = `${name} · flowctl`;
  const flow = await api(`/v1/flows/${encodeURIComponent(name)}`);
  const fields = flow.inputs.map(inputField);
  const err = h('div', { class: 'error', role: 'alert' });
  const form = h('form', {
    id: 'run-form',
    onsubmit: async e => {
      e.preventDefault();
      err.textContent = '';
      const inputs = {};
      try {
        flow.inputs.forEach((inp, i) => {
          const v = fields[i].value();
          if (v !== undefined) inputs[inp.name] = v;
        });
      } catch (x) {
        err.textContent = `An input is not valid JSON: ${x.message}`;
        return;
      }
      try {
        const res = await api(`/v1/flows/${encodeURIComponent(name)}/runs`, {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ inputs }),
        });
        navigate(`/runs/${res.run_id}`);
      } catch (x) {
        if (x instanceof Unauthorized) throw x;
        const diags = x.body?.error?.diagnostics || [];
        err.textContent = [x.message, ...diags.map(d => `${d.summary}: ${d.detail}`)].join('\n');
      }
    },
  }, fields.map(f => f.el), err, h('button', { class: 'primary', type: 'submit' }, 'Start a run'));
  const recent = h('tbody');
  put(main,
    h('h1', {}, flow.name),
    flow.description ? h('p', {}, flow.description) : null,
    flow.errors ? h('div', { class: 'error', role: 'alert' }, 'The last edit does not compile: ' + flow.errors.map(d => d.summary).join('; ')) : null,
    h('h2', {}, 'Graph'),
    h('div', { class: 'graph' }, dag(flow, {}, null).svg),
    h('h2', {}, 'Run it'), form,
    h('h2', {}, 'Schedules'),
    flow.schedules?.length ? h('ul', {}, flow.schedules.map(sc => h('li', {}, `${sc.name}: ${sc.cron} (${sc.timezone})`))) : h('p', { class: 'muted' }, 'None.'),
    h('h2', {}, 'Recent runs'),
    h('table', {}, h('thead', {}, h('tr', {}, ['Run', 'Status', 'Started', 'Duration'].map(t => h('th', { scope: 'col' }, t)))), recent));
  async function refresh() {
    const { runs } = await api(`/v1/runs?flow=${encodeURIComponent(name)}&limit=10`);
    put(recent, ...runs.map(r => h('tr', {},
      h('td', {}, link(`/runs/${r.run_id}`, r.run_id)), h('td', {}, status(r.status)),
      h('td', {}, when(r.started_at)), h('td', {}, duration(r.started_at, r.finished_at)))));
  }
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 3000);
  return () => clearInterval(timer);
}

// dag lays a flow's steps out left to right by stage and draws them, each
// node with its name, block and state; onSelect is told a clicked node.
function dag(flow, states, onSelect) {
  const colW = 210, rowH = 64, nodeW = 170, nodeH = 44, pad = 20;
  const byStage = [];
  for (const st of flow.steps || []) (byStage[st.stage] ||= []).push(st);
  const pos = {};
  byStage.forEach((col, x) => col.forEach((st, y) => { pos[st.name] = { x: pad + x * colW, y: pad + y * rowH }; }));
  const width = pad * 2 + Math.max(1, byStage.length) * colW;
  const height = pad * 2 + Math.max(1, ...byStage.map(c => c.length)) * rowH;
  const crit = new Set();
  const cp = flow.critical_path || [];
  for (let i = 1; i < cp.length; i++) crit.add(`${cp[i - 1]}→${cp[i]}`);
  const svg = s('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'group', 'aria-label': `The steps of flow ${flow.name}` });
  for (const st of flow.steps || []) {
    for (const d of st.depends_on) {
      const a = pos[d], b = pos[st.name];
      if (!a || !b) continue;
      const x1 = a.x + nodeW, y1 = a.y + nodeH / 2, x2 = b.x, y2 = b.y + nodeH / 2, mx = (x1 + x2) / 2;
      svg.append(s('path', { class: `edge${crit.has(`${d}→${st.name}`) ? ' critical' : ''}`, d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}` }));
    }
  }
  const nodes = {};
  for (const st of flow.steps || []) {
    const p = pos[st.name];
    const state = states[st.name] || 'pending';
    const label = s('text', { x: 10, y: 18 }, st.name);
    const sub = s('text', { x: 10, y: 34, class: 'sub' }, `${st.use}${st.for_each ? ' ×' : ''} · ${state}`);
    const g = s('g', {
      class: `node s-${state}`, transform: `translate(${p.x},${p.y})`, tabindex: 0, role: 'button',
      'data-step': st.name, 'data-status': state, 'aria-label': `step ${st.name}, block ${st.use}: ${state}`,
      onclick: () => onSelect && onSelect(st.name),
      onkeydown: e => { if ((e.key === 'Enter' || e.key === ' ') && onSelect) { e.preventDefault(); onSelect(st.name); } },
    }, s('title', {}, `${st.name} (${st.use}): ${state}`), s('rect', { width: nodeW, height: nodeH, rx: 8 }), label, sub);
    svg.append(g);
    nodes[st.name] = { g, sub, use: `${st.use}${st.for_each ? ' ×' : ''}` };
  }
  return {
    svg,
    set(name, state) {
      const n = nodes[name];
      if (!n || n.g.dataset.status === state) return;
      n.g.setAttribute('class', `node s-${state}${n.g.classList.contains('selected') ? ' selected' : ''}`);
      n.g.dataset.status = state;
      n.g.setAttribute('aria-label', `step ${name}, block ${n.use}: ${state}`);
      n.sub.textContent = `${n.use} · ${state}`;
    },
    select(name) {
      for (const [k, n] of Object.entries(nodes)) n.g.classList.toggle('selected', k === name);
    },
  };
}

// stepState is a step's state from the states of its instances.
function stepState(instances) {
  const v = Object.values(instances);
  if (!v.length) return 'pending';
  for (const st of ['running', 'waiting', 'failed', 'cancelled']) if (v.includes(st)) return st;
  if (v.includes('pending')) return 'running';
  if (v.every(x => x === 'skipped')) return 'skipped';
  if (v.every(x => x === 'cached')) return 'cached';
  return 'ok';
}

async function runPage(id) {
  document.title = `Run ${id} · flowctl`;
  let run = await api(`/v1/runs/${encodeURIComponent(id)}`);
  const flow = await api(`/v1/flows/${encodeURIComponent(run.flow)}`).catch(e => {
    if (e instanceof Unauthorized) throw e;
    return { name: run.flow, steps: [] };
  });
  const instances = {}; // step → instance key → state
  const waits = {}; // step → step_waiting event
  for (const st of run.steps) (instances[st.step] ||= {})[st.instance || ''] = st.status;
  const states = () => Object.fromEntries(Object.entries(instances).map(([k, v]) => [k, stepState(v)]));
  let selected = null;
  const graph = dag(flow, states(), name => { selected = name; graph.select(name); showDetail(); });
  const head = h('div');
  const detail = h('div', { class: 'panel', id: 'detail' }, h('p', { class: 'muted' }, 'Select a step to see its inputs, outputs, attempts and error.'));
  const approvals = h('div', { id: 'approvals' });
  const outputs = h('div', { id: 'outputs' });
  const timeline = h('div', { id: 'timeline' });
  put(main, head, approvals,
    h('div', { class: 'layout' }, h('div', {}, h('div', { class: 'graph', id: 'graph' }, graph.svg), outputs, timeline), detail));

  function renderHead() {
    put(head,
      h('h1', {}, 'Run ', h('code', {}, run.run_id || id), ' of ', link(`/flows/${encodeURIComponent(run.flow)}`, run.flow)),
      h('dl', {},
        h('dt', {}, 'Status'), h('dd', { id: 'run-status' }, status(run.status)),
        h('dt', {}, 'Started'), h('dd', {}, when(run.started_at)),
        h('dt', {}, 'Duration'), h('dd', {}, duration(run.started_at, run.finished_at)),
        run.error ? [h('dt', {}, 'Error'), h('dd', { class: 'error' }, run.error)] : null),
      ['queued', 'running', 'waiting'].includes(run.status) ?
        h('button', { class: 'danger', onclick: () => api(`/v1/runs/${encodeURIComponent(id)}/cancel`, { method: 'POST' }).catch(() => {}) }, 'Cancel the run') : null);
  }

  function renderOutputs() {
    const parts = [h('h2', {}, 'Outputs')];
    if (run.outputs && Object.keys(run.outputs).length) parts.push(json(run.outputs));
    else parts.push(h('p', { class: 'muted' }, run.finished_at ? 'None.' : 'When the run finishes.'));
    if (run.failed_outputs && run.failed_outputs.length) {
      parts.push(h('p', {}, 'Without a value:'), h('ul', {}, run.failed_outputs.map(f => h('li', {}, `${f.name}: ${f.reason || f.error || ''}`))));
    }
    put(outputs, ...parts);
  }

  // The timeline: each step's span, the critical path (the chain of
  // dependencies that took the longest) drawn bold.
  function renderTimeline() {
    const spans = {};
    for (const st of run.steps) {
      if (!st.started_at) continue;
      const a = new Date(st.started_at), b = st.finished_at ? new Date(st.finished_at) : new Date();
      const sp = spans[st.step] ||= { from: a, to: b, status: [] };
      if (a < sp.from) sp.from = a;
      if (b > sp.to) sp.to = b;
      sp.status.push(st.status);
    }
    const names = (flow.steps || []).map(st => st.name).filter(n => spans[n]);
    if (!names.length) { put(timeline); return; }
    const t0 = Math.min(...names.map(n => spans[n].from)), t1 = Math.max(...names.map(n => spans[n].to));
    const total = Math.max(1, t1 - t0);
    // Longest path by duration.
    const best = {}, prev = {};
    for (const st of flow.steps) {
      const d = spans[st.name] ? spans[st.name].to - spans[st.name].from : 0;
      let b = 0, p = null;
      for (const dep of st.depends_on) if ((best[dep] || 0) > b) { b = best[dep]; p = dep; }
      best[st.name] = b + d; prev[st.name] = p;
    }
    let end = null;
    for (const n of Object.keys(best)) if (end === null || best[n] > best[end]) end = n;
    const critical = new Set();
    for (let n = end; n; n = prev[n]) critical.add(n);
    const rowH = 20, labelW = 160, barW = 520;
    const svg = s('svg', { class: 'gantt', width: labelW + barW + 80, height: names.length * rowH + 10, role: 'img',
      'aria-label': `Timeline of ${names.length} steps; critical path ${[...critical].reverse().join(' → ')}` });
    names.forEach((n, i) => {
      const sp = spans[n];
      const x = labelW + ((sp.from - t0) / total) * barW, w = Math.max(2, ((sp.to - sp.from) / total) * barW);
      const st = stepState(Object.fromEntries(sp.status.map((v, j) => [j, v])));
      svg.append(s('text', { x: 0, y: i * rowH + 14 }, n),
        s('rect', { class: `bar s-${st}${critical.has(n) ? ' critical' : ''}`, x, y: i * rowH + 4, width: w, height: 12, rx: 2 }),
        s('text', { x: x + w + 4, y: i * rowH + 14 }, duration(sp.from, sp.to)));
    });
    put(timeline, h('h2', {}, 'Timeline'), h('p', { class: 'hint' }, 'Bold: the critical path.'), svg);
  }

  function renderApprovals() {
    const items = [];
    for (const [step, ev] of Object.entries(waits)) {
      const comment = h('textarea', { id: `comment-${step}`, 'aria-label': `Comment for ${step}` });
      const err = h('div', { class: 'error', role: 'alert' });
      const decide = approved => async () => {
        try {
          await api(`/v1/runs/${encodeURIComponent(id)}/approvals/${encodeURIComponent(step)}`, {
            method: 'POST', headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ approved, comment: comment.value, by: 'dashboard', instance: ev.instance == null ? '' : String(ev.instance) }),
          });
          delete waits[step];
          renderApprovals();
          say(`${approved ? 'Approved' : 'Rejected'} step ${step}`);
        } catch (x) {
          if (x instanceof Unauthorized) { showToken(); return; }
          err.textContent = x.message;
        }
      };
      items.push(h('section', { class: 'approval', 'aria-label': `Approval of step ${step}`, 'data-approval': step },
        h('h2', {}, `Step ${step} waits for a decision`),
        h('p', {}, ev.message),
        ev.deadline ? h('p', { class: 'hint' }, `Until ${when(ev.deadline)}`) : null,
        h('div', { class: 'field' }, h('label', { for: `comment-${step}` }, 'Comment'), comment),
        h('button', { class: 'primary', onclick: decide(true) }, 'Approve'), ' ',
        h('button', { class: 'danger', onclick: decide(false) }, 'Reject'), err));
    }
    put(approvals, ...items);
  }

  async function showDetail() {
    if (!selected) return;
    try { run = await api(`/v1/runs/${encodeURIComponent(id)}`); } catch (e) { if (e instanceof Unauthorized) { showToken(); return; } }
    const insts = run.steps.filter(st => st.step === selected);
    const def = (flow.steps || []).find(st => st.name === selected);
    put(detail, h('h2', {}, `Step ${selected}`),
      def ? h('p', { class: 'muted' }, `block ${def.use}${def.depends_on.length ? ' · after ' + def.depends_on.join(', ') : ''}`) : null,
      insts.length ? insts.map(st => h('div', { class: 'instance' },
        st.instance ? h('h3', {}, st.instance) : null,
        h('dl', {},
          h('dt', {}, 'Status'), h('dd', {}, status(st.status)),
          h('dt', {}, 'Attempts'), h('dd', {}, String(st.attempts)),
          h('dt', {}, 'Started'), h('dd', {}, when(st.started_at)),
          h('dt', {}, 'Took'), h('dd', {}, duration(st.started_at, st.finished_at))),
        st.error ? [h('h3', {}, 'Error'), h('pre', { class: 'error' }, st.error)] : null,
        h('h3', {}, 'Outputs'),
        st.sensitive ? h('p', {}, '(sensitive)') : st.outputs == null ? h('p', { class: 'muted' }, 'None recorded.') : json(plain(st.outputs)),
        st.log ? [h('h3', {}, 'Log'), h('pre', {}, st.log)] : null)) :
        h('p', { class: 'muted' }, 'Not run yet.'));
  }

  renderHead(); renderOutputs(); renderTimeline(); renderApprovals();
  // Events are applied in batches, once a frame, so that a big flow's
  // stream does not redraw the page for each one.
  let queue = [], scheduled = false, refreshing = false;
  async function refreshRun() {
    if (refreshing) return;
    refreshing = true;
    try {
      run = await api(`/v1/runs/${encodeURIComponent(id)}`);
      renderHead(); renderOutputs(); renderTimeline();
      if (selected) showDetail();
    } catch (e) {
      if (e instanceof Unauthorized) showToken();
    } finally {
      refreshing = false;
    }
  }
  function flush() {
    scheduled = false;
    const batch = queue;
    queue = [];
    let finished = false;
    for (const ev of batch) {
      const key = ev.instance == null ? '' : String(ev.instance);
      switch (ev.type) {
        case 'step_started': (instances[ev.step] ||= {})[key] = 'running'; break;
        case 'step_finished': (instances[ev.step] ||= {})[key] = ev.status; delete waits[ev.step]; break;
        case 'step_waiting': (instances[ev.step] ||= {})[key] = 'waiting'; waits[ev.step] = ev; break;
        case 'run_waiting': run.status = 'waiting'; break;
        case 'run_started': run.status = 'running'; break;
        case 'run_finished': finished = true; run.status = ev.status; break;
      }
    }
    const st = states();
    for (const [name, state] of Object.entries(st)) graph.set(name, state);
    renderApprovals();
    if (finished) say(`The run finished: ${run.status}`);
    refreshRun();
  }
  const stopEvents = events(id, ev => {
    queue.push(ev);
    if (!scheduled) { scheduled = true; requestAnimationFrame(flush); }
  });
  return () => stopEvents();
}

// plain turns a stored typed value ({"value": …, "type": …}) into its value.
function plain(v) {
  return v && typeof v === 'object' && 'value' in v && 'type' in v ? v.value : v;
}

// ---- Router -------------------------------------------------------------

async function render() {
  stopPage();
  stopPage = () => {};
  const path = location.pathname;
  let m;
  try {
    let stop;
    if (path === '/') stop = await runsPage();
    else if (path === '/flows') stop = await flowsPage();
    else if ((m = path.match(/^\/flows\/([^/]+)$/))) stop = await flowPage(decodeURIComponent(m[1]));
    else if ((m = path.match(/^\/runs\/([^/]+)$/))) stop = await runPage(decodeURIComponent(m[1]));
    else put(main, h('h1', {}, 'Not found'), h('p', {}, link('/', 'The runs')));
    if (stop) stopPage = stop;
  } catch (e) {
    if (e instanceof Unauthorized) { showToken(); return; }
    put(main, h('h1', {}, 'Something went wrong'), h('p', { class: 'error', role: 'alert' }, e.message));
  }
}

function navigate(href) {
  history.pushState(null, '', href);
  render();
  main.focus();
}

document.addEventListener('click', e => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', render);
render();
