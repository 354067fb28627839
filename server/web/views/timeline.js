// A run's timeline: each step's span from its first start to its last
// end, the critical path (the chain of dependencies that took the
// longest, the one the graph draws bold too) in bold.

import { duration, h, put, s } from '../dom.js';

// renderTimeline draws the spans of flow's steps in el; stateOf is a
// step's state, critical the path.
export function renderTimeline(el, flow, spans, critical, stateOf) {
  const names = (flow.steps || []).map(st => st.name).filter(n => spans[n]);
  if (!names.length) { put(el); return; }
  const t0 = Math.min(...names.map(n => spans[n].from)), t1 = Math.max(...names.map(n => spans[n].to));
  const total = Math.max(1, t1 - t0);
  const onPath = new Set(critical);
  const rowH = 20, labelW = 160, barW = 520;
  const svg = s('svg', { class: 'gantt', width: labelW + barW + 80, height: names.length * rowH + 10, role: 'img',
    'data-critical': critical.join(' '),
    'aria-label': `Timeline of ${names.length} steps; critical path ${critical.join(' → ')}` });
  names.forEach((n, i) => {
    const sp = spans[n];
    const x = labelW + ((sp.from - t0) / total) * barW, w = Math.max(2, ((sp.to - sp.from) / total) * barW);
    svg.append(s('text', { x: 0, y: i * rowH + 14 }, n),
      s('rect', { class: `bar s-${stateOf(n)}${onPath.has(n) ? ' critical' : ''}`, 'data-step': n, x, y: i * rowH + 4, width: w, height: 12, rx: 2 }),
      s('text', { x: x + w + 4, y: i * rowH + 14 }, duration(sp.from, sp.to)));
  });
  put(el, h('h2', {}, 'Timeline'), h('p', { class: 'hint' }, 'Bold, here and in the graph: the critical path, the chain of steps that took the longest.'), svg);
}
