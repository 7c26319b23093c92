// `weft view` in a real browser: Debian's chromium, or firefox-esr with
// BROWSER=firefox, headless, driven by puppeteer-core (Chrome DevTools
// Protocol for Chromium, WebDriver BiDi for Firefox).
// Usage: [BROWSER=firefox] node view.test.js WEFT_BINARY OUT_DIR
// Loads a phone (proto), server (systrace) and browser (JSON) merge and
// checks that both machine groups show, a click shows a slice's args,
// zooming changes the visible range, an offset typed in the merge panel
// moves the file and the downloaded manifest reproduces it, and the SQL
// console returns rows. Screenshots go to OUT_DIR.
'use strict';

const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const puppeteer = require('puppeteer-core');

const WEFT = path.resolve(process.argv[2]);
const OUT = path.resolve(process.argv[3] || 'browser-out');
const FIREFOX = process.env.BROWSER === 'firefox';
const EXECUTABLE = FIREFOX ? process.env.FIREFOX || '/usr/bin/firefox-esr'
  : process.env.CHROMIUM || '/usr/bin/chromium';
const TRACES = path.join(OUT, 'traces');
const MERGE_FLAGS = [
  '--machine', 'phone.pftrace=phone', '--machine', 'server.txt=server',
  '--machine', 'browser.json=laptop',
  '--sync', 'server.txt=phone.pftrace', '--offset', 'server.txt=990s',
  '--sync', 'browser.json=phone.pftrace', '--offset', 'browser.json=-85399900000000',
];
const INPUTS = ['phone.pftrace', 'server.txt', 'browser.json'].map((f) => path.join(TRACES, f));
const MARKED_SQL = "select ts from slice where name = 'marked'";

function startView(args = [...MERGE_FLAGS, ...INPUTS]) {
  const proc = spawn(WEFT, ['view', '--port', '0', '--idle-timeout', '300', '--quiet',
    ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let text = '';
    proc.stdout.on('data', (d) => {
      text += d;
      const m = /http:\/\/\S+/.exec(text);
      if (m) resolve({ proc, url: m[0] });
    });
    proc.on('exit', (code) => reject(new Error('weft view exited with ' + code)));
  });
}

function weftQuery(args, sql) {
  const out = execFileSync(WEFT, [...args, '-Q', sql], { encoding: 'utf8' });
  return out.trim().split('\n')[1];
}

async function painted(page, after) {
  await page.waitForFunction((n) => +(document.body.dataset.painted || 0) > n,
    { timeout: 20000 }, after);
  return +(await page.evaluate(() => document.body.dataset.painted));
}

async function range(page) {
  return page.evaluate(() => [+document.body.dataset.start, +document.body.dataset.end]);
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(OUT, name) });
}

async function checkMachines(page) {
  const machines = await page.evaluate(() => document.body.dataset.machines.split('|'));
  for (const m of ['phone', 'server', 'laptop']) assert.ok(machines.includes(m), m);
  await shot(page, 'view-merged.png');
}

// The canvas point of the first slice drawn on a thread track of `machine`
// (with debug args, when `withArgs`: many slices of the phone have none).
async function sliceOnScreen(page, machine, withArgs = false) {
  return page.evaluate(async (machineName, needArgs) => {
    const v = window.weftView, s = v.state.summary;
    const mid = v.state.trace.machines.find((m) => m.name === machineName).id;
    const hasArgs = async (id) => {
      const r = await fetch('/view/query', { method: 'POST', body:
        `select count(*) from args where key glob 'debug.*' and arg_set_id = ` +
        `(select arg_set_id from slice where id = ${id})` });
      return (await r.json()).rows[0][0] > 0;
    };
    for (const r of v.state.rows) {
      if (r.type !== 'track' || r.track.kind !== 'slices' || r.track.utid < 0) continue;
      if (r.track.machine !== mid) continue;
      const t = v.state.summaryByVid.get(r.track.vid);
      const y = r.y - v.state.scrollY + 1 + v.LANE_H / 2;
      if (!t || y > document.getElementById('timeline').clientHeight) continue;
      for (const run of t.runs) {
        if (run[2] !== 0 || run[1] - run[0] < 2) continue;
        if (needArgs && !(await hasArgs(run[3]))) continue;
        return { x: (v.summaryX(s, run[0]) + v.summaryX(s, run[1] + 1)) / 2, y, id: run[3] };
      }
    }
    return null;
  }, machine, withArgs);
}

async function checkClickShowsArgs(page) {
  const canvas = await page.$('#timeline');
  const box = await canvas.boundingBox();
  const hit = await sliceOnScreen(page, 'phone', true);
  assert.ok(hit, 'a phone slice with args on screen');
  await page.mouse.click(box.x + hit.x, box.y + hit.y);
  // the panel's table is there once the slice's args have come (a header
  // row, then one row per arg)
  await page.waitForFunction(() => document.querySelectorAll('#args table tr').length > 1,
                             { timeout: 30000 });
  const args = await page.$$eval('#args table tr', (rows) => rows.slice(1).map((r) => r.innerText));
  assert.ok(args.length > 0, 'the slice has args');
  assert.ok(args.some((a) => a.includes('debug.')), args.join(';'));
  await shot(page, 'view-args.png');
}

