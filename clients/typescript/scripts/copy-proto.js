// Copies the repository's proto (the one source of truth, api/src/main/proto) into ./proto at build time.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const from = path.resolve(__dirname, '..', '..', '..', 'api', 'src', 'main', 'proto', 'regent', 'v1', 'regent.proto');
const to = path.resolve(__dirname, '..', 'proto', 'regent', 'v1', 'regent.proto');
if (!fs.existsSync(from)) {
  if (fs.existsSync(to)) process.exit(0); // an installed package ships its copy
  console.error(`error: ${from} not found: build inside the Regent repository`);
  process.exit(1);
}
fs.mkdirSync(path.dirname(to), { recursive: true });
fs.copyFileSync(from, to);
