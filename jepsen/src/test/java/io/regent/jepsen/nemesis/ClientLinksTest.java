package io.regent.jepsen.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Per-client links: a cut hangs one client's link to one node, and nothing else; a heal lets the held bytes through. */
class ClientLinksTest {
  private final ServerSocket[] echo = new ServerSocket[2];
  private ClientLinks links;

  @BeforeEach
  void start() throws IOException {
    for (int i = 0; i < 2; i++) {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      echo[i] = server;
      Thread t = new Thread(() -> serveEcho(server), "echo-" + i);
      t.setDaemon(true);
      t.start();
    }
    links = ClientLinks.start(2, List.of("127.0.0.1:" + echo[0].getLocalPort(),
        "127.0.0.1:" + echo[1].getLocalPort()), List.of("n1", "n2"));
  }

  @AfterEach
  void stop() throws IOException {
    links.close();
    for (ServerSocket s : echo) {
      s.close();
    }
  }

  @Test
  void aCutHangsOneClientsLinkToOneNodeOnly() throws IOException {
    try (Socket s0n1 = connect(0, 0); Socket s0n2 = connect(0, 1); Socket s1n1 = connect(1, 0)) {
      assertThat(roundTrip(s0n1, 'a')).isEqualTo('a');
      assertThat(links.talkingTo(0, 1)).as("slot 0 last sent to n1").isZero();
      assertThat(links.talkingTo(1, 1)).as("slot 1 sent nothing yet: the fallback").isOne();

      links.cut(0, 0);
      s0n1.getOutputStream().write('b');
      s0n1.setSoTimeout(300);
      assertThatThrownBy(() -> s0n1.getInputStream().read()).as("the cut link hangs: no answer, no error")
          .isInstanceOf(SocketTimeoutException.class);
      assertThat(roundTrip(s0n2, 'c')).as("slot 0 still reaches n2").isEqualTo('c');
      assertThat(roundTrip(s1n1, 'd')).as("slot 1 still reaches n1").isEqualTo('d');

      links.healAll();
      s0n1.setSoTimeout(10_000);
      assertThat(s0n1.getInputStream().read()).as("the held byte arrives after the heal").isEqualTo('b');
    }
  }

  private Socket connect(int slot, int node) throws IOException {
    String e = links.endpoints(slot).get(node);
    Socket s = new Socket("127.0.0.1", Integer.parseInt(e.substring(e.lastIndexOf(':') + 1)));
    s.setSoTimeout(10_000);
    return s;
  }

  private static int roundTrip(Socket s, char c) throws IOException {
    s.getOutputStream().write(c);
    s.getOutputStream().flush();
    return s.getInputStream().read();
  }

  private static void serveEcho(ServerSocket server) {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        Thread t = new Thread(() -> {
          try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            for (int b; (b = in.read()) >= 0; ) {
              out.write(b);
              out.flush();
            }
          } catch (IOException e) {
            // closed
          }
        });
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }
}
