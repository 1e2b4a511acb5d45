// Loads regent.v1 from the proto that the build copies from api/src/main/proto (never a hand-made fork), typed by
// the declarations that the build generates from that same proto (@grpc/proto-loader's proto-loader-gen-types, into
// src/generated: see package.json's "build"), so that a call names a method the service has, sends the fields its
// request has and reads the fields its response has, checked by the compiler.
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { ProtoGrpcType } from './generated/regent';

/** Where the build put regent.proto: ./proto/regent/v1 beside dist/. */
export const PROTO_DIR = path.resolve(__dirname, '..', '..', 'proto');

/** The loader's options; the type generator runs with the same ones (package.json's "build"). */
const definition = protoLoader.loadSync('regent/v1/regent.proto', {
  includeDirs: [PROTO_DIR],
  keepCase: true,
  longs: Number, // log indexes and lease ids: exact up to 2^53
  enums: String,
  defaults: true,
  oneofs: true,
});

const v1 = (grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType).regent.v1;

type V1 = ProtoGrpcType['regent']['v1'];

/** The services this client calls. */
export type ServiceName = 'Lease' | 'Election' | 'Lock' | 'Cluster' | 'Ledger';

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
};
