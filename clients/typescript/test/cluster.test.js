// The client against a real 3-node cluster (REGENT_ENDPOINTS, else one started here: see env.js): leases,
// failover past a dead endpoint, locks, the fenced-ledger example through a paused holder, and an observer
// that outlives its node.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { connect, status, LedgerClient, LeaseKeeper } = require('../dist/src');
const { setUp, until, track } = require('./env');

const WAIT = 30_000;
const TTL = 3_000; // above the cluster's minimum (1.5 x 1 200 ms)
const EXAMPLE = path.join(__dirname, '..', 'dist', 'examples', 'ledger-writer.js');
const run = `${process.pid}-${Date.now()}`; // names of this run, unique on a shared cluster

let env;
let client;
const children = [];

before(async () => {
  env = await setUp();
  client = connect(env.endpoints);
  await until(async () => (await client.status()).leader, WAIT, 'a Raft leader');
});

after(async () => {
  for (const c of children) stopChild(c);
  await Promise.all(children.map((c) => c.exited));
  if (client) client.close();
  if (env) await env.stop();
});

/** Runs the example as a child process; lines are collected in `lines`, `exited` resolves to its exit code. */
function writer(name, ...args) {
  const child = spawn(process.execPath, [EXAMPLE, env.endpoints.join(','), env.ledger, name, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  const c = { child, lines: [], stderr: '' };
  c.exited = new Promise((resolve) => child.once('exit', (code, sig) => resolve(code ?? sig)));
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    const parts = buf.split('\n');
    buf = parts.pop();
    c.lines.push(...parts);
  });
  child.stderr.on('data', (d) => { c.stderr += d; });
  children.push(c);
  return c;
}

function stopChild(c) {
  if (c.child.exitCode !== null || c.child.signalCode !== null) return;
  c.child.kill('SIGCONT');
  c.child.kill('SIGKILL');
}

const line = (c, re, what) => until(() => c.lines.find((l) => re.test(l)), WAIT,
  `${what} (lines: ${c.lines.join(' | ')}${c.stderr})`);

test('leases: grant, keepAlive, timeToLive, revoke; a TTL below the minimum is INVALID_ARGUMENT', async () => {
  const id = await client.grant(TTL);
  assert.equal(await client.keepAlive(id), TTL);
  const t = await client.timeToLive(id);
  assert.equal(t.ttlMs, TTL);
  assert.ok(t.remainingMs > 0 && t.remainingMs <= TTL, `remaining ${t.remainingMs}`);
  assert.ok((await client.leases()).some((l) => l.id === id));
  await client.revoke(id);
  await assert.rejects(client.timeToLive(id), (e) => e.code === status.NOT_FOUND);
  await assert.rejects(client.keepAlive(id), (e) => e.code === status.NOT_FOUND);
  await assert.rejects(client.grant(10), (e) => e.code === status.INVALID_ARGUMENT);

  // kept alive every ttl/3: the lease outlives its TTL, until revoked
  const t0 = performance.now();
  const k = await LeaseKeeper.grant(client, TTL);
  await until(() => performance.now() - t0 > TTL * 1.5, WAIT, 'one and a half TTLs');
  assert.equal(k.valid(), true);
  assert.ok((await client.timeToLive(k.leaseId)).remainingMs > 0);
  await k.revoke();
  await assert.rejects(client.timeToLive(k.leaseId), (e) => e.code === status.NOT_FOUND);
});

test('a dead first endpoint costs nothing; writes then go to the Raft leader', async () => {
  const c = connect(['127.0.0.1:1', ...env.endpoints]);
  try {
    const id = await c.grant(TTL);
    await c.revoke(id);
    const s = await client.status();
    const leader = s.members.find((m) => m.id === s.leader);
    await until(async () => {
      await c.leader(`ts-none-${run}`);
      return c.leaderEndpoint() === leader.apiAddress;
    }, WAIT, `routing to the leader ${leader.apiAddress}`);
  } finally {
    c.close();
  }
});

test('a client given one endpoint learns the other members', async () => {
  const c = connect(env.endpoints[0]);
  try {
    await c.status();
    await until(() => c.endpoints.length === env.endpoints.length, WAIT, `all endpoints (${c.endpoints})`);
    assert.deepEqual([...c.endpoints].sort(), [...env.endpoints].sort());
  } finally {
    c.close();
  }
});

test('lock: one holder at a time, the next one gets a larger token', async () => {
  const name = `ts-lock-${run}`;
  const first = await client.lock(name, { ttl: TTL, value: 'first' });
  assert.ok(first.token > 0);
  assert.equal((await client.leader(name)).value.toString(), 'first');
  await assert.rejects(client.lock(name, { ttl: TTL, timeoutMs: 500 }), (e) => e.code === status.DEADLINE_EXCEEDED);
  const waiting = client.lock(name, { ttl: TTL, value: 'second' });
  assert.equal(await first.resign(), true);
  const second = await waiting;
  assert.ok(second.token > first.token, `${second.token} > ${first.token}`);
  assert.equal(await second.resign(), true);
  assert.equal(await client.leader(name), undefined);
});

