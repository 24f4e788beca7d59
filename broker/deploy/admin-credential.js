#!/usr/bin/env node
// Does the broker's stored SCRAM credential for USER accept the password on stdin, and if not, make
// it so? `node admin-credential.js DB_PATH USER < password` prints one word and exits 0:
//   absent    no database yet, or no credential for USER: the broker creates it at start
//             (MINNOW_ADMIN_PASSWORD_FILE), nothing to do;
//   accepted  every stored mechanism's credential is the password's;
//   reset     one was not (a data volume restored from another stack's snapshot): USER's
//             credentials were replaced by SCRAM-SHA-256 and -512 ones for the password.
// Run by deploy/security.sh at boot, while the broker may be running: SQLite lets a second writer
// in (WAL, busy timeout), and the broker reads credentials at each login, with no cache
// (src/storage/sqlite/scram-credentials.ts), so the next login sees the new one. The SCRAM
// derivation is RFC 5802's as src/sasl/scram-crypto.ts does it; only salt, iterations, StoredKey
// and ServerKey are stored, never the password. Plain Node.js and the release's better-sqlite3.
'use strict';
const { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } = require('node:crypto');
const fs = require('node:fs');

const MECHANISMS = {
  'SCRAM-SHA-256': { hash: 'sha256', keyBytes: 32 },
  'SCRAM-SHA-512': { hash: 'sha512', keyBytes: 64 },
};
/** Kafka's default (kafka-configs), as the broker's bootstrap admin uses. */
const ITERATIONS = 4096;

function keys(mechanism, password, salt, iterations) {
  const { hash, keyBytes } = MECHANISMS[mechanism];
  const salted = pbkdf2Sync(password, salt, iterations, keyBytes, hash);
  const hmac = (data) => createHmac(hash, salted).update(data).digest();
  return {
    storedKey: createHash(hash).update(hmac('Client Key')).digest(),
    serverKey: hmac('Server Key'),
  };
}

const same = (a, b) => a.length === b.length && timingSafeEqual(a, b);

function main() {
  const [dbPath, user] = process.argv.slice(2);
  if (!dbPath || !user) {
    process.stderr.write('usage: node admin-credential.js DB_PATH USER < password\n');
    return 2;
  }
  const password = fs.readFileSync(0, 'utf8').split(/\r?\n/)[0] ?? '';
  if (password === '') throw new Error('the password read from stdin is empty');
  if (!fs.existsSync(dbPath)) return 'absent';
  // Not a database (yet): opening it would still let SQLite remove a -wal beside it.
  const header = Buffer.alloc(16);
  const fd = fs.openSync(dbPath, 'r');
  const read = fs.readSync(fd, header, 0, 16, 0);
  fs.closeSync(fd);
  if (read === 0) return 'absent';
  if (!header.equals(Buffer.from('SQLite format 3\0', 'latin1'))) throw new Error('not a SQLite database');

  const Database = require('better-sqlite3');
  const db = new Database(dbPath, { fileMustExist: true, timeout: 30000 });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'scram_credential'").get();
    if (!table) return 'absent';
    const rows = db
      .prepare('SELECT mechanism, salt, iterations, stored_key, server_key FROM scram_credential WHERE user_name = ?')
      .all(user);
    if (rows.length === 0) return 'absent';
    const accepted = rows.every((r) => {
      if (!MECHANISMS[r.mechanism]) return false;
      const k = keys(r.mechanism, password, r.salt, r.iterations);
      return same(k.storedKey, r.stored_key) && same(k.serverKey, r.server_key);
    });
    if (accepted) return 'accepted';

    const remove = db.prepare('DELETE FROM scram_credential WHERE user_name = ?');
    const insert = db.prepare(
      'INSERT INTO scram_credential (user_name, mechanism, salt, iterations, stored_key, server_key) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const fresh = Object.keys(MECHANISMS).map((mechanism) => {
      const salt = randomBytes(32);
      const k = keys(mechanism, password, salt, ITERATIONS);
      return [user, mechanism, salt, ITERATIONS, k.storedKey, k.serverKey];
    });
    db.transaction(() => {
      remove.run(user);
      for (const row of fresh) insert.run(...row);
    }).immediate();
    return 'reset';
  } finally {
    db.close();
  }
}

try {
  const outcome = main();
  if (typeof outcome === 'number') process.exitCode = outcome;
  else process.stdout.write(`${outcome}\n`);
} catch (err) {
  process.stderr.write(`admin-credential: ${process.argv[2]}: ${err.message}\n`);
  process.exitCode = 1;
}
