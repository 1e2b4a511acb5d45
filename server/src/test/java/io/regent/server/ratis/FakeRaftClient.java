package io.regent.server.ratis;

import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.api.AsyncApi;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;

/** A Ratis client for tests whose every async request returns the future {@code replies} gives. */
final class FakeRaftClient {
  private FakeRaftClient() {
  }

  static RaftClient answering(Supplier<CompletableFuture<RaftClientReply>> replies) {
    return sending(msg -> replies.get());
  }

  /** A client whose every async request returns what {@code replies} gives for its message. */
  static RaftClient sending(Function<Message, CompletableFuture<RaftClientReply>> replies) {
    AsyncApi async = (AsyncApi) Proxy.newProxyInstance(AsyncApi.class.getClassLoader(), new Class<?>[] {AsyncApi.class},
        (proxy, method, args) -> replies.apply((Message) args[0]));
    return (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(), new Class<?>[] {RaftClient.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "async" -> async;
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> null;
        });
  }
}
