// The evals page (/evals): the latest results of each eval — every
// variant's score means with their 95% intervals and the gates — and each
// score's history over time as a small line chart (inline SVG).

import { api } from '../api.js';
import { h, main, put, s, when } from '../dom.js';

export async function evalsPage() {
  document.title = 'Evaluations · flowctl';
  const { evals } = await api('/v1/evals');
  if (evals.length === 0) {
    put(main, h('h1', {}, 'Evaluations'), h('p', { class: 'muted' }, 'No evaluation results yet: flowctl eval keeps them in this state.'));
    return;
  }
  put(main, h('h1', {}, 'Evaluations'), evals.map(evalSection));
}

function evalSection(e) {
  const sum = e.latest.summary;
  const scores = [...new Set(sum.variants.flatMap(v => Object.keys(v.scores)))].sort();
  return h('section', { class: 'eval', 'data-eval': e.eval },
    h('h2', {}, e.eval),
    h('p', { class: 'muted' }, `Flow ${sum.flow} (${sum.file}), latest results ${e.latest.id}, ${when(sum.started_at)}`),
    h('table', { class: 'eval-latest' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Variant'), h('th', { scope: 'col' }, 'Cases'),
        scores.map(n => h('th', { scope: 'col' }, n)))),
      h('tbody', {}, sum.variants.map(v => h('tr', {},
        h('td', {}, v.name), h('td', {}, String(v.cases)),
        scores.map(n => {
          const st = v.scores[n];
          return h('td', { class: 'num' }, st ? `${st.mean.toFixed(3)} [${st.low.toFixed(3)}, ${st.high.toFixed(3)}]` : '–');
        }))))),
    (sum.gates || []).length ? h('ul', { class: 'gates' }, sum.gates.map(g =>
      h('li', { class: g.held ? 'held' : 'error' }, `${g.held ? 'held' : 'failed'}: ${g.score}${g.variant ? ` of ${g.variant}` : ''}${g.reason ? ` — ${g.reason}` : ''}`))) : null,
    h('div', { class: 'charts' }, scores.map(n => chart(e.history, n))));
}

const W = 240, H = 80, PAD = 6;

// chart is the history of a score: one line a variant, its means over
// time (by results, evenly spaced), on a 0–1 scale.
function chart(history, score) {
  const variants = [...new Set(history.flatMap(p => Object.keys(p.means).filter(v => score in p.means[v])))].sort();
  const x = i => PAD + (history.length > 1 ? i * (W - 2 * PAD) / (history.length - 1) : (W - 2 * PAD) / 2);
  const y = m => H - PAD - m * (H - 2 * PAD);
  const lines = variants.map((v, k) => {
    const pts = history.map((p, i) => p.means[v] && score in p.means[v] ? [x(i), y(p.means[v][score]), p] : null).filter(Boolean);
    return s('g', { class: `series c${k % 6}`, 'data-variant': v },
      s('polyline', { points: pts.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' '), fill: 'none' }),
      pts.map(([px, py, p]) => s('circle', { cx: px.toFixed(1), cy: py.toFixed(1), r: 2.5 },
        s('title', {}, `${v}: ${p.means[v][score].toFixed(3)}, ${when(p.started_at)}`))));
  });
  return h('figure', { class: 'eval-chart', 'data-score': score },
    s('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': `History of ${score}` },
      s('line', { x1: PAD, x2: W - PAD, y1: y(0), y2: y(0), class: 'axis' }),
      s('line', { x1: PAD, x2: W - PAD, y1: y(1), y2: y(1), class: 'axis' }),
      lines),
    h('figcaption', {}, `${score}: `, variants.map((v, k) => h('span', { class: `key c${k % 6}` }, v))));
}
