package io.regent.server.ratis;

import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.api.AsyncApi;
import org.apache.ratis.protocol.RaftClientReply;

/** A Ratis client for tests whose every async request returns the future {@code replies} gives. */
final class FakeRaftClient {
  private FakeRaftClient() {
  }

  static RaftClient answering(Supplier<CompletableFuture<RaftClientReply>> replies) {
    AsyncApi async = (AsyncApi) Proxy.newProxyInstance(AsyncApi.class.getClassLoader(), new Class<?>[] {AsyncApi.class},
        (proxy, method, args) -> replies.get());
    return (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(), new Class<?>[] {RaftClient.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "async" -> async;
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> null;
        });
  }
}
