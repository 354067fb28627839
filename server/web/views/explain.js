// The Explain action of a failed run's page: asks the server why the run
// failed (POST /v1/runs/{id}/explain, with the server's model), shows the
// diagnosis and the diff of the fix it checked and staged, and accepts or
// rejects that proposal (POST /v1/proposals/{id}/accept|reject). A fix
// that weakens the flow (removes an approval, a timeout, …) says so in red
// above its diff; accepting it takes roles author and approve.

import { api, Unauthorized } from '../api.js';
import { h, put, say } from '../dom.js';
import { showToken } from '../token.js';

const explainable = ['failed', 'cancelled', 'interrupted'];

const post = (path, body = {}) => api(path, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
});

// diffView is a unified diff, its added and removed lines marked.
function diffView(diff) {
  return h('pre', { class: 'diff', id: 'explain-diff' }, diff.split('\n').map(line => {
    const cls = line.startsWith('+++') || line.startsWith('---') ? 'file'
      : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : null;
    return [cls ? h('span', { class: cls }, line) : line, '\n'];
  }));
}

// weakeningsView is what a proposal weakens, in red; null when nothing.
function weakeningsView(ws) {
  if (!ws || !ws.length) return null;
  return h('div', { class: 'weakens', id: 'proposal-weakens', role: 'alert' },
    h('strong', {}, 'This change weakens the flow: accepting it takes roles author and approve.'),
    h('ul', {}, ws.map(w => h('li', { 'data-kind': w.kind }, `${w.flow}: ${w.message}`))));
}

// someNames are the first ten names of a list of count, and how many more.
function someNames(names, count) {
  const shown = (names || []).slice(0, 10);
  const more = count - shown.length;
  return shown.join(', ') + (more > 0 ? ` and ${more.toLocaleString('en-US')} more` : '');
}

// explainPanel is the panel of a run: empty for a run that did not fail;
// update(run) follows the run's status.
export function explainPanel(runID) {
  const panel = h('section', { id: 'explain', 'aria-label': 'Explain the failure' });
  let shown = false, busy = false;
  const fail = (x, out) => {
    if (x instanceof Unauthorized) { showToken(); return; }
    out.textContent = x.message;
  };

  function renderProposal(res, out) {
    const p = res.proposal;
    if (!p) {
      out.append(h('p', { id: 'explain-nofix' }, res.no_fix_reason ? `No fix could be verified: ${res.no_fix_reason}` : 'No fix was asked for.'));
      return;
    }
    const err = h('div', { class: 'error', role: 'alert' });
    const state = h('p', { id: 'proposal-status' }, `Proposal ${p.id}: ${p.status}.`);
    const decide = verb => async () => {
      try {
        const now = await post(`/v1/proposals/${encodeURIComponent(p.id)}/${verb}`);
        state.textContent = `Proposal ${now.id}: ${now.status}.` + (now.status === 'accepted' ? ' Its files are written; start the flow again, or resume the run with flowctl apply --resume.' : '');
        buttons.remove();
        say(`Proposal ${now.status}`);
      } catch (x) { fail(x, err); }
    };
    const buttons = h('div', { class: 'actions' },
      h('button', { class: 'primary', id: 'proposal-accept', onclick: decide('accept') }, 'Accept'), ' ',
      h('button', { class: 'danger', id: 'proposal-reject', onclick: decide('reject') }, 'Reject'));
    const ev = p.evidence || {};
    // A fix that needs a secret or a host the flow does not use was not
    // run: a person reads it and decides.
    const needs = ev.not_verified && ev.not_verified.length ? ev.not_verified : null;
    out.append(h('h3', {}, needs ? 'Proposed fix, not verified' : 'Proposed fix'),
      h('p', { id: 'explain-summary' }, (res.checks.find(c => c.ok || (c.not_verified && c.not_verified.length)) || {}).summary || p.intent),
      ev.succeeded_now && ev.succeeded_now.length ? h('p', { class: 'hint' }, `Checked: ${ev.succeeded_now.join(', ')} failed in the run and succeed with it.`) : null,
      ev.rechecked_count ? h('p', { class: 'hint', id: 'explain-rechecked' }, `Checked: ${someNames(ev.rechecked, ev.rechecked_count)} succeeded in the run and succeed again with it.`) : null,
      ev.kept_count ? h('p', { class: 'hint', id: 'explain-kept' }, `Not checked: ${someNames(ev.kept, ev.kept_count)} succeeded in the run and kept what they recorded (${Object.entries(ev.kept_because || {}).map(([s, why]) => `step ${s}: ${why}`).join('; ')}).`) : null,
      needs ? h('div', { class: 'approval', id: 'explain-not-verified' },
        h('p', {}, 'It was not run, since it needs what the flow as it is does not use. Read the change before you accept it:'),
        h('ul', {}, needs.map(n => h('li', {}, n)))) : null,
      weakeningsView(p.weakenings), diffView(p.diff || ''), state, buttons, err);
  }

  async function explain(button, out) {
    if (busy) return;
    busy = true;
    button.disabled = true;
    put(out, h('p', { class: 'muted' }, 'Asking the model, and checking its fix on a copy of the run…'));
    try {
      const res = await post(`/v1/runs/${encodeURIComponent(runID)}/explain`);
      const u = res.usage;
      put(out, h('h3', {}, 'Diagnosis'), h('p', { id: 'explain-diagnosis' }, res.diagnosis),
        h('p', { class: 'hint', id: 'explain-usage' }, `${u.calls} model call${u.calls === 1 ? '' : 's'}, ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens.`));
      renderProposal(res, out);
      say('The run is explained');
    } catch (x) {
      put(out);
      fail(x, out);
      out.classList.add('error');
    } finally {
      busy = false;
      button.disabled = false;
    }
  }

  function update(run) {
    if (shown || !explainable.includes(run.status) || !run.finished_at) return;
    shown = true;
    const out = h('div', { id: 'explain-result', role: 'status' });
    const button = h('button', { id: 'explain-run', onclick: () => { out.classList.remove('error'); explain(button, out); } }, 'Explain');
    put(panel, h('h2', {}, 'Why it failed'),
      h('p', { class: 'hint' }, 'The model gets the flow, the failed steps’ errors, logs and blocks (secrets redacted); a fix it proposes is checked on a copy of the run before it is shown.'),
      button, out);
  }
  return { panel, update };
}
