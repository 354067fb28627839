// A run's page (/runs/{id}): its graph, live from its events, a step's
// detail, the outputs, a timeline and the approvals it waits for. A run of
// many instances stays responsive: step states are counts (steps.js), a
// step of many instances is summarized by the API, and the event stream
// starts after the events the run as read already reflects.

import { api, events, Unauthorized } from '../api.js';
import { h, json, link, main, put, runDuration, say, status, tokens, when } from '../dom.js';
import { showToken } from '../token.js';
import { dag, forEachHint } from './dag.js';
import { renderDetail } from './detail.js';
import { explainPanel } from './explain.js';
import { criticalPath, StepStates } from './steps.js';
import { renderTimeline } from './timeline.js';

const live = ['queued', 'running', 'waiting'];

// instanceOf is the instance of a step_waiting event or a waiting_for
// entry as the API takes it: '' for a step without for_each.
const instanceOf = w => w.instance == null ? '' : String(w.instance);
const waitKey = w => `${w.step}\u0000${instanceOf(w)}`;

export async function runPage(id) {
  document.title = `Run ${id} · flowctl`;
  const path = `/v1/runs/${encodeURIComponent(id)}`;
  let run = await api(path);
  const flow = await api(`/v1/flows/${encodeURIComponent(run.flow)}`).catch(e => {
    if (e instanceof Unauthorized) throw e;
    return { name: run.flow, steps: [] };
  });
  const steps = new StepStates();
  steps.load(run);
  // What the run waits for: step and instance → its step_waiting event,
  // or its entry in the run's waiting_for. decided: those this page
  // decided, which a reading of the run made before the decision may
  // still list.
  const waits = new Map(), decided = new Set();
  // A queued run's entry names the limit it waits for, not an approval.
  const approvalsOf = r => (r.waiting_for || []).filter(w => !w.limit);
  const limitOf = r => r.status === 'queued' ? (r.waiting_for || []).filter(w => w.limit).map(w => w.limit).join('; ') : '';
  for (const w of approvalsOf(run)) waits.set(waitKey(w), w);
  let selected = null;
  const states = () => Object.fromEntries((flow.steps || []).map(st => [st.name, steps.state(st.name)]));
  const graph = dag(flow, states(), name => { selected = name; graph.select(name); showDetail(true); });
  const head = h('div');
  const detail = h('div', { class: 'panel', id: 'detail' }, h('p', { class: 'muted' }, 'Select a step to see its inputs, outputs, attempts and error.'));
  const approvals = h('div', { id: 'approvals' });
  const explain = explainPanel(run.run_id || id);
  const outputs = h('div', { id: 'outputs' });
  const timeline = h('div', { id: 'timeline' });
  const hint = (flow.steps || []).some(st => st.for_each) ? h('p', { class: 'hint' }, forEachHint) : null;
  put(main, head, explain.panel, approvals,
    h('div', { class: 'layout' }, h('div', {}, h('div', { class: 'graph', id: 'graph' }, graph.svg), hint, outputs, timeline), detail));

  function renderHead() {
    put(head,
      h('h1', {}, 'Run ', h('code', {}, run.run_id || id), ' of ', link(`/flows/${encodeURIComponent(run.flow)}`, run.flow)),
      h('dl', {},
        h('dt', {}, 'Status'), h('dd', { id: 'run-status' }, status(run.status)),
        limitOf(run) ? [h('dt', {}, 'Waits for'), h('dd', { id: 'run-waiting-for' }, limitOf(run))] : null,
        h('dt', {}, 'Started'), h('dd', {}, when(run.started_at)),
        h('dt', {}, 'Duration'), h('dd', { id: 'run-duration' }, runDuration(run)),
        run.version ? [h('dt', {}, 'Version'), h('dd', { id: 'run-version' }, h('code', {}, run.version.hash.slice(0, 12)),
          run.version.commit ? [', git commit ', h('code', {}, run.version.commit.slice(0, 12))] : null)] : null,
        run.paused ? [h('dt', {}, 'Paused'), h('dd', { id: 'run-paused' }, `since ${when(run.paused.since)} by ${run.paused.by}: no step starts until it is resumed`)] : null,
        run.usage ? [h('dt', {}, 'Tokens'), h('dd', { id: 'run-tokens' }, tokens(run.usage))] : null,
        run.error ? [h('dt', {}, 'Error'), h('dd', { class: 'error', id: 'run-error' }, run.error.message,
          run.error.diagnostics.length > 1 ? h('ul', {}, run.error.diagnostics.map(d => h('li', {}, `${d.step ? d.step + ': ' : ''}${d.detail}`))) : null)] : null),
      live.includes(run.status) ? [
        h('button', { id: 'run-pause', onclick: pause(!run.paused) }, run.paused ? 'Resume the run' : 'Pause the run'), ' ',
        h('button', { class: 'danger', onclick: () => api(`${path}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }).catch(() => {}) }, 'Cancel the run')] : null);
    explain.update(run);
  }

  // Pausing a run: the steps running finish, no step starts until it is
  // resumed.
  function pause(on) {
    return async () => {
      try {
        await api(`${path}/${on ? 'pause' : 'resume'}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
        say(on ? 'Paused the run' : 'Resumed the run');
      } catch (x) {
        if (x instanceof Unauthorized) { showToken(); return; }
        say(x.message);
      }
      refreshRun(true);
    };
  }

  function renderOutputs() {
    const parts = [h('h2', {}, 'Outputs')];
    if (run.outputs && Object.keys(run.outputs).length) parts.push(json(run.outputs));
    else parts.push(h('p', { class: 'muted' }, run.finished_at && !live.includes(run.status) ? 'None.' : 'When the run finishes.'));
    if (run.failed_outputs && run.failed_outputs.length) {
      parts.push(h('p', {}, 'Without a value:'), h('ul', {}, run.failed_outputs.map(f => h('li', {}, `${f.name}: ${f.reason || f.error || ''}`))));
    }
    put(outputs, ...parts);
  }

  // The graph's states, and the critical path that the graph and the
  // timeline both draw.
  function renderSteps(changed) {
    for (const name of changed) graph.set(name, steps.state(name), steps.count(name));
    const spans = steps.spans();
    const critical = criticalPath(flow, spans);
    graph.critical(critical);
    renderTimeline(timeline, flow, spans, critical, name => steps.state(name));
  }

  // The approvals the run waits for, one section each, keyed by step and
  // instance. A section stays as it is while its instance waits, so that
  // events coming while a person types a comment or presses a button
  // neither clear the comment nor take the button away under the pointer.
  const sections = new Map(); // key → section
  function renderApprovals() {
    for (const [key, section] of sections) {
      if (!waits.has(key)) { section.remove(); sections.delete(key); }
    }
    for (const [key, ev] of waits) {
      const old = sections.get(key);
      if (old && !old.dataset.fields && ev.fields) { old.remove(); sections.delete(key); } // the fields came with the run
      if (!sections.has(key)) {
        const section = approvalSection(key, ev);
        sections.set(key, section);
        approvals.append(section);
      }
    }
  }
  function approvalSection(key, ev) {
    const { step } = ev;
    const instance = instanceOf(ev);
    const label = instance === '' ? step : `${step}[${instance}]`;
    const id = `comment-${step}${instance === '' ? '' : '-' + instance}`;
    const comment = h('textarea', { id, 'aria-label': `Comment for ${label}` });
    const err = h('div', { class: 'error', role: 'alert' });
    const fields = (ev.fields || []).map(f => fieldInput(id, f));
    const decide = approved => async () => {
      err.textContent = '';
      try {
        const inputs = {};
        if (approved) for (const f of fields) { const v = f.value(); if (v !== undefined) inputs[f.name] = v; }
        await api(`${path}/approvals/${encodeURIComponent(step)}`, {
          method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ approved, comment: comment.value, instance, inputs }),
        });
        waits.delete(key);
        decided.add(key);
        renderApprovals();
        say(`${approved ? 'Approved' : 'Rejected'} step ${label}`);
      } catch (x) {
        if (x instanceof Unauthorized) { showToken(); return; }
        err.textContent = x.message;
      }
    };
    return h('section', { class: 'approval', 'aria-label': `Approval of step ${label}`, 'data-approval': step, 'data-instance': instance, 'data-fields': ev.fields ? 'y' : '' },
      h('h2', {}, `Step ${label} waits for a decision`),
      h('p', {}, ev.message),
      ev.deadline ? h('p', { class: 'hint' }, `Until ${when(ev.deadline)}`) : null,
      fields.map(f => f.field),
      h('div', { class: 'field' }, h('label', { for: id }, 'Comment'), comment),
      h('button', { class: 'primary', onclick: decide(true) }, 'Approve'), ' ',
      h('button', { class: 'danger', onclick: decide(false) }, 'Reject'), err);
  }

  // fieldInput is the form field of an approval's input field (a
  // runtime.ApprovalField): a number, a checkbox, a text, or JSON for
  // other types, with its default; value() is what the decision sends,
  // undefined when left empty (the field's default then, or the server
  // says it is required).
  function fieldInput(prefix, f) {
    const id = `${prefix}-field-${f.name}`;
    const def = f.default === undefined ? undefined : f.default;
    let input, value;
    switch (f.type) {
      case 'number':
        input = h('input', { id, type: 'number', step: 'any', value: def ?? '' });
        value = () => input.value === '' ? undefined : Number(input.value);
        break;
      case 'bool':
        input = h('input', { id, type: 'checkbox' });
        input.checked = !!def;
        value = () => input.checked;
        break;
      case 'string':
        input = h('input', { id, type: 'text', value: def ?? '' });
        value = () => input.value === '' && def === undefined ? undefined : input.value;
        break;
      default:
        input = h('textarea', { id, class: 'json' }, def === undefined ? '' : JSON.stringify(def, null, 2));
        value = () => {
          if (input.value.trim() === '') return undefined;
          try { return JSON.parse(input.value); } catch (x) { throw new Error(`${f.name} is not JSON: ${x.message}`); }
        };
    }
    const field = h('div', { class: 'field' },
      h('label', { for: id }, `${f.name} (${f.type}${def === undefined ? ', required' : ''})`),
      f.description ? h('p', { class: 'hint' }, f.description) : null, input);
    return { name: f.name, field, value };
  }

  // The text of streaming steps as it comes (step_delta events), by step
  // and instance, shown in the selected step's panel while the run is live.
  const streamed = new Map(); // step → Map(instance → text)
  const streamBox = h('section', { id: 'stream', hidden: true });
  function stream(ev) {
    let m = streamed.get(ev.step);
    if (!m) streamed.set(ev.step, m = new Map());
    const inst = instanceOf(ev);
    m.set(inst, (ev.reset ? '' : (m.get(inst) || '')) + ev.text);
    return ev.step;
  }
  function renderStream() {
    const m = selected && streamed.get(selected);
    streamBox.hidden = !m || !m.size;
    if (streamBox.hidden) return;
    put(streamBox, h('h3', {}, 'Reply, as it comes'),
      [...m].map(([inst, text]) => h('pre', { class: 'stream', 'data-instance': inst }, inst === '' ? text : `[${inst}] ${text}`)));
    if (streamBox.parentNode !== detail) detail.append(streamBox);
  }

  // A refresh draws a step of many instances again only when its counts
  // changed, so that the pages of instances a person opened stay open.
  let shown = '';
  function showDetail(picked) {
    if (!selected) return;
    const sum = (run.summarized || []).find(s => s.step === selected);
    const key = sum ? selected + JSON.stringify([sum.counts, sum.finished_at]) : '';
    if (!picked && key && key === shown) return;
    shown = key;
    renderDetail(detail, run, flow, selected);
    renderStream();
  }

  const all = (flow.steps || []).map(st => st.name);
  renderHead(); renderOutputs(); renderSteps(all); renderApprovals();
  // The run as the API has it, again: at most once a second while events
  // come, and when the run ends.
  let refreshing = false, lastRefresh = 0, again = null;
  async function refreshRun(now) {
    if (refreshing || (!now && Date.now() - lastRefresh < 1000)) {
      if (!again) again = setTimeout(() => { again = null; refreshRun(true); }, 1000);
      return;
    }
    refreshing = true;
    lastRefresh = Date.now();
    try {
      run = await api(path);
      steps.load(run);
      renderHead(); renderOutputs(); renderSteps(all);
      showDetail();
      // What the run waits for, as the API has it: an event of the stream
      // may have come before the page read the run.
      const missing = approvalsOf(run).filter(w => !decided.has(waitKey(w)) &&
        (!waits.has(waitKey(w)) || (w.fields && !waits.get(waitKey(w)).fields)));
      for (const w of missing) waits.set(waitKey(w), w);
      if (missing.length) renderApprovals();
    } catch (e) {
      if (e instanceof Unauthorized) showToken();
    } finally {
      refreshing = false;
    }
  }
  // A step's instance that finished waits no more; a for_each step that
  // finished, none of its instances.
  function finishWaits(ev) {
    if (ev.instance != null) { waits.delete(waitKey(ev)); return; }
    for (const [key, w] of waits) if (w.step === ev.step) waits.delete(key);
  }
  // Events are applied in batches, once a frame, so that a big flow's
  // stream does not redraw the page for each one.
  let queue = [], scheduled = false;
  function flush() {
    scheduled = false;
    const batch = queue;
    queue = [];
    let finished = false;
    const changed = new Set();
    let streaming = false;
    for (const ev of batch) {
      if (ev.type === 'step_delta') { streaming = stream(ev) === selected || streaming; continue; }
      const step = steps.apply(ev);
      if (step) changed.add(step);
      switch (ev.type) {
        case 'step_finished': finishWaits(ev); break;
        case 'step_waiting': waits.set(waitKey(ev), ev); decided.delete(waitKey(ev)); break;
        case 'run_waiting': run.status = 'waiting'; break;
        case 'run_started': run.status = 'running'; break;
        case 'run_finished': finished = true; run.status = ev.status; break;
      }
    }
    if (streaming) renderStream();
    renderSteps(changed);
    renderApprovals();
    if (finished) say(`The run finished: ${run.status}`);
    refreshRun(finished);
  }
  // A run that has ended sends nothing more; the others, what comes after
  // the events the run as read reflects.
  const stopEvents = !live.includes(run.status) && run.finished_at ? () => {} : events(id, ev => {
    queue.push(ev);
    if (!scheduled) { scheduled = true; requestAnimationFrame(flush); }
  }, null, run.last_event || 0);
  const tick = setInterval(() => {
    if (live.includes(run.status)) {
      const d = document.getElementById('run-duration');
      if (d) d.textContent = runDuration(run);
    }
  }, 1000);
  return () => { stopEvents(); clearInterval(tick); if (again) clearTimeout(again); };
}
