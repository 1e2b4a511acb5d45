package io.regent.cli.cluster;

import io.regent.cli.Regent;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
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

  /** The cluster and its directory; JUnit closes it when the root context ends. */
  private record Running(Path dir, Tls tls) implements AutoCloseable {
    static Running start() {
      Path dir = null;
      try (PortBlock ports = PortBlock.reserve()) {
        dir = Files.createTempDirectory("regent-shared-tls-cluster-");
        Path certs = dir.resolve("certs");
        int code = Regent.commandLine().setOut(quiet()).setErr(quiet())
            .execute("certs", "init", "--dir", certs.toString(), "--clients", "admin");
        if (code != 0) {
          throw new IllegalStateException("regent certs init exited with " + code);
        }
        ProcessCluster cluster = ClusterUpCommand.up(dir.resolve("cluster"), 3, ports.base(), certs, quiet())
            .cluster();
        return new Running(dir, new Tls(cluster, certs.resolve("ca.crt"), certs.resolve("admin.crt"),
            certs.resolve("admin.key")));
      } catch (Exception e) {
        // up() stops what it started when it fails; only the directory is left
        if (dir != null) {
          delete(dir);
        }
        throw e instanceof IOException io ? new UncheckedIOException(io) : new IllegalStateException(e);
      }
    }

    @Override
    public void close() throws IOException {
      try {
        tls.cluster().stop(ClusterDownCommand.GRACE_MS, quiet());
        Files.createDirectories(LOGS);
        for (ProcessCluster.Node n : tls.cluster().nodes()) {
          Path log = tls.cluster().dir().resolve(n.id() + ".log");
          if (Files.exists(log)) {
            Files.copy(log, LOGS.resolve(n.id() + ".log"), StandardCopyOption.REPLACE_EXISTING);
          }
        }
      } finally {
        delete(dir);
      }
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static PrintWriter quiet() {
    return new PrintWriter(PrintWriter.nullWriter());
  }
}
