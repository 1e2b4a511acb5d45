// A local Regent cluster for a user's own tests (the package's 'regent-client/testing' entry).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { connect } from './client';

const run = promisify(execFile);

/** An existing cluster's endpoints ("h1:p1,h2:p2"): used instead of starting one. */
export const ENDPOINTS_ENV = 'REGENT_ENDPOINTS';
/** The Regent jar (cli/target/regent.jar of a build, or a release's), run with `java -jar`. */
export const JAR_ENV = 'REGENT_JAR';
/** How long after `cluster up` every node may take to publish its API address, ms. */
const READY_TIMEOUT_MS = 60_000;

/** A cluster for tests. */
export interface LocalCluster {
  /** Its API endpoints, host:port. */
  readonly endpoints: string[];
  /**
   * The cluster's directory (`regent cluster up --dir`: the nodes' data, logs n<i>.log and pid files n<i>.pid;
   * read them after a failure, before stop()) when this process started it; undefined for an existing cluster.
   */
  readonly dir: string | undefined;
  /** Whether this process started it (and stop() stops it). */
  readonly started: boolean;
  /**
   * Stops the nodes this process started (`regent cluster down`: SIGTERM, then SIGKILL; by their pid files when
   * that fails) and removes their directory; nothing for an existing cluster. Idempotent.
   */
  stop(): Promise<void>;
}

/** Options of startCluster(). */
export interface StartOptions {
  /** 3 (default) or 5 nodes. */
  nodes?: 3 | 5;
  /** The Regent jar; default $REGENT_JAR, else the `regent` command on the PATH. */
  jar?: string;
  /** How long `cluster up` may take, ms; default 180 000. */
  timeoutMs?: number;
}

/**
 * The cluster $REGENT_ENDPOINTS names, or a new local one: `regent cluster up --nodes N --dir DIR --base-port P`
 * (docs/cli.md) in a new temporary directory, on free ports, with the Regent jar (`java -jar`: java from
 * $JAVA_HOME, else the PATH) or the `regent` on the PATH; resolves once every node has published its API
 * address (clients route by it). Call stop() after the tests (node:test's `after`, mocha's or jest's `afterAll`).
 * Rejects, with `cluster up`'s output, when the cluster does not start (whatever started is stopped), and with a
 * RangeError for another node count.
 */
export async function startCluster(opts: StartOptions = {}): Promise<LocalCluster> {
  const existing = (process.env[ENDPOINTS_ENV] ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  if (existing.length > 0) {
    return { endpoints: existing, dir: undefined, started: false, stop: async () => undefined };
  }
  const nodes = opts.nodes ?? 3;
  if (nodes !== 3 && nodes !== 5) throw new RangeError(`nodes must be 3 or 5, not ${String(nodes)}`);
  const command = regentCommand(opts.jar);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'regent-cluster-'));
  const dir = path.join(root, 'cluster');
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      try {
        await run(command[0], [...command.slice(1), 'cluster', 'down', '--dir', dir], { timeout: 120_000 });
      } catch {
        killNodes(dir); // `cluster down` failed: stop the nodes by their recorded pids
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    })();
    return stopped;
  };
  try {
    const base = await freeBasePort(nodes);
    const up = await run(command[0], [...command.slice(1), 'cluster', 'up', '--nodes', String(nodes), '--dir', dir,
      '--base-port', String(base)], { timeout: opts.timeoutMs ?? 180_000 })
      .catch((e: { code?: unknown; stderr?: string; message: string }) => {
        throw new Error(e.code === 'ENOENT' ? `no Regent to start a cluster with (${command[0]} not found): set `
          + `${JAR_ENV} to the Regent jar, put regent on the PATH, or set ${ENDPOINTS_ENV} to an existing cluster's `
          + 'endpoints' : `regent cluster up failed: ${e.stderr?.trim() || e.message}`);
      });
    const endpoints = up.stdout.trim().split('\n').at(-1)?.split(',') ?? []; // its one line on standard output
    await published(endpoints, nodes);
    return { endpoints, dir, started: true, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * How to run `regent`: `java -jar JAR` for `jar` or $REGENT_JAR, else `regent` (from the PATH).
 * @throws Error when the jar named is not a file
 */
export function regentCommand(jar?: string): string[] {
  const j = jar ?? process.env[JAR_ENV];
  if (!j) return ['regent'];
  if (!fs.existsSync(j)) throw new Error(`${JAR_ENV}=${j}: no such file (the Regent jar, e.g. cli/target/regent.jar)`);
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  return [java, '-jar', j];
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer().once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A base port P whose node ports (P+i, P+100+i, P+200+i, P+300+i for i in 1..nodes: Raft, API, metrics,
 * etcd-compatible) are all free now, within 12000..26800: below Linux's ephemeral ports (32768..60999 by default),
 * which any outgoing connection may take between this check and the nodes' binding, and below the cli module's
 * tests' blocks (27000 on).
 */
async function freeBasePort(nodes: number): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const base = 12_000 + 400 * Math.floor(Math.random() * 37);
    const ports = [0, 100, 200, 300].flatMap((o) => Array.from({ length: nodes }, (_, i) => base + o + i + 1));
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return base;
  }
  throw new Error('no free base port between 12000 and 26800');
}

/**
 * Polls Cluster.Status (a deadline-bounded wait) until a leader is known and all `nodes` members have published
 * their API addresses: `cluster up` returns at the first leader, before every node may have.
 */
async function published(endpoints: string[], nodes: number): Promise<void> {
  const client = connect(endpoints, { callTimeoutMs: 5_000 });
  const end = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      const s = await client.status().catch(() => undefined); // no leader yet: ask again
      if (s?.leader && s.members.length === nodes && s.members.every((m) => m.apiAddress)) return;
      if (Date.now() > end) {
        throw new Error(`the cluster at ${endpoints.join(',')} did not publish ${nodes} API addresses within `
          + `${READY_TIMEOUT_MS} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50)); // the poll interval of a deadline-bounded wait
    }
  } finally {
    client.close();
  }
}

/** SIGKILLs the nodes by their pid files (DIR/n<i>.pid). */
function killNodes(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.pid'))) {
    try {
      process.kill(Number(fs.readFileSync(path.join(dir, f), 'utf8').trim()), 'SIGKILL');
    } catch {
      // gone already
    }
  }
}
