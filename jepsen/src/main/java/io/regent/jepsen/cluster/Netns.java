package io.regent.jepsen.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The test network: one Linux network namespace per node ({@code regent-j-n1}, ...), each with a veth
 * pair whose outer end sits on a bridge ({@code regent-j-br}, address {@code 10.77.0.254}) in the root
 * namespace, so that node {@code i} has address {@code 10.77.0.i} and the test's clients, in the root
 * namespace, reach every node through the bridge.
 *
 * <p>Partitions: there is no iptables on the test machines and the kernel has no tc classifiers, so a
 * cut link is a pair of {@code ip route add blackhole <peer>/32} routes, one inside each namespace;
 * healing deletes them. A blackhole route makes sends fail at once (EINVAL) rather than silently
 * dropping packets as iptables DROP would: connections fail fast instead of hanging. Clients are never
 * cut off from nodes.
 *
 * <p>Everything this class creates is named with the prefix {@link #PREFIX}, so {@link #cleanupAll()}
 * removes exactly ours (left over by a crashed run, too) and nothing else. Needs root.
 */
public final class Netns implements AutoCloseable {
  /** Prefix of every namespace and link this class creates. */
  public static final String PREFIX = "regent-j-";
  private static final String BRIDGE = PREFIX + "br";
  private static final String SUBNET = "10.77.0.";

  private final int nodes;
  private final Set<String> blackholes = new HashSet<>();

  private Netns(int nodes) {
    this.nodes = nodes;
  }

  /** Why namespaces cannot be used here, or empty if they can. */
  public static Optional<String> unavailableReason() {
    Shell.Outcome id = Shell.run("id", "-u");
    if (!id.ok() || !id.output().equals("0")) {
      return Optional.of("not running as root (network namespaces need root)");
    }
    Shell.Outcome list = Shell.run("ip", "netns", "list");
    if (!list.ok()) {
      return Optional.of("`ip netns` is unavailable: " + list.output());
    }
    return Optional.empty();
  }

  /** Creates the bridge and one namespace per node (1-based), removing leftovers of earlier runs first. */
  public static Netns create(int nodes) {
    cleanupAll();
    Netns n = new Netns(nodes);
    try {
      Shell.check("ip", "link", "add", BRIDGE, "type", "bridge");
      Shell.check("ip", "addr", "add", SUBNET + "254/24", "dev", BRIDGE);
      Shell.check("ip", "link", "set", BRIDGE, "up");
      for (int i = 1; i <= nodes; i++) {
        String ns = namespace(i);
        String outer = PREFIX + "v" + i;
        Shell.check("ip", "netns", "add", ns);
        Shell.check("ip", "link", "add", outer, "type", "veth", "peer", "name", "eth0", "netns", ns);
        Shell.check("ip", "link", "set", outer, "master", BRIDGE, "up");
        Shell.check("ip", "-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
        Shell.check("ip", "-n", ns, "link", "set", "eth0", "up");
        Shell.check("ip", "-n", ns, "link", "set", "lo", "up");
      }
      return n;
    } catch (RuntimeException e) {
      n.close();
      throw e;
    }
  }

  /** The namespace of node {@code i} (1-based). */
  public static String namespace(int i) {
    return PREFIX + "n" + i;
  }

  /** The address of node {@code i} (1-based). */
  public static String address(int i) {
    return SUBNET + i;
  }

  /** Number of node namespaces. */
  public int nodes() {
    return nodes;
  }

  /** Cuts the link between nodes {@code a} and {@code b} in both directions (idempotent). */
  public synchronized void cut(int a, int b) {
    route(a, b, true);
    route(b, a, true);
  }

  /** Heals every cut link. */
  public synchronized void healAll() {
    for (String key : new ArrayList<>(blackholes)) {
      String[] ab = key.split(">");
      route(Integer.parseInt(ab[0]), Integer.parseInt(ab[1]), false);
    }
  }

  /** Number of one-way blackhole routes in place. */
  public synchronized int cutLinks() {
    return blackholes.size();
  }

  private void route(int from, int to, boolean add) {
    String key = from + ">" + to;
    if (add == blackholes.contains(key)) {
      return;
    }
    Shell.check("ip", "-n", namespace(from), "route", add ? "add" : "del", "blackhole", address(to) + "/32");
    if (add) {
      blackholes.add(key);
    } else {
      blackholes.remove(key);
    }
  }

  /** Removes the namespaces and the bridge. */
  @Override
  public synchronized void close() {
    blackholes.clear();
    cleanupAll();
  }

  /** Removes every namespace and link whose name starts with {@link #PREFIX}. Never throws. */
  public static void cleanupAll() {
    List<String> found = new ArrayList<>();
    for (String line : Shell.run("ip", "netns", "list").output().split("\n")) {
      String name = line.trim().split("\\s+")[0];
      if (name.startsWith(PREFIX)) {
        found.add(name);
      }
    }
    for (String ns : found) {
      Shell.run("ip", "netns", "del", ns);
    }
    for (String line : Shell.run("ip", "-o", "link", "show").output().split("\n")) {
      String[] parts = line.split(":\\s+");
      if (parts.length > 1) {
        String name = parts[1].split("@")[0].trim();
        if (name.startsWith(PREFIX)) {
          Shell.run("ip", "link", "del", name);
        }
      }
    }
  }

  /** Names of our namespaces that exist now (for tests of the cleanup). */
  public static List<String> existing() {
    List<String> out = new ArrayList<>();
    for (String line : Shell.run("ip", "netns", "list").output().split("\n")) {
      String name = line.trim().split("\\s+")[0];
      if (name.startsWith(PREFIX)) {
        out.add(name);
      }
    }
    return out;
  }
}
