import { status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';

/** The reason an elect/lock holder's signal fired: the lease is in doubt (suspended) or lost for good. */
export class LeadershipError extends Error {
  /** True when the lease is lost for good; false while merely in doubt (suspended, may resume). */
  readonly lost: boolean;

  constructor(message: string, lost: boolean) {
    super(message);
    this.name = 'LeadershipError';
    this.lost = lost;
  }
}

/** Whether `e` is a gRPC error with status `code` (a value of `status`, e.g. status.NOT_FOUND). */
export function hasCode(e: unknown, code: status): e is ServiceError {
  return typeof e === 'object' && e !== null && (e as ServiceError).code === code;
}

/** A gRPC-shaped error made on the client side (deadline used up before a call, a cancelled wait). */
export function clientError(code: status, details: string): ServiceError {
  const e = new Error(`${code} ${status[code]}: ${details}`) as ServiceError;
  e.code = code;
  e.details = details;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (e as any).metadata = undefined;
  return e;
}
