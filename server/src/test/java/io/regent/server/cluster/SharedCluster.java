package io.regent.server.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The module's one shared 3-node cluster with default settings, as a JUnit extension: the first test class that
 * asks for it starts it, every later class of the same test run gets the same cluster, and it is closed (its
 * directory removed) when the run ends. It is kept in JUnit's root store, which outlives every class.
 *
 * <p>Only for test classes whose subject is not the cluster itself: they neither stop, pause nor cut nodes,
 * change no setting and no membership, and use names no other test uses ({@link #name}), so that what one class
 * leaves behind (leases, holders, events) cannot change what another observes. A test whose subject is a fresh
 * cluster, or that injects a fault, starts its own through {@link ClusterFixture} (docs/testing.md, "Clusters").
 *
 * <pre>
 *   &#64;ExtendWith(SharedCluster.class)
 *   class SomeTest {
 *     &#64;BeforeAll static void join(LocalCluster shared) { cluster = shared; }
 * </pre>
 */
public final class SharedCluster implements ParameterResolver {
  private static final Namespace NAMESPACE = Namespace.create(SharedCluster.class);
  private static final AtomicLong NAMES = new AtomicLong();

  /** Resolves a {@link LocalCluster} parameter (of a test, a {@code @BeforeAll} or {@code @BeforeEach}) to it. */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent(Running.class, k -> Running.start(), Running.class).cluster;
  }

  /**
   * A name no other test of this run uses: {@code base}, then a number unique in the JVM. Names are what keep
   * the classes on the shared cluster apart.
   */
  public static String name(String base) {
    return base.toLowerCase(Locale.ROOT) + "-" + NAMES.incrementAndGet();
  }

  /**
   * The cluster, in a fixture of its own; JUnit closes a stored AutoCloseable (the cluster, then its directory)
   * when the root context ends.
   */
  private static final class Running implements AutoCloseable {
    private final ClusterFixture fixture = ClusterFixture.perClass();
    private final LocalCluster cluster;

    private Running() throws IOException {
      cluster = fixture.start(3);
      cluster.awaitLeader();
    }

    static Running start() {
      try {
        return new Running();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws Exception {
      fixture.closeAll();
    }
  }
}
