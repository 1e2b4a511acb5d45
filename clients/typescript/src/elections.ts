import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { requestId } from './calls';
import { LeadershipError, hasCode } from './errors';
import { Holder } from './holder';
import { LeaseKeeper } from './keeper';
import type { KeeperOptions } from './keeper';
import { Leases } from './leases';
import { key } from './types';
import type { CallOptions, LeaderKey } from './types';
import { checkId, checkMs, checkName, toBytes } from './validate';

/** Options of elect() and lock(). */
export interface HoldOptions extends KeeperOptions {
  /**
   * Lease TTL, ms, within [1.5 x the cluster's max election timeout, 3 600 000]: how long after this process
   * stops renewing another may take the name. Default 10 000 (as `regent elect --ttl`).
   */
  ttl?: number;
  /** Published while held (elect: the value; lock: the owner), e.g. "host:pid"; default empty. */
  value?: string | Uint8Array;
  /** Lock-delay should this lease later expire while holding the name, ms in [0, 3 600 000]; default 0. */
  lockDelayMs?: number;
  /** How long to wait to be elected, ms; default the client's campaignTimeoutMs (then DEADLINE_EXCEEDED). */
  timeoutMs?: number;
  /** Aborting it withdraws the candidacy and revokes the lease. */
  signal?: AbortSignal;
}

/** Lease TTL of elect() and lock() without a ttl option, ms. */
export const DEFAULT_TTL_MS = 10_000;

/** A RegentClient's elections and locks (docs/api.md, "Election", "Lock"), and elect() and lock() on a kept lease. */
export class Elections extends Leases {
  /**
   * Campaigns for `name` with lease `leaseId` and resolves once elected (at most timeoutMs, default
   * campaignTimeoutMs: then DEADLINE_EXCEEDED and the server withdraws the candidacy). NOT_FOUND when the lease
   * ends first. Safe to repeat: a retry keeps the candidate's place, so it goes on at the next endpoint (each send
   * is an attempt of its own on the server, docs/api.md "Attempts"; its request id changes nothing there).
   */
  async campaign(name: string, leaseId: number,
    opts: CallOptions & { value?: string | Uint8Array; lockDelayMs?: number } = {}): Promise<LeaderKey> {
    checkName(name);
    checkId(leaseId, 'leaseId');
    const req = { name: this.ns.name(name), lease: leaseId, value: toBytes(opts.value, 'value'),
      lock_delay_ms: checkMs(opts.lockDelayMs ?? 0, 'lockDelayMs', 0), request_id: requestId() };
    const r = await this.call('Election', 'Campaign', req,
      { timeoutMs: opts.timeoutMs ?? this.campaignTimeoutMs, signal: opts.signal },
      { toLeader: true, wholeBudget: true });
    return this.ns.keyOut(key(r.leader));
  }

  /** Replaces the holder's value; FAILED_PRECONDITION when `k` no longer holds the name. */
  async proclaim(k: LeaderKey, value: string | Uint8Array, opts: CallOptions = {}): Promise<LeaderKey> {
    const r = await this.call('Election', 'Proclaim', { leader: this.ns.keyIn(k), value: toBytes(value, 'value'),
      request_id: requestId() }, opts, { toLeader: true });
    return this.ns.keyOut(key(r.leader));
  }

  /**
   * Gives the name up (with revokeLease, also ends the holder's lease in the same entry); FAILED_PRECONDITION
   * when `k` no longer holds it (nothing changes).
   */
  async resign(k: LeaderKey, opts: CallOptions & { revokeLease?: boolean } = {}): Promise<void> {
    await this.call('Election', 'Resign', { leader: this.ns.keyIn(k), revoke_lease: opts.revokeLease ?? false,
      request_id: requestId() }, opts, { toLeader: true });
  }

  /**
   * A new, larger token for the current holder; FAILED_PRECONDITION when not the holder. Re-sent with one request
   * id: a call that applied answers with the token it took, not a second one.
   */
  async freshToken(k: LeaderKey, opts: CallOptions = {}): Promise<LeaderKey> {
    const r = await this.call('Election', 'FreshToken', { leader: this.ns.keyIn(k), request_id: requestId() }, opts,
      { toLeader: true });
    return this.ns.keyOut(key(r.leader));
  }

