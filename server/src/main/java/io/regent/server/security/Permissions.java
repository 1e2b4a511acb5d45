package io.regent.server.security;

import io.regent.server.rpc.Right;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Who may do what to which names: the {@code regent server --permissions FILE} file. One rule per line,
 * {@code IDENTITY PREFIX RIGHT[,RIGHT...]}, separated by spaces; {@code #} starts a comment.
 * <ul>
 *   <li>IDENTITY: a client certificate's subject CN, or {@code *} for every caller (also one without a
 *       certificate, whose identity is unknown).</li>
 *   <li>PREFIX: the rule covers the names that start with it; {@code *} covers every name and the calls
 *       that name none (Status, Leases). {@code lease} and {@code member} are not per name: their prefix
 *       must be {@code *}.</li>
 *   <li>RIGHT: {@code campaign} (Campaign, Proclaim, Resign, FreshToken; Group Join, Leave, Release on the
 *       group's name), {@code lock} (Lock, Unlock), {@code read} (Leader, Observe, Group Watch and Status; with {@code *} also Status and Leases), {@code lease} (Grant,
 *       KeepAlive, Revoke, TimeToLive of any lease), {@code member} (snapshots, membership changes and any
 *       other administrative call), or {@code all}.</li>
 * </ul>
 * Rules only grant; a call is allowed when any rule for its caller allows it (etcd's role model without
 * roles). Immutable and thread-safe.
 */
public final class Permissions {
  /** Matches every identity or every name. */
  public static final String ANY = "*";

  private record Rule(String identity, String prefix, Set<Right> rights) {
  }

  private final List<Rule> rules;

  private Permissions(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  /**
   * Reads a permissions file.
   *
   * @throws IOException when it cannot be read
   * @throws IllegalArgumentException {@code FILE:LINE: what is wrong} for the first bad line
   */
  public static Permissions load(Path file) throws IOException {
    return parse(Files.readAllLines(file), file.toString());
  }

  /** Parses the lines of a permissions file; {@code source} names it in errors. */
  public static Permissions parse(List<String> lines, String source) {
    List<Rule> rules = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).replaceFirst("#.*", "").strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\\s+");
      String where = source + ":" + (i + 1) + ": ";
      if (f.length != 3) {
        throw new IllegalArgumentException(where + "expected IDENTITY PREFIX RIGHT[,RIGHT...], got '" + line + "'");
      }
      Set<Right> rights = EnumSet.noneOf(Right.class);
      for (String w : f[2].split(",")) {
        if (w.equalsIgnoreCase("all")) {
          rights.addAll(EnumSet.allOf(Right.class));
          continue;
        }
        try {
          rights.add(Right.valueOf(w.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(where + "unknown right '" + w
              + "' (campaign, lock, read, lease, member, all)");
        }
      }
      boolean everyName = f[1].equals(ANY);
      if (!everyName && (rights.contains(Right.LEASE) || rights.contains(Right.MEMBER))) {
        throw new IllegalArgumentException(where + "lease and member are not per-name rights: give * as the prefix");
      }
      rules.add(new Rule(f[0], everyName ? null : f[1], rights));
    }
    return new Permissions(rules);
  }

  /**
   * Whether {@code identity} may exercise {@code right} on {@code name}.
   *
   * @param identity the caller's certificate CN; null for a caller without a certificate (only {@code *}
   *     rules apply to it)
   * @param name the name the call acts on; null for a call that names none (then only {@code *}-prefix
   *     rules apply)
   */
  public boolean allows(String identity, Right right, String name) {
    for (Rule r : rules) {
      boolean who = r.identity().equals(ANY) || r.identity().equals(identity);
      boolean what = r.prefix() == null || (name != null && name.startsWith(r.prefix()));
      if (who && what && r.rights().contains(right)) {
        return true;
      }
    }
    return false;
  }

  /** Number of rules (for the start-up log). */
  public int size() {
    return rules.size();
  }
}
