package io.regent.cli.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.stream.IntStream;

/**
 * A block of 400 ports for one local 3-node cluster (base + i, + 100 + i, + 200 + i and + 300 + i: the Raft, API,
 * metrics and etcd-compatible ports of node i, {@link ProcessCluster#create}), reserved against every other process
 * on this host until {@link #close closed}.
 *
 * <p>Why a reservation: the ports of a block are free when it is chosen but only bound when the nodes' JVMs have
 * started, seconds later; two processes choosing in that window (two surefire JVMs of the cli module, two builds
 * on one machine, two {@code regent demo}s) would pick the same block, and one cluster's nodes would fail to bind.
 * The block's own base port, which no node uses, is the lock: the reserving process binds it and holds it, the
 * operating system lets no other process bind it meanwhile, and it is released with the process if that ends
 * first. Close the block once the nodes are up ({@link ClusterUpCommand#up} returned): their bound ports keep
 * later choosers off it from then on.
 */
public final class PortBlock implements AutoCloseable {
  /** The first base port tried; blocks follow every {@value #STEP} ports below {@value #END}. */
  static final int FIRST = 27_000;
  static final int STEP = 400;
  static final int END = 40_000;
  /** The node ports of a 3-node cluster, as offsets from the base: what must be free for a block to be chosen. */
  private static final int[] NODE_OFFSETS = {1, 2, 3, 101, 102, 103, 201, 202, 203, 301, 302, 303};

  private final ServerSocket anchor;

  private PortBlock(ServerSocket anchor) {
    this.anchor = anchor;
  }

  /**
   * Reserves the first block from {@value #FIRST} (in steps of {@value #STEP}) that no other process holds and
   * whose ports of a 3-node cluster are free.
   *
   * @throws IllegalStateException if no block below {@value #END} is
   */
  public static PortBlock reserve() {
    for (int base = FIRST; base < END; base += STEP) {
      ServerSocket anchor = bind(base);
      if (anchor == null) {
        continue; // held by another reservation (or anything else listening there)
      }
      int b = base;
      if (IntStream.of(NODE_OFFSETS).allMatch(i -> ProcessCluster.portFree(b + i))) {
        return new PortBlock(anchor);
      }
      closeQuietly(anchor);
    }
    throw new IllegalStateException("no free block of ports between " + FIRST + " and " + END);
  }

  /** The block's base port: node i's Raft port is base + i. */
  public int base() {
    return anchor.getLocalPort();
  }

  /** Releases the block: another process may choose it once its node ports are free again. */
  @Override
  public void close() {
    closeQuietly(anchor);
  }

  /**
   * A listening socket on {@code port}, or null when it cannot be bound. No SO_REUSEADDR: with it, Linux lets two
   * sockets bind one port as long as neither listens yet, and the bind is what must exclude the other process.
   */
  private static ServerSocket bind(int port) {
    ServerSocket s = null;
    try {
      s = new ServerSocket();
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(ProcessCluster.HOST, port), 1);
      return s;
    } catch (IOException taken) {
      if (s != null) {
        closeQuietly(s);
      }
      return null;
    }
  }

  private static void closeQuietly(ServerSocket s) {
    try {
      s.close();
    } catch (IOException e) {
      // a listening socket that accepted nothing: nothing to flush or report
    }
  }
}