/** A member's view as its events tell it: partition to token. */
function follow(member) {
  const owned = new Map();
  member.on('assigned', (p, t) => owned.set(p, t));
  member.on('revoked', (p) => owned.delete(p));
  return owned;
}

test('groups: two members split 4 partitions with tokens; after one leaves the other owns all 4 with larger tokens',
  async () => {
    const group = `ts-group-${run}`;
    const a = await client.joinGroup(group, 'a', { partitions: 4, ttl: TTL });
    const ownedA = follow(a);
    const b = await client.joinGroup(group, 'b', { partitions: 4, ttl: TTL });
    const ownedB = follow(b);
    try {
      await until(() => ownedA.size === 2 && ownedB.size === 2, WAIT, 'a balanced split');
      const before = new Map([...ownedA, ...ownedB]);
      assert.deepEqual([...before.keys()].sort(), [0, 1, 2, 3], 'disjoint and covering every partition');
      assert.ok([...before.values()].every((t) => t > 0));
      assert.deepEqual(a.owned(), ownedA);
      const [pb] = ownedB.keys();
      assert.equal(b.token(pb), ownedB.get(pb));
      assert.throws(() => a.token(pb), RangeError);
      const s = await client.groupStatus(group);
      assert.equal(s.partitions, 4);
      assert.deepEqual(new Map(s.owners.map((o) => [o.partition, `${o.owner}:${o.token}`])),
        new Map([...before].map(([p, t]) => [p, `${ownedA.has(p) ? 'a' : 'b'}:${t}`])));
      const movedFromB = [...ownedB.keys()];
      assert.equal(await b.leave(), true);
      assert.equal(ownedB.size, 0, 'leave() revokes every partition');
      await until(() => ownedA.size === 4, WAIT, 'all 4 partitions at a');
      const highest = Math.max(...before.values());
      for (const p of movedFromB) assert.ok(ownedA.get(p) > highest, `partition ${p}: ${ownedA.get(p)} > ${highest}`);
      for (const [p, t] of before) if (!movedFromB.includes(p)) assert.equal(ownedA.get(p), t, 'a keeps its own');
      await assert.rejects(client.joinGroup(group, 'c', { partitions: 8, ttl: TTL }),
        (e) => e.code === status.FAILED_PRECONDITION);
    } finally {
      await b.leave();
      await a.leave();
    }
    assert.equal(ownedA.size, 0);
    await assert.rejects(client.groupStatus(group), (e) => e.code === status.NOT_FOUND);
  });

test('groups: a member whose lease is revoked revokes every partition, then emits lost', async () => {
  const member = await client.joinGroup(`ts-group-lost-${run}`, 'a', { partitions: 2, ttl: TTL });
  const owned = follow(member);
  let ownedAtLost;
  member.once('lost', () => { ownedAtLost = owned.size; });
  await until(() => owned.size === 2, WAIT, 'both partitions');
  await client.revoke(member.lease); // as the leader does when the lease expires
  await until(() => ownedAtLost !== undefined, WAIT, "'lost'");
  assert.equal(ownedAtLost, 0, 'every partition is revoked before lost');
  assert.equal(member.valid(), false);
  assert.equal(member.owned().size, 0);
  assert.equal(await member.leave(), false);
});