async function checkZoom(page, ticket) {
  const [s0, e0] = await range(page);
  await page.focus('#timeline');
  for (let i = 0; i < 5; i++) await page.keyboard.press('w');
  ticket = await painted(page, ticket);
  const [s1, e1] = await range(page);
  assert.ok(e1 - s1 < (e0 - s0) * 0.5, `zoomed in: ${e1 - s1} < ${e0 - s0}`);
  const canvas = await page.$('#timeline');
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + 100);
  await page.mouse.wheel({ deltaY: 400 });
  ticket = await painted(page, ticket);
  const [s2, e2] = await range(page);
  assert.ok(e2 - s2 > e1 - s1, 'the wheel zooms out');
  await shot(page, 'view-zoomed.png');
  return ticket;
}

async function checkSql(page) {
  await page.click('button[data-tab="sql"]');
  await page.$eval('#sql', (el) => { el.value = 'select id, ts, dur, name from slice order by id limit 7'; });
  await page.click('#run');
  await page.waitForFunction(() => document.querySelectorAll('#sql-result tr').length > 1);
  const rows = await page.$$eval('#sql-result tr', (r) => r.length - 1);
  assert.equal(rows, 7);
  await page.click('#pin');
  const pinned = await page.evaluate(() => window.weftView.state.pinned.length);
  assert.equal(pinned, 1);
  await shot(page, 'view-sql.png');
}

// Opens the merge tab and checks that `selector` is in it. The panel is
// filled after a fetch that ends each page load (body's data-files counts
// them); a failed fill says why in the panel, which the assertion shows.
async function openMergeTab(page, selector) {
  await page.click('button[data-tab="merge"]');
  await page.waitForSelector('#tab-merge.on', { timeout: 10000 });
  await page.waitForFunction(() => +(document.body.dataset.files || 0) > 0, { timeout: 30000 });
  const found = await page.evaluate((sel) => document.querySelector(sel) !== null, selector);
  const panel = await page.$eval('#tab-merge', (el) => el.textContent.slice(0, 300));
  assert.ok(found, `${selector} in the merge panel, which reads: ${panel}`);
}

async function checkOffset(page, ticket) {
  const before = weftQuery([...MERGE_FLAGS, ...INPUTS], MARKED_SQL);
  await openMergeTab(page, 'input.machine[data-file="2"]');
  const machine = await page.$eval('input.machine[data-file="2"]', (el) => el.value);
  assert.equal(machine, 'laptop');
  const field = await page.waitForSelector('input.offset[data-file="2"]');
  const old = await field.evaluate((el) => el.value);
  assert.equal(old, '-85399900000000');
  await field.click();
  await field.evaluate((el) => el.select()); // a triple click selects nothing in Firefox
  await field.type('-85399800000000');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.remerged === '1', { timeout: 30000 });
  const moved = await page.evaluate(async (sql) => {
    const r = await fetch('/view/query', { method: 'POST', body: sql });
    return (await r.json()).rows[0][0];
  }, MARKED_SQL);
  assert.equal(moved - +before, 100000000, 'the file moved by the offset change');
  await painted(page, ticket);
  await shot(page, 'view-remerged.png');
  return moved;
}

// Scrolls the first row of `machine` on screen: its canvas y, or null.
async function rowOnScreen(page, machine) {
  return page.evaluate((machineName) => {
    const v = window.weftView, st = v.state;
    const mid = st.trace.machines.find((m) => m.name === machineName).id;
    const r = st.rows.find((row) => row.type === 'track' && row.machine === mid);
    if (!r) return null;
    st.scrollY = Math.max(0, r.y - 60);
    requestSummary();
    draw();
    return r.y - st.scrollY + r.height / 2;
  }, machine);
}

