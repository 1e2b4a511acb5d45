// The client's rules against fake nodes (gRPC servers of this process serving the same proto): failover,
// what is re-sent after a timeout and with which request id, leader-aware routing, the keeper's 2/3-ttl deadline
// and suspension, the observer's resumption and `compacted`, and bad input. Fast: no cluster.
'use strict';
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { connect, status, LeadershipError, tlsCredentials } = require('../dist/src');
const { PROTO_DIR } = require('../dist/src/proto');
const { until } = require('./env');

const v1 = grpc.loadPackageDefinition(protoLoader.loadSync(['regent/v1/regent.proto', 'regent/v1/group.proto'], {
  includeDirs: [PROTO_DIR], keepCase: true, longs: Number, enums: String, defaults: true })).regent.v1;

const servers = [];
after(() => servers.forEach((s) => s.forceShutdown()));

/**
 * A fake node: handlers by 'Service.Method' (missing ones answer UNIMPLEMENTED), plaintext unless given server
 * credentials; resolves to its address.
 */
async function fake(handlers, md = {}, creds = grpc.ServerCredentials.createInsecure()) {
  const server = new grpc.Server();
  const calls = [];
  for (const svc of ['Lease', 'Election', 'Lock', 'Cluster', 'Group']) {
    const impl = {};
    for (const method of Object.keys(v1[svc].service)) {
      impl[method] = (call, cb) => {
        calls.push({ method: `${svc}.${method}`, request: call.request });
        const meta = new grpc.Metadata();
        for (const [k, v] of Object.entries(md)) meta.set(k, v);
        const h = handlers[`${svc}.${method}`];
        if (!h) {
          if (cb) cb({ code: status.UNIMPLEMENTED, details: 'fake', metadata: meta });
          else call.emit('error', { code: status.UNIMPLEMENTED, details: 'fake', metadata: meta });
          return;
        }
        if (cb) call.sendMetadata(meta);
        h(call, cb);
      };
    }
    server.addService(v1[svc].service, impl);
  }
  const port = await new Promise((res, rej) => server.bindAsync('127.0.0.1:0', creds,
    (e, p) => (e ? rej(e) : res(p))));
  servers.push(server);
  return { address: `127.0.0.1:${port}`, calls, count: (m) => calls.filter((c) => c.method === m).length };
}

/** A port nothing listens on. */
async function closedPort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const port = s.address().port;
  await new Promise((r) => s.close(r));
  return `127.0.0.1:${port}`;
}

const ok = (value) => (call, cb) => cb(null, value);
const hang = () => () => {}; // never answers: the caller's deadline ends it

test('bad input is a clear error before anything is sent', async () => {
  assert.throws(() => connect(''), /at least one endpoint/);
  assert.throws(() => connect('nohost'), /'nohost' is not host:port/);
  assert.throws(() => connect('h:70000'), /not host:port/);
  const c = connect(await closedPort());
  try {
    await assert.rejects(c.elect('', { ttl: 3000 }), TypeError);
    await assert.rejects(c.elect('jobs', { ttl: -5 }), /ttl must be a whole number of milliseconds/);
    await assert.rejects(c.elect('jobs', { ttl: '5s' }), /ttl must be a whole number of milliseconds >= 1, not 5s/);
    await assert.rejects(c.lock('jobs', null), /options must be an object/);
    await assert.rejects(c.grant(1.5), RangeError);
    await assert.rejects(c.keepAlive(0), /leaseId must be an integer >= 1/);
    assert.throws(() => c.observe('jobs', { after: -1 }), /after must be an integer >= 0/);
  } finally {
    c.close();
  }
});

test('UNAVAILABLE moves any call on to the next endpoint', async () => {
  const b = await fake({ 'Lease.Grant': ok({ id: 42, ttl_ms: 3000 }), 'Cluster.Status': ok({ node: 'b' }) });
  const c = connect([await closedPort(), b.address]);
  try {
    assert.equal(await c.grant(3000), 42); // moved on from a refused endpoint
    assert.equal((await c.status()).node, 'b');
  } finally {
    c.close();
  }
});

