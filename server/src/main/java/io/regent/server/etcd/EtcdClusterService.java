package io.regent.server.etcd;

import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.Member;
import io.etcd.jetcd.api.MemberListRequest;
import io.etcd.jetcd.api.MemberListResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Map;

/**
 * etcd's {@code etcdserverpb.Cluster}: MemberList from Regent's Raft membership ({@code Cluster.MemberList}, read
 * after a leadership confirmation). A member's {@code ID} is {@link Headers#memberId} of its Regent id, its
 * {@code name} that id, its peer URL {@code http://} + its Raft address, its client URL {@code http://} + its etcd
 * port's address as the member itself reports it ({@link ClientUrls}); a member that does not answer within
 * {@link ClientUrls#TIMEOUT_MS}, or serves no etcd port, is listed with no client URL, as etcd lists a member that
 * has not started. MemberAdd, MemberRemove and MemberUpdate are UNIMPLEMENTED, the description naming the call:
 * membership changes go through Regent's own API ({@code regent member}, docs/operations.md).
 */
final class EtcdClusterService extends ClusterGrpc.ClusterImplBase {
  private final Headers headers;

  EtcdClusterService(Headers headers) {
    this.headers = headers;
  }

  @Override
  public void memberList(MemberListRequest req, StreamObserver<MemberListResponse> obs) {
    Upstream.current().cluster().memberList(io.regent.api.v1.MemberListRequest.getDefaultInstance(),
        new StreamObserver<>() {
          @Override
          public void onNext(io.regent.api.v1.MemberListResponse r) {
            ClientUrls.of(r.getMembersList()).thenAccept(urls -> {
              obs.onNext(answer(r.getMembersList(), urls));
              obs.onCompleted();
            });
          }

          @Override
          public void onError(Throwable t) {
            obs.onError(t); // Regent's status as it is: no leader, unavailable
          }

          @Override
          public void onCompleted() {
          }
        });
  }

  private MemberListResponse answer(List<io.regent.api.v1.Member> members, Map<String, String> urls) {
    MemberListResponse.Builder b = MemberListResponse.newBuilder().setHeader(headers.at(0));
    for (io.regent.api.v1.Member m : members) {
      Member.Builder e = Member.newBuilder().setID(Headers.memberId(m.getId())).setName(m.getId())
          .addPeerURLs("http://" + m.getAddress())
          .setIsLearner(m.getRole() == io.regent.api.v1.Member.Role.LEARNER);
      String client = urls.getOrDefault(m.getId(), "");
      if (!client.isEmpty()) {
        e.addClientURLs("http://" + client);
      }
      b.addMembers(e);
    }
    return b.build();
  }
}