// Ctrl+drag on the laptop's tracks moves the laptop's file by the time
// dragged, and the downloaded manifest reproduces where it landed.
async function checkDrag(page, before) {
  const ticket = +(await page.evaluate(() => document.body.dataset.painted));
  await page.click('#reset');
  await painted(page, ticket);
  const canvas = await page.$('#timeline');
  const box = await canvas.boundingBox();
  const shown = +(await page.evaluate(() => document.body.dataset.painted));
  const y = await rowOnScreen(page, 'laptop');
  assert.ok(y !== null, 'a laptop row');
  await painted(page, shown);
  const dt = await page.evaluate(() => {
    const st = window.weftView.state;
    return Math.round(200 * (st.end - st.start) / window.weftView.trackWidth());
  });
  const oldOffset = await page.$eval('input.offset[data-file="2"]', (el) => +el.value);
  await page.keyboard.down('Control');
  await page.mouse.move(box.x + 500, box.y + y);
  await page.mouse.down();
  await page.mouse.move(box.x + 600, box.y + y, { steps: 4 });
  await page.mouse.move(box.x + 700, box.y + y, { steps: 4 });
  await shot(page, 'view-dragging.png');
  await page.mouse.up();
  await page.keyboard.up('Control');
  await page.waitForFunction(() => document.body.dataset.remerged === '2', { timeout: 30000 });
  const newOffset = await page.$eval('input.offset[data-file="2"]', (el) => +el.value);
  assert.equal(newOffset - oldOffset, dt, 'the drag changed the offset by the time dragged');
  const moved = await page.evaluate(async (sql) => {
    const r = await fetch('/view/query', { method: 'POST', body: sql });
    return (await r.json()).rows[0][0];
  }, MARKED_SQL);
  assert.equal(moved - before, dt, 'the file moved by the drag');
  await shot(page, 'view-dragged.png');
  const downloads = path.join(OUT, 'downloads');
  fs.rmSync(downloads, { recursive: true, force: true });
  fs.mkdirSync(downloads, { recursive: true });
  if (!FIREFOX) { // Firefox saves to the folder its launch preferences name
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
  }
  await page.click('#download');
  const manifest = path.join(downloads, 'perfetto_manifest.json');
  for (let i = 0; i < 100 && !fs.existsSync(manifest); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(fs.existsSync(manifest), 'the manifest was downloaded');
  assert.equal(weftQuery(['--manifest', manifest, ...INPUTS], MARKED_SQL), String(moved));
  const zip = path.join(OUT, 'remerged.zip');
  execFileSync(WEFT, ['merge', '-o', zip, '--manifest', manifest, ...INPUTS]);
  assert.equal(weftQuery([zip], MARKED_SQL), String(moved));
}

async function checkBoxSelect(page) {
  const canvas = await page.$('#timeline');
  const box = await canvas.boundingBox();
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + 400, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + 900, box.y + 250, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.waitForSelector('#selection-total', { timeout: 30000 });
  const text = await page.$eval('#selection-total', (el) => el.textContent);
  assert.match(text, /^\d+ slices, total /);
  await shot(page, 'view-selection.png');
}

// The merge panel says how each file was placed: a phone, a server
// placed through the phone's clock snapshots and a watch on a machine of
// its own placed by a same-domain guess, marked as a guess.
async function checkPlacement(browser) {
  const files = ['phone.pftrace', 'server.txt', 'watch.pftrace'].map((f) => path.join(TRACES, f));
  const { proc, url } = await startView(['--machine', 'watch.pftrace=watch', ...files]);
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(url);
    await painted(page, 0);
    await openMergeTab(page, '#placement tr[data-rule]');
    const rows = await page.$$eval('#placement tr[data-rule]', (trs) => trs.map((tr) => {
      const cell = (c) => tr.querySelector(`td[data-col="${c}"]`).textContent;
      return { file: cell('file_name'), rule: cell('rule'), guess: cell('is_guess'),
               path: cell('clock_path'), dropped: cell('dropped_events'), why: cell('detail'),
               marked: tr.classList.contains('guess') };
    }));
    const server = rows.find((r) => r.file.endsWith('server.txt'));
    assert.equal(server.rule, 'clock_snapshot');
    assert.equal(server.guess, 'no');
    assert.equal(server.marked, false);
    assert.match(server.path, /^file@\S+ -> MONOTONIC@\S+ -> BOOTTIME@\S+$/);
    assert.equal(server.dropped, '0');
    const watch = rows.find((r) => r.file.endsWith('watch.pftrace'));
    assert.equal(watch.rule, 'same_domain_guess');
    assert.equal(watch.guess, 'GUESS');
    assert.equal(watch.marked, true);
    assert.match(watch.path, /^BOOTTIME@watch -> BOOTTIME@\S+$/);
    assert.ok(watch.why.length > 0, 'the guess says why');
    await shot(page, 'view-placement.png');
    await page.close();
  } finally {
    proc.kill('SIGTERM');
  }
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  execFileSync('python3', [path.join(__dirname, 'make_traces.py'), TRACES]);
  const { proc, url } = await startView();
  assert.ok(url.startsWith('http://127.0.0.1:'), url);
  const browser = await puppeteer.launch(FIREFOX ? {
    browser: 'firefox', executablePath: EXECUTABLE, headless: true,
    extraPrefsFirefox: {
      'browser.download.folderList': 2,
      'browser.download.dir': path.join(OUT, 'downloads'),
      'browser.download.useDownloadDir': true,
      'browser.download.always_ask_before_handling_new_types': false,
      'browser.helperApps.neverAsk.saveToDisk': 'application/json',
    },
  } : {
    executablePath: EXECUTABLE, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    const errors = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(url);
    let ticket = await painted(page, 0);
    await checkMachines(page);
    ticket = await checkZoom(page, ticket);
    await page.click('#reset');
    ticket = await painted(page, ticket);
    await checkClickShowsArgs(page);
    await checkBoxSelect(page);
    await checkSql(page);
    const typed = await checkOffset(page, ticket);
    await checkDrag(page, typed);
    await checkPlacement(browser);
    assert.deepEqual(errors, []);
    console.log('browser tests passed; screenshots in ' + OUT);
  } catch (err) {
    const pages = await browser.pages();
    if (pages.length) await pages[pages.length - 1].screenshot({ path: path.join(OUT, 'failed.png') });
    throw err;
  } finally {
    await browser.close();
    proc.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
