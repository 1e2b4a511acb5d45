package io.regent.cli.command;

import io.regent.cli.output.ExitCodes;
import io.regent.server.security.CertificateAuthority;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent certs init}: a CA and node and client certificates for a local or test cluster. */
@Command(name = "certs", mixinStandardHelpOptions = true,
    description = "Creates TLS certificates for a local or test cluster (docs/security.md).",
    subcommands = {CertsCommand.Init.class})
public final class CertsCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: init");
  }

  /** {@code certs init --dir DIR [--nodes ...] [--clients ...]}. */
  @Command(name = "init", mixinStandardHelpOptions = true,
      description = {"Creates DIR/ca.crt and DIR/ca.key (an ECDSA P-256 CA), then DIR/<name>.crt and "
          + "DIR/<name>.key for every node and client (keys readable by their owner only).",
          "Node certificates are valid for localhost, 127.0.0.1 and --hosts, and serve and dial (Raft peers do "
              + "both). A client certificate's CN is the client's identity in the permissions file.",
          "On a DIR that already has a CA, only the missing certificates are issued, signed by that CA.",
          "Example: regent certs init --dir certs --nodes n1,n2,n3 --clients admin,scheduler"})
  static final class Init implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", required = true, description = "where the PEM files go")
    Path dir;

    @Option(names = "--nodes", paramLabel = "ID[,ID...]", split = ",", defaultValue = "n1,n2,n3",
        description = "node ids, as in `regent cluster up` (default: ${DEFAULT-VALUE})")
    List<String> nodes;

    @Option(names = "--clients", paramLabel = "NAME[,NAME...]", split = ",", defaultValue = "admin",
        description = "client identities (certificate CNs); --clients= for none (default: ${DEFAULT-VALUE})")
    List<String> clients;

    @Option(names = "--hosts", paramLabel = "HOST[,HOST...]", split = ",",
        description = "more DNS names or IP addresses the node certificates are valid for")
    List<String> hosts = new ArrayList<>();

    @Option(names = "--days", paramLabel = "N", defaultValue = "365",
        description = "validity of node and client certificates, days (default: ${DEFAULT-VALUE})")
    int days;

    @Override
    public Integer call() throws Exception {
      Set<String> names = new LinkedHashSet<>();
      for (String n : concat(nodes, clients)) {
        if (!n.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
          throw new ParameterException(spec.commandLine(), "invalid name '" + n + "': use letters, digits, "
              + "'.', '_' and '-' (at most 64)");
        }
        if (n.equals(CertificateAuthority.CA) || !names.add(n)) {
          throw new ParameterException(spec.commandLine(), "name '" + n + "' is reserved or given twice");
        }
      }
      if (days < 1 || days > 3650) {
        throw new ParameterException(spec.commandLine(), "--days must be within 1..3650");
      }
      List<String> sans = new ArrayList<>(List.of("localhost", "127.0.0.1"));
      try {
        hosts.forEach(h -> sans.add(CertificateAuthority.checkHost(h.trim())));
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--hosts: " + e.getMessage());
      }
      PrintWriter err = spec.commandLine().getErr();
      Path d = dir.toAbsolutePath();
      CertificateAuthority ca;
      if (Files.exists(d.resolve(CertificateAuthority.CA + ".crt"))) {
        ca = CertificateAuthority.load(d);
        err.println("using the existing CA in " + d);
      } else {
        ca = CertificateAuthority.create("Regent CA");
        ca.writeTo(d);
        err.println("created " + d.resolve("ca.crt") + " and ca.key (keep ca.key away from the nodes)");
      }
      Duration validity = Duration.ofDays(days);
      for (String n : names) {
        if (Files.exists(d.resolve(n + ".crt"))) {
          err.println("kept " + d.resolve(n + ".crt") + " (exists)");
          continue;
        }
        boolean node = nodes.stream().anyMatch(x -> x.trim().equals(n));
        ca.issue(n, node, sans, validity).writeTo(d, n);
        err.println("created " + d.resolve(n + ".crt") + " and " + n + ".key (" + (node ? "node, valid for "
            + String.join(", ", sans) : "client, identity " + n) + ")");
      }
      err.flush();
      spec.commandLine().getOut().println(d);
      return ExitCodes.OK;
    }

    private static List<String> concat(List<String> a, List<String> b) {
      List<String> all = new ArrayList<>();
      a.stream().map(String::trim).filter(s -> !s.isEmpty()).forEach(all::add);
      b.stream().map(String::trim).filter(s -> !s.isEmpty()).forEach(all::add);
      return all;
    }
  }
}
