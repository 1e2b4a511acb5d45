package io.regent.server.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.PrototypeMarshaller;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers a request whose bytes are not a valid message of its method — a {@code string} field holding invalid
 * UTF-8 (proto3 checks it while parsing), truncated or garbled bytes — with INVALID_ARGUMENT, and runs no
 * handler, so nothing changes (docs/architecture.md §7).
 *
 * <p>Why it takes two parts: grpc-java parses a request in {@code ServerCallImpl} before any interceptor or
 * handler sees it, and a parse failure there escapes as an application error ({@code ServerImpl} closes the
 * stream with {@code UNKNOWN: Application error processing RPC}). So {@link #tolerant} gives each method a
 * request marshaller that does not throw on a malformed message but returns a placeholder of the method's own
 * (a distinct, empty instance), and this interceptor refuses the placeholder. Install it with
 * {@code ServerBuilder.intercept} <em>before</em> any other interceptor (it is then the innermost: the others,
 * such as metrics and connection limits, see the refusal like any other, and the call closes through them).
 * An interceptor outside it that reads requests sees the placeholder's empty fields (the permission check
 * reads its name as "").
 */
public final class MalformedRequests implements ServerInterceptor {
  /**
   * {@code service} with request marshallers that return a placeholder instead of failing on a malformed
   * message; methods whose requests are not protobuf messages are left as they are.
   */
  public static ServerServiceDefinition tolerant(BindableService service) {
    return tolerant(service.bindService());
  }

  /** As {@link #tolerant(BindableService)}, for a service definition. */
  public static ServerServiceDefinition tolerant(ServerServiceDefinition service) {
    ServiceDescriptor old = service.getServiceDescriptor();
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
      methods.add(tolerant(m));
    }
    ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(old.getName())
        .setSchemaDescriptor(old.getSchemaDescriptor()); // reflection finds the .proto through it
    methods.forEach(m -> descriptor.addMethod(m.getMethodDescriptor()));
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(descriptor.build());
    methods.forEach(b::addMethod);
    return b.build();
  }

  private static <Q, R> ServerMethodDefinition<Q, R> tolerant(ServerMethodDefinition<Q, R> m) {
    MethodDescriptor<Q, R> d = m.getMethodDescriptor();
    if (!(d.getRequestMarshaller() instanceof PrototypeMarshaller<Q> p)
        || !(p.getMessagePrototype() instanceof Message prototype)) {
      return m;
    }
    @SuppressWarnings("unchecked") // a new instance of the prototype's own class, which is Q
    Q placeholder = (Q) prototype.newBuilderForType().buildPartial();
    MethodDescriptor<Q, R> t = d.toBuilder(new Tolerant<>(p, placeholder), d.getResponseMarshaller()).build();
    return ServerMethodDefinition.create(t, m.getServerCallHandler());
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                     ServerCallHandler<Q, R> next) {
    if (!(call.getMethodDescriptor().getRequestMarshaller() instanceof Tolerant<Q> tolerant)) {
      return next.startCall(call, headers);
    }
    return new SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
      private boolean refused;

      @Override
      public void onMessage(Q message) {
        if (refused) {
          return;
        }
        if (message == tolerant.placeholder) {
          refused = true;
          call.close(Status.INVALID_ARGUMENT.withDescription("malformed request to "
              + call.getMethodDescriptor().getFullMethodName() + ": not a valid "
              + ((Message) message).getDescriptorForType().getFullName()
              + " (a string field that is not UTF-8, or bytes that are not this message)"), new Metadata());
          return;
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        if (!refused) { // the handler never got a request: it must not run
          super.onHalfClose();
        }
      }
    };
  }

  /** Parses as {@code delegate} does, but answers a malformed message with {@code placeholder}. */
  private static final class Tolerant<Q> implements PrototypeMarshaller<Q> {
    private final PrototypeMarshaller<Q> delegate;
    private final Q placeholder;

    Tolerant(PrototypeMarshaller<Q> delegate, Q placeholder) {
      this.delegate = delegate;
      this.placeholder = placeholder;
    }

    @Override
    public InputStream stream(Q value) {
      return delegate.stream(value);
    }

    @Override
    public Q parse(InputStream stream) {
      try {
        return delegate.parse(stream);
      } catch (StatusRuntimeException e) {
        // grpc's protobuf marshaller wraps the parse failure (INTERNAL "Invalid protobuf byte sequence")
        if (e.getCause() instanceof InvalidProtocolBufferException) {
          return placeholder;
        }
        throw e;
      }
    }

    @Override
    public Q getMessagePrototype() {
      return delegate.getMessagePrototype();
    }

    @Override
    public Class<Q> getMessageClass() {
      return delegate.getMessageClass();
    }
  }
}