test('a hung keepalive is hedged to the next endpoint; a grant that timed out is re-sent with its request id', async () => {
  const a = await fake({ 'Lease.KeepAlive': hang(), 'Lease.Grant': hang() });
  const b = await fake({ 'Lease.KeepAlive': ok({ id: 7, ttl_ms: 3000 }), 'Lease.Grant': ok({ id: 8, ttl_ms: 3000 }) });
  const c = connect([a.address, b.address], { preferLeader: false });
  try {
    const t = performance.now();
    assert.equal(await c.keepAlive(7, { timeoutMs: 2000 }), 3000);
    const took = performance.now() - t;
    assert.ok(took >= 450 && took < 1000, `hedged to the next endpoint after a quarter of the budget (${took} ms)`);
    assert.equal(a.count('Lease.KeepAlive'), 1);
    assert.equal(b.count('Lease.KeepAlive'), 1);
    const c2 = connect([a.address, b.address], { preferLeader: false, attemptTimeoutMs: 300 });
    try {
      assert.equal(await c2.grant(3000, { timeoutMs: 2000 }), 8, 'the hung grant re-sent to the next endpoint');
      assert.equal(a.count('Lease.Grant'), 1);
      assert.equal(b.count('Lease.Grant'), 1);
      assert.equal(b.calls.find((x) => x.method === 'Lease.Grant').request.request_id,
        a.calls.find((x) => x.method === 'Lease.Grant').request.request_id, 'the same request id');
      assert.equal(await c2.grant(3000), 8, 'the next call starts at the next endpoint');
      assert.equal(a.count('Lease.Grant'), 1);
    } finally {
      c2.close();
    }
  } finally {
    c.close();
  }
});

test('a write answered UNAVAILABLE after it applied is re-sent with the same request id; the next has its own',
  async () => {
    const unavailable = () => (call, cb) => cb({ code: status.UNAVAILABLE, details: 'reset after the apply' });
    const a = await fake({ 'Lease.Grant': unavailable(), 'Election.FreshToken': unavailable() });
    const key = { name: 'jobs', value: Buffer.from('v'), token: 9, lease: 8 };
    const b = await fake({ 'Lease.Grant': ok({ id: 8, ttl_ms: 3000 }), 'Election.FreshToken': ok({ leader: key }) });
    const c = connect([a.address, b.address], { preferLeader: false });
    try {
      assert.equal(await c.grant(3000), 8);
      await c.revoke(8).catch(() => undefined); // another mutating call between: an id of its own
      assert.equal(await c.grant(3000), 8);
      const c3 = connect([a.address, b.address], { preferLeader: false }); // starts at a again
      try {
        assert.equal((await c3.freshToken(key)).token, 9);
      } finally {
        c3.close();
      }
      const ids = (f, m) => f.calls.filter((x) => x.method === m).map((x) => x.request.request_id);
      const [first] = ids(a, 'Lease.Grant');
      assert.match(first, /^[A-Za-z0-9._:-]{1,64}$/);
      assert.deepEqual(ids(b, 'Lease.Grant'), [first, ids(b, 'Lease.Grant')[1]]);
      assert.notEqual(ids(b, 'Lease.Grant')[1], first, 'a new logical grant has a new id');
      assert.deepEqual(ids(b, 'Election.FreshToken'), ids(a, 'Election.FreshToken'));
      const all = b.calls.map((x) => x.request.request_id);
      assert.equal(new Set(all).size, all.length, 'every logical call its own id');
    } finally {
      c.close();
    }
  });

test('writes go to the leader that the replies name; the status call does not', async () => {
  const md = { 'regent-term': '3', 'regent-leader-id': 'n2' };
  const answer = { 'Lease.Grant': ok({ id: 1, ttl_ms: 3000 }), 'Cluster.Status': ok({ node: 'x' }) };
  const a = await fake(answer, { ...md, 'regent-node': 'n1' });
  const b = await fake(answer, { ...md, 'regent-node': 'n2' });
  const c = connect([a.address, b.address]);
  try {
    await c.status(); // answered by n1, which names n2 the leader; no endpoint is known to reach n2 yet
    assert.equal(c.leaderEndpoint(), undefined);
    await c.grant(3000);
    assert.equal(a.count('Lease.Grant'), 1);
    const d = connect([a.address, b.address]);
    try {
      // a hint naming the leader's published address routes by address too
      const a2 = await fake(answer, { ...md, 'regent-node': 'n1', 'regent-leader': b.address });
      const e = connect([a2.address, b.address]);
      try {
        await e.status();
        assert.equal(e.leaderEndpoint(), b.address);
        await e.grant(3000);
        await e.grant(3000);
        assert.equal(b.count('Lease.Grant'), 2);
        assert.equal(a2.count('Lease.Grant'), 0);
        await e.status(); // the answering node's own view: not routed
        assert.equal(a2.count('Cluster.Status'), 2);
      } finally {
        e.close();
      }
    } finally {
      d.close();
    }
  } finally {
    c.close();
  }
});

