// Which page a path shows, and moving between pages without a reload.

import { Unauthorized } from './api.js';
import { h, link, main, put } from './dom.js';
import { showToken } from './token.js';
import { evalsPage } from './views/evals.js';
import { flowPage } from './views/flow.js';
import { flowsPage } from './views/flows.js';
import { runPage } from './views/run.js';
import { runsPage } from './views/runs.js';

export let stopPage = () => {}; // ends the page's timers and streams

export async function render() {
  stopPage();
  stopPage = () => {};
  const path = location.pathname;
  let m;
  try {
    let stop;
    if (path === '/') stop = await runsPage();
    else if (path === '/flows') stop = await flowsPage();
    else if ((m = path.match(/^\/flows\/([^/]+)$/))) stop = await flowPage(decodeURIComponent(m[1]));
    else if (path === '/evals') stop = await evalsPage();
    else if ((m = path.match(/^\/runs\/([^/]+)$/))) stop = await runPage(decodeURIComponent(m[1]));
    else put(main, h('h1', {}, 'Not found'), h('p', {}, link('/', 'The runs')));
    if (stop) stopPage = stop;
  } catch (e) {
    if (e instanceof Unauthorized) { showToken(); return; }
    put(main, h('h1', {}, 'Something went wrong'), h('p', { class: 'error', role: 'alert' }, e.message));
  }
}

export function navigate(href) {
  history.pushState(null, '', href);
  render();
  main.focus();
}
