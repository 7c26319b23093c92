// weft view: the timeline page. No framework, no build step. The server
// answers each viewport with a summary (one bucket per pixel per track,
// /view/summary); this script draws it on a canvas and drives the panels.
'use strict';

const LABEL_W = 220, RULER_H = 24, LANE_H = 16, COUNTER_H = 32, HEADER_H = 18;
const MAX_LANES = 24;

const state = {
  trace: null,       // /view/tracks
  rows: [],          // flattened visible rows
  collapsed: new Set(),
  start: 0, end: 1,  // visible window, trace time (ns)
  scrollY: 0,
  summary: null,     // last /view/summary reply
  summaryByVid: new Map(),
  flows: [],
  pinned: [],        // tracks pinned from SQL results
  selectedSlice: null,
  box: null,         // {t0, t1, y0, y1} while box-selecting or after
  pending: 0,
  lastSql: null,
  files: null,       // the merge panel's /view/files (merge.js)
  nudge: null,       // a file being dragged along the time axis (merge.js)
};

const canvas = document.getElementById('timeline');
const ctx = canvas.getContext('2d');

function $(id) { return document.getElementById(id); }

function setStatus(text) { $('status').textContent = text; }

async function getJson(url, options) {
  const resp = await fetch(url, options);
  const body = await resp.json();
  if (!resp.ok) throw new Error(body.error || resp.statusText);
  return body;
}

// ---- time formatting ----

function fmtDur(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
  if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
  if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
  return Math.round(ns) + ' ns';
}

// A trace time in seconds with as many decimals as the step needs.
function fmtTime(ns, step) {
  const decimals = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / 1e9))));
  return (ns / 1e9).toFixed(decimals) + ' s';
}

function niceStep(span, px) {
  const raw = span / Math.max(1, px / 100);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (p * m >= raw) return p * m;
  return p * 10;
}

// ---- colours ----

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function colour(key) {
  const h = hash(String(key));
  return `hsl(${h % 360},${45 + (h >> 9) % 30}%,${55 + (h >> 17) % 15}%)`;
}

// ---- the track tree ----

function node(key, label, machine) { return { key, label, machine, children: [], tracks: [] }; }

function buildTree(trace) {
  const machines = new Map(), procs = new Map(), threads = new Map();
  const labelOf = (list) => new Map(list.map((l) => [l.id, l]));
  const mLabels = labelOf(trace.machines), pLabels = labelOf(trace.processes);
  const tLabels = labelOf(trace.threads);
  const machine = (id) => {
    if (!machines.has(id)) {
      const l = mLabels.get(id);
      machines.set(id, node('m' + id, l ? l.name : 'machine ' + id, id));
    }
    return machines.get(id);
  };
  const proc = (upid, m) => {
    if (!procs.has(upid)) {
      const l = pLabels.get(upid);
      const n = node('p' + upid, l ? l.name : 'process ' + upid, m);
      procs.set(upid, n);
      machine(m).children.push(n);
    }
    return procs.get(upid);
  };
  const cpus = new Map();
  for (const t of trace.tracks) {
    if (t.count === 0) continue;
    const m = machine(t.machine);
    if (t.kind === 'cpu') {
      if (!cpus.has(t.machine)) {
        const n = node('c' + t.machine, 'CPUs', t.machine);
        cpus.set(t.machine, n);
        m.children.unshift(n);
      }
      cpus.get(t.machine).tracks.push(t);
    } else if (t.utid >= 0) {
      const tl = tLabels.get(t.utid);
      const p = proc(tl && tl.parent >= 0 ? tl.parent : -1 - t.machine, t.machine);
      if (!threads.has(t.utid)) {
        const n = node('t' + t.utid, tl ? tl.name : 'thread ' + t.utid, t.machine);
        threads.set(t.utid, n);
        p.children.push(n);
      }
      threads.get(t.utid).tracks.push(t);
    } else if (t.upid >= 0) {
      proc(t.upid, t.machine).tracks.push(t);
    } else {
      m.tracks.push(t);
    }
  }
  return [...machines.keys()].sort((a, b) => a - b).map((id) => machines.get(id));
}

function trackHeight(t) {
  if (t.kind === 'counter') return COUNTER_H;
  return Math.min(t.max_depth + 1, MAX_LANES) * LANE_H + 2;
}

