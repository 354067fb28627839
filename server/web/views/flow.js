// A flow's page (/flows/{flow}): its graph, a form that starts a run,
// its schedules, triggers and recent runs.

import { api, Unauthorized } from '../api.js';
import { h, link, main, put, runDuration, status, when } from '../dom.js';
import { navigate } from '../router.js';
import { dag, forEachHint } from './dag.js';

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

export async function flowPage(name) {
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
    h('div', { class: 'graph' }, dag(flow, null, null).svg),
    h('p', { class: 'hint' }, 'Bold: the critical path, the longest chain of steps.'),
    flow.steps.some(st => st.for_each) ? h('p', { class: 'hint' }, forEachHint) : null,
    h('h2', {}, 'Run it'), form,
    h('h2', {}, 'Schedules'),
    flow.schedules?.length ? h('ul', {}, flow.schedules.map(sc => h('li', {}, `${sc.name}: ${sc.cron} (${sc.timezone})`))) : h('p', { class: 'muted' }, 'None.'),
    flow.triggers?.length ? [h('h2', {}, 'Triggers'), h('ul', {}, flow.triggers.map(t => h('li', {}, t.path
      ? `${t.name}: ${t.method} ${t.path}, verify ${t.verify}, respond ${t.respond}`
      : `${t.name}: after a run of ${t.after_flow} that ends ${t.status.join(' or ')}`)))] : null,
    h('h2', {}, 'Recent runs'),
    h('table', {}, h('thead', {}, h('tr', {}, ['Run', 'Status', 'Started', 'Duration'].map(t => h('th', { scope: 'col' }, t)))), recent));
  async function refresh() {
    const { runs } = await api(`/v1/runs?flow=${encodeURIComponent(name)}&limit=10`);
    put(recent, ...runs.map(r => h('tr', {},
      h('td', {}, link(`/runs/${r.run_id}`, r.run_id)), h('td', {}, status(r.status)),
      h('td', {}, when(r.started_at)), h('td', {}, runDuration(r)))));
  }
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 3000);
  return () => clearInterval(timer);
}

// dag lays a flow's steps out left to right by stage and draws them, each
// node with its name, block and state; onSelect is told a clicked node.
