// A TCP forwarder for the tests: an endpoint whose traffic can be paused, as a network partition would stall it.
'use strict';
const net = require('node:net');

/**
 * Forwards 127.0.0.1:<port> (`endpoint`, once listen() resolves) to `target` (host:port). pause() holds every
 * byte both ways until resume() (connections stay open, new ones are accepted and held likewise); close() ends it.
 */
class TcpProxy {
  constructor(target) {
    const i = target.lastIndexOf(':');
    this.target = { host: target.slice(0, i), port: Number(target.slice(i + 1)) };
    this.sockets = new Set();
    this.paused = false;
    this.held = []; // [socket, chunk] read while paused, written on resume() (null: the end)
    this.server = net.createServer((down) => {
      const up = net.connect(this.target);
      const forward = (from, to) => {
        from.on('data', (chunk) => {
          if (this.paused) this.held.push([to, chunk]);
          else to.write(chunk);
        });
        from.on('end', () => {
          if (this.paused) this.held.push([to, null]);
          else to.end();
        });
      };
      forward(down, up);
      forward(up, down);
      for (const s of [down, up]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => { down.destroy(); up.destroy(); });
      }
    });
  }

  /** Resolves to the endpoint, host:port, once listening. */
  listen() {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => {
      this.endpoint = `127.0.0.1:${this.server.address().port}`;
      resolve(this.endpoint);
    }));
  }

  /** Holds every byte from now on, both ways: calls through it neither arrive nor are answered. */
  pause() {
    this.paused = true;
  }

  /** Delivers what was held, and forwards again. */
  resume() {
    this.paused = false;
    for (const [to, chunk] of this.held.splice(0)) {
      if (to.destroyed) continue;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
  }

  close() {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

module.exports = { TcpProxy };
