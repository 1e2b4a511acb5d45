package io.regent.cli.holder;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** This process as an owner or writer: {@code host:pid}. */
public final class Identity {
  private Identity() {
  }

  /** {@code host:pid} of this process; the host is {@code localhost} when its name cannot be resolved. */
  public static String self() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return host + ":" + ProcessHandle.current().pid();
  }
}
