// The cluster and ledger a test runs against: REGENT_ENDPOINTS (and REGENT_LEDGER, REGENT_CLUSTER_DIR) when
// set, else a 3-node cluster this process starts with `bin/regent cluster up` (and a `regent ledger serve`),
// stopped again by `cluster down` and by PID in stop().
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const JAR = path.join(ROOT, 'cli', 'target', 'regent.jar');
// The jar that bin/regent runs, when it is built: bin/regent itself would rebuild (mvn install) whenever a
// source is newer than it, which a test run must not start on its own.
const JAVA = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
const REGENT = fs.existsSync(JAR) ? JAVA : path.join(ROOT, 'bin', 'regent');
const PREFIX = fs.existsSync(JAR) ? ['-jar', JAR] : [];

function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer().once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function freeBasePort() {
  for (let tries = 0; tries < 50; tries++) {
    // a node uses base + i, + 100 + i, + 200 + i and + 300 + i (Raft, API, metrics, etcd-compatible)
    const base = 41000 + 400 * Math.floor(Math.random() * 50);
    const ports = [0, 100, 200, 300].flatMap((o) => [1, 2, 3].map((i) => base + o + i));
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return base;
  }
  throw new Error('no free base port between 41000 and 61000');
}

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
 * { endpoints: string[], ledger: 'host:port', clusterDir: string|undefined, stop() }. clusterDir, when known,
 * has the nodes' pid files (DIR/<id>.pid), for tests that kill a node.
 */
async function setUp() {
  const own = [];
  let endpoints;
  let clusterDir = process.env.REGENT_CLUSTER_DIR || undefined;
  const owned = {}; // what a signal must stop: { clusterDir, ledgerChild, tmp }
  stopOnSignal(owned);
  let tmp;
  const stop = async () => {
    for (const c of own.reverse()) await c();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    if (process.env.REGENT_ENDPOINTS) {
      endpoints = process.env.REGENT_ENDPOINTS.split(',').map((s) => s.trim()).filter(Boolean);
    } else {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regent-ts-'));
      owned.tmp = tmp;
      clusterDir = path.join(tmp, 'cluster');
      owned.clusterDir = clusterDir; // before `cluster up`: a signal during it is handled once it returns
      const base = await freeBasePort();
      own.push(async () => {
        try {
          execFileSync(REGENT, [...PREFIX, 'cluster', 'down', '--dir', clusterDir], { stdio: 'inherit' });
        } catch (e) {
          killPids(clusterDir); // `cluster down` failed: stop the nodes by their recorded PIDs
          throw e;
        }
      });
      const up = ['cluster', 'up', '--nodes', '3', '--dir', clusterDir, '--base-port', String(base)];
      execFileSync(REGENT, [...PREFIX, ...up], { stdio: ['ignore', 'inherit', 'inherit'] });
      endpoints = fs.readFileSync(path.join(clusterDir, 'endpoints'), 'utf8').trim().split(',');
    }
    let ledger = process.env.REGENT_LEDGER;
    if (!ledger) {
      tmp = tmp || fs.mkdtempSync(path.join(os.tmpdir(), 'regent-ts-'));
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
    return { endpoints, ledger, clusterDir, stop };
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
