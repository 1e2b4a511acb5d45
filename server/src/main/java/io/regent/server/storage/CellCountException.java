package io.regent.server.storage;

import java.io.IOException;

/**
 * A node started with a number of cells its data directory was not created with (docs/architecture.md §14):
 * {@code regent server} prints the message and exits with a usage error.
 */
public final class CellCountException extends IOException {
  /** @param message the one line the CLI prints */
  public CellCountException(String message) {
    super(message);
  }
}
