// The token form, shown when the API answers 401.

import { tokenKey } from './api.js';
import { h, main, put } from './dom.js';
import { render, stopPage } from './router.js';

export function showToken() {
  stopPage();
  document.title = 'Token · flowctl';
  const input = h('input', { type: 'password', id: 'token', autocomplete: 'off', required: true });
  put(main,
    h('h1', {}, 'This server needs a token'),
    h('p', { class: 'muted' }, 'Give the token flowctl serve was started with (FLOWCTL_TOKEN or --token-file). It is kept for this browser tab only.'),
    h('form', {
      id: 'token-form',
      onsubmit: e => {
        e.preventDefault();
        sessionStorage.setItem(tokenKey, input.value.trim());
        render();
      },
    }, h('div', { class: 'field' }, h('label', { for: 'token' }, 'Token'), input),
    h('button', { class: 'primary', type: 'submit' }, 'Continue')));
  input.focus();
}
