// The flowctl dashboard: the pages of flowctl serve, over its /v1 API and
// event streams. No build step: plain ES modules, a page a module (views/),
// over api.js (the API), dom.js (elements), token.js and router.js.

import { navigate, render } from './router.js';

document.addEventListener('click', e => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', render);
render();
