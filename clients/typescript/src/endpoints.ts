import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { services } from './proto';
import type { ServiceName, Stubs } from './proto';
import { LeaderRouting, hintOf } from './routing';
import { checkMs } from './validate';
import { KeepAliveStream } from './stream';
import { Namespace } from './namespace';
import { tlsCredentials } from './tls';
import type { ClientOptions } from './types';

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
 * The endpoints of a RegentClient (client.ts): one channel and stubs per endpoint, the one calls start at, the
 * leader-aware routing that names the Raft leader's (docs/api.md, "Leader-aware routing"), and the endpoints
 * learnt from MemberList when given exactly one (discoverEndpoints). Its options are the client's.
 */
export class Endpoints {
  protected readonly addresses: string[];
  protected readonly stubs: Stubs[];
  private readonly channels: grpc.Channel[];
  private readonly creds: grpc.ChannelCredentials;
  private readonly channelOptions: grpc.ChannelOptions;
  private readonly discover: boolean;
  /** Whether MemberList should be read (again): at first, after a new term, after an incomplete list. */
  private syncWanted: boolean;
  private syncing = false;
  private nextSync = 0;
  protected readonly routing: LeaderRouting;
  protected readonly callTimeoutMs: number;
  protected readonly attemptTimeoutMs: number;
  protected readonly campaignTimeoutMs: number;
  protected readonly preferLeader: boolean;
  protected readonly ns: Namespace;
  protected current = 0;
  protected closed = false;
  protected readonly streamKeepalives: boolean;
  /** Endpoint index to its open keepalive stream. */
  protected readonly streams = new Map<number, KeepAliveStream>();
  /** Endpoints whose node has no KeepAliveStream (an older version): unary keepalives there. */
  protected readonly unaryOnly = new Set<number>();

  /**
   * Connects lazily to `endpoints` ("h1:p1,h2:p2" or an array).
   * @throws RangeError for no endpoint or one that is not host:port, or a bad option; TypeError for TLS files
   *   that do not go together or cannot be read (tlsCredentials)
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
    this.creds = options.credentials ?? tlsCredentials(options);
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

  // ---- internals (used by keeper, observe, ownership) ------------------------------------------------

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
}
