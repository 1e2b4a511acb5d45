package io.regent.client;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor.JavaType;
import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A client's namespace ({@link RegentClientBuilder#namespace}): prefixes every name a request carries and removes
 * the prefix from every name a reply carries, so that the caller's code never sees it. Names are the string fields
 * called {@code name}, {@code names} and {@code group} of the {@code regent.v1} messages, at any depth (a
 * {@code LeaderKey} inside a reply, an {@code ObserveResponse}'s holder); the fenced ledger's keys and every other
 * field pass unchanged. Working on the messages at the channel covers every call and recipe (elections, locks,
 * observers, groups, {@link LeaderLatch}, {@link RegentLock}) alike. An empty name stays empty (the server's
 * INVALID_ARGUMENT, not a name equal to the prefix); a reply's name outside the prefix (another namespace's name
 * on a shared lease) comes back as the cluster has it.
 */
final class NamespaceInterceptor implements ClientInterceptor {
  private static final Set<String> NAME_FIELDS = Set.of("name", "names", "group");
  private static final String PACKAGE = "regent.v1.";

  private final String prefix;

  NamespaceInterceptor(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void sendMessage(Q message) {
        super.sendMessage(rewrite(message, true));
      }

      @Override
      public void start(Listener<R> listener, Metadata headers) {
        super.start(new SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onMessage(R message) {
            super.onMessage(rewrite(message, false));
          }
        }, headers);
      }
    };
  }

  /** {@code message} with its names in the cluster's form (toCluster) or the caller's; others unchanged. */
  @SuppressWarnings("unchecked")
  <T> T rewrite(T message, boolean toCluster) {
    if (message instanceof Message m && m.getDescriptorForType().getFullName().startsWith(PACKAGE)) {
      return (T) rename(m, toCluster);
    }
    return message;
  }

  @SuppressWarnings("unchecked")
  private Message rename(Message m, boolean toCluster) {
    Message.Builder b = null;
    for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
      FieldDescriptor f = e.getKey();
      Object value = e.getValue();
      Object renamed;
      if (f.getJavaType() == JavaType.STRING && NAME_FIELDS.contains(f.getName())) {
        renamed = f.isRepeated()
            ? ((List<String>) value).stream().map(s -> name(s, toCluster)).toList()
            : name((String) value, toCluster);
      } else if (f.getJavaType() == JavaType.MESSAGE) {
        renamed = f.isRepeated()
            ? ((List<Message>) value).stream().map(x -> rename(x, toCluster)).toList()
            : rename((Message) value, toCluster);
      } else {
        continue;
      }
      if (!renamed.equals(value)) {
        if (b == null) {
          b = m.toBuilder();
        }
        b.setField(f, renamed);
      }
    }
    return b == null ? m : b.build();
  }

  private String name(String name, boolean toCluster) {
    if (name.isEmpty()) {
      return name;
    }
    if (toCluster) {
      return prefix + name;
    }
    return name.startsWith(prefix) ? name.substring(prefix.length()) : name;
  }
}
