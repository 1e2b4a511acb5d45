// Loads regent.v1 from the protos that the build copies from api/src/main/proto (regent.proto, and group.proto for
// ownership groups) (never a hand-made fork), typed by
// the declarations that the build generates from that same proto (@grpc/proto-loader's proto-loader-gen-types, into
// src/generated: see package.json's "build"), so that a call names a method the service has, sends the fields its
// request has and reads the fields its response has, checked by the compiler.
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { ProtoGrpcType as GroupGrpcType } from './generated/group';
import type { ProtoGrpcType as RegentGrpcType } from './generated/regent';

/** Where the build put the protos: ./proto/regent/v1 beside dist/. */
export const PROTO_DIR = path.resolve(__dirname, '..', '..', 'proto');

/** The loader's options; the type generator runs with the same ones (package.json's "build"). */
const definition = protoLoader.loadSync(['regent/v1/regent.proto', 'regent/v1/group.proto'], {
  includeDirs: [PROTO_DIR],
  keepCase: true,
  longs: Number, // log indexes and lease ids: exact up to 2^53
  enums: String,
  defaults: true,
  oneofs: true,
});

/** Both files' services of package regent.v1, as their generated types describe them. */
type V1 = RegentGrpcType['regent']['v1'] & GroupGrpcType['regent']['v1'];

const v1 = (grpc.loadPackageDefinition(definition) as unknown as { regent: { v1: V1 } }).regent.v1;

/** The services this client calls. */
export type ServiceName = 'Lease' | 'Election' | 'Lock' | 'Cluster' | 'Ledger' | 'Group';

/** The generated stub of each service. */
export type Stubs = { [S in ServiceName]: InstanceType<V1[S]> };

/** The method names of service S, as the proto spells them ('Grant', 'KeepAlive', ...). */
export type Method<S extends ServiceName> = keyof V1[S]['service'] & string;

/** The request a method takes (every field optional, as protobuf's defaults fill them). */
export type RequestOf<S extends ServiceName, M extends Method<S>> =
  V1[S]['service'][M] extends MethodDefinition<infer Req, infer _Res, infer _ReqOut, infer _ResOut> ? Req : never;

/** The response a method gives (every field present: the loader fills defaults). */
export type ResponseOf<S extends ServiceName, M extends Method<S>> =
  V1[S]['service'][M] extends MethodDefinition<infer _Req, infer _Res, infer _ReqOut, infer Res> ? Res : never;

/** The generated service constructors, by service name. */
export const services: { [S in ServiceName]: V1[S] } = {
  Lease: v1.Lease,
  Election: v1.Election,
  Lock: v1.Lock,
  Cluster: v1.Cluster,
  Ledger: v1.Ledger,
  Group: v1.Group,
};
