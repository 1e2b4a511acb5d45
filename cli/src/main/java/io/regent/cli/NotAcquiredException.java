package io.regent.cli;

/** The name was not granted in the time allowed ({@code --timeout}) or at once ({@code --no-wait}): exit 3. */
final class NotAcquiredException extends RuntimeException {
  NotAcquiredException(String message) {
    super(message);
  }
}
