package io.regent.cli.cluster;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The cli module's shared {@code regent cluster up}, one per test JVM: 3 {@code regent server} processes with
 * default settings, as a JUnit extension. The first test class of the JVM that asks for it starts it (a
 * {@code cluster up} costs about 10 s of two busy cores), every later class in that JVM gets the same cluster, and
 * it is stopped (SIGTERM, then SIGKILL after {@link ClusterDownCommand#GRACE_MS}) and its directory removed when
 * the run ends; the nodes' logs are kept in {@code target/shared-cluster-up/<pid of the test JVM>/}, since a failure
 * in one class may come from the cluster's past. It is kept in JUnit's root store, which outlives every class.
 *
 * <p>Only for test classes whose subject is not the cluster's fate: they neither stop, pause nor cut a node
 * (pausing a client process is fine), need no setting of their own (TLS, timeouts), and use names no other class
 * uses ({@link #name}), so that what one class leaves behind (leases, holders, groups, events) cannot change what
 * another asserts. Classes that inject faults into nodes start their own cluster (docs/testing.md, "Clusters").
 *
 * <pre>
 *   &#64;ExtendWith(SharedClusterUp.class)
 *   class SomeTest {
 *     &#64;BeforeAll static void join(ProcessCluster shared) { cluster = shared; }
 * </pre>
 */
public final class SharedClusterUp implements ParameterResolver {
  private static final Namespace NAMESPACE = Namespace.create(SharedClusterUp.class);
  private static final AtomicLong NAMES = new AtomicLong();
  /**
   * Where the nodes' logs are copied at the end of the run (surefire runs in the module's directory): a directory
   * per test JVM, named by its pid, since each of the module's two JVMs starts a cluster of its own.
   */
  private static final Path LOGS =
      Path.of("target", "shared-cluster-up", String.valueOf(ProcessHandle.current().pid()));

  /** Resolves a {@link ProcessCluster} parameter (of a test, a {@code @BeforeAll} or {@code @BeforeEach}) to it. */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == ProcessCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(KeptCluster.class,
        k -> KeptCluster.start("regent-shared-cluster-", LOGS,
            (dir, base) -> ClusterUpCommand.up(dir.resolve("cluster"), 3, base, KeptCluster.quiet()).cluster()),
        KeptCluster.class).cluster;
  }

  /**
   * A name no other test of this run uses: {@code base}, then a number unique in the JVM. Names are what keep
   * the classes on the shared cluster apart.
   */
  public static String name(String base) {
    return base.toLowerCase(Locale.ROOT) + "-" + NAMES.incrementAndGet();
  }
}
