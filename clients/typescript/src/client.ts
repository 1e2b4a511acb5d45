import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { services } from './proto';
import type { Method, RequestOf, ResponseOf, ServiceName, Stubs } from './proto';
import { LeaderRouting, hintOf } from './routing';
import { answeredUnavailable, clientError, hasCode, LeadershipError } from './errors';
import { checkId, checkMember, checkMs, checkName, checkPartitions, toBytes } from './validate';
import { LeaseKeeper, KeeperOptions } from './keeper';
import { Holder } from './holder';
import { observe, ObserveEvent, ObserveOptions } from './observe';
import { Ownership } from './ownership';
import type { GroupOptions } from './ownership';
import { KeepAliveStream } from './stream';
import { Namespace } from './namespace';
import { key } from './types';
import type { CallOptions, ClientOptions, ClusterStatus, GroupStatus, LeaderKey, TimeToLive } from './types';

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

/** A generated stub's unary method, as attempt() calls it. */
type UnaryMethod<Req, Res> = (req: Req, md: grpc.Metadata, options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>) => grpc.ClientUnaryCall;

/** Lease TTL of elect() and lock() without a ttl option, ms. */
const DEFAULT_TTL_MS = 10_000;

/** Shortest deadline of one attempt when a call may be retried on another endpoint, ms. */
const MIN_ATTEMPT_MS = 50;

/**
 * Where a call goes. Every unary call of this client is safe to re-send after DEADLINE_EXCEEDED (docs/api.md's
 * table: reads, and every write with its request id), so none says otherwise.
 */
interface Route {
  /** Start at the Raft leader's endpoint when known (writes, linearizable reads). */
  toLeader: boolean;
  /** One attempt may take the whole budget (a blocking campaign is not moved on for taking long). */
  wholeBudget?: boolean;
}

/**
 * A new request id (docs/api.md "Request ids"): 128 random bits, base64url (22 characters of [A-Za-z0-9_-]). A
 * mutating call makes one before its first send and every re-send carries it, so the server applies the call once
 * and answers a re-send of one that applied with the first answer (the same lease, the same token).
 */
function requestId(): string {
  return randomBytes(16).toString('base64url');
}

/** Parses "h1:p1,h2:p2" or a list into checked host:port strings. */
export function parseEndpoints(endpoints: string | readonly string[]): string[] {
  const list = typeof endpoints === 'string' ? endpoints.split(',') : endpoints;
  if (!Array.isArray(list)) throw new TypeError('endpoints must be a string "h1:p1,h2:p2" or an array of them');
  const out = list.map((e) => String(e).trim()).filter((e) => e.length > 0);
  if (out.length === 0) throw new RangeError('at least one endpoint (host:port) is required');
  for (const e of out) {
    const m = /^(.+):(\d{1,5})$/.exec(e);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new RangeError(`endpoint '${e}' is not host:port`);
  }
  return out;
}

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
 */
export class RegentClient {
  private readonly addresses: string[];
  private readonly stubs: Stubs[];
  private readonly channels: grpc.Channel[];
  private readonly creds: grpc.ChannelCredentials;
  private readonly channelOptions: grpc.ChannelOptions;
  private readonly discover: boolean;
  /** Whether MemberList should be read (again): at first, after a new term, after an incomplete list. */
  private syncWanted: boolean;
  private syncing = false;
  private nextSync = 0;
  private readonly routing: LeaderRouting;
  private readonly callTimeoutMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly campaignTimeoutMs: number;
  private readonly preferLeader: boolean;
  private readonly ns: Namespace;
  private current = 0;
  private closed = false;
  private readonly streamKeepalives: boolean;
  /** Endpoint index to its open keepalive stream. */
  private readonly streams = new Map<number, KeepAliveStream>();
  /** Endpoints whose node has no KeepAliveStream (an older version): unary keepalives there. */
  private readonly unaryOnly = new Set<number>();

