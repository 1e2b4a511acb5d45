// examples/group-worker.ts run twice at once against a real cluster (REGENT_ENDPOINTS, else one started here:
// see env.js): the two split the partitions; once one leaves, the other owns all of them.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { setUp, until, track } = require('./env');

const WAIT = 30_000;
const EXAMPLE = path.join(__dirname, '..', 'dist', 'examples', 'group-worker.js');
const run = `${process.pid}-${Date.now()}`; // names of this run, unique on a shared cluster

let env;
const workers = [];

before(async () => {
  env = await setUp({ ledger: false });
});

after(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  if (env) await env.stop();
});

/** Starts the example; its output lines in `lines` as they come, `exited` resolves to its exit code. */
function worker(...args) {
  const child = spawn(process.execPath, [EXAMPLE, env.endpoints.join(','), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  const w = { child, lines: [], stderr: '' };
  let ended;
  const read = new Promise((resolve) => { ended = resolve; });
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    const parts = buf.split('\n');
    buf = parts.pop();
    w.lines.push(...parts);
  });
  child.stdout.on('end', ended);
  child.stderr.on('data', (d) => { w.stderr += d; });
  // its exit code once its output is read to the end
  w.exited = Promise.all([new Promise((resolve) => child.once('exit', (code, sig) => resolve(code ?? sig))), read])
    .then(([code]) => code);
  workers.push(w);
  return w;
}

/** Waits (at most WAIT) for the worker's end, its output read; its exit code. */
async function end(w) {
  let code;
  w.exited.then((c) => { code = c; });
  await until(() => code !== undefined, WAIT, `its end (lines: ${w.lines.join(' | ')}${w.stderr})`);
  return code;
}

/** The partition-to-token maps of a worker's step lines, in order. */
function steps(w) {
  return w.lines.map((l) => /^step \d+ owns (.*)$/.exec(l)).filter(Boolean)
    .map((m) => new Map(m[1].split(',').filter(Boolean).map((pt) => pt.split('=').map(Number))));
}

/** Waits for a step owning `owning` partitions from step after + 1 on; [its number, its map]. */
function stepOwning(w, owning, after = 0) {
  return until(() => {
    const i = steps(w).findIndex((s, j) => j >= after && s.size === owning);
    return i >= 0 && [i + 1, steps(w)[i]];
  }, WAIT, `a step owning ${owning} partitions (lines: ${w.lines.join(' | ')}${w.stderr})`);
}

test('two group workers split the partitions; the one left takes all four, the moved ones with larger tokens',
  async () => {
    const group = `ts-worker-signal-${run}`;
    const a = worker(group, 'a');
    const b = worker(group, 'b');
    const [, ownedA] = await stepOwning(a, 2);
    const [bSplit, ownedB] = await stepOwning(b, 2);
    assert.deepEqual([...ownedA.keys(), ...ownedB.keys()].sort(), [0, 1, 2, 3]);
    a.child.kill('SIGTERM');
    assert.equal(await end(a), 0, a.lines.join('\n') + a.stderr);
    assert.match(a.lines.at(-1), new RegExp(`^left ${group} at=\\d+$`));
    const [, all] = await stepOwning(b, 4, bSplit); // b's steps up to its split came before a left
    for (const [p, t] of ownedA) assert.ok(all.get(p) > t, `partition ${p} moved from a to b: ${t} -> ${all.get(p)}`);
    for (const [p, t] of ownedB) assert.equal(all.get(p), t, `partition ${p} stayed with b`);
    b.child.kill('SIGINT');
    assert.equal(await end(b), 0, b.lines.join('\n') + b.stderr);
    assert.match(b.lines.at(-1), new RegExp(`^left ${group} at=\\d+$`));
  });

test('two group workers given steps and --members 2 split the partitions before their first step', async () => {
  // as the install test runs them: both to their end, output read after
  const group = `ts-worker-steps-${run}`;
  const ws = ['a', 'b'].map((m) => worker(group, m, '5', '--members', '2'));
  const firsts = [];
  for (const w of ws) {
    assert.equal(await end(w), 0, w.lines.join('\n') + w.stderr);
    const out = w.lines.join('\n');
    assert.match(out, new RegExp(`^joined ${group} as [ab] lease=\\d+$`, 'm'));
    assert.match(out, /^step 5 owns /m);
    assert.match(out, new RegExp(`^left ${group} at=\\d+$`, 'm'));
    firsts.push(steps(w)[0]);
  }
  assert.deepEqual(firsts.map((f) => f.size), [2, 2]);
  assert.deepEqual(firsts.flatMap((f) => [...f.keys()]).sort(), [0, 1, 2, 3]);
  assert.ok(firsts.every((f) => [...f.values()].every((t) => t > 0)));
});