function flatten(nodes, depth, out) {
  for (const n of nodes) {
    const open = !state.collapsed.has(n.key);
    out.push({ type: 'group', node: n, depth, height: HEADER_H, open, machine: n.machine });
    if (!open) continue;
    for (const t of n.tracks) {
      out.push({ type: 'track', track: t, depth: depth + 1, height: trackHeight(t),
                 label: t.name || n.label, machine: t.machine });
    }
    flatten(n.children, depth + 1, out);
  }
  return out;
}

function layout() {
  const rows = [];
  for (const p of state.pinned) {
    rows.push({ type: 'pinned', pinned: p, depth: 0, height: Math.min(p.lanes, MAX_LANES) * LANE_H + 2,
                label: 'pinned: ' + p.title });
  }
  flatten(state.tree || [], 0, rows);
  let y = RULER_H;
  for (const r of rows) { r.y = y; y += r.height; }
  state.rows = rows;
  state.contentHeight = y;
}

// ---- the viewport ----

function trackWidth() { return Math.max(1, canvas.clientWidth - LABEL_W); }

function timeToX(ts) { return LABEL_W + (ts - state.start) * trackWidth() / (state.end - state.start); }

function xToTime(x) { return state.start + (x - LABEL_W) * (state.end - state.start) / trackWidth(); }

function rowAt(y) {
  const yy = y + state.scrollY;
  return state.rows.find((r) => yy >= r.y && yy < r.y + r.height && y >= RULER_H);
}

function visibleRows() {
  const top = state.scrollY + RULER_H, bottom = state.scrollY + canvas.clientHeight;
  return state.rows.filter((r) => r.y + r.height > top && r.y < bottom);
}

function setWindow(start, end) {
  const traceSpan = Math.max(1, state.trace.end - state.trace.start);
  let span = Math.max(10, Math.min(end - start, traceSpan * 4));
  let s = Math.round(start);
  state.start = s;
  state.end = s + Math.round(span);
  $('range').textContent = `${fmtTime(state.start, span / 10)} – ${fmtTime(state.end, span / 10)}` +
    ` (${fmtDur(state.end - state.start)})`;
  document.body.dataset.start = state.start;
  document.body.dataset.end = state.end;
  requestSummary();
  draw();
}

let summaryTimer = null;
function requestSummary() {
  clearTimeout(summaryTimer);
  summaryTimer = setTimeout(fetchSummary, 20);
}

async function fetchSummary() {
  const vids = visibleRows().filter((r) => r.type === 'track').map((r) => r.track.vid);
  const px = Math.max(1, Math.min(16384, Math.round(trackWidth())));
  const ticket = ++state.pending;
  const [start, end] = [state.start, state.end];
  try {
    const s = await getJson(`/view/summary?start=${start}&end=${end}&px=${px}&tracks=${vids.join(',')}`);
    if (ticket !== state.pending) return;
    state.summary = s;
    state.summaryByVid = new Map(s.tracks.map((t) => [t.vid, t]));
    const f = await getJson(`/view/flows?start=${start}&end=${end}`);
    if (ticket !== state.pending) return;
    state.flows = f.rows;
    document.body.dataset.painted = String(ticket);
    draw();
  } catch (e) {
    setStatus('summary: ' + e.message);
  }
}

// ---- drawing ----