test('a grant names its tenant (its cell on a cluster of cells); elect and lock grant in their name\'s cell', async () => {
  const f = await leaderFake(ok({ ttl_ms: 600 }));
  const c = connect(f.address);
  try {
    await c.grant(3000);
    await c.grant(3000, { tenant: 'orders' });
    const h = await c.elect('{orders}/leader', { ttl: 3000 });
    await h.resign();
    const tenants = f.calls.filter((x) => x.method === 'Lease.Grant').map((x) => x.request.tenant);
    assert.deepEqual(tenants, ['', 'orders', '{orders}/leader']);
    await assert.rejects(c.grant(3000, { tenant: 5 }), /tenant must be a string/);
    assert.equal(f.count('Lease.Grant'), 3, 'a bad tenant sends nothing');
  } finally {
    c.close();
  }
});

test('a lease id past 2^53 (a cell above 31) is a RangeError, not a silently rounded id', async () => {
  const f = await fake({ 'Lease.Grant': ok({ id: 32 * 2 ** 48 + 1, ttl_ms: 3000 }) });
  const c = connect(f.address);
  try {
    await assert.rejects(c.grant(3000, { tenant: 'big' }), /the granted lease id must be an integer/);
  } finally {
    c.close();
  }
});

function leaderFake(keepAlive) {
  return fake({
    'Lease.Grant': ok({ id: 5, ttl_ms: 600 }),
    'Lease.KeepAlive': keepAlive,
    'Lease.Revoke': ok({ index: 9 }),
    'Election.Campaign': (call, cb) => cb(null, { elected: true,
      leader: { name: call.request.name, value: call.request.value, token: 6, lease: call.request.lease } }),
    'Election.Resign': ok({ index: 10 }),
  });
}

test('elect: renews every ttl/3; the signal fires at 2/3 ttl once keepalives stop being answered', async () => {
  let answering = true;
  const n = await leaderFake((call, cb) => (answering ? cb(null, { id: 5, ttl_ms: 600 }) : undefined));
  const c = connect(n.address);
  try {
    const h = await c.elect('jobs', { ttl: 600, value: 'me' });
    assert.equal(h.token, 6);
    assert.equal(h.lease, 5);
    assert.equal(h.key.value.toString(), 'me');
    const renewals = () => n.count('Lease.KeepAlive');
    const t = performance.now();
    await until(() => renewals() >= 3, 2000, 'three renewals');
    assert.ok(performance.now() - t >= 300, 'renewed every ttl/3 (200 ms), not faster');
    assert.ok(!h.signal.aborted && h.valid(), 'renewed, still valid');
    answering = false;
    const t0 = performance.now();
    const reason = await new Promise((r) => h.signal.addEventListener('abort', () => r(h.signal.reason)));
    const took = performance.now() - t0;
    assert.ok(reason instanceof LeadershipError && reason.lost, String(reason));
    assert.ok(took <= 450, `stepped down within 2/3 ttl of the last acknowledged send (${took} ms)`);
    assert.equal(h.valid(), false);
    assert.equal(await h.resign(), false);
  } finally {
    c.close();
  }
});

test('elect with suspend: in doubt at 2/3 ttl, resumed by a renewal in time, same token', async () => {
  let answering = true;
  const n = await leaderFake((call, cb) => (answering ? cb(null, { id: 5, ttl_ms: 600 }) : undefined));
  const c = connect(n.address);
  try {
    const h = await c.elect('jobs', { ttl: 600, suspend: true });
    answering = false;
    const first = h.signal;
    const reason = await new Promise((r) => first.addEventListener('abort', () => r(first.reason)));
    assert.equal(reason.lost, false, 'in doubt, not lost');
    answering = true;
    await new Promise((r) => h.once('resumed', r));
    assert.equal(h.valid(), true);
    assert.equal(h.signal.aborted, false, 'a fresh signal after the resume');
    assert.equal(first.aborted, true);
    assert.equal(await h.resign(), true);
    assert.equal(n.count('Election.Resign'), 1);
    assert.equal(n.calls.find((x) => x.method === 'Election.Resign').request.revoke_lease, true);
  } finally {
    c.close();
  }
});

