// The cluster and ledger a test runs against: the package's test fixture's (startCluster, dist/src/testing.js:
// REGENT_ENDPOINTS's cluster, else a 3-node one it starts from cli/target/regent.jar or $REGENT_JAR, or the
// `regent` on the PATH), and REGENT_LEDGER (else a `regent ledger serve` started here), stopped in stop().
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { startCluster, regentCommand } = require('../dist/src/testing');

const ROOT = path.resolve(__dirname, '..', '..', '..');
// The jar that bin/regent runs, when it is built (bin/regent itself would rebuild, mvn install, whenever a
// source is newer than it, which a test run must not start on its own).
const JAR = path.join(ROOT, 'cli', 'target', 'regent.jar');
const [REGENT, ...PREFIX] = regentCommand(process.env.REGENT_JAR ?? (fs.existsSync(JAR) ? JAR : undefined));

/** Polls `fn` until it returns a truthy value (returned), at most `ms`; `what` names it in the error. */
async function until(fn, ms, what) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50)); // poll interval of a deadline-bounded wait
  }
}

/** Starts `regent ledger serve --port 0` and resolves to { address, child } once it serves. */
function startLedger(dir) {
  const child = spawn(REGENT, [...PREFIX, 'ledger', 'serve', '--port', '0', '--data-dir', path.join(dir, 'ledger')],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /ledger serving on (\S+:\d+)/.exec(out);
      if (m) resolve({ address: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`regent ledger serve exited ${code}: ${out}`)));
  });
}

/** Child processes of the tests, killed on a signal too. */
const tracked = new Set();

/** Has `child` killed (after a SIGCONT: it may be stopped) should this process be interrupted. */
function track(child) {
  tracked.add(child);
  child.once('exit', () => tracked.delete(child));
}

/** On SIGINT/SIGTERM (Ctrl-C, a runner's timeout), stops what this process started, then exits. */
function stopOnSignal(state) {
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      for (const c of tracked) {
        c.kill('SIGCONT');
        c.kill('SIGKILL');
      }
      if (state.ledgerChild && state.ledgerChild.exitCode === null) state.ledgerChild.kill('SIGTERM');
      if (state.clusterDir) {
        try {
          execFileSync(REGENT, [...PREFIX, 'cluster', 'down', '--dir', state.clusterDir], { stdio: 'inherit' });
        } catch {
          killPids(state.clusterDir);
        }
      }
      if (state.tmp) fs.rmSync(state.tmp, { recursive: true, force: true });
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
}

/**
 * { endpoints: string[], ledger: 'host:port', clusterDir: string|undefined, stop() }: the cluster of the
 * package's own test fixture (startCluster: REGENT_ENDPOINTS's, else one it starts) and a ledger (REGENT_LEDGER's,
 * else one started here; `ledger: false`, none). clusterDir, when known, has the nodes' pid files
 * (DIR/<id>.pid), for tests that kill a node.
 */
async function setUp({ ledger: wantLedger = true } = {}) {
  const own = [];
  const owned = {}; // what a signal must stop: { clusterDir, ledgerChild, tmp }
  stopOnSignal(owned);
  let tmp;
  const stop = async () => {
    for (const c of own.reverse()) await c();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    const cluster = await startCluster({ jar: process.env.REGENT_JAR ?? (fs.existsSync(JAR) ? JAR : undefined) });
    own.push(() => cluster.stop());
    owned.clusterDir = cluster.dir;
    const clusterDir = process.env.REGENT_CLUSTER_DIR || cluster.dir;
    let ledger = process.env.REGENT_LEDGER;
    if (!ledger && wantLedger) {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regent-ts-'));
      owned.tmp = tmp;
      const l = await startLedger(tmp);
      owned.ledgerChild = l.child;
      own.push(async () => {
        if (l.child.exitCode === null) {
          const exited = new Promise((r) => l.child.once('exit', r));
          l.child.kill('SIGTERM');
          await exited;
        }
      });
      ledger = l.address;
    }
    return { endpoints: cluster.endpoints, ledger, clusterDir, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

function killPids(dir) {
  if (!fs.existsSync(dir)) return;
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.pid'))) {
    const pid = Number(fs.readFileSync(path.join(dir, f), 'utf8').trim());
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

module.exports = { setUp, until, track, ROOT };
