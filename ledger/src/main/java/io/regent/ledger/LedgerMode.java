package io.regent.ledger;

import io.regent.fencing.FencingMode;
import java.util.Optional;

/** How a ledger judges the fencing token of an append (docs/architecture.md §5). */
public enum LedgerMode {
  /** Admits τ iff τ &gt; H: each append needs a fresh token ({@code regent ledger serve --strict}). */
  STRICT(FencingMode.STRICT),
  /** Admits τ iff τ ≥ H: a holder appends many times with its one token (the default). */
  MONOTONE(FencingMode.MONOTONE),
  /**
   * Admits every token and leaves H alone. Unsafe by design: the negative control of the zombie-writer
   * scenario, which must show the stale write this mode lets through.
   */
  UNFENCED(null);

  private final FencingMode fencing;

  LedgerMode(FencingMode fencing) {
    this.fencing = fencing;
  }

  /** The rule checked on append; empty for {@link #UNFENCED}. */
  public Optional<FencingMode> fencing() {
    return Optional.ofNullable(fencing);
  }
}
