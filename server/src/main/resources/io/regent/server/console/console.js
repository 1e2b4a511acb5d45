// Regent's read-only console: polls this node's JSON endpoints (api/*, relative to /console/) and renders them.
// Everything user-given (names, values, member ids) reaches the DOM as text nodes only: no innerHTML anywhere.
'use strict';
(function () {
  const STATE_EVERY_MS = 2000;   // cluster, names, leases, groups
  const EVENTS_EVERY_MS = 1000;  // the resumable event poll
  const EVENTS_SHOWN = 200;
  const CHANGED_FOR_MS = 6000;   // how long a partition that changed owner stays highlighted

  const $ = (id) => document.getElementById(id);
  let eventsAfter = null;          // sequence number of the last event seen; null: ask for the latest
  const owners = new Map();        // "group/partition" -> owner lease, as last rendered
  const changedAt = new Map();     // "group/partition" -> time its owner changed
  let firstGroups = true;

  /** An element with attributes and children; strings become text nodes (escaped by the DOM). */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else e.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  function setText(id, v) { $(id).textContent = v === null || v === undefined ? '—' : String(v); }

  function ms(v) {
    if (v === null || v === undefined) return '—';
    if (v < 1000) return v + ' ms';
    if (v < 60000) return (v / 1000).toFixed(1) + ' s';
    return Math.floor(v / 60000) + ' min ' + Math.round((v % 60000) / 1000) + ' s';
  }

  function replace(tbody, rows, emptyText, columns) {
    tbody.replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { class: 'empty', colspan: columns }, emptyText))]));
  }

  async function get(path) {
    const r = await fetch(path, { cache: 'no-store', headers: { Accept: 'application/json' } });
    const body = await r.json().catch(() => ({ error: 'HTTP ' + r.status }));
    if (!r.ok) throw new Error(path + ': ' + (body.error || 'HTTP ' + r.status));
    return body;
  }

  function showError(e) {
    const box = $('error');
    if (e) { box.textContent = String(e.message || e); box.hidden = false; } else { box.hidden = true; }
  }

  // a follower's lag, known on the leader only: "n entries, s s" since its match index last moved
  function lag(m) {
    if (m.lagEntries === null || m.lagEntries === undefined) return '';
    return m.lagEntries === 0 ? 'caught up' : m.lagEntries + ' entries, ' + m.lagSeconds.toFixed(1) + ' s';
  }

  function renderCluster(c) {
    setText('node', c.node);
    setText('role', c.role);
    $('role').className = 'badge' + (c.role === 'LEADER' ? ' leader' : '');
    setText('leader', c.leader === null ? 'none' : c.leader);
    setText('term', c.term);
    setText('commit', c.commitIndex);
    setText('applied', c.appliedIndex);
    $('kv').hidden = !c.kv;
    if (c.kv) setText('kv-keys', c.kv.keys + ' keys, ' + c.kv.bytes + ' bytes, ' + c.kv.watchers + ' watchers');
    const h = $('health');
    h.textContent = (c.ready ? 'ready' : 'not ready: ' + c.notReady) + (c.degraded ? ' · ' + c.degraded : '');
    h.className = 'badge ' + (c.ready ? (c.degraded ? 'warn' : 'ok') : 'bad');
    const rows = c.members.map((m) => {
      const contact = m.self ? '' : ms(m.lastContactMs);
      const late = m.lastContactMs === null || m.lastContactMs === undefined ? '' : m.lastContactMs > 5000 ? 'dead' : m.lastContactMs > 1000 ? 'late' : '';
      return el('tr', { class: m.self ? 'self' : '', 'data-member': m.id },
        el('td', {}, m.id, m.leader ? el('span', { class: 'badge leader', title: 'Raft leader' }, 'leader') : null),
        el('td', {}, m.role), el('td', {}, m.address), el('td', {}, m.apiAddress || 'not published'),
        el('td', { class: 'num ' + late }, contact),
        el('td', { class: 'num' }, m.matchIndex === null || m.matchIndex === undefined ? '' : String(m.matchIndex)),
        el('td', { class: 'num ' + (m.lagEntries > 0 && m.lagSeconds >= 10 ? 'late' : '') }, lag(m)));
    });
    replace($('members').tBodies[0], rows, 'no members', 7);
  }

  function renderNames(n) {
    $('names-count').textContent = n.shown + ' of ' + n.total + ' at index ' + n.appliedIndex
      + (n.ttlUnknown ? ' · TTL left unknown: ' + n.ttlUnknown : '');
    const rows = n.names.map((r) => {
      const h = r.holder;
      const waiters = r.waiters.map((w) => 'lease ' + w.lease).join(', ');
      return el('tr', { 'data-name': r.name },
        el('td', { class: 'name' }, r.name),
        el('td', { class: 'num lease' }, h ? h.lease : '—'),
        el('td', { class: 'num token' }, h ? h.token : '—'),
        el('td', { class: 'value', title: h ? h.value : '' }, h ? h.value : ''),
        el('td', { class: 'num ttl' }, h ? ms(h.ttlLeftMs) : '—'),
        el('td', { class: 'num' }, r.lockDelay ? 'in force: ' + ms(r.lockDelay.ms) : h && h.lockDelayMs ? ms(h.lockDelayMs) : ''),
        el('td', { class: 'waiters list' }, r.waiters.length ? r.waiters.length + ' (' + waiters + ')' : ''));
    });
    replace($('names').tBodies[0], rows, 'no names', 7);
    const locks = n.names.filter((r) => r.lockDelay || (r.holder && r.holder.lockDelayMs > 0)).map((r) =>
      el('tr', { 'data-lock': r.name },
        el('td', {}, r.name), el('td', { class: 'num' }, r.holder ? r.holder.lease : '—'),
        el('td', { class: 'num' }, r.holder ? r.holder.token : '—'),
        el('td', { class: 'num' }, r.holder ? ms(r.holder.lockDelayMs) : '—'),
        el('td', { class: 'num' }, r.lockDelay ? ms(r.lockDelay.ms) + ' since index ' + r.lockDelay.startIndex : 'no')));
    replace($('locks').tBodies[0], locks, 'no lock-delays', 5);
  }

  function renderLeases(l) {
    $('leases-count').textContent = l.shown + ' of ' + l.total
      + (l.ttlUnknown ? ' · TTL left unknown: ' + l.ttlUnknown : '');
    const rows = l.leases.map((x) => el('tr', { 'data-lease': x.id },
      el('td', { class: 'num' }, x.id), el('td', { class: 'num' }, ms(x.ttlMs)),
      el('td', { class: 'num' }, ms(x.ttlLeftMs)), el('td', { class: 'list' }, x.names.join(', ')),
      el('td', { class: 'list' }, x.groups.join(', '))));
    replace($('leases').tBodies[0], rows, 'no leases', 5);
  }

  function renderGroups(g) {
    const now = Date.now();
    const blocks = g.groups.map((group) => {
      const cells = group.owners.map((p) => {
        const key = group.name + '/' + p.partition;
        const before = owners.get(key);
        if (!firstGroups && before !== undefined && before !== p.lease) changedAt.set(key, now);
        owners.set(key, p.lease);
        const changed = changedAt.has(key) && now - changedAt.get(key) < CHANGED_FOR_MS;
        const cls = 'cell' + (p.owner === null ? ' free' : '') + (p.next !== null ? ' moving' : '') + (changed ? ' changed' : '');
        return el('div', { class: cls, 'data-group': group.name, 'data-partition': p.partition,
          'data-owner': p.owner === null ? '' : p.owner, 'data-token': p.token === null ? '' : p.token },
        el('span', { class: 'p' }, p.partition + ' '),
        el('span', { class: 'owner' }, p.owner === null ? 'free' : p.owner),
        p.token === null ? null : el('span', { class: 'token' }, ' #' + p.token),
        p.next === null ? null : el('span', { class: 'next' }, ' → ' + p.next));
      });
      return el('div', { class: 'group', 'data-group-name': group.name },
        el('h3', {}, group.name + ' ', el('span', { class: 'hint' }, group.partitions + ' partitions · members: '
          + (group.members.map((m) => m.id).join(', ') || 'none'))),
        el('div', { class: 'grid' }, ...cells));
    });
    firstGroups = false;
    $('groups').replaceChildren(...(blocks.length ? blocks : [el('p', { class: 'empty' }, 'no groups')]));
  }

  function describe(e) {
    if (e.kind === 'group_changed') return 'members or assignment changed';
    if (e.kind === 'lease_ended') return 'lease ' + e.lease;
    return e.holder ? 'holder lease ' + e.holder.lease + ', token ' + e.holder.token : 'now free';
  }

  function renderEvents(page, initial) {
    const list = $('events');
    for (const old of list.querySelectorAll('li.fresh')) old.classList.remove('fresh');
    if (page.compacted && !initial) {
      list.prepend(el('li', { class: 'gap' }, 'some events were missed (too old, a snapshot install, or a node restart): showing state as of now'));
    }
    for (const e of page.events) {
      list.prepend(el('li', { class: initial ? '' : 'fresh', 'data-kind': e.kind, 'data-event-name': e.name },
        el('span', { class: 'idx' }, '#' + e.index), el('span', { class: 'kind' }, e.kind.replace('_', ' ')),
        el('span', { class: 'name' }, e.name ? e.name + ': ' : ''), describe(e)));
    }
    while (list.children.length > EVENTS_SHOWN) list.lastElementChild.remove();
  }

  function prefixQuery() {
    const p = $('prefix').value;
    return p ? '&prefix=' + encodeURIComponent(p) : '';
  }

  async function refreshState() {
    try {
      const [c, n, l, g] = await Promise.all([get('api/cluster'), get('api/names?limit=200' + prefixQuery()),
        get('api/leases?limit=200'), get('api/groups')]);
      renderCluster(c); renderNames(n); renderLeases(l); renderGroups(g);
      $('refreshed').textContent = 'refreshed ' + new Date().toLocaleTimeString();
      showError(null);
    } catch (e) {
      showError(e);
    } finally {
      setTimeout(refreshState, STATE_EVERY_MS);
    }
  }

  async function pollEvents() {
    try {
      const initial = eventsAfter === null;
      const page = await get('api/events?limit=200' + (initial ? '' : '&after=' + eventsAfter));
      renderEvents(page, initial);
      eventsAfter = page.next;
      if (!initial && (page.events.length > 0 || page.compacted)) refreshNow(); // show the change at once
    } catch (e) {
      showError(e);
    } finally {
      setTimeout(pollEvents, EVENTS_EVERY_MS);
    }
  }

  let pending = null;
  /** Re-reads state soon after an event, so that a change shows within the event poll's interval. */
  function refreshNow() {
    if (pending) return;
    pending = setTimeout(async () => {
      try {
        const [n, l, g] = await Promise.all([get('api/names?limit=200' + prefixQuery()), get('api/leases?limit=200'),
          get('api/groups')]);
        renderNames(n); renderLeases(l); renderGroups(g);
      } catch (e) {
        showError(e);
      } finally {
        pending = null;
      }
    }, 50);
  }

  $('prefix').addEventListener('input', () => refreshNow());
  refreshState();
  pollEvents();
})();
