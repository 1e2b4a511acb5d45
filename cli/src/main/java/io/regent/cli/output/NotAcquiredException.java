package io.regent.cli.output;

/** The name was not granted in the time allowed ({@code --timeout}) or at once ({@code --no-wait}): exit 3. */
public final class NotAcquiredException extends RuntimeException {
  /** The failure, with {@code message} saying which name and how long was waited. */
  public NotAcquiredException(String message) {
    super(message);
  }
}