function resize() {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(canvas.clientWidth * dpr);
  canvas.height = Math.round(canvas.clientHeight * dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (state.trace) { requestSummary(); draw(); }
}

function drawRuler() {
  const w = canvas.clientWidth;
  ctx.fillStyle = '#eceff1';
  ctx.fillRect(0, 0, w, RULER_H);
  const span = state.end - state.start;
  const step = niceStep(span, trackWidth());
  ctx.fillStyle = '#37474f';
  ctx.strokeStyle = '#b0bec5';
  ctx.font = '11px system-ui, sans-serif';
  for (let t = Math.ceil(state.start / step) * step; t < state.end; t += step) {
    const x = timeToX(t);
    ctx.beginPath(); ctx.moveTo(x, RULER_H - 6); ctx.lineTo(x, canvas.clientHeight); ctx.stroke();
    ctx.fillText(fmtTime(t, step), x + 2, 12);
  }
}

// Maps a summary pixel to the canvas x of the current window.
function summaryX(s, p) {
  return timeToX(s.start + p * (s.end - s.start) / s.px);
}

function drawRuns(s, t, y, names) {
  const isCpu = t.kind === 'cpu';
  for (const [p0, p1, depth, id, name, key] of t.runs) {
    if (depth >= MAX_LANES) continue;
    const x0 = summaryX(s, p0), x1 = summaryX(s, p1 + 1);
    const label = names[name];
    ctx.fillStyle = state.selectedSlice === id && !isCpu ? '#000' : colour(isCpu ? key : label);
    const ly = y + 1 + depth * LANE_H;
    ctx.fillRect(x0, ly, Math.max(1, x1 - x0 - 0.3), LANE_H - 2);
    if (x1 - x0 > 30) {
      ctx.fillStyle = '#000';
      ctx.save();
      ctx.beginPath(); ctx.rect(x0, ly, x1 - x0, LANE_H); ctx.clip();
      ctx.fillText(label, Math.max(x0, LABEL_W) + 2, ly + 11);
      ctx.restore();
    }
  }
}

function drawCounter(s, t, track, y) {
  let lo = Infinity, hi = -Infinity;
  for (const b of t.buckets) { lo = Math.min(lo, b[1]); hi = Math.max(hi, b[2]); }
  if (!t.buckets.length) return;
  if (hi === lo) { hi = lo + 1; }
  const h = COUNTER_H - 6, yOf = (v) => y + 3 + h - (v - lo) * h / (hi - lo);
  ctx.fillStyle = colour(track.name);
  let prevX = null, prevY = null;
  for (const [p, min, max, last] of t.buckets) {
    const x = summaryX(s, p);
    if (prevX !== null) ctx.fillRect(prevX, prevY, Math.max(1, x - prevX), y + COUNTER_H - 3 - prevY);
    ctx.fillRect(x, yOf(max), Math.max(1, summaryX(s, p + 1) - x), Math.max(1, yOf(min) - yOf(max)));
    prevX = x; prevY = yOf(last);
  }
  ctx.fillRect(prevX, prevY, canvas.clientWidth - prevX, y + COUNTER_H - 3 - prevY);
  ctx.fillStyle = '#37474f';
  ctx.fillText(`${+hi.toPrecision(4)}`, LABEL_W + 2, y + 10);
}

function drawPinned(p, y) {
  let lastX = -1;
  for (const [ts, dur, name, lane] of p.slices) {
    const x0 = timeToX(ts), x1 = timeToX(ts + Math.max(dur, 0));
    if (x1 < LABEL_W || x0 > canvas.clientWidth || (x1 < lastX + 0.5 && lane === 0)) continue;
    ctx.fillStyle = colour(name);
    ctx.fillRect(x0, y + 1 + lane * LANE_H, Math.max(1, x1 - x0), LANE_H - 2);
    lastX = x1;
  }
}

function drawLabel(r, y) {
  ctx.fillStyle = r.type === 'group' ? '#cfd8dc' : '#f5f7f8';
  ctx.fillRect(0, y, LABEL_W, r.height);
  ctx.fillStyle = '#263238';
  ctx.font = (r.type === 'group' ? 'bold ' : '') + '11px system-ui, sans-serif';
  const text = r.type === 'group' ? (r.open ? '▾ ' : '▸ ') + r.node.label : r.label;
  ctx.save();
  ctx.beginPath(); ctx.rect(0, y, LABEL_W - 4, r.height); ctx.clip();
  ctx.fillText(text, 4 + r.depth * 10, y + 12);
  ctx.restore();
  ctx.font = '11px system-ui, sans-serif';
}

function drawFlows() {
  const rowOfTrack = new Map();
  for (const r of state.rows) if (r.type === 'track' && r.track.kind === 'slices') rowOfTrack.set(r.track.id, r);
  ctx.strokeStyle = '#6a1b9a';
  ctx.fillStyle = '#6a1b9a';
  for (const f of state.flows) {
    const a = rowOfTrack.get(f[2]), b = rowOfTrack.get(f[6]);
    if (!a || !b) continue;
    const x0 = timeToX(f[4]), y0 = a.y - state.scrollY + f[3] * LANE_H + LANE_H / 2;
    const x1 = timeToX(f[8]), y1 = b.y - state.scrollY + f[7] * LANE_H + LANE_H / 2;
    ctx.beginPath(); ctx.moveTo(x0, y0);
    ctx.bezierCurveTo(x0 + 30, y0, x1 - 30, y1, x1, y1); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x1 - 6, y1 - 4); ctx.lineTo(x1 - 6, y1 + 4); ctx.fill();
  }
}

