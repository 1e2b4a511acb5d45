import { status } from '@grpc/grpc-js';
import type * as grpc from '@grpc/grpc-js';
import { fullJitter } from './backoff';
import { hasCode } from './errors';
import type { ServiceName, Stubs } from './proto';
import type { ObserveResponse__Output as ObserveResponse } from './generated/regent/v1/ObserveResponse';
import { key } from './types';
import type { LeaderKey } from './types';

/** @internal What observe() uses of a RegentClient: its endpoints, their stubs, and moving on between them. */
export interface ObserveClient {
  readonly isClosed: boolean;
  currentEndpoint(): number;
  stub<S extends ServiceName>(i: number, service: S): Stubs[S];
  hint(i: number, md: grpc.Metadata | undefined): void;
  moveOn(failed: number): void;
}

/** Base of the full-jitter pause before reopening a failed stream, ms; its cap doubles up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

/** One ownership change (or, first, the current state) of an observed name. */
export interface ObserveEvent {
  kind: 'CURRENT' | 'ELECTED' | 'PROCLAIMED' | 'RESIGNED' | 'EXPIRED' | 'REVOKED' | 'TOKEN_REFRESHED';
  name: string;
  /** The holder after the change; undefined when the name became free. */
  leader?: LeaderKey;
  /** Log index of the entry that made the change (CURRENT: the applied index it was read at). */
  index: number;
  /**
   * Position of the change among this name's changes in that entry: 1, 2, ... (one entry can change a name more
   * than once: RESIGNED then ELECTED); 0 for CURRENT, which stands for the whole entry.
   */
  ordinal: number;
  /** True when the resumption point was older than the node's history: this is the current state instead. */
  compacted: boolean;
}

/** Options of observe(). */
export interface ObserveOptions {
  /** Resume after this log index (an event's index); 0 (default) starts with the current holder. */
  after?: number;
  /** Aborting it ends the iteration. */
  signal?: AbortSignal;
}

/** @internal A pause of `ms` before reopening a stream, ended early when `signal` aborts. */
export function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms); // a backoff before reopening, not a synchronisation
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** @internal see RegentClient.observe */
export async function* observe(client: ObserveClient, name: string, opts: ObserveOptions): AsyncGenerator<ObserveEvent> {
  let last = opts.after ?? 0;
  let lastOrdinal = 0; // 0: the whole entry `last`
  // whether e comes after the last event delivered
  const later = (e: ObserveEvent): boolean =>
    e.index !== last ? e.index > last : lastOrdinal !== 0 && e.ordinal > lastOrdinal;
  let failures = 0; // consecutive reopenings without an event
  const signal = opts.signal;
  while (!signal?.aborted && !client.isClosed) {
    const idx = client.currentEndpoint();
    const stream = client.stub(idx, 'Election').Observe({ name, after_index: last, after_ordinal: lastOrdinal });
    let seen = false;
    stream.on('metadata', (md: grpc.Metadata) => {
      seen = true;
      client.hint(idx, md);
    });
    stream.on('status', (s: grpc.StatusObject) => {
      if (!seen) client.hint(idx, s.metadata);
    });
    const cancel = (): void => stream.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      for await (const m of stream) {
        const r = m as ObserveResponse;
        const e: ObserveEvent = { kind: r.kind, name: r.name, leader: r.leader ? key(r.leader) : undefined,
          index: r.index, ordinal: r.ordinal ?? 0, compacted: r.compacted };
        const isLater = later(e);
        if (!isLater && !e.compacted) continue; // already delivered before a reopen
        if (isLater) { // a compacted state from a node behind this one moves nothing back
          last = e.index;
          lastOrdinal = e.ordinal;
        }
        failures = 0;
        yield e;
      }
    } catch (e) {
      if (signal?.aborted || client.isClosed) return;
      if (hasCode(e, status.INVALID_ARGUMENT)) throw e;
      // the node died, hung (found by the connection keepalive) or refused: reopen elsewhere
    } finally {
      signal?.removeEventListener('abort', cancel);
      stream.cancel();
    }
    client.moveOn(idx); // a node that shuts down ends its streams
    await wait(fullJitter(failures++, FIRST_BACKOFF_MS, MAX_BACKOFF_MS), signal);
  }
}
