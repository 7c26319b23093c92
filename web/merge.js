// weft view: the merge panel (how each file was placed, and the inputs'
// machine, reference and offset, which re-merge when changed) and the
// drag that nudges a file along the time axis. Loaded after app.js, whose
// state, table(), getJson() and setStatus() it uses.
'use strict';

// The placement columns shown, in order: [column of weft_placement, heading].
const PLACEMENT_COLUMNS = [
  ['file_name', 'file'], ['trace_type', 'format'], ['machine_name', 'machine'],
  ['clock_name', 'clock'], ['rule', 'placed by'], ['is_guess', 'guess?'],
  ['clock_path', 'clock path'], ['offset_ns', 'offset (ns)'],
  ['dropped_events', 'dropped'], ['detail', 'why'],
];

// The rows of a {columns, rows} result as objects by column name.
function records(result) {
  return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i]])));
}

// One row per trace file: how weft_placement says it was placed. A guess
// is marked (class "guess": the row is highlighted and its cell says so);
// a file with dropped events says how many and why.
function placementTable(files) {
  const t = table(PLACEMENT_COLUMNS.map((c) => c[1]), []);
  t.id = 'placement';
  for (const f of files) {
    const tr = t.insertRow();
    tr.dataset.rule = f.rule || '';
    tr.dataset.guess = f.is_guess ? '1' : '0';
    if (f.is_guess) tr.classList.add('guess');
    if (f.dropped_events > 0 || f.rule === 'dropped') tr.classList.add('dropped');
    for (const [col] of PLACEMENT_COLUMNS) {
      const cell = tr.insertCell();
      cell.dataset.col = col;
      let v = f[col];
      if (col === 'is_guess') v = f.is_guess ? 'GUESS' : 'no';
      if (col === 'dropped_events' && v > 0) v = `${v} events`;
      cell.textContent = v === null || v === undefined ? '' : String(v);
    }
  }
  return t;
}

function inputControls(d, inp, cells) {
  const machine = document.createElement('input');
  machine.className = 'machine';
  machine.dataset.file = inp.index;
  machine.value = inp.machine || '';
  machine.placeholder = 'as loaded';
  machine.addEventListener('change', () => remerge(inp.index, 'machine', machine.value));
  cells[2].replaceChildren(machine);
  const ref = document.createElement('select');
  ref.className = 'ref';
  ref.dataset.file = inp.index;
  ref.add(new Option(inp.ref === null ? '(the reference)' : '(choose)', ''));
  for (const other of d.inputs) {
    if (other.index === inp.index) continue;
    const o = new Option(other.path, String(other.index));
    o.selected = inp.ref !== null && (inp.ref === other.path || other.path.endsWith('/' + inp.ref));
    ref.add(o);
  }
  ref.addEventListener('change', () => { if (ref.value !== '') remerge(inp.index, 'ref', ref.value); });
  cells[3].replaceChildren(ref);
  if (inp.ref === null) return;
  const field = document.createElement('input');
  field.className = 'offset';
  field.dataset.file = inp.index;
  field.value = inp.offset_ns === null ? '' : String(inp.offset_ns);
  field.placeholder = 'as placed';
  field.addEventListener('change', () => remerge(inp.index, 'offset_ns', field.value));
  cells[4].replaceChildren(field);
}

async function loadFiles() {
  try {
    const d = await getJson('/view/files');
    state.files = { placement: d.placement ? records(d.table) : [], inputs: d.inputs,
                    canRemerge: d.can_remerge };
    $('merge-info').textContent = d.placement ? ''
      : `(no placement details: ${d.placement_error || 'weft_placement is missing'})`;
    $('files').replaceChildren(d.placement ? placementTable(state.files.placement)
      : table(d.table.columns, d.table.rows));
    const box = $('inputs');
    box.replaceChildren();
    if (!d.can_remerge || d.inputs.length < 2) return;
    const t = table(['input', 'path', 'machine', 'placed against',
      'offset (ns): the file reads T when its reference reads T+offset'],
    d.inputs.map((i) => [i.index, i.path, '', '', '']));
    d.inputs.forEach((inp, k) => inputControls(d, inp, t.rows[k + 1].cells));
    box.append(t);
  } catch (e) {
    $('files').textContent = e.message;
  } finally {
    // for the browser tests: the panel is filled (or says why not)
    document.body.dataset.files = String((+document.body.dataset.files || 0) + 1);
  }
}

