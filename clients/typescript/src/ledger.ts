import * as grpc from '@grpc/grpc-js';
import { services } from './proto';
import type { Method, RequestOf, ResponseOf, Stubs } from './proto';
import { checkId, checkMs, checkName, toBytes } from './validate';

/** One entry of a ledger key. */
export interface LedgerEntry {
  position: number;
  token: number;
  entry: Buffer;
}

/**
 * A client of Regent's fenced demo ledger (service regent.v1.Ledger; `regent ledger serve`): an append-only log
 * per key whose appends carry a fencing token. A stale token is refused with FAILED_PRECONDITION, naming the
 * token and the highest one admitted; nothing is stored.
 */
export class LedgerClient {
  private readonly stub: Stubs['Ledger'];
  private readonly timeoutMs: number;

  /** @param address host:port of the ledger; timeoutMs: deadline of each call (default 5 000) */
  constructor(address: string, opts: { timeoutMs?: number; credentials?: grpc.ChannelCredentials } = {}) {
    if (typeof address !== 'string' || !/^.+:\d{1,5}$/.test(address)) {
      throw new RangeError(`ledger address '${String(address)}' is not host:port`);
    }
    this.timeoutMs = checkMs(opts.timeoutMs ?? 5_000, 'timeoutMs');
    this.stub = new services.Ledger(address, opts.credentials ?? grpc.credentials.createInsecure());
  }

  /**
   * Appends `entry` to `key` with fencing token `token` (>= 1); resolves to its position (1 for a key's first
   * entry) and whether an earlier append with the same idempotencyKey answered it (replayed). Rejects with
   * FAILED_PRECONDITION for a stale token, ALREADY_EXISTS for an idempotency key used for another entry.
   */
  append(key: string, token: number, entry: string | Uint8Array,
    opts: { idempotencyKey?: string } = {}): Promise<{ position: number; replayed: boolean }> {
    checkName(key, 'key');
    checkId(token, 'token');
    const req = { key, token, entry: toBytes(entry, 'entry'), idempotency_key: opts.idempotencyKey ?? '' };
    return this.unary('Append', req);
  }

  /** Every entry of `key` in append order (none for a key never appended to). */
  async read(key: string): Promise<LedgerEntry[]> {
    checkName(key, 'key');
    const r = await this.unary('Read', { key });
    return r.entries.map((e) => ({ position: e.position, token: e.token, entry: e.entry }));
  }

  /** Closes the connection. */
  close(): void {
    this.stub.close();
  }

  private unary<M extends Method<'Ledger'>>(method: M, req: RequestOf<'Ledger', M>): Promise<ResponseOf<'Ledger', M>> {
    // The one dynamic lookup: M is a method of the Ledger stub (Method<'Ledger'>), called with its request.
    const stub = this.stub as unknown as Record<string, (req: RequestOf<'Ledger', M>, options: grpc.CallOptions,
      callback: grpc.requestCallback<ResponseOf<'Ledger', M>>) => grpc.ClientUnaryCall>;
    return new Promise((resolve, reject) => {
      stub[method](req, { deadline: Date.now() + this.timeoutMs },
        (err, res) => (err || !res ? reject(err) : resolve(res)));
    });
  }
}
