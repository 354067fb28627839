// The detail of a step of a run: its instances with status, attempts,
// times, error, outputs and log; for a step of many instances, the counts
// by status, the instances that did not succeed, and every instance a
// page at a time.

import { api } from '../api.js';
import { duration, h, json, put, status, tokens, when } from '../dom.js';

// instanceLabel is how an instance of a for_each step is headed
// ("instance 0", "instance en"); '' for a step without for_each.
const instanceLabel = st => st.instance == null || st.instance === '' ? '' : `instance ${st.instance}`;

// failedFirst orders a step's instances for its panel: the failed ones,
// then the cancelled, then those not finished, then the rest, each in the
// order of their keys.
const rank = { failed: 0, cancelled: 1, ok: 3, cached: 3, skipped: 3 };
const failedFirst = insts => insts.map((st, i) => [st, i])
  .sort(([a, i], [b, j]) => ((rank[a.status] ?? 2) - (rank[b.status] ?? 2)) || i - j)
  .map(([st]) => st);

function instance(st) {
  const label = instanceLabel(st);
  return h('div', { class: 'instance', 'data-instance': st.instance ?? '', 'data-status': st.status },
    label ? h('h3', {}, label) : null,
    h('dl', {},
      h('dt', {}, 'Status'), h('dd', {}, status(st.status)),
      h('dt', {}, 'Attempts'), h('dd', {}, String(st.attempts)),
      h('dt', {}, 'Started'), h('dd', {}, when(st.started_at)),
      h('dt', {}, 'Took'), h('dd', {}, duration(st.started_at, st.finished_at)),
      st.usage ? [h('dt', {}, 'Tokens'), h('dd', { class: 'tokens' }, tokens(st.usage))] : null),
    st.error ? [h('h3', {}, 'Error'), h('pre', { class: 'error' }, st.error)] : null,
    h('h3', {}, 'Outputs'),
    st.sensitive ? h('p', {}, '(sensitive)') : st.outputs == null ? h('p', { class: 'muted' }, 'None recorded.') : json(st.outputs),
    st.log ? [h('h3', {}, 'Log'), h('pre', {}, st.log)] : null);
}

// callsSection lists a step's model calls (GET /v1/runs/{id}/calls),
// each opening to its messages and reply, read whole when opened.
function callsSection(run, name) {
  const id = run.run_id;
  const list = h('div', { id: 'calls' });
  const section = h('section', {}, h('h3', {}, 'Model calls'), list);
  api(`/v1/runs/${encodeURIComponent(id)}/calls?step=${encodeURIComponent(name)}&limit=200`).then(page => {
    if (!page.calls.length) { section.hidden = true; return; }
    put(list, page.calls.map(c => {
      const body = h('div', { class: 'call-body' });
      const item = h('details', { 'data-call': String(c.seq) },
        h('summary', {}, `#${c.seq}${c.instance ? ' [' + c.instance + ']' : ''} · ${c.provider ? c.provider + '/' : ''}${c.model} · ${c.status || 'no reply'} · ${c.duration_ms}ms`,
          c.usage ? ` · ${tokens(c.usage)}` : ''), body);
      item.addEventListener('toggle', async () => {
        if (!item.open || body.childNodes.length) return;
        const whole = await api(`/v1/runs/${encodeURIComponent(id)}/calls/${c.seq}`);
        put(body,
          whole.request.messages.map(m => [h('h4', {}, m.role), h('pre', { class: 'message' }, m.content)]),
          whole.error ? [h('h4', {}, 'Error'), h('pre', { class: 'error' }, whole.error)] : null,
          whole.response != null ? [h('h4', {}, 'Reply'), h('pre', { class: 'reply' }, whole.response)] : null,
          (whole.tool_calls || []).map(t => [h('h4', {}, `Calls ${t.name}`), h('pre', {}, t.arguments)]));
      });
      return item;
    }));
  }).catch(() => { section.hidden = true; });
  return section;
}

// renderDetail shows step name of run in el.
export function renderDetail(el, run, flow, name) {
  const def = (flow.steps || []).find(st => st.name === name);
  const sum = (run.summarized || []).find(s => s.step === name);
  const head = [h('h2', {}, `Step ${name}`),
    def ? h('p', { class: 'muted' }, `block ${def.use}${def.depends_on.length ? ' · after ' + def.depends_on.join(', ') : ''}`) : null,
    def && def.for_each ? h('p', { class: 'hint' }, 'Runs once for each item of its for_each.') : null];
  if (!sum) {
    const insts = run.steps.filter(st => st.step === name);
    // The tokens of an llm step's instances, in all.
    const used = insts.filter(st => st.usage).map(st => st.usage);
    const total = k => used.reduce((n, u) => n + (u[k] || 0), 0);
    const priced = used.filter(u => u.cost_usd != null);
    const sum = { prompt_tokens: total('prompt_tokens'), completion_tokens: total('completion_tokens'), total_tokens: total('total_tokens'),
      cost_usd: priced.length ? priced.reduce((n, u) => n + u.cost_usd, 0) : null };
    const all = used.length > 1 ? h('p', { id: 'step-tokens' }, `Tokens, all ${used.length} instances: ${tokens(sum)}`) : null;
    put(el, head, all, insts.length ? failedFirst(insts).map(instance) : h('p', { class: 'muted' }, 'Not run yet.'),
      insts.length && run.run_id ? callsSection(run, name) : null);
    return;
  }
  // Many instances: counts, what did not succeed, and pages of them all.
  const list = h('div', { id: 'instances' });
  const more = h('button', { type: 'button' }, 'Show the instances');
  let cursor = '';
  more.addEventListener('click', async () => {
    const q = new URLSearchParams({ limit: '50' });
    if (cursor) q.set('cursor', cursor);
    const page = await api(`${sum.links.instances}?${q}`);
    list.append(...page.instances.map(instance));
    cursor = page.next_cursor || '';
    more.textContent = 'Show more';
    more.hidden = !cursor;
  });
  put(el, head,
    h('dl', { id: 'counts' },
      h('dt', {}, 'Instances'), h('dd', {}, String(sum.instances)),
      Object.entries(sum.counts).flatMap(([st, n]) => [h('dt', {}, st), h('dd', {}, String(n))]),
      h('dt', {}, 'Took'), h('dd', {}, duration(sum.started_at, sum.finished_at))),
    sum.unsuccessful.length ? [h('h3', {}, `Did not succeed${sum.more ? ' (the first 50)' : ''}`), sum.unsuccessful.map(instance)] : null,
    h('h3', {}, 'All instances'), list, more);
}
