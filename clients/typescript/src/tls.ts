// Channel credentials for TLS and mutual TLS, from files named as the regent CLI names them: its
// --cacert/--cert/--key, defaulting to $REGENT_CACERT/$REGENT_CERT/$REGENT_KEY (docs/security.md). The Python
// client's tls.py applies the same rules.
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';

/** PEM files: each path given here, else its environment variable (an empty one counts as unset). */
export interface TlsFiles {
  /** The CA certificate the nodes' certificates are checked against; none means plaintext. $REGENT_CACERT. */
  cacert?: string;
  /** This client's certificate (its CN is the identity of docs/security.md's per-name permissions). $REGENT_CERT. */
  cert?: string;
  /** The key of `cert` (PKCS#8, as the server's tools write it). $REGENT_KEY. */
  key?: string;
}

const ENV = { cacert: 'REGENT_CACERT', cert: 'REGENT_CERT', key: 'REGENT_KEY' } as const;

/**
 * Credentials for `files`: plaintext without a CA certificate; TLS verifying the nodes against it; mutual TLS when a
 * client certificate and its key are given too.
 * @throws TypeError for a certificate without its key (or the reverse), a client certificate without a CA
 *   certificate (the CLI's usage errors), or a file that cannot be read (naming it)
 */
export function tlsCredentials(files: TlsFiles = {}): grpc.ChannelCredentials {
  const pick = (k: keyof TlsFiles) => files[k] || process.env[ENV[k]] || undefined;
  const [ca, cert, key] = [pick('cacert'), pick('cert'), pick('key')];
  if ((cert === undefined) !== (key === undefined)) {
    throw new TypeError('cert and key go together (REGENT_CERT, REGENT_KEY)');
  }
  if (cert !== undefined && ca === undefined) {
    throw new TypeError('cert needs cacert (client certificates are for TLS)');
  }
  if (ca === undefined) return grpc.credentials.createInsecure();
  return grpc.credentials.createSsl(read(ca), key === undefined ? null : read(key), cert === undefined ? null : read(cert));
}

function read(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new TypeError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}
