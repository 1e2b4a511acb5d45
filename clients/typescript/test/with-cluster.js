// Runs test files (node --test FILE), one after the other in the order given, against one cluster: the package's
// test fixture's (startCluster: REGENT_ENDPOINTS's, else one it starts), passed on as REGENT_ENDPOINTS and
// REGENT_CLUSTER_DIR and stopped once the last file has run. Exits 1 when a file failed, after running the rest.
//
//   node test/with-cluster.js test/group-worker.test.js test/cluster.test.js
//
// In order, since node --test orders files its own way: cluster.test.js, which kills a node, goes last.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { startCluster } = require('../dist/src/testing');

const JAR = path.resolve(__dirname, '..', '..', '..', 'cli', 'target', 'regent.jar');

async function main(files) {
  const started = Date.now();
  const cluster = await startCluster({ jar: process.env.REGENT_JAR ?? (fs.existsSync(JAR) ? JAR : undefined) });
  if (cluster.started) console.log(`# cluster ${cluster.endpoints.join(',')} started in ${Date.now() - started} ms`);
  const env = { ...process.env, REGENT_ENDPOINTS: cluster.endpoints.join(',') };
  if (cluster.dir) env.REGENT_CLUSTER_DIR = cluster.dir;
  let child;
  const forward = (sig) => child?.kill(sig); // Ctrl-C, a runner's timeout: the file ends, then the cluster
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  let failed = false;
  try {
    for (const file of files) {
      child = spawn(process.execPath, ['--test', file], { stdio: 'inherit', env });
      const code = await new Promise((resolve) => child.once('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
      failed ||= code !== 0;
    }
  } finally {
    const stopping = Date.now();
    await cluster.stop();
    if (cluster.started) console.log(`# cluster stopped in ${Date.now() - stopping} ms`);
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
  console.error(`with-cluster: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
