package io.regent.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives tests a local 3-node Regent cluster ({@link LocalRegentCluster}): the first test
 * class of the run that asks for one starts it, every later class gets the same cluster, and it is stopped and its
 * data removed when the run ends. One start per test JVM, since a start costs seconds; keep what each test does
 * apart by names of its own ({@link #name}) rather than by a cluster of its own.
 *
 * <pre>
 *   &#64;ExtendWith(RegentClusterExtension.class)
 *   class JobTest {
 *     &#64;Test void runsOnce(LocalRegentCluster cluster) {
 *       try (RegentClient client = RegentClient.connect(cluster.endpoints())) { ... }
 * </pre>
 *
 * A {@link LocalRegentCluster} parameter of a test, a {@code @BeforeAll}/{@code @BeforeEach} method or a
 * constructor is resolved to it.
 */
public final class RegentClusterExtension implements ParameterResolver {
  private static final Namespace NAMESPACE = Namespace.create(RegentClusterExtension.class);
  private static final AtomicLong NAMES = new AtomicLong();

  /** Resolves parameters of type {@link LocalRegentCluster}. */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalRegentCluster.class;
  }

  /**
   * The run's cluster, started on first use (kept in JUnit's root store, which closes it when the run ends).
   *
   * @throws UncheckedIOException when a node cannot start
   */
  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent(Running.class, k -> Running.start(), Running.class).cluster;
  }

  /** A name no other test of this JVM gets: {@code base} in lower case, then a number. */
  public static String name(String base) {
    return base.toLowerCase(Locale.ROOT) + "-" + NAMES.incrementAndGet();
  }

  /** The store's entry: JUnit closes an {@link AutoCloseable} value when its context (the root: the run) ends. */
  private record Running(LocalRegentCluster cluster) implements AutoCloseable {
    static Running start() {
      try {
        return new Running(LocalRegentCluster.start(3));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      cluster.close();
    }
  }
}
