// agui-client.cjs: the AG-UI reference client (@ag-ui/client's HttpAgent,
// with its own event-order checks, and @ag-ui/core's event schemas) run
// against journalchain serve, for tests/t-journalchain-agui.sh.
//
// usage: node agui-client.cjs URL run ID | follow READYFILE
//   run ID      forwardedProps.borne.run = ID
//   follow F    forwardedProps.borne.follow = true; F is written once the
//               server answered the request's headers (the run to follow
//               may start then)
// Prints one JSON line: {"ok", "error", "types", "events", "chain",
// "state" (the agent's state, snapshot and deltas applied)}; chain
// counts the RAW records whose line hashes to the next one's prev (the
// client verifying the chain itself) and those that do not.  Exit 0 when
// the run streamed without an error thrown by the client, 1 otherwise.
'use strict';
const { HttpAgent } = require('@ag-ui/client');
const { EventSchemas } = require('@ag-ui/core/schemas');
const crypto = require('crypto');
const fs = require('fs');

const [url, mode, arg] = process.argv.slice(2);
if (!url || (mode !== 'run' && mode !== 'follow') || !arg) {
  process.stderr.write('usage: agui-client.cjs URL run ID | follow READYFILE\n');
  process.exit(2);
}
const forwardedProps = mode === 'run' ? { borne: { run: arg } } :
  { borne: { follow: true } };
const agent = new HttpAgent({
  url,
  threadId: 'borne-thread',
  fetch: async (u, init) => {
    const r = await fetch(u, init);
    if (mode === 'follow') fs.writeFileSync(arg, String(r.status));
    return r;
  },
});
const events = [];
const schemaErrors = [];
agent.runAgent({ runId: 'borne-agui-run', forwardedProps }, {
  onEvent({ event }) {
    const r = EventSchemas.safeParse(event);
    if (!r.success) schemaErrors.push(event.type + ': ' + r.error.message);
    events.push(event);
  },
}).then(() => report(null), (e) => report(e));

function report(err) {
  // The chain, as a client checks it: each RAW line's SHA-256 (its newline
  // included) is the next record's prev.
  const raws = events.filter((e) => e.type === 'RAW' && e.source === 'borne.journal');
  let linked = 0, broken = 0;
  for (let i = 0; i + 1 < raws.length; i++) {
    const a = raws[i].event, b = raws[i + 1].event;
    if (b.seq !== a.seq + 1) continue;
    const h = crypto.createHash('sha256').update(a.line + '\n').digest('hex');
    if (JSON.parse(b.line).prev === h) linked++; else broken++;
  }
  const out = {
    ok: err === null && schemaErrors.length === 0,
    error: err ? String(err.message || err) : (schemaErrors[0] || null),
    types: events.map((e) => e.type),
    events,
    chain: { linked, broken },
    state: agent.state,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(out.ok ? 0 : 1);
}
