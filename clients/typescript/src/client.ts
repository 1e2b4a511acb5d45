import { Groups } from './groups';
import { observe, ObserveEvent, ObserveOptions } from './observe';
import type { CallOptions, ClientOptions, ClusterStatus } from './types';
import { checkId, checkName } from './validate';

export { parseEndpoints } from './endpoints';
export type { HoldOptions } from './elections';

/**
 * A Regent client over a list of endpoints (host:port of any nodes), with the Java RegentClient's rules
 * (docs/api.md, "Leader-aware routing"; docs/architecture.md §7):
 *
 * - Every reply names the Raft leader in its metadata; writes and linearizable reads start at the endpoint
 *   that reaches it, the others following in order. Status, serializable reads and Observe streams start at
 *   the current endpoint.
 * - Every mutating call carries a request id of its own (requestId()), the same on each re-send of it, so the
 *   server applies it once (docs/api.md "Request ids: exactly-once mutating calls", whose table this follows).
 * - UNAVAILABLE moves any call on to the next endpoint. DEADLINE_EXCEEDED re-sends what the table says is safe:
 *   reads, grant, revoke, resign, proclaim, freshToken, unlock, each attempt with at most half of what is left of
 *   the call's deadline. A blocking campaign or lock by lease waits out its whole timeout at one endpoint and is
 *   moved on from a dead one only (each send is a new attempt on the server: docs/api.md "Attempts").
 *   Keepalives are hedged instead (see keepAlive). A failed leader endpoint is suspect until a newer term or the
 *   leader itself answers.
 * - A client given exactly one endpoint learns the others' API addresses from MemberList (discoverEndpoints).
 * - Every call has a deadline (callTimeoutMs, campaignTimeoutMs, or the caller's timeoutMs).
 *
 * Errors are @grpc/grpc-js ServiceErrors (`code` from `status`) with the codes of docs/api.md; bad arguments
 * are TypeError / RangeError, thrown before anything is sent.
 *
 * Its calls are laid out by job, each layer extending the one before: endpoints.ts (channels, routing, endpoint
 * discovery), calls.ts (failover, re-sends, hedging), leases.ts, elections.ts (elections, locks, elect/lock),
 * groups.ts (ownership groups), and here observe and the cluster's status.
 */
export class RegentClient extends Groups {
  /**
   * Ownership changes of `name` as an async iterator: first the current holder (after = 0), then one event per
   * change in log order. When its node dies or ends the stream it is reopened at the next endpoint after the
   * last event's index (nothing twice, nothing skipped); when that node no longer has the history, the event
   * has `compacted: true` (the changes in between are lost). Ends when `signal` aborts, the loop breaks or the
   * client closes; rejects with INVALID_ARGUMENT for a bad name.
   */
  observe(name: string, opts: ObserveOptions = {}): AsyncGenerator<ObserveEvent> {
    checkName(name);
    checkId(opts.after ?? 0, 'after', 0);
    return this.ns.events(observe(this, this.ns.name(name), opts));
  }

  /**
   * The answering node's view of the cluster (read after a leadership confirmation; with serializable, its own
   * view at once, possibly behind). Not routed to the leader: it asks the current endpoint.
   */
  async status(opts: CallOptions & { serializable?: boolean } = {}): Promise<ClusterStatus> {
    const r = await this.call('Cluster', 'Status', { serializable: opts.serializable ?? false }, opts,
      { toLeader: false });
    return { node: r.node, leader: r.leader, term: r.term, commitIndex: r.commit_index, appliedIndex: r.applied_index,
      members: r.members.map((m) => ({ id: m.id, address: m.address, apiAddress: m.api_address, role: m.role })),
      role: r.role, version: r.version, dbSizeBytes: r.db_size_bytes };
  }
}

/** A client over `endpoints` ("h1:p1,h2:p2" or an array); see RegentClient. */
export function connect(endpoints: string | readonly string[], options?: ClientOptions): RegentClient {
  return new RegentClient(endpoints, options);
}
