package io.regent.client;

/** The version of this Regent build, as its jar manifest names it (clients and servers report it). */
public final class RegentVersion {
  private RegentVersion() {
  }

  /** The {@code Implementation-Version} of the jar, or {@code "development build"} when run from classes. */
  public static String current() {
    String v = RegentVersion.class.getPackage().getImplementationVersion();
    return v == null ? "development build" : v;
  }
}