  /**
   * The current holder of `name`, read linearizably (serializable: the answering node's own, possibly stale,
   * state); undefined when the name is free.
   */
  async leader(name: string, opts: CallOptions & { serializable?: boolean } = {}): Promise<LeaderKey | undefined> {
    checkName(name);
    try {
      const r = await this.call('Election', 'Leader', { name: this.ns.name(name),
        serializable: opts.serializable ?? false }, opts, { toLeader: !opts.serializable });
      return this.ns.keyOut(key(r.leader));
    } catch (e) {
      if (hasCode(e, grpc.status.NOT_FOUND)) return undefined;
      throw e;
    }
  }

  /** Takes lock `name` with lease `leaseId`, resolving once held (as campaign: timeouts, errors, retries). */
  async lockWithLease(name: string, leaseId: number,
    opts: CallOptions & { owner?: string | Uint8Array; lockDelayMs?: number } = {}): Promise<LeaderKey> {
    checkName(name);
    checkId(leaseId, 'leaseId');
    const req = { name: this.ns.name(name), lease: leaseId, owner: toBytes(opts.owner, 'owner'),
      lock_delay_ms: checkMs(opts.lockDelayMs ?? 0, 'lockDelayMs', 0), request_id: requestId() };
    const r = await this.call('Lock', 'Lock', req, { timeoutMs: opts.timeoutMs ?? this.campaignTimeoutMs,
      signal: opts.signal }, { toLeader: true, wholeBudget: true });
    return this.ns.keyOut(key(r.key));
  }

  /** Releases the lock held with `k` (revokeLease: and its lease); FAILED_PRECONDITION when not the owner. */
  async unlock(k: LeaderKey, opts: CallOptions & { revokeLease?: boolean } = {}): Promise<void> {
    await this.call('Lock', 'Unlock', { key: this.ns.keyIn(k), revoke_lease: opts.revokeLease ?? false, request_id: requestId() },
      opts, { toLeader: true });
  }

  /**
   * Grants a lease of `opts.ttl` ms, keeps it alive (renew every ttl/3; in doubt at 2/3 ttl after the send time
   * of the last acknowledged keepalive) and campaigns for `name`; resolves to the Holder once elected. Its
   * `signal` fires when the lease is in doubt or lost; `resign()` gives the name and the lease up.
   * Rejects with the campaign's error (DEADLINE_EXCEEDED after timeoutMs), or a LeadershipError when the lease
   * was lost while waiting; nothing is left behind (the lease is revoked).
   */
  elect(name: string, opts: HoldOptions = {}): Promise<Holder> {
    return this.hold('election', name, opts);
  }

  /** Like elect(), for a lock (Lock.Lock; `value` is the owner); resign() unlocks and revokes the lease. */
  lock(name: string, opts: HoldOptions = {}): Promise<Holder> {
    return this.hold('lock', name, opts);
  }

  private async hold(kind: 'election' | 'lock', name: string, opts: HoldOptions): Promise<Holder> {
    checkName(name);
    if (typeof opts !== 'object' || opts === null) {
      throw new TypeError('options must be an object, e.g. { ttl: 10_000 }');
    }
    const ttl = checkMs(opts.ttl ?? DEFAULT_TTL_MS, 'ttl');
    const value = toBytes(opts.value, kind === 'lock' ? 'owner' : 'value');
    const sent = performance.now();
    const lease = await this.grant(ttl, { tenant: name }); // in the name's cell (docs/architecture.md §14)
    const keeper = new LeaseKeeper(lessor(this), lease, ttl, sent, opts);
    const lost = new AbortController();
    keeper.once('lost', (reason: string) => lost.abort(new LeadershipError(reason, true)));
    const signal = lost.signal;
    const caller = opts.signal;
    const forward = (): void => lost.abort(caller?.reason); // (AbortSignal.any is Node 20.3+ only)
    if (caller?.aborted) forward();
    else caller?.addEventListener('abort', forward, { once: true });
    try {
      const wait = { value, owner: value, lockDelayMs: opts.lockDelayMs, timeoutMs: opts.timeoutMs, signal };
      const k = kind === 'lock' ? await this.lockWithLease(name, lease, wait) : await this.campaign(name, lease, wait);
      caller?.removeEventListener('abort', forward);
      return new Holder(this, keeper, k, kind);
    } catch (e) {
      caller?.removeEventListener('abort', forward);
      keeper.stop();
      await this.revoke(lease).catch(() => undefined); // unrevoked, it expires after its TTL
      throw lost.signal.aborted && !caller?.aborted ? lost.signal.reason : e;
    }
  }
}

function lessor(c: Leases) {
  return {
    keepAlive: (id: number, timeoutMs: number) => c.keepAlive(id, { timeoutMs }),
    revoke: (id: number) => c.revoke(id),
  };
}
