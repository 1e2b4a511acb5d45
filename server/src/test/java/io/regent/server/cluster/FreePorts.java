package io.regent.server.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for the servers a test starts, taken from 20000–26999, below Linux's ephemeral range (32768–60999 by
 * default) and below the blocks from 27000 that the cli's process clusters reserve ({@code PortBlock}), which a
 * build running beside this one may be starting.
 *
 * <p>Why not {@code new ServerSocket(0)}: that port comes from the ephemeral range and is free only until the
 * socket closes; an outgoing connection (the test JVM holds hundreds) can take it before the node binds it,
 * and Ratis 3.3.0 then ends the whole JVM ("Terminating with exit status 1: Failed to start Grpc server",
 * seen in CI: the surefire fork died). Ports are handed out in turn from a per-process start, so one JVM
 * never gets the same port twice, and each is checked free when handed out.
 */
public final class FreePorts {
  private static final int LOW = 20_000;
  private static final int SPAN = 7_000;
  private static final AtomicInteger NEXT = new AtomicInteger((int) (ProcessHandle.current().pid() * 7919 % SPAN));

  private FreePorts() {
  }

  /** A port nothing listens on now, never handed out before in this JVM. */
  public static int next() {
    for (int tries = 0; tries < SPAN; tries++) {
      int port = LOW + Math.floorMod(NEXT.getAndIncrement(), SPAN);
      try (ServerSocket s = new ServerSocket(port)) {
        return port;
      } catch (IOException inUse) {
        // taken by another process: try the next one
      }
    }
    throw new IllegalStateException("no free port in " + LOW + ".." + (LOW + SPAN - 1));
  }
}
