package io.regent.cli.holder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.OptionalLong;

/**
 * {@code $REGENT_FENCING_TOKEN_FILE}: the holder's newest fencing token as decimal text, which {@code elect
 * --exec} replaces atomically (write a sibling, rename) whenever it takes a fresh token, so a reader sees
 * either the old or the new token, never a torn one.
 */
public final class TokenFile implements AutoCloseable {
  /** The environment variable naming the file. */
  public static final String ENV = "REGENT_FENCING_TOKEN_FILE";

  private final Path path;

  private TokenFile(Path path) {
    this.path = path;
  }

  /** A new file in the temporary directory holding {@code token}; deleted by {@link #close()}. */
  static TokenFile create(long token) throws IOException {
    TokenFile f = new TokenFile(Files.createTempFile("regent-token-", ""));
    f.write(token);
    return f;
  }

  Path path() {
    return path;
  }

  /** Replaces the token. */
  void write(long token) throws IOException {
    Path next = path.resolveSibling(path.getFileName() + ".next");
    Files.writeString(next, token + "\n");
    Files.move(next, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The token in {@code path}; empty when the file is gone or does not hold a number. */
  public static OptionalLong read(Path path) {
    try {
      return OptionalLong.of(Long.parseLong(Files.readString(path).trim()));
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  @Override
  public void close() throws IOException {
    Files.deleteIfExists(path);
  }
}
