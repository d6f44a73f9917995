// dashboard-cdp.cjs: drive headless chromium through its DevTools protocol
// against journalchain serve's dashboard, for
// tests/t-journalchain-dashboard.sh.
//
// usage: node dashboard-cdp.cjs DEVTOOLS-PORT URL RUNS DETAIL-IDS APPEND PNG
//   opens URL, waits (bounded) for RUNS rows and the live stream, reads
//   the page as a person sees it (the tables' text), opens the detail of
//   each id of DETAIL-IDS (comma-separated), runs the shell script APPEND
//   (one more run appended to the journal), waits for the page to show it
//   without a reload, and saves a screenshot of the whole page to PNG (and
//   one of the last detail opened beside it, PNG's name + "-detail").
//   Prints one JSON object: {"before", "details", "after", "reloads"}.
'use strict';
const fs = require('fs');
const { execFileSync } = require('child_process');

const [port, url, nruns, ids, append, png] = process.argv.slice(2);

async function http(path) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  return r.json();
}

let ws, seq = 0;
const pending = new Map();
function send(method, params = {}) {
  const id = ++seq;
  ws.send(JSON.stringify({ id, method, params }));
  return new Promise((res, rej) => pending.set(id, { res, rej }));
}
async function evaluate(expr) {
  const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
  if (r.exceptionDetails) throw new Error('page: ' + JSON.stringify(r.exceptionDetails));
  return r.result.value;
}
async function until(what, expr, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await evaluate(expr)) return;
    if (Date.now() > end) throw new Error('waited in vain for ' + what);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The page as text: each table of the given element, rows of cells.
const READ = `(() => {
  const t = (sel) => [...document.querySelectorAll(sel + ' tr')].map((tr) =>
    [...tr.children].map((c) => c.textContent));
  const cls = (sel) => [...document.querySelectorAll(sel + ' tr')].map((tr) => tr.className);
  return { journals: t('#jrows'), runs: t('#rrows'), classes: cls('#rrows'),
    live: document.getElementById('live').textContent,
    updates: Number(document.getElementById('live').dataset.updates) };
})()`;
const DETAIL = `(() => {
  const out = { title: document.getElementById('dtitle').textContent };
  for (const t of document.querySelectorAll('#dbody table')) {
    out[t.className] = [...t.querySelectorAll('tr')].slice(1).map((tr) =>
      [...tr.children].map((c) => c.textContent));
  }
  return out;
})()`;

async function main() {
  const targets = await http('/json/list');
  const page = targets.find((t) => t.type === 'page');
  ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((res, rej) => { ws.onopen = res; ws.onerror = rej; });
  let loads = 0;
  ws.onmessage = (m) => {
    const d = JSON.parse(m.data);
    if (d.id && pending.has(d.id)) {
      const p = pending.get(d.id);
      pending.delete(d.id);
      if (d.error) p.rej(new Error(JSON.stringify(d.error))); else p.res(d.result);
    } else if (d.method === 'Page.loadEventFired') loads++;
  };
  await send('Page.enable');
  await send('Runtime.enable');
  await send('Emulation.setDeviceMetricsOverride', { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
  await send('Page.navigate', { url });
  await until(nruns + ' runs and the live stream',
    `document.querySelectorAll('#rrows tr').length === ${Number(nruns)} &&
     document.getElementById('live').textContent === 'live'`);
  const before = await evaluate(READ);
  const details = {};
  for (const id of ids.split(',')) {
    await evaluate(`location.hash = 'run=' + ${JSON.stringify(id)}`);
    await until('the detail of run ' + id,
      `document.getElementById('dtitle').textContent.startsWith('Run ' + ${JSON.stringify(id)} + ':')`);
    details[id] = await evaluate(DETAIL);
  }
  // The last detail opened, as a person sees it.
  const dshot = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
  fs.writeFileSync(png.replace(/\.png$/, '') + '-detail.png', Buffer.from(dshot.data, 'base64'));
  await evaluate(`location.hash = ''`);
  const loadsBefore = loads;
  execFileSync('sh', [append], { stdio: ['ignore', 'ignore', 'inherit'] });
  // APPEND has returned: the run has ended, and the page must say so
  // (it may have shown it running first, from its start record).
  await until('the appended run on the page, ended',
    `document.querySelectorAll('#rrows tr').length === ${Number(nruns) + 1} &&
     !document.querySelector('#rrows tr').classList.contains('running')`, 20000);
  const after = await evaluate(READ);
  const shot = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
  fs.writeFileSync(png, Buffer.from(shot.data, 'base64'));
  process.stdout.write(JSON.stringify({ before, details, after, reloads: loads - loadsBefore }) + '\n');
  ws.close();
}
main().then(() => process.exit(0), (e) => { process.stderr.write(String(e.stack || e) + '\n'); process.exit(1); });
