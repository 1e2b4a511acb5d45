// Leader-aware routing by the leader metadata every reply carries (docs/api.md, "Leader metadata"), as the
// Java client's LeaderRouting: keep the leader of the highest term; calls for the leader start at the
// endpoint that reaches it unless that endpoint has just failed (suspect).
import type { Metadata } from '@grpc/grpc-js';

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

/** Where calls for the leader start. Not exported from the package. */
export class LeaderRouting {
  private term = -1;
  private leaderId?: string;
  private leaderApi?: string;
  private index = -1;
  private suspect = false;
  /** Member id the last reply through endpoint i came from. */
  private readonly nodes: (string | undefined)[];

  private addresses: readonly string[];

  constructor(addresses: readonly string[]) {
    this.addresses = [...addresses];
    this.nodes = addresses.map(() => undefined);
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
