package io.regent.cli.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;

/**
 * The key of something built from sources ({@link BuildCache}): a SHA-256 over the paths and contents of the files
 * it is built from and the versions of the tools that build it, so that a change to any of them gives a new key and
 * a build made before the change is never reused.
 */
public final class ContentKey {
  private final MessageDigest digest;

  /** An empty key. */
  public ContentKey() {
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Adds each file {@link SourceTree#copy} would copy from {@code root}: its relative path and its bytes. */
  public ContentKey tree(Path root, Set<String> skipped) throws IOException {
    for (Path rel : SourceTree.files(root, skipped)) {
      text(rel.toString());
      file(root.resolve(rel));
    }
    return this;
  }

  /** Adds the bytes of {@code file}. */
  public ContentKey file(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    text(String.valueOf(bytes.length));  // the length first: no two sequences of files hash the same bytes
    digest.update(bytes);
    return this;
  }

  /** Adds {@code text} (a tool's version, a path), ended so that "ab"+"c" and "a"+"bc" differ. */
  public ContentKey text(String text) {
    digest.update(text.getBytes(StandardCharsets.UTF_8));
    digest.update((byte) 0);
    return this;
  }

  /**
   * The first 16 hex digits of the digest (64 bits are plenty to tell builds apart, and the directory's path stays
   * short: a virtual environment's scripts name their interpreter's absolute path in a {@code #!} line, which the
   * kernel limits).
   */
  public String hex() {
    return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
  }
}
