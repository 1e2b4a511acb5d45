// Leader-aware routing by the leader metadata every reply carries (docs/api.md, "Leader metadata"), as the
// Java client's LeaderRouting: keep the leader of the highest term; calls for the leader start at the
// endpoint that reaches it unless that endpoint has just failed (suspect).
import type { Metadata } from '@grpc/grpc-js';
import { performance } from 'node:perf_hooks';

/**
 * How long a call sent to the leader's endpoint may go unanswered before the leader is suspect and the calls that
 * follow start elsewhere, ms (docs/api.md, "Leader-aware routing"; the Java client's LEADER_QUIET_MS).
 */
export const LEADER_QUIET_MS = 1_000;

/** What one reply said about the Raft leader. */
export interface Hint {
  /** Member id of the answering node (regent-node). */
  node?: string;
  /** Its Raft term (regent-term). */
  term: number;
  /** Member id of the leader it knows in that term (regent-leader-id); absent during an election. */
  leaderId?: string;
  /** The leader's published API address, host:port (regent-leader). */
  leaderApi?: string;
}

function one(md: Metadata, key: string): string | undefined {
  const v = md.get(key);
  return v.length > 0 ? String(v[0]) : undefined;
}

/** The hint in a reply's metadata, or undefined when it has none or a malformed term. */
export function hintOf(md: Metadata | undefined): Hint | undefined {
  if (!md) return undefined;
  const t = one(md, 'regent-term');
  if (t === undefined || !/^\d+$/.test(t)) return undefined;
  return { node: one(md, 'regent-node'), term: Number(t), leaderId: one(md, 'regent-leader-id'),
    leaderApi: one(md, 'regent-leader') };
}

/**
 * Where calls for the leader start. Not exported from the package. A leader with a call unanswered for
 * LEADER_QUIET_MS (sent() without done()) is suspect: quiet() checks it when the next call starts, so no timer runs.
 */
export class LeaderRouting {
  private term = -1;
  private leaderId?: string;
  private leaderApi?: string;
  private index = -1;
  private suspect = false;
  /** Member id the last reply through endpoint i came from. */
  private readonly nodes: (string | undefined)[];

  private addresses: readonly string[];
  /** Calls sent to the leader's endpoint and not yet ended: ticket -> [endpoint, sent at (ms)]. */
  private readonly waiting = new Map<number, [number, number]>();
  private tickets = 0;

  /** @param clock ms, monotonic (a test's own, or performance.now) */
  constructor(addresses: readonly string[], private readonly clock: () => number = () => performance.now()) {
    this.addresses = [...addresses];
    this.nodes = addresses.map(() => undefined);
  }

  /**
   * A call that answers promptly went to the leader's endpoint `endpoint`; its ticket for done(). Not for calls that
   * may wait long by design (a blocking campaign).
   */
  sent(endpoint: number): number {
    this.waiting.set(++this.tickets, [endpoint, this.clock()]);
    return this.tickets;
  }

  /** The call of `ticket` ended, answered or failed. */
  done(ticket: number): void {
    this.waiting.delete(ticket);
  }

  /**
   * The leader's endpoint when a call to it has gone LEADER_QUIET_MS unanswered, now suspect; else -1. Each such call
   * counts once: a later answer from the leader ends the suspicion, and the call, still waiting, does not raise it
   * again.
   */
  quiet(): number {
    const idx = this.leader();
    if (idx < 0) return -1;
    const now = this.clock();
    let late = false;
    for (const [t, [endpoint, at]] of this.waiting) {
      if (endpoint === idx && now - at >= LEADER_QUIET_MS) {
        this.waiting.delete(t);
        late = true;
      }
    }
    if (!late) return -1;
    this.suspect = true;
    return idx;
  }

  /** The client's endpoints after it learnt more (the list only grows: indexes stay valid). */
  endpointsChanged(now: readonly string[]): void {
    this.addresses = [...now];
    while (this.nodes.length < now.length) this.nodes.push(undefined);
    this.resolve();
  }

  /** Index of an endpoint whose last reply came from member `id`, or -1. */
  endpointOf(id: string): number {
    return this.nodes.indexOf(id);
  }

  /** The leader (id and address) when known and not suspect but reached by no endpoint; else undefined. */
  unreachedLeader(): Hint | undefined {
    return this.index < 0 && !this.suspect && this.leaderId !== undefined && this.leaderApi !== undefined
      ? { term: this.term, leaderId: this.leaderId, leaderApi: this.leaderApi } : undefined;
  }

  /** The endpoint a leader call starts at: the leader's when known, reached and not suspect, else current. */
  start(current: number): number {
    return this.index >= 0 && !this.suspect ? this.index : current;
  }

  /** The leader's endpoint calls go to, or -1. */
  leader(): number {
    return this.start(-1);
  }

  /** Takes a reply's hint through endpoint `endpoint`; whether it named a term newer than any seen. */
  observe(endpoint: number, h: Hint): boolean {
    if (h.node !== undefined && endpoint >= 0 && endpoint < this.nodes.length) this.nodes[endpoint] = h.node;
    const newTerm = h.term > this.term;
    if (newTerm) {
      this.term = h.term;
      this.leaderId = h.leaderId;
      this.leaderApi = h.leaderApi;
      this.suspect = false;
    } else if (h.term === this.term && h.leaderId !== undefined) {
      if (this.leaderId === undefined) {
        this.leaderId = h.leaderId;
        this.leaderApi = h.leaderApi;
        this.suspect = false;
      } else if (h.leaderId === this.leaderId) {
        if (h.leaderApi !== undefined) this.leaderApi = h.leaderApi;
        if (h.leaderId === h.node) this.suspect = false; // the leader itself answered again
      } // two leaders in one term: impossible in Raft, ignored
    }
    this.resolve();
    return newTerm;
  }

  /** Endpoint `endpoint` was unreachable or hung: when it is the leader's, it is suspect. */
  failed(endpoint: number): void {
    if (this.index === endpoint) this.suspect = true;
  }

  private resolve(): void {
    let i = this.leaderId === undefined ? -1 : this.nodes.indexOf(this.leaderId);
    if (i < 0 && this.leaderApi !== undefined) i = this.addresses.indexOf(this.leaderApi);
    this.index = i;
  }
}
