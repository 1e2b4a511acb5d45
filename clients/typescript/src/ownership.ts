import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type * as grpc from '@grpc/grpc-js';
import { fullJitter } from './backoff';
import { LeaseKeeper } from './keeper';
import type { KeeperOptions } from './keeper';
import { wait } from './observe';
import type { ObserveClient } from './observe';
import type { CallOptions } from './types';
import type { GroupWatchResponse__Output as GroupWatchResponse } from './generated/regent/v1/GroupWatchResponse';

/** Base of the full-jitter pause before reopening a failed Watch stream, ms; its cap doubles up to 2 s (as observe's). */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

/** Options of joinGroup(). */
export interface GroupOptions extends KeeperOptions {
  /**
   * The group's partition count, 1..65 536, to create it (or to check an existing group's: another count is
   * FAILED_PRECONDITION); 0 (default) joins an existing group (NOT_FOUND when there is none).
   */
  partitions?: number;
  /** TTL of the member's lease, ms (granted in the join's own entry); default 10 000. */
  ttl?: number;
}

/** @internal The calls a member makes: a RegentClient's (names as the caller gives them). */
export interface GroupClient extends ObserveClient {
  groupJoin(group: string, member: string, opts: { ttl: number; partitions: number }): Promise<{ lease: number }>;
  groupLeave(group: string, member: string, lease: number, opts?: CallOptions): Promise<number>;
  groupRelease(group: string, tokens: ReadonlyMap<number, number>, opts?: CallOptions): Promise<number>;
  keepAlive(leaseId: number, opts?: CallOptions): Promise<number>;
  revoke(leaseId: number, opts?: CallOptions): Promise<void>;
  /** The group's name as the cluster knows it (the namespace's prefix first). */
  clusterName(name: string): string;
}

/**
 * A member of an ownership group (docs/ownership.md), as the Java PartitionOwnership: it is told each partition
 * it owns from now on with its fencing token (`assigned`), and to stop acting on one (`revoked`) *before* the
 * partition is released, so that it has stopped by the time another member can be granted it. Tokens per
 * partition only rise: attach `token(p)` to every write of partition p, checked by the resource.
 *
 * Its lease is kept by a LeaseKeeper (docs/architecture.md §3.6): when renewal has failed for 2/3 of the TTL, or
 * the lease is gone, every partition is revoked, then `lost` (reason); the member does nothing more. With
 * `suspend: true` that deadline only suspends: every partition is revoked, then `suspended` (reason); the member
 * stays in the group (it still releases what the group moves away), and a renewal in time emits `resumed`, then
 * `assigned` again for what the group assigns it now. It is lost once ttl + graceMs have passed or on NOT_FOUND.
 *
 * Events, one at a time in log order: 'assigned' (partition, token), 'revoked' (partition), 'suspended'
 * (reason), 'resumed' (), 'lost' (reason). Attach listeners right after joinGroup resolves: the first
 * assignment comes from the network, so none is emitted before. The Watch stream is reopened at the next
 * endpoint after a failure (full-jitter pause), after the last assignment taken. leave() revokes everything,
 * leaves the group (the partitions move on at once) and revokes the lease.
 */
export class Ownership extends EventEmitter {
  readonly group: string;
  readonly member: string;
  readonly lease: number;
  private readonly client: GroupClient;
  private readonly keeper: LeaseKeeper;
  private readonly stop = new AbortController();
  private readonly mine = new Map<number, number>(); // owned: partition to token
  private assigned = new Map<number, number>(); // what the last assignment gives the member
  private lastIndex = 0;
  private down = false;

  /** @internal Made by RegentClient.joinGroup (Ownership.join). */
  constructor(client: GroupClient, group: string, member: string, keeper: LeaseKeeper) {
    super();
    this.client = client;
    this.group = group;
    this.member = member;
    this.keeper = keeper;
    this.lease = keeper.leaseId;
    keeper.on('suspended', (reason: string) => {
      if (this.down) return;
      for (const p of [...this.mine.keys()].sort((a, b) => a - b)) this.revoke(p);
      this.emit('suspended', reason);
    });
    keeper.on('resumed', () => {
      if (this.down) return;
      this.emit('resumed');
      this.assign();
    });
    keeper.on('lost', (reason: string) => {
      if (this.stepDown()) this.emit('lost', reason);
    });
    process.nextTick(() => void this.watch());
  }

