// The runs page (/): every run, newest first, with filters.

import { api } from '../api.js';
import { h, link, main, put, runDuration, status, when } from '../dom.js';

const statuses = ['queued', 'running', 'waiting', 'ok', 'failed', 'cancelled', 'interrupted'];

export async function runsPage() {
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
      h('td', {}, runDuration(r)),
      h('td', {}, (r.waiting_for || []).map(w => `${w.step}: ${w.message}`).join('; ')))) :
      [h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No runs yet.'))]));
  }
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 2000);
  return () => clearInterval(timer);
}
