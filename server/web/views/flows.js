// The flows page (/flows).

import { api } from '../api.js';
import { h, link, main, put } from '../dom.js';

export async function flowsPage() {
  document.title = 'Flows · flowctl';
  const { flows } = await api('/v1/flows');
  put(main, h('h1', {}, 'Flows'),
    h('table', {}, h('thead', {}, h('tr', {}, ['Flow', 'Description', 'Inputs', 'Outputs'].map(t => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, flows.map(f => h('tr', {},
        h('td', {}, link(`/flows/${encodeURIComponent(f.name)}`, f.name), f.errors ? h('div', { class: 'error' }, 'does not compile') : null),
        h('td', {}, f.description || ''),
        h('td', {}, f.inputs.map(i => i.name).join(', ')),
        h('td', {}, f.outputs.join(', ')))))));
}

// inputField is a form field for a flow input: text, number, a checkbox,
// or a JSON editor for complex types.