  /**
   * Connects lazily to `endpoints` ("h1:p1,h2:p2" or an array).
   * @throws RangeError for no endpoint or one that is not host:port, or a bad option
   */
  constructor(endpoints: string | readonly string[], options: ClientOptions = {}) {
    this.addresses = parseEndpoints(endpoints);
    this.callTimeoutMs = checkMs(options.callTimeoutMs ?? 15_000, 'callTimeoutMs');
    this.attemptTimeoutMs = checkMs(options.attemptTimeoutMs ?? 5_000, 'attemptTimeoutMs');
    this.campaignTimeoutMs = checkMs(options.campaignTimeoutMs ?? 3_600_000, 'campaignTimeoutMs');
    this.preferLeader = options.preferLeader ?? true;
    this.ns = new Namespace(options.namespace ?? '');
    this.streamKeepalives = options.streamKeepalives ?? true;
    this.discover = options.discoverEndpoints ?? this.addresses.length === 1;
    this.syncWanted = this.discover;
    this.creds = options.credentials ?? grpc.credentials.createInsecure();
    this.channelOptions = {
      'grpc.keepalive_time_ms': checkMs(options.keepaliveTimeMs ?? 10_000, 'keepaliveTimeMs'),
      'grpc.keepalive_timeout_ms': checkMs(options.keepaliveTimeoutMs ?? 5_000, 'keepaliveTimeoutMs'),
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 2_000,
    };
    this.channels = [];
    this.stubs = [];
    for (const e of this.addresses) this.open(e);
    this.routing = new LeaderRouting(this.addresses);
  }

  /**
   * The endpoints this client uses, in order: those it was given, then those it learnt (discoverEndpoints);
   * the list only grows.
   */
  get endpoints(): readonly string[] {
    return Object.freeze([...this.addresses]);
  }

  private open(address: string): void {
    const ch = new grpc.Channel(address, this.creds, this.channelOptions);
    const opts = { channelOverride: ch };
    const s: Stubs = {
      Lease: new services.Lease(address, this.creds, opts),
      Election: new services.Election(address, this.creds, opts),
      Lock: new services.Lock(address, this.creds, opts),
      Cluster: new services.Cluster(address, this.creds, opts),
      Ledger: new services.Ledger(address, this.creds, opts),
      Group: new services.Group(address, this.creds, opts),
    };
    this.channels.push(ch);
    this.stubs.push(s);
  }

  /** The endpoint calls for the leader go to now, or undefined when none is known (or it just failed). */
  leaderEndpoint(): string | undefined {
    const i = this.preferLeader ? this.routing.leader() : -1;
    return i < 0 ? undefined : this.addresses[i];
  }

  // ---- leases ------------------------------------------------------------------------------------

