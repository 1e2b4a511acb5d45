import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { status } from '@grpc/grpc-js';
import { fullJitter } from './backoff';
import { hasCode } from './errors';
import { checkMs } from './validate';
import type { CallOptions, GrantOptions } from './types';

/** Shortest deadline given to one keepalive call, ms. */
const MIN_CALL_MS = 50;
/** Base of the full-jitter pause before retrying a failed keepalive, ms (its cap: ttl/10). */
const RETRY_MS = 100;
/** Shortest default grace of a suspended keeper, ms. */
const MIN_DEFAULT_GRACE_MS = 10_000;

/** Options of a LeaseKeeper (and of elect/lock). */
export interface KeeperOptions {
  /**
   * Suspend instead of stepping down at the 2/3-ttl deadline (Chubby's jeopardy, Curator's SUSPENDED; as the
   * Java LeaseKeeper's suspendWhenInDoubt): the holder must stop acting ('suspended'), renewals go on, and a
   * keepalive acknowledged within 2/3 ttl of its sending resumes it with the same lease and token ('resumed').
   * It is lost for good on NOT_FOUND or once ttl + graceMs have passed since the last acknowledged send.
   * Default false: the deadline is the step-down.
   */
  suspend?: boolean;
  /** Grace of a suspended keeper after a full TTL, ms >= 0; default max(ttl, 10 000). */
  graceMs?: number;
  /** Awaited before each keepalive is sent (tests, simulated process pauses); the deadline watch keeps running. */
  beforeRenewal?: () => Promise<void> | void;
}

/** What the keeper asks of the cluster. */
export interface Lessor {
  keepAlive(id: number, timeoutMs: number): Promise<unknown>;
  revoke(id: number): Promise<unknown>;
}

/** The calls LeaseKeeper.grant makes: a RegentClient's. */
export interface LeaseClient {
  grant(ttlMs: number, opts?: GrantOptions): Promise<number>;
  keepAlive(leaseId: number, opts?: CallOptions): Promise<number>;
  revoke(leaseId: number, opts?: CallOptions): Promise<void>;
}

/**
 * Keeps one lease alive (docs/architecture.md §3.6): renews every ttl/3, counts validity from the moment the
 * last acknowledged keepalive was *sent* (performance.now(), monotonic), and is in doubt 2/3 ttl after that;
 * an acknowledgement after the deadline revives nothing (without suspension).
 *
 * Events, in order, each once per change: 'suspended' (reason: string), 'resumed' (), 'lost' (reason: string;
 * the last event, after which it stops renewing).
 */
export class LeaseKeeper extends EventEmitter {
  readonly leaseId: number;
  readonly ttlMs: number;
  private readonly lessor: Lessor;
  private readonly suspendInDoubt: boolean;
  private readonly graceMs: number;
  private readonly beforeRenewal?: () => Promise<void> | void;
  private lastAckSent: number;
  private down = false;
  private suspended = false;
  /** Consecutive failed keepalives: the retry pause grows with them, jittered (backoff.ts). */
  private failures = 0;
  private renewTimer?: NodeJS.Timeout;
  private watchTimer?: NodeJS.Timeout;

  /**
   * Starts keeping lease `leaseId` (TTL `ttlMs`) alive, granted by a call sent at `grantSentMs`
   * (performance.now()).
   */
  constructor(lessor: Lessor, leaseId: number, ttlMs: number, grantSentMs: number, opts: KeeperOptions = {}) {
    super();
    this.lessor = lessor;
    this.leaseId = leaseId;
    this.ttlMs = checkMs(ttlMs, 'ttl');
    this.suspendInDoubt = opts.suspend ?? false;
    this.graceMs = opts.graceMs === undefined ? Math.max(ttlMs, MIN_DEFAULT_GRACE_MS)
      : checkMs(opts.graceMs, 'graceMs', 0);
    this.beforeRenewal = opts.beforeRenewal;
    this.lastAckSent = grantSentMs;
    // ttl/3 after the grant was sent, not after it returned: a slow grant eats validity
    this.renewTimer = setTimeout(() => void this.renew(), Math.max(0, grantSentMs + ttlMs / 3 - performance.now()));
    this.watchTimer = setTimeout(() => this.checkDeadline(), Math.max(0, this.deadline() - performance.now()));
  }

  /**
   * Grants a lease of `ttlMs` (ms) through `client` and starts keeping it alive, its validity counted from the
   * moment the grant was first sent (its re-sends carry its request id: at most one lease is granted). Rejects as
   * RegentClient.grant (INVALID_ARGUMENT for a TTL out of range; DEADLINE_EXCEEDED when no endpoint answered).
   * `opts.tenant` picks the lease's cell on a cluster of several cells (docs/architecture.md §14).
   */
  static async grant(client: LeaseClient, ttlMs: number, opts: KeeperOptions & { tenant?: string } = {}):
      Promise<LeaseKeeper> {
    checkMs(ttlMs, 'ttlMs');
    const sent = performance.now();
    const id = await client.grant(ttlMs, { tenant: opts.tenant });
    return new LeaseKeeper({ keepAlive: (l, ms) => client.keepAlive(l, { timeoutMs: ms }),
      revoke: (l) => client.revoke(l) }, id, ttlMs, sent, opts);
  }

