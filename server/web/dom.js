// Building and updating the page: elements, SVG, and the formats of
// values (statuses, times, durations).

export const main = document.getElementById('main');
const live = document.getElementById('live');

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const svgNS = 'http://www.w3.org/2000/svg';
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function status(st) {
  return h('span', { class: `status s-${st}` }, st);
}

export function link(href, text) {
  return h('a', { href, 'data-link': true }, text);
}

export function when(t) {
  return t ? new Date(t).toLocaleString() : '–';
}

export function duration(from, to) {
  if (!from) return '–';
  const ms = (to ? new Date(to) : new Date()) - new Date(from);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

// runDuration is a run's duration: so far, for one that has not ended (a
// waiting run's too, though it stopped to wait).
export function runDuration(run) {
  if (['queued', 'running', 'waiting'].includes(run.status)) return run.started_at ? `${duration(run.started_at, null)} so far` : '–';
  return duration(run.started_at, run.finished_at);
}

// put replaces an element's children, leaving out null, undefined and
// false (a part a page shows only sometimes).
export function put(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter(c => c !== null && c !== undefined && c !== false));
}

export function json(v) {
  return h('pre', {}, JSON.stringify(v, null, 2));
}

export function say(text) {
  live.textContent = text;
}

// tokens is a usage ({prompt_tokens, completion_tokens, total_tokens})
// as text: the total, then prompt + completion.
export function tokens(u) {
  const total = u.total_tokens || (u.prompt_tokens || 0) + (u.completion_tokens || 0);
  const cost = u.cost_usd != null ? `, $${u.cost_usd.toFixed(4)}` : '';
  return `${total} (${u.prompt_tokens || 0} prompt + ${u.completion_tokens || 0} completion)${cost}`;
}
