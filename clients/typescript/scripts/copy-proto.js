// Copies the repository's protos (the one source of truth, api/src/main/proto: regent.proto, and group.proto for
// ownership groups) into ./proto at build time.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

for (const file of ['regent.proto', 'group.proto']) {
  const from = path.resolve(__dirname, '..', '..', '..', 'api', 'src', 'main', 'proto', 'regent', 'v1', file);
  const to = path.resolve(__dirname, '..', 'proto', 'regent', 'v1', file);
  if (!fs.existsSync(from)) {
    if (fs.existsSync(to)) continue; // an installed package ships its copy
    console.error(`error: ${from} not found: build inside the Regent repository`);
    process.exit(1);
  }
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
}