function draw() {
  if (!state.trace) return;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px system-ui, sans-serif';
  const s = state.summary;
  const names = s ? s.names : [];
  for (const r of visibleRows()) {
    const y = r.y - state.scrollY;
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, Math.max(y, RULER_H), w - LABEL_W, r.height); ctx.clip();
    const nudged = state.nudge && r.machine === state.nudge.machine;
    if (nudged) {
      ctx.fillStyle = 'rgba(255,193,7,0.15)';
      ctx.fillRect(LABEL_W, y, w - LABEL_W, r.height);
      ctx.translate(state.nudge.dx, 0);
    }
    if (r.type === 'track' && s) {
      const t = state.summaryByVid.get(r.track.vid);
      if (t && t.runs) drawRuns(s, t, y, names);
      if (t && t.buckets) drawCounter(s, t, r.track, y);
    } else if (r.type === 'pinned') {
      drawPinned(r.pinned, y);
    }
    ctx.restore();
    ctx.strokeStyle = '#eceff1';
    ctx.beginPath(); ctx.moveTo(0, y + r.height - 0.5); ctx.lineTo(w, y + r.height - 0.5); ctx.stroke();
    if (y + r.height > RULER_H) drawLabel(r, y);
  }
  ctx.save();
  ctx.beginPath(); ctx.rect(LABEL_W, RULER_H, w - LABEL_W, h - RULER_H); ctx.clip();
  drawFlows();
  if (state.box) {
    const x0 = timeToX(state.box.t0), x1 = timeToX(state.box.t1);
    ctx.fillStyle = 'rgba(33,150,243,0.15)';
    ctx.strokeStyle = '#1976d2';
    const y0 = state.box.y0 - state.scrollY, y1 = state.box.y1 - state.scrollY;
    ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
    ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
  }
  ctx.restore();
  drawRuler();
}

// ---- interaction ----

function zoom(factor, atX) {
  const t = xToTime(atX);
  setWindow(t - (t - state.start) * factor, t + (state.end - t) * factor);
}

function pan(dx) {
  const dt = dx * (state.end - state.start) / trackWidth();
  setWindow(state.start + dt, state.end + dt);
}

function scrollBy(dy) {
  const max = Math.max(0, state.contentHeight - canvas.clientHeight);
  state.scrollY = Math.max(0, Math.min(max, state.scrollY + dy));
  requestSummary();
  draw();
}

canvas.addEventListener('wheel', (ev) => {
  ev.preventDefault();
  if (ev.shiftKey) { scrollBy(ev.deltaY || ev.deltaX); return; }
  if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) { pan(ev.deltaX); return; }
  zoom(Math.pow(1.002, ev.deltaY), Math.max(LABEL_W, ev.offsetX));
}, { passive: false });

document.addEventListener('keydown', (ev) => {
  if (!state.trace || ev.target.tagName === 'TEXTAREA' || ev.target.tagName === 'INPUT') return;
  const mid = LABEL_W + trackWidth() / 2;
  const k = ev.key.toLowerCase();
  if (k === 'w') zoom(0.8, state.mouseX || mid);
  else if (k === 's') zoom(1.25, state.mouseX || mid);
  else if (k === 'a') pan(-trackWidth() / 10);
  else if (k === 'd') pan(trackWidth() / 10);
  else if (ev.key === 'ArrowDown') scrollBy(60);
  else if (ev.key === 'ArrowUp') scrollBy(-60);
});

let drag = null;
canvas.addEventListener('mousedown', (ev) => {
  canvas.focus();
  drag = { x: ev.offsetX, y: ev.offsetY, moved: false, box: ev.shiftKey && ev.offsetX > LABEL_W };
  const r = (ev.ctrlKey || ev.altKey) && !state.nudge && ev.offsetX > LABEL_W && rowAt(ev.offsetY);
  if (r && r.machine !== undefined) drag.nudge = nudgeStart(r.machine, ev.offsetX);
  if (drag.nudge || ev.ctrlKey || ev.altKey) ev.preventDefault();
});

