// The graph of a flow's steps, as SVG.

import { s } from '../dom.js';

// dag lays a flow's steps out left to right by stage and draws them, each
// node with its name, block and state; onSelect is told a clicked node.
export function dag(flow, states, onSelect) {
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