test('observe delivers both events of one entry and resumes after (index, ordinal)', { timeout: 10000 }, async () => {
  const a = await fake({ 'Election.Observe': (call) => {
    call.write({ kind: 'CURRENT', name: 'jobs', index: 4 });
    call.write({ kind: 'RESIGNED', name: 'jobs', index: 5, ordinal: 1 });
    call.write({ kind: 'ELECTED', name: 'jobs', index: 5, ordinal: 2, leader: { name: 'jobs', token: 5, lease: 8 } });
    call.write({ kind: 'RESIGNED', name: 'jobs', index: 6, ordinal: 1 });
    setImmediate(() => call.emit('error', { code: status.UNAVAILABLE, details: 'node going away' }));
  } });
  const b = await fake({ 'Election.Observe': (call) => {
    call.write({ kind: 'RESIGNED', name: 'jobs', index: 6, ordinal: 1 }); // a repeat: dropped
    call.write({ kind: 'ELECTED', name: 'jobs', index: 6, ordinal: 2, leader: { name: 'jobs', token: 6, lease: 9 } });
  } });
  const c = connect([a.address, b.address]);
  try {
    const got = [];
    for await (const e of c.observe('jobs')) {
      got.push(e);
      if (got.length === 5) break;
    }
    assert.deepEqual(got.map((e) => [e.kind, e.index, e.ordinal]),
      [['CURRENT', 4, 0], ['RESIGNED', 5, 1], ['ELECTED', 5, 2], ['RESIGNED', 6, 1], ['ELECTED', 6, 2]]);
    assert.equal(b.calls[0].request.after_index, 6);
    assert.equal(b.calls[0].request.after_ordinal, 1, 'after the first event of entry 6');
  } finally {
    c.close();
  }
});

test('observe resumes at the next node after the last index, drops repeats, reports compacted', async () => {
  const a = await fake({ 'Election.Observe': (call) => {
    call.write({ kind: 'CURRENT', name: 'jobs', index: 5 });
    call.write({ kind: 'ELECTED', name: 'jobs', index: 7, leader: { name: 'jobs', token: 7, lease: 3 } });
    setImmediate(() => call.emit('error', { code: status.UNAVAILABLE, details: 'node going away' }));
  } });
  const b = await fake({ 'Election.Observe': (call) => {
    call.write({ kind: 'ELECTED', name: 'jobs', index: 7, leader: { name: 'jobs', token: 7, lease: 3 } });
    call.write({ kind: 'RESIGNED', name: 'jobs', index: 9 });
    call.write({ kind: 'CURRENT', name: 'jobs', index: 20, compacted: true });
  } });
  const c = connect([a.address, b.address]);
  try {
    const got = [];
    for await (const e of c.observe('jobs')) {
      got.push(e);
      if (got.length === 4) break;
    }
    assert.deepEqual(got.map((e) => [e.kind, e.index, e.compacted]),
      [['CURRENT', 5, false], ['ELECTED', 7, false], ['RESIGNED', 9, false], ['CURRENT', 20, true]]);
    assert.equal(got[1].leader.token, 7);
    assert.equal(got[2].leader, undefined);
    assert.equal(b.calls[0].request.after_index, 7, 'reopened after the last index delivered');
  } finally {
    c.close();
  }
});

test('elect: aborting the caller\'s signal withdraws the candidacy and revokes the lease', async () => {
  const n = await fake({
    'Lease.Grant': ok({ id: 5, ttl_ms: 3000 }),
    'Lease.KeepAlive': ok({ id: 5, ttl_ms: 3000 }),
    'Lease.Revoke': ok({ index: 9 }),
    'Election.Campaign': hang(), // the name is held by another
  });
  const c = connect(n.address);
  try {
    const stop = new AbortController();
    const waiting = c.elect('jobs', { ttl: 3000, signal: stop.signal });
    await until(() => n.count('Election.Campaign') === 1, 5000, 'the campaign');
    stop.abort(new Error('shutting down'));
    await assert.rejects(waiting, (e) => e.code === status.CANCELLED);
    await until(() => n.count('Lease.Revoke') === 1, 5000, 'the revoke');
    assert.equal(n.calls.find((x) => x.method === 'Lease.Revoke').request.id, 5);
  } finally {
    c.close();
  }
});