  /** Stops renewing and revokes the lease (freeing every name it holds); rejects when the revoke failed. */
  async revoke(): Promise<void> {
    this.stop();
    await this.lessor.revoke(this.leaseId);
  }

  /** performance.now() by which the holder must stop acting unless renewed before: last acked send + 2/3 ttl. */
  deadline(): number {
    return this.lastAckSent + (this.ttlMs * 2) / 3;
  }

  /** Whether the holder may act now: renewed in time, not suspended, not lost. */
  valid(): boolean {
    if (this.down) return false;
    if (performance.now() >= this.deadline()) {
      this.inDoubt(`lease ${this.leaseId} not renewed for 2/3 of its ${this.ttlMs} ms TTL`);
      return false;
    }
    return !this.suspended;
  }

  /** Whether it is suspended (in doubt, may resume). */
  isSuspended(): boolean {
    return this.suspended;
  }

  /** Stops renewing without revoking and without a 'lost' event: the lease expires one TTL after its last renewal. */
  stop(): void {
    this.down = true;
    clearTimeout(this.renewTimer);
    clearTimeout(this.watchTimer);
  }

  private async renew(): Promise<void> {
    if (this.beforeRenewal) {
      try {
        await this.beforeRenewal();
      } catch {
        // a failing hook skips this renewal only; the deadline watch goes on
      }
    }
    if (this.down) return;
    const sent = performance.now();
    // while suspended only an answer within 2/3 ttl of this send can resume the holder: it may take ttl/3
    const callMs = this.suspended ? this.ttlMs / 3 : this.deadline() - sent;
    let next: number;
    try {
      await this.lessor.keepAlive(this.leaseId, Math.max(MIN_CALL_MS, Math.floor(callMs)));
      if (!this.acknowledged(sent)) return;
      this.failures = 0;
      next = this.suspended ? Math.min(RETRY_MS, this.ttlMs / 10) : this.ttlMs / 3 - (performance.now() - sent);
    } catch (e) {
      if (hasCode(e, status.NOT_FOUND)) {
        this.stepDown(`lease ${this.leaseId} expired or was revoked`);
        return;
      }
      next = fullJitter(this.failures++, RETRY_MS, this.ttlMs / 10);
    }
    if (!this.down) this.renewTimer = setTimeout(() => void this.renew(), Math.max(0, next));
  }

  /** Counts an acknowledgement of a keepalive sent at `sent`; whether renewing goes on. */
  private acknowledged(sent: number): boolean {
    if (this.down) return false;
    const now = performance.now();
    const late = `lease ${this.leaseId} renewed only after 2/3 of its ${this.ttlMs} ms TTL had passed`;
    if (!this.suspendInDoubt && now >= this.deadline()) {
      this.stepDown(late); // the holder was bound to stop at the deadline: a late answer must not revive it
      return false;
    }
    this.lastAckSent = Math.max(this.lastAckSent, sent);
    if (now >= sent + (this.ttlMs * 2) / 3) {
      this.suspend(late);
      return true;
    }
    if (this.suspended) {
      this.suspended = false;
      this.emitLater('resumed');
    }
    return true;
  }

  private checkDeadline(): void {
    if (this.down) return;
    const now = performance.now();
    const left = this.deadline() - now;
    if (left > 0) {
      this.watchTimer = setTimeout(() => this.checkDeadline(), left);
      return;
    }
    const reason = `lease ${this.leaseId} not renewed for 2/3 of its ${this.ttlMs} ms TTL`;
    if (!this.suspendInDoubt) {
      this.stepDown(reason);
      return;
    }
    const giveUpIn = this.lastAckSent + this.ttlMs + this.graceMs - now;
    if (giveUpIn <= 0) {
      this.stepDown(`lease ${this.leaseId} not renewed within its ${this.ttlMs} ms TTL`
        + ` and a grace of ${this.graceMs} ms`);
      return;
    }
    this.suspend(reason);
    this.watchTimer = setTimeout(() => this.checkDeadline(), Math.min(giveUpIn, RETRY_MS));
  }

  private inDoubt(reason: string): void {
    if (this.suspendInDoubt) this.suspend(reason);
    else this.stepDown(reason);
  }

  private suspend(reason: string): void {
    if (!this.suspended && !this.down) {
      this.suspended = true;
      this.emitLater('suspended', reason);
    }
  }

  private stepDown(reason: string): void {
    if (this.down) return;
    this.stop();
    this.suspended = false;
    this.emitLater('lost', reason);
  }

  /** Emits on the next tick: listeners never run inside valid() or a timer's bookkeeping. */
  private emitLater(event: string, ...args: unknown[]): void {
    process.nextTick(() => this.emit(event, ...args));
  }
}
