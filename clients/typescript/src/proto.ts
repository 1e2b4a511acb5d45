// Loads regent.v1 from the proto that the build copies from api/src/main/proto (never a hand-made fork).
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** Where the build put regent.proto: ./proto/regent/v1 beside dist/. */
export const PROTO_DIR = path.resolve(__dirname, '..', '..', 'proto');

const definition = protoLoader.loadSync('regent/v1/regent.proto', {
  includeDirs: [PROTO_DIR],
  keepCase: true,
  longs: Number, // log indexes and lease ids: exact up to 2^53
  enums: String,
  defaults: true,
  oneofs: true,
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const v1 = (grpc.loadPackageDefinition(definition) as any).regent.v1;

/** The generated service constructors, by service name. */
export type ServiceName = 'Lease' | 'Election' | 'Lock' | 'Cluster' | 'Ledger';
export const services: Record<ServiceName, grpc.ServiceClientConstructor> = {
  Lease: v1.Lease,
  Election: v1.Election,
  Lock: v1.Lock,
  Cluster: v1.Cluster,
  Ledger: v1.Ledger,
};
