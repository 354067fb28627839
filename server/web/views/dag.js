// The graph of a flow's steps, as SVG.

import { s } from '../dom.js';

// forEachHint explains the × of a step that runs once per item.
export const forEachHint = '× — the step runs once for each item of its for_each';

// dag lays a flow's steps out left to right by stage and draws them, each
// node with its name and block, and its state when states is given (the
// run page; the flow page has none); onSelect is told a clicked node. The
// edges of a critical path (critical) are drawn bold.
export function dag(flow, states, onSelect) {
  const colW = 210, rowH = 64, nodeW = 170, nodeH = 44, pad = 20;
  const byStage = [];
  for (const st of flow.steps || []) (byStage[st.stage] ||= []).push(st);
  const pos = {};
  byStage.forEach((col, x) => col.forEach((st, y) => { pos[st.name] = { x: pad + x * colW, y: pad + y * rowH }; }));
  const width = pad * 2 + Math.max(1, byStage.length) * colW;
  const height = pad * 2 + Math.max(1, ...byStage.map(c => c.length)) * rowH;
  const svg = s('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'group', 'aria-label': `The steps of flow ${flow.name}` });
  const edges = {};
  for (const st of flow.steps || []) {
    for (const d of st.depends_on) {
      const a = pos[d], b = pos[st.name];
      if (!a || !b) continue;
      const x1 = a.x + nodeW, y1 = a.y + nodeH / 2, x2 = b.x, y2 = b.y + nodeH / 2, mx = (x1 + x2) / 2;
      const e = s('path', { class: 'edge', d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, 'data-edge': `${d}→${st.name}` });
      edges[`${d}→${st.name}`] = e;
      svg.append(e);
    }
  }
  const nodes = {};
  const label = (st, count) => `${st.use}${st.for_each ? (count ? ` × ${count}` : ' ×') : ''}`;
  for (const st of flow.steps || []) {
    const p = pos[st.name];
    const state = states ? states[st.name] || 'pending' : null;
    const title = s('title', {});
    const sub = s('text', { x: 10, y: 34, class: 'sub' });
    const g = s('g', {
      class: state ? `node s-${state}` : 'node', transform: `translate(${p.x},${p.y})`, tabindex: 0, role: 'button',
      'data-step': st.name, 'data-status': state || undefined, 'data-for-each': st.for_each || undefined,
      onclick: () => onSelect && onSelect(st.name),
      onkeydown: e => { if ((e.key === 'Enter' || e.key === ' ') && onSelect) { e.preventDefault(); onSelect(st.name); } },
    }, title, s('rect', { width: nodeW, height: nodeH, rx: 8 }), s('text', { x: 10, y: 18 }, st.name), sub);
    svg.append(g);
    const n = nodes[st.name] = { g, sub, title, st, count: 0 };
    describe(n, state);
  }
  // describe writes a node's label, title and accessible name.
  function describe(n, state) {
    const use = label(n.st, n.count);
    const each = n.st.for_each ? `; ${forEachHint.slice(4)}` : '';
    n.sub.textContent = state ? `${use} · ${state}` : use;
    n.title.textContent = `${n.st.name} (${n.st.use})${state ? `: ${state}` : ''}${each}`;
    n.g.setAttribute('aria-label', `step ${n.st.name}, block ${n.st.use}${state ? `: ${state}` : ''}${each}`);
  }
  const graph = {
    svg,
    // set shows a step's state, and how many instances it has.
    set(name, state, count = 0) {
      const n = nodes[name];
      if (!n || (n.g.dataset.status === state && n.count === count)) return;
      n.g.setAttribute('class', `node s-${state}${n.g.classList.contains('selected') ? ' selected' : ''}`);
      n.g.dataset.status = state;
      n.count = count;
      describe(n, state);
    },
    select(name) {
      for (const [k, n] of Object.entries(nodes)) n.g.classList.toggle('selected', k === name);
    },
    // critical draws the edges of a path (step names, in order) bold.
    critical(path) {
      const on = new Set();
      for (let i = 1; i < path.length; i++) on.add(`${path[i - 1]}→${path[i]}`);
      for (const [k, e] of Object.entries(edges)) e.classList.toggle('critical', on.has(k));
      svg.dataset.critical = path.join(' ');
    },
  };
  graph.critical(flow.critical_path || []);
  return graph;
}
