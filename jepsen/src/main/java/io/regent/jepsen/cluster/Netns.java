package io.regent.jepsen.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The test network of one run's slot ({@link RunLock}): one Linux network namespace per node ({@code regent-j-n1},
 * ...), each with a veth pair whose outer end sits on a bridge ({@code regent-j-br}, address {@code 10.77.0.254})
 * in the root namespace, so that node {@code i} has address {@code 10.77.0.i} and the test's clients, in the root
 * namespace, reach every node through the bridge. Slot {@code s > 0} uses the prefix {@code regent-j<s>-} and the
 * subnet {@code 10.77.<s>.0/24}, so two runs share a machine without sharing a name or an address.
 *
 * <p>Partitions: there is no iptables on the test machines and the kernel has no tc classifiers, so a
 * cut link is a pair of {@code ip route add blackhole <peer>/32} routes, one inside each namespace;
 * healing deletes them. A blackhole route makes sends fail at once (EINVAL) rather than silently
 * dropping packets as iptables DROP would: connections fail fast instead of hanging. Clients are never
 * cut off from nodes.
 *
 * <p>Everything this class creates is named with its slot's prefix, so {@link #cleanup(int)} removes exactly that
 * slot's (left over by a crashed run, too) and nothing else. Needs root.
 */
public final class Netns implements AutoCloseable {
  /** Prefix of every namespace and link this class creates, in any slot. */
  public static final String PREFIX = "regent-j";

  private final int slot;
  private final int nodes;
  private final Set<String> blackholes = new HashSet<>();

  private Netns(int slot, int nodes) {
    this.slot = slot;
    this.nodes = nodes;
  }

  /** Prefix of the names of slot {@code slot}: {@code regent-j-} for slot 0 (as before slots), else {@code regent-j<slot>-}. */
  static String prefix(int slot) {
    return slot == 0 ? PREFIX + "-" : PREFIX + slot + "-";
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

  /**
   * Creates the bridge and one namespace per node (1-based) in the slot {@code lock} holds, removing that slot's
   * leftovers of earlier runs first.
   */
  public static Netns create(RunLock lock, int nodes) {
    int slot = lock.slot();
    cleanup(slot);
    Netns n = new Netns(slot, nodes);
    String prefix = prefix(slot);
    String bridge = prefix + "br";
    try {
      Shell.check("ip", "link", "add", bridge, "type", "bridge");
      Shell.check("ip", "addr", "add", n.address(254) + "/24", "dev", bridge);
      Shell.check("ip", "link", "set", bridge, "up");
      for (int i = 1; i <= nodes; i++) {
        String ns = n.namespace(i);
        String outer = prefix + "v" + i;
        Shell.check("ip", "netns", "add", ns);
        Shell.check("ip", "link", "add", outer, "type", "veth", "peer", "name", "eth0", "netns", ns);
        Shell.check("ip", "link", "set", outer, "master", bridge, "up");
        Shell.check("ip", "-n", ns, "addr", "add", n.address(i) + "/24", "dev", "eth0");
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
  public String namespace(int i) {
    return prefix(slot) + "n" + i;
  }

  /** The address of node {@code i} (1-based). */
  public String address(int i) {
    return "10.77." + slot + "." + i;
  }

  /** The slot whose names and subnet this network uses. */
  public int slot() {
    return slot;
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
    cleanup(slot);
  }

  /** Removes every namespace and link of slot {@code slot}. Never throws. */
  public static void cleanup(int slot) {
    String prefix = prefix(slot);
    for (String ns : namespaces(prefix)) {
      Shell.run("ip", "netns", "del", ns);
    }
    for (String line : Shell.run("ip", "-o", "link", "show").output().split("\n")) {
      String[] parts = line.split(":\\s+");
      if (parts.length > 1) {
        String name = parts[1].split("@")[0].trim();
        if (name.startsWith(prefix)) {
          Shell.run("ip", "link", "del", name);
        }
      }
    }
  }

  /** Names of our namespaces that exist now, of every slot (for tests of the cleanup). */
  public static List<String> existing() {
    return namespaces(PREFIX);
  }

  /**
   * Names of our namespaces of the slots that no run holds now: what a finished run left behind, whatever another
   * run on the machine has up meanwhile. Each free slot is held while it is listed: a run that took it between a
   * check and the listing would otherwise show its fresh namespaces as left behind.
   */
  public static List<String> leftBehind() throws IOException {
    return leftBehind(Netns::namespaces);
  }

  static List<String> leftBehind(Function<String, List<String>> lister) throws IOException {
    List<String> out = new ArrayList<>();
    for (int s = 0; s < RunLock.SLOTS; s++) {
      try (RunLock free = RunLock.tryAcquire(s)) {
        if (free != null) {
          out.addAll(lister.apply(prefix(s)));
        }
      }
    }
    return out;
  }

  private static List<String> namespaces(String prefix) {
    List<String> out = new ArrayList<>();
    for (String line : Shell.run("ip", "netns", "list").output().split("\n")) {
      String name = line.trim().split("\\s+")[0];
      if (name.startsWith(prefix)) {
        out.add(name);
      }
    }
    return out;
  }
}
