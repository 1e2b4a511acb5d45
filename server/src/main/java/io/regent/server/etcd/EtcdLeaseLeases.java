package io.regent.server.etcd;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Empty;
import io.etcd.jetcd.api.ResponseHeader;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LeaseLeasesRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * etcd's {@code etcdserverpb.Lease/LeaseLeases} (etcd 3.3 and later; {@code etcdctl lease list}), which the service
 * definitions jetcd ships leave out. Its request is an empty message; its answer,
 * {@code LeaseLeasesResponse {ResponseHeader header = 1; repeated LeaseStatus leases = 2;}} with
 * {@code LeaseStatus {int64 ID = 1;}}, is written here field by field: three fields do not need a generated class,
 * and generating one would add protoc to this module's build (only the api and ratis-statemachine modules run it)
 * for a message whose header is jetcd's class. The list is a linearizable read of Regent's leases.
 */
final class EtcdLeaseLeases {
  private static final String SERVICE = "etcdserverpb.Lease";
  private static final int HEADER = 1;
  private static final int LEASES = 2;
  private static final int ID = 1;

  private EtcdLeaseLeases() {
  }

  /** The lease ids and header of one answer. */
  record Leases(ResponseHeader header, List<Long> ids) {
  }

  /** {@code lease}, the service jetcd's stubs define, with LeaseLeases added. */
  static ServerServiceDefinition addedTo(ServerServiceDefinition lease, Headers headers) {
    MethodDescriptor<Empty, Leases> method = MethodDescriptor.<Empty, Leases>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "LeaseLeases"))
        .setRequestMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
        .setResponseMarshaller(new Marshaller())
        .build();
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(SERVICE);
    lease.getMethods().forEach(b::addMethod);
    return b.addMethod(method, ServerCalls.asyncUnaryCall((Empty req, StreamObserver<Leases> obs) ->
        Upstream.current().lease().leases(LeaseLeasesRequest.getDefaultInstance(), AnswerRelay.unary(obs,
            r -> new Leases(headers.at(r.getAppliedIndex()), r.getLeasesList().stream().map(LeaseInfo::getId)
                .toList()))))).build();
  }

  /** Writes an answer in etcd's wire format; the gateway never reads one. */
  private static final class Marshaller implements MethodDescriptor.Marshaller<Leases> {
    @Override
    public InputStream stream(Leases value) {
      try {
        byte[] header = value.header().toByteArray();
        int size = CodedOutputStream.computeTagSize(HEADER) + CodedOutputStream.computeUInt32SizeNoTag(header.length)
            + header.length;
        for (long id : value.ids()) {
          int status = CodedOutputStream.computeInt64Size(ID, id);
          size += CodedOutputStream.computeTagSize(LEASES) + CodedOutputStream.computeUInt32SizeNoTag(status) + status;
        }
        byte[] bytes = new byte[size];
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeByteArray(HEADER, header);
        for (long id : value.ids()) {
          out.writeTag(LEASES, com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED);
          out.writeUInt32NoTag(CodedOutputStream.computeInt64Size(ID, id));
          out.writeInt64(ID, id);
        }
        out.checkNoSpaceLeft();
        return new ByteArrayInputStream(bytes);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public Leases parse(InputStream stream) {
      throw new UnsupportedOperationException("the gateway only answers LeaseLeases");
    }
  }
}
