// Runs a command (the cluster tests: node --test FILE...) against one cluster, so that its test files share it:
// the package's test fixture's (startCluster: REGENT_ENDPOINTS's, else one it starts), passed on as
// REGENT_ENDPOINTS and REGENT_CLUSTER_DIR and stopped once the command has ended; exits with the command's code.
//
//   node test/with-cluster.js node --test test/cluster.test.js test/group-worker.test.js
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { startCluster } = require('../dist/src/testing');

const JAR = path.resolve(__dirname, '..', '..', '..', 'cli', 'target', 'regent.jar');

async function main([command, ...args]) {
  const started = Date.now();
  const cluster = await startCluster({ jar: process.env.REGENT_JAR ?? (fs.existsSync(JAR) ? JAR : undefined) });
  if (cluster.started) console.log(`# cluster ${cluster.endpoints.join(',')} started in ${Date.now() - started} ms`);
  try {
    const env = { ...process.env, REGENT_ENDPOINTS: cluster.endpoints.join(',') };
    if (cluster.dir) env.REGENT_CLUSTER_DIR = cluster.dir;
    const child = spawn(command, args, { stdio: 'inherit', env });
    const forward = (sig) => child.kill(sig); // Ctrl-C, a runner's timeout: the command ends, then the cluster
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    return await new Promise((resolve) => child.once('exit', (code, sig) => resolve(code ?? (sig ? 1 : 0))));
  } finally {
    const stopping = Date.now();
    await cluster.stop();
    if (cluster.started) console.log(`# cluster stopped in ${Date.now() - stopping} ms`);
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
  console.error(`with-cluster: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
