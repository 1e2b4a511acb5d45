package io.regent.server.security;

import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import java.io.IOException;
import java.util.Optional;
import org.apache.ratis.conf.Parameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node's {@link Security} settings become at start: the API's credentials, the Ratis parameters of
 * the Raft port and the authorization interceptor. Loads and checks every file once, so that a bad
 * certificate or permissions file stops the node at start with a message naming the file.
 */
public final class NodeSecurity {
  private static final Logger LOG = LoggerFactory.getLogger(NodeSecurity.class);

  private final ServerCredentials api;
  private final Parameters raft;
  private final Authorizer authorizer;

  private NodeSecurity(ServerCredentials api, Parameters raft, Authorizer authorizer) {
    this.api = api;
    this.raft = raft;
    this.authorizer = authorizer;
  }

  /**
   * Loads {@code security} and logs what it protects.
   *
   * @throws IOException when a PEM file cannot be read or parsed, or the permissions file cannot be read
   * @throws IllegalArgumentException for a bad line of the permissions file ({@code FILE:LINE: ...})
   */
  public static NodeSecurity load(Security security, String nodeId) throws IOException {
    ServerCredentials api = InsecureServerCredentials.create();
    if (security.api() != null) {
      try {
        api = TlsCredentials.api(security.api());
      } catch (IOException | IllegalArgumentException e) {
        throw new IOException("cannot load the API's TLS files (" + security.api().cert() + ", "
            + security.api().key() + "): " + e.getMessage(), e);
      }
    }
    Parameters raft = security.peer() == null ? new Parameters() : TlsCredentials.peer(security.peer());
    Authorizer authorizer = null;
    if (security.permissions() != null) {
      Permissions p = Permissions.load(security.permissions());
      authorizer = new Authorizer(p);
      LOG.info("node {}: {} permission rules from {}", nodeId, p.size(), security.permissions());
      if (security.api() == null || security.api().ca() == null) {
        LOG.warn("node {}: a permissions file without client certificates (--tls-ca): every caller is "
            + "anonymous and only '*' rules apply", nodeId);
      }
    } else {
      LOG.warn("node {}: no permissions file: every caller may make every call (campaign, resign, revoke any "
          + "lease, ...); see docs/security.md", nodeId);
    }
    LOG.info("node {}: API {}, Raft peers {}", nodeId, describe(security.api()), describe(security.peer()));
    return new NodeSecurity(api, raft, authorizer);
  }

  private static String describe(TlsFiles tls) {
    if (tls == null) {
      return "in plaintext";
    }
    return tls.clientCertAuth() ? "over mutual TLS" : "over TLS";
  }

  /** Credentials of the public API (plaintext when no API TLS is set). */
  public ServerCredentials apiCredentials() {
    return api;
  }

  /** Ratis parameters for the node's Raft server and its Raft clients (empty when peers talk plaintext). */
  public Parameters raftParameters() {
    return raft;
  }

  /** The permission check of the public API, when a permissions file is set. */
  public Optional<ServerInterceptor> authorizer() {
    return Optional.ofNullable(authorizer);
  }
}
