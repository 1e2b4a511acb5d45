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
