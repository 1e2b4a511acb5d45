import { status } from '@grpc/grpc-js';
import type * as grpc from '@grpc/grpc-js';
import { clientError } from './errors';
import type { LeaderKey__Output } from './generated/regent/v1/LeaderKey';

// The types that the client's modules share (client, holder, observe): a leaf of the import tree, so that
// client.ts imports the modules below it and none of them imports client.ts.

/** The holder of a name: `token` is the fencing token (log index of the entry that granted ownership). */
export interface LeaderKey {
  name: string;
  value: Buffer;
  token: number;
  lease: number;
}

/** A lease's TTL and what is left of it, as the Raft leader measures it. */
export interface TimeToLive {
  id: number;
  ttlMs: number;
  remainingMs: number;
  names: string[];
}

/** A cluster member: Raft address and published API address (empty until published), both host:port. */
export interface Member {
  id: string;
  address: string;
  apiAddress: string;
  role: 'VOTER' | 'LEARNER';
}

/** One node's view of the cluster (Cluster.Status). */
export interface ClusterStatus {
  /** The answering node's id. */
  node: string;
  /** The Raft leader's id; empty when none is known. */
  leader: string;
  term: number;
  commitIndex: number;
  appliedIndex: number;
  members: Member[];
  /** The answering node's Raft role. */
  role: string;
  version: string;
  /** Size of the node's state file, bytes (0 when unknown). */
  dbSizeBytes: number;
}

/** A group's whole assignment (Group.Status; docs/ownership.md). */
export interface GroupStatus {
  group: string;
  /** The group's partition count. */
  partitions: number;
  /** The applied index it was read at. */
  index: number;
  members: { member: string; lease: number; joinedIndex: number }[];
  /** Per partition: its owner ('' when free), the owner's fencing token, and `next` while a move waits. */
  owners: { partition: number; owner: string; token: number; next: string }[];
}

/** Options of a single call. */
export interface CallOptions {
  /** Deadline of the whole call, failovers included, ms; default the client's callTimeoutMs. */
  timeoutMs?: number;
  /** Aborting it cancels the call (it rejects with CANCELLED). */
  signal?: AbortSignal;
}

/** Options of a lease grant. */
export interface GrantOptions extends CallOptions {
  /**
   * The tenant (or any name of it, in this client's namespace) whose cell holds the lease, on a cluster of several
   * cells (docs/architecture.md §14): a lease holds names of its own cell only. Default '' (cell 0, as on a cluster
   * of one cell).
   */
  tenant?: string;
}

/** Options of a client. Every duration is in milliseconds. */
export interface ClientOptions {
  /** Deadline of each unary call, failovers included; default 15 000 (etcd's --command-timeout). */
  callTimeoutMs?: number;
  /** Longest single attempt of a call that is safe to repeat at another endpoint; default 5 000. */
  attemptTimeoutMs?: number;
  /** How long a blocking campaign or lock waits to be elected; default 3 600 000. */
  campaignTimeoutMs?: number;
  /** Start writes and linearizable reads at the Raft leader named by the replies; default true. */
  preferLeader?: boolean;
  /** gRPC keepalive ping interval on connections with calls in flight; default 10 000. */
  keepaliveTimeMs?: number;
  /** How long a ping may go unanswered before the connection is dead; default 5 000. */
  keepaliveTimeoutMs?: number;
  /**
   * Channel credentials; default tlsCredentials() of `cacert`, `cert` and `key` (tls.ts): TLS from the files or
   * $REGENT_CACERT/$REGENT_CERT/$REGENT_KEY as the regent CLI reads them, plaintext without a CA certificate.
   */
  credentials?: grpc.ChannelCredentials;
  /** PEM file of the CA certificate that makes the client use TLS; default $REGENT_CACERT. */
  cacert?: string;
  /** PEM file of this client's certificate, for mutual TLS (with `key`); default $REGENT_CERT. */
  cert?: string;
  /** PEM file of the key of `cert`; default $REGENT_KEY. */
  key?: string;
  /**
   * Learn the other members' API addresses from MemberList after the first reply and after a new term (etcd's
   * auto-sync); default true when given exactly one endpoint, false for a list (proxies, a subset).
   */
  discoverEndpoints?: boolean;
  /**
   * Send keepalives on one Lease/KeepAliveStream per endpoint (etcd's LeaseKeepAlive), as the Java client does
   * by default; unary KeepAlive calls for a node without it, or with false. Default true.
   */
  streamKeepalives?: boolean;
  /**
   * A prefix for every name this client sends (elect, lock, campaign, leader, observe...), removed from every
   * name it returns, e.g. 'team-a/' (namespace.ts); default none.
   */
  namespace?: string;
}

/**
 * A LeaderKey from its protobuf message (as @grpc/proto-loader decodes it, defaults filled). A message field a
 * server left out decodes as null: an answer that must carry a key and does not is an INTERNAL error, not a key
 * of undefined fields.
 */
export function key(k: LeaderKey__Output | null): LeaderKey {
  if (k === null) throw clientError(status.INTERNAL, 'the answer lacks its leader key');
  return { name: k.name, value: k.value, token: k.token, lease: k.lease };
}