  /**
   * Grants a lease of `ttlMs` (within [1.5 x max election timeout, 3 600 000]); resolves to its id (the log
   * index of the grant). INVALID_ARGUMENT for a TTL out of range. Re-sent after UNAVAILABLE and DEADLINE_EXCEEDED
   * with one request id: a grant that applied before its answer was lost answers with its lease, not a second one.
   */
  async grant(ttlMs: number, opts: CallOptions = {}): Promise<number> {
    checkMs(ttlMs, 'ttlMs');
    const r = await this.call('Lease', 'Grant', { ttl_ms: ttlMs, request_id: requestId() }, opts,
      { toLeader: true });
    return r.id;
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

  // ---- elections and locks ---------------------------------------------------------------------------

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
    const lease = await this.grant(ttl);
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

  // ---- ownership groups (docs/ownership.md) -----------------------------------------------------------

  /**
   * Joins `group` as `member` (1..128 bytes) with a new lease of opts.ttl ms (default 10 000) granted in the join's
   * own entry and kept alive, creating the group with opts.partitions (1..65 536; 0, the default, joins an
   * existing one), and follows the member's assignment: resolves to an Ownership, whose events tell each
   * partition assigned with its fencing token and each revoked (ownership.ts). Rejects with Group.Join's errors
   * (docs/ownership.md, "API"): FAILED_PRECONDITION for another partition count than the group's or the member
   * id held by another lease, NOT_FOUND for a new group with partitions 0, INVALID_ARGUMENT for a bad name or TTL.
   */
  async joinGroup(group: string, member: string, opts: GroupOptions = {}): Promise<Ownership> {
    if (typeof opts !== 'object' || opts === null) throw new TypeError('options must be an object, e.g. { partitions: 16 }');
    checkName(group, 'group');
    checkMember(member);
    checkPartitions(opts.partitions ?? 0);
    checkMs(opts.ttl ?? DEFAULT_TTL_MS, 'ttl');
    return Ownership.join(this, group, member, { ...opts, ttl: opts.ttl ?? DEFAULT_TTL_MS });
  }

  /**
   * Group.Join by hand: adds `member` with a new lease of opts.ttl ms granted in the same entry; resolves to the
   * lease and the entry's index. Re-sent with one request id: a join that applied is answered, not joined twice.
   */
  async groupJoin(group: string, member: string, opts: CallOptions & { ttl: number; partitions: number })
    : Promise<{ lease: number; index: number }> {
    const req = { group: this.ns.name(checkName(group, 'group')), member: checkMember(member),
      ttl_ms: checkMs(opts.ttl, 'ttl'), partitions: checkPartitions(opts.partitions), request_id: requestId() };
    const r = await this.call('Group', 'Join', req, opts, { toLeader: true });
    return { lease: r.lease, index: r.index };
  }

  /** Group.Leave: the member stopped; its partitions move on at once. Resolves to the entry's index. NOT_FOUND. */
  async groupLeave(group: string, member: string, lease: number, opts: CallOptions = {}): Promise<number> {
    const req = { group: this.ns.name(group), member, lease, request_id: requestId() };
    return (await this.call('Group', 'Leave', req, opts, { toLeader: true })).index;
  }

  /**
   * Group.Release: gives up partitions (partition to the token it was granted with), all or nothing; resolves to
   * the entry's index. FAILED_PRECONDITION for a stale token or a partition still assigned to the caller.
   */
  async groupRelease(group: string, tokens: ReadonlyMap<number, number>, opts: CallOptions = {}): Promise<number> {
    const partitions = [...tokens].sort((a, b) => a[0] - b[0]).map(([partition, token]) => ({ partition, token }));
    const req = { group: this.ns.name(group), partitions, request_id: requestId() };
    return (await this.call('Group', 'Release', req, opts, { toLeader: true })).index;
  }

  /**
   * A group's whole assignment: each partition's owner and token (and `next` while a move waits for its
   * release), read linearizably (serializable: the answering node's own state). NOT_FOUND for no such group.
   */
  async groupStatus(group: string, opts: CallOptions & { serializable?: boolean } = {}): Promise<GroupStatus> {
    checkName(group, 'group');
    const r = await this.call('Group', 'Status', { group: this.ns.name(group), serializable: opts.serializable ?? false },
      opts, { toLeader: !opts.serializable });
    return { group, partitions: r.partitions, index: r.index,
      members: r.members.map((m) => ({ member: m.member, lease: m.lease, joinedIndex: m.joined_index })),
      owners: r.owners.map((o) => ({ partition: o.partition, owner: o.owner, token: o.token, next: o.next })) };
  }

  /** @internal the name as the cluster knows it (the namespace's prefix first) */
  clusterName(name: string): string {
    return this.ns.name(name);
  }

  // ---- observe and cluster --------------------------------------------------------------------------

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

  /**
   * Closes every connection; calls in flight fail with CANCELLED or UNAVAILABLE. Idempotent. Call it when done:
   * an open keepalive stream keeps the Node process alive for up to 30 s after the last keepalive.
   */
  close(): void {
    this.closed = true;
    for (const st of this.streams.values()) st.close();
    this.streams.clear();
    for (const ch of this.channels) ch.close();
  }

  // ---- internals (used by keeper, observe) ----------------------------------------------------------

  /** @internal */
  get isClosed(): boolean {
    return this.closed;
  }

  /** @internal index of the endpoint calls without a leader start at */
  currentEndpoint(): number {
    return this.current;
  }

  /**
   * @internal moves on from endpoint `failed`, unless another call already did; unless the node refused by itself
   * (`nodeAnswered`: alive, answering), a leader's endpoint is suspect until a newer term or its own answer
   */
  moveOn(failed: number, nodeAnswered = false): void {
    if (!nodeAnswered) this.routing.failed(failed);
    if (this.current === failed) this.current = (failed + 1) % this.addresses.length;
  }

  /** @internal the stub of a service at endpoint i */
  stub<S extends ServiceName>(i: number, service: S): Stubs[S] {
    return this.stubs[i][service];
  }

  /** @internal takes a reply's leader metadata */
  hint(i: number, md: grpc.Metadata | undefined): void {
    const h = hintOf(md);
    if (!h) return;
    const newTerm = this.routing.observe(i, h);
    if (!this.discover || this.closed) return;
    if (newTerm) this.syncWanted = true;
    const unreached = this.routing.unreachedLeader();
    if (unreached) this.learn(unreached.leaderId as string, unreached.leaderApi as string);
    if (this.syncWanted) this.sync(i);
  }

  /** Adds `api` as member `id`'s endpoint unless an endpoint reaches that member or has that address. */
  private learn(id: string, api: string): void {
    if (this.closed || !api || !/^.+:\d{1,5}$/.test(api) || this.routing.endpointOf(id) >= 0
      || this.addresses.includes(api)) return;
    this.open(api); // before the routing can name the new index
    this.addresses.push(api);
    this.routing.endpointsChanged(this.addresses);
  }

  /** Reads MemberList from endpoint i and learns every member's address; one at a time, at most once a second. */
  private sync(i: number): void {
    const now = performance.now();
    if (this.syncing || now < this.nextSync) return;
    this.syncing = true;
    this.stubs[i].Cluster.MemberList({}, { deadline: Date.now() + this.callTimeoutMs },
      (err, r) => {
        this.syncing = false;
        this.nextSync = performance.now() + 1_000;
        if (err || !r) return; // unreachable, no quorum, closed: read again at a later reply
        let complete = true;
        for (const m of r.members) {
          complete &&= m.api_address !== '';
          this.learn(m.id, m.api_address);
        }
        this.syncWanted = !complete;
      });
  }

  /**
   * Runs one unary RPC from the leader's (or current) endpoint on: the next endpoint after UNAVAILABLE, and
   * after DEADLINE_EXCEEDED (the same request: its request id too), until the budget is used up.
   */
  private async call<S extends ServiceName, M extends Method<S>>(service: S, method: M, req: RequestOf<S, M>,
    opts: CallOptions, route: Route): Promise<ResponseOf<S, M>> {
    if (this.closed) throw clientError(grpc.status.CANCELLED, 'the client is closed');
    const budget = checkMs(opts.timeoutMs ?? this.callTimeoutMs, 'timeoutMs');
    const end = performance.now() + budget;
    const n = this.addresses.length; // endpoints learnt during the call are tried by the next one
    let last: unknown;
    for (let i = 0; i < n; i++) {
      const idx = i === 0 && route.toLeader && this.preferLeader ? this.routing.start(this.current) : this.current;
      const left = end - performance.now();
      if (left <= 0) break;
      let attemptMs = left;
      if (!route.wholeBudget && i < n - 1 && left > 2 * MIN_ATTEMPT_MS) {
        attemptMs = Math.min(this.attemptTimeoutMs, Math.max(MIN_ATTEMPT_MS, left / 2));
      }
      try {
        return await this.attempt(idx, service, method, req, attemptMs, opts.signal);
      } catch (e) {
        const code = (e as grpc.ServiceError).code;
        if (code !== grpc.status.UNAVAILABLE && code !== grpc.status.DEADLINE_EXCEEDED) throw e;
        this.moveOn(idx, answeredUnavailable(e)); // the next call starts elsewhere too
        if (performance.now() >= end) throw e;
        last = e;
      }
    }
    throw last ?? clientError(grpc.status.DEADLINE_EXCEEDED, `no time left for ${service}.${method}`);
  }

  /** Runs a repeatable call on several endpoints at once, staggered (see keepAlive); the first answer wins. */
  private hedged<S extends ServiceName, M extends Method<S>>(service: S, method: M, req: RequestOf<S, M>,
    opts: CallOptions): Promise<ResponseOf<S, M>> {
    if (this.closed) return Promise.reject(clientError(grpc.status.CANCELLED, 'the client is closed'));
    const budget = checkMs(opts.timeoutMs ?? this.callTimeoutMs, 'timeoutMs');
    const end = performance.now() + budget;
    const hedgeAfter = Math.min(this.attemptTimeoutMs, Math.max(MIN_ATTEMPT_MS, budget / 4));
    const n = this.addresses.length;
    const first = this.preferLeader ? this.routing.start(this.current) : this.current;
    const cancel = new AbortController();
    const stop = (): void => cancel.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', stop, { once: true });
    return new Promise<ResponseOf<S, M>>((resolve, reject) => {
      let launched = 0;
      let failed = 0;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (err: unknown, res?: ResponseOf<S, M>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', stop);
        cancel.abort(); // the other attempts
        if (err) reject(err);
        else resolve(res as ResponseOf<S, M>);
      };
      const launch = (): void => {
        clearTimeout(timer);
        const left = end - performance.now();
        if (settled || launched >= n || left <= 0) return;
        const idx = (first + launched) % n;
        launched++;
        this.attemptKeepAlive(idx, service, method, req, left, cancel.signal).then((res) => {
          this.current = idx;
          finish(null, res);
        }, (e) => {
          const code = (e as grpc.ServiceError).code;
          if (code !== grpc.status.UNAVAILABLE && code !== grpc.status.DEADLINE_EXCEEDED) {
            finish(settled ? null : e);
            return;
          }
          this.moveOn(idx, answeredUnavailable(e));
          if (++failed >= launched && (launched >= n || performance.now() >= end)) finish(e);
          else launch(); // unreachable or out of time: the next one now
        });
        if (launched < n) timer = setTimeout(launch, hedgeAfter);
      };
      launch();
    });
  }

  /**
   * One attempt of a hedged call at endpoint idx; a keepalive on the endpoint's stream, or unary (no streams, or a
   * node without them).
   */
  private async attemptKeepAlive<S extends ServiceName, M extends Method<S>>(idx: number, service: S, method: M,
    req: RequestOf<S, M>, ms: number, signal: AbortSignal): Promise<ResponseOf<S, M>> {
    if (!this.streamKeepalives || this.unaryOnly.has(idx) || service !== 'Lease' || method !== 'KeepAlive') {
      return this.attempt(idx, service, method, req, ms, signal);
    }
    const id = Number((req as RequestOf<'Lease', 'KeepAlive'>).id);
    let st = this.streams.get(idx);
    if (!st || st.failed) {
      st = new KeepAliveStream(this.stubs[idx].Lease, (md) => this.hint(idx, md));
      this.streams.set(idx, st);
    }
    try {
      const answer: ResponseOf<'Lease', 'KeepAlive'> = { id, ttl_ms: await st.keepAlive(id, Math.ceil(ms), signal),
        code: 0, message: '', tag: 0, node_clock_ms: 0, node: '', node_started_ms: 0 };
      return answer as ResponseOf<S, M>;
    } catch (e) {
      if (!hasCode(e, grpc.status.UNIMPLEMENTED)) throw e;
      this.unaryOnly.add(idx); // a node of an older version: unary keepalives from now on
      return this.attempt(idx, service, method, req, ms, signal);
    }
  }

  /** One attempt of method M of service S at endpoint idx, within `ms`; its hints go to the routing. */
  private attempt<S extends ServiceName, M extends Method<S>>(idx: number, service: S, method: M,
    req: RequestOf<S, M>, ms: number, signal?: AbortSignal): Promise<ResponseOf<S, M>> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(clientError(grpc.status.CANCELLED, `${service}.${method} cancelled: ${String(signal.reason)}`));
        return;
      }
      // The one dynamic lookup: M is a method of S's stub (Method<S>), called with its request and callback.
      const stub = this.stubs[idx][service] as unknown as Record<string, UnaryMethod<RequestOf<S, M>, ResponseOf<S, M>>>;
      let seen = false;
      let cancelled = false;
      const onAbort = (): void => {
        cancelled = true;
        call.cancel();
      };
      const end = performance.now() + ms;
      const call = stub[method](req, new grpc.Metadata(), { deadline: Date.now() + Math.ceil(ms) },
        (err, res) => {
          signal?.removeEventListener('abort', onAbort);
          if (err && err.code === grpc.status.CANCELLED && !cancelled && performance.now() >= end - 20) {
            // the server ended the call at the deadline it was sent (a campaign withdrawn), before our own timer
            reject(clientError(grpc.status.DEADLINE_EXCEEDED, `${service}.${method}: deadline of ${Math.ceil(ms)} ms `
              + `exceeded (${err.details})`));
          } else if (err) reject(err);
          else resolve(res as ResponseOf<S, M>);
        });
      call.on('metadata', (md: grpc.Metadata) => {
        seen = true;
        this.hint(idx, md);
      });
      call.on('status', (s: grpc.StatusObject) => {
        if (!seen) this.hint(idx, s.metadata);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function lessor(c: RegentClient) {
  return {
    keepAlive: (id: number, timeoutMs: number) => c.keepAlive(id, { timeoutMs }),
    revoke: (id: number) => c.revoke(id),
  };
}

/** A client over `endpoints` ("h1:p1,h2:p2" or an array); see RegentClient. */
export function connect(endpoints: string | readonly string[], options?: ClientOptions): RegentClient {
  return new RegentClient(endpoints, options);
}
