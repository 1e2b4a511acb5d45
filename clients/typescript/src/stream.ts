import * as grpc from '@grpc/grpc-js';
import { clientError, nodeRefusal } from './errors';
import type { Stubs } from './proto';
import type { LeaseKeepAliveResponse__Output as LeaseKeepAliveResponse } from './generated/regent/v1/LeaseKeepAliveResponse';

/** How long a keepalive stream with nothing to answer stays open, ms (an open call keeps Node's loop alive). */
const IDLE_MS = 30_000;

/**
 * One Lease/KeepAliveStream on one endpoint (etcd's LeaseKeepAlive): each keepalive is one message, matched to
 * its answer by a tag; an answer carries the unary KeepAlive's verdict (code 0 renewed, NOT_FOUND, UNAVAILABLE).
 * The stream fails as a whole when its node stops or its view of the leader changes (its trailers name the
 * new leader); every keepalive waiting on it then fails with that error, and the client opens a new one.
 * Not exported by the package's index, but its declaration ships (it is not marked internal): the client's
 * endpoints declare a protected map of them and a user's strict compile reads that declaration.
 */
export class KeepAliveStream {
  /** Set once the stream has ended: every later keepalive must use a new one. */
  failed?: grpc.ServiceError;
  private readonly call: ReturnType<Stubs['Lease']['KeepAliveStream']>;
  private readonly waiting = new Map<number, { resolve: (ttl: number) => void; reject: (e: unknown) => void;
    timer: NodeJS.Timeout }>();
  private tag = 0;
  private idle?: NodeJS.Timeout;

  constructor(stub: Stubs['Lease'], onMetadata: (md: grpc.Metadata) => void) {
    this.call = stub.KeepAliveStream();
    let seen = false;
    this.call.on('metadata', (md: grpc.Metadata) => {
      seen = true;
      onMetadata(md);
    });
    this.call.on('status', (s: grpc.StatusObject) => {
      if (!seen || s.code !== grpc.status.OK) onMetadata(s.metadata); // a leader change names the new leader here
      this.fail(clientError(s.code === grpc.status.OK ? grpc.status.UNAVAILABLE : s.code,
        s.code === grpc.status.OK ? 'keepalive stream ended by the node' : s.details));
    });
    this.call.on('error', (e: grpc.ServiceError) => this.fail(e));
    this.call.on('data', (r: LeaseKeepAliveResponse) => {
      const w = this.waiting.get(r.tag);
      if (!w) return; // given up on already
      this.waiting.delete(r.tag);
      clearTimeout(w.timer);
      if (r.code === grpc.status.OK) w.resolve(r.ttl_ms);
      else w.reject(nodeRefusal(r.code, r.message));
      this.armIdle();
    });
    this.armIdle();
  }

  /** Renews `lease` within `ms`; resolves to its TTL, ms; rejects with the verdict's or the stream's error. */
  keepAlive(lease: number, ms: number, signal?: AbortSignal): Promise<number> {
    if (this.failed) return Promise.reject(this.failed);
    clearTimeout(this.idle);
    const tag = ++this.tag;
    return new Promise((resolve, reject) => {
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.armIdle();
      };
      const onAbort = (): void => {
        clearTimeout(timer);
        this.waiting.delete(tag);
        done();
        reject(clientError(grpc.status.CANCELLED, `keepalive of lease ${lease} cancelled`));
      };
      const timer = setTimeout(() => {
        this.waiting.delete(tag);
        done();
        reject(clientError(grpc.status.DEADLINE_EXCEEDED, `keepalive of lease ${lease} not answered in ${ms} ms`));
      }, ms);
      this.waiting.set(tag, {
        resolve: (ttl) => { done(); resolve(ttl); },
        reject: (e) => { done(); reject(e); },
        timer,
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.call.write({ id: lease, tag });
    });
  }

  /** Ends the stream; keepalives waiting on it fail with CANCELLED. */
  close(): void {
    this.fail(clientError(grpc.status.CANCELLED, 'keepalive stream closed'));
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    if (this.failed || this.waiting.size > 0) return;
    this.idle = setTimeout(() => {
      if (this.waiting.size === 0) this.close(); // reopened by the next keepalive
    }, IDLE_MS);
  }

  private fail(e: grpc.ServiceError): void {
    if (this.failed) return;
    this.failed = e;
    clearTimeout(this.idle);
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of waiting) {
      clearTimeout(w.timer);
      w.reject(e);
    }
    this.call.cancel();
  }
}