test('a holder paused past its TTL is replaced by one with a larger token; its ledger write is refused', async () => {
  const name = `ts-jobs-${run}`;
  // a: the example as a zombie (it writes on after its signal fired, as a process paused between check and write)
  const a = writer(name, '--id', 'a', '--count', '100000', '--ttl', String(TTL), '--interval', '100', '--zombie');
  const tokenA = Number((await line(a, /^elected /, 'a elected')).match(/token=(\d+)/)[1]);
  await line(a, /^admitted a #1 /, 'a admitted');
  a.child.kill('SIGSTOP');
  const stopped = Date.now();
  const b = writer(name, '--id', 'b', '--count', '3', '--ttl', String(TTL));
  const tokenB = Number((await line(b, /^elected /, 'b elected')).match(/token=(\d+)/)[1]);
  const took = Date.now() - stopped;
  assert.ok(tokenB > tokenA, `b's token ${tokenB} > a's ${tokenA}`);
  assert.ok(took >= TTL * 2 / 3, `b waited for a's lease to expire (${took} ms)`);
  assert.equal(await b.exited, 0, `b: ${b.lines.join(' | ')}${b.stderr}`);
  a.child.kill('SIGCONT');
  const rejected = await line(a, /^rejected /, 'a refused');
  assert.match(rejected, new RegExp(`token=${tokenA}: .*${tokenB}`), 'the refusal names the token and the highest');
  assert.equal(await a.exited, 4, `a: ${a.lines.join(' | ')}${a.stderr}`);

  const ledger = new LedgerClient(env.ledger);
  try {
    const entries = await ledger.read(name);
    const firstB = entries.findIndex((e) => e.entry.toString().startsWith('b '));
    assert.ok(firstB > 0, 'a wrote, then b');
    assert.equal(entries.slice(firstB).filter((e) => e.entry.toString().startsWith('a ')).length, 0,
      'no write of a after b\'s first');
    assert.ok(entries.every((e, i) => i === 0 || e.token >= entries[i - 1].token), 'tokens never decrease');
  } finally {
    ledger.close();
  }
});

const canKill = !process.env.REGENT_ENDPOINTS || process.env.REGENT_CLUSTER_DIR
  ? false : 'no REGENT_CLUSTER_DIR: no pid files to pause or kill a node by';

/** The pid of cluster member `id`, from its pid file. */
function nodePid(id) {
  return Number(fs.readFileSync(path.join(env.clusterDir, `${id}.pid`), 'utf8').trim());
}

/** Waits until every member answers (a restarted node may still be starting) and returns the status. */
async function allUp() {
  const s = await client.status();
  await Promise.all(s.members.map(async (m) => {
    const one = connect(m.apiAddress, { discoverEndpoints: false });
    try {
      await until(() => one.status({ serializable: true, timeoutMs: 2_000 }), WAIT, `member ${m.id} answering`);
    } finally {
      one.close();
    }
  }));
  return until(async () => {
    const now = await client.status();
    return now.leader && now;
  }, WAIT, 'a Raft leader');
}

test('a suspending holder keeps its lease and token through a frozen Raft leader', { skip: canKill }, async () => {
  const s = await allUp();
  const pid = nodePid(s.leader);
  const holder = await client.elect(`ts-ride-${run}`, { ttl: TTL, suspend: true });
  let lost;
  holder.on('lost', (reason) => { lost = reason; });
  const others = connect(s.members.filter((m) => m.id !== s.leader).map((m) => m.apiAddress));
  process.kill(pid, 'SIGSTOP');
  try {
    await until(async () => {
      const now = await others.status({ timeoutMs: 2_000 });
      return now.leader && now.leader !== s.leader;
    }, WAIT, 'a new Raft leader');
    // renewed through the new leader: valid again (resumed if it was suspended meanwhile), never lost
    await until(async () => holder.valid() && (await client.timeToLive(holder.lease)).remainingMs > 0, WAIT,
      'the holder renewed by the new leader');
    assert.equal(lost, undefined);
  } finally {
    process.kill(pid, 'SIGCONT');
    others.close();
  }
  assert.equal(await holder.resign(), true);
});

test('observe goes on at another node when its node is killed, without repeats', { skip: canKill }, async () => {
  const name = `ts-obs-${run}`;
  const s = await allUp();
  const follower = s.members.find((m) => m.id !== s.leader && m.apiAddress);
  const others = env.endpoints.filter((e) => e !== follower.apiAddress);
  const oc = connect([follower.apiAddress, ...others]);
  const events = [];
  const stop = new AbortController();
  const done = (async () => {
    for await (const e of oc.observe(name, { signal: stop.signal })) events.push(e);
  })();
  try {
    await until(() => events.find((e) => e.kind === 'CURRENT'), WAIT, 'the current state');
    const h1 = await client.elect(name, { ttl: TTL, value: 'one' });
    await until(() => events.find((e) => e.kind === 'ELECTED' && e.leader.token === h1.token), WAIT, 'h1 elected');
    process.kill(nodePid(follower.id), 'SIGKILL'); // the observer's node dies
    await h1.resign();
    const h2 = await client.elect(name, { ttl: TTL, value: 'two' });
    await until(() => events.find((e) => e.kind === 'ELECTED' && e.leader.token === h2.token), WAIT, 'h2 elected');
    await h2.resign();
    await until(() => events.filter((e) => e.kind === 'RESIGNED').length === 2, WAIT, 'both resignations');
    const idx = events.map((e) => e.index);
    assert.deepEqual(idx, [...idx].sort((x, y) => x - y), 'in log order');
    assert.equal(new Set(idx).size, idx.length,
      `nothing twice: ${JSON.stringify(events.map((e) => [e.kind, e.index]))}`);
    assert.deepEqual(events.filter((e) => !e.compacted).map((e) => e.kind),
      ['CURRENT', 'ELECTED', 'RESIGNED', 'ELECTED', 'RESIGNED']);
  } finally {
    stop.abort();
    await done;
    oc.close();
  }
});
