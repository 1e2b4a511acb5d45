import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import type { Method, RequestOf, ResponseOf, ServiceName } from './proto';
import { answeredUnavailable, clientError, hasCode } from './errors';
import { checkMs } from './validate';
import { Endpoints } from './endpoints';
import { KeepAliveStream } from './stream';
import type { CallOptions } from './types';

/** A generated stub's unary method, as attempt() calls it. */
type UnaryMethod<Req, Res> = (req: Req, md: grpc.Metadata, options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>) => grpc.ClientUnaryCall;

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
export function requestId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * How a RegentClient sends a unary call over its endpoints (docs/api.md's table): from the leader's endpoint or the
 * current one, moved on after UNAVAILABLE and re-sent after DEADLINE_EXCEEDED within the call's budget, or hedged
 * (keepalives); each attempt's reply metadata goes to the routing.
 */
export class Calls extends Endpoints {
  /**
   * Runs one unary RPC from the leader's (or current) endpoint on: the next endpoint after UNAVAILABLE, and
   * after DEADLINE_EXCEEDED (the same request: its request id too), until the budget is used up.
   */
  protected async call<S extends ServiceName, M extends Method<S>>(service: S, method: M, req: RequestOf<S, M>,
    opts: CallOptions, route: Route): Promise<ResponseOf<S, M>> {
    if (this.closed) throw clientError(grpc.status.CANCELLED, 'the client is closed');
    const budget = checkMs(opts.timeoutMs ?? this.callTimeoutMs, 'timeoutMs');
    const end = performance.now() + budget;
    const n = this.addresses.length; // endpoints learnt during the call are tried by the next one
    let last: unknown;
    this.leaveQuietLeader();
    for (let i = 0; i < n; i++) {
      const idx = i === 0 && route.toLeader && this.preferLeader ? this.routing.start(this.current) : this.current;
      const left = end - performance.now();
      if (left <= 0) break;
      let attemptMs = left;
      if (!route.wholeBudget && i < n - 1 && left > 2 * MIN_ATTEMPT_MS) {
        attemptMs = Math.min(this.attemptTimeoutMs, Math.max(MIN_ATTEMPT_MS, left / 2));
      }
      // only calls that answer promptly: a blocking campaign waits at the leader while its name is held
      const ticket = route.toLeader && !route.wholeBudget && idx === this.routing.leader()
        ? this.routing.sent(idx) : -1;
      try {
        return await this.attempt(idx, service, method, req, attemptMs, opts.signal);
      } catch (e) {
        const code = (e as grpc.ServiceError).code;
        if (code !== grpc.status.UNAVAILABLE && code !== grpc.status.DEADLINE_EXCEEDED) throw e;
        this.moveOn(idx, answeredUnavailable(e)); // the next call starts elsewhere too
        if (performance.now() >= end) throw e;
        last = e;
      } finally {
        if (ticket >= 0) this.routing.done(ticket);
      }
    }
    throw last ?? clientError(grpc.status.DEADLINE_EXCEEDED, `no time left for ${service}.${method}`);
  }

  /**
   * A call to the leader's endpoint has gone LEADER_QUIET_MS unanswered (routing.ts): the leader is suspect, and when
   * it is the current endpoint too the calls start at the next one (a frozen node forwards nothing).
   */
  private leaveQuietLeader(): void {
    const idx = this.routing.quiet();
    if (idx >= 0 && this.current === idx) this.current = (idx + 1) % this.addresses.length;
  }

  /** Runs a repeatable call on several endpoints at once, staggered (see keepAlive); the first answer wins. */
  protected hedged<S extends ServiceName, M extends Method<S>>(service: S, method: M, req: RequestOf<S, M>,
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