test('a client given one endpoint learns the others from MemberList and routes to the leader', async () => {
  const b = await fake({ 'Lease.Grant': ok({ id: 2, ttl_ms: 3000 }) },
    { 'regent-node': 'n2', 'regent-term': '1', 'regent-leader-id': 'n2' });
  const members = [];
  const a = await fake({ 'Cluster.Status': ok({ node: 'n1' }), 'Cluster.MemberList': ok({ members, leader: 'n2' }) },
    { 'regent-node': 'n1', 'regent-term': '1', 'regent-leader-id': 'n2', 'regent-leader': b.address });
  members.push({ id: 'n1', api_address: a.address }, { id: 'n2', api_address: b.address });
  const c = connect(a.address);
  try {
    await c.status();
    await until(() => c.endpoints.length === 2, 5000, 'the learnt endpoint');
    assert.deepEqual(c.endpoints, [a.address, b.address]);
    assert.equal(c.leaderEndpoint(), b.address);
    assert.equal(await c.grant(3000), 2);
    assert.equal(b.count('Lease.Grant'), 1);
    const fixed = connect([a.address], { discoverEndpoints: false });
    try {
      await fixed.status();
      assert.deepEqual(fixed.endpoints, [a.address]);
    } finally {
      fixed.close();
    }
  } finally {
    c.close();
  }
});

test('keepalives go on one KeepAliveStream per endpoint with the unary verdicts; unary without it', async () => {
  const n = await fake({
    'Lease.KeepAliveStream': (call) => call.on('data', (r) => call.write(r.id === 99
      ? { id: r.id, ttl_ms: 0, code: status.NOT_FOUND, message: 'lease 99 not found', tag: r.tag }
      : { id: r.id, ttl_ms: 3000, tag: r.tag })),
  });
  const old = await fake({ 'Lease.KeepAlive': ok({ id: 7, ttl_ms: 2000 }) }); // no stream: UNIMPLEMENTED
  const c = connect(n.address);
  const d = connect(old.address);
  try {
    assert.deepEqual(await Promise.all([c.keepAlive(7), c.keepAlive(8), c.keepAlive(9)]), [3000, 3000, 3000]);
    await assert.rejects(c.keepAlive(99), (e) => e.code === status.NOT_FOUND && /lease 99 not found/.test(e.details));
    assert.equal(n.count('Lease.KeepAliveStream'), 1, 'one stream for every keepalive');
    assert.equal(n.count('Lease.KeepAlive'), 0);
    assert.equal(await d.keepAlive(7), 2000);
    assert.equal(await d.keepAlive(7), 2000);
    assert.equal(old.count('Lease.KeepAliveStream'), 1, 'tried once');
    assert.equal(old.count('Lease.KeepAlive'), 2);
  } finally {
    c.close();
    d.close();
  }
});

test('a leader that refuses a keepalive on its stream (not ready yet) stays the leader', async () => {
  let refusals = 1;
  let atLeader = 0;
  const b = await fake({
    'Lease.KeepAliveStream': (call) => call.on('data', (r) => {
      atLeader++;
      call.write(refusals-- > 0
        ? { id: r.id, ttl_ms: 0, code: status.UNAVAILABLE, message: 'not confirmed by a ready leader', tag: r.tag }
        : { id: r.id, ttl_ms: 3000, tag: r.tag });
    }),
  }, { 'regent-term': '3', 'regent-leader-id': 'n2', 'regent-node': 'n2' });
  const a = await fake({
    'Cluster.Status': ok({ node: 'n1' }),
    'Lease.KeepAliveStream': (call) => call.on('data', (r) => call.write({ id: r.id, ttl_ms: 2000, tag: r.tag })),
  }, { 'regent-term': '3', 'regent-leader-id': 'n2', 'regent-node': 'n1', 'regent-leader': b.address });
  const c = connect([a.address, b.address]);
  try {
    await c.status(); // n1 names n2, at b's address
    assert.equal(c.leaderEndpoint(), b.address);
    assert.equal(await c.keepAlive(7), 2000, 'refused by n2 in the stream, answered by n1');
    assert.equal(c.leaderEndpoint(), b.address, 'a refusal from a live leader does not make it suspect');
    for (let i = 0; i < 3; i++) assert.equal(await c.keepAlive(7), 3000);
    assert.equal(atLeader, 4);
  } finally {
    c.close();
  }
});