// Re-merges with one input's offset_ns, ref (an input index) or machine
// changed.
async function remerge(file, key, value) {
  value = String(value).trim();
  if (key === 'offset_ns' && !/^-?\d+$/.test(value)) { setStatus('offset: an integer number of ns'); return; }
  if (key === 'machine' && !value) { setStatus('machine: a name'); return; }
  setStatus('re-merging…');
  try {
    await getJson(`/view/remerge?file=${file}&${key}=${encodeURIComponent(value)}`, { method: 'POST' });
    await loadTrace(false);
    setStatus('re-merged');
    document.body.dataset.remerged = String((+document.body.dataset.remerged || 0) + 1);
  } catch (e) {
    setStatus('re-merge failed: ' + e.message);
  } finally {
    state.nudge = null;
    draw();
  }
}

// ---- drag to nudge ----

function sameFile(path, name) {
  return path === name || path.endsWith('/' + name);
}

// The input whose data is on `machine` (a machine id): the only one, or
// the one chosen in the merge panel's "Ctrl+drag moves" list; else an
// error message.
function nudgeTarget(machine) {
  const f = state.files;
  if (!f || !f.canRemerge) return { error: 'this server cannot re-merge' };
  const names = f.placement.filter((p) => p.machine_id === machine).map((p) => p.file_name);
  const inputs = f.inputs.filter((i) => names.some((n) => sameFile(i.path, n)));
  if (!inputs.length) return { error: 'no input of this server is on that machine' };
  if (inputs.length > 1) {
    const names = inputs.map((i) => i.path).join(', ');
    return { error: `several files are on this machine (${names}): type the offset in the merge panel` };
  }
  const inp = inputs[0];
  if (inp.ref === null) return { error: `${inp.path} is the file the others are placed against: choose its reference first` };
  return { input: inp };
}

// The offset of input `inp` from its reference as now placed: its own
// offset, else the difference of the two files' placement offsets.
function currentOffset(inp) {
  if (inp.offset_ns !== null) return inp.offset_ns;
  const f = state.files;
  const own = f.placement.find((p) => sameFile(inp.path, p.file_name));
  const ref = f.inputs.find((i) => i.path === inp.ref || sameFile(i.path, inp.ref));
  const refRow = ref && f.placement.find((p) => sameFile(ref.path, p.file_name));
  return (own ? own.offset_ns || 0 : 0) - (refRow ? refRow.offset_ns || 0 : 0);
}

// Ctrl+drag (or Alt+drag) started on a row of `machine` at canvas x.
function nudgeStart(machine, x) {
  const target = nudgeTarget(machine);
  if (target.error) { setStatus('drag: ' + target.error); return false; }
  state.nudge = { machine, input: target.input, x0: x, dx: 0, busy: false };
  return true;
}

function nudgeNs() {
  const n = state.nudge;
  return Math.round(n.dx * (state.end - state.start) / trackWidth());
}

function nudgeMove(x) {
  const n = state.nudge;
  if (n.busy) return;
  n.dx = x - n.x0;
  setStatus(`moving ${n.input.path} by ${fmtDur(nudgeNs())}`);
  draw();
}

// Dragging right by dt moves the file's events dt later: its offset grows
// by dt.
function nudgeEnd() {
  const n = state.nudge;
  const dt = nudgeNs();
  if (!dt) { state.nudge = null; draw(); return; }
  n.busy = true;
  remerge(n.input.index, 'offset_ns', String(currentOffset(n.input) + dt));
}
