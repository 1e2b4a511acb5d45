package io.regent.server.rpc;

import java.util.function.Function;

/**
 * What the API's interceptors need to know of one gRPC method the node serves, declared in {@link MethodRules}.
 *
 * @param lane the admission lane (docs/architecture.md §7.2)
 * @param right the right a caller needs ({@code io.regent.server.security.Authorizer}), or null when every
 *     caller may call it (health checks, reflection)
 * @param nameOf the name a request acts on, which the right is checked on; null when the method names none
 * @param renewsLeases whether the method renews leases (KeepAlive, KeepAliveMany, KeepAliveStream): the
 *     per-identity request rate does not count them, since an identity's live leases bound them already
 */
public record MethodRule(Lane lane, Right right, Function<Object, String> nameOf, boolean renewsLeases) {
  /** Whether every caller may call the method, with or without a right. */
  public boolean open() {
    return right == null;
  }
}