  /**
   * @internal Joins `group` as `member` with a new lease of opts.ttl, granted in the join's entry (re-sent with its
   * one request id: it joins once), and starts keeping the lease and following the assignment.
   */
  static async join(client: GroupClient, group: string, member: string, opts: GroupOptions): Promise<Ownership> {
    const ttl = opts.ttl ?? 10_000;
    const partitions = opts.partitions ?? 0;
    const sent = performance.now();
    const { lease } = await client.groupJoin(group, member, { ttl, partitions });
    const keeper = new LeaseKeeper({ keepAlive: (id, timeoutMs) => client.keepAlive(id, { timeoutMs }),
      revoke: (id) => client.revoke(id) }, lease, ttl, sent, opts);
    return new Ownership(client, group, member, keeper);
  }

  /** The partitions owned now, partition to fencing token (empty once lost, suspended or left). */
  owned(): Map<number, number> {
    return this.valid() ? new Map(this.mine) : new Map();
  }

  /** The fencing token of an owned partition. @throws RangeError when it is not owned now */
  token(partition: number): number {
    const t = this.valid() ? this.mine.get(partition) : undefined;
    if (t === undefined) throw new RangeError(`partition ${partition} of '${this.group}' is not owned by ${this.member}`);
    return t;
  }

  /** Whether the member may act: its lease is vouched for, and it has neither lost it nor left. */
  valid(): boolean {
    return !this.down && this.keeper.valid();
  }

  /** The log index of the last assignment taken. */
  get index(): number {
    return this.lastIndex;
  }

  private async watch(): Promise<void> {
    let failures = 0; // consecutive reopenings without a message
    const c = this.client;
    while (!this.down && !c.isClosed) {
      const idx = c.currentEndpoint();
      const stream = c.stub(idx, 'Group').Watch({ group: c.clusterName(this.group), member: this.member,
        after_index: this.lastIndex });
      let seen = false;
      stream.on('metadata', (md: grpc.Metadata) => {
        seen = true;
        c.hint(idx, md);
      });
      stream.on('status', (s: grpc.StatusObject) => {
        if (!seen) c.hint(idx, s.metadata);
      });
      const cancel = (): void => stream.cancel();
      this.stop.signal.addEventListener('abort', cancel, { once: true });
      try {
        for await (const m of stream) {
          failures = 0;
          await this.take(m as GroupWatchResponse);
        }
      } catch {
        // the node died, hung or refused (or leave() cancelled the stream): reopen elsewhere unless down
      } finally {
        this.stop.signal.removeEventListener('abort', cancel);
        stream.cancel();
      }
      if (this.down || c.isClosed) return;
      c.moveOn(idx); // a node that shuts down ends its streams
      await wait(fullJitter(failures++, FIRST_BACKOFF_MS, MAX_BACKOFF_MS), this.stop.signal);
    }
  }

  /** Brings the member to assignment `r`: revoke first, then release, then assign. */
  private async take(r: GroupWatchResponse): Promise<void> {
    if (this.down || r.index <= this.lastIndex) return;
    this.lastIndex = r.index;
    const toRelease = new Set(r.release);
    const keep = new Map<number, number>();
    const release = new Map<number, number>();
    for (const pt of r.owned) (toRelease.has(pt.partition) ? release : keep).set(pt.partition, pt.token);
    this.assigned = keep;
    // a partition whose token changed moved away and back meanwhile: stop acting on the old grant first
    for (const [p, t] of [...this.mine].sort((a, b) => a[0] - b[0])) if (keep.get(p) !== t) this.revoke(p);
    if (release.size > 0) {
      await this.client.groupRelease(this.group, release).catch(() => {
        // a move undone meanwhile, or no quorum: the next assignment says what to do
      });
    }
    this.assign(); // valid() again: the lease may have been lost while the release was on its way
  }

  private assign(): void {
    for (const [p, t] of [...this.assigned].sort((a, b) => a[0] - b[0])) {
      if (!this.valid()) return;
      if (this.mine.has(p)) continue;
      this.mine.set(p, t);
      this.emit('assigned', p, t);
    }
  }

  private revoke(partition: number): void {
    this.mine.delete(partition);
    this.emit('revoked', partition);
  }

  /** Stops following the group and revokes every partition; false when it had stopped already. */
  private stepDown(): boolean {
    if (this.down) return false;
    this.down = true;
    this.stop.abort();
    for (const p of [...this.mine.keys()].sort((a, b) => a - b)) this.revoke(p);
    return true;
  }

  /**
   * Revokes every partition ('revoked'), leaves the group (its partitions move on at once) and revokes the lease;
   * resolves to true when the member was still in the group. Best effort: without a quorum the lease expires one
   * TTL after its last renewal and the partitions move then. Idempotent (false after the first).
   */
  async leave(): Promise<boolean> {
    const wasUp = this.stepDown();
    this.keeper.stop();
    if (!wasUp) return false;
    await this.client.groupLeave(this.group, this.member, this.lease).catch(() => undefined); // expired: gone
    await this.client.revoke(this.lease).catch(() => undefined); // unrevoked, it expires after its TTL
    return true;
  }
}
