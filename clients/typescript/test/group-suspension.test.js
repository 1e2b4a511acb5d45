// A suspending group member (joinGroup with suspend: true) against a real cluster (REGENT_ENDPOINTS, else one
// started here: see env.js), its keepalives held by a paused TCP forwarder (tcp-proxy.js).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { connect } = require('../dist/src');
const { setUp, until } = require('./env');
const { TcpProxy } = require('./tcp-proxy');

const WAIT = 30_000;
const TTL = 6_000; // in doubt 4 s after the last acknowledged keepalive's send, expired about 2 s later
const run = `${process.pid}-${Date.now()}`; // names of this run, unique on a shared cluster

let env;
let client;

before(async () => {
  env = await setUp({ ledger: false });
  client = connect(env.endpoints);
});

after(async () => {
  if (client) client.close();
  if (env) await env.stop();
});

/** Records a member's events in order: ['assigned', p, token], ['revoked', p], ['suspended'], ['resumed'], ['lost']. */
function record(member) {
  const events = [];
  member.on('assigned', (p, t) => events.push(['assigned', p, t]));
  member.on('revoked', (p) => events.push(['revoked', p]));
  for (const e of ['suspended', 'resumed', 'lost']) member.on(e, () => events.push([e]));
  return events;
}

/** partition -> token the events leave owned. */
function ownedBy(events) {
  const owned = new Map();
  for (const e of events) {
    if (e[0] === 'assigned') owned.set(e[1], e[2]);
    else if (e[0] === 'revoked') owned.delete(e[1]);
  }
  return owned;
}

const sorted = (m) => [...m.keys()].sort((x, y) => x - y);

/** Member a of `group` whose every call (join, Watch, keepalives) goes through a TcpProxy; { proxy, a, events }. */
async function behindAProxy(t, group, partitions) {
  const s = await client.status(); // a node that is up: followers serve every call too (docs/api.md)
  const proxy = new TcpProxy(s.members.find((m) => m.id === s.leader).apiAddress);
  await proxy.listen();
  const c = connect(proxy.endpoint, { discoverEndpoints: false }); // only through the proxy
  const a = await c.joinGroup(group, 'a', { partitions, ttl: TTL, suspend: true });
  const events = record(a);
  t.after(async () => {
    await a.leave();
    c.close();
    await proxy.close();
  });
  return { proxy, a, events };
}

test('a group member cut off past 2/3 of its TTL is suspended, then resumes with the same tokens', async (t) => {
  const group = `ts-group-suspend-${run}`;
  const { proxy, a, events } = await behindAProxy(t, group, 2);
  await until(() => sorted(ownedBy(events)).join() === '0,1', WAIT, `a owning 0 and 1: ${JSON.stringify(events)}`);
  const tokens = ownedBy(events);
  const assigned = events.length;
  proxy.pause(); // no keepalive gets through: in doubt 2/3 TTL after the last acknowledged one's send
  await until(() => events.some((e) => e[0] === 'suspended'), WAIT, `suspended: ${JSON.stringify(events)}`);
  assert.deepEqual(events.slice(assigned), [['revoked', 0], ['revoked', 1], ['suspended']]);
  assert.equal(a.owned().size, 0);
  assert.equal(a.valid(), false);
  assert.throws(() => a.token(0), RangeError);
  const suspended = events.length;
  proxy.resume(); // within the TTL: the next keepalive renews the lease, and the member resumes
  await until(() => sorted(ownedBy(events.slice(suspended))).join() === '0,1', WAIT,
    `assigned again: ${JSON.stringify(events)}`);
  assert.deepEqual(events[suspended], ['resumed'], 'resumed before the partitions are assigned again');
  assert.deepEqual(ownedBy(events.slice(suspended)), tokens, 'the same tokens: no partition moved meanwhile');
  assert.equal(a.valid(), true);
  const s = await client.groupStatus(group);
  assert.deepEqual(s.owners.map((o) => [o.partition, o.owner, o.token]), [...tokens].map(([p, tk]) => [p, 'a', tk]));
});

test('a suspended group member whose lease expires is lost, its partitions moved with larger tokens', async (t) => {
  const group = `ts-group-suspend-lost-${run}`;
  const { proxy, a, events } = await behindAProxy(t, group, 4);
  const b = await client.joinGroup(group, 'b', { partitions: 4, ttl: TTL });
  const bEvents = record(b);
  t.after(() => b.leave());
  await until(() => ownedBy(bEvents).size === 2, WAIT, `b owning 2: ${JSON.stringify(bEvents)}`); // moved from a
  const rest = [0, 1, 2, 3].filter((p) => !ownedBy(bEvents).has(p)).join();
  await until(() => sorted(ownedBy(events)).join() === rest, WAIT, `a owning ${rest}: ${JSON.stringify(events)}`);
  const tokensA = ownedBy(events);
  proxy.pause();
  await until(() => events.some((e) => e[0] === 'suspended'), WAIT, `suspended: ${JSON.stringify(events)}`);
  const suspended = events.length;
  // held past its TTL: the cluster expires a's lease and gives its partitions to b
  await until(() => ownedBy(bEvents).size === 4, WAIT, `b owning all 4: ${JSON.stringify(bEvents)}`);
  for (const [p, tk] of tokensA) assert.ok(ownedBy(bEvents).get(p) > tk, `partition ${p} moved to b with a larger token`);
  proxy.resume(); // a's next keepalive: NOT_FOUND, and a is lost
  await until(() => events.some((e) => e[0] === 'lost'), WAIT, `lost: ${JSON.stringify(events)}`);
  assert.ok(!events.slice(suspended).some((e) => e[0] === 'assigned'), 'nothing assigned to a again');
  assert.equal(a.valid(), false);
  assert.deepEqual([...new Set((await client.groupStatus(group)).owners.map((o) => o.owner))], ['b']);
});
