// The npm etcd3 package against one etcd endpoint: election().campaign() by two candidates, observe(), lock().
// Usage: node recipes.js HOST:PORT PREFIX. Prints one line per check passed and "ok"; a failed check throws, so the
// process ends non-zero with the stack. Run by NpmEtcd3Test (etcd-compat module) after `npm ci`.
'use strict';
const assert = require('node:assert/strict');
const { Etcd3, EtcdLockFailedError } = require('etcd3');

const [endpoint, prefix] = process.argv.slice(2);
const WAIT_MS = 20000;

/** Resolves once check() is true, checking every 50 ms; rejects after WAIT_MS (an await with a bound, no pause). */
async function until(what, check) {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${WAIT_MS} ms: ${what}`);
    await new Promise(r => setTimeout(r, 50));
  }
}

async function election(a, b) {
  const name = prefix + 'election';
  const observer = await b.election(name, 10).observe();
  const seen = [];
  observer.on('change', v => { if (v !== undefined) seen.push(v); });
  const first = a.election(name, 10).campaign('a');
  await first.wait();
  console.log('a elected');
  await until("the observer sees 'a'", () => observer.leader() === 'a');
  const second = b.election(name, 10).campaign('b');
  let secondElected = false;
  second.on('elected', () => { secondElected = true; });
  // both candidates' keys are in: from here the second can only wait for the first's to go
  await until('two candidates', async () => (await a.getAll().prefix(`election/${name}/`).count()) === 2);
  assert.equal(secondElected, false, 'b elected while a leads');
  assert.equal(await b.election(name).leader(), 'a');
  console.log('b waits while a leads');
  await first.resign();
  await second.wait();
  console.log('b elected after a resigned');
  await until("the observer sees 'b'", () => observer.leader() === 'b');
  assert.deepEqual(seen, ['a', 'b']);
  console.log('observer saw a then b');
  await second.resign();
  await observer.cancel();
}

async function lock(a, b) {
  const name = prefix + 'lock';
  const held = await a.lock(name).ttl(10).acquire();
  console.log('first locked');
  await assert.rejects(b.lock(name).ttl(10).acquire(), EtcdLockFailedError);
  console.log('second refused while held');
  await held.release();
  const second = await b.lock(name).ttl(10).acquire();
  console.log('second locked after release');
  await second.release();
}

async function main() {
  const a = new Etcd3({ hosts: `http://${endpoint}` });
  const b = new Etcd3({ hosts: `http://${endpoint}` });
  try {
    await election(a, b);
    await lock(a, b);
  } finally {
    a.close();
    b.close();
  }
  console.log('ok');
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
