// The states of a run's steps, kept so that an event costs the same
// however many instances its step has: per step, the count of finished
// instances by status (from the run as the API gives it, the instances of
// a summarized step as counts, and the instances that wait, which the
// state records), and the instances running now (from the events, since
// the state records an instance when it ends).

// done are the statuses an instance ends with.
const done = ['ok', 'failed', 'cached', 'skipped', 'cancelled'];

export class StepStates {
  constructor() {
    this.steps = new Map(); // step → { counts, listed: Map(key → status), live: Map(key → status), from, to }
  }

  step(name) {
    let st = this.steps.get(name);
    if (!st) this.steps.set(name, st = { counts: {}, listed: new Map(), live: new Map(), from: null, to: null, summarized: false });
    return st;
  }

  // load takes the run as GET /v1/runs/{id} gives it: its listed step
  // instances and its summarized steps. The live instances stay.
  load(run) {
    for (const st of this.steps.values()) { st.counts = {}; st.listed = new Map(); st.from = st.to = null; }
    for (const r of run.steps) {
      const st = this.step(r.step);
      st.listed.set(r.instance || '', r.status);
      st.counts[r.status] = (st.counts[r.status] || 0) + 1;
      this.span(st, r.started_at, r.finished_at);
      st.live.delete(r.instance || ''); // counted as listed
    }
    for (const sum of run.summarized || []) {
      const st = this.step(sum.step);
      st.summarized = true;
      st.counts = { ...sum.counts };
      this.span(st, sum.started_at, sum.finished_at);
    }
  }

  span(st, from, to) {
    if (!from) return;
    const a = new Date(from), b = to ? new Date(to) : null;
    if (!st.from || a < st.from) st.from = a;
    if (b && (!st.to || b > st.to)) st.to = b;
  }

  // apply takes an event of the run's stream; it returns the step it
  // changed, if any.
  apply(ev) {
    if (!ev.step) return null;
    const key = ev.instance == null ? '' : String(ev.instance);
    const st = this.step(ev.step);
    switch (ev.type) {
      case 'step_started':
        st.live.set(key, 'running');
        this.span(st, ev.time, null);
        break;
      case 'step_waiting':
        // The state records a waiting instance, as an ended one: it is
        // counted, not live.
        st.live.delete(key);
        this.list(st, key, 'waiting', true);
        break;
      case 'step_finished': {
        st.live.delete(key);
        if (!done.includes(ev.status)) break;
        if (!this.list(st, key, ev.status, false)) break;
        this.span(st, null, null);
        if (ev.time) { const t = new Date(ev.time); if (!st.to || t > st.to) st.to = t; }
        break;
      }
      default:
        return null;
    }
    return ev.step;
  }

  // list counts an instance's status, replacing the one it had; it
  // reports whether that changed anything. A summarized step lists only
  // the instances whose status may change again (keep), or changed.
  list(st, key, status, keep) {
    const old = st.listed.get(key);
    if (old === status) return false; // known already
    if (old) st.counts[old]--;
    if (!st.summarized || old || keep) st.listed.set(key, status);
    st.counts[status] = (st.counts[status] || 0) + 1;
    return true;
  }

  // count is how many instances of a step are known.
  count(name) {
    const st = this.steps.get(name);
    if (!st) return 0;
    let n = st.live.size;
    for (const v of Object.values(st.counts)) n += v;
    return n;
  }

  // state is a step's state: running or waiting while an instance is;
  // then failed, cancelled; skipped or cached when all were; else ok;
  // pending before any.
  state(name) {
    const st = this.steps.get(name);
    if (!st) return 'pending';
    const live = [...st.live.values()];
    if (live.includes('running')) return 'running';
    if (st.counts.waiting > 0) return 'waiting';
    const c = name => st.counts[name] || 0;
    const total = done.reduce((n, s) => n + c(s), 0);
    if (!total) return 'pending';
    if (c('failed')) return 'failed';
    if (c('cancelled')) return 'cancelled';
    if (c('skipped') === total) return 'skipped';
    if (c('cached') === total) return 'cached';
    return 'ok';
  }

  // spans are the steps' first starts and last ends (now for a step
  // still running), by step.
  spans() {
    const out = {};
    for (const [name, st] of this.steps) {
      if (!st.from) continue;
      out[name] = { from: st.from, to: st.live.size || !st.to ? new Date() : st.to };
    }
    return out;
  }
}

// criticalPath is the chain of dependencies that took the longest, by the
// steps' spans (the flow's own critical path, by steps, when no step has
// one yet), in order.
export function criticalPath(flow, spans) {
  const steps = flow.steps || [];
  if (!Object.keys(spans).length) return flow.critical_path || [];
  const byName = Object.fromEntries(steps.map(st => [st.name, st]));
  const best = {}, prev = {};
  // longest is the duration of the longest chain that ends with a step.
  const longest = name => {
    if (best[name] !== undefined) return best[name];
    best[name] = 0; // a cycle cannot be, but never loop
    const st = byName[name];
    const d = spans[name] ? spans[name].to - spans[name].from : 0;
    let b = 0, p = null;
    for (const dep of st ? st.depends_on : []) {
      const l = longest(dep);
      if (p === null || l > b) { b = l; p = dep; }
    }
    prev[name] = p;
    return (best[name] = b + d);
  };
  let end = null;
  for (const st of steps) if (end === null || longest(st.name) > longest(end)) end = st.name;
  const path = [];
  for (let n = end; n; n = prev[n]) path.unshift(n);
  return path;
}