test('a namespace prefixes every name sent and is removed from every name returned', async () => {
  const n = await fake({
    'Lease.Grant': ok({ id: 5, ttl_ms: 3000 }),
    'Lease.Revoke': ok({ index: 9 }),
    'Election.Campaign': (call, cb) => cb(null, { elected: true,
      leader: { name: call.request.name, value: call.request.value, token: 6, lease: call.request.lease } }),
    'Election.Leader': (call, cb) => cb(null, { leader: { name: call.request.name, token: 6, lease: 5 } }),
    'Election.Resign': ok({ index: 10 }),
    'Lease.TimeToLive': ok({ id: 5, ttl_ms: 3000, remaining_ms: 2000, names: ['team-a/jobs', 'team-b/jobs'] }),
  });
  const c = connect(n.address, { namespace: 'team-a/' });
  try {
    const k = await c.campaign('jobs', 5);
    assert.equal(k.name, 'jobs');
    assert.equal((await c.leader('jobs')).name, 'jobs');
    assert.deepEqual((await c.timeToLive(5)).names, ['jobs', 'team-b/jobs'], 'another namespace\'s name as it is');
    await c.resign(k);
    const sent = (method) => n.calls.filter((x) => x.method === method).map((x) => x.request);
    assert.equal(sent('Election.Campaign')[0].name, 'team-a/jobs');
    assert.equal(sent('Election.Leader')[0].name, 'team-a/jobs');
    assert.equal(sent('Election.Resign')[0].leader.name, 'team-a/jobs');
    assert.throws(() => connect(n.address, { namespace: 7 }), TypeError);
  } finally {
    c.close();
  }
});

test('groups: a join re-sent after a dead node carries its first send\'s request id; bad input sends nothing',
  async () => {
    const unavailable = (call, cb) => cb({ code: status.UNAVAILABLE, details: 'stopping' });
    const dead = await fake({ 'Group.Join': unavailable });
    const alive = await fake({ 'Group.Join': ok({ lease: 7, index: 8 }), 'Group.Leave': ok({ index: 9 }),
      'Group.Watch': () => {} }); // the stream stays open: nothing changes
    const c = connect([dead.address, alive.address], { preferLeader: false });
    try {
      for (const [member, opts, re] of [['m', { partitions: 65_537 }, /partitions must be an integer within 0..65536/],
        ['m', { partitions: -1 }, /partitions/], ['', {}, /member must be 1..128 bytes/],
        ['m'.repeat(129), {}, /member must be 1..128 bytes/], ['m', { ttl: 0 }, /ttl must be/]]) {
        await assert.rejects(c.joinGroup('g', member, opts), re);
      }
      assert.equal(dead.count('Group.Join') + alive.count('Group.Join'), 0, 'bad input sent nothing');
      const m = await c.joinGroup('g', 'm', { partitions: 4, ttl: 3000 });
      assert.equal(m.lease, 7);
      const [first, resent] = [...dead.calls, ...alive.calls].filter((x) => x.method === 'Group.Join');
      assert.match(first.request.request_id, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(resent.request.request_id, first.request.request_id, 'the re-send carries the first send\'s id');
      assert.equal(await m.leave(), true);
      const leave = alive.calls.find((x) => x.method === 'Group.Leave').request;
      assert.deepEqual([leave.group, leave.member, leave.lease], ['g', 'm', 7]);
      assert.ok(leave.request_id && leave.request_id !== first.request.request_id, 'the leave has an id of its own');
      assert.equal(await m.leave(), false);
    } finally {
      c.close();
    }
  });

test('full jitter: uniform up to a cap that doubles with each failure, up to the maximum', () => {
  const { fullJitter } = require('../dist/src/backoff');
  assert.deepEqual([0, 1, 2, 3].map((f) => fullJitter(f, 100, 500, () => 1)), [100, 200, 400, 500]);
  assert.equal(fullJitter(3, 100, 500, () => 0), 0);
  const pauses = Array.from({ length: 200 }, () => fullJitter(2, 100, 500));
  assert.ok(pauses.every((p) => p >= 0 && p <= 400));
  assert.ok(new Set(pauses).size > 100, 'jittered, not one pause for every client');
  assert.throws(() => fullJitter(-1, 100, 500), RangeError);
});

/** Runs `body` with the environment variables of `vars` set (undefined: unset), then puts them back. */
async function withEnv(vars, body) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const put = (vs) => Object.entries(vs).forEach(([k, v]) => (v === undefined ? delete process.env[k] : (process.env[k] = v)));
  put(vars);
  try {
    return await body();
  } finally {
    put(saved);
  }
}

