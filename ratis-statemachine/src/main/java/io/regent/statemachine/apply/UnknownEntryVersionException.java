package io.regent.statemachine.apply;

/**
 * A log entry of a format version this build does not apply (above {@link EntryCodec#MAX_VERSION}). Apply throws
 * it rather than answer a refusal: the other replicas apply the entry, and one that skipped it would diverge from
 * them silently (docs/operations.md "Upgrades"). Ratis then stops this replica's division; it needs a newer build.
 */
public final class UnknownEntryVersionException extends IllegalStateException {
  /**
   * @param version the entry's version
   * @param index the entry's log index
   */
  public UnknownEntryVersionException(int version, long index) {
    super("log entry " + index + " has format version " + version + ", above the " + EntryCodec.MAX_VERSION
        + " this build applies: upgrade this node (docs/operations.md \"Upgrades\")");
  }
}
