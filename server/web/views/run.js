// A run's page (/runs/{id}): its graph, live from its events, a step's
// detail, the outputs, a timeline and the approvals it waits for.

import { api, events, Unauthorized } from '../api.js';
import { duration, h, json, link, main, put, s, say, status, when } from '../dom.js';
import { showToken } from '../token.js';
import { dag } from './dag.js';

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

export async function runPage(id) {
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
        h('button', { class: 'danger', onclick: () => api(`/v1/runs/${encodeURIComponent(id)}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }).catch(() => {}) }, 'Cancel the run') : null);
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
            body: JSON.stringify({ approved, comment: comment.value, instance: ev.instance == null ? '' : String(ev.instance) }),
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
