// The package's modules import each other without a circle (src/*.ts, type-only imports included): each layer of
// the client (endpoints, calls, leases, elections, groups, client) only builds on the ones below it.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const SRC = path.join(__dirname, '..', 'src');

/** module name -> the package modules it imports ("./x"), from its import and export ... from statements. */
function graph() {
  const g = new Map();
  for (const f of fs.readdirSync(SRC).filter((n) => n.endsWith('.ts'))) {
    const text = fs.readFileSync(path.join(SRC, f), 'utf8');
    g.set(f.slice(0, -3), [...text.matchAll(/^(?:import|export)\b[^;]*?from '\.\/([\w-]+)';/gms)].map((m) => m[1]));
  }
  return g;
}

/** Every circle of `g`, as the path that closes it. */
function circles(g) {
  const found = [];
  const state = new Map(); // module -> 'open' while on the path, 'done' after
  const visit = (m, trail) => {
    if (state.get(m) === 'done') return;
    if (state.get(m) === 'open') {
      found.push([...trail.slice(trail.indexOf(m)), m].join(' -> '));
      return;
    }
    state.set(m, 'open');
    for (const n of g.get(m) ?? []) visit(n, [...trail, m]);
    state.set(m, 'done');
  };
  for (const m of g.keys()) visit(m, []);
  return found;
}

test('the circle check finds a circle', () => {
  assert.deepEqual(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]])), ['a -> b -> c -> a']);
});

test('no import circle among src/*.ts', () => {
  const g = graph();
  assert.ok(g.get('client').includes('groups'), `the graph is read: ${JSON.stringify([...g])}`);
  assert.deepEqual(circles(g), []);
});
