import { Calls, requestId } from './calls';
import { checkId, checkMs } from './validate';
import type { CallOptions, GrantOptions, TimeToLive } from './types';

/** A RegentClient's lease calls (docs/api.md, "Lease"). */
export class Leases extends Calls {
  /**
   * Grants a lease of `ttlMs` (within [1.5 x max election timeout, 3 600 000]); resolves to its id (the log
   * index of the grant). INVALID_ARGUMENT for a TTL out of range. Re-sent after UNAVAILABLE and DEADLINE_EXCEEDED
   * with one request id: a grant that applied before its answer was lost answers with its lease, not a second one.
   * `opts.tenant` picks the cell on a cluster of several cells (the lease id then carries the cell, cell << 48: ids
   * stay safe integers up to cell 31; docs/architecture.md §14).
   */
  async grant(ttlMs: number, opts: GrantOptions = {}): Promise<number> {
    checkMs(ttlMs, 'ttlMs');
    const tenant = opts.tenant ?? '';
    if (typeof tenant !== 'string') {
      throw new TypeError(`tenant must be a string, not ${JSON.stringify(tenant)}`);
    }
    // a name of this client's namespace, placed as the names it campaigns for are
    const placed = tenant === '' ? '' : this.ns.name(tenant);
    const r = await this.call('Lease', 'Grant', { ttl_ms: ttlMs, request_id: requestId(), tenant: placed }, opts,
      { toLeader: true });
    return checkId(r.id, 'the granted lease id');
  }

  /**
   * Renews a lease once; resolves to its TTL, ms. NOT_FOUND once it is gone or its expiry is decided. Hedged, as
   * in Java: after a quarter of the budget without an answer (50 ms..attemptTimeoutMs), or at once when the
   * endpoint is unreachable, the next endpoint gets the same keepalive too; the first answer wins.
   */
  async keepAlive(leaseId: number, opts: CallOptions = {}): Promise<number> {
    checkId(leaseId, 'leaseId');
    const r = await this.hedged('Lease', 'KeepAlive', { id: leaseId }, opts);
    return r.ttl_ms;
  }

  /** Revokes a lease, freeing every name it holds. NOT_FOUND when unknown (a re-send gets the first answer). */
  async revoke(leaseId: number, opts: CallOptions = {}): Promise<void> {
    checkId(leaseId, 'leaseId');
    await this.call('Lease', 'Revoke', { id: leaseId, request_id: requestId() }, opts,
      { toLeader: true });
  }

  /** TTL and remaining time of a lease, read linearizably; NOT_FOUND when it is gone. */
  async timeToLive(leaseId: number, opts: CallOptions = {}): Promise<TimeToLive> {
    checkId(leaseId, 'leaseId');
    const r = await this.call('Lease', 'TimeToLive', { id: leaseId }, opts, { toLeader: true });
    return { id: r.id, ttlMs: r.ttl_ms, remainingMs: r.remaining_ms,
      names: r.names.map((n) => this.ns.nameOut(n)) };
  }

  /** Every live lease: id, TTL (ms) and the names it holds, read linearizably. */
  async leases(opts: CallOptions = {}): Promise<{ id: number; ttlMs: number; names: string[] }[]> {
    const r = await this.call('Lease', 'Leases', {}, opts, { toLeader: true });
    return r.leases.map((l) => ({ id: l.id, ttlMs: l.ttl_ms, names: l.names.map((n) => this.ns.nameOut(n)) }));
  }
}
