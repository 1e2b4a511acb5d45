package io.regent.jepsen.nemesis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The links between each client slot and each node, for the {@code client-isolate} nemesis: slot {@code s}
 * reaches node {@code k} through a {@link CuttableTcpProxy} of its own, so that one client can be cut from one
 * node while every other client, and that client's links to the other nodes, are untouched. Network namespaces
 * cannot do this here: every client runs in the runner's namespace and process, and a blackhole route would
 * cut them all. Works the same on loopback and with namespaces.
 */
public final class ClientLinks implements AutoCloseable {
  private final List<String> nodeIds;
  private final List<List<CuttableTcpProxy>> proxies = new ArrayList<>();

  private ClientLinks(List<String> nodeIds) {
    this.nodeIds = List.copyOf(nodeIds);
  }

  /**
   * Starts {@code slots} × nodes proxies.
   *
   * @param endpoints the nodes' API endpoints ({@code host:port}), in node order
   * @param nodeIds the nodes' ids, in the same order
   * @throws IOException if a loopback port cannot be had
   */
  public static ClientLinks start(int slots, List<String> endpoints, List<String> nodeIds) throws IOException {
    ClientLinks links = new ClientLinks(nodeIds);
    try {
      for (int s = 0; s < slots; s++) {
        List<CuttableTcpProxy> row = new ArrayList<>();
        links.proxies.add(row);
        for (int k = 0; k < endpoints.size(); k++) {
          String e = endpoints.get(k);
          int colon = e.lastIndexOf(':');
          row.add(new CuttableTcpProxy(e.substring(0, colon), Integer.parseInt(e.substring(colon + 1)),
              "s" + s + "-" + nodeIds.get(k)));
        }
      }
    } catch (IOException | RuntimeException e) {
      links.close();
      throw e;
    }
    return links;
  }

  /** The endpoints slot {@code slot} uses, one per node in node order: its proxies' loopback addresses. */
  public List<String> endpoints(int slot) {
    return proxies.get(slot).stream().map(r -> "127.0.0.1:" + r.port()).toList();
  }

  /** Number of nodes. */
  int nodes() {
    return nodeIds.size();
  }

  /** The id of node {@code k}. */
  String nodeId(int k) {
    return nodeIds.get(k);
  }

  /**
   * The node slot {@code slot} talks to: the one it sent bytes to last, or {@code fallback} if it sent
   * none yet.
   */
  int talkingTo(int slot, int fallback) {
    List<CuttableTcpProxy> row = proxies.get(slot);
    int best = fallback;
    long last = 0;
    for (int k = 0; k < row.size(); k++) {
      long t = row.get(k).lastSentNanos();
      if (t != 0 && (last == 0 || t - last > 0)) {
        best = k;
        last = t;
      }
    }
    return best;
  }

  /** Cuts slot {@code slot} from node {@code k}: that link hangs. */
  void cut(int slot, int k) {
    proxies.get(slot).get(k).cut();
  }

  /** Heals every link. */
  public void healAll() {
    proxies.forEach(row -> row.forEach(CuttableTcpProxy::heal));
  }

  @Override
  public void close() {
    proxies.forEach(row -> row.forEach(CuttableTcpProxy::close));
  }
}
