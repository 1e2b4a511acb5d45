package io.regent.statemachine.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each test a {@link Replica} of its own, as a parameter of the test method or of a {@code @BeforeEach}
 * method ({@code @ExtendWith(FreshReplica.class)}): opened on an empty directory before the test, closed and
 * its directory deleted after it.
 */
public final class FreshReplica implements ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(FreshReplica.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Replica.class;
  }

  @Override
  public Replica resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Path dir;
    try {
      dir = Files.createTempDirectory("replica");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Replica replica = Replica.open(dir);
    AutoCloseable cleanUp = () -> {
      replica.close();
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    };
    context.getStore(NAMESPACE).put(dir, cleanUp); // closed when the test's context ends, after @AfterEach
    return replica;
  }
}
