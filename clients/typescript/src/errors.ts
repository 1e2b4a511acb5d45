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

/**
 * A refusal a node sent as a stream's message (a keepalive's verdict) rather than as a call's status: the node is
 * alive and answering, which answeredUnavailable() tells.
 */
export function nodeRefusal(code: status, details: string): ServiceError {
  const e = clientError(code, details);
  (e as ServiceError & { answeredByNode?: boolean }).answeredByNode = true;
  return e;
}

/**
 * Whether `e` is an UNAVAILABLE that a Regent node answered itself (a stream's message, or a status whose trailers
 * name the node: `regent-node`), not the transport's (unreachable, connection lost). Only the transport's makes the
 * leader's endpoint suspect: a new leader that refuses keepalives while it becomes ready stays the leader calls
 * start at — on a keepalive stream, whose messages carry no headers, a passed-over leader was never seen answering
 * again (docs/api.md, "Leader-aware routing").
 */
export function answeredUnavailable(e: unknown): boolean {
  if (!hasCode(e, status.UNAVAILABLE)) return false;
  if ((e as ServiceError & { answeredByNode?: boolean }).answeredByNode) return true;
  const md = (e as ServiceError).metadata;
  return md !== undefined && md !== null && md.get('regent-node').length > 0;
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
