package io.regent.cli.cluster;

import io.regent.cli.Regent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The cli module's shared mutual-TLS cluster, one per test JVM, as {@link SharedClusterUp} is for plaintext:
 * {@code regent certs init --clients admin}, then {@code regent cluster up --tls} (3 {@code regent server}
 * processes serving TLS on both ports and asking clients for a certificate from the CA). The first class of the JVM
 * that asks for it starts it, later classes share it, and it is stopped and removed when the run ends (its nodes'
 * logs kept in {@code target/shared-tls-cluster-up/<pid of the test JVM>/}).
 *
 * <p>Its users ({@code ClusterUpTlsTest}: who is served; {@code ClientInstallTest}: the installed clients'
 * examples over mutual TLS) used to start one each. The same rules as {@link SharedClusterUp}: no class stops,
 * pauses or cuts a node, and each uses names of its own ({@link SharedClusterUp#name}).
 */
public final class SharedTlsClusterUp implements ParameterResolver {
  private static final Namespace NAMESPACE = Namespace.create(SharedTlsClusterUp.class);
  private static final Path LOGS =
      Path.of("target", "shared-tls-cluster-up", String.valueOf(ProcessHandle.current().pid()));

  /**
   * The running cluster and the files a client needs: the CA certificate, and the certificate and key of the
   * client {@code admin} (PEM; key unencrypted PKCS#8).
   */
  public record Tls(ProcessCluster cluster, Path ca, Path cert, Path key) {
    /** The environment the {@code regent} CLI and the clients read TLS from: REGENT_CACERT, REGENT_CERT, REGENT_KEY. */
    public Map<String, String> env() {
      return Map.of("REGENT_CACERT", ca.toString(), "REGENT_CERT", cert.toString(), "REGENT_KEY", key.toString());
    }
  }

  /** Resolves a {@link Tls} parameter (of a test, a {@code @BeforeAll} or {@code @BeforeEach}) to it. */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Tls.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent(Running.class, k -> Running.start(), Running.class).tls;
  }

  /** The kept cluster and its certificates; JUnit closes it when the root context ends. */
  private record Running(KeptCluster kept, Tls tls) implements AutoCloseable {
    static Running start() {
      Path[] certs = new Path[1];
      KeptCluster kept = KeptCluster.start("regent-shared-tls-cluster-", LOGS, (dir, base) -> {
        certs[0] = dir.resolve("certs");
        int code = Regent.commandLine().setOut(KeptCluster.quiet()).setErr(KeptCluster.quiet())
            .execute("certs", "init", "--dir", certs[0].toString(), "--clients", "admin");
        if (code != 0) {
          throw new IllegalStateException("regent certs init exited with " + code);
        }
        return ClusterUpCommand.up(dir.resolve("cluster"), 3, base, certs[0], KeptCluster.quiet()).cluster();
      });
      return new Running(kept, new Tls(kept.cluster, certs[0].resolve("ca.crt"), certs[0].resolve("admin.crt"),
          certs[0].resolve("admin.key")));
    }

    @Override
    public void close() throws IOException {
      kept.close();
    }
  }
}
