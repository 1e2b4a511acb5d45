import { EventEmitter } from 'node:events';
import { status } from '@grpc/grpc-js';
import { LeadershipError, hasCode } from './errors';
import type { LeaseKeeper } from './keeper';
import type { CallOptions, LeaderKey } from './types';

/** The calls a Holder makes to give its name or lock up: a RegentClient's. */
export interface HolderClient {
  resign(k: LeaderKey, opts?: CallOptions & { revokeLease?: boolean }): Promise<void>;
  unlock(k: LeaderKey, opts?: CallOptions & { revokeLease?: boolean }): Promise<void>;
  revoke(leaseId: number, opts?: CallOptions): Promise<void>;
}

/**
 * One term of holding a name (elect) or a lock (lock): its fencing `token`, its `lease`, and a `signal` that
 * fires when the lease is in doubt (suspended, with the suspend option) or lost, with a LeadershipError as its
 * reason. Send `token` with every write to a fenced resource; stop acting once `signal.aborted`.
 *
 * With suspension, a resume makes `signal` a new, unaborted signal (same lease, same token); an old one stays
 * aborted. Events: 'suspended' (reason), 'resumed' (), 'lost' (reason).
 *
 * While held, the renewal timers keep the Node process alive; resign() or the loss of the lease ends them.
 */
export class Holder extends EventEmitter {
  /** The holder's key: name, value (or owner), token, lease. */
  readonly key: LeaderKey;
  /** 'election' (elect) or 'lock' (lock). */
  readonly kind: 'election' | 'lock';
  private readonly client: HolderClient;
  private readonly keeper: LeaseKeeper;
  private controller = new AbortController();
  private resigned = false;

  /** Made by RegentClient.elect/lock, which grant the lease and start its keeper. */
  constructor(client: HolderClient, keeper: LeaseKeeper, key: LeaderKey, kind: 'election' | 'lock') {
    super();
    this.client = client;
    this.keeper = keeper;
    this.key = key;
    this.kind = kind;
    keeper.on('suspended', (reason: string) => {
      this.controller.abort(new LeadershipError(`${key.name}: ${reason}`, false));
      this.emit('suspended', reason);
    });
    keeper.on('resumed', () => {
      this.controller = new AbortController();
      this.emit('resumed');
    });
    keeper.on('lost', (reason: string) => {
      if (!this.controller.signal.aborted || !(this.controller.signal.reason as LeadershipError).lost) {
        if (this.controller.signal.aborted) this.controller = new AbortController();
        this.controller.abort(new LeadershipError(`${key.name}: ${reason}`, true));
      }
      this.emit('lost', reason);
    });
    if (!keeper.valid()) {
      const lost = !keeper.isSuspended();
      this.controller.abort(new LeadershipError(`${key.name}: lease ${lost ? 'lost' : 'in doubt'} already`, lost));
    }
  }

  /** The name held. */
  get name(): string {
    return this.key.name;
  }

  /** The fencing token: the Raft log index of the entry that granted this ownership. */
  get token(): number {
    return this.key.token;
  }

  /** The lease id backing it. */
  get lease(): number {
    return this.key.lease;
  }

  /** Fires when the lease is in doubt or lost (reason: a LeadershipError); see the class comment. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether this process may act as holder now (renewed within 2/3 ttl of a send, not suspended, not lost). */
  valid(): boolean {
    return !this.resigned && this.keeper.valid();
  }

  /** performance.now() by which the holder must stop acting unless the lease is renewed before. */
  deadline(): number {
    return this.keeper.deadline();
  }

  /**
   * Gives the name (or lock) up and revokes the lease in the same log entry; resolves to true when this holder
   * still held it, false when it had lost it already. Stops renewing first, so on UNAVAILABLE or
   * DEADLINE_EXCEEDED (rejected) the lease still ends, after its TTL. Idempotent (false after the first).
   */
  async resign(): Promise<boolean> {
    if (this.resigned) return false;
    this.resigned = true;
    const wasUp = this.keeper.valid() || this.keeper.isSuspended();
    this.keeper.stop();
    if (!this.controller.signal.aborted) this.controller.abort(new LeadershipError(`${this.name}: resigned`, true));
    try {
      if (this.kind === 'lock') await this.client.unlock(this.key, { revokeLease: true });
      else await this.client.resign(this.key, { revokeLease: true });
      return wasUp;
    } catch (e) {
      if (hasCode(e, status.FAILED_PRECONDITION) || hasCode(e, status.NOT_FOUND)) {
        await this.client.revoke(this.lease).catch(() => undefined);
        return false;
      }
      throw e;
    }
  }
}
