// Regent's TypeScript / Node.js client. See README.md beside package.json.
export { RegentClient, connect, parseEndpoints } from './client';
export type { HoldOptions } from './client';
export type { LeaderKey, TimeToLive, CallOptions, GrantOptions, ClientOptions, ClusterStatus, Member, GroupStatus } from './types';
export { Holder } from './holder';
export { LeaseKeeper } from './keeper';
export { Ownership } from './ownership';
export type { GroupOptions } from './ownership';
export type { KeeperOptions, Lessor } from './keeper';
export type { ObserveEvent, ObserveOptions } from './observe';
export { LedgerClient } from './ledger';
export type { LedgerEntry } from './ledger';
export { LeadershipError, hasCode } from './errors';
export { tlsCredentials } from './tls';
export type { TlsFiles } from './tls';
export { status } from '@grpc/grpc-js';