canvas.addEventListener('mousemove', (ev) => {
  state.mouseX = ev.offsetX > LABEL_W ? ev.offsetX : null;
  if (!drag) return;
  if (Math.abs(ev.offsetX - drag.x) + Math.abs(ev.offsetY - drag.y) > 3) drag.moved = true;
  if (!drag.moved) return;
  if (drag.nudge) {
    nudgeMove(ev.offsetX);
  } else if (drag.box) {
    const [xa, xb] = [drag.x, ev.offsetX].sort((a, b) => a - b);
    const [ya, yb] = [drag.y, ev.offsetY].sort((a, b) => a - b);
    state.box = { t0: xToTime(xa), t1: xToTime(xb), y0: ya + state.scrollY, y1: yb + state.scrollY };
    draw();
  } else {
    pan(drag.x - ev.offsetX);
    scrollBy(drag.y - ev.offsetY);
    drag.x = ev.offsetX;
    drag.y = ev.offsetY;
  }
});

window.addEventListener('mouseup', (ev) => {
  if (!drag) return;
  const d = drag;
  drag = null;
  if (d.nudge) { if (d.moved) nudgeEnd(); else { state.nudge = null; draw(); } return; }
  if (d.box && d.moved) { boxSelect(); return; }
  if (!d.moved && ev.target === canvas) click(ev.offsetX, ev.offsetY);
});

function click(x, y) {
  const r = rowAt(y);
  if (!r) return;
  if (r.type === 'group' && x < LABEL_W) {
    if (r.open) state.collapsed.add(r.node.key); else state.collapsed.delete(r.node.key);
    layout(); requestSummary(); draw();
    return;
  }
  if (r.type !== 'track' || x < LABEL_W || !state.summary) return;
  const t = state.summaryByVid.get(r.track.vid);
  if (!t || !t.runs) return;
  const s = state.summary;
  const lane = Math.floor((y + state.scrollY - r.y - 1) / LANE_H);
  const hit = t.runs.find(([p0, p1, depth]) => depth === lane &&
    x >= summaryX(s, p0) - 1 && x <= summaryX(s, p1 + 1) + 1);
  if (!hit) return;
  if (r.track.kind === 'cpu') { showSched(hit, s); return; }
  showSlice(hit[3]);
}

function table(columns, rows) {
  const t = document.createElement('table');
  const head = t.insertRow();
  for (const c of columns) { const th = document.createElement('th'); th.textContent = c; head.appendChild(th); }
  for (const row of rows) {
    const tr = t.insertRow();
    for (const v of row) tr.insertCell().textContent = v === null ? 'NULL' : String(v);
  }
  return t;
}

function showTab(name) {
  for (const b of document.querySelectorAll('#panel nav button')) b.classList.toggle('on', b.dataset.tab === name);
  for (const d of document.querySelectorAll('.tab')) d.classList.toggle('on', d.id === 'tab-' + name);
}

async function showSlice(id) {
  state.selectedSlice = id;
  draw();
  const el = $('tab-details');
  try {
    const d = await getJson(`/view/slice?id=${id}`);
    el.replaceChildren();
    const row = d.slice.rows[0] || [];
    const h = document.createElement('h3');
    h.textContent = `${row[3]} (slice ${id}, ${fmtDur(row[2])})`;
    const args = document.createElement('div');
    args.id = 'args';
    args.append(document.createElement('h4'), table(d.args.columns, d.args.rows));
    args.firstChild.textContent = 'Args';
    el.append(h, table(d.slice.columns.slice(0), [row]), args);
    showTab('details');
  } catch (e) {
    el.textContent = e.message;
  }
}

function showSched(run, s) {
  const el = $('tab-details');
  el.replaceChildren();
  const h = document.createElement('h3');
  h.textContent = `sched slice ${run[3]}: ${s.names[run[4]]} (utid ${run[5]})`;
  el.append(h);
  showTab('details');
}