test('TLS from $REGENT_CACERT/$REGENT_CERT/$REGENT_KEY as the CLI reads them; the CLI\'s usage errors', async () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const { execFileSync } = require('node:child_process');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regent-tls-'));
  const [cert, key] = [path.join(dir, 'node.pem'), path.join(dir, 'node.key')];
  // a self-signed node certificate for 127.0.0.1, its own CA
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-subj', '/CN=n1', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', key, '-out', cert],
  { stdio: 'ignore' });
  const node = await fake({ 'Lease.Grant': ok({ id: 42, ttl_ms: 3000 }) }, {}, grpc.ServerCredentials.createSsl(null,
    [{ private_key: fs.readFileSync(key), cert_chain: fs.readFileSync(cert) }]));
  const none = { REGENT_CACERT: undefined, REGENT_CERT: undefined, REGENT_KEY: undefined };
  try {
    await withEnv({ ...none, REGENT_CACERT: cert }, async () => {
      const c = connect(node.address);
      try {
        assert.equal(await c.grant(3000), 42, 'TLS, verified against $REGENT_CACERT');
      } finally {
        c.close();
      }
      assert.throws(() => tlsCredentials({ cert }), /cert and key go together/);
      assert.throws(() => connect(node.address, { key }), /cert and key go together/);
    });
    await withEnv(none, async () => {
      assert.equal(tlsCredentials()._isSecure(), false, 'plaintext without a CA certificate');
      const c = connect(node.address, { callTimeoutMs: 1_000 });
      try {
        await assert.rejects(c.grant(3000), (e) => e.code === status.UNAVAILABLE || e.code === status.DEADLINE_EXCEEDED,
          'a plaintext client does not reach a TLS node');
      } finally {
        c.close();
      }
      assert.throws(() => tlsCredentials({ cert, key }), /cert needs cacert/);
      assert.throws(() => tlsCredentials({ cacert: path.join(dir, 'missing.pem') }), /cannot read .*missing\.pem/);
      assert.equal(tlsCredentials({ cacert: cert, cert, key })._isSecure(), true, 'mutual TLS from the arguments');
    });
    await withEnv({ ...none, REGENT_CACERT: '', REGENT_CERT: cert }, async () => {
      assert.throws(() => tlsCredentials(), /cert and key go together/, 'an empty variable counts as unset');
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a call the leader leaves unanswered for a second sends the next calls elsewhere, even from its own endpoint',
  async () => {
    for (const leaderFirst of [false, true]) {
      const md = { 'regent-term': '3', 'regent-leader-id': 'n2' };
      const leader = await fake({ 'Lease.Grant': hang(), 'Cluster.Status': ok({ node: 'n2' }) },
        { ...md, 'regent-node': 'n2' });
      const follower = await fake({ 'Lease.Grant': ok({ id: 7, ttl_ms: 3000 }), 'Cluster.Status': ok({ node: 'n1' }) },
        { ...md, 'regent-node': 'n1', 'regent-leader': leader.address });
      // the leader's endpoint first: then it is the current endpoint as well, which must not take the next calls
      const c = connect(leaderFirst ? [leader.address, follower.address] : [follower.address, leader.address],
        { attemptTimeoutMs: 30_000 });
      try {
        await c.status(); // names n2, by its own reply or by its published address
        assert.equal(c.leaderEndpoint(), leader.address);
        const stuck = c.grant(3000).catch(() => undefined); // the frozen leader never answers
        await until(() => leader.count('Lease.Grant') === 1);
        await new Promise((r) => setTimeout(r, 1_100)); // the rule's subject: a second without an answer
        assert.equal(await c.grant(3000), 7, `answered by the follower (leader first: ${leaderFirst})`);
        assert.equal(leader.count('Lease.Grant'), 1, 'the frozen leader got the first grant only');
        assert.equal(follower.count('Lease.Grant'), 1);
        void stuck;
      } finally {
        c.close();
      }
    }
  });
