package io.regent.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** This process as an owner or writer: {@code host:pid}. */
final class Identity {
  private Identity() {
  }

  static String self() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return host + ":" + ProcessHandle.current().pid();
  }
}