async function boxSelect() {
  const b = state.box;
  const vids = state.rows.filter((r) => r.type === 'track' && r.y + r.height > b.y0 && r.y < b.y1)
    .map((r) => r.track.vid);
  const el = $('tab-selection');
  try {
    const d = await getJson(`/view/select?start=${Math.round(b.t0)}&end=${Math.round(b.t1)}&tracks=${vids.join(',')}`);
    const [count, total] = d.totals.rows[0];
    const p = document.createElement('p');
    p.id = 'selection-total';
    p.textContent = `${count} slices, total ${fmtDur(total)} in ${fmtDur(b.t1 - b.t0)}` +
      (d.slices.truncated ? ' (first 1000 listed)' : '');
    el.replaceChildren(p, table(d.slices.columns, d.slices.rows));
    showTab('selection');
  } catch (e) {
    el.textContent = e.message;
  }
}

// ---- SQL console ----

async function runSql() {
  const sql = $('sql').value;
  const out = $('sql-result');
  $('sql-info').textContent = 'running…';
  const t0 = performance.now();
  try {
    const d = await getJson('/view/query', { method: 'POST', body: sql });
    state.lastSql = d;
    out.replaceChildren(table(d.columns, d.rows));
    $('sql-info').textContent = `${d.rows.length} rows${d.truncated ? ' (truncated)' : ''} in ` +
      `${Math.round(performance.now() - t0)} ms`;
    const cols = d.columns;
    $('pin').disabled = !(cols.includes('ts') && cols.includes('dur') && cols.includes('name'));
  } catch (e) {
    state.lastSql = null;
    $('pin').disabled = true;
    const pre = document.createElement('div');
    pre.className = 'error';
    pre.textContent = e.message;
    out.replaceChildren(pre);
    $('sql-info').textContent = 'error';
  }
}

// Lanes for the pinned slices: each goes to the first lane free at its ts.
function pinSql() {
  const d = state.lastSql;
  if (!d) return;
  const [ts, dur, name] = ['ts', 'dur', 'name'].map((c) => d.columns.indexOf(c));
  const rows = d.rows.map((r) => [r[ts], r[dur], String(r[name]), 0]).sort((a, b) => a[0] - b[0]);
  const ends = [];
  for (const r of rows) {
    let lane = ends.findIndex((e) => e <= r[0]);
    if (lane < 0) { lane = ends.length; ends.push(0); }
    ends[lane] = r[0] + Math.max(r[1], 0);
    r[3] = lane;
  }
  state.pinned.push({ title: $('sql').value.slice(0, 40), slices: rows, lanes: Math.max(1, ends.length) });
  layout();
  draw();
}

// ---- start ----

async function loadTrace(resetWindow) {
  state.trace = await getJson('/view/tracks');
  state.tree = buildTree(state.trace);
  layout();
  document.body.dataset.machines = state.tree.map((m) => m.label).join('|');
  const hash = /start=(-?\d+)&end=(-?\d+)/.exec(location.hash);
  if (resetWindow && hash) {
    setWindow(+hash[1], +hash[2]);
  } else if (resetWindow || state.end <= state.start + 1) {
    const pad = Math.max(1, (state.trace.end - state.trace.start) * 0.02);
    setWindow(state.trace.start - pad, state.trace.end + pad);
  } else {
    setWindow(state.start, state.end);
  }
  await loadFiles();
}

for (const b of document.querySelectorAll('#panel nav button')) b.addEventListener('click', () => showTab(b.dataset.tab));
$('run').addEventListener('click', runSql);
$('pin').addEventListener('click', pinSql);
$('sql').addEventListener('keydown', (ev) => { if (ev.key === 'Enter' && ev.ctrlKey) runSql(); });
$('reset').addEventListener('click', () => {
  const pad = Math.max(1, (state.trace.end - state.trace.start) * 0.02);
  setWindow(state.trace.start - pad, state.trace.end + pad);
});
window.addEventListener('resize', resize);
// The trace loads once every script has run: its first reply may come back
// while merge.js, which fills the merge panel, is still being fetched.
document.addEventListener('DOMContentLoaded', () => {
  resize();
  loadTrace(true).catch((e) => setStatus('cannot load: ' + e.message));
});

// For the browser tests (tests/browser/): the page's state and its mapping
// of time to canvas x.
window.weftView = { state, timeToX, summaryX, trackWidth, LABEL_W, LANE_H };
