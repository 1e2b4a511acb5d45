// Argument checks: bad input is a TypeError or RangeError naming the argument, before anything is sent.

export function checkName(name: unknown, what = 'name'): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new TypeError(`${what} must be a non-empty string, not ${JSON.stringify(name)}`);
  }
  return name;
}

/** A whole number of ms >= min. */
export function checkMs(v: unknown, what: string, min = 1): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw new RangeError(`${what} must be a whole number of milliseconds >= ${min}, not ${String(v)}`);
  }
  return v;
}

/** A lease id or log index: a positive safe integer. */
export function checkId(v: unknown, what: string, min = 1): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw new RangeError(`${what} must be an integer >= ${min}, not ${String(v)}`);
  }
  return v;
}

export function toBytes(v: unknown, what: string): Buffer {
  if (v === undefined) return Buffer.alloc(0);
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (v instanceof Uint8Array) return Buffer.from(v);
  throw new TypeError(`${what} must be a string or a Uint8Array, not ${typeof v}`);
}

/** A group's partition count: 0..65 536 (0: join an existing group; docs/ownership.md, "The rule"). */
export function checkPartitions(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65_536) {
    throw new RangeError(`partitions must be an integer within 0..65536 (0: join an existing group), not ${String(v)}`);
  }
  return v;
}

/** A member id: 1..128 bytes in UTF-8 (docs/ownership.md, "The rule"). */
export function checkMember(v: unknown): string {
  if (typeof v !== 'string') throw new TypeError(`member must be a string, not ${typeof v}`);
  const n = Buffer.byteLength(v, 'utf8');
  if (n < 1 || n > 128) throw new RangeError(`member must be 1..128 bytes in UTF-8, not ${n}`);
  return v;
}
