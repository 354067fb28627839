// The /v1 API and the event streams, as the dashboard reads them.

import { showToken } from './token.js';

export const tokenKey = 'flowctl-token';

export class Unauthorized extends Error {}

// csrf is the token a write sends when the server has no bearer tokens:
// only a page of the server's own origin can read it.
const csrf = document.querySelector('meta[name="flowctl-csrf"]')?.content || '';

function headers(extra = {}) {
  const token = sessionStorage.getItem(tokenKey);
  const out = { ...extra, 'X-Flowctl-CSRF': csrf };
  if (token) out.Authorization = `Bearer ${token}`;
  return out;
}

export async function api(path, options = {}) {
  const res = await fetch(path, { ...options, headers: headers(options.headers) });
  if (res.status === 401) throw new Unauthorized();
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const msg = body.error?.message || body.message || `${res.status} ${res.statusText}`;
    const err = new Error(msg);
    err.body = body;
    throw err;
  }
  return body;
}

// events reads a run's Server-Sent Events with fetch (which, unlike
// EventSource, can send the token), those after event number after,
// calling onEvent with each; it
// reconnects after a dropped connection from the last event seen, and
// returns a function that stops it.
export function events(runID, onEvent, onEnd, after = 0) {
  const ctrl = new AbortController();
  let last = after;
  let finished = false;
  (async () => {
    while (!ctrl.signal.aborted && !finished) {
      try {
        const res = await fetch(`/v1/runs/${encodeURIComponent(runID)}/events?after=${last}`,
          { headers: headers(), signal: ctrl.signal });
        if (res.status === 401) throw new Unauthorized();
        if (!res.ok || !res.body) throw new Error(`${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const chunk = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let id = 0, data = '';
            for (const line of chunk.split('\n')) {
              if (line.startsWith('id:')) id = Number(line.slice(3).trim());
              else if (line.startsWith('data:')) data += line.slice(5).trim();
            }
            if (!data) continue;
            if (id) last = id;
            const ev = JSON.parse(data);
            onEvent(ev);
            if (ev.type === 'run_finished') finished = true;
          }
        }
        if (finished) break;
      } catch (e) {
        if (ctrl.signal.aborted) return;
        if (e instanceof Unauthorized) { showToken(); return; }
      }
      await new Promise(r => setTimeout(r, 1000));
    }
    if (!ctrl.signal.aborted && onEnd) onEnd();
  })();
  return () => ctrl.abort();
}
